/*
 * arbor-bench: OSU-style latency of arbor's collectives, run under a PMIx launcher:
 *   mpirun -n 4 build/bin/arbor-bench --op bcast --sizes 8,65536 --iters 1000 --format csv
 * Each iteration is timed on every rank after a barrier; a row reports the mean over ranks of
 * each rank's mean call time (avg_us), the smallest and largest per-rank mean, the median and
 * 99th percentile of the iteration's time, and whether the data of the last iteration was right
 * (check). With --timing window (auto's choice where every rank reads one clock and has a CPU
 * of its own) every rank starts at one moment T broadcast by rank 0 and an iteration's time is
 * the last rank's end minus T (bench/bench_timing.h); with span (auto's where ranks share CPUs)
 * the last rank's end minus the first rank's start (one clock: bench/clock_id.h says why); with
 * rank (auto's across clocks) the slowest rank's own call time. The columns after p99_us
 * say which timing a row got, the fraction of window iterations that started late (invalid), the
 * window's margin, and the scheduler's profile of the timed loop: runqueue wait per iteration
 * summed over ranks (runq_us) and the largest rank's (runq_max_us), and involuntary context
 * switches per iteration summed over ranks (nivcsw). Sizes are bytes per rank block for scatter /
 * gather / allgather / alltoall (and their v-variants, with equal counts) and reduce_scatter, and
 * the whole vector for bcast and the other reductions. --cold rotates through buffers larger than
 * the last-level cache so that small messages are not measured warm. The one-sided ops (--op
 * put,get,acc,fetch_add,cswap,strided_get,strided_put,vector_get, or onesided for all of them) are
 * driven by rank 0 against the other ranks in turn (bench/rma_ops.c); their rows report rank 0's
 * times. --symmetric takes the collectives' buffers from the symmetric heap and flags bcast,
 * scatter, gather, allgather, alltoall, reduce, allreduce and reduce_scatter ARBOR_SYMMETRIC
 * (bench_ops.h); their algorithm column then ends in "+1copy" where the model chose one copy
 * ("+cma" where that one copy goes through cross-memory attach, on malloc'd buffers).
 * --registered makes the one-sided ops' targets malloc'd windows registered with
 * arbor_mem_register instead of symmetric allocations (algorithm column "rma+reg").
 */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arbor.h"
#include "bench/bench_ops.h"
#include "bench/bench_timing.h"
#include "bench/clock_id.h"
#include "bench/rma_ops.h"

typedef struct {
    uint32_t op_mask;
    size_t sizes[64];
    int nsizes;
    int iters, warmup, root;
    const char *algorithm;
    const char *format;
    int dtype_idx, rop_idx;
    int cold;
    int timing;          /* BENCH_TIMING_* (bench_timing.h) */
    double window_slack; /* us after T a rank may start and count as on time */
} opts_t;

static int rank, size;
static int timing;           /* BENCH_TIMING_SPAN, _RANK or _WINDOW: what --timing resolved to */
static int window_yield;     /* the wait for T yields (more ranks than CPUs) */
static double window_margin; /* rank 0's margin for T, us */

static double now_us(void)
{
    return bench_now_us();
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: arbor-bench [--op LIST|all] [--sizes 8,64K,1M] [--iters N] [--warmup N]\n"
            "                   [--root R] [--algorithm NAME] [--dtype int32|int64|float|double]\n"
            "                   [--reduce-op sum|prod|min|max|band|bor|bxor] [--cold]\n"
            "                   [--symmetric] [--registered] [--timing auto|span|rank|window]\n"
            "                   [--window-slack US]\n"
            "                   [--format table|csv|json] [--details]\nops:");
    for (int i = 0; i < bench_nops; i++) fprintf(f, " %s", bench_ops[i].name);
    fprintf(f, "\none-sided ops (onesided: all of them):");
    for (int i = 0; i < bench_rma_nops; i++) fprintf(f, " %s", bench_rma_names[i]);
    fprintf(f, "\n");
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

