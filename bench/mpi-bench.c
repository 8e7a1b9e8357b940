/*
 * arbor-mpi-bench: the MPI twin of arbor-bench, for bench/compare. Same command line, same CSV
 * columns, same timing and same buffer handling, with the collectives of the MPI library it is
 * linked with (it does not link libarbor):
 *   mpirun -n 4 build/bin/arbor-mpi-bench --op bcast --sizes 8,65536 --iters 1000 --format csv
 * Each iteration is timed on every rank after an MPI_Barrier; a row reports the mean over ranks
 * of each rank's mean call time (avg_us), the smallest and largest per-rank mean, the median and
 * 99th percentile of the iteration's time, and whether the data of the last iteration was right
 * (check). Timing as in arbor-bench (auto: window where every rank reads one clock and has a
 * CPU, span where they share CPUs, rank across clocks; bench/clock_id.h); --timing window starts
 * every rank at one moment T that rank 0 broadcasts (MPI_Bcast) on the clock arbor-bench reads
 * (CLOCK_MONOTONIC), with the same margin, validity rule and extra columns (timing, invalid,
 * margin_us, runq_us, runq_max_us, nivcsw: bench/bench_timing.h, which both share). Sizes are bytes
 * per rank block for scatter / gather / allgather / alltoall (and their v-variants) and
 * reduce_scatter (MPI_Reduce_scatter_block), the whole vector for bcast and the other reductions.
 * --cold rotates through buffers whose total exceeds 64 MiB. The transport column is
 * "mpi:<flavour>" with the flavour from ARBOR_MPI_FLAVOUR (bench/compare sets it), else "mpi:ompi"
 * / "mpi:mpich" from the library version, else "mpi". The one-sided ops (put, get, acc, fetch_add,
 * cswap, strided_get, strided_put, vector_get, or onesided for all) use MPI-3 RMA
 * (bench/mpi_rma.c); their rows report rank 0's times.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getopt_long, strdup, clock_gettime when built alone */
#endif
#include <getopt.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_timing.h"
#include "clock_id.h"
#include "mpi_rma.h"

enum {
    BARRIER,
    BCAST,
    SCATTER,
    SCATTERV,
    GATHER,
    GATHERV,
    ALLGATHER,
    ALLGATHERV,
    ALLTOALL,
    ALLTOALLV,
    REDUCE,
    ALLREDUCE,
    REDUCE_SCATTER,
    SCAN,
    EXSCAN,
    NOPS
};
static const char *const op_names[NOPS] = {"barrier",        "bcast",     "scatter",   "scatterv",
                                           "gather",         "gatherv",   "allgather", "allgatherv",
                                           "alltoall",       "alltoallv", "reduce",    "allreduce",
                                           "reduce_scatter", "scan",      "exscan"};
static const char *const dtype_names[] = {"int32", "int64", "float", "double"};
static const char *const rop_names[] = {"sum", "prod", "min", "max", "band", "bor", "bxor"};
enum { ROP_SUM, ROP_PROD, ROP_MIN, ROP_MAX, ROP_BAND, ROP_BOR, ROP_BXOR };
static const size_t dtype_sizes[] = {4, 8, 4, 8};
#define MAX_BUFS 64

typedef struct {
    uint32_t op_mask;
    size_t sizes[64];
    int nsizes;
    int iters, warmup, root;
    const char *format;
    int dtype_idx, rop_idx;
    int cold;
    int timing;          /* BENCH_TIMING_* (bench_timing.h) */
    double window_slack; /* us after T a rank may start and count as on time */
} opts_t;

typedef struct {
    int op;
    size_t bytes, count, elem, send_bytes, recv_bytes;
    int dtype_idx, rop_idx, root, rank, size, nbufs;
    unsigned char *send[MAX_BUFS], *recv[MAX_BUFS];
    int *counts, *displs;
    MPI_Datatype dt;
    MPI_Op mop;
} point_t;

static int rank, size;

static MPI_Datatype mpi_dtype(int i)
{
    switch (i) {
    case 0:
        return MPI_INT32_T;
    case 1:
        return MPI_INT64_T;
    case 2:
        return MPI_FLOAT;
    default:
        return MPI_DOUBLE;
    }
}

