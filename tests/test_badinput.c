/*
 * Bad input on every public collective, team, request and datatype/op function: a
 * table of calls that every rank makes alike, each with the specific code it must return.
 * After each one a correct allreduce must still give the right sums, so a rejected call that
 * left a ticket, a handle or a half-started collective behind shows up at once.
 * The one-sided calls (arbor_mem_*, put, get, ...) are tested with their layer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbor.h"
#include "launched_check.h"

enum { N = 4, MAXP = 64 };

static int64_t sb[N * MAXP], rb[N * MAXP];
static size_t counts[MAXP], displs[MAXP], counts5[MAXP], displs_wrap[MAXP], twos[MAXP], ones[MAXP],
    counts_wrap[MAXP];
static arbor_team_h W = ARBOR_TEAM_WORLD, freed_team, forged_small, forged_big, out_team;
static arbor_op_t freed_op, never_op, out_op;
static arbor_request_h stale_req, forged_req, out_req, reqs2[2];
static size_t done_n, idx[4];
static int out_int;

static void sum64(void *in, void *inout, size_t len, arbor_dtype_t dtype)
{
    (void)dtype;
    for (size_t i = 0; i < len; i++) ((int64_t *)inout)[i] += ((const int64_t *)in)[i];
}

/* Params with the given flags (or field mask) set. */
static const arbor_op_params_t *flags(uint64_t f)
{
    static arbor_op_params_t p[64];
    static int next;
    arbor_op_params_t *q = &p[next++ % 64];
    q->field_mask = ARBOR_OP_PARAM_FLAGS;
    q->flags = f;
    return q;
}

static const arbor_op_params_t *mask(uint64_t m)
{
    static arbor_op_params_t q;
    q.field_mask = m;
    q.flags = 0;
    return &q;
}

/* Calls that need a live handle: the bad call, then the handle completed. */
static arbor_status_t with_live(int which)
{
    arbor_request_h r = NULL;
    arbor_status_t st, done;
    if ((st = arbor_barrier_nb(W, NULL, &r)) != ARBOR_OK) return st;
    reqs2[0] = reqs2[1] = r;
    switch (which) {
    case 0:
        st = arbor_test_all(2, reqs2);
        break;
    case 1:
        st = arbor_wait_all(2, reqs2);
        break;
    case 2:
        st = arbor_test_some(2, reqs2, &done_n, idx);
        break;
    case 3:
        st = arbor_wait_some(2, reqs2, &done_n, idx);
        break;
    case 4:
        st = arbor_test_some(1, reqs2, NULL, idx);
        break;
    default:
        st = arbor_wait_some(1, reqs2, &done_n, NULL);
        break;
    }
    done = arbor_wait(&r);
    return done == ARBOR_OK ? st : done;
}

/* A rejected call that stores into its output has changed something: report it as 1000. */
static arbor_status_t untouched_team(arbor_status_t st)
{
    return out_team == (arbor_team_h)(uintptr_t)0x77 ? st : (arbor_status_t)1000;
}
static arbor_status_t untouched_req(arbor_status_t st)
{
    return out_req == (arbor_request_h)(uintptr_t)0x77 ? st : (arbor_status_t)1000;
}
static arbor_status_t untouched_op(arbor_status_t st)
{
    return out_op == -7 ? st : (arbor_status_t)1000;
}

