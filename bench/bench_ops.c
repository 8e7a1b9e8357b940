/* arbor-bench's per-collective buffer layouts, data patterns, calls and checks. */
#include "bench/bench_ops.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const bench_op_t bench_ops[] = {
    {"barrier", BENCH_BARRIER, "BARRIER"},
    {"bcast", BENCH_BCAST, "BCAST"},
    {"scatter", BENCH_SCATTER, "SCATTER"},
    {"scatterv", BENCH_SCATTERV, "SCATTERV"},
    {"gather", BENCH_GATHER, "GATHER"},
    {"gatherv", BENCH_GATHERV, "GATHERV"},
    {"allgather", BENCH_ALLGATHER, "ALLGATHER"},
    {"allgatherv", BENCH_ALLGATHERV, "ALLGATHERV"},
    {"alltoall", BENCH_ALLTOALL, "ALLTOALL"},
    {"alltoallv", BENCH_ALLTOALLV, "ALLTOALLV"},
    {"reduce", BENCH_REDUCE, "REDUCE"},
    {"allreduce", BENCH_ALLREDUCE, "ALLREDUCE"},
    {"reduce_scatter", BENCH_REDUCE_SCATTER, "REDUCE_SCATTER"},
    {"scan", BENCH_SCAN, "SCAN"},
    {"exscan", BENCH_EXSCAN, "EXSCAN"},
};
const int bench_nops = sizeof(bench_ops) / sizeof(bench_ops[0]);

const char *const bench_dtype_names[] = {"int32", "int64", "float", "double"};
static const arbor_dtype_t dtypes[] = {ARBOR_INT32, ARBOR_INT64, ARBOR_FLOAT, ARBOR_DOUBLE};
const int bench_ndtypes = 4;
const char *const bench_rop_names[] = {"sum", "prod", "min", "max", "band", "bor", "bxor"};
static const arbor_op_t rops[] = {ARBOR_SUM,  ARBOR_PROD, ARBOR_MIN, ARBOR_MAX,
                                  ARBOR_BAND, ARBOR_BOR,  ARBOR_BXOR};
const int bench_nrops = 7;

static bool is_reduction(bench_coll_t c)
{
    return c >= BENCH_REDUCE;
}

/* The value rank r contributes at element i of block j: small, so no type overflows. */
static int64_t value(const bench_point_t *p, int r, size_t j, size_t i)
{
    if (is_reduction(p->op->coll))
        return rops[p->rop_idx] == ARBOR_PROD ? 1 + (int64_t)((r + i) % 2)
                                              : 1 + (int64_t)((r * 7 + i) % 11);
    return 1 + (int64_t)(((size_t)r * 131 + j * 17 + i) % 97);
}

static void store(int dt, void *buf, size_t idx, int64_t v)
{
    switch (dt) {
    case 0:
        ((int32_t *)buf)[idx] = (int32_t)v;
        break;
    case 1:
        ((int64_t *)buf)[idx] = v;
        break;
    case 2:
        ((float *)buf)[idx] = (float)v;
        break;
    default:
        ((double *)buf)[idx] = (double)v;
        break;
    }
}

static int64_t load(int dt, const void *buf, size_t idx)
{
    switch (dt) {
    case 0:
        return ((const int32_t *)buf)[idx];
    case 1:
        return ((const int64_t *)buf)[idx];
    case 2:
        return (int64_t)((const float *)buf)[idx];
    default:
        return (int64_t)((const double *)buf)[idx];
    }
}

static int64_t fold(arbor_op_t op, int64_t a, int64_t b)
{
    switch (op) {
    case ARBOR_SUM:
        return a + b;
    case ARBOR_PROD:
        return a * b;
    case ARBOR_MIN:
        return a < b ? a : b;
    case ARBOR_MAX:
        return a > b ? a : b;
    case ARBOR_BAND:
        return a & b;
    case ARBOR_BOR:
        return a | b;
    default:
        return a ^ b;
    }
}

/* op over ranks lo..hi-1 of element i */
static int64_t reduced(const bench_point_t *p, int lo, int hi, size_t i)
{
    int64_t acc = value(p, lo, 0, i);
    for (int r = lo + 1; r < hi; r++) acc = fold(rops[p->rop_idx], acc, value(p, r, 0, i));
    return acc;
}