static MPI_Op mpi_op(int i)
{
    switch (i) {
    case ROP_SUM:
        return MPI_SUM;
    case ROP_PROD:
        return MPI_PROD;
    case ROP_MIN:
        return MPI_MIN;
    case ROP_MAX:
        return MPI_MAX;
    case ROP_BAND:
        return MPI_BAND;
    case ROP_BOR:
        return MPI_BOR;
    default:
        return MPI_BXOR;
    }
}

static double now_us(void)
{
    return bench_now_us(); /* arbor-bench's clock: the window's T is compared across both */
}

static int is_reduction(int op)
{
    return op >= REDUCE;
}

/* The value rank r contributes at element i of block j (as arbor-bench's bench_ops.c). */
static int64_t value(const point_t *p, int r, size_t j, size_t i)
{
    if (is_reduction(p->op))
        return p->rop_idx == ROP_PROD ? 1 + (int64_t)((r + i) % 2)
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

static int64_t fold(int op, int64_t a, int64_t b)
{
    switch (op) {
    case ROP_SUM:
        return a + b;
    case ROP_PROD:
        return a * b;
    case ROP_MIN:
        return a < b ? a : b;
    case ROP_MAX:
        return a > b ? a : b;
    case ROP_BAND:
        return a & b;
    case ROP_BOR:
        return a | b;
    default:
        return a ^ b;
    }
}

static int64_t reduced(const point_t *p, int lo, int hi, size_t i)
{
    int64_t acc = value(p, lo, 0, i);
    for (int r = lo + 1; r < hi; r++) acc = fold(p->rop_idx, acc, value(p, r, 0, i));
    return acc;
}

static int setup(point_t *p, int op, size_t bytes, const opts_t *o)
{
    memset(p, 0, sizeof(*p));
    p->op = op;
    p->dtype_idx = o->dtype_idx;
    p->rop_idx = o->rop_idx;
    p->root = o->root;
    p->rank = rank;
    p->size = size;
    p->dt = op == BCAST ? MPI_BYTE : mpi_dtype(o->dtype_idx);
    p->mop = mpi_op(o->rop_idx);
    p->elem = op == BCAST ? 1 : dtype_sizes[o->dtype_idx];
    p->count = op == BARRIER ? 0 : bytes / p->elem;
    p->bytes = p->count * p->elem;
    size_t P = (size_t)size, blk = p->bytes;
    if (p->count > (size_t)INT32_MAX / P)
        return fprintf(stderr, "arbor-mpi-bench: size too large\n"), -1;
    switch (op) {
    case BARRIER:
        break;
    case BCAST:
        p->send_bytes = p->recv_bytes = blk;
        break;
    case SCATTER:
    case SCATTERV:
        p->send_bytes = P * blk, p->recv_bytes = blk;
        break;
    case GATHER:
    case GATHERV:
    case ALLGATHER:
    case ALLGATHERV:
        p->send_bytes = blk, p->recv_bytes = P * blk;
        break;
    case ALLTOALL:
    case ALLTOALLV:
        p->send_bytes = p->recv_bytes = P * blk;
        break;
    case REDUCE_SCATTER:
        p->send_bytes = P * blk, p->recv_bytes = blk;
        break;
    default:
        p->send_bytes = p->recv_bytes = blk;
        break;
    }
    size_t per = p->send_bytes + p->recv_bytes + 2;
    p->nbufs = o->cold ? (int)((64u << 20) / per + 1) : 1;
    if (p->nbufs > MAX_BUFS) p->nbufs = MAX_BUFS;
    p->counts = calloc(P, sizeof(int));
    p->displs = calloc(P, sizeof(int));
    if (!p->counts || !p->displs) return -1;
    for (size_t r = 0; r < P; r++) p->counts[r] = (int)p->count, p->displs[r] = (int)(r * p->count);
    for (int b = 0; b < p->nbufs; b++) {
        p->send[b] = malloc(p->send_bytes + 1);
        p->recv[b] = malloc(p->recv_bytes + 1);
        if (!p->send[b] || !p->recv[b]) return -1;
    }
    for (int b = 0; b < p->nbufs; b++) {
        size_t n = p->send_bytes / p->elem, per_block = p->count ? p->count : 1;
        for (size_t e = 0; op != BCAST && e < n; e++)
            store(p->dtype_idx, p->send[b], e,
                  is_reduction(op) ? value(p, rank, 0, e)
                                   : value(p, rank, e / per_block, e % per_block));
        if (op == BCAST)
            for (size_t e = 0; e < p->bytes; e++)
                p->send[b][e] = (unsigned char)value(p, p->root, 0, e);
        memset(p->recv[b], 0, p->recv_bytes);
    }
    return 0;
}

static void fill(point_t *p, int it, int last)
{
    int b = it % p->nbufs;
    if (!last) return;
    if (p->op == BCAST) {
        if (p->rank != p->root)
            memset(p->send[b], 0xEE, p->bytes);
        else
            for (size_t e = 0; e < p->bytes; e++)
                p->send[b][e] = (unsigned char)value(p, p->root, 0, e);
    } else {
        memset(p->recv[b], 0xEE, p->recv_bytes);
    }
}

static int run(point_t *p, int it)
{
    int b = it % p->nbufs, n = (int)p->count, root = p->root;
    void *s = p->send[b], *r = p->recv[b];
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Datatype dt = p->dt;
    switch (p->op) {
    case BARRIER:
        return MPI_Barrier(w);
    case BCAST:
        return MPI_Bcast(s, (int)p->bytes, MPI_BYTE, root, w);
    case SCATTER:
        return MPI_Scatter(s, n, dt, r, n, dt, root, w);
    case SCATTERV:
        return MPI_Scatterv(s, p->counts, p->displs, dt, r, n, dt, root, w);
    case GATHER:
        return MPI_Gather(s, n, dt, r, n, dt, root, w);
    case GATHERV:
        return MPI_Gatherv(s, n, dt, r, p->counts, p->displs, dt, root, w);
    case ALLGATHER:
        return MPI_Allgather(s, n, dt, r, n, dt, w);
    case ALLGATHERV:
        return MPI_Allgatherv(s, n, dt, r, p->counts, p->displs, dt, w);
    case ALLTOALL:
        return MPI_Alltoall(s, n, dt, r, n, dt, w);
    case ALLTOALLV:
        return MPI_Alltoallv(s, p->counts, p->displs, dt, r, p->counts, p->displs, dt, w);
    case REDUCE:
        return MPI_Reduce(s, r, n, dt, p->mop, root, w);
    case ALLREDUCE:
        return MPI_Allreduce(s, r, n, dt, p->mop, w);
    case REDUCE_SCATTER:
        return MPI_Reduce_scatter_block(s, r, n, dt, p->mop, w);
    case SCAN:
        return MPI_Scan(s, r, n, dt, p->mop, w);
    case EXSCAN:
        return MPI_Exscan(s, r, n, dt, p->mop, w);
    default:
        return MPI_ERR_OP;
    }
}

static int check(const point_t *p, int it)
{
    int b = it % p->nbufs, P = p->size, me = p->rank, dt = p->dtype_idx;
    const unsigned char *r = p->recv[b];
    size_t n = p->count;
    switch (p->op) {
    case BARRIER:
        return 1;
    case BCAST:
        for (size_t e = 0; e < p->bytes; e++)
            if (p->send[b][e] != (unsigned char)value(p, p->root, 0, e)) return 0;
        return 1;
    case SCATTER:
    case SCATTERV:
        for (size_t i = 0; i < n; i++)
            if (load(dt, r, i) != value(p, p->root, (size_t)me, i)) return 0;
        return 1;
    case GATHER:
    case GATHERV:
    case ALLGATHER:
    case ALLGATHERV:
        if (p->op <= GATHERV && me != p->root) return 1;
        for (int src = 0; src < P; src++)
            for (size_t i = 0; i < n; i++)
                if (load(dt, r, (size_t)src * n + i) != value(p, src, 0, i)) return 0;
        return 1;
    case ALLTOALL:
    case ALLTOALLV:
        for (int src = 0; src < P; src++)
            for (size_t i = 0; i < n; i++)
                if (load(dt, r, (size_t)src * n + i) != value(p, src, (size_t)me, i)) return 0;
        return 1;
    case REDUCE:
    case ALLREDUCE:
        if (p->op == REDUCE && me != p->root) return 1;
        for (size_t i = 0; i < n; i++)
            if (load(dt, r, i) != reduced(p, 0, P, i)) return 0;
        return 1;
    case REDUCE_SCATTER:
        for (size_t i = 0; i < n; i++)
            if (load(dt, r, i) != reduced(p, 0, P, (size_t)me * n + i)) return 0;
        return 1;
    case SCAN:
        for (size_t i = 0; i < n; i++)
            if (load(dt, r, i) != reduced(p, 0, me + 1, i)) return 0;
        return 1;
    case EXSCAN:
        for (size_t i = 0; me > 0 && i < n; i++)
            if (load(dt, r, i) != reduced(p, 0, me, i)) return 0;
        return 1;
    default:
        return 0;
    }
}

static void teardown(point_t *p)
{
    for (int b = 0; b < p->nbufs; b++) free(p->send[b]), free(p->recv[b]);
    free(p->counts);
    free(p->displs);
    memset(p, 0, sizeof(*p));
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: arbor-mpi-bench [--op LIST|all] [--sizes 8,64K,1M] [--iters N] [--warmup N]\n"
            "                       [--root R] [--dtype int32|int64|float|double]\n"
            "                       [--reduce-op sum|prod|min|max|band|bor|bxor] [--cold]\n"
            "                       [--timing auto|span|rank|window] [--window-slack US]\n"
            "                       [--format table|csv|json] [--details]\nops:");
    for (int i = 0; i < NOPS; i++) fprintf(f, " %s", op_names[i]);
    fprintf(f, "\none-sided ops (onesided: all of them):");
    for (int i = 0; i < mpi_rma_nops; i++) fprintf(f, " %s", mpi_rma_names[i]);
    fprintf(f, "\n");
}

