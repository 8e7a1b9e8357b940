/*
 * The schedule executor: runs one collective instance (a cached schedule bound to buffers and
 * channel tickets) as progress is made. It knows step kinds, never algorithms.
 */
#ifndef ARB_CORE_EXECUTOR_H
#define ARB_CORE_EXECUTOR_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "coll/sched_cache.h"
#include "coll/team.h"

typedef struct {
    uint64_t ticket; /* channel ticket of the step's first chunk */
    uint32_t nchunks;
    uint32_t issued;    /* SEND: chunks posted */
    uint32_t done;      /* RECV / COPY: chunks landed */
    arb_tp_comp_t comp; /* SEND over RMA: local completion of the posted chunks */
    uint64_t settle;    /* one copy: ticket + 1 of the last chunk a receiver reads from our
                         * buffer (its credit tells it has), 0 for none (coll/coll_direct.h) */
    uint64_t desc[2];   /* one copy to an unmapped peer: the descriptor being put (kept until
                         * the put completes locally) */
} arb_step_state_t;

/* Combines in into inout (bytes long) for steps flagged combine: order ARB_COMBINE_AFTER gives
 * inout = inout op in, ARB_COMBINE_BEFORE gives inout = in op inout. */
typedef void (*arb_combine_fn_t)(void *inout, const void *in, size_t bytes, int order, void *arg);

/* A completion hook: called exactly once per instance that has one, from finish() with the
 * instance's status (ARBOR_OK: the data is in place, deliver it), or from arb_exec_free with
 * ARBOR_ERR_BUSY when an unfinished instance is freed (finalize after a timeout). Either way
 * it releases arg. Runs inside the progress engine: it must not call back into arbor. */
typedef void (*arb_done_fn_t)(void *arg, arbor_status_t status);

struct arb_inst {
    arb_inst_t *prev, *next; /* the context's active list */
    struct arbor_team *team;
    arb_cached_sched_t *cs;
    uint8_t *buf[3]; /* SRC, DST, SCRATCH */
    size_t block;    /* bytes of one schedule block */
    arb_combine_fn_t combine;
    void *combine_arg;
    arbor_op_t op; /* reductions: what combine applies */
    arbor_dtype_t dtype;
    size_t elem;
    void *owned;        /* input copy of an in-place call, freed with the instance */
    arb_done_fn_t done; /* completion hook (NULL: none), cleared once called */
    void *done_arg;
    arb_inst_t *agg_next;   /* instances of an AGGREGATE run completing under this one */
    arb_inst_t *fence_next; /* ASYNC_FENCE instances of the process */
    uint32_t round;
    int first; /* first step of the current round */
    arbor_status_t status;
    /* Set (release) by finish() once status and the data are final; a waiter that reads it
     * true (acquire) may read both. Every access is under the engine lock today; the atomic
     * keeps that so for a waiter that reads it without. */
    atomic_bool complete;
    bool active, has_handle;
    bool one_copy; /* chunks may go as descriptors (coll/coll_direct.h) */
    bool cma;      /* ... of addresses, read by cross-memory attach (runtime/cma.h) */
    int coll, alg;
    uint64_t seq;  /* the team's collective number of this instance (messages) */
    uint64_t call; /* the team's call number (coll/coll_verdict.h): refused calls count too */
    uint64_t sig;  /* the call's signature, carried by its messages between mapped peers */
    double t_start;
    /* A spinning arbor_test's idle watch (arb_exec_chain_test_idle), kept on the head of a
     * chain: the epoch it last saw, when it saw nothing move since, its last check. */
    uint64_t test_epoch;
    double test_idle_since, test_checked;
    arb_step_state_t *st;
    size_t st_cap, scratch_cap;
};

static inline bool arb_inst_complete(const arb_inst_t *inst)
{
    return atomic_load_explicit(&inst->complete, memory_order_acquire);
}

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

/* The progress engine and the waits that drive it live above, in runtime/progress.h. */

#endif /* ARB_CORE_EXECUTOR_H */
