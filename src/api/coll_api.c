/*
 * The public collective entry points: each fills an arb_call_t and hands it, with its team
 * resolved, to arb_coll_run_user (coll_start.c), blocking or with a handle.
 */
#include "coll/coll.h"
#include "coll/coll_req.h"
#include "coll/team.h"
#include "group/team.h"
#include "runtime/lock.h"

/* Resolves the handle under the lock and runs the call; a call that fails before its instance
 * starts has its done hook called here (the instance owns it otherwise). */
static arbor_status_t run(arbor_team_h team, const arb_call_t *call,
                          const arbor_op_params_t *params, arbor_request_h *req_p, int blocking)
{
    bool started = false;
    arbor_status_t status = ARBOR_ERR_NOT_INITIALIZED;
    if (arb_initialized() && (status = arb_enter()) == ARBOR_OK) {
        struct arbor_team *t = arb_team_lookup(team);
        status = t ? arb_coll_run_user(t, call, params, req_p, blocking, &started) : ARBOR_ERR_TEAM;
        arb_unlock();
    }
    if (!started && call->done) call->done(call->done_arg, status);
    return status;
}

arbor_status_t arbor_coll_fence(arbor_team_h team)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    ARB_ENTER();
    struct arbor_team *t = arb_team_lookup(team);
    arbor_status_t status = t ? arb_coll_fence_wait(t) : ARBOR_ERR_TEAM;
    arb_unlock();
    return status;
}

arbor_status_t arbor_barrier(arbor_team_h team)
{
    arb_call_t c = {.coll = ARB_COLL_BARRIER};
    return run(team, &c, NULL, NULL, 1);
}

arbor_status_t arbor_barrier_nb(arbor_team_h team, const arbor_op_params_t *params,
                                arbor_request_h *req_p)
{
    arb_call_t c = {.coll = ARB_COLL_BARRIER};
    return run(team, &c, params, req_p, 0);
}

arbor_status_t arbor_bcast(arbor_team_h team, void *buf, size_t nbytes, int root)
{
    arb_call_t c = {.coll = ARB_COLL_BCAST, .recvbuf = buf, .count = nbytes, .root = root};
    return run(team, &c, NULL, NULL, 1);
}

arbor_status_t arbor_bcast_nb(arbor_team_h team, void *buf, size_t nbytes, int root,
                              const arbor_op_params_t *params, arbor_request_h *req_p)
{
    arb_call_t c = {.coll = ARB_COLL_BCAST, .recvbuf = buf, .count = nbytes, .root = root};
    return run(team, &c, params, req_p, 0);
}

arbor_status_t arbor_scatter(arbor_team_h team, const void *sendbuf, void *recvbuf, size_t count,
                             arbor_dtype_t dtype, int root)
{
    arb_call_t c = {.coll = ARB_COLL_SCATTER,
                    .sendbuf = sendbuf,
                    .recvbuf = recvbuf,
                    .count = count,
                    .dtype = dtype,
                    .root = root};
    return run(team, &c, NULL, NULL, 1);
}

arbor_status_t arbor_scatter_nb(arbor_team_h team, const void *sendbuf, void *recvbuf, size_t count,
                                arbor_dtype_t dtype, int root, const arbor_op_params_t *params,
                                arbor_request_h *req_p)
{
    arb_call_t c = {.coll = ARB_COLL_SCATTER,
                    .sendbuf = sendbuf,
                    .recvbuf = recvbuf,
                    .count = count,
                    .dtype = dtype,
                    .root = root};
    return run(team, &c, params, req_p, 0);
}

arbor_status_t arbor_scatterv(arbor_team_h team, const void *sendbuf, const size_t *sendcounts,
                              const size_t *displs, void *recvbuf, size_t recvcount,
                              arbor_dtype_t dtype, int root)
{
    arb_call_t c = {.coll = ARB_COLL_SCATTERV,
                    .sendbuf = sendbuf,
                    .counts = sendcounts,
                    .displs = displs,
                    .recvbuf = recvbuf,
                    .own = recvcount,
                    .dtype = dtype,
                    .root = root};
    return run(team, &c, NULL, NULL, 1);
}

