/*
 * Unit test of the one-copy choice (coll/coll_direct.c, no launcher): with the ucx model a
 * small symmetric call stays two-copy (the readers' completion signal costs more than the copy
 * it saves) and a large one goes one-copy, for every eligible collective at P = 2..9; an
 * algorithm that sends from its scratch (bruck) is never the one-copy choice; a forced
 * algorithm is kept; ARBOR_ONECOPY=always chooses one copy at any size; the one-copy model
 * prices bytes at G1 and keeps the combine's price. The reductions (allreduce, reduce,
 * reduce_scatter, commutative and not): two copies at 8 bytes, one copy at 1 MiB where the
 * model finds it cheaper (always for allreduce and reduce_scatter, reduce on few ranks), and the
 * one-copy choice passes the read-in-place rule on every rank (arb_direct_schedule_ok).
 */
#include <stdio.h>
#include <string.h>

#include "algorithms/coll.h"
#include "coll/coll_direct.h"
#include "runtime/context.h"

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

/* Whether alg's schedule passes the one-copy rule on every rank of a. */
static bool schedule_ok_everywhere(int alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    int n;
    const arb_alg_desc_t *tab = arb_alg_table(a->coll, &n);
    bool ok = true;
    for (int r = 0; ok && r < a->size; r++) {
        arb_coll_args_t b = *a;
        b.rank = r;
        arb_sched_t s;
        arb_sched_init(&s);
        ok =
            tab[alg].build(&tab[alg], &b, m, &s) == ARBOR_OK && arb_direct_schedule_ok(&s, a->coll);
        arb_sched_free(&s);
    }
    return ok;
}

/* The reductions: 4-byte elements; reduce_scatter's pieces split the bytes evenly. */
static void reductions(const arb_logp_t *m)
{
    static const arb_coll_t red[] = {ARB_COLL_ALLREDUCE, ARB_COLL_REDUCE, ARB_COLL_REDUCE_SCATTER};
    static size_t counts[16];
    arb_logp_t m1;
    for (size_t c = 0; c < sizeof(red) / sizeof(red[0]); c++)
        for (int P = 2; P <= 9; P++)
            for (int comm = 0; comm < 2; comm++)
                for (int big = 0; big < 2; big++) {
                    size_t bytes = big ? (size_t)1 << 20 : 8;
                    arb_coll_args_t a = args(red[c], P, bytes);
                    a.commutative = comm;
                    a.count = red[c] == ARB_COLL_REDUCE_SCATTER ? 0 : bytes / 4;
                    for (int r = 0; r < P; r++) counts[r] = bytes / 4 / (size_t)P + 1;
                    a.counts = counts;
                    const char *name = arb_coll_name(red[c]);
                    arb_ctx.cfg.onecopy = ARB_ONECOPY_AUTO;
                    int alg = arb_direct_choose(&a, 0, m, ARB_DIRECT_SEGMENT, &m1);
                    CHECK(m1.Gop == m->G, "%s: one-copy model combines at %g, want G %g", name,
                          m1.Gop, m->G);
                    if (!big)
                        CHECK(alg == 0, "%s P=%d 8 B comm %d: one copy chosen", name, P, comm);
                    else if (red[c] != ARB_COLL_REDUCE || P <= 3)
                        CHECK(alg > 0, "%s P=%d 1 MiB comm %d: two copies chosen", name, P, comm);
                    arb_ctx.cfg.onecopy = ARB_ONECOPY_ALWAYS;
                    int forced_one = arb_direct_choose(&a, 0, m, ARB_DIRECT_SEGMENT, &m1);
                    CHECK(forced_one > 0, "%s P=%d %zu B comm %d always: no one-copy algorithm",
                          name, P, bytes, comm);
                    if (alg > 0) CHECK(forced_one == alg, "%s: always chose differently", name);
                    if (forced_one > 0)
                        CHECK(schedule_ok_everywhere(forced_one, &a, &m1),
                              "%s P=%d comm %d: one copy chose %s, which rewrites what it sent",
                              name, P, comm, arb_alg_table(red[c], &(int){0})[forced_one].name);
                    /* Forced: the forced algorithm, one copy or not. */
                    int n;
                    arb_alg_table(red[c], &n);
                    for (int f = 1; f < n; f++) {
                        int got = arb_direct_choose(&a, f, m, ARB_DIRECT_SEGMENT, &m1);
                        CHECK(got == 0 || got == f, "%s P=%d forced %d: got %d", name, P, f, got);
                    }
                }
    /* Past 64 ranks the choice checks the schedules of a few ranks only (coll_direct.c,
     * checked_rank): still one copy for a large allreduce, and the schedule it takes passes
     * on every rank. */
    arb_ctx.cfg.onecopy = ARB_ONECOPY_AUTO;
    arb_coll_args_t wide = args(ARB_COLL_ALLREDUCE, 100, (size_t)1 << 24);
    wide.count = wide.bytes / 4;
    int alg = arb_direct_choose(&wide, 0, m, ARB_DIRECT_SEGMENT, &m1);
    CHECK(alg > 0, "allreduce P=100 16 MiB: two copies chosen");
    if (alg > 0) {
        wide.one_copy = 1;
        CHECK(schedule_ok_everywhere(alg, &wide, &m1), "allreduce P=100: %s fails the rule",
              arb_alg_table(ARB_COLL_ALLREDUCE, &(int){0})[alg].name);
    }
}

int main(void)
{
    arb_logp_t m, m1;
    arb_logp_default_mapped(&m);
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
    reductions(&m);
    /* Cross-memory attach (malloc'd buffers): the model prices it with Gc plus a system call
     * per message. ucx defaults (Gc = 1.25 G): two copies at every size, but for allgather and
     * alltoall with a core per rank (exchange_cpu); ofi:shm defaults (Gc =
     * 0.6 G): two copies at 8 B, one copy at 1 MiB; ARBOR_CMA=always: one copy even at 64 B. */
    arb_ctx.cfg.onecopy = ARB_ONECOPY_AUTO;
    arb_ctx.cfg.cma = ARB_CMA_AUTO;
    /* The ofi:shm defaults (transports/ofi/ofi_hints.c), whatever this build compiled in. */
    const arb_logp_t shm = {
        .L = 0.5, .os = 0.3, .orecv = 0.3, .g = 0.3, .G = 0.0001, .G1 = 0.00005, .Gc = 0.00006};
    for (size_t c = 0; c < sizeof(colls) / sizeof(colls[0]); c++)
        for (int P = 2; P <= 5; P++) {
            arb_coll_args_t small = args(colls[c], P, 8), large = args(colls[c], P, 1 << 20);
            const char *name = arb_coll_name(colls[c]);
            /* allgather, alltoall: each rank's two copies priced on its one core (a core per
             * rank here), against one read: cross-memory attach. The rooted ones: two copies. */
            bool exchange = colls[c] == ARB_COLL_ALLGATHER || colls[c] == ARB_COLL_ALLTOALL;
            int got = arb_direct_choose(&large, 0, &m, ARB_DIRECT_CMA, &m1);
            CHECK(exchange ? got > 0 : got == 0, "%s P=%d 1 MiB ucx: %s chosen", name, P,
                  got ? "cross-memory attach" : "two copies");
            arb_ctx.any_oversubscribed = true;
            CHECK(arb_direct_choose(&large, 0, &m, ARB_DIRECT_CMA, &m1) == 0,
                  "%s P=%d 1 MiB ucx oversubscribed: cross-memory attach chosen", name, P);
            arb_ctx.any_oversubscribed = false;
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
