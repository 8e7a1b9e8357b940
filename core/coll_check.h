/* ARBOR_CHECK: the per-collective signature exchange (coll_check.c). */
#ifndef ARB_CORE_COLL_CHECK_H
#define ARB_CORE_COLL_CHECK_H

#include "core/coll.h"

/* Exchanges the call's signature over t (a blocking allreduce of t, run as an ordinary
 * collective: the caller must keep it from checking itself). local is this member's own
 * validation verdict. Returns local when it is an error, else ARBOR_ERR_MISMATCH when any
 * two members differ (every member gets a verdict; team rank 0 logs what differs), else the
 * exchange's status. */
arbor_status_t arb_coll_check(struct arbor_team *t, const arb_call_t *c, size_t elem,
                              uint64_t flags, arbor_status_t local);

#endif /* ARB_CORE_COLL_CHECK_H */
