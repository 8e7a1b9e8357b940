/*
 * Handles of non-blocking calls. A handle encodes (slot, generation) so a completed, freed or
 * forged handle is recognised (ARBOR_ERR_HANDLE) instead of dereferenced. A handle stands for
 * an instance and the AGGREGATE run chained to it. Instances started with ASYNC_FENCE have no
 * handle: they wait on the fence list until arbor_coll_fence of their team.
 *
 * Handles of one-sided operations carry ARB_RMA_REQ_TAG in their slot word and live in the
 * one-sided layer's table (rma/rma.c); every call here takes either kind.
 */
#include <stdint.h>
#include <stdlib.h>

#include "coll/executor.h"
#include "coll/wait.h"
#include "runtime/progress.h"
#include "runtime/request.h"
#include "rma/rma.h"

/* The slot table lives in the context (arb_ctx.slots): another thread may grow it (realloc)
 * whenever a wait lets go of the engine lock, so no slot pointer is kept across a wait. */
struct arb_req_slot {
    arb_inst_t *inst; /* NULL = free slot */
    uint32_t gen;
    uint32_t listed; /* check_all's pass that last met this slot: finds a handle listed twice */
};
typedef arb_req_slot_t slot_t;

static arbor_request_h encode(uint32_t idx, uint32_t gen)
{
    return (arbor_request_h)(uintptr_t)(((uint64_t)gen << 32) | (uint64_t)(idx + 1));
}

static slot_t *decode(arbor_request_h h)
{
    uint64_t v = (uint64_t)(uintptr_t)h;
    if (arb_rma_req_is(h)) return NULL;
    uint32_t idx = (uint32_t)(v & 0xffffffffu), gen = (uint32_t)(v >> 32);
    if (idx == 0 || idx > arb_ctx.nslots) return NULL;
    slot_t *s = &arb_ctx.slots[idx - 1];
    return s->inst && s->gen == gen ? s : NULL;
}

arbor_status_t arb_req_new(arb_inst_t *inst, arbor_request_h *req_p)
{
    uint32_t i = arb_ctx.free_hint;
    while (i < arb_ctx.nslots && arb_ctx.slots[i].inst) i++;
    if (i == arb_ctx.nslots) {
        for (i = 0; i < arb_ctx.nslots && arb_ctx.slots[i].inst; i++) {
        }
    }
    if (i == arb_ctx.nslots) {
        uint32_t n = arb_ctx.nslots ? 2 * arb_ctx.nslots : 64;
        slot_t *ns = realloc(arb_ctx.slots, n * sizeof(*ns));
        if (!ns) return ARBOR_ERR_NO_MEMORY;
        for (uint32_t j = arb_ctx.nslots; j < n; j++) ns[j] = (slot_t){NULL, 0, 0};
        arb_ctx.slots = ns;
        arb_ctx.nslots = n;
    }
    arb_ctx.slots[i].inst = inst;
    arb_ctx.slots[i].gen++;
    arb_ctx.free_hint = i + 1;
    inst->has_handle = true;
    *req_p = encode(i, arb_ctx.slots[i].gen);
    return ARBOR_OK;
}

static arbor_status_t release(slot_t *s, arbor_request_h *req)
{
    arbor_status_t status = arb_exec_chain_status(s->inst);
    arb_exec_chain_free(s->inst);
    s->inst = NULL;
    arb_ctx.free_hint = (uint32_t)(s - arb_ctx.slots);
    *req = NULL;
    return status;
}

/* Either kind of handle: valid, complete, wait, release. */
static bool h_valid(arbor_request_h h)
{
    return arb_rma_req_is(h) ? arb_rma_req_valid(h) : decode(h) != NULL;
}

static bool h_complete(arbor_request_h h)
{
    return arb_rma_req_is(h) ? arb_rma_req_done(h) : arb_exec_chain_complete(decode(h)->inst);
}

