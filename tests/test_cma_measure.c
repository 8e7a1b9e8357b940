/*
 * Launched test of cross-memory attach priced at init (runtime/model.h, group/cma_probe.c), in
 * four inits of one process:
 *   1. ARBOR_CMA_MEASURE=n: Gc is the transport default (CMA_DEFAULT_GC), nothing measured;
 *   2. the default: every rank reports the same agreed ratio (exact) and the same Gc, which is
 *      the default scaled by ratio / the fit's ratio (model.cma names it), the ratio within the
 *      sane range (1-32x; or, where the ranks' readings were discarded, every rank says so and
 *      keeps the default);
 *   3. ARBOR_LOGP=Gc=0.000123: the given Gc wins, nothing measured;
 *   4. ARBOR_LOGP without Gc (G1 only): Gc is measured as in 2.
 * In 2, where every rank has a core and the agreed ratio is 2 or more, a 64 KiB allgather and
 * alltoall on malloc'd buffers must go through the slots (a read then costs more than each
 * rank's two copies: coll/coll_direct.c), with every byte checked.
 * Where cross-memory attach is not permitted here, every init must say so and the test checks
 * only that.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbor.h"
#include "launched_check.h"

enum { TEXT = 256 };

/* The state of one init, as arbor_info_get tells it on this rank. */
typedef struct {
    char cma[TEXT], source[TEXT];
    double gc, ratio; /* ratio 0: "model.cma_ratio" answered ARBOR_ERR_UNSUPPORTED */
    bool permitted;
} state_t;

static void read_state(state_t *s)
{
    char ratio[64];
    memset(s, 0, sizeof(*s));
    CHECK(arbor_info_get("model.cma", s->cma, sizeof(s->cma)) == ARBOR_OK, "model.cma");
    CHECK(arbor_info_get("model.source", s->source, sizeof(s->source)) == ARBOR_OK, "model.source");
    CHECK(sscanf(s->cma, "Gc=%lf", &s->gc) == 1 && s->gc > 0, "model.cma '%s'", s->cma);
    s->permitted = !strstr(s->cma, "(not taken:");
    arbor_status_t st = arbor_info_get("model.cma_ratio", ratio, sizeof(ratio));
    CHECK(st == ARBOR_OK || st == ARBOR_ERR_UNSUPPORTED, "model.cma_ratio: %s", arbor_strerror(st));
    if (st == ARBOR_OK) {
        char *end;
        s->ratio = strtod(ratio, &end);
        CHECK(*end == '\0' && s->ratio > 0, "model.cma_ratio '%s'", ratio);
    }
}

/* Whether every rank holds the same value (its exact bits). */
static bool agreed(double v)
{
    uint64_t mine, *all = calloc((size_t)size, sizeof(*all));
    memcpy(&mine, &v, sizeof(mine));
    bool same = all != NULL;
    if (same && arbor_allgather(ARBOR_TEAM_WORLD, &mine, all, 1, ARBOR_UINT64) != ARBOR_OK)
        same = false;
    for (int r = 0; same && r < size; r++) same = all[r] == mine;
    free(all);
    return same;
}

static bool near(double x, double y)
{
    return fabs(x - y) <= 1e-5 * fabs(y); /* model.cma prints Gc with %g: 6 digits */
}

enum { BLOCK = 64 * 1024 };

/* In the measuring init: the exchanges' copy path against the agreed ratio, and their data. */
static void check_exchange_path(const state_t *s)
{
    char over[8] = "";
    CHECK(arbor_info_get("topology.oversubscribed", over, sizeof over) == ARBOR_OK,
          "topology.oversubscribed");
    uint8_t *src = malloc(BLOCK * (size_t)size), *dst = malloc(BLOCK * (size_t)size);
    CHECK(src && dst, "no memory for %d blocks", size);
    if (!src || !dst) {
        free(src), free(dst);
        return;
    }
    for (int k = 0; k < 2; k++) {
        bool exchange = k == 1; /* alltoall: block r of src goes to rank r */
        for (size_t i = 0; i < BLOCK * (size_t)size; i++) src[i] = (uint8_t)(rank * 31 + i % 251);
        memset(dst, 0xee, BLOCK * (size_t)size);
        arbor_status_t st = exchange
                                ? arbor_alltoall(ARBOR_TEAM_WORLD, src, dst, BLOCK, ARBOR_BYTE)
                                : arbor_allgather(ARBOR_TEAM_WORLD, src, dst, BLOCK, ARBOR_BYTE);
        const char *what = exchange ? "alltoall" : "allgather";
        CHECK(st == ARBOR_OK, "%s of 64 KiB: %s", what, arbor_strerror(st));
        int wrong = 0;
        for (int r = 0; r < size; r++)
            for (size_t i = 0; i < BLOCK; i++) {
                size_t at = exchange ? (size_t)rank * BLOCK + i : i; /* in r's src */
                wrong += dst[(size_t)r * BLOCK + i] != (uint8_t)(r * 31 + at % 251);
            }
        CHECK(wrong == 0, "%s of 64 KiB: %d bytes wrong", what, wrong);
        arbor_coll_info_t info;
        CHECK(arbor_team_last_collective(ARBOR_TEAM_WORLD, &info) == ARBOR_OK, "last collective");
        if (size > 1 && s->ratio >= 2 && over[0] == 'n')
            CHECK(!info.cma, "%s of 64 KiB took cross-memory attach at a measured %gx memcpy", what,
                  s->ratio);
        if (rank == 0)
            printf("%s 64 KiB: %s (ratio %g, oversubscribed %s)\n", what,
                   info.cma ? "cross-memory attach" : "two copies", s->ratio, over);
    }
    free(src);
    free(dst);
}