static int find_name(const char *const *names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], s)) return i;
    return -1;
}

static int one_size(const char *tok, opts_t *o)
{
    char *end;
    double v = strtod(tok, &end);
    if (*end == 'k' || *end == 'K')
        v *= 1024, end++;
    else if (*end == 'm' || *end == 'M')
        v *= 1024 * 1024, end++;
    if (*end || v < 0 || v > 1e10 || o->nsizes == 64) {
        fprintf(stderr, "arbor-mpi-bench: bad size '%s'\n", tok);
        return -1;
    }
    o->sizes[o->nsizes++] = (size_t)v;
    return 0;
}

static int one_op(const char *tok, opts_t *o)
{
    if (!strcmp(tok, "all")) {
        o->op_mask |= (1u << NOPS) - 1;
        return 0;
    }
    if (!strcmp(tok, "onesided")) {
        o->op_mask |= ((1u << mpi_rma_nops) - 1) << NOPS;
        return 0;
    }
    int i = find_name(op_names, NOPS, tok), j = find_name(mpi_rma_names, mpi_rma_nops, tok);
    if (i < 0 && j >= 0) i = NOPS + j;
    if (i < 0) return fprintf(stderr, "arbor-mpi-bench: unknown op '%s'\n", tok), -1;
    o->op_mask |= 1u << i;
    return 0;
}