int bench_setup(bench_point_t *p, const bench_op_t *op, size_t bytes, int dtype_idx, int rop_idx,
                int root, int rank, int size, int cold)
{
    bench_coll_t c = op->coll;
    memset(p, 0, sizeof(*p));
    p->op = op;
    p->dtype_idx = dtype_idx;
    p->rop_idx = rop_idx;
    p->root = root;
    p->rank = rank;
    p->size = size;
    size_t dsz;
    arbor_dtype_size(dtypes[dtype_idx], &dsz);
    p->elem = c == BENCH_BCAST ? 1 : dsz;
    p->count = c == BENCH_BARRIER ? 0 : bytes / p->elem;
    p->bytes = p->count * p->elem;
    size_t P = (size_t)size, blk = p->bytes;
    switch (c) {
    case BENCH_BARRIER:
        break;
    case BENCH_BCAST:
        p->send_bytes = p->recv_bytes = blk;
        break;
    case BENCH_SCATTER:
    case BENCH_SCATTERV:
        p->send_bytes = P * blk, p->recv_bytes = blk;
        break;
    case BENCH_GATHER:
    case BENCH_GATHERV:
        p->send_bytes = blk, p->recv_bytes = P * blk;
        break;
    case BENCH_ALLGATHER:
    case BENCH_ALLGATHERV:
        p->send_bytes = blk, p->recv_bytes = P * blk;
        break;
    case BENCH_ALLTOALL:
    case BENCH_ALLTOALLV:
        p->send_bytes = p->recv_bytes = P * blk;
        break;
    case BENCH_REDUCE_SCATTER:
        p->send_bytes = P * blk, p->recv_bytes = blk;
        break;
    default:
        p->send_bytes = p->recv_bytes = blk;
        break;
    }
    size_t per = p->send_bytes + p->recv_bytes + 2;
    p->nbufs = cold ? (int)((64u << 20) / per + 1) : 1;
    if (p->nbufs > BENCH_MAX_BUFS) p->nbufs = BENCH_MAX_BUFS;
    p->counts = calloc(P, sizeof(size_t));
    p->displs = calloc(P, sizeof(size_t));
    if (!p->counts || !p->displs) return -1;
    for (size_t r = 0; r < P; r++) p->counts[r] = p->count, p->displs[r] = r * p->count;
    if (bench_symmetric) {
        /* One allocation, send then recv, each 64-byte aligned like a block of its own. */
        size_t s_len = (p->send_bytes + 64) & ~(size_t)63;
        void *base = NULL;
        p->nbufs = 1;
        if (arbor_mem_alloc(ARBOR_TEAM_WORLD, s_len + p->recv_bytes + 1, &p->mem, &base) !=
            ARBOR_OK)
            return -1;
        p->send[0] = base;
        p->recv[0] = (unsigned char *)base + s_len;
    }
    for (int b = 0; !bench_symmetric && b < p->nbufs; b++) {
        p->send[b] = malloc(p->send_bytes + 1);
        p->recv[b] = malloc(p->recv_bytes + 1);
        if (!p->send[b] || !p->recv[b]) return -1;
    }
    for (int b = 0; b < p->nbufs; b++) {
        size_t n = p->send_bytes / p->elem, per_block = p->count ? p->count : 1;
        for (size_t e = 0; c != BENCH_BCAST && e < n; e++)
            store(dtype_idx, p->send[b], e,
                  is_reduction(c) ? value(p, rank, 0, e)
                                  : value(p, rank, e / per_block, e % per_block));
        if (c == BENCH_BCAST)
            for (size_t e = 0; e < p->bytes; e++)
                p->send[b][e] = (unsigned char)value(p, root, 0, e);
        memset(p->recv[b], 0, p->recv_bytes);
    }
    return 0;
}

void bench_fill(bench_point_t *p, int it, int last)
{
    int b = it % p->nbufs;
    if (!last) return;
    /* Poison what the last iteration must write, so a call that does nothing fails the check. */
    if (p->op->coll == BENCH_BCAST) {
        if (p->rank != p->root)
            memset(p->send[b], 0xEE, p->bytes);
        else
            for (size_t e = 0; e < p->bytes; e++)
                p->send[b][e] = (unsigned char)value(p, p->root, 0, e);
    } else {
        memset(p->recv[b], 0xEE, p->recv_bytes);
    }
}

int bench_symmetric;

/* A _nb call flagged ARBOR_SYMMETRIC, waited for. */
#define SYMMETRIC_CALL(_call_nb, ...)                                                              \
    do {                                                                                           \
        arbor_request_h req;                                                                       \
        arbor_status_t st = _call_nb(__VA_ARGS__, &sym, &req);                                     \
        return st == ARBOR_OK ? arbor_wait(&req) : st;                                             \
    } while (0)

