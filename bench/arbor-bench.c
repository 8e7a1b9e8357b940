/*
 * arbor-bench: OSU-style latency of arbor's collectives, run under a PMIx launcher:
 *   mpirun -n 4 build/bin/arbor-bench --op bcast --sizes 8,65536 --iters 1000 --format csv
 * Each iteration is timed on every rank after a barrier; a row reports the mean over ranks of
 * each rank's mean call time (avg_us), the smallest and largest per-rank mean, the median and
 * 99th percentile of the iteration's time, and whether the data of the last iteration was right
 * (check). An iteration's time is the last rank's end minus the first rank's start where every
 * rank reads one clock (one node: bench/clock_id.h says why), else (or with --timing rank) the
 * slowest rank's own call time. Sizes are bytes per rank block for scatter / gather / allgather /
 * alltoall (and their v-variants, with equal counts) and reduce_scatter, and the whole vector
 * for bcast and the other reductions. --cold rotates through buffers larger than the
 * last-level cache so that small messages are not measured warm.
 * The one-sided ops (--op put,get,acc,fetch_add,cswap,strided_get,strided_put,vector_get, or
 * onesided for all of them) are driven by rank 0 against the other ranks in turn (bench/rma_ops.c);
 * their rows report rank 0's times. --symmetric takes the collectives' buffers from the
 * symmetric heap and flags bcast, scatter, gather, allgather, alltoall, reduce, allreduce and
 * reduce_scatter ARBOR_SYMMETRIC (bench_ops.h); their algorithm column then ends in "+1copy" where
 * the model chose one copy ("+cma" where that one copy goes through cross-memory attach, on
 * malloc'd buffers).
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
    int timing; /* 0: auto, 1: span (one clock), 2: per rank */
} opts_t;

static int rank, size;
static int span_timing; /* iterations timed first start to last end (one clock) */

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: arbor-bench [--op LIST|all] [--sizes 8,64K,1M] [--iters N] [--warmup N]\n"
            "                   [--root R] [--algorithm NAME] [--dtype int32|int64|float|double]\n"
            "                   [--reduce-op sum|prod|min|max|band|bor|bxor] [--cold]\n"
            "                   [--symmetric] [--registered] [--timing auto|span|rank]\n"
            "                   [--format table|csv|json]\nops:");
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
        {"registered", 0, 0, 'g'}, {"timing", 1, 0, 't'}, {0, 0, 0, 0}};
    int c;
    *o = (opts_t){.op_mask = 3, .iters = 1000, .warmup = 100, .format = "table"};
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
            if ((o->timing = find_name((const char *const[]){"auto", "span", "rank"}, 3, optarg)) <
                0)
                return fprintf(stderr, "arbor-bench: --timing takes auto, span or rank\n"), -1;
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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void print_row(const opts_t *o, const char *op, size_t bytes, const char *alg,
                      const char *tp, const double *v, int ok, int first)
{
    const char *check = ok ? "ok" : "FAIL";
    if (!strcmp(o->format, "csv")) {
        if (first)
            printf("op,bytes,ranks,algorithm,avg_us,min_us,max_us,check,transport,"
                   "median_us,p99_us\n");
        printf("%s,%zu,%d,%s,%.3f,%.3f,%.3f,%s,%s,%.3f,%.3f\n", op, bytes, size, alg, v[0], v[1],
               v[2], check, tp, v[3], v[4]);
    } else if (!strcmp(o->format, "json")) {
        printf("%s{\"op\":\"%s\",\"bytes\":%zu,\"ranks\":%d,\"algorithm\":\"%s\",\"avg_us\":%.3f,"
               "\"min_us\":%.3f,\"max_us\":%.3f,\"check\":\"%s\",\"transport\":\"%s\","
               "\"median_us\":%.3f,\"p99_us\":%.3f}",
               first ? "[\n  " : ",\n  ", op, bytes, size, alg, v[0], v[1], v[2], check, tp, v[3],
               v[4]);
    } else {
        if (first)
            printf("%-14s %10s %5s %-18s %10s %10s %10s %10s %10s %-5s %s\n", "op", "bytes",
                   "ranks", "algorithm", "avg_us", "min_us", "max_us", "median_us", "p99_us",
                   "check", "transport");
        printf("%-14s %10zu %5d %-18s %10.3f %10.3f %10.3f %10.3f %10.3f %-5s %s\n", op, bytes,
               size, alg, v[0], v[1], v[2], v[3], v[4], check, tp);
    }
}

typedef struct {
    double mean;
    int ok;
} rank_result_t;

/* Reduces this rank's times to the row on rank 0 (with arbor's own collectives): @p t0 and
 * @p t1 hold each iteration's start and end on this rank's clock. With @p driver_only (one-sided
 * ops) the row is rank 0's: the targets only wait in barriers. */