arbor_status_t arbor_scatterv_nb(arbor_team_h team, const void *sendbuf, const size_t *sendcounts,
                                 const size_t *displs, void *recvbuf, size_t recvcount,
                                 arbor_dtype_t dtype, int root, const arbor_op_params_t *params,
                                 arbor_request_h *req_p)
{
    arb_call_t c = {.coll = ARB_COLL_SCATTERV,
                    .sendbuf = sendbuf,
                    .counts = sendcounts,
                    .displs = displs,
                    .recvbuf = recvbuf,
                    .own = recvcount,
                    .dtype = dtype,
                    .root = root};
    return run(team, &c, params, req_p, 0);
}

arbor_status_t arbor_gather(arbor_team_h team, const void *sendbuf, void *recvbuf, size_t count,
                            arbor_dtype_t dtype, int root)
{
    arb_call_t c = {.coll = ARB_COLL_GATHER,
                    .sendbuf = sendbuf,
                    .recvbuf = recvbuf,
                    .count = count,
                    .dtype = dtype,
                    .root = root};
    return run(team, &c, NULL, NULL, 1);
}

arbor_status_t arbor_gather_nb(arbor_team_h team, const void *sendbuf, void *recvbuf, size_t count,
                               arbor_dtype_t dtype, int root, const arbor_op_params_t *params,
                               arbor_request_h *req_p)
{
    arb_call_t c = {.coll = ARB_COLL_GATHER,
                    .sendbuf = sendbuf,
                    .recvbuf = recvbuf,
                    .count = count,
                    .dtype = dtype,
                    .root = root};
    return run(team, &c, params, req_p, 0);
}

arbor_status_t arbor_gatherv(arbor_team_h team, const void *sendbuf, size_t sendcount,
                             void *recvbuf, const size_t *recvcounts, const size_t *displs,
                             arbor_dtype_t dtype, int root)
{
    arb_call_t c = {.coll = ARB_COLL_GATHERV,
                    .sendbuf = sendbuf,
                    .own = sendcount,
                    .recvbuf = recvbuf,
                    .counts = recvcounts,
                    .displs = displs,
                    .dtype = dtype,
                    .root = root};
    return run(team, &c, NULL, NULL, 1);
}

arbor_status_t arbor_gatherv_nb(arbor_team_h team, const void *sendbuf, size_t sendcount,
                                void *recvbuf, const size_t *recvcounts, const size_t *displs,
                                arbor_dtype_t dtype, int root, const arbor_op_params_t *params,
                                arbor_request_h *req_p)
{
    arb_call_t c = {.coll = ARB_COLL_GATHERV,
                    .sendbuf = sendbuf,
                    .own = sendcount,
                    .recvbuf = recvbuf,
                    .counts = recvcounts,
                    .displs = displs,
                    .dtype = dtype,
                    .root = root};
    return run(team, &c, params, req_p, 0);
}

arbor_status_t arbor_allgather(arbor_team_h team, const void *sendbuf, void *recvbuf, size_t count,
                               arbor_dtype_t dtype)
{
    arb_call_t c = {.coll = ARB_COLL_ALLGATHER,
                    .sendbuf = sendbuf,
                    .recvbuf = recvbuf,
                    .count = count,
                    .dtype = dtype};
    return run(team, &c, NULL, NULL, 1);
}

arbor_status_t arbor_allgather_nb(arbor_team_h team, const void *sendbuf, void *recvbuf,
                                  size_t count, arbor_dtype_t dtype,
                                  const arbor_op_params_t *params, arbor_request_h *req_p)
{
    arb_call_t c = {.coll = ARB_COLL_ALLGATHER,
                    .sendbuf = sendbuf,
                    .recvbuf = recvbuf,
                    .count = count,
                    .dtype = dtype};
    return run(team, &c, params, req_p, 0);
}

arbor_status_t arbor_allgatherv(arbor_team_h team, const void *sendbuf, size_t sendcount,
                                void *recvbuf, const size_t *recvcounts, const size_t *displs,
                                arbor_dtype_t dtype)
{
    arb_call_t c = {.coll = ARB_COLL_ALLGATHERV,
                    .sendbuf = sendbuf,
                    .own = sendcount,
                    .recvbuf = recvbuf,
                    .counts = recvcounts,
                    .displs = displs,
                    .dtype = dtype};
    return run(team, &c, NULL, NULL, 1);
}

