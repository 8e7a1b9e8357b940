/*
 * arbor-bench: OSU-style latency of arbor's collectives, run under a PMIx launcher:
 *   mpirun -n 4 build/bin/arbor-bench --op bcast --sizes 8,65536 --iters 1000 --format csv
 * Each iteration is timed on every rank; a row reports the mean over ranks of each rank's mean
 * (avg_us), the smallest and largest per-rank mean, the median and 99th percentile of the
 * slowest rank per iteration, and whether the data of the last iteration was right (check).
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algorithms/coll.h"
#include "arbor.h"
#include "core/introspect.h"

typedef struct {
    const char *name;
    arb_coll_t coll;
    const char *env; /* the variable that forces its algorithm */
} op_t;

static const op_t ops[] = {
    {"barrier", ARB_COLL_BARRIER, "ARBOR_BARRIER_ALGORITHM"},
    {"bcast", ARB_COLL_BCAST, "ARBOR_BCAST_ALGORITHM"},
};
#define NOPS ((int)(sizeof(ops) / sizeof(ops[0])))

typedef struct {
    int op_mask;
    size_t sizes[64];
    int nsizes;
    int iters, warmup, root;
    const char *algorithm;
    const char *format;
} opts_t;

static int rank, size;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: arbor-bench [--op barrier,bcast|all] [--sizes 8,65536] [--iters N]\n"
               "                   [--warmup N] [--root R] [--algorithm NAME]\n"
               "                   [--format table|csv|json]\n");
}

static int parse_sizes(const char *arg, opts_t *o)
{
    char *dup = strdup(arg), *save = NULL;
    o->nsizes = 0;
    for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *end;
        double v = strtod(tok, &end);
        if (*end == 'k' || *end == 'K') v *= 1024, end++;
        else if (*end == 'm' || *end == 'M') v *= 1024 * 1024, end++;
        if (*end || v < 0 || o->nsizes == 64) {
            free(dup);
            return -1;
        }
        o->sizes[o->nsizes++] = (size_t)v;
    }
    free(dup);
    return o->nsizes ? 0 : -1;
}

static int parse_ops(const char *arg, opts_t *o)
{
    char *dup = strdup(arg), *save = NULL;
    o->op_mask = 0;
    for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int i = 0; i < NOPS; i++)
            if (!strcmp(tok, ops[i].name) || !strcmp(tok, "all")) o->op_mask |= 1 << i, found = 1;
        if (!found) {
            fprintf(stderr, "arbor-bench: unknown op '%s' (barrier, bcast, all)\n", tok);
            free(dup);
            return -1;
        }
    }
    free(dup);
    return 0;
}

static int parse_args(int argc, char **argv, opts_t *o)
{
    static const struct option lo[] = {
        {"op", 1, 0, 'o'},     {"sizes", 1, 0, 's'},     {"iters", 1, 0, 'i'},
        {"warmup", 1, 0, 'w'}, {"root", 1, 0, 'r'},      {"algorithm", 1, 0, 'a'},
        {"format", 1, 0, 'f'}, {"help", 0, 0, 'h'},      {0, 0, 0, 0}};
    int c;
    *o = (opts_t){.op_mask = 3, .iters = 1000, .warmup = 100, .format = "table"};
    o->sizes[0] = 8;
    o->nsizes = 1;
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        char *end = NULL;
        switch (c) {
        case 'o': if (parse_ops(optarg, o)) return -1; break;
        case 's':
            if (parse_sizes(optarg, o)) return fprintf(stderr, "arbor-bench: bad --sizes\n"), -1;
            break;
        case 'i': o->iters = (int)strtol(optarg, &end, 10); break;
        case 'w': o->warmup = (int)strtol(optarg, &end, 10); break;
        case 'r': o->root = (int)strtol(optarg, &end, 10); break;
        case 'a': o->algorithm = optarg; break;
        case 'f': o->format = optarg; break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return -1;
        }
        if (end && (*end || o->iters < 1 || o->warmup < 0 || o->root < 0))
            return fprintf(stderr, "arbor-bench: bad number '%s'\n", optarg), -1;
    }
    if (optind < argc) return fprintf(stderr, "arbor-bench: unexpected '%s'\n", argv[optind]), -1;
    if (strcmp(o->format, "table") && strcmp(o->format, "csv") && strcmp(o->format, "json"))
        return fprintf(stderr, "arbor-bench: --format takes table, csv or json\n"), -1;
    return 0;
}

/* Forces --algorithm for the ops whose table has it, before init reads the environment. */
static int force_algorithm(const opts_t *o)
{
    int used = 0;
    for (int i = 0; o->algorithm && i < NOPS; i++) {
        int n;
        const arb_alg_desc_t *tab = arb_alg_table(ops[i].coll, &n);
        for (int a = 0; a < n; a++)
            if (!strcmp(tab[a].name, o->algorithm) && (o->op_mask & (1 << i)))
                setenv(ops[i].env, o->algorithm, 1), used = 1;
    }
    if (o->algorithm && !used) {
        fprintf(stderr, "arbor-bench: no selected op has an algorithm named '%s'\n", o->algorithm);
        return -1;
    }
    return 0;
}

static uint8_t pattern(size_t i, int it) { return (uint8_t)(i * 7 + (size_t)it * 13 + 1); }

