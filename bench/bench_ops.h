/*
 * arbor-bench's collectives: per op, how to lay out buffers for a size, fill them with values
 * every rank can predict, run the public call, and check the result.
 */
#ifndef ARB_BENCH_BENCH_OPS_H
#define ARB_BENCH_BENCH_OPS_H

#include <stddef.h>

#include "arbor.h"

/* The collectives arbor-bench drives; the order matters: the reductions come last. */
typedef enum {
    BENCH_BARRIER,
    BENCH_BCAST,
    BENCH_SCATTER,
    BENCH_SCATTERV,
    BENCH_GATHER,
    BENCH_GATHERV,
    BENCH_ALLGATHER,
    BENCH_ALLGATHERV,
    BENCH_ALLTOALL,
    BENCH_ALLTOALLV,
    BENCH_REDUCE,
    BENCH_ALLREDUCE,
    BENCH_REDUCE_SCATTER,
    BENCH_SCAN,
    BENCH_EXSCAN
} bench_coll_t;

typedef struct {
    const char *name; /* as arbor_algorithm_names and arbor_coll_info_t spell the collective */
    bench_coll_t coll;
    const char *env; /* ARBOR_<env>_ALGORITHM */
} bench_op_t;

extern const bench_op_t bench_ops[];
extern const int bench_nops;
extern const char *const bench_dtype_names[];
extern const int bench_ndtypes;
extern const char *const bench_rop_names[];
extern const int bench_nrops;

#define BENCH_MAX_BUFS 64

typedef struct {
    const bench_op_t *op;
    size_t bytes;       /* reported size */
    size_t count, elem; /* elements per block / vector */
    size_t send_bytes, recv_bytes;
    int dtype_idx, rop_idx, root, rank, size;
    int nbufs;
    unsigned char *send[BENCH_MAX_BUFS], *recv[BENCH_MAX_BUFS];
    size_t *counts, *displs;
    arbor_mem_h mem; /* --symmetric: the allocation holding send[0] and recv[0], else NULL */
} bench_point_t;

/* --symmetric: buffers come from the symmetric heap (one arbor_mem_alloc per point: a
 * collective, so every rank sets the same), and bcast, scatter, gather, allgather and alltoall run
 * as _nb calls flagged ARBOR_SYMMETRIC (the one-copy path, docs/PERFORMANCE.md); the other ops run
 * as usual on those buffers. Not with cold buffers. */
extern int bench_symmetric;

int bench_setup(bench_point_t *p, const bench_op_t *op, size_t bytes, int dtype_idx, int rop_idx,
                int root, int rank, int size, int cold);
void bench_fill(bench_point_t *p, int it, int last);
arbor_status_t bench_run(bench_point_t *p, int it);
int bench_check(const bench_point_t *p, int it);
void bench_teardown(bench_point_t *p);

#endif /* ARB_BENCH_BENCH_OPS_H */
