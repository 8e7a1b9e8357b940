/*
 * The public entries of symmetric allocation (they resolve the team and memory handles and run
 * the allocation over the team, group/symmetric.c) and of registration (rma/reg.c): each starts
 * the passive-target progress thread afterwards when the transport needs it.
 */
#include "group/outside.h"
#include "group/symmetric.h"
#include "group/team.h"
#include "rma/rma.h"
#include "runtime/context.h"
#include "runtime/lock.h"

static arbor_status_t mem_alloc_unlocked(arbor_team_h team, size_t nbytes, arbor_mem_h *mem_p,
                                         void **local_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    struct arbor_team *t = arb_team_lookup(team);
    if (!t) return ARBOR_ERR_TEAM;
    if (!mem_p) return ARBOR_ERR_INVALID_ARG;
    struct arbor_mem *m;
    arbor_status_t status = arb_mem_alloc_team(t, nbytes, false, &m);
    if (status != ARBOR_OK) return status;
    if ((status = arb_mem_handle_new(m)) != ARBOR_OK) {
        /* Only this rank failed: keep the collective shape (the others hold it) and report. */
        arb_mem_free_team(m, false);
        return status;
    }
    *mem_p = m->handle;
    if (local_p) *local_p = nbytes ? arb_ctx.seg + m->off : NULL;
    return ARBOR_OK;
}

/* The heap first; where it has no room on some member (every member then knows), memory of
 * each member's own (group/outside.c). */
static arbor_status_t mem_alloc_any_unlocked(arbor_team_h team, size_t nbytes, arbor_mem_h *mem_p,
                                             void **local_p)
{
    arbor_status_t status = mem_alloc_unlocked(team, nbytes, mem_p, local_p);
    if (status != ARBOR_ERR_NO_MEMORY) return status;
    struct arbor_team *t = arb_team_lookup(team);
    struct arbor_mem *m;
    /* Its collectives let go of the lock as the heap's search does: one allocation at a time. */
    if (arb_ctx.heap_busy) return ARBOR_ERR_BUSY;
    arb_ctx.heap_busy = true;
    status = arb_mem_outside_alloc(t, nbytes, &m);
    arb_ctx.heap_busy = false;
    if (status != ARBOR_OK) return status;
    if ((status = arb_mem_handle_new(m)) != ARBOR_OK) {
        arb_mem_outside_free(m); /* only this rank failed; the others hold theirs */
        return status;
    }
    *mem_p = m->handle;
    if (local_p) *local_p = m->outside->map;
    return ARBOR_OK;
}

static arbor_status_t mem_free_unlocked(arbor_mem_h *mem_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (!mem_p) return ARBOR_ERR_INVALID_ARG;
    struct arbor_mem *m = arb_mem_of_handle(*mem_p);
    if (!m) return ARBOR_ERR_HANDLE;
    if (arb_team_lookup(m->team_h) != m->team) return ARBOR_ERR_TEAM; /* its team was freed */
    arbor_status_t status = arb_mem_free_team(m, true);
    if (status != ARBOR_OK) return status;
    arb_mem_handle_drop(*mem_p); /* after the barrier, which let go of the lock */
    *mem_p = NULL;
    return ARBOR_OK;
}

arbor_status_t arbor_mem_alloc(arbor_team_h team, size_t nbytes, arbor_mem_h *mem_p, void **local_p)
{
    ARB_ENTER();
    arbor_status_t status = mem_alloc_unlocked(team, nbytes, mem_p, local_p);
    arb_unlock();
    if (status == ARBOR_OK) arb_rma_passive_check();
    return status;
}

arbor_status_t arbor_mem_alloc_any(arbor_team_h team, size_t nbytes, arbor_mem_h *mem_p,
                                   void **local_p)
{
    ARB_ENTER();
    arbor_status_t status = mem_alloc_any_unlocked(team, nbytes, mem_p, local_p);
    arb_unlock();
    if (status == ARBOR_OK) arb_rma_passive_check();
    return status;
}

arbor_status_t arbor_mem_free(arbor_mem_h *mem_p)
{
    ARB_ENTER();
    arbor_status_t status = mem_free_unlocked(mem_p);
    arb_unlock();
    return status;
}

arbor_status_t arbor_mem_register(void *base, size_t nbytes, unsigned flags, arbor_reg_h *reg_p)
{
    ARB_ENTER();
    arbor_status_t st = arb_reg_register(base, nbytes, flags, reg_p);
    arb_unlock();
    /* Peers' operations on it need this rank's progress: the passive thread serves them. */
    if (st == ARBOR_OK) arb_rma_passive_check();
    return st;
}