#define R0 rb + (size_t)rank *N /* this rank's block of rb: where in place puts it */
#define ALL_BAD_CALLS(X)                                                                           \
    /* teams: NULL ("no team"), freed, forged */                                                   \
    X(arbor_barrier(ARBOR_TEAM_NULL), ARBOR_ERR_TEAM)                                              \
    X(arbor_barrier(freed_team), ARBOR_ERR_TEAM)                                                   \
    X(arbor_barrier(forged_small), ARBOR_ERR_TEAM)                                                 \
    X(arbor_barrier(forged_big), ARBOR_ERR_TEAM)                                                   \
    X(arbor_bcast(ARBOR_TEAM_NULL, sb, 8, 0), ARBOR_ERR_TEAM)                                      \
    X(arbor_bcast(freed_team, sb, 8, 0), ARBOR_ERR_TEAM)                                           \
    X(arbor_allreduce(ARBOR_TEAM_NULL, sb, rb, N, ARBOR_INT64, ARBOR_SUM), ARBOR_ERR_TEAM)         \
    X(arbor_allreduce(freed_team, sb, rb, N, ARBOR_INT64, ARBOR_SUM), ARBOR_ERR_TEAM)              \
    X(arbor_alltoall(forged_big, sb, rb, 1, ARBOR_INT64), ARBOR_ERR_TEAM)                          \
    X(arbor_scan(freed_team, sb, rb, N, ARBOR_INT64, ARBOR_SUM), ARBOR_ERR_TEAM)                   \
    X(arbor_team_rank(ARBOR_TEAM_NULL, &out_int), ARBOR_ERR_TEAM)                                  \
    X(arbor_team_rank(freed_team, &out_int), ARBOR_ERR_TEAM)                                       \
    X(arbor_team_size(ARBOR_TEAM_NULL, &out_int), ARBOR_ERR_TEAM)                                  \
    X(arbor_team_size(forged_small, &out_int), ARBOR_ERR_TEAM)                                     \
    X(arbor_team_rank(W, NULL), ARBOR_ERR_INVALID_ARG)                                             \
    X(arbor_team_size(W, NULL), ARBOR_ERR_INVALID_ARG)                                             \
    X(untouched_team(arbor_team_split(ARBOR_TEAM_NULL, 0, 0, &out_team)), ARBOR_ERR_TEAM)          \
    X(untouched_team(arbor_team_split(freed_team, 0, 0, &out_team)), ARBOR_ERR_TEAM)               \
    X(untouched_team(arbor_team_split(forged_big, 1, 0, &out_team)), ARBOR_ERR_TEAM)               \
    X(arbor_team_split(W, 0, 0, NULL), ARBOR_ERR_INVALID_ARG)                                      \
    X(arbor_team_free(NULL), ARBOR_ERR_INVALID_ARG)                                                \
    X(arbor_team_free(&W), ARBOR_ERR_TEAM)                                                         \
    X(arbor_team_free(&freed_team), ARBOR_ERR_TEAM)                                                \
    X(arbor_team_free(&forged_small), ARBOR_ERR_TEAM)                                              \
    X(arbor_coll_fence(ARBOR_TEAM_NULL), ARBOR_ERR_TEAM)                                           \
    X(arbor_coll_fence(freed_team), ARBOR_ERR_TEAM)                                                \
    X(arbor_team_images(W, NULL, NULL, NULL), ARBOR_ERR_NOT_INITIALIZED)                           \
    X(arbor_bcasti(W, NULL, 0, sb, 8, NULL), ARBOR_ERR_NOT_INITIALIZED)                            \
    X(arbor_images_init(NULL), ARBOR_ERR_INVALID_ARG)                                              \
    X(arbor_transport_name(NULL), ARBOR_ERR_INVALID_ARG)                                           \
    X(arbor_node_count(NULL), ARBOR_ERR_INVALID_ARG)                                               \
    X(arbor_rank_node(0, NULL), ARBOR_ERR_INVALID_ARG)                                             \
    X(arbor_rank_node(-1, &out_int), ARBOR_ERR_RANK)                                               \
    X(arbor_rank_node(1 << 30, &out_int), ARBOR_ERR_RANK)                                          \
    /* flags and params */                                                                         \
    X(arbor_barrier_nb(W, NULL, NULL), ARBOR_ERR_INVALID_ARG)                                      \
    X(untouched_req(arbor_barrier_nb(W, flags(1u << 20), &out_req)), ARBOR_ERR_FLAGS)              \
    X(untouched_req(arbor_barrier_nb(W, flags(ARBOR_IN_NOSYNC | ARBOR_IN_ALLSYNC), &out_req)),     \
      ARBOR_ERR_FLAGS)                                                                             \
    X(arbor_barrier_nb(W, flags(ARBOR_IN_MYSYNC | ARBOR_IN_ALLSYNC), &out_req), ARBOR_ERR_FLAGS)   \
    X(arbor_barrier_nb(W, flags(ARBOR_OUT_NOSYNC | ARBOR_OUT_ALLSYNC), &out_req), ARBOR_ERR_FLAGS) \
    X(arbor_barrier_nb(W, flags(ARBOR_OUT_MYSYNC | ARBOR_OUT_ALLSYNC), &out_req), ARBOR_ERR_FLAGS) \
    X(arbor_barrier_nb(W, flags(ARBOR_ASYNC_FENCE | ARBOR_AGGREGATE), &out_req), ARBOR_ERR_FLAGS)  \
    X(arbor_barrier_nb(W, flags(ARBOR_SINGLE | ARBOR_LOCAL), &out_req), ARBOR_ERR_FLAGS)           \
    X(untouched_req(arbor_barrier_nb(W, mask(1u << 5), &out_req)), ARBOR_ERR_INVALID_ARG)          \
    X(arbor_bcast_nb(W, sb, 8, 0, NULL, NULL), ARBOR_ERR_INVALID_ARG)                              \
    X(arbor_allreduce_nb(W, sb, rb, N, ARBOR_INT64, ARBOR_SUM, NULL, NULL), ARBOR_ERR_INVALID_ARG) \
    X(arbor_scatter_nb(W, sb, rb, 1, ARBOR_INT64, 0, NULL, NULL), ARBOR_ERR_INVALID_ARG)           \
    X(arbor_gather_nb(W, sb, rb, 1, ARBOR_INT64, 0, NULL, NULL), ARBOR_ERR_INVALID_ARG)            \
    X(arbor_alltoall_nb(W, sb, rb, 1, ARBOR_INT64, flags(1u << 30), &out_req), ARBOR_ERR_FLAGS)    \
    X(arbor_reduce_nb(W, sb, rb, N, ARBOR_INT64, ARBOR_SUM, 0, flags(~0ull), &out_req),            \
      ARBOR_ERR_FLAGS)                                                                             \
    X(arbor_scan_nb(W, sb, rb, N, ARBOR_INT64, ARBOR_SUM, flags(1ull << 40), &out_req),            \
      ARBOR_ERR_FLAGS)                                                                             \
    X(arbor_exscan_nb(W, sb, rb, N, ARBOR_INT64, ARBOR_SUM, NULL, NULL), ARBOR_ERR_INVALID_ARG)    \
    X(arbor_allgather_nb(W, sb, rb, N, ARBOR_INT64, mask(2), &out_req), ARBOR_ERR_INVALID_ARG)     \
    X(arbor_reduce_scatter_nb(W, sb, rb, ones, ARBOR_INT64, ARBOR_SUM, NULL, NULL),                \
      ARBOR_ERR_INVALID_ARG)                                                                       \
    X(arbor_allgatherv_nb(W, sb, N, rb, counts, displs, ARBOR_INT64, NULL, NULL),                  \
      ARBOR_ERR_INVALID_ARG)                                                                       \
    X(arbor_gatherv_nb(W, sb, N, rb, counts, displs, ARBOR_INT64, 0,                               \
                       flags(ARBOR_IN_NOSYNC | ARBOR_IN_MYSYNC), &out_req),                        \
      ARBOR_ERR_FLAGS)                                                                             \
    X(arbor_scatterv_nb(W, sb, counts, displs, rb, N, ARBOR_INT64, 0,                              \
                        flags(ARBOR_SINGLE | ARBOR_LOCAL), &out_req),                              \
      ARBOR_ERR_FLAGS)                                                                             \
    X(arbor_alltoallv_nb(W, sb, ones, displs, rb, ones, displs, ARBOR_INT64, NULL, NULL),          \
      ARBOR_ERR_INVALID_ARG)                                                                       \
    /* roots */                                                                                    \
    X(arbor_bcast(W, sb, 8, -1), ARBOR_ERR_ROOT)                                                   \
    X(arbor_bcast(W, sb, 8, size), ARBOR_ERR_ROOT)                                                 \
    X(arbor_bcast_nb(W, sb, 8, size + 7, NULL, &out_req), ARBOR_ERR_ROOT)                          \
    X(arbor_scatter(W, sb, rb, 1, ARBOR_INT64, size), ARBOR_ERR_ROOT)                              \
    X(arbor_gather(W, sb, rb, 1, ARBOR_INT64, -1), ARBOR_ERR_ROOT)                                 \
    X(arbor_reduce(W, sb, rb, N, ARBOR_INT64, ARBOR_SUM, size), ARBOR_ERR_ROOT)                    \
    X(arbor_reduce_nb(W, sb, rb, N, ARBOR_INT64, ARBOR_SUM, -1, NULL, &out_req), ARBOR_ERR_ROOT)   \
    X(arbor_scatterv(W, sb, counts, displs, rb, N, ARBOR_INT64, -1), ARBOR_ERR_ROOT)               \
    X(arbor_gatherv(W, sb, N, rb, counts, displs, ARBOR_INT64, size), ARBOR_ERR_ROOT)              \
    X(arbor_gather_nb(W, sb, rb, 1, ARBOR_INT64, size + 100, NULL, &out_req), ARBOR_ERR_ROOT)      \
    /* buffers: NULL, misplaced ARBOR_IN_PLACE, overlapping send and receive blocks */             \
    X(arbor_bcast(W, NULL, 8, 0), ARBOR_ERR_BUFFER)                                                \
    X(arbor_bcast(W, ARBOR_IN_PLACE, 8, 0), ARBOR_ERR_BUFFER)                                      \
    X(arbor_bcast_nb(W, ARBOR_IN_PLACE, 8, 0, NULL, &out_req), ARBOR_ERR_BUFFER)                   \
    X(arbor_allreduce(W, NULL, rb, N, ARBOR_INT64, ARBOR_SUM), ARBOR_ERR_BUFFER)                   \
    X(arbor_allreduce(W, sb, NULL, N, ARBOR_INT64, ARBOR_SUM), ARBOR_ERR_BUFFER)                   \
    X(arbor_allreduce(W, sb, ARBOR_IN_PLACE, N, ARBOR_INT64, ARBOR_SUM), ARBOR_ERR_BUFFER)         \
    X(arbor_allreduce(W, rb + 1, rb, N, ARBOR_INT64, ARBOR_SUM), ARBOR_ERR_BUFFER)                 \
    X(arbor_scan(W, rb, rb + 3, N, ARBOR_INT64, ARBOR_SUM), ARBOR_ERR_BUFFER)                      \
    X(arbor_exscan(W, sb, NULL, N, ARBOR_INT64, ARBOR_SUM), ARBOR_ERR_BUFFER)                      \
    X(arbor_allgather(W, sb, NULL, N, ARBOR_INT64), ARBOR_ERR_BUFFER)                              \
    X(arbor_allgather(W, R0 + 1, rb, N, ARBOR_INT64), ARBOR_ERR_BUFFER)                            \
    X(arbor_allgather(W, rb + (size_t)size * N - 1, rb, N, ARBOR_INT64), ARBOR_ERR_BUFFER)         \
    X(arbor_allgather(W, sb, ARBOR_IN_PLACE, N, ARBOR_INT64), ARBOR_ERR_BUFFER)                    \
    X(arbor_alltoall(W, rb, rb, 1, ARBOR_INT64), ARBOR_ERR_BUFFER)                                 \
    X(arbor_alltoall(W, NULL, rb, 1, ARBOR_INT64), ARBOR_ERR_BUFFER)                               \
    X(arbor_alltoall(W, sb, ARBOR_IN_PLACE, 1, ARBOR_INT64), ARBOR_ERR_BUFFER)                     \
    X(arbor_scatter(W, ARBOR_IN_PLACE, rb, 1, ARBOR_INT64, 0), ARBOR_ERR_BUFFER)                   \
    X(arbor_scatterv(W, ARBOR_IN_PLACE, counts, displs, rb, N, ARBOR_INT64, 0), ARBOR_ERR_BUFFER)  \
    X(arbor_alltoallv(W, ARBOR_IN_PLACE, ones, displs, rb, ones, displs, ARBOR_INT64),             \
      ARBOR_ERR_BUFFER)                                                                            \
    X(arbor_gather(W, NULL, rb, N, ARBOR_INT64, 0), ARBOR_ERR_BUFFER)                              \
    X(arbor_reduce(W, NULL, rb, N, ARBOR_INT64, ARBOR_SUM, 0), ARBOR_ERR_BUFFER)                   \
    X(arbor_reduce_scatter(W, NULL, rb, ones, ARBOR_INT64, ARBOR_SUM), ARBOR_ERR_BUFFER)           \
    X(arbor_allgatherv(W, rb + displs[rank] + 1, N, rb, counts, displs, ARBOR_INT64),              \
      ARBOR_ERR_BUFFER)                                                                            \
    X(arbor_allreduce_nb(W, sb, NULL, N, ARBOR_INT64, ARBOR_SUM, NULL, &out_req),                  \
      ARBOR_ERR_BUFFER)                                                                            \
    /* counts, including byte offsets that wrap */                                                 \
    X(arbor_bcast(W, sb, SIZE_MAX, 0), ARBOR_ERR_COUNT)                                            \
    X(arbor_allreduce(W, sb, rb, SIZE_MAX, ARBOR_INT64, ARBOR_SUM), ARBOR_ERR_COUNT)               \
    X(arbor_allreduce(W, sb, rb, (size_t)1 << 60, ARBOR_INT64, ARBOR_SUM), ARBOR_ERR_COUNT)        \
    X(arbor_allgather(W, sb, rb, SIZE_MAX / 2, ARBOR_INT64), ARBOR_ERR_COUNT)                      \
    X(arbor_alltoall(W, sb, rb, (size_t)1 << 62, ARBOR_INT64), ARBOR_ERR_COUNT)                    \
    X(arbor_scan(W, sb, rb, SIZE_MAX / 8 + 1, ARBOR_INT64, ARBOR_SUM), ARBOR_ERR_COUNT)            \
    X(arbor_exscan(W, sb, rb, SIZE_MAX, ARBOR_INT64, ARBOR_SUM), ARBOR_ERR_COUNT)                  \
    X(arbor_reduce(W, sb, rb, SIZE_MAX, ARBOR_INT64, ARBOR_SUM, 0), ARBOR_ERR_COUNT)               \
    X(arbor_scatter(W, sb, rb, SIZE_MAX, ARBOR_INT64, 0), ARBOR_ERR_COUNT)                         \
    X(arbor_gather(W, sb, rb, SIZE_MAX / 3, ARBOR_INT64, 0), ARBOR_ERR_COUNT)                      \
    X(arbor_allgatherv(W, sb, N, rb, NULL, displs, ARBOR_INT64), ARBOR_ERR_COUNT)                  \
    X(arbor_allgatherv(W, sb, N, rb, counts, NULL, ARBOR_INT64), ARBOR_ERR_COUNT)                  \
    X(arbor_allgatherv(W, sb, N, rb, counts, displs_wrap, ARBOR_INT64), ARBOR_ERR_COUNT)           \
    X(arbor_allgatherv(W, sb, N, rb, counts5, displs, ARBOR_INT64), ARBOR_ERR_COUNT)               \
    X(arbor_allgatherv(W, sb, N, rb, counts_wrap, displs, ARBOR_INT64), ARBOR_ERR_COUNT)           \
    X(arbor_gatherv(W, sb, SIZE_MAX, rb, counts, displs, ARBOR_INT64, 0), ARBOR_ERR_COUNT)         \
    X(arbor_scatterv(W, sb, counts, displs, rb, SIZE_MAX / 4, ARBOR_INT64, 0), ARBOR_ERR_COUNT)    \
    X(arbor_alltoallv(W, sb, NULL, displs, rb, ones, displs, ARBOR_INT64), ARBOR_ERR_COUNT)        \
    X(arbor_alltoallv(W, sb, ones, displs, rb, ones, displs_wrap, ARBOR_INT64), ARBOR_ERR_COUNT)   \
    X(arbor_alltoallv(W, sb, ones, displs, rb, twos, displs, ARBOR_INT64), ARBOR_ERR_COUNT)        \
    X(arbor_reduce_scatter(W, sb, rb, NULL, ARBOR_INT64, ARBOR_SUM), ARBOR_ERR_COUNT)              \
    X(arbor_reduce_scatter(W, sb, rb, counts_wrap, ARBOR_INT64, ARBOR_SUM), ARBOR_ERR_COUNT)       \
    X(arbor_allreduce_nb(W, sb, rb, SIZE_MAX, ARBOR_INT64, ARBOR_SUM, NULL, &out_req),             \
      ARBOR_ERR_COUNT)                                                                             \
    /* datatypes */                                                                                \
    X(arbor_allreduce(W, sb, rb, N, (arbor_dtype_t)-1, ARBOR_SUM), ARBOR_ERR_DATATYPE)             \
    X(arbor_allreduce(W, sb, rb, N, ARBOR_DTYPE_COUNT, ARBOR_SUM), ARBOR_ERR_DATATYPE)             \
    X(arbor_allgather(W, sb, rb, 1, (arbor_dtype_t)999), ARBOR_ERR_DATATYPE)                       \
    X(arbor_scatter(W, sb, rb, 1, ARBOR_DTYPE_COUNT, 0), ARBOR_ERR_DATATYPE)                       \
    X(arbor_alltoall(W, sb, rb, 1, (arbor_dtype_t)-3), ARBOR_ERR_DATATYPE)                         \
    X(arbor_reduce_scatter(W, sb, rb, ones, (arbor_dtype_t)77, ARBOR_SUM), ARBOR_ERR_DATATYPE)     \
    X(arbor_scan(W, sb, rb, N, (arbor_dtype_t)100, ARBOR_SUM), ARBOR_ERR_DATATYPE)                 \
    X(arbor_allgatherv(W, sb, N, rb, counts, displs, (arbor_dtype_t)-1), ARBOR_ERR_DATATYPE)       \
    X(arbor_alltoallv(W, sb, ones, displs, rb, ones, displs, ARBOR_DTYPE_COUNT),                   \
      ARBOR_ERR_DATATYPE)                                                                          \
    X(arbor_dtype_size((arbor_dtype_t)-1, &done_n), ARBOR_ERR_DATATYPE)                            \
    X(arbor_dtype_size(ARBOR_INT, NULL), ARBOR_ERR_INVALID_ARG)                                    \
    /* ops: unknown, never created, freed, not defined on the type */                              \
    X(arbor_allreduce(W, sb, rb, N, ARBOR_INT64, -1), ARBOR_ERR_OP)                                \
    X(arbor_allreduce(W, sb, rb, N, ARBOR_INT64, ARBOR_OP_PREDEFINED), ARBOR_ERR_OP)               \
    X(arbor_allreduce(W, sb, rb, N, ARBOR_INT64, 999), ARBOR_ERR_OP)                               \
    X(arbor_allreduce(W, sb, rb, N, ARBOR_INT64, never_op), ARBOR_ERR_OP)                          \
    X(arbor_allreduce(W, sb, rb, N, ARBOR_INT64, freed_op), ARBOR_ERR_OP)                          \
    X(arbor_allreduce(W, sb, rb, N, ARBOR_DOUBLE, ARBOR_BAND), ARBOR_ERR_OP)                       \
    X(arbor_allreduce(W, sb, rb, 2, ARBOR_INT, ARBOR_MINLOC), ARBOR_ERR_OP)                        \
    X(arbor_allreduce(W, sb, rb, 2, ARBOR_2INT, ARBOR_SUM), ARBOR_ERR_OP)                          \
    X(arbor_reduce(W, sb, rb, N, ARBOR_INT64, 12345, 0), ARBOR_ERR_OP)                             \
    X(arbor_scan(W, sb, rb, N, ARBOR_INT64, freed_op), ARBOR_ERR_OP)                               \
    X(arbor_exscan(W, sb, rb, N, ARBOR_FLOAT, ARBOR_BXOR), ARBOR_ERR_OP)                           \
    X(arbor_reduce_scatter(W, sb, rb, ones, ARBOR_INT64, -2), ARBOR_ERR_OP)                        \
    X(untouched_op(arbor_op_create(NULL, 0, &out_op)), ARBOR_ERR_INVALID_ARG)                      \
    X(untouched_op(arbor_op_create(sum64, 2, &out_op)), ARBOR_ERR_INVALID_ARG)                     \
    X(arbor_op_create(sum64, 0, NULL), ARBOR_ERR_INVALID_ARG)                                      \
    X(arbor_op_free(ARBOR_SUM), ARBOR_ERR_OP)                                                      \
    X(arbor_op_free(freed_op), ARBOR_ERR_OP)                                                       \
    X(arbor_op_free(-1), ARBOR_ERR_OP)                                                             \
    X(arbor_op_free(never_op), ARBOR_ERR_OP)                                                       \
    /* requests: NULL, completed, forged, listed twice */                                          \
    X(arbor_test(NULL), ARBOR_ERR_INVALID_ARG)                                                     \
    X(arbor_wait(NULL), ARBOR_ERR_INVALID_ARG)                                                     \
    X(arbor_test(&stale_req), ARBOR_ERR_HANDLE)                                                    \
    X(arbor_wait(&stale_req), ARBOR_ERR_HANDLE)                                                    \
    X(arbor_wait(&forged_req), ARBOR_ERR_HANDLE)                                                   \
    X(arbor_wait_all(2, NULL), ARBOR_ERR_INVALID_ARG)                                              \
    X(arbor_test_all(1, &stale_req), ARBOR_ERR_HANDLE)                                             \
    X(arbor_wait_all(1, &forged_req), ARBOR_ERR_HANDLE)                                            \
    X(arbor_test_some(1, &stale_req, &done_n, idx), ARBOR_ERR_HANDLE)                              \
    X(arbor_wait_some(1, &forged_req, &done_n, idx), ARBOR_ERR_HANDLE)                             \
    X(with_live(0), ARBOR_ERR_HANDLE)                                                              \
    X(with_live(1), ARBOR_ERR_HANDLE)                                                              \
    X(with_live(2), ARBOR_ERR_HANDLE)                                                              \
    X(with_live(3), ARBOR_ERR_HANDLE)                                                              \
    X(with_live(4), ARBOR_ERR_INVALID_ARG)                                                         \
    X(with_live(5), ARBOR_ERR_INVALID_ARG)