static int summarize(const opts_t *o, const double *t0, const double *t1, int ok, int driver_only,
                     double v[5], int *allok)
{
    rank_result_t mine = {0, ok}, *all = malloc(sizeof(*all) * (size_t)size);
    size_t n = (size_t)o->iters;
    double *own = malloc(sizeof(double) * n), *iter = malloc(sizeof(double) * n);
    double *first = malloc(sizeof(double) * n);
    int rc = 0;
    if (!all || !own || !iter || !first) rc = -1;
    for (size_t i = 0; !rc && i < n; i++) own[i] = t1[i] - t0[i], mine.mean += own[i] / o->iters;
    if (!rc && arbor_allgather(ARBOR_TEAM_WORLD, &mine, all, sizeof(mine), ARBOR_BYTE) != ARBOR_OK)
        rc = -1;
    if (!rc && span_timing && !driver_only) {
        /* first start and last end over ranks: the iteration as a whole */
        if (arbor_allreduce(ARBOR_TEAM_WORLD, t0, first, n, ARBOR_DOUBLE, ARBOR_MIN) != ARBOR_OK ||
            arbor_allreduce(ARBOR_TEAM_WORLD, t1, iter, n, ARBOR_DOUBLE, ARBOR_MAX) != ARBOR_OK)
            rc = -1;
        for (size_t i = 0; !rc && i < n; i++) iter[i] -= first[i];
    } else if (!rc &&
               arbor_allreduce(ARBOR_TEAM_WORLD, own, iter, n, ARBOR_DOUBLE, ARBOR_MAX) != ARBOR_OK)
        rc = -1;
    if (!rc) {
        v[0] = 0, v[1] = v[2] = all[0].mean;
        *allok = 1;
        for (int r = 0; r < size; r++) {
            v[0] += all[r].mean / size;
            v[1] = fmin(v[1], all[r].mean);
            v[2] = fmax(v[2], all[r].mean);
            *allok &= all[r].ok;
        }
        if (driver_only) v[0] = v[1] = v[2] = all[0].mean;
        qsort(iter, n, sizeof(double), cmp_double);
        v[3] = iter[o->iters / 2];
        v[4] = iter[(int)((o->iters - 1) * 0.99)];
    }
    free(all);
    free(own);
    free(iter);
    free(first);
    return rc;
}

/* Whether every rank reads one clock (auto), or what --timing says. */
static int choose_span_timing(const opts_t *o)
{
    if (o->timing) return o->timing == 1;
    uint64_t id = bench_clock_id(), lo = 0, hi = 0;
    if (arbor_allreduce(ARBOR_TEAM_WORLD, &id, &lo, 1, ARBOR_UINT64, ARBOR_MIN) != ARBOR_OK ||
        arbor_allreduce(ARBOR_TEAM_WORLD, &id, &hi, 1, ARBOR_UINT64, ARBOR_MAX) != ARBOR_OK)
        return 0;
    return lo == hi;
}

/* One row of a one-sided op: rank 0 drives, the others serve (bench/rma_ops.c). */
static int run_rma(const opts_t *o, int op, size_t bytes, double *t0, double *t1, const char *tp,
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
        if ((bst = arbor_barrier(ARBOR_TEAM_WORLD)) != ARBOR_OK) break;
        double start = now_us();
        if (st == ARBOR_OK) st = bench_rma_run(&pt, it);
        double dt = rank == 0 ? (now_us() - start) / pt.reps : 0;
        if (it >= o->warmup) t0[it - o->warmup] = 0, t1[it - o->warmup] = dt;
    }
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
    if (summarize(o, t0, t1, ok, 1, v, &allok)) rc = 1;
    if (rank == 0 && !rc)
        print_row(o, bench_rma_names[op], pt.bytes, bench_rma_registered ? "rma+reg" : "rma", tp, v,
                  allok, *first);
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
    double *t0 = malloc(sizeof(double) * (size_t)o.iters);
    double *t1 = malloc(sizeof(double) * (size_t)o.iters);
    int first = 1, rc = !t0 || !t1;
    span_timing = choose_span_timing(&o);

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
                if ((st = arbor_barrier(ARBOR_TEAM_WORLD)) != ARBOR_OK) break;
                double start = now_us();
                st = bench_run(&pt, it);
                double end = now_us();
                if (it >= o.warmup) t0[it - o.warmup] = start, t1[it - o.warmup] = end;
                if (last && st == ARBOR_OK) ok = bench_check(&pt, it);
            }
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
            int allok = 0;
            if (summarize(&o, t0, t1, ok, 0, v, &allok)) rc = 1;
            if (rank == 0 && !rc)
                print_row(&o, bench_ops[op].name, pt.bytes, alg, tp, v, allok, first);
            first = 0;
            if (!allok) rc = 1;
            bench_teardown(&pt);
        }
    }
    for (int op = 0; op < bench_rma_nops && rc == 0; op++) {
        if (!(o.op_mask & (1u << (bench_nops + op)))) continue;
        for (int s = 0; s < o.nsizes && rc == 0; s++) {
            if (s > 0 && bench_rma_size_free(op)) break;
            rc = run_rma(&o, op, o.sizes[s], t0, t1, tp, &first);
        }
    }
    if (rank == 0 && !strcmp(o.format, "json") && !first) printf("\n]\n");
    fflush(stdout);
    free(t0);
    free(t1);
    st = arbor_finalize();
    return rc ? rc : st != ARBOR_OK;
}