static int one_size(const char *tok, opts_t *o)
{
    char *end;
    double v = strtod(tok, &end);
    if (*end == 'k' || *end == 'K')
        v *= 1024, end++;
    else if (*end == 'm' || *end == 'M')
        v *= 1024 * 1024, end++;
    if (*end || v < 0 || v > 1e10 || o->nsizes == 64) {
        fprintf(stderr, "arbor-bench: bad size '%s'\n", tok);
        return -1;
    }
    o->sizes[o->nsizes++] = (size_t)v;
    return 0;
}

static int one_op(const char *tok, opts_t *o)
{
    for (int i = 0; i < bench_nops; i++) {
        if (!strcmp(tok, "all") || !strcmp(tok, bench_ops[i].name)) {
            o->op_mask |= 1u << i;
            if (strcmp(tok, "all")) return 0;
        }
    }
    int found = 0;
    for (int i = 0; i < bench_rma_nops; i++)
        if (!strcmp(tok, "onesided") || !strcmp(tok, bench_rma_names[i]))
            o->op_mask |= 1u << (bench_nops + i), found = 1;
    if (!strcmp(tok, "all") || found) return 0;
    fprintf(stderr, "arbor-bench: unknown op '%s'\n", tok);
    return -1;
}

static int find_name(const char *const *names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], s)) return i;
    return -1;
}

static int parse_args(int argc, char **argv, opts_t *o)
{
    static const struct option lo[] = {
        {"op", 1, 0, 'o'},         {"sizes", 1, 0, 's'},  {"iters", 1, 0, 'i'},
        {"warmup", 1, 0, 'w'},     {"root", 1, 0, 'r'},   {"algorithm", 1, 0, 'a'},
        {"format", 1, 0, 'f'},     {"dtype", 1, 0, 'd'},  {"reduce-op", 1, 0, 'p'},
        {"cold", 0, 0, 'c'},       {"help", 0, 0, 'h'},   {"symmetric", 0, 0, 'y'},
        {"registered", 0, 0, 'g'}, {"timing", 1, 0, 't'}, {"window-slack", 1, 0, 'l'},
        {"details", 0, 0, 'D'},    {0, 0, 0, 0}};
    int c, details = 0;
    *o = (opts_t){.op_mask = 3,
                  .iters = 1000,
                  .warmup = 100,
                  .format = "table",
                  .window_slack = BENCH_WINDOW_SLACK_US};
    o->sizes[0] = 8;
    o->nsizes = 1;
    o->dtype_idx = find_name(bench_dtype_names, bench_ndtypes, "int32");
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
            o->algorithm = optarg;
            break;
        case 'f':
            o->format = optarg;
            break;
        case 'D':
            details = 1;
            break;
        case 'c':
            o->cold = 1;
            break;
        case 'y':
            bench_symmetric = 1;
            break;
        case 'g':
            bench_rma_registered = 1;
            break;
        case 't':
            if ((o->timing = find_name(bench_timing_names, BENCH_NTIMINGS, optarg)) < 0)
                return fprintf(stderr, "arbor-bench: --timing takes auto, span, rank or window\n"),
                       -1;
            break;
        case 'l':
            o->window_slack = strtod(optarg, &end);
            if (*end || !(o->window_slack >= 0))
                return fprintf(stderr, "arbor-bench: --window-slack takes microseconds >= 0 "
                                       "(inf: only a late T makes an iteration invalid)\n"),
                       -1;
            end = NULL;
            break;
        case 'd':
            if ((o->dtype_idx = find_name(bench_dtype_names, bench_ndtypes, optarg)) < 0)
                return fprintf(stderr, "arbor-bench: --dtype takes int32, int64, float, double\n"),
                       -1;
            break;
        case 'p':
            if ((o->rop_idx = find_name(bench_rop_names, bench_nrops, optarg)) < 0)
                return fprintf(stderr, "arbor-bench: unknown --reduce-op '%s'\n", optarg), -1;
            break;
        case 'h':
            usage(stdout);
            exit(0);
        default:
            usage(stderr);
            return -1;
        }
        if (end && (*end || o->iters < 1 || o->warmup < 0 || o->root < 0))
            return fprintf(stderr, "arbor-bench: bad number '%s'\n", optarg), -1;
    }
    if (optind < argc) return fprintf(stderr, "arbor-bench: unexpected '%s'\n", argv[optind]), -1;
    if (bench_symmetric && o->cold)
        return fprintf(stderr, "arbor-bench: --symmetric takes no --cold (one buffer pair)\n"), -1;
    if (strcmp(o->format, "table") && strcmp(o->format, "csv") && strcmp(o->format, "json"))
        return fprintf(stderr, "arbor-bench: --format takes table, csv or json\n"), -1;
    /* The table's every column (spread, timing, scheduler profile) behind --details. */
    if (details && !strcmp(o->format, "table")) o->format = "details";
    return 0;
}

