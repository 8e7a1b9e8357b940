/*
 * Unit test of the one-copy choice (core/coll_direct.c, no launcher): with the ucx model a
 * small symmetric call stays two-copy (the readers' completion signal costs more than the copy
 * it saves) and a large one goes one-copy, for every eligible collective at P = 2..9; an
 * algorithm that sends from its scratch (bruck) is never the one-copy choice; a forced
 * algorithm is kept; ARBOR_ONECOPY=always chooses one copy at any size; the one-copy model
 * prices bytes at G1.
 */
#include <stdio.h>
#include <string.h>

#include "algorithms/coll.h"
#include "core/coll_direct.h"
#include "core/context.h"

#include "unit_check.h"

/* The unit tier's check() (tests/unit_check.h), with the failing line. */
#define CHECK(_cond, ...) check((_cond), "line " ARB_STR(__LINE__) ": " __VA_ARGS__)
#define ARB_STR(_x)       ARB_STR2(_x)
#define ARB_STR2(_x)      #_x

static const arb_coll_t colls[] = {ARB_COLL_BCAST, ARB_COLL_SCATTER, ARB_COLL_GATHER,
                                   ARB_COLL_ALLGATHER, ARB_COLL_ALLTOALL};

static arb_coll_args_t args(arb_coll_t c, int P, size_t bytes)
{
    return (arb_coll_args_t){.coll = c,
                             .rank = 1,
                             .size = P,
                             .root = 0,
                             .bytes = bytes,
                             .chunk = 65536,
                             .commutative = 1};
}

static bool sends_scratch(int alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    int n;
    const arb_alg_desc_t *tab = arb_alg_table(a->coll, &n);
    arb_sched_t s;
    arb_sched_init(&s);
    bool scratch = false;
    if (tab[alg].build(&tab[alg], a, m, &s) == ARBOR_OK)
        for (int i = 0; i < s.nsteps; i++)
            scratch |= s.steps[i].kind == ARB_STEP_SEND && s.steps[i].space == ARB_BUF_SCRATCH;
    arb_sched_free(&s);
    return scratch;
}