static arbor_status_t h_wait(arbor_request_h h)
{
    if (arb_rma_req_is(h)) return arb_rma_req_wait(h);
    arb_inst_t *inst = decode(h)->inst; /* the slot may move while we wait; the instance not */
    arbor_status_t status = arb_exec_chain_wait(inst);
    return status == ARBOR_ERR_TIMEOUT && arb_exec_chain_complete(inst) ? ARBOR_OK : status;
}

/* A test call's idle point (runtime/progress.h): a collective that a lost member or ARBOR_TIMEOUT
 * ends comes back complete with that status; a one-sided handle stays incomplete and its
 * ARBOR_ERR_TIMEOUT is returned. */
static arbor_status_t h_test_idle(arbor_request_h h, bool moved)
{
    if (arb_rma_req_is(h)) return arb_rma_req_test_idle(h, moved);
    return arb_exec_chain_test_idle(decode(h)->inst, moved);
}

/* Runs the idle point of every listed handle still incomplete after the turn; a verdict that
 * leaves its handle incomplete (one-sided) is returned at once, the handle kept. */
static arbor_status_t test_idle_all(size_t n, arbor_request_h *reqs, bool moved)
{
    for (size_t i = 0; i < n; i++) {
        if (!reqs[i] || h_complete(reqs[i])) continue;
        arbor_status_t why = h_test_idle(reqs[i], moved);
        if (why != ARBOR_OK && !h_complete(reqs[i])) return why;
    }
    return ARBOR_OK;
}

static arbor_status_t h_release(arbor_request_h *h)
{
    return arb_rma_req_is(*h) ? arb_rma_req_release(h) : release(decode(*h), h);
}

static arbor_status_t arbor_test_unlocked(arbor_request_h *req)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (!req) return ARBOR_ERR_INVALID_ARG;
    if (!h_valid(*req)) return ARBOR_ERR_HANDLE;
    if (!h_complete(*req)) {
        bool moved = arb_progress_turn() > 0;
        /* The turn may have let go of the lock: a handle another thread released meanwhile
         * (two threads on one handle, against the rules) is reported, not followed. */
        if (!h_valid(*req)) return ARBOR_ERR_HANDLE;
        /* A caller that only tests must learn of a lost peer or a timeout as a waiter does. */
        arbor_status_t why = test_idle_all(1, req, moved);
        if (why != ARBOR_OK) return why;
    }
    return h_complete(*req) ? h_release(req) : ARBOR_INPROGRESS;
}

static arbor_status_t arbor_wait_unlocked(arbor_request_h *req)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (!req) return ARBOR_ERR_INVALID_ARG;
    if (!h_valid(*req)) return ARBOR_ERR_HANDLE;
    arbor_status_t status = h_wait(*req);
    if (status == ARBOR_ERR_TIMEOUT) return status;
    return h_release(req);
}

/* Every non-NULL handle must be valid, and listed once (the first release would leave the
 * second entry pointing at a freed slot), before anything happens. */
static arbor_status_t check_all(size_t n, arbor_request_h *reqs, size_t *live_p)
{
    size_t live = 0;
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (!reqs && n) return ARBOR_ERR_INVALID_ARG;
    if (++arb_ctx.check_pass == 0) { /* wrapped: forget every old mark */
        for (uint32_t j = 0; j < arb_ctx.nslots; j++) arb_ctx.slots[j].listed = 0;
        arb_ctx.check_pass = 1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!reqs[i]) continue;
        if (!h_valid(reqs[i])) return ARBOR_ERR_HANDLE;
        slot_t *s = decode(reqs[i]);
        if (s) {
            if (s->listed == arb_ctx.check_pass) return ARBOR_ERR_HANDLE;
            s->listed = arb_ctx.check_pass;
        } else { /* a one-sided handle: compare with the earlier entries */
            for (size_t j = 0; j < i; j++)
                if (reqs[j] == reqs[i]) return ARBOR_ERR_HANDLE;
        }
        live++;
    }
    *live_p = live;
    return ARBOR_OK;
}