/* Forces --algorithm for the ops whose table has it, before init reads the environment. */
static int force_algorithm(const opts_t *o)
{
    int used = 0;
    for (int i = 0; o->algorithm && i < bench_nops; i++) {
        const char *const *names;
        int n;
        if (!(o->op_mask & (1u << i))) continue;
        if (arbor_algorithm_names(bench_ops[i].name, &names, &n) != ARBOR_OK) return -1;
        for (int a = 0; a < n; a++) {
            if (strcmp(names[a], o->algorithm)) continue;
            char var[96];
            snprintf(var, sizeof(var), "ARBOR_%s_ALGORITHM", bench_ops[i].env);
            setenv(var, o->algorithm, 1);
            used = 1;
        }
    }
    if (o->algorithm && !used) {
        fprintf(stderr, "arbor-bench: no selected op has an algorithm named '%s'\n", o->algorithm);
        return -1;
    }
    return 0;
}

/* One timed loop's record on this rank: per iteration the start and end of the call, T and the
 * window code (window timing), and the scheduler's account around the loop. */
typedef struct {
    double *t0, *t1, *tw, *code, *late;
    bench_sched_t before, after;
} loop_rec_t;

typedef struct {
    double mean, sched[2];
    int ok;
} rank_result_t;

static int bcast2(double two[2])
{
    return arbor_bcast(ARBOR_TEAM_WORLD, two, 2 * sizeof(double), 0);
}

/* Reduces this rank's times to the row on rank 0 (with arbor's own collectives). With
 * @p driver_only (one-sided ops) the row is rank 0's: the targets only wait in barriers. */
static int summarize(const opts_t *o, const loop_rec_t *rec, int ok, int driver_only, double v[5],
                     bench_extra_t *x, int *allok)
{
    rank_result_t mine = {0, {0, 0}, ok}, *all = malloc(sizeof(*all) * (size_t)size);
    int n = o->iters, win = timing == BENCH_TIMING_WINDOW && !driver_only;
    int per_rank = timing == BENCH_TIMING_RANK || driver_only;
    double *own = malloc(sizeof(double) * (size_t)n), *first = malloc(sizeof(double) * (size_t)n);
    double *mx = malloc(sizeof(double) * 2 * (size_t)n),
           *d = malloc(sizeof(double) * 2 * (size_t)size);
    double *tmp = malloc(sizeof(double) * (size_t)n);
    int rc = 0;
    if (!all || !own || !first || !mx || !d || !tmp) rc = -1;
    for (int i = 0; !rc && i < n; i++) own[i] = rec->t1[i] - rec->t0[i], mine.mean += own[i] / n;
    bench_sched_delta(&rec->before, &rec->after, n, mine.sched);
    if (!rc && arbor_allgather(ARBOR_TEAM_WORLD, &mine, all, sizeof(mine), ARBOR_BYTE) != ARBOR_OK)
        rc = -1;
    if (!rc && per_rank) {
        if (arbor_allreduce(ARBOR_TEAM_WORLD, own, mx, (size_t)n, ARBOR_DOUBLE, ARBOR_MAX) !=
            ARBOR_OK)
            rc = -1;
    } else if (!rc) {
        /* first start, last end and the worst window code over ranks: the iteration as a whole */
        for (int i = 0; i < n; i++) mx[i] = rec->t1[i], mx[n + i] = win ? rec->code[i] : 0;
        if (arbor_allreduce(ARBOR_TEAM_WORLD, rec->t0, first, (size_t)n, ARBOR_DOUBLE, ARBOR_MIN) !=
                ARBOR_OK ||
            arbor_allreduce(ARBOR_TEAM_WORLD, ARBOR_IN_PLACE, mx, 2 * (size_t)n, ARBOR_DOUBLE,
                            ARBOR_MAX) != ARBOR_OK)
            rc = -1;
    }
    if (!rc) {
        v[0] = 0, v[1] = v[2] = all[0].mean;
        *allok = 1;
        for (int r = 0; r < size; r++) {
            v[0] += all[r].mean / size;
            v[1] = fmin(v[1], all[r].mean);
            v[2] = fmax(v[2], all[r].mean);
            *allok &= all[r].ok;
            d[2 * r] = all[r].sched[0], d[2 * r + 1] = all[r].sched[1];
        }
        if (driver_only) v[0] = v[1] = v[2] = all[0].mean;
        bench_sched_columns(d, size, x);
        x->margin_us = win ? window_margin : NAN;
        int fell = bench_iteration_stats(per_rank ? BENCH_TIMING_RANK
                                         : win    ? BENCH_TIMING_WINDOW
                                                  : BENCH_TIMING_SPAN,
                                         first, mx, mx + n, rec->tw, mx, n, tmp, v, x);
        if (driver_only) x->timing = "driver";
        if (fell && rank == 0)

            bench_report_fallback("arbor-bench", mx + n, n, x->invalid, window_margin,
                                  o->window_slack);
    }
    free(all);
    free(own);
    free(first);
    free(mx);
    free(d);
    free(tmp);
    return rc;
}

