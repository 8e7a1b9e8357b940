/*
 * The schedule executor: runs one collective instance (a cached schedule bound to buffers and
 * channel tickets) as progress is made. It knows step kinds, never algorithms.
 */
#ifndef ARB_CORE_EXECUTOR_H
#define ARB_CORE_EXECUTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "coll/inst.h"

/* Binds a schedule to buffers and assigns channel tickets; the instance joins the active list.
 * Never waits for another rank. Takes over the reference held on cs. */
arbor_status_t arb_exec_start(struct arbor_team *team, arb_cached_sched_t *cs, void *src, void *dst,
                              size_t block, int coll, int alg, arb_inst_t **inst_p);
/* Moves the instance as far as it can go now; returns true if anything moved. */
bool arb_exec_advance(arb_inst_t *inst);
void arb_exec_free(arb_inst_t *inst);
void arb_exec_cleanup(void); /* finalize: frees the kept instances */
/* Finalize, after the transport is closed: frees instances whose sends never completed. */
void arb_exec_release_kept(void);

/* An instance with the aggregated run chained to it: complete when all are; its status is the
 * first failure; freeing frees them all. */
bool arb_exec_chain_complete(const arb_inst_t *inst);
arbor_status_t arb_exec_chain_status(const arb_inst_t *inst);
void arb_exec_chain_free(arb_inst_t *inst);

/* Cancels an unfinished instance: waits (bounded) for the local completion of its posted
 * sends, drops its buffer pointers, completes it with status why and leaves the active list.
 * Data that arrives for it later stays in the team's landing slots: nothing reads it. */
void arb_exec_cancel(arb_inst_t *inst, arbor_status_t why);
/* World ranks inst still waits for in its current round (data or credits), at most max of
 * them, ascending and each once; returns how many. */
int arb_exec_awaited(const arb_inst_t *inst, int *world, int max);

/* Whether a started, not yet complete instance reduces with op (arbor_op_free's check). */
bool arb_exec_op_in_use(arbor_op_t op);

/* The waits for an instance: coll/wait.h, over the progress engine (runtime/progress.h). */

#endif /* ARB_CORE_EXECUTOR_H */