/* Runs one (op, bytes) point; returns the per-iteration times of this rank. */
static int run_point(const opts_t *o, int op, size_t bytes, uint8_t *buf, double *t, int *ok)
{
    arbor_status_t st = ARBOR_OK;
    int total = o->warmup + o->iters;
    *ok = 1;
    for (int it = 0; it < total && st == ARBOR_OK; it++) {
        int last = it == total - 1;
        if (last && ops[op].coll == ARB_COLL_BCAST)
            for (size_t i = 0; i < bytes; i++) buf[i] = rank == o->root ? pattern(i, it) : 0;
        if ((st = arbor_barrier(ARBOR_TEAM_WORLD)) != ARBOR_OK) break;
        double t0 = now_us();
        if (ops[op].coll == ARB_COLL_BARRIER) st = arbor_barrier(ARBOR_TEAM_WORLD);
        else st = arbor_bcast(ARBOR_TEAM_WORLD, buf, bytes, o->root);
        double dt = now_us() - t0;
        if (it >= o->warmup) t[it - o->warmup] = dt;
        if (last && ops[op].coll == ARB_COLL_BCAST)
            for (size_t i = 0; i < bytes; i++)
                if (buf[i] != pattern(i, it)) *ok = 0;
    }
    if (st != ARBOR_OK) {
        fprintf(stderr, "arbor-bench: rank %d: %s of %zu bytes: %s\n", rank, ops[op].name, bytes,
                arbor_strerror(st));
        return -1;
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    double mean;
    int ok;
} rank_result_t;

static void print_row(const opts_t *o, int op, size_t bytes, const char *alg, const char *tp,
                      double avg, double mn, double mx, double med, double p99, int ok, int first)
{
    const char *check = ok ? "ok" : "FAIL";
    if (!strcmp(o->format, "csv")) {
        if (first) printf("op,bytes,ranks,algorithm,avg_us,min_us,max_us,check,transport,"
                          "median_us,p99_us\n");
        printf("%s,%zu,%d,%s,%.3f,%.3f,%.3f,%s,%s,%.3f,%.3f\n", ops[op].name, bytes, size, alg,
               avg, mn, mx, check, tp, med, p99);
    } else if (!strcmp(o->format, "json")) {
        printf("%s{\"op\":\"%s\",\"bytes\":%zu,\"ranks\":%d,\"algorithm\":\"%s\",\"avg_us\":%.3f,"
               "\"min_us\":%.3f,\"max_us\":%.3f,\"check\":\"%s\",\"transport\":\"%s\","
               "\"median_us\":%.3f,\"p99_us\":%.3f}",
               first ? "[\n  " : ",\n  ", ops[op].name, bytes, size, alg, avg, mn, mx, check, tp,
               med, p99);
    } else {
        if (first)
            printf("%-8s %10s %5s %-14s %10s %10s %10s %10s %10s %-5s %s\n", "op", "bytes",
                   "ranks", "algorithm", "avg_us", "min_us", "max_us", "median_us", "p99_us",
                   "check", "transport");
        printf("%-8s %10zu %5d %-14s %10.3f %10.3f %10.3f %10.3f %10.3f %-5s %s\n", ops[op].name,
               bytes, size, alg, avg, mn, mx, med, p99, check, tp);
    }
}

/* The algorithm the library ran for this point. */
static const char *algorithm_of(int op, size_t bytes, const opts_t *o)
{
    const char *name = arb_chosen_algorithm(ops[op].coll, bytes, o->root);
    return name ? name : "?";
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

    size_t maxb = 1;
    for (int i = 0; i < o.nsizes; i++) maxb = o.sizes[i] > maxb ? o.sizes[i] : maxb;
    uint8_t *buf = malloc(maxb);
    double *t = malloc(sizeof(double) * (size_t)o.iters);
    double *slowest = malloc(sizeof(double) * (size_t)o.iters);
    rank_result_t *all = malloc(sizeof(rank_result_t) * (size_t)size);
    int first = 1, rc = 0;

    for (int op = 0; op < NOPS && rc == 0; op++) {
        if (!(o.op_mask & (1 << op))) continue;
        for (int s = 0; s < o.nsizes && rc == 0; s++) {
            size_t bytes = ops[op].coll == ARB_COLL_BARRIER ? 0 : o.sizes[s];
            if (ops[op].coll == ARB_COLL_BARRIER && s > 0) break;
            int ok;
            if (run_point(&o, op, bytes, buf, t, &ok)) {
                rc = 1;
                break;
            }
            rank_result_t mine = {0, ok};
            for (int i = 0; i < o.iters; i++) mine.mean += t[i] / o.iters;
            /* Gather per-rank results and per-iteration slowest times with broadcasts. */
            for (int r = 0; r < size; r++) {
                rank_result_t x = mine;
                arbor_bcast(ARBOR_TEAM_WORLD, &x, sizeof(x), r);
                all[r] = x;
                memcpy(slowest, t, sizeof(double) * (size_t)o.iters);
                arbor_bcast(ARBOR_TEAM_WORLD, slowest, sizeof(double) * (size_t)o.iters, r);
                for (int i = 0; i < o.iters; i++) t[i] = slowest[i] > t[i] ? slowest[i] : t[i];
            }
            double avg = 0, mn = all[0].mean, mx = all[0].mean;
            int allok = 1;
            for (int r = 0; r < size; r++) {
                avg += all[r].mean / size;
                mn = all[r].mean < mn ? all[r].mean : mn;
                mx = all[r].mean > mx ? all[r].mean : mx;
                allok &= all[r].ok;
            }
            qsort(t, (size_t)o.iters, sizeof(double), cmp_double);
            double med = t[o.iters / 2], p99 = t[(int)((o.iters - 1) * 0.99)];
            if (rank == 0)
                print_row(&o, op, bytes, algorithm_of(op, bytes, &o), tp, avg, mn, mx, med, p99,
                          allok, first);
            first = 0;
            if (!allok) rc = 1;
        }
    }
    if (rank == 0 && !strcmp(o.format, "json") && !first) printf("\n]\n");
    fflush(stdout);
    free(buf);
    free(t);
    free(slowest);
    free(all);
    st = arbor_finalize();
    return rc ? rc : st != ARBOR_OK;
}