static int parse_list(const char *arg, int (*one)(const char *, opts_t *), opts_t *o)
{
    char *dup = strdup(arg), *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(dup, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save))
        rc = one(tok, o);
    free(dup);
    return rc;
}

static int parse_args(int argc, char **argv, opts_t *o)
{
    static const struct option lo[] = {
        {"op", 1, 0, 'o'},           {"sizes", 1, 0, 's'},   {"iters", 1, 0, 'i'},
        {"warmup", 1, 0, 'w'},       {"root", 1, 0, 'r'},    {"algorithm", 1, 0, 'a'},
        {"format", 1, 0, 'f'},       {"dtype", 1, 0, 'd'},   {"reduce-op", 1, 0, 'p'},
        {"cold", 0, 0, 'c'},         {"help", 0, 0, 'h'},    {"timing", 1, 0, 't'},
        {"window-slack", 1, 0, 'l'}, {"details", 0, 0, 'D'}, {0, 0, 0, 0}};
    int c, details = 0;
    *o = (opts_t){.op_mask = 3,
                  .iters = 1000,
                  .warmup = 100,
                  .format = "table",
                  .window_slack = BENCH_WINDOW_SLACK_US};
    o->sizes[0] = 8;
    o->nsizes = 1;
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        char *end = NULL;
        switch (c) {
        case 'o':
            o->op_mask = 0;
            if (parse_list(optarg, one_op, o)) return -1;
            break;
        case 's':
            o->nsizes = 0;
            if (parse_list(optarg, one_size, o)) return -1;
            break;
        case 'i':
            o->iters = (int)strtol(optarg, &end, 10);
            break;
        case 'w':
            o->warmup = (int)strtol(optarg, &end, 10);
            break;
        case 'r':
            o->root = (int)strtol(optarg, &end, 10);
            break;
        case 'a':
            return fprintf(stderr, "arbor-mpi-bench: --algorithm is arbor's; MPI picks its own\n"),
                   -1;
        case 'f':
            o->format = optarg;
            break;
        case 'D':
            details = 1;
            break;
        case 'c':
            o->cold = 1;
            break;
        case 't':
            if ((o->timing = find_name(bench_timing_names, BENCH_NTIMINGS, optarg)) < 0)
                return fprintf(stderr,
                               "arbor-mpi-bench: --timing takes auto, span, rank or window\n"),
                       -1;
            break;
        case 'l':
            o->window_slack = strtod(optarg, &end);
            if (*end || !(o->window_slack >= 0))
                return fprintf(stderr, "arbor-mpi-bench: --window-slack takes microseconds >= 0 "
                                       "(inf: only a late T makes an iteration invalid)\n"),
                       -1;
            end = NULL;
            break;
        case 'd':
            if ((o->dtype_idx = find_name(dtype_names, 4, optarg)) < 0)
                return fprintf(stderr,
                               "arbor-mpi-bench: --dtype takes int32, int64, float, double\n"),
                       -1;
            break;
        case 'p':
            if ((o->rop_idx = find_name(rop_names, 7, optarg)) < 0)
                return fprintf(stderr, "arbor-mpi-bench: unknown --reduce-op '%s'\n", optarg), -1;
            break;
        case 'h':
            usage(stdout);
            exit(0);
        default:
            usage(stderr);
            return -1;
        }
        if (end && (*end || o->iters < 1 || o->warmup < 0 || o->root < 0))
            return fprintf(stderr, "arbor-mpi-bench: bad number '%s'\n", optarg), -1;
    }
    if (optind < argc)
        return fprintf(stderr, "arbor-mpi-bench: unexpected '%s'\n", argv[optind]), -1;
    if (strcmp(o->format, "table") && strcmp(o->format, "csv") && strcmp(o->format, "json"))
        return fprintf(stderr, "arbor-mpi-bench: --format takes table, csv or json\n"), -1;
    /* The table's every column (spread, timing, scheduler profile) behind --details. */
    if (details && !strcmp(o->format, "table")) o->format = "details";
    return 0;
}