#define ENTRY(_call, _want) {#_call, _want},
#define DISPATCH(_call, _want)                                                                     \
    if (i == k++) return (_call);

static const struct {
    const char *text;
    arbor_status_t want;
} cases[] = {ALL_BAD_CALLS(ENTRY)};

static arbor_status_t call_case(size_t i)
{
    size_t k = 0;
    ALL_BAD_CALLS(DISPATCH)
    return (arbor_status_t)2000;
}

/* A correct collective after each bad call: the sums show no ticket or state was disturbed. */
static void healthy(size_t i)
{
    int64_t in[3] = {rank + 1, 2 * (rank + 1), (int64_t)i}, out[3] = {0, 0, 0};
    int64_t s = (int64_t)size * (size + 1) / 2;
    arbor_status_t st = arbor_allreduce(W, in, out, 3, ARBOR_INT64, ARBOR_SUM);
    CHECK(st == ARBOR_OK && out[0] == s && out[1] == 2 * s && out[2] == (int64_t)i * size,
          "allreduce after case %zu (%s): %s, got %lld %lld %lld", i, cases[i].text,
          arbor_strerror(st), (long long)out[0], (long long)out[1], (long long)out[2]);
}

static void set_up(void)
{
    for (int r = 0; r < MAXP; r++) {
        counts[r] = N, displs[r] = (size_t)r * N, counts5[r] = N + 1, ones[r] = 1, twos[r] = 2;
        displs_wrap[r] = displs[r];
        counts_wrap[r] = 1;
    }
    /* The byte offset of this piece wraps (8-byte elements): it would land at a small one. */
    displs_wrap[size - 1] = SIZE_MAX / 8 + 2;
    counts_wrap[0] = SIZE_MAX;
    for (size_t i = 0; i < sizeof(sb) / sizeof(sb[0]); i++) sb[i] = (int64_t)i;

    arbor_team_h t;
    CHECK(arbor_team_split(W, 0, 0, &t) == ARBOR_OK, "split");
    freed_team = t;
    CHECK(arbor_team_free(&t) == ARBOR_OK && t == ARBOR_TEAM_NULL, "free");
    CHECK(arbor_team_split(W, -1, 0, &t) == ARBOR_OK && t == ARBOR_TEAM_NULL, "no team");
    CHECK(ARBOR_TEAM_NULL != ARBOR_TEAM_WORLD, "no team is the world");
    forged_small = (arbor_team_h)(uintptr_t)0x42;
    forged_big = (arbor_team_h)(uintptr_t)0x0000000500000001ull;
    CHECK(arbor_op_create(sum64, 1, &freed_op) == ARBOR_OK && arbor_op_free(freed_op) == ARBOR_OK,
          "op create / free");
    never_op = ARBOR_OP_USER_BASE + 5;
    CHECK(arbor_barrier_nb(W, NULL, &stale_req) == ARBOR_OK, "barrier_nb");
    arbor_request_h r = stale_req;
    CHECK(arbor_wait(&r) == ARBOR_OK && r == NULL, "wait");
    forged_req = (arbor_request_h)(uintptr_t)0x1234;
}