int main(void)
{
    arb_logp_t m, m1;
    arb_logp_default("ucx", &m);
    arb_ctx.cfg.onecopy = ARB_ONECOPY_AUTO;
    for (size_t c = 0; c < sizeof(colls) / sizeof(colls[0]); c++)
        for (int P = 2; P <= 9; P++) {
            arb_coll_args_t small = args(colls[c], P, 8), large = args(colls[c], P, 1 << 20);
            const char *name = arb_coll_name(colls[c]);
            CHECK(arb_direct_choose(&small, 0, &m, ARB_DIRECT_SEGMENT, &m1) == 0,
                  "%s P=%d 8 B: one copy chosen", name, P);
            int alg = arb_direct_choose(&large, 0, &m, ARB_DIRECT_SEGMENT, &m1);
            CHECK(alg > 0, "%s P=%d 1 MiB: two copies chosen", name, P);
            CHECK(m1.G == m.G1 && m1.L == m.L, "%s: one-copy model G %g, want G1 %g", name, m1.G,
                  m.G1);
            if (alg > 0)
                CHECK(!sends_scratch(alg, &large, &m1),
                      "%s P=%d: one copy chose %s, which sends "
                      "from scratch",
                      name, P, arb_alg_table(colls[c], &(int){0})[alg].name);
            /* Forced: the forced algorithm, one copy or not. */
            int n;
            arb_alg_table(colls[c], &n);
            for (int f = 1; f < n; f++) {
                int got = arb_direct_choose(&large, f, &m, ARB_DIRECT_SEGMENT, &m1);
                CHECK(got == 0 || got == f, "%s P=%d forced %d: got %d", name, P, f, got);
            }
        }
    /* Small blocks at P = 16 where per-message costs dominate: bruck (which packs in scratch) is
     * the two-copy choice of alltoall; the model keeps two copies, and one copy forced takes
     * pairwise, never bruck. */
    arb_ctx.cfg.onecopy = ARB_ONECOPY_ALWAYS;
    {
        arb_coll_t c = ARB_COLL_ALLTOALL;
        arb_coll_args_t a = args(c, 16, 8);
        /* Per-message costs dominate: log P packed rounds beat P - 1 messages. */
        arb_logp_t slow = {.L = 1, .os = 1, .orecv = 1, .g = 1, .G = 0.00008, .G1 = 0.00004};
        int n, two = arb_select(&a, &slow, 0, NULL),
               one = arb_direct_choose(&a, 0, &slow, ARB_DIRECT_SEGMENT, &m1);
        const arb_alg_desc_t *tab = arb_alg_table(c, &n);
        CHECK(!strcmp(tab[two].name, "bruck"), "%s P=16 8 B: two-copy choice %s, expected bruck",
              arb_coll_name(c), tab[two].name);
        CHECK(one > 0 && !strcmp(tab[one].name, "pairwise"),
              "%s P=16 8 B always: one-copy choice %s", arb_coll_name(c),
              one > 0 ? tab[one].name : "none");
        arb_ctx.cfg.onecopy = ARB_ONECOPY_AUTO;
        CHECK(arb_direct_choose(&a, 0, &slow, ARB_DIRECT_SEGMENT, &m1) == 0,
              "%s P=16 8 B auto: one copy chosen", arb_coll_name(c));
        arb_ctx.cfg.onecopy = ARB_ONECOPY_ALWAYS;
    }
    for (size_t c = 0; c < sizeof(colls) / sizeof(colls[0]); c++) {
        arb_coll_args_t small = args(colls[c], 4, 64);
        int alg = arb_direct_choose(&small, 0, &m, ARB_DIRECT_SEGMENT, &m1);
        CHECK(alg > 0, "%s ARBOR_ONECOPY=always, 64 B: two copies", arb_coll_name(colls[c]));
        if (alg > 0)
            CHECK(!sends_scratch(alg, &small, &m1), "%s always: chose a scratch sender",
                  arb_coll_name(colls[c]));
    }
    /* Cross-memory attach (malloc'd buffers): the model prices it with Gc plus a system call
     * per message. ucx defaults: two copies at every size (Gc = 1.25 G); ofi:shm defaults (Gc =
     * 0.6 G): two copies at 8 B, one copy at 1 MiB; ARBOR_CMA=always: one copy even at 64 B. */
    arb_ctx.cfg.onecopy = ARB_ONECOPY_AUTO;
    arb_ctx.cfg.cma = ARB_CMA_AUTO;
    arb_logp_t shm;
    arb_logp_default("ofi:shm", &shm);
    for (size_t c = 0; c < sizeof(colls) / sizeof(colls[0]); c++)
        for (int P = 2; P <= 5; P++) {
            arb_coll_args_t small = args(colls[c], P, 8), large = args(colls[c], P, 1 << 20);
            const char *name = arb_coll_name(colls[c]);
            CHECK(arb_direct_choose(&large, 0, &m, ARB_DIRECT_CMA, &m1) == 0,
                  "%s P=%d 1 MiB ucx: cross-memory attach chosen", name, P);
            CHECK(m1.G == m.Gc && m1.orecv == m.orecv + ARB_LOGP_CMA_CALL_US,
                  "%s: CMA model G %g or %g", name, m1.G, m1.orecv);
            CHECK(arb_direct_choose(&small, 0, &shm, ARB_DIRECT_CMA, &m1) == 0,
                  "%s P=%d 8 B ofi:shm: cross-memory attach chosen", name, P);
            CHECK(arb_direct_choose(&large, 0, &shm, ARB_DIRECT_CMA, &m1) > 0,
                  "%s P=%d 1 MiB ofi:shm: two copies chosen", name, P);
        }
    arb_ctx.cfg.cma = ARB_CMA_ALWAYS;
    for (size_t c = 0; c < sizeof(colls) / sizeof(colls[0]); c++) {
        arb_coll_args_t small = args(colls[c], 3, 64);
        CHECK(arb_direct_choose(&small, 0, &m, ARB_DIRECT_CMA, &m1) > 0,
              "%s ARBOR_CMA=always, 64 B: two copies", arb_coll_name(colls[c]));
    }
    arb_ctx.cfg.cma = ARB_CMA_AUTO;
    printf("unit_onecopy: %d of %d checks passed\n", checks - failures, checks);
    return failures ? 1 : 0;
}
