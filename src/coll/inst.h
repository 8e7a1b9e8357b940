/*
 * A collective instance as data (a cached schedule bound to buffers and channel tickets, and
 * the state of its steps): what the executor (executor.c) runs and the step kinds it hands off
 * (coll_direct.c, offload.c) read. No functions but the inline completion test.
 */
#ifndef ARB_COLL_INST_H
#define ARB_COLL_INST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "coll/sched_cache.h"
#include "coll/team.h"

typedef struct arb_step_state {
    uint64_t ticket; /* channel ticket of the step's first chunk */
    uint32_t nchunks;
    uint32_t issued;    /* SEND: chunks posted */
    uint32_t done;      /* RECV / COPY: chunks landed */
    arb_tp_comp_t comp; /* SEND over RMA: local completion of the posted chunks */
    uint64_t settle;    /* one copy: ticket + 1 of the last chunk a receiver reads from our
                         * buffer (its credit tells it has), 0 for none (coll/coll_direct.h) */
    union {
        uint64_t desc[2]; /* one copy to an unmapped peer: the descriptor being put (kept until
                           * the put completes locally) */
        /* Through the transport, the line of a step's first message that fits it: ticket + 1,
         * the call's signature, the message (kept until the put completes). */
        uint64_t head[8];
    };
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
    /* Since when the wait's idle checks have seen nothing move (arb_now_us; 0: not idle): the
     * stall checks tell unmapped members what this call waits for only past a grace
     * (coll/coll_stray.h). */
    double idle_since;
    arb_step_state_t *st;
    size_t st_cap, scratch_cap;
};

static inline bool arb_inst_complete(const arb_inst_t *inst)
{
    return atomic_load_explicit(&inst->complete, memory_order_acquire);
}

#endif /* ARB_COLL_INST_H */