/* arbor_op_free of an op that an allreduce in flight uses: ARBOR_ERR_BUSY on rank 0, then the
 * allreduce completes with the op's sums and the op can be freed. The others start their part
 * only after a barrier on a second team that rank 0 enters once it has called arbor_op_free, so
 * its allreduce cannot have completed however the ranks are scheduled. With ARBOR_CHECK the
 * start itself exchanges signatures (it would wait for that barrier), so there the others just
 * start and the op may be free already. */
static void op_free_in_flight(void)
{
    enum { M = 4096 };
    static int64_t in[M], out[M];
    int checked = getenv("ARBOR_CHECK") != NULL;
    arbor_op_t op;
    arbor_request_h r;
    arbor_team_h gate;
    CHECK(arbor_team_split(W, 0, rank, &gate) == ARBOR_OK, "gate team");
    CHECK(arbor_op_create(sum64, 1, &op) == ARBOR_OK, "create");
    for (int i = 0; i < M; i++) in[i] = (int64_t)i * (rank + 1);
    if (rank != 0 && !checked) CHECK(arbor_barrier(gate) == ARBOR_OK, "gate (others)");
    CHECK(arbor_allreduce_nb(W, in, out, M, ARBOR_INT64, op, NULL, &r) == ARBOR_OK, "start");
    arbor_status_t st = arbor_op_free(op);
    if (rank == 0 && !checked) {
        CHECK(st == ARBOR_ERR_BUSY, "op freed under its allreduce: %d", (int)st);
        CHECK(arbor_barrier(gate) == ARBOR_OK, "gate (rank 0)");
    } else {
        CHECK(st == ARBOR_ERR_BUSY || st == ARBOR_OK, "op_free: %d", (int)st);
    }
    CHECK(arbor_wait(&r) == ARBOR_OK, "wait");
    int64_t s = (int64_t)size * (size + 1) / 2;
    int wrong = 0;
    for (int i = 0; i < M; i++) wrong += out[i] != (int64_t)i * s;
    CHECK(wrong == 0, "%d of %d elements wrong after a refused op_free", wrong, M);
    if (st == ARBOR_ERR_BUSY) CHECK(arbor_op_free(op) == ARBOR_OK, "free after completion");
    CHECK(arbor_op_free(op) == ARBOR_ERR_OP, "double free");
    CHECK(arbor_team_free(&gate) == ARBOR_OK, "gate free");
}