/* One init with the given settings (NULL: unset); the state after it, checked for agreement. */
static bool run(const char *measure, const char *logp, state_t *s)
{
    if (measure)
        setenv("ARBOR_CMA_MEASURE", measure, 1);
    else
        unsetenv("ARBOR_CMA_MEASURE");
    if (logp)
        setenv("ARBOR_LOGP", logp, 1);
    else
        unsetenv("ARBOR_LOGP");
    arbor_status_t st = arbor_init();
    CHECK(st == ARBOR_OK, "init (ARBOR_CMA_MEASURE=%s ARBOR_LOGP=%s): %s", measure ? measure : "",
          logp ? logp : "", arbor_strerror(st));
    if (st != ARBOR_OK) return false;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    read_state(s);
    CHECK(agreed(s->gc), "Gc %g differs between ranks", s->gc);
    CHECK(agreed(s->ratio), "ratio %.17g differs between ranks", s->ratio);
    CHECK(agreed(s->permitted), "ranks disagree whether cross-memory attach is permitted");
    if (!measure && !logp && s->permitted) check_exchange_path(s);
    CHECK(arbor_finalize() == ARBOR_OK, "finalize");
    return true;
}

/* A measuring init (2 and 4): measured, or discarded with a note; either way agreed (run). */
static void check_measured(const char *what, const state_t *s, const state_t *off)
{
    if (s->ratio > 0) {
        const char *fit_at = strstr(s->cma, "the defaults assume ");
        double fit = 0;
        CHECK(fit_at && sscanf(fit_at, "the defaults assume %lfx", &fit) == 1 && fit > 0,
              "%s: model.cma '%s' names no fit", what, s->cma);
        CHECK(s->ratio >= 1 && s->ratio <= 32, "%s: ratio %g outside the sane range", what,
              s->ratio);
        CHECK(fit > 0 && near(s->gc, off->gc * s->ratio / fit), "%s: Gc %g, want %g x %g / %g",
              what, s->gc, off->gc, s->ratio, fit);
        CHECK(strstr(s->cma, "measured at init") != NULL, "%s: model.cma '%s'", what, s->cma);
        CHECK(strstr(s->source, "Gc measured at init") != NULL, "%s: model.source '%s'", what,
              s->source);
    } else {
        CHECK(strstr(s->cma, "init measurement discarded") != NULL && s->gc == off->gc,
              "%s: nothing measured, yet model.cma '%s'", what, s->cma);
    }
    if (rank == 0) printf("%s: %s\n", what, s->cma);
}

int main(void)
{
    const char *want = getenv("CMA_DEFAULT_GC");
    double dflt = want ? atof(want) : 0;
    state_t off, on, given, other;
    if (!run("n", NULL, &off)) return 1;
    if (!off.permitted) {
        printf("test_cma_measure: cross-memory attach not permitted here (%s): %d checks, %d "
               "failures\n",
               off.cma, checks, failures);
        return failures ? 1 : 0;
    }
    CHECK(dflt > 0, "CMA_DEFAULT_GC (the transport default Gc) not set");
    CHECK(off.gc == dflt && off.ratio == 0 && strstr(off.cma, "ARBOR_CMA_MEASURE=n") &&
              !strstr(off.source, "Gc measured"),
          "ARBOR_CMA_MEASURE=n: model.cma '%s', source '%s', want Gc=%g", off.cma, off.source,
          dflt);
    if (run(NULL, NULL, &on)) check_measured("default", &on, &off);
    if (run(NULL, "Gc=0.000123", &given))
        CHECK(given.gc == 0.000123 && given.ratio == 0 && strstr(given.cma, "(ARBOR_LOGP)") &&
                  !strstr(given.source, "Gc measured"),
              "ARBOR_LOGP=Gc=0.000123: model.cma '%s', source '%s'", given.cma, given.source);
    if (run(NULL, "G1=0.00004", &other)) check_measured("ARBOR_LOGP without Gc", &other, &off);
    printf("test_cma_measure rank %d: %d checks, %d failures\n", rank, checks, failures);
    return failures ? 1 : 0;
}
