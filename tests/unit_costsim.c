/*
 * Each algorithm's cost function against the LogGP time of the schedules it builds
 * (tests/sched_time.h), for the families bench/fidelity measures, P = 2..8, payloads 8 B to
 * 1 MiB (bench/fidelity's sizes, per rank blocks for allgather, alltoall and reduce_scatter),
 * under the ucx defaults and the oversubscribed model (L + ARBOR_OVERSUB_WAKE) and one with a
 * measured reduction cost (Gop). A cost function is a closed form for the schedule's critical
 * path, so it may differ from the simulation (which serializes every rank's CPU work and
 * cannot overlap what the formula overlaps), but not by much: every (algorithm, P, size) must
 * be within [1/TOL, TOL] of it, except the formulas listed in `open_misses` (counted and
 * printed, not failed: docs/PERFORMANCE.md says what they miss). `unit_costsim -v` prints the
 * whole table.
 */
#include "algorithms/coll.h"
#include "algorithms/logp.h"
#include "tests/sched_time.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_check.h"

#define TOL 2.0 /* the largest accepted ratio either way */

/* Formulas known to miss their schedule's time by more than TOL somewhere in the grid:
 * reduce_scatter recursive halving (up to 2.2x over at P = 7 and 256 KiB+, with the copies
 * priced at G where the schedule's local copies take G1, docs/PERFORMANCE.md says why it stays);
 * it cannot be checked against a measurement at P = 7 on the 2-core machine. (scan linear was
 * one, up to 2.9x under, until its formula priced relays that take chunks in more slowly than
 * they land.) The schedules run through channels of ARBOR_CHANNEL_DEPTH's default 4 slots. */
static const char *const open_misses[][2] = {{"reduce_scatter", "recursive_halving"}};
static int open_count;

static int verbose;
static double worst = 1;
static char worst_what[160];

static void one(arb_coll_t coll, const arb_alg_desc_t *alg, int P, size_t bytes,
                const arb_logp_t *m, const char *model)
{
    const size_t chunk = 65536, elem = 8;
    bool red = coll == ARB_COLL_REDUCE || coll == ARB_COLL_ALLREDUCE ||
               coll == ARB_COLL_REDUCE_SCATTER || coll == ARB_COLL_SCAN;
    size_t *counts = calloc((size_t)P, sizeof(size_t));
    arb_sched_t *s = calloc((size_t)P, sizeof(arb_sched_t));
    size_t count = bytes / elem ? bytes / elem : 1, block = red ? elem : bytes;
    for (int r = 0; r < P; r++) counts[r] = count;
    arb_coll_args_t a = {.coll = coll,
                         .size = P,
                         .bytes = coll == ARB_COLL_REDUCE_SCATTER ? count * elem * (size_t)P
                                  : red                           ? count * elem
                                                                  : bytes,
                         .chunk = chunk,
                         .count = coll == ARB_COLL_REDUCE_SCATTER ? count * (size_t)P : count,
                         .counts = counts,
                         .commutative = 1};
    if (coll == ARB_COLL_BARRIER) a.bytes = 0, block = 1;
    double cost = alg->cost(alg, &a, m);
    if (!isfinite(cost)) goto out;
    for (int r = 0; r < P; r++) {
        a.rank = r;
        arb_sched_init(&s[r]);
        if (alg->build(alg, &a, m, &s[r]) != ARBOR_OK) goto out; /* priced but not built here */
    }
    char err[256];
    double sim = arb_sim_time(P, s, block, chunk, 4, m, err, sizeof(err));
    if (!check(sim >= 0, "%s/%s P %d %zu B: %s", arb_coll_name(coll), alg->name, P, bytes, err))
        goto out;
    double ratio = sim > 0 ? cost / sim : 1, off = ratio > 1 ? ratio : 1 / ratio;
    if (verbose)
        printf("%-8s %-15s %-18s P=%d %8zu B  cost %10.3f  schedule %10.3f  ratio %.2f%s\n", model,
               arb_coll_name(coll), alg->name, P, bytes, cost, sim, ratio,
               off > TOL ? "  <--" : "");
    if (off > worst) {
        worst = off;
        snprintf(worst_what, sizeof(worst_what), "%s %s/%s P=%d %zu B: cost %.3f, schedule %.3f",
                 model, arb_coll_name(coll), alg->name, P, bytes, cost, sim);
    }
    bool open = false;
    for (size_t k = 0; k < sizeof(open_misses) / sizeof(open_misses[0]); k++)
        open |= !strcmp(open_misses[k][0], arb_coll_name(coll)) &&
                !strcmp(open_misses[k][1], alg->name);
    if (open && off > TOL) {
        open_count++;
        goto out;
    }
    check(off <= TOL, "%s %s/%s P=%d %zu B: cost %.3f us, its schedule takes %.3f us (%.2fx)",
          model, arb_coll_name(coll), alg->name, P, bytes, cost, sim, ratio);
out:
    for (int r = 0; r < P; r++) arb_sched_free(&s[r]);
    free(s);
    free(counts);
}

int main(int argc, char **argv)
{
    verbose = argc > 1 && !strcmp(argv[1], "-v");
    static const arb_coll_t colls[] = {
        ARB_COLL_BARRIER,   ARB_COLL_BCAST,    ARB_COLL_REDUCE,         ARB_COLL_ALLREDUCE,
        ARB_COLL_ALLGATHER, ARB_COLL_ALLTOALL, ARB_COLL_REDUCE_SCATTER, ARB_COLL_SCAN};
    static const size_t sizes[] = {8, 1024, 16384, 262144, 1048576};
    arb_logp_t ucx, over, gr;
    arb_logp_default_mapped(&ucx);
    over = ucx;
    over.L += 5; /* ARBOR_OVERSUB_WAKE's default */
    gr = ucx;
    gr.Gop = 2.1e-5; /* the reduction kernel measured on the 2-core VM */
    const struct {
        const arb_logp_t *m;
        const char *name;
    } models[] = {{&ucx, "ucx"}, {&over, "oversub"}, {&gr, "ucx+Gop"}};
    for (size_t mi = 0; mi < sizeof(models) / sizeof(models[0]); mi++)
        for (size_t c = 0; c < sizeof(colls) / sizeof(colls[0]); c++) {
            int n;
            const arb_alg_desc_t *tab = arb_alg_table(colls[c], &n);
            for (int i = 1; i < n; i++)
                for (int P = 2; P <= 8; P++)
                    for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
                        if (tab[i].needs) continue; /* offloaded: no schedule to time */
                        one(colls[c], &tab[i], P, sizes[z], models[mi].m, models[mi].name);
                        if (colls[c] == ARB_COLL_BARRIER) break;
                    }
        }
    printf("unit_costsim: %d checks, %d failures; worst %.2fx (%s); %d points of the open misses "
           "beyond %.1fx\n",
           checks, failures, worst, worst_what, open_count, TOL);
    return failures != 0;
}