static int timing;           /* BENCH_TIMING_SPAN, _RANK or _WINDOW: what --timing resolved to */
static int window_yield;     /* the wait for T yields (more ranks than CPUs) */
static double window_margin; /* rank 0's margin for T, us */

/* One timed loop's record on this rank: per iteration the start and end of the call, T and the
 * window code (window timing), and the scheduler's account around the loop. */
typedef struct {
    double *t0, *t1, *tw, *code, *late;
    bench_sched_t before, after;
} loop_rec_t;

static int bcast2(double two[2])
{
    return MPI_Bcast(two, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

/* Reduces this rank's times to the row on rank 0; with @p driver_only (one-sided ops) the row
 * is rank 0's, the targets only waiting in barriers. */
static int summarize(const opts_t *o, const loop_rec_t *rec, int ok, int driver_only, double v[5],
                     bench_extra_t *x, int *allok)
{
    int n = o->iters, win = timing == BENCH_TIMING_WINDOW && !driver_only;
    int per_rank = timing == BENCH_TIMING_RANK || driver_only;
    double mine[3] = {0, 0, 0}, *all = malloc(sizeof(double) * 3 * (size_t)size);
    double *own = malloc(sizeof(double) * (size_t)n), *first = malloc(sizeof(double) * (size_t)n);
    double *mx = malloc(sizeof(double) * 2 * (size_t)n),
           *mxr = malloc(sizeof(double) * 2 * (size_t)n);
    double *d = malloc(sizeof(double) * 2 * (size_t)size),
           *tmp = malloc(sizeof(double) * (size_t)n);
    int *oks = malloc(sizeof(int) * (size_t)size);
    if (!all || !own || !first || !mx || !mxr || !d || !tmp || !oks) return -1;
    for (int i = 0; i < n; i++) own[i] = rec->t1[i] - rec->t0[i], mine[0] += own[i] / n;
    bench_sched_delta(&rec->before, &rec->after, n, mine + 1);
    MPI_Allgather(mine, 3, MPI_DOUBLE, all, 3, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Allgather(&ok, 1, MPI_INT, oks, 1, MPI_INT, MPI_COMM_WORLD);
    if (per_rank) {
        MPI_Allreduce(own, mxr, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    } else {
        /* first start, last end and the worst window code over ranks: the iteration as a whole */
        for (int i = 0; i < n; i++) mx[i] = rec->t1[i], mx[n + i] = win ? rec->code[i] : 0;
        MPI_Allreduce(rec->t0, first, n, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(mx, mxr, 2 * n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    v[0] = 0, v[1] = v[2] = all[0];
    *allok = 1;
    for (int r = 0; r < size; r++) {
        double m = all[3 * r];
        v[0] += m / size;
        v[1] = m < v[1] ? m : v[1];
        v[2] = m > v[2] ? m : v[2];
        *allok &= oks[r];
        d[2 * r] = all[3 * r + 1], d[2 * r + 1] = all[3 * r + 2];
    }
    if (driver_only) v[0] = v[1] = v[2] = all[0];
    bench_sched_columns(d, size, x);
    x->margin_us = win ? window_margin : NAN;
    int fell = bench_iteration_stats(per_rank ? BENCH_TIMING_RANK
                                     : win    ? BENCH_TIMING_WINDOW
                                              : BENCH_TIMING_SPAN,
                                     first, mxr, mxr + n, rec->tw, mxr, n, tmp, v, x);
    if (driver_only) x->timing = "driver";
    if (fell && rank == 0)

        bench_report_fallback("arbor-mpi-bench", mxr + n, n, x->invalid, window_margin,
                              o->window_slack);
    free(all);
    free(own);
    free(first);
    free(mx);
    free(mxr);
    free(d);
    free(tmp);
    free(oks);
    return 0;
}

/* What --timing resolves to (bench_timing_decide), from every rank's clock and CPUs. */
static int choose_timing(const opts_t *o)
{
    unsigned long long id = bench_clock_id(), lo = 0, hi = 0;
    unsigned long long mask[BENCH_CPU_WORDS], all[BENCH_CPU_WORDS];
    bench_cpu_mask(mask);
    MPI_Allreduce(&id, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&id, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(mask, all, BENCH_CPU_WORDS, MPI_UNSIGNED_LONG_LONG, MPI_BOR, MPI_COMM_WORLD);
    window_yield = size > bench_cpu_count(all);
    return bench_timing_decide(o->timing, lo == hi, window_yield, rank, "arbor-mpi-bench");
}

/* The window's set-up: a first margin from BENCH_WINDOW_PROBES
 * rounds of barrier and broadcast of T (the warm-up of every row refines it). */
static int window_setup(void)
{
    double late[BENCH_WINDOW_PROBES], worst[BENCH_WINDOW_PROBES];
    for (int i = 0; i < BENCH_WINDOW_PROBES; i++) {
        double t, started;
        int code;
        if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS ||
            bench_window_sync(rank, 0, 0, 0, bcast2, &t, &started, &late[i], &code))
            return -1;
    }
    MPI_Allreduce(late, worst, BENCH_WINDOW_PROBES, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    window_margin = bench_window_margin(worst, BENCH_WINDOW_PROBES);
    return 0;
}

/* Between the warm-up and the timed loop: the margin from the warm-up's latenesses of T (the
 * last rank's, per iteration), the scheduler's account. */
static int loop_begin(loop_rec_t *rec, int warmup)
{
    if (timing == BENCH_TIMING_WINDOW && warmup >= BENCH_WINDOW_MIN_SAMPLES) {
        double *worst = malloc(sizeof(double) * (size_t)warmup);
        if (!worst) return MPI_ERR_NO_MEM;
        int st = MPI_Allreduce(rec->late, worst, warmup, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (st == MPI_SUCCESS) window_margin = bench_window_margin(worst, warmup);
        free(worst);
        if (st != MPI_SUCCESS) return st;
    }
    bench_sched_read(&rec->before);
    return MPI_SUCCESS;
}

/* The start of iteration @p it after its barrier: now, or (window timing) T. */
static int iteration_start(const opts_t *o, loop_rec_t *rec, int it, double *start)
{
    int timed = it >= o->warmup, i = it - o->warmup, st, code;
    double t, late;
    if (timing != BENCH_TIMING_WINDOW) {
        *start = now_us();
        return MPI_SUCCESS;
    }
    if ((st = bench_window_sync(rank, window_margin, window_yield, o->window_slack, bcast2, &t,
                                start, &late, &code)))
        return st;
    if (!timed)
        rec->late[it] = late;
    else
        rec->tw[i] = t, rec->code[i] = code;
    return MPI_SUCCESS;
}

static void transport_name(char *buf, size_t len)
{
    const char *fl = getenv("ARBOR_MPI_FLAVOUR");
    if (fl && *fl) {
        snprintf(buf, len, "mpi:%s", fl);
        return;
    }
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    MPI_Get_library_version(ver, &n);
    if (!strncmp(ver, "Open MPI", 8))
        snprintf(buf, len, "mpi:ompi");
    else if (strstr(ver, "MPICH"))
        snprintf(buf, len, "mpi:mpich");
    else
        snprintf(buf, len, "mpi");
}

/* One row of a one-sided op: rank 0 drives, the others are targets (bench/mpi_rma.c). */
static int run_rma(const opts_t *o, int op, size_t bytes, loop_rec_t *rec, const char *tp,
                   int *first)
{
    mpi_rma_point_t pt;
    if (mpi_rma_setup(&pt, op, bytes, rank, size)) {
        fprintf(stderr, "arbor-mpi-bench: rank %d: %s of %zu bytes: no window\n", rank,
                mpi_rma_names[op], bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    int total = o->warmup + o->iters, st = MPI_SUCCESS;
    for (int it = 0; it < total && st == MPI_SUCCESS; it++) {
        mpi_rma_fill(&pt, it, it == total - 1);
        if (it == o->warmup) bench_sched_read(&rec->before);
        if ((st = MPI_Barrier(MPI_COMM_WORLD)) != MPI_SUCCESS) break;
        double t0 = now_us();
        st = mpi_rma_run(&pt, it);
        double dt = rank == 0 ? (now_us() - t0) / pt.reps : 0;
        if (it >= o->warmup) rec->t0[it - o->warmup] = 0, rec->t1[it - o->warmup] = dt;
    }
    bench_sched_read(&rec->after);
    if (st != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(st, msg, &len);
        fprintf(stderr, "arbor-mpi-bench: rank %d: %s of %zu bytes: %s\n", rank, mpi_rma_names[op],
                pt.bytes, msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    int ok = mpi_rma_check(&pt, total), allok = 0, rc = 0;
    double v[5];
    bench_extra_t x;
    if (summarize(o, rec, ok, 1, v, &x, &allok)) rc = 1;
    if (rank == 0 && !rc)
        bench_print_row(o->format, mpi_rma_names[op], pt.bytes, size, "mpi", tp, v, allok, &x,
                        *first);
    *first = 0;
    mpi_rma_teardown(&pt);
    return rc || !allok;
}

static void free_rec(loop_rec_t *rec)
{
    free(rec->t0);
    free(rec->t1);
    free(rec->tw);
    free(rec->code);
    free(rec->late);
}

int main(int argc, char **argv)
{
    opts_t o;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse_args(argc, argv, &o)) {
        MPI_Finalize();
        return 2;
    }
    if (o.root >= size) {
        if (rank == 0)
            fprintf(stderr, "arbor-mpi-bench: --root %d but only %d ranks\n", o.root, size);
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char tp[64];
    transport_name(tp, sizeof(tp));
    size_t n = (size_t)o.iters, nw = (size_t)o.warmup + 1;
    loop_rec_t rec = {.t0 = malloc(sizeof(double) * n),
                      .t1 = malloc(sizeof(double) * n),
                      .tw = malloc(sizeof(double) * n),
                      .code = malloc(sizeof(double) * n),
                      .late = malloc(sizeof(double) * nw)};
    if (!rec.t0 || !rec.t1 || !rec.tw || !rec.code || !rec.late) {
        fprintf(stderr, "arbor-mpi-bench: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    if ((timing = choose_timing(&o)) < 0) {
        free_rec(&rec);
        MPI_Finalize();
        return 2;
    }
    if (timing == BENCH_TIMING_WINDOW && window_setup()) {
        fprintf(stderr, "arbor-mpi-bench: rank %d: the window's set-up failed\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    int first = 1, rc = 0, st = MPI_SUCCESS;

    for (int op = 0; op < NOPS && rc == 0; op++) {
        if (!(o.op_mask & (1u << op))) continue;
        for (int s = 0; s < o.nsizes && rc == 0; s++) {
            point_t pt;
            if (setup(&pt, op, o.sizes[s], &o)) {
                rc = 1;
                break;
            }
            if (op == BARRIER && s > 0) {
                teardown(&pt);
                break;
            }
            int total = o.warmup + o.iters, ok = 1;
            for (int it = 0; it < total && st == MPI_SUCCESS; it++) {
                int last = it == total - 1;
                fill(&pt, it, last);
                if (it == o.warmup && (st = loop_begin(&rec, o.warmup)) != MPI_SUCCESS) break;
                if ((st = MPI_Barrier(MPI_COMM_WORLD)) != MPI_SUCCESS) break;
                double start;
                if ((st = iteration_start(&o, &rec, it, &start)) != MPI_SUCCESS) break;
                st = run(&pt, it);
                double end = now_us();
                if (it >= o.warmup) rec.t0[it - o.warmup] = start, rec.t1[it - o.warmup] = end;
                if (last && st == MPI_SUCCESS) ok = check(&pt, it);
            }
            bench_sched_read(&rec.after);
            if (st != MPI_SUCCESS) {
                char msg[MPI_MAX_ERROR_STRING];
                int len = 0;
                MPI_Error_string(st, msg, &len);
                fprintf(stderr, "arbor-mpi-bench: rank %d: %s of %zu bytes: %s\n", rank,
                        op_names[op], pt.bytes, msg);
                teardown(&pt);
                free_rec(&rec);
                MPI_Abort(MPI_COMM_WORLD, 1);
                return 1;
            }
            double v[5];
            bench_extra_t x;
            int allok = 0;
            if (summarize(&o, &rec, ok, 0, v, &x, &allok)) rc = 1;
            if (rank == 0 && !rc)
                bench_print_row(o.format, op_names[op], pt.bytes, size, "mpi", tp, v, allok, &x,
                                first);
            first = 0;
            if (!allok) rc = 1;
            teardown(&pt);
        }
    }
    for (int op = 0; op < mpi_rma_nops && rc == 0; op++) {
        if (!(o.op_mask & (1u << (NOPS + op)))) continue;
        for (int s = 0; s < o.nsizes && rc == 0; s++) {
            if (s > 0 && mpi_rma_size_free(op)) break;
            rc = run_rma(&o, op, o.sizes[s], &rec, tp, &first);
        }
    }
    if (rank == 0 && !strcmp(o.format, "json") && !first) printf("\n]\n");
    fflush(stdout);
    free_rec(&rec);
    MPI_Finalize();
    return rc;
}
