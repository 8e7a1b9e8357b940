/*
 * The public entry that makes a communication context on a team: it resolves the team's handle
 * (group/team.h) and gives the one-sided layer the members (rma/ctx.c), which knows no teams.
 */
#include "group/team.h"
#include "rma/rma.h"
#include "runtime/context.h"
#include "runtime/lock.h"

arbor_status_t arbor_ctx_create(arbor_team_h team, unsigned flags, arbor_ctx_h *ctx_p)
{
    if (!ctx_p) return ARBOR_ERR_INVALID_ARG;
    *ctx_p = NULL;
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (flags & ~ARBOR_CTX_PRIVATE) return ARBOR_ERR_FLAGS;
    struct arbor_ctx *c = arb_rma_ctx_alloc(flags);
    arbor_status_t status = c ? arb_enter() : ARBOR_ERR_NO_MEMORY;
    bool locked = status == ARBOR_OK;
    struct arbor_team *t = locked ? arb_team_lookup(team) : NULL;
    if (locked && !t) status = ARBOR_ERR_TEAM;
    if (t) status = arb_rma_ctx_attach(c, t->world, t->size, t->rank);
    if (locked) arb_unlock();
    if (status != ARBOR_OK) {
        arb_rma_ctx_discard(c);
        return status;
    }
    *ctx_p = c;
    return ARBOR_OK;
}
