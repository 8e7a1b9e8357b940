/*
 * Questions a client asks the library about itself (arbor-bench, tools): what the last
 * collective on a team ran, and which algorithm names a collective accepts. Answered from the
 * library's own tables so that clients need nothing but arbor.h.
 */
#include <string.h>

#include "algorithms/coll.h"
#include "runtime/context.h"
#include "runtime/lock.h"
#include "coll/team.h"
#include "group/team.h"

arbor_status_t arbor_team_last_collective(arbor_team_h team, arbor_coll_info_t *info)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    ARB_ENTER(); /* a thread may be starting a collective on the team */
    struct arbor_team *t = arb_team_lookup(team);
    arbor_status_t status = !t               ? ARBOR_ERR_TEAM
                            : !info          ? ARBOR_ERR_INVALID_ARG
                            : !t->last.valid ? ARBOR_ERR_HANDLE
                                             : ARBOR_OK;
    if (status == ARBOR_OK) {
        int n;
        arb_coll_t c = (arb_coll_t)t->last.coll;
        *info = (arbor_coll_info_t){.collective = arb_coll_name(c),
                                    .algorithm = arb_alg_table(c, &n)[t->last.alg].name,
                                    .predicted_us = t->last.predicted_us,
                                    .transport = arb_ctx.tp_name,
                                    .seq = t->last.seq,
                                    .one_copy = t->last.one_copy,
                                    .one_copy_bytes = t->last.one_copy_bytes,
                                    .cma = t->last.cma};
    }
    arb_unlock();
    return status;
}

arbor_status_t arbor_algorithm_names(const char *collective, const char *const **names_p,
                                     int *count_p)
{
    if (!collective || !names_p || !count_p) return ARBOR_ERR_INVALID_ARG;
    for (int c = 0; c < ARB_COLL_KINDS; c++) {
        if (strcmp(arb_coll_name((arb_coll_t)c), collective)) continue;
        int n;
        arb_alg_table((arb_coll_t)c, &n);
        /* "auto" (entry 0) is not an algorithm a collective can be reported to have run. */
        *names_p = arb_alg_names((arb_coll_t)c) + 1;
        *count_p = n - 1;
        return ARBOR_OK;
    }
    return ARBOR_ERR_INVALID_ARG;
}