static arbor_status_t arbor_wait_all_unlocked(size_t n, arbor_request_h *reqs)
{
    size_t live;
    arbor_status_t status = check_all(n, reqs, &live), first = ARBOR_OK;
    if (status != ARBOR_OK) return status;
    for (size_t i = 0; i < n; i++) {
        if (!reqs[i]) continue;
        status = arbor_wait_unlocked(&reqs[i]);
        if (status == ARBOR_ERR_TIMEOUT) return status;
        if (status != ARBOR_OK && first == ARBOR_OK) first = status;
    }
    return first;
}

static arbor_status_t arbor_test_all_unlocked(size_t n, arbor_request_h *reqs)
{
    size_t live;
    arbor_status_t status = check_all(n, reqs, &live), first = ARBOR_OK;
    if (status != ARBOR_OK) return status;
    bool moved = arb_progress_turn() > 0;
    for (size_t i = 0; i < n; i++)
        if (reqs[i] && !h_valid(reqs[i])) return ARBOR_ERR_HANDLE;
    if ((status = test_idle_all(n, reqs, moved)) != ARBOR_OK) return status;
    for (size_t i = 0; i < n; i++)
        if (reqs[i] && !h_complete(reqs[i])) return ARBOR_INPROGRESS;
    for (size_t i = 0; i < n; i++) {
        if (!reqs[i]) continue;
        status = h_release(&reqs[i]);
        if (status != ARBOR_OK && first == ARBOR_OK) first = status;
    }
    return first;
}

static arbor_status_t collect(size_t n, arbor_request_h *reqs, size_t *done_p, size_t *indices)
{
    arbor_status_t first = ARBOR_OK;
    size_t done = 0;
    for (size_t i = 0; i < n; i++) {
        if (!reqs[i] || !h_valid(reqs[i]) || !h_complete(reqs[i])) continue;
        arbor_status_t status = h_release(&reqs[i]);
        if (status != ARBOR_OK && first == ARBOR_OK) first = status;
        indices[done++] = i;
    }
    *done_p = done;
    return first;
}

static arbor_status_t arbor_test_some_unlocked(size_t n, arbor_request_h *reqs, size_t *done_p,
                                               size_t *indices)
{
    size_t live;
    arbor_status_t status = check_all(n, reqs, &live);
    if (status != ARBOR_OK) return status;
    if (!done_p || (!indices && n)) return ARBOR_ERR_INVALID_ARG;
    if (!live) return ARBOR_ERR_INVALID_ARG;
    bool moved = arb_progress_turn() > 0;
    for (size_t i = 0; i < n; i++)
        if (reqs[i] && !h_valid(reqs[i])) return ARBOR_ERR_HANDLE;
    if ((status = test_idle_all(n, reqs, moved)) != ARBOR_OK) return status;
    status = collect(n, reqs, done_p, indices);
    return status == ARBOR_OK && *done_p == 0 ? ARBOR_INPROGRESS : status;
}

static arbor_status_t arbor_wait_some_unlocked(size_t n, arbor_request_h *reqs, size_t *done_p,
                                               size_t *indices)
{
    size_t live;
    arbor_status_t status = check_all(n, reqs, &live);
    if (status != ARBOR_OK) return status;
    if (!done_p || (!indices && n)) return ARBOR_ERR_INVALID_ARG;
    if (!live) return ARBOR_ERR_INVALID_ARG;
    for (size_t i = 0; i < n; i++) {
        if (!reqs[i]) continue;
        /* waiting on the first live one bounds the wait by ARBOR_TIMEOUT and completes at
         * least one; the others are collected if they are done too */
        status = h_wait(reqs[i]);
        if (status == ARBOR_ERR_TIMEOUT) return status;
        break;
    }
    return collect(n, reqs, done_p, indices);
}

arbor_status_t arb_req_fence_add(arb_inst_t *inst)
{
    inst->fence_next = arb_ctx.fence_head;
    arb_ctx.fence_head = inst;
    return ARBOR_OK;
}