arbor_status_t bench_run(bench_point_t *p, int it)
{
    static const arbor_op_params_t sym = {.field_mask = ARBOR_OP_PARAM_FLAGS,
                                          .flags = ARBOR_SYMMETRIC};
    int b = it % p->nbufs;
    void *s = p->send[b], *r = p->recv[b];
    size_t n = p->count;
    arbor_dtype_t dt = dtypes[p->dtype_idx];
    arbor_op_t op = rops[p->rop_idx];
    arbor_team_h w = ARBOR_TEAM_WORLD;
    switch (p->op->coll) {
    case BENCH_BARRIER:
        return arbor_barrier(w);
    case BENCH_BCAST:
        if (bench_symmetric) SYMMETRIC_CALL(arbor_bcast_nb, w, s, p->bytes, p->root);
        return arbor_bcast(w, s, p->bytes, p->root);
    case BENCH_SCATTER:
        if (bench_symmetric) SYMMETRIC_CALL(arbor_scatter_nb, w, s, r, n, dt, p->root);
        return arbor_scatter(w, s, r, n, dt, p->root);
    case BENCH_SCATTERV:
        return arbor_scatterv(w, s, p->counts, p->displs, r, n, dt, p->root);
    case BENCH_GATHER:
        if (bench_symmetric) SYMMETRIC_CALL(arbor_gather_nb, w, s, r, n, dt, p->root);
        return arbor_gather(w, s, r, n, dt, p->root);
    case BENCH_GATHERV:
        return arbor_gatherv(w, s, n, r, p->counts, p->displs, dt, p->root);
    case BENCH_ALLGATHER:
        if (bench_symmetric) SYMMETRIC_CALL(arbor_allgather_nb, w, s, r, n, dt);
        return arbor_allgather(w, s, r, n, dt);
    case BENCH_ALLGATHERV:
        return arbor_allgatherv(w, s, n, r, p->counts, p->displs, dt);
    case BENCH_ALLTOALL:
        if (bench_symmetric) SYMMETRIC_CALL(arbor_alltoall_nb, w, s, r, n, dt);
        return arbor_alltoall(w, s, r, n, dt);
    case BENCH_ALLTOALLV:
        return arbor_alltoallv(w, s, p->counts, p->displs, r, p->counts, p->displs, dt);
    case BENCH_REDUCE:
        if (bench_symmetric) SYMMETRIC_CALL(arbor_reduce_nb, w, s, r, n, dt, op, p->root);
        return arbor_reduce(w, s, r, n, dt, op, p->root);
    case BENCH_ALLREDUCE:
        if (bench_symmetric) SYMMETRIC_CALL(arbor_allreduce_nb, w, s, r, n, dt, op);
        return arbor_allreduce(w, s, r, n, dt, op);
    case BENCH_REDUCE_SCATTER:
        if (bench_symmetric) SYMMETRIC_CALL(arbor_reduce_scatter_nb, w, s, r, p->counts, dt, op);
        return arbor_reduce_scatter(w, s, r, p->counts, dt, op);
    case BENCH_SCAN:
        return arbor_scan(w, s, r, n, dt, op);
    case BENCH_EXSCAN:
        return arbor_exscan(w, s, r, n, dt, op);
    default:
        return ARBOR_ERR_UNSUPPORTED;
    }
}

int bench_check(const bench_point_t *p, int it)
{
    int b = it % p->nbufs, P = p->size, me = p->rank, dt = p->dtype_idx;
    const unsigned char *r = p->recv[b];
    size_t n = p->count;
    switch (p->op->coll) {
    case BENCH_BARRIER:
        return 1;
    case BENCH_BCAST:
        for (size_t e = 0; e < p->bytes; e++)
            if (p->send[b][e] != (unsigned char)value(p, p->root, 0, e)) return 0;
        return 1;
    case BENCH_SCATTER:
    case BENCH_SCATTERV:
        for (size_t i = 0; i < n; i++)
            if (load(dt, r, i) != value(p, p->root, (size_t)me, i)) return 0;
        return 1;
    case BENCH_GATHER:
    case BENCH_GATHERV:
    case BENCH_ALLGATHER:
    case BENCH_ALLGATHERV:
        if (p->op->coll <= BENCH_GATHERV && me != p->root) return 1;
        for (int src = 0; src < P; src++)
            for (size_t i = 0; i < n; i++)
                if (load(dt, r, (size_t)src * n + i) != value(p, src, 0, i)) return 0;
        return 1;
    case BENCH_ALLTOALL:
    case BENCH_ALLTOALLV:
        for (int src = 0; src < P; src++)
            for (size_t i = 0; i < n; i++)
                if (load(dt, r, (size_t)src * n + i) != value(p, src, (size_t)me, i)) return 0;
        return 1;
    case BENCH_REDUCE:
    case BENCH_ALLREDUCE:
        if (p->op->coll == BENCH_REDUCE && me != p->root) return 1;
        for (size_t i = 0; i < n; i++)
            if (load(dt, r, i) != reduced(p, 0, P, i)) return 0;
        return 1;
    case BENCH_REDUCE_SCATTER:
        for (size_t i = 0; i < n; i++)
            if (load(dt, r, i) != reduced(p, 0, P, (size_t)me * n + i)) return 0;
        return 1;
    case BENCH_SCAN:
        for (size_t i = 0; i < n; i++)
            if (load(dt, r, i) != reduced(p, 0, me + 1, i)) return 0;
        return 1;
    case BENCH_EXSCAN:
        for (size_t i = 0; me > 0 && i < n; i++)
            if (load(dt, r, i) != reduced(p, 0, me, i)) return 0;
        return 1;
    default:
        return 0;
    }
}

void bench_teardown(bench_point_t *p)
{
    if (p->mem)
        arbor_mem_free(&p->mem);
    else
        for (int b = 0; b < p->nbufs; b++) free(p->send[b]), free(p->recv[b]);
    free(p->counts);
    free(p->displs);
    memset(p, 0, sizeof(*p));
}
