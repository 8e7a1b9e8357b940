/*
 * Offload hooks (docs/OFFLOAD.md): collectives a transport runs whole, instead of the executor
 * moving every message over the landing channels. One interface for the core:
 *   - can: which hooks a call may use (arb_offload_caps: the transport's capability, the
 *     ARBOR_OFFLOAD mode, the team's joined group and what the provider runs for this kind,
 *     type, op and size); the selector then sees only candidates that can run;
 *   - start / complete: an ARB_STEP_OFFLOAD step of a schedule (arb_offload_advance), posted in
 *     the team's collective order and completed through the transport's progress.
 * Hooks: hwcoll (libfabric collectives on an AV set joined per team) and triggered (a schedule
 * lowered to triggered writes with counter thresholds, posted whole: the world team's
 * broadcasts and barriers).
 */
#ifndef ARB_CORE_OFFLOAD_H
#define ARB_CORE_OFFLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/config.h"
#include "coll/inst.h"

struct arbor_team;

/* The ARB_TP_CAP_* hooks the transport should ask its provider for (arb_tp_params_t). */
uint32_t arb_offload_want(const arb_config_t *cfg);
/* After the transport opened: a forced hook it cannot run fails here, on every rank alike,
 * with ARBOR_ERR_UNSUPPORTED and a message that names the transport and why. */
arbor_status_t arb_offload_check(void);
/* The per-call cost of the hooks into the model (after ARBOR_LOGP / measurement). */
void arb_offload_model(void);
void arb_offload_cost(double *us_p, int *software_p); /* arb_coll_args_t.hwcoll_* */

/* A new team (the world at init, split teams): joins its provider group where hwcoll may be
 * used. Collective over the team's members, in team-creation order; bounded by ARBOR_TIMEOUT. */
arbor_status_t arb_offload_team_init(struct arbor_team *t);
void arb_offload_team_fini(struct arbor_team *t);

/* ARB_ALG_NEEDS_* a call of coll (count elements of dtype, op) on t can have. */
unsigned arb_offload_caps(const struct arbor_team *t, int coll, size_t count, arbor_dtype_t dtype,
                          arbor_op_t op);
/* The algorithm ARBOR_OFFLOAD forces for a call with these caps (table index), or 0. */
int arb_offload_forced(int coll, unsigned caps);

/* Executor: the ticket of a new OFFLOAD step (the team's offloaded collectives are posted in
 * initiation order, which every member shares), and one advance of such a step; returns
 * whether it is complete. */
uint64_t arb_offload_ticket(struct arbor_team *t);
bool arb_offload_advance(arb_inst_t *inst, const arb_step_t *step, arb_step_state_t *st,
                         bool *moved);

/* ARBOR_STATS: collectives per path. */
void arb_offload_print_stats(void);

#endif /* ARB_CORE_OFFLOAD_H */