arbor_status_t arbor_allgatherv_nb(arbor_team_h team, const void *sendbuf, size_t sendcount,
                                   void *recvbuf, const size_t *recvcounts, const size_t *displs,
                                   arbor_dtype_t dtype, const arbor_op_params_t *params,
                                   arbor_request_h *req_p)
{
    arb_call_t c = {.coll = ARB_COLL_ALLGATHERV,
                    .sendbuf = sendbuf,
                    .own = sendcount,
                    .recvbuf = recvbuf,
                    .counts = recvcounts,
                    .displs = displs,
                    .dtype = dtype};
    return run(team, &c, params, req_p, 0);
}

arbor_status_t arbor_alltoall(arbor_team_h team, const void *sendbuf, void *recvbuf, size_t count,
                              arbor_dtype_t dtype)
{
    arb_call_t c = {.coll = ARB_COLL_ALLTOALL,
                    .sendbuf = sendbuf,
                    .recvbuf = recvbuf,
                    .count = count,
                    .dtype = dtype};
    return run(team, &c, NULL, NULL, 1);
}

arbor_status_t arbor_alltoall_nb(arbor_team_h team, const void *sendbuf, void *recvbuf,
                                 size_t count, arbor_dtype_t dtype, const arbor_op_params_t *params,
                                 arbor_request_h *req_p)
{
    arb_call_t c = {.coll = ARB_COLL_ALLTOALL,
                    .sendbuf = sendbuf,
                    .recvbuf = recvbuf,
                    .count = count,
                    .dtype = dtype};
    return run(team, &c, params, req_p, 0);
}

arbor_status_t arbor_alltoallv(arbor_team_h team, const void *sendbuf, const size_t *sendcounts,
                               const size_t *sdispls, void *recvbuf, const size_t *recvcounts,
                               const size_t *rdispls, arbor_dtype_t dtype)
{
    arb_call_t c = {.coll = ARB_COLL_ALLTOALLV,
                    .sendbuf = sendbuf,
                    .counts = sendcounts,
                    .displs = sdispls,
                    .recvbuf = recvbuf,
                    .rcounts = recvcounts,
                    .rdispls = rdispls,
                    .dtype = dtype};
    return run(team, &c, NULL, NULL, 1);
}

arbor_status_t arbor_alltoallv_nb(arbor_team_h team, const void *sendbuf, const size_t *sendcounts,
                                  const size_t *sdispls, void *recvbuf, const size_t *recvcounts,
                                  const size_t *rdispls, arbor_dtype_t dtype,
                                  const arbor_op_params_t *params, arbor_request_h *req_p)
{
    arb_call_t c = {.coll = ARB_COLL_ALLTOALLV,
                    .sendbuf = sendbuf,
                    .counts = sendcounts,
                    .displs = sdispls,
                    .recvbuf = recvbuf,
                    .rcounts = recvcounts,
                    .rdispls = rdispls,
                    .dtype = dtype};
    return run(team, &c, params, req_p, 0);
}

arbor_status_t arbor_reduce(arbor_team_h team, const void *sendbuf, void *recvbuf, size_t count,
                            arbor_dtype_t dtype, arbor_op_t op, int root)
{
    arb_call_t c = {.coll = ARB_COLL_REDUCE,
                    .sendbuf = sendbuf,
                    .recvbuf = recvbuf,
                    .count = count,
                    .dtype = dtype,
                    .op = op,
                    .root = root};
    return run(team, &c, NULL, NULL, 1);
}

arbor_status_t arbor_reduce_nb(arbor_team_h team, const void *sendbuf, void *recvbuf, size_t count,
                               arbor_dtype_t dtype, arbor_op_t op, int root,
                               const arbor_op_params_t *params, arbor_request_h *req_p)
{
    arb_call_t c = {.coll = ARB_COLL_REDUCE,
                    .sendbuf = sendbuf,
                    .recvbuf = recvbuf,
                    .count = count,
                    .dtype = dtype,
                    .op = op,
                    .root = root};
    return run(team, &c, params, req_p, 0);
}