/* What --timing resolves to (bench_timing_decide), from every rank's clock and CPUs. */
static int choose_timing(const opts_t *o)
{
    uint64_t id = bench_clock_id(), lo = 0, hi = 0;
    unsigned long long mask[BENCH_CPU_WORDS], all[BENCH_CPU_WORDS];
    bench_cpu_mask(mask);
    if (arbor_allreduce(ARBOR_TEAM_WORLD, &id, &lo, 1, ARBOR_UINT64, ARBOR_MIN) != ARBOR_OK ||
        arbor_allreduce(ARBOR_TEAM_WORLD, &id, &hi, 1, ARBOR_UINT64, ARBOR_MAX) != ARBOR_OK ||
        arbor_allreduce(ARBOR_TEAM_WORLD, mask, all, BENCH_CPU_WORDS, ARBOR_UINT64, ARBOR_BOR) !=
            ARBOR_OK)
        return -1;
    window_yield = size > bench_cpu_count(all);
    return bench_timing_decide(o->timing, lo == hi, window_yield, rank, "arbor-bench");
}

/* The window's set-up: a first margin from BENCH_WINDOW_PROBES
 * rounds of barrier and broadcast of T (the warm-up of every row refines it). */
static int window_setup(void)
{
    double late[BENCH_WINDOW_PROBES], worst[BENCH_WINDOW_PROBES];
    window_margin = BENCH_WINDOW_FLOOR_US;
    for (int i = 0; i < BENCH_WINDOW_PROBES; i++) {
        double t, started;
        int code;
        if (arbor_barrier(ARBOR_TEAM_WORLD) != ARBOR_OK ||
            bench_window_sync(rank, 0, 0, 0, bcast2, &t, &started, &late[i], &code))
            return -1;
    }
    if (arbor_allreduce(ARBOR_TEAM_WORLD, late, worst, BENCH_WINDOW_PROBES, ARBOR_DOUBLE,
                        ARBOR_MAX) != ARBOR_OK)
        return -1;
    window_margin = bench_window_margin(worst, BENCH_WINDOW_PROBES);
    return 0;
}

/* After a row's warm-up: the margin from its latenesses of T (the last rank's, per iteration). */
static arbor_status_t window_adapt(const double *late, int n)
{
    if (n < BENCH_WINDOW_MIN_SAMPLES) return ARBOR_OK;
    double *worst = malloc(sizeof(double) * (size_t)n);
    if (!worst) return ARBOR_ERR_NO_MEMORY;
    arbor_status_t st =
        arbor_allreduce(ARBOR_TEAM_WORLD, late, worst, (size_t)n, ARBOR_DOUBLE, ARBOR_MAX);
    if (st == ARBOR_OK) window_margin = bench_window_margin(worst, n);
    free(worst);
    return st;
}

/*
 * The start of iteration @p it of a loop with @p warmup warm-up iterations, after its barrier:
 * now, or (window timing) T. The end of the warm-up sets the margin and reads the scheduler.
 */
