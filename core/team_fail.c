/*
 * A failed team (the spirit of ULFM's revoke): after a collective of the team timed out or a
 * member was reported gone, its
 * members can no longer agree on the order of the team's messages, so every collective of the
 * team in flight is cancelled (none touches a user buffer again) and later calls on the team
 * are refused; the other teams keep working.
 */
#include <stdio.h>

#include "core/executor.h"
#include "core/log.h"
#include "core/team.h"

void arb_team_fail(struct arbor_team *t, arb_inst_t *inst, arbor_status_t why)
{
    int awaited[16], n = arb_exec_awaited(inst, awaited, 16);
    char ranks[128] = "none in its current round (an earlier collective of the team is stuck)";
    size_t len = 0;
    for (int i = 0; i < n && len < sizeof(ranks); i++)
        len +=
            (size_t)snprintf(ranks + len, sizeof(ranks) - len, "%s%d", i ? ", " : "", awaited[i]);
    char lost[128] = "";
    len = 0;
    for (int r = 0; r < t->size && arb_ctx.boot && len < sizeof(lost); r++)
        if (arb_ctx.boot->ops->lost(arb_ctx.boot, t->world[r]))
            len += (size_t)snprintf(lost + len, sizeof(lost) - len, "%s%d",
                                    len ? ", " : "; gone (no longer running): world rank(s) ",
                                    t->world[r]);
    char after[64] = "";
    if (why == ARBOR_ERR_TIMEOUT)
        snprintf(after, sizeof(after), " after %g s of no progress", arb_ctx.cfg.timeout_s);
    arb_error("%s #%llu on team %p (%d members, this rank %d): %s%s; still waiting for world "
              "rank(s) %s%s. The team's collectives in flight are cancelled and the team is "
              "failed: later calls on it return ARBOR_ERR_TEAM",
              inst->coll < ARB_COLL_KINDS ? arb_coll_name(inst->coll) : "internal collective",
              (unsigned long long)inst->seq, (void *)t->handle, t->size, t->rank,
              why == ARBOR_ERR_TIMEOUT ? "timed out" : arbor_strerror(why), after, ranks, lost);
    t->failed = why;
    for (arb_inst_t *i = arb_ctx.active_head, *next; i; i = next) {
        next = i->next;
        if (i->team == t) arb_exec_cancel(i, why);
    }
    arb_exec_cancel(inst, why); /* not active: an instance that never started moving */
}
