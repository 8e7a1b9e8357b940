/*
 * The progress engine (progress.c): drives the transport, the one-sided layer and every
 * collective in flight, and the waiting loops built on it. It sits above the executor (which
 * only advances one instance when asked and never waits), so the executor never calls here.
 */
#ifndef ARB_CORE_PROGRESS_H
#define ARB_CORE_PROGRESS_H

#include <stdbool.h>

#include "arbor.h"

typedef struct arb_inst arb_inst_t;

/* The progress engine: transport progress + every active instance once. */
int arb_progress_all(void);
/* arb_progress_all, yielding the CPU when nothing moved on an oversubscribed node. */
int arb_progress_turn(void);
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

#endif /* ARB_CORE_PROGRESS_H */