static arbor_status_t iteration_start(const opts_t *o, loop_rec_t *rec, int it, double *start)
{
    arbor_status_t st = ARBOR_OK;
    int timed = it >= o->warmup, i = it - o->warmup;
    if (timing != BENCH_TIMING_WINDOW) {
        *start = now_us();
        return ARBOR_OK;
    }
    double t, late;
    int code;
    if ((st = bench_window_sync(rank, window_margin, window_yield, o->window_slack, bcast2, &t,
                                start, &late, &code)))
        return st;
    if (!timed)
        rec->late[it] = late;
    else
        rec->tw[i] = t, rec->code[i] = code;
    return ARBOR_OK;
}

/* Between the warm-up and the timed loop: the margin, the scheduler's account. */
static arbor_status_t loop_begin(loop_rec_t *rec, int warmup)
{
    arbor_status_t st = ARBOR_OK;
    if (timing == BENCH_TIMING_WINDOW) st = window_adapt(rec->late, warmup);
    bench_sched_read(&rec->before);
    return st;
}

/* One row of a one-sided op: rank 0 drives, the others serve (bench/rma_ops.c). */
static int run_rma(const opts_t *o, int op, size_t bytes, loop_rec_t *rec, const char *tp,
                   int *first)
{
    bench_rma_point_t pt;
    if (bench_rma_setup(&pt, op, bytes, rank, size)) {
        fprintf(stderr, "arbor-bench: rank %d: %s of %zu bytes: no window\n", rank,
                bench_rma_names[op], bytes);
        bench_rma_teardown(&pt);
        return 1;
    }
    int total = o->warmup + o->iters;
    arbor_status_t st = ARBOR_OK, bst = ARBOR_OK;
    /* A failed operation stops the driver's calls but not the barriers, so that the targets
     * learn of it below instead of waiting for ARBOR_TIMEOUT. */
    for (int it = 0; it < total && bst == ARBOR_OK; it++) {
        bench_rma_fill(&pt, it, it == total - 1);
        if (it == o->warmup) bench_sched_read(&rec->before);
        if ((bst = arbor_barrier(ARBOR_TEAM_WORLD)) != ARBOR_OK) break;
        double start = now_us();
        if (st == ARBOR_OK) st = bench_rma_run(&pt, it);
        double dt = rank == 0 ? (now_us() - start) / pt.reps : 0;
        if (it >= o->warmup) rec->t0[it - o->warmup] = 0, rec->t1[it - o->warmup] = dt;
    }
    bench_sched_read(&rec->after);
    int failed = st != ARBOR_OK || bst != ARBOR_OK, any = failed;
    if (bst == ARBOR_OK) arbor_allreduce(ARBOR_TEAM_WORLD, &failed, &any, 1, ARBOR_INT, ARBOR_MAX);
    if (any) {
        if (failed)
            fprintf(stderr, "arbor-bench: rank %d: %s of %zu bytes: %s\n", rank,
                    bench_rma_names[op], pt.bytes, arbor_strerror(st != ARBOR_OK ? st : bst));
        bench_rma_teardown(&pt);
        return 1;
    }
    int ok = bench_rma_check(&pt, total), allok = 0, rc = 0;
    double v[5];
    bench_extra_t x;
    if (summarize(o, rec, ok, 1, v, &x, &allok)) rc = 1;
    if (rank == 0 && !rc)
        bench_print_row(o->format, bench_rma_names[op], pt.bytes, size,
                        bench_rma_registered ? "rma+reg" : "rma", tp, v, allok, &x, *first);
    *first = 0;
    bench_rma_teardown(&pt);
    return rc || !allok;
}

