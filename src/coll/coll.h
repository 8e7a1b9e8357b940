/*
 * One description of a collective call, whatever the family: the public entry points
 * (coll_api.c) fill it, coll_start.c validates it, lays out its buffers (in-place variants),
 * selects and caches a schedule, applies the sync flags and starts (or runs) it.
 */
#ifndef ARB_CORE_COLL_H
#define ARB_CORE_COLL_H

#include <stddef.h>

#include "algorithms/coll.h"
#include "arbor.h"
#include "coll/executor.h"

typedef struct {
    arb_coll_t coll;
    const void *sendbuf;
    void *recvbuf;
    size_t count;                    /* elements (bcast: bytes) */
    size_t own;                      /* scatterv: recvcount; gatherv / allgatherv: sendcount */
    const size_t *counts, *displs;   /* scatterv / alltoallv send side; gatherv / allgatherv
                                      * receive side; reduce_scatter recvcounts (elements) */
    const size_t *rcounts, *rdispls; /* alltoallv receive side */
    arbor_dtype_t dtype;
    arbor_op_t op;
    int root;
    arb_done_fn_t done; /* optional completion hook of the instance (executor.h); arb_coll_run
                         * owns done_arg: if the call fails before its instance starts, done
                         * is called at once with the error */
    void *done_arg;
} arb_call_t;

/* Validates and starts the call on a resolved team, the lock taken (the public entries resolve
 * the handle: api/coll_api.c, group/images.c). Blocking when req_p is NULL and no ASYNC_FENCE /
 * AGGREGATE flag is given (blocking calls take no params); *started tells whether
 * an instance took over call->done. */
arbor_status_t arb_coll_run_user(struct arbor_team *t, const arb_call_t *call,
                                 const arbor_op_params_t *params, arbor_request_h *req_p,
                                 int blocking, bool *started);

/* Internal blocking collectives over a team structure, for core modules (team split / free,
 * the symmetric heap) that must not go through the public entry points. The caller holds the
 * lock (arb_lock). */
arbor_status_t arb_coll_run_team(struct arbor_team *t, const arb_call_t *call);
arbor_status_t arb_coll_barrier_internal(struct arbor_team *t);
arbor_status_t arb_coll_bcast_internal(struct arbor_team *t, void *buf, size_t nbytes, int root);
arbor_status_t arb_coll_allreduce_internal(struct arbor_team *t, const void *sendbuf, void *recvbuf,
                                           size_t count, arbor_dtype_t dtype, arbor_op_t op);
arbor_status_t arb_coll_allgather_internal(struct arbor_team *t, const void *sendbuf, void *recvbuf,
                                           size_t count, arbor_dtype_t dtype);

/* The flag combination check of every collective (ARBOR_OK or ARBOR_ERR_FLAGS). */
arbor_status_t arb_coll_check_flags(uint64_t flags);
/* The flags of a call's params, checked: unknown fields or bits, contradictions, detached
 * flags on a blocking call (ARBOR_ERR_FLAGS), no handle for a non-blocking one. */
arbor_status_t arb_coll_flags_of(const arbor_op_params_t *params, int blocking,
                                 const arbor_request_h *req_p, uint64_t *flags_p);

#endif /* ARB_CORE_COLL_H */
