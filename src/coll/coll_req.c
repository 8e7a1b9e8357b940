/*
 * Handles of non-blocking collectives (a kind of request handle: runtime/request.h). A handle
 * encodes (slot, generation) so a completed, freed or forged handle is recognised instead of
 * dereferenced; it stands for an instance and the AGGREGATE run chained to it. Instances started
 * with ASYNC_FENCE have no handle: they wait on the fence list until arbor_coll_fence of their
 * team.
 */
#include "coll/coll_req.h"

#include <stdint.h>
#include <stdlib.h>

#include "coll/wait.h"
#include "runtime/request.h"

/* The slot table lives in the context (arb_ctx.stream.slots): another thread may grow it (realloc)
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
    uint32_t idx = (uint32_t)(v & 0xffffffffu), gen = (uint32_t)(v >> 32);
    if (idx == 0 || idx > arb_ctx.stream.nslots) return NULL;
    slot_t *s = &arb_ctx.stream.slots[idx - 1];
    return s->inst && s->gen == gen ? s : NULL;
}

arbor_status_t arb_coll_req_new(arb_inst_t *inst, arbor_request_h *req_p)
{
    uint32_t i = arb_ctx.stream.free_hint;
    while (i < arb_ctx.stream.nslots && arb_ctx.stream.slots[i].inst) i++;
    if (i == arb_ctx.stream.nslots) {
        for (i = 0; i < arb_ctx.stream.nslots && arb_ctx.stream.slots[i].inst; i++) {
        }
    }
    if (i == arb_ctx.stream.nslots) {
        uint32_t n = arb_ctx.stream.nslots ? 2 * arb_ctx.stream.nslots : 64;
        slot_t *ns = realloc(arb_ctx.stream.slots, n * sizeof(*ns));
        if (!ns) return ARBOR_ERR_NO_MEMORY;
        for (uint32_t j = arb_ctx.stream.nslots; j < n; j++) ns[j] = (slot_t){NULL, 0, 0};
        arb_ctx.stream.slots = ns;
        arb_ctx.stream.nslots = n;
    }
    arb_ctx.stream.slots[i].inst = inst;
    arb_ctx.stream.slots[i].gen++;
    arb_ctx.stream.free_hint = i + 1;
    inst->has_handle = true;
    *req_p = encode(i, arb_ctx.stream.slots[i].gen);
    return ARBOR_OK;
}

static arbor_status_t release(slot_t *s, arbor_request_h *req)
{
    arbor_status_t status = arb_exec_chain_status(s->inst);
    arb_exec_chain_free(s->inst);
    s->inst = NULL;
    arb_ctx.stream.free_hint = (uint32_t)(s - arb_ctx.stream.slots);
    *req = NULL;
    return status;
}

/* The kind's operations (runtime/request.h): the handle was found valid first. */
static bool coll_owns(arbor_request_h h)
{
    return decode(h) != NULL;
}

static bool coll_complete(arbor_request_h h)
{
    return arb_exec_chain_complete(decode(h)->inst);
}

static arbor_status_t coll_wait(arbor_request_h h)
{
    arb_inst_t *inst = decode(h)->inst; /* the slot may move while we wait; the instance not */
    arbor_status_t status = arb_exec_chain_wait(inst);
    return status == ARBOR_ERR_TIMEOUT && arb_exec_chain_complete(inst) ? ARBOR_OK : status;
}

static arbor_status_t coll_test_idle(arbor_request_h h, bool moved)
{
    return arb_exec_chain_test_idle(decode(h)->inst, moved);
}

static arbor_status_t release_handle(arbor_request_h *h)
{
    return release(decode(*h), h);
}

/* Whether h was listed already in the check of this pass; marks it. */
static bool coll_mark(arbor_request_h h, uint32_t pass)
{
    slot_t *s = decode(h);
    if (s->listed == pass) return true;
    s->listed = pass;
    return false;
}

static void coll_forget_marks(void)
{
    for (uint32_t j = 0; j < arb_ctx.stream.nslots; j++) arb_ctx.stream.slots[j].listed = 0;
}

arbor_status_t arb_coll_fence_add(arb_inst_t *inst)
{
    inst->fence_next = arb_ctx.stream.fence_head;
    arb_ctx.stream.fence_head = inst;
    return ARBOR_OK;
}

arbor_status_t arb_coll_fence_wait(struct arbor_team *t)
{
    arbor_status_t first = ARBOR_OK;
    for (;;) {
        /* The oldest of t's entries: other threads add and fence entries of their teams while
         * we wait, so the list is searched again after every wait. */
        arb_inst_t *i = NULL;
        for (arb_inst_t *x = arb_ctx.stream.fence_head; x; x = x->fence_next)
            if (x->team == t) i = x;
        if (!i) return first;
        arbor_status_t status = arb_exec_chain_wait(i);
        if (status == ARBOR_ERR_TIMEOUT) return status;
        if (status != ARBOR_OK && first == ARBOR_OK) first = status;
        for (arb_inst_t **pp = &arb_ctx.stream.fence_head; *pp; pp = &(*pp)->fence_next)
            if (*pp == i) {
                *pp = i->fence_next;
                break;
            }
        arb_exec_chain_free(i);
    }
}

bool arb_coll_team_busy(const struct arbor_team *t)
{
    for (uint32_t i = 0; i < arb_ctx.stream.nslots; i++)
        for (const arb_inst_t *x = arb_ctx.stream.slots[i].inst; x; x = x->agg_next)
            if (x->team == t) return true;
    for (const arb_inst_t *x = arb_ctx.stream.fence_head; x; x = x->fence_next)
        if (x->team == t) return true;
    return false;
}

void arb_coll_adopt(arb_inst_t *inst)
{
    arbor_request_h dummy;
    if (arb_coll_req_new(inst, &dummy) != ARBOR_OK)
        arb_exec_chain_free(inst);
    else
        inst->has_handle = false;
}

static int coll_live(void)
{
    int n = 0;
    for (uint32_t i = 0; i < arb_ctx.stream.nslots; i++)
        n += arb_ctx.stream.slots[i].inst && arb_ctx.stream.slots[i].inst->has_handle;
    for (const arb_inst_t *x = arb_ctx.stream.fence_head; x; x = x->fence_next) n++;
    return n;
}

static void coll_cleanup(void)
{
    for (uint32_t i = 0; i < arb_ctx.stream.nslots; i++)
        if (arb_ctx.stream.slots[i].inst) arb_exec_chain_free(arb_ctx.stream.slots[i].inst);
    while (arb_ctx.stream.fence_head) {
        arb_inst_t *next = arb_ctx.stream.fence_head->fence_next;
        arb_exec_chain_free(arb_ctx.stream.fence_head);
        arb_ctx.stream.fence_head = next;
    }
    free(arb_ctx.stream.slots);
    arb_ctx.stream.slots = NULL;
    arb_ctx.stream.nslots = arb_ctx.stream.free_hint = 0;
}

static const arb_req_kind_t coll_kind = {
    .owns = coll_owns,
    .complete = coll_complete,
    .wait = coll_wait,
    .test_idle = coll_test_idle,
    .release = release_handle,
    .mark = coll_mark,
    .forget_marks = coll_forget_marks,
    .live = coll_live,
    .cleanup = coll_cleanup,
};

arbor_status_t arb_coll_req_register(void)
{
    return arb_req_kind_add(&coll_kind);
}
