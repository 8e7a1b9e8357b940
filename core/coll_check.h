/* ARBOR_CHECK: the per-collective signature exchange (coll_check.c). */
#ifndef ARB_CORE_COLL_CHECK_H
#define ARB_CORE_COLL_CHECK_H

#include "core/coll.h"

/* Exchanges the call's signature over t (a blocking allreduce of t, run as an ordinary
 * collective: the caller must keep it from checking itself). local is this member's own
 * validation verdict. Returns local when it is an error, else ARBOR_ERR_MISMATCH when any
 * two members differ (every member gets a verdict; team rank 0 logs what differs), else the
 * exchange's status. */
arbor_status_t arb_coll_check(const struct arbor_team *t, const arb_call_t *c, size_t elem,
                              uint64_t flags, arbor_status_t local);

/* Init, with ARBOR_CHECK on: the board word pair of every rank's segment (same offset). */
arbor_status_t arb_coll_check_board_init(void);
/* Idle point of a wait on inst of t: ARBOR_ERR_MISMATCH when t's signature exchange waits for a
 * member that waits, in the exchange of another team this rank belongs to, for this rank (a
 * team mismatch: neither can ever complete); the other team is failed too. Else ARBOR_OK. */
struct arb_inst;
arbor_status_t arb_coll_check_crossing(struct arbor_team *t, struct arb_inst *inst);

#endif /* ARB_CORE_COLL_CHECK_H */
