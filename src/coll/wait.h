/*
 * The waits for a collective instance (wait.c): the waiting loops over the progress engine,
 * with the idle point's lost-peer, stall and ARBOR_TIMEOUT checks, for callers that wait and for
 * callers that test.
 */
#ifndef ARB_COLL_WAIT_H
#define ARB_COLL_WAIT_H

#include <stdbool.h>

#include "coll/executor.h"

/* Waits for inst, bounded by ARBOR_TIMEOUT seconds without progress. */
arbor_status_t arb_exec_wait(arb_inst_t *inst);
/* Waits for every instance of an AGGREGATE run (inst and its agg_next chain), stopping at the
 * first timeout; the first error of the run otherwise. */
arbor_status_t arb_exec_chain_wait(arb_inst_t *inst);
/* The idle point of a waiting loop for a caller that tests instead of waiting (arbor_test*):
 * after a turn that left the chain incomplete, runs the lost-peer and ARBOR_TIMEOUT checks of
 * arb_exec_wait at most once a millisecond (a clock read per call, nothing more). On a verdict
 * the team is failed, the whole chain cancelled (complete, with that status) and the verdict
 * returned; ARBOR_OK otherwise. moved: whether the caller's turn moved anything. */
arbor_status_t arb_exec_chain_test_idle(arb_inst_t *chain, bool moved);
/* Registers the collectives in flight with the progress engine (coll_init.c does). */
arbor_status_t arb_coll_wait_register(void);

#endif /* ARB_COLL_WAIT_H */