arbor_status_t arb_req_fence_wait(struct arbor_team *t)
{
    arbor_status_t first = ARBOR_OK;
    for (;;) {
        /* The oldest of t's entries: other threads add and fence entries of their teams while
         * we wait, so the list is searched again after every wait. */
        arb_inst_t *i = NULL;
        for (arb_inst_t *x = arb_ctx.fence_head; x; x = x->fence_next)
            if (x->team == t) i = x;
        if (!i) return first;
        arbor_status_t status = arb_exec_chain_wait(i);
        if (status == ARBOR_ERR_TIMEOUT) return status;
        if (status != ARBOR_OK && first == ARBOR_OK) first = status;
        for (arb_inst_t **pp = &arb_ctx.fence_head; *pp; pp = &(*pp)->fence_next)
            if (*pp == i) {
                *pp = i->fence_next;
                break;
            }
        arb_exec_chain_free(i);
    }
}

bool arb_req_team_busy(const struct arbor_team *t)
{
    for (uint32_t i = 0; i < arb_ctx.nslots; i++)
        for (const arb_inst_t *x = arb_ctx.slots[i].inst; x; x = x->agg_next)
            if (x->team == t) return true;
    for (const arb_inst_t *x = arb_ctx.fence_head; x; x = x->fence_next)
        if (x->team == t) return true;
    return false;
}

void arb_req_adopt(arb_inst_t *inst)
{
    arbor_request_h dummy;
    if (arb_req_new(inst, &dummy) != ARBOR_OK)
        arb_exec_chain_free(inst);
    else
        inst->has_handle = false;
}

int arb_req_live(void)
{
    int n = 0;
    for (uint32_t i = 0; i < arb_ctx.nslots; i++)
        n += arb_ctx.slots[i].inst && arb_ctx.slots[i].inst->has_handle;
    for (const arb_inst_t *x = arb_ctx.fence_head; x; x = x->fence_next) n++;
    return n + arb_rma_req_live();
}

void arb_req_cleanup(void)
{
    for (uint32_t i = 0; i < arb_ctx.nslots; i++)
        if (arb_ctx.slots[i].inst) arb_exec_chain_free(arb_ctx.slots[i].inst);
    while (arb_ctx.fence_head) {
        arb_inst_t *next = arb_ctx.fence_head->fence_next;
        arb_exec_chain_free(arb_ctx.fence_head);
        arb_ctx.fence_head = next;
    }
    free(arb_ctx.slots);
    arb_ctx.slots = NULL;
    arb_ctx.nslots = arb_ctx.free_hint = 0;
}

/* Entry points: with the engine lock on (docs/THREADS.md), one caller at a time. */
arbor_status_t arbor_test(arbor_request_h *req)
{
    ARB_ENTER();
    arbor_status_t status = arbor_test_unlocked(req);
    arb_unlock();
    return status;
}

arbor_status_t arbor_wait(arbor_request_h *req)
{
    ARB_ENTER();
    arbor_status_t status = arbor_wait_unlocked(req);
    arb_unlock();
    return status;
}

arbor_status_t arbor_wait_all(size_t n, arbor_request_h *reqs)
{
    ARB_ENTER();
    arbor_status_t status = arbor_wait_all_unlocked(n, reqs);
    arb_unlock();
    return status;
}

arbor_status_t arbor_test_all(size_t n, arbor_request_h *reqs)
{
    ARB_ENTER();
    arbor_status_t status = arbor_test_all_unlocked(n, reqs);
    arb_unlock();
    return status;
}

arbor_status_t arbor_test_some(size_t n, arbor_request_h *reqs, size_t *done_p, size_t *indices)
{
    ARB_ENTER();
    arbor_status_t status = arbor_test_some_unlocked(n, reqs, done_p, indices);
    arb_unlock();
    return status;
}

arbor_status_t arbor_wait_some(size_t n, arbor_request_h *reqs, size_t *done_p, size_t *indices)
{
    ARB_ENTER();
    arbor_status_t status = arbor_wait_some_unlocked(n, reqs, done_p, indices);
    arb_unlock();
    return status;
}