int main(int argc, char **argv)
{
    opts_t o;
    if (parse_args(argc, argv, &o) || force_algorithm(&o)) return 2;
    arbor_status_t st = arbor_init();
    if (st != ARBOR_OK) {
        fprintf(stderr, "arbor-bench: arbor_init: %s\n", arbor_strerror(st));
        return 1;
    }
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    if (o.root >= size) {
        if (rank == 0) fprintf(stderr, "arbor-bench: --root %d but only %d ranks\n", o.root, size);
        arbor_finalize();
        return 2;
    }
    const char *tp;
    arbor_transport_name(&tp);
    size_t n = (size_t)o.iters, nw = (size_t)o.warmup + 1;
    loop_rec_t rec = {.t0 = malloc(sizeof(double) * n),
                      .t1 = malloc(sizeof(double) * n),
                      .tw = malloc(sizeof(double) * n),
                      .code = malloc(sizeof(double) * n),
                      .late = malloc(sizeof(double) * nw)};
    int first = 1, rc = !rec.t0 || !rec.t1 || !rec.tw || !rec.code || !rec.late;
    if (!rc && (timing = choose_timing(&o)) < 0) rc = 2;
    if (!rc && timing == BENCH_TIMING_WINDOW && window_setup()) rc = 1;

    for (int op = 0; op < bench_nops && rc == 0; op++) {
        if (!(o.op_mask & (1u << op))) continue;
        for (int s = 0; s < o.nsizes && rc == 0; s++) {
            bench_point_t pt;
            if (bench_setup(&pt, &bench_ops[op], o.sizes[s], o.dtype_idx, o.rop_idx, o.root, rank,
                            size, o.cold)) {
                rc = 1;
                break;
            }
            if (bench_ops[op].coll == BENCH_BARRIER && s > 0) {
                bench_teardown(&pt);
                break;
            }
            int total = o.warmup + o.iters, ok = 1;
            for (int it = 0; it < total && st == ARBOR_OK; it++) {
                int last = it == total - 1;
                bench_fill(&pt, it, last);
                if (it == o.warmup && (st = loop_begin(&rec, o.warmup)) != ARBOR_OK) break;
                if ((st = arbor_barrier(ARBOR_TEAM_WORLD)) != ARBOR_OK) break;
                double start;
                if ((st = iteration_start(&o, &rec, it, &start)) != ARBOR_OK) break;
                st = bench_run(&pt, it);
                double end = now_us();
                if (it >= o.warmup) rec.t0[it - o.warmup] = start, rec.t1[it - o.warmup] = end;
                if (last && st == ARBOR_OK) ok = bench_check(&pt, it);
            }
            bench_sched_read(&rec.after);
            if (st != ARBOR_OK) {
                fprintf(stderr, "arbor-bench: rank %d: %s of %zu bytes: %s\n", rank,
                        bench_ops[op].name, pt.bytes, arbor_strerror(st));
                rc = 1;
                bench_teardown(&pt);
                break;
            }
            /* Asked before summarize, whose own collectives would be the last ones then. */
            arbor_coll_info_t info;
            const char *alg = "?";
            char alg_buf[64];
            if (arbor_team_last_collective(ARBOR_TEAM_WORLD, &info) == ARBOR_OK &&
                !strcmp(info.collective, bench_ops[op].name)) {
                alg = info.algorithm;
                if (info.one_copy) {
                    snprintf(alg_buf, sizeof(alg_buf), "%s+%s", info.algorithm,
                             info.cma ? "cma" : "1copy");
                    alg = alg_buf;
                }
            }
            double v[5];
            bench_extra_t x;
            int allok = 0;
            if (summarize(&o, &rec, ok, 0, v, &x, &allok)) rc = 1;
            if (rank == 0 && !rc)
                bench_print_row(o.format, bench_ops[op].name, pt.bytes, size, alg, tp, v, allok, &x,
                                first);
            first = 0;
            if (!allok) rc = 1;
            bench_teardown(&pt);
        }
    }
    for (int op = 0; op < bench_rma_nops && rc == 0; op++) {
        if (!(o.op_mask & (1u << (bench_nops + op)))) continue;
        for (int s = 0; s < o.nsizes && rc == 0; s++) {
            if (s > 0 && bench_rma_size_free(op)) break;
            rc = run_rma(&o, op, o.sizes[s], &rec, tp, &first);
        }
    }
    if (rank == 0 && !strcmp(o.format, "json") && !first) printf("\n]\n");
    fflush(stdout);
    free(rec.t0);
    free(rec.t1);
    free(rec.tw);
    free(rec.code);
    free(rec.late);
    st = arbor_finalize();
    return rc ? rc : st != ARBOR_OK;
}