arbor_status_t arbor_allreduce(arbor_team_h team, const void *sendbuf, void *recvbuf, size_t count,
                               arbor_dtype_t dtype, arbor_op_t op)
{
    arb_call_t c = {.coll = ARB_COLL_ALLREDUCE,
                    .sendbuf = sendbuf,
                    .recvbuf = recvbuf,
                    .count = count,
                    .dtype = dtype,
                    .op = op};
    return run(team, &c, NULL, NULL, 1);
}

arbor_status_t arbor_allreduce_nb(arbor_team_h team, const void *sendbuf, void *recvbuf,
                                  size_t count, arbor_dtype_t dtype, arbor_op_t op,
                                  const arbor_op_params_t *params, arbor_request_h *req_p)
{
    arb_call_t c = {.coll = ARB_COLL_ALLREDUCE,
                    .sendbuf = sendbuf,
                    .recvbuf = recvbuf,
                    .count = count,
                    .dtype = dtype,
                    .op = op};
    return run(team, &c, params, req_p, 0);
}

arbor_status_t arbor_reduce_scatter(arbor_team_h team, const void *sendbuf, void *recvbuf,
                                    const size_t *recvcounts, arbor_dtype_t dtype, arbor_op_t op)
{
    arb_call_t c = {.coll = ARB_COLL_REDUCE_SCATTER,
                    .sendbuf = sendbuf,
                    .recvbuf = recvbuf,
                    .counts = recvcounts,
                    .dtype = dtype,
                    .op = op};
    return run(team, &c, NULL, NULL, 1);
}

arbor_status_t arbor_reduce_scatter_nb(arbor_team_h team, const void *sendbuf, void *recvbuf,
                                       const size_t *recvcounts, arbor_dtype_t dtype, arbor_op_t op,
                                       const arbor_op_params_t *params, arbor_request_h *req_p)
{
    arb_call_t c = {.coll = ARB_COLL_REDUCE_SCATTER,
                    .sendbuf = sendbuf,
                    .recvbuf = recvbuf,
                    .counts = recvcounts,
                    .dtype = dtype,
                    .op = op};
    return run(team, &c, params, req_p, 0);
}

arbor_status_t arbor_scan(arbor_team_h team, const void *sendbuf, void *recvbuf, size_t count,
                          arbor_dtype_t dtype, arbor_op_t op)
{
    arb_call_t c = {.coll = ARB_COLL_SCAN,
                    .sendbuf = sendbuf,
                    .recvbuf = recvbuf,
                    .count = count,
                    .dtype = dtype,
                    .op = op};
    return run(team, &c, NULL, NULL, 1);
}

arbor_status_t arbor_scan_nb(arbor_team_h team, const void *sendbuf, void *recvbuf, size_t count,
                             arbor_dtype_t dtype, arbor_op_t op, const arbor_op_params_t *params,
                             arbor_request_h *req_p)
{
    arb_call_t c = {.coll = ARB_COLL_SCAN,
                    .sendbuf = sendbuf,
                    .recvbuf = recvbuf,
                    .count = count,
                    .dtype = dtype,
                    .op = op};
    return run(team, &c, params, req_p, 0);
}

arbor_status_t arbor_exscan(arbor_team_h team, const void *sendbuf, void *recvbuf, size_t count,
                            arbor_dtype_t dtype, arbor_op_t op)
{
    arb_call_t c = {.coll = ARB_COLL_EXSCAN,
                    .sendbuf = sendbuf,
                    .recvbuf = recvbuf,
                    .count = count,
                    .dtype = dtype,
                    .op = op};
    return run(team, &c, NULL, NULL, 1);
}

arbor_status_t arbor_exscan_nb(arbor_team_h team, const void *sendbuf, void *recvbuf, size_t count,
                               arbor_dtype_t dtype, arbor_op_t op, const arbor_op_params_t *params,
                               arbor_request_h *req_p)
{
    arb_call_t c = {.coll = ARB_COLL_EXSCAN,
                    .sendbuf = sendbuf,
                    .recvbuf = recvbuf,
                    .count = count,
                    .dtype = dtype,
                    .op = op};
    return run(team, &c, params, req_p, 0);
}
