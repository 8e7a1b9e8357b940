/*
 * Handles of non-blocking calls. A handle encodes (slot, generation) so a completed, freed or
 * forged handle is recognised (ARBOR_ERR_HANDLE) instead of dereferenced.
 */
#include <stdint.h>
#include <stdlib.h>

#include "core/executor.h"
#include "core/request.h"

typedef struct {
    arb_inst_t *inst; /* NULL = free slot */
    uint32_t gen;
} slot_t;

static slot_t *slots;
static uint32_t nslots;

static arbor_request_h encode(uint32_t idx, uint32_t gen)
{
    return (arbor_request_h)(uintptr_t)(((uint64_t)gen << 32) | (uint64_t)(idx + 1));
}

static slot_t *decode(arbor_request_h h)
{
    uint64_t v = (uint64_t)(uintptr_t)h;
    uint32_t idx = (uint32_t)(v & 0xffffffffu), gen = (uint32_t)(v >> 32);
    if (idx == 0 || idx > nslots) return NULL;
    slot_t *s = &slots[idx - 1];
    return s->inst && s->gen == gen ? s : NULL;
}

arbor_status_t arb_req_new(arb_inst_t *inst, arbor_request_h *req_p)
{
    uint32_t i = 0;
    while (i < nslots && slots[i].inst) i++;
    if (i == nslots) {
        uint32_t n = nslots ? 2 * nslots : 64;
        slot_t *ns = realloc(slots, n * sizeof(*ns));
        if (!ns) return ARBOR_ERR_NO_MEMORY;
        for (uint32_t j = nslots; j < n; j++) ns[j] = (slot_t){NULL, 0};
        slots = ns;
        nslots = n;
    }
    slots[i].inst = inst;
    slots[i].gen++;
    inst->has_handle = true;
    *req_p = encode(i, slots[i].gen);
    return ARBOR_OK;
}

static arbor_status_t release(slot_t *s, arbor_request_h *req)
{
    arbor_status_t status = s->inst->status;
    arb_exec_free(s->inst);
    s->inst = NULL;
    *req = NULL;
    return status;
}

arbor_status_t arbor_test(arbor_request_h *req)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (!req) return ARBOR_ERR_INVALID_ARG;
    slot_t *s = decode(*req);
    if (!s) return ARBOR_ERR_HANDLE;
    if (!s->inst->complete) arb_progress_all();
    return s->inst->complete ? release(s, req) : ARBOR_INPROGRESS;
}

arbor_status_t arbor_wait(arbor_request_h *req)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (!req) return ARBOR_ERR_INVALID_ARG;
    slot_t *s = decode(*req);
    if (!s) return ARBOR_ERR_HANDLE;
    arbor_status_t status = arb_exec_wait(s->inst);
    if (status == ARBOR_ERR_TIMEOUT && !s->inst->complete) return status;
    return release(s, req);
}

void arb_req_adopt(arb_inst_t *inst)
{
    arbor_request_h dummy;
    if (arb_req_new(inst, &dummy) != ARBOR_OK) arb_exec_free(inst);
    else inst->has_handle = false;
}

int arb_req_live(void)
{
    int n = 0;
    for (uint32_t i = 0; i < nslots; i++) n += slots[i].inst && slots[i].inst->has_handle;
    return n;
}

void arb_req_cleanup(void)
{
    for (uint32_t i = 0; i < nslots; i++)
        if (slots[i].inst) arb_exec_free(slots[i].inst);
    free(slots);
    slots = NULL;
    nslots = 0;
}