int main(void)
{
    if (arbor_init() != ARBOR_OK) return 1;
    arbor_team_rank(W, &rank);
    arbor_team_size(W, &size);
    if (size > MAXP) {
        arbor_finalize();
        return 77;
    }
    out_team = (arbor_team_h)(uintptr_t)0x77;
    out_req = (arbor_request_h)(uintptr_t)0x77;
    out_op = -7;
    set_up();
    size_t n = sizeof(cases) / sizeof(cases[0]);
    int codes[64] = {0};
    for (size_t i = 0; i < n; i++) {
        out_req = (arbor_request_h)(uintptr_t)0x77;
        arbor_status_t st = call_case(i);
        CHECK(st == cases[i].want, "case %zu: %s returned %d (%s), want %s", i, cases[i].text,
              (int)st, arbor_strerror(st), arbor_strerror(cases[i].want));
        if (st < 0 && -st < 64) codes[-st]++;
        healthy(i);
    }
    if (size > 1) op_free_in_flight();
    CHECK(arbor_team_rank(W, &out_int) == ARBOR_OK && out_int == rank, "world lost");
    arbor_status_t fin = arbor_finalize();
    CHECK(fin == ARBOR_OK, "finalize: %s", arbor_strerror(fin));
    if (rank == 0) {
        printf("badinput: %zu bad calls at P=%d, codes:", n, size);
        for (int c = 1; c < 64; c++)
            if (codes[c]) printf(" %d x %d", codes[c], -c);
        printf("\n");
    }
    printf("badinput rank %d: %d checks, %d failures\n", rank, checks, failures);
    return failures ? 1 : 0;
}
