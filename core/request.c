/*
 * Handles of non-blocking calls. A handle encodes (slot, generation) so a completed, freed or
 * forged handle is recognised (ARBOR_ERR_HANDLE) instead of dereferenced. A handle stands for
 * an instance and the AGGREGATE run chained to it. Instances started with ASYNC_FENCE have no
 * handle: they wait on the fence list until arbor_coll_fence of their team.
 *
 * Handles of one-sided operations carry ARB_RMA_REQ_TAG in their slot word and live in the
 * one-sided layer's table (core/rma/rma.c); every call here takes either kind.
 */
#include <stdint.h>
#include <stdlib.h>

#include "core/executor.h"
#include "core/progress.h"
#include "core/request.h"
#include "core/rma/rma.h"

typedef struct {
    arb_inst_t *inst; /* NULL = free slot */
    uint32_t gen;
    uint32_t listed; /* check_all's pass that last met this slot: finds a handle listed twice */
} slot_t;

static slot_t *slots;
static uint32_t nslots, free_hint, check_pass;
static arb_inst_t *fence_head;

static arbor_request_h encode(uint32_t idx, uint32_t gen)
{
    return (arbor_request_h)(uintptr_t)(((uint64_t)gen << 32) | (uint64_t)(idx + 1));
}

static slot_t *decode(arbor_request_h h)
{
    uint64_t v = (uint64_t)(uintptr_t)h;
    if (arb_rma_req_is(h)) return NULL;
    uint32_t idx = (uint32_t)(v & 0xffffffffu), gen = (uint32_t)(v >> 32);
    if (idx == 0 || idx > nslots) return NULL;
    slot_t *s = &slots[idx - 1];
    return s->inst && s->gen == gen ? s : NULL;
}

arbor_status_t arb_req_new(arb_inst_t *inst, arbor_request_h *req_p)
{
    uint32_t i = free_hint;
    while (i < nslots && slots[i].inst) i++;
    if (i == nslots) {
        for (i = 0; i < nslots && slots[i].inst; i++) {
        }
    }
    if (i == nslots) {
        uint32_t n = nslots ? 2 * nslots : 64;
        slot_t *ns = realloc(slots, n * sizeof(*ns));
        if (!ns) return ARBOR_ERR_NO_MEMORY;
        for (uint32_t j = nslots; j < n; j++) ns[j] = (slot_t){NULL, 0, 0};
        slots = ns;
        nslots = n;
    }
    slots[i].inst = inst;
    slots[i].gen++;
    free_hint = i + 1;
    inst->has_handle = true;
    *req_p = encode(i, slots[i].gen);
    return ARBOR_OK;
}

static arbor_status_t release(slot_t *s, arbor_request_h *req)
{
    arbor_status_t status = arb_exec_chain_status(s->inst);
    arb_exec_chain_free(s->inst);
    s->inst = NULL;
    free_hint = (uint32_t)(s - slots);
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
    slot_t *s = decode(h);
    arbor_status_t status = arb_exec_chain_wait(s->inst);
    return status == ARBOR_ERR_TIMEOUT && arb_exec_chain_complete(s->inst) ? ARBOR_OK : status;
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
    if (!h_complete(*req)) arb_progress_turn();
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
    if (++check_pass == 0) { /* wrapped: forget every old mark */
        for (uint32_t j = 0; j < nslots; j++) slots[j].listed = 0;
        check_pass = 1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!reqs[i]) continue;
        if (!h_valid(reqs[i])) return ARBOR_ERR_HANDLE;
        slot_t *s = decode(reqs[i]);
        if (s) {
            if (s->listed == check_pass) return ARBOR_ERR_HANDLE;
            s->listed = check_pass;
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
    arb_progress_turn();
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
    arb_progress_turn();
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
    inst->fence_next = fence_head;
    fence_head = inst;
    return ARBOR_OK;
}

arbor_status_t arb_req_fence_wait(struct arbor_team *t)
{
    arbor_status_t first = ARBOR_OK;
    for (arb_inst_t **pp = &fence_head; *pp;) {
        arb_inst_t *i = *pp;
        if (i->team != t) {
            pp = &i->fence_next;
            continue;
        }
        arbor_status_t status = arb_exec_chain_wait(i);
        if (status == ARBOR_ERR_TIMEOUT) return status;
        if (status != ARBOR_OK && first == ARBOR_OK) first = status;
        *pp = i->fence_next;
        arb_exec_chain_free(i);
    }
    return first;
}

bool arb_req_team_busy(const struct arbor_team *t)
{
    for (uint32_t i = 0; i < nslots; i++)
        for (const arb_inst_t *x = slots[i].inst; x; x = x->agg_next)
            if (x->team == t) return true;
    for (const arb_inst_t *x = fence_head; x; x = x->fence_next)
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
    for (uint32_t i = 0; i < nslots; i++) n += slots[i].inst && slots[i].inst->has_handle;
    for (const arb_inst_t *x = fence_head; x; x = x->fence_next) n++;
    return n + arb_rma_req_live();
}

void arb_req_cleanup(void)
{
    for (uint32_t i = 0; i < nslots; i++)
        if (slots[i].inst) arb_exec_chain_free(slots[i].inst);
    while (fence_head) {
        arb_inst_t *next = fence_head->fence_next;
        arb_exec_chain_free(fence_head);
        fence_head = next;
    }
    free(slots);
    slots = NULL;
    nslots = free_hint = 0;
}

/* Entry points: with a progress thread, one caller at a time. */
arbor_status_t arbor_test(arbor_request_h *req)
{
    arb_lock();
    arbor_status_t status = arbor_test_unlocked(req);
    arb_unlock();
    return status;
}

arbor_status_t arbor_wait(arbor_request_h *req)
{
    arb_lock();
    arbor_status_t status = arbor_wait_unlocked(req);
    arb_unlock();
    return status;
}

arbor_status_t arbor_wait_all(size_t n, arbor_request_h *reqs)
{
    arb_lock();
    arbor_status_t status = arbor_wait_all_unlocked(n, reqs);
    arb_unlock();
    return status;
}

arbor_status_t arbor_test_all(size_t n, arbor_request_h *reqs)
{
    arb_lock();
    arbor_status_t status = arbor_test_all_unlocked(n, reqs);
    arb_unlock();
    return status;
}

arbor_status_t arbor_test_some(size_t n, arbor_request_h *reqs, size_t *done_p, size_t *indices)
{
    arb_lock();
    arbor_status_t status = arbor_test_some_unlocked(n, reqs, done_p, indices);
    arb_unlock();
    return status;
}

arbor_status_t arbor_wait_some(size_t n, arbor_request_h *reqs, size_t *done_p, size_t *indices)
{
    arb_lock();
    arbor_status_t status = arbor_wait_some_unlocked(n, reqs, done_p, indices);
    arb_unlock();
    return status;
}
