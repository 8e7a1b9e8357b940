/*
 * Unit test (no launcher) of the data-movement schedule builders: scatter, gather, allgather,
 * alltoall and their v-variants (algorithms/scatter.c, gather.c, allgather.c, alltoall.c).
 * - every algorithm of every family, P = 1..17, 32, 33, every root, blocks of 0, 1, 3, 8
 *   bytes: all P schedules run together in the simulator (tests/sched_sim.h) on real buffers
 *   and every byte of every rank's DST (and the untouched SRC) is checked against the result
 *   computed here; also the in-place layouts the core uses (DST = SRC + root for scatter,
 *   SRC = DST + rank for gather / allgather);
 * - the node-aware entries (allgather hierarchical) on three multi-node layouts too (nodes of
 *   2 and of 3 consecutive ranks, ranks dealt round-robin over 3 nodes), every byte checked;
 *   on one node they must say ARBOR_ERR_UNSUPPORTED and cost INFINITY;
 * - v-variants with random uneven counts (zeros included) and non-monotone displacements with
 *   gaps (gaps must stay untouched); scatterv / gatherv ranks other than the root see only
 *   their own count, as the core passes them;
 * - cost functions are finite and non-negative wherever the builder supports P (recursive
 *   doubling: INFINITY and ARBOR_ERR_UNSUPPORTED elsewhere), and the cheapest flips where the
 *   model says it should (allgather bruck / recursive doubling for small blocks, the ring for
 *   large; alltoall bruck for small, pairwise for large; scatter binomial for small).
 * Prints a summary; exits non-zero on any failure.
 */
#include "algorithms/coll.h"
#include "algorithms/logp.h"
#include "algorithms/sched.h"
#include "arbor.h"
#include "runtime/model.h"
#include "tests/sched_sim.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_check.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return n ? (uint32_t)(rng_state % n) : 0;
}

#define SENTINEL 0xA5

static uint8_t pattern(int rank, size_t i)
{
    uint32_t x = (uint32_t)rank * 2654435761u + (uint32_t)i * 40503u + 12345u;
    x ^= x >> 13;
    uint8_t v = (uint8_t)(x * 7u + (x >> 8));
    return v == SENTINEL ? (uint8_t)(v + 1) : v;
}

/* One simulated run: per rank buffers and the expected DST. */
typedef struct {
    int P;
    uint8_t **src, **dst, **want;
    size_t *src_len, *dst_len;
    uint8_t **src_copy; /* SRC before the run (to check it stays untouched) */
    size_t **vec;       /* per rank: counts, displs, rcounts, rdispls (v-variants) */
} world_t;

static void world_init(world_t *w, int P)
{
    memset(w, 0, sizeof(*w));
    w->P = P;
    w->src = calloc((size_t)P, sizeof(*w->src));
    w->dst = calloc((size_t)P, sizeof(*w->dst));
    w->want = calloc((size_t)P, sizeof(*w->want));
    w->src_copy = calloc((size_t)P, sizeof(*w->src_copy));
    w->src_len = calloc((size_t)P, sizeof(size_t));
    w->dst_len = calloc((size_t)P, sizeof(size_t));
    w->vec = calloc((size_t)P * 4, sizeof(size_t *));
    for (int i = 0; i < P * 4; i++) w->vec[i] = calloc((size_t)P, sizeof(size_t));
}

static void world_free(world_t *w)
{
    for (int r = 0; r < w->P; r++) {
        free(w->src[r]), free(w->dst[r]), free(w->want[r]), free(w->src_copy[r]);
    }
    for (int i = 0; i < w->P * 4; i++) free(w->vec[i]);
    free(w->src), free(w->dst), free(w->want), free(w->src_copy), free(w->src_len);
    free(w->dst_len), free(w->vec);
}

/* Exact-size buffers (ASan catches overruns); malloc(0) avoided. */
static void alloc_bufs(world_t *w, int r, size_t src_len, size_t dst_len)
{
    w->src_len[r] = src_len;
    w->dst_len[r] = dst_len;
    w->src[r] = malloc(src_len ? src_len : 1);
    w->dst[r] = malloc(dst_len ? dst_len : 1);
    w->want[r] = malloc(dst_len ? dst_len : 1);
    for (size_t i = 0; i < src_len; i++) w->src[r][i] = pattern(r, i);
    memset(w->dst[r], SENTINEL, dst_len ? dst_len : 1);
    memset(w->want[r], SENTINEL, dst_len ? dst_len : 1);
}

static size_t *V(world_t *w, int r, int which)
{
    return w->vec[r * 4 + which];
}

/* Random layout of n pieces: displacements in a random order with gaps of 0..2 bytes. */
static size_t layout(int n, const size_t *cnt, size_t *displ)
{
    int *order = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rnd((uint32_t)i + 1), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    size_t off = rnd(3);
    for (int i = 0; i < n; i++) {
        displ[order[i]] = off;
        off += cnt[order[i]] + rnd(3);
    }
    free(order);
    return off;
}

static size_t random_count(void)
{
    static const size_t sizes[] = {0, 0, 1, 2, 3, 5, 8, 13};
    return sizes[rnd(sizeof(sizes) / sizeof(sizes[0]))];
}

typedef struct {
    arb_coll_t coll;
    const char *name;
    const arb_alg_desc_t *tab;
    const int *n;
    bool rooted, vec;
} family_t;

static const family_t families[] = {
    {ARB_COLL_SCATTER, "scatter", arb_scatter_algs, &arb_scatter_nalgs, true, false},
    {ARB_COLL_SCATTERV, "scatterv", arb_scatterv_algs, &arb_scatterv_nalgs, true, true},
    {ARB_COLL_GATHER, "gather", arb_gather_algs, &arb_gather_nalgs, true, false},
    {ARB_COLL_GATHERV, "gatherv", arb_gatherv_algs, &arb_gatherv_nalgs, true, true},
    {ARB_COLL_ALLGATHER, "allgather", arb_allgather_algs, &arb_allgather_nalgs, false, false},
    {ARB_COLL_ALLGATHERV, "allgatherv", arb_allgatherv_algs, &arb_allgatherv_nalgs, false, true},
    {ARB_COLL_ALLTOALL, "alltoall", arb_alltoall_algs, &arb_alltoall_nalgs, false, false},
    {ARB_COLL_ALLTOALLV, "alltoallv", arb_alltoallv_algs, &arb_alltoallv_nalgs, false, true},
};
#define NFAM (int)(sizeof(families) / sizeof(families[0]))

/* Sets up buffers, expected results and per-rank arrays; returns whether the case applies
 * (in-place only where the core allows it). */
static bool setup(world_t *w, arb_coll_t coll, int root, size_t b, bool inplace)
{
    int P = w->P;
    switch (coll) {
    case ARB_COLL_SCATTER:
        for (int r = 0; r < P; r++) alloc_bufs(w, r, r == root ? b * (size_t)P : 0, b);
        for (int r = 0; r < P; r++) memcpy(w->want[r], w->src[root] + (size_t)r * b, b);
        return true;
    case ARB_COLL_GATHER:
        for (int r = 0; r < P; r++) alloc_bufs(w, r, b, r == root ? b * (size_t)P : 0);
        for (int r = 0; r < P; r++) memcpy(w->want[root] + (size_t)r * b, w->src[r], b);
        return true;
    case ARB_COLL_ALLGATHER:
        for (int r = 0; r < P; r++) alloc_bufs(w, r, b, b * (size_t)P);
        for (int r = 0; r < P; r++)
            for (int q = 0; q < P; q++) memcpy(w->want[r] + (size_t)q * b, w->src[q], b);
        return true;
    case ARB_COLL_ALLTOALL:
        if (inplace) return false; /* the core copies the input aside */
        for (int r = 0; r < P; r++) alloc_bufs(w, r, b * (size_t)P, b * (size_t)P);
        for (int r = 0; r < P; r++)
            for (int q = 0; q < P; q++)
                memcpy(w->want[r] + (size_t)q * b, w->src[q] + (size_t)r * b, b);
        return true;
    case ARB_COLL_SCATTERV:
    case ARB_COLL_GATHERV: {
        size_t *cnt = V(w, root, 0), *dsp = V(w, root, 1);
        for (int r = 0; r < P; r++) cnt[r] = random_count();
        size_t extent = layout(P, cnt, dsp);
        for (int r = 0; r < P; r++)
            if (r != root) V(w, r, 0)[r] = cnt[r]; /* what the core gives a non-root */
        bool sc = coll == ARB_COLL_SCATTERV;
        for (int r = 0; r < P; r++)
            alloc_bufs(w, r, sc ? (r == root ? extent : 0) : cnt[r],
                       sc ? cnt[r] : (r == root ? extent : 0));
        for (int r = 0; r < P; r++) {
            if (sc)
                memcpy(w->want[r], w->src[root] + dsp[r], cnt[r]);
            else
                memcpy(w->want[root] + dsp[r], w->src[r], cnt[r]);
        }
        return true;
    }
    case ARB_COLL_ALLGATHERV: {
        size_t cnt[64] = {0}, dsp[64] = {0};
        for (int r = 0; r < P; r++) cnt[r] = random_count();
        size_t extent = layout(P, cnt, dsp);
        for (int r = 0; r < P; r++) {
            memcpy(V(w, r, 0), cnt, sizeof(size_t) * (size_t)P);
            memcpy(V(w, r, 1), dsp, sizeof(size_t) * (size_t)P);
            alloc_bufs(w, r, cnt[r], extent);
        }
        for (int r = 0; r < P; r++)
            for (int q = 0; q < P; q++) memcpy(w->want[r] + dsp[q], w->src[q], cnt[q]);
        return true;
    }
    case ARB_COLL_ALLTOALLV: {
        if (inplace) return false; /* not allowed by the API */
        static size_t C[64][64];
        for (int i = 0; i < P; i++)
            for (int j = 0; j < P; j++) C[i][j] = random_count();
        for (int r = 0; r < P; r++) {
            size_t *sc = V(w, r, 0), *sd = V(w, r, 1), *rc = V(w, r, 2), *rd = V(w, r, 3);
            for (int q = 0; q < P; q++) sc[q] = C[r][q], rc[q] = C[q][r];
            size_t sext = layout(P, sc, sd), rext = layout(P, rc, rd);
            alloc_bufs(w, r, sext, rext);
        }
        for (int r = 0; r < P; r++)
            for (int q = 0; q < P; q++)
                memcpy(w->want[r] + V(w, r, 3)[q], w->src[q] + V(w, q, 1)[r], C[q][r]);
        return true;
    }
    default:
        return false;
    }
}

/* The topology of the current pass (NULL: one node); node-aware entries run only with one. */
static const arb_topo_t *TOPO;

/* Runs one case; returns false when the algorithm does not support it (expected). */
static void run_case(const family_t *f, int alg, int P, int root, size_t b, bool inplace,
                     const arb_logp_t *m)
{
    const arb_alg_desc_t *d = &f->tab[alg];
    world_t w;
    world_init(&w, P);
    if (!setup(&w, f->coll, root, b, inplace)) {
        world_free(&w);
        return;
    }
    size_t block = f->vec ? 1 : b;
    uint8_t **srcp = calloc((size_t)P, sizeof(*srcp)), **dstp = calloc((size_t)P, sizeof(*dstp));
    for (int r = 0; r < P; r++) srcp[r] = w.src[r], dstp[r] = w.dst[r];
    /* the core's in-place layouts */
    if (inplace) {
        if (f->coll == ARB_COLL_SCATTER || f->coll == ARB_COLL_SCATTERV) {
            /* the root's piece stays where it is; its own DST buffer is not used */
            dstp[root] = w.src[root] + (f->vec ? V(&w, root, 1)[root] : (size_t)root * b);
            memset(w.want[root], SENTINEL, w.dst_len[root] ? w.dst_len[root] : 1);
        } else {
            bool all = f->coll == ARB_COLL_ALLGATHER || f->coll == ARB_COLL_ALLGATHERV;
            for (int r = 0; r < P; r++) {
                if (!all && r != root) continue;
                size_t off = f->vec ? V(&w, r, 1)[r] : (size_t)r * b,
                       len = f->vec ? V(&w, r, 0)[r] : b;
                memcpy(w.dst[r] + off, w.src[r], len); /* the input sits in DST */
                srcp[r] = w.dst[r] + off;
            }
        }
    }
    for (int r = 0; r < P; r++) {
        free(w.src_copy[r]);
        w.src_copy[r] = malloc(w.src_len[r] ? w.src_len[r] : 1);
        memcpy(w.src_copy[r], w.src[r], w.src_len[r]);
    }

    arb_sched_t *s = calloc((size_t)P, sizeof(*s));
    arb_sim_rank_t *ranks = calloc((size_t)P, sizeof(*ranks));
    bool supported = true, ok = true;
    char where[160];
    snprintf(where, sizeof(where), "%s/%s P=%d root=%d block=%zu%s", f->name, d->name, P, root, b,
             inplace ? " in-place" : "");
    for (int r = 0; r < P; r++) {
        arb_coll_args_t a = {.coll = f->coll,
                             .rank = r,
                             .size = P,
                             .root = f->rooted ? root : 0,
                             .bytes = f->vec ? V(&w, r, 0)[r] : b,
                             .chunk = 65536,
                             .counts = f->vec ? V(&w, r, 0) : NULL,
                             .displs = f->vec ? V(&w, r, 1) : NULL,
                             .rcounts = f->vec ? V(&w, r, 2) : NULL,
                             .rdispls = f->vec ? V(&w, r, 3) : NULL,
                             .commutative = 1,
                             .topo = TOPO};
        arb_sched_init(&s[r]);
        arbor_status_t st = d->build(d, &a, m, &s[r]);
        if (st == ARBOR_ERR_UNSUPPORTED) {
            supported = false;
            continue;
        }
        ok &= check(st == ARBOR_OK, "%s: rank %d build returned %d", where, r, (int)st);
        ok &= check(arb_sched_ok(&s[r]), "%s: rank %d schedule not ok", where, r);
        ranks[r].buf[ARB_BUF_SRC] = srcp[r];
        ranks[r].buf[ARB_BUF_DST] = dstp[r];
        ranks[r].block = block;
    }
    bool pow2 = (P & (P - 1)) == 0;
    if (strcmp(d->name, "recursive_doubling") == 0)
        check(supported == pow2, "%s: supported=%d", where, supported);
    else if (d->topo_aware)
        check(supported == arb_topo_multi(TOPO), "%s: supported=%d with %d nodes", where, supported,
              TOPO ? TOPO->nnodes : 1);
    else
        check(supported, "%s: unsupported", where);
    check(isfinite(d->cost(d,
                           &(arb_coll_args_t){.coll = f->coll,
                                              .size = P,
                                              .bytes = b,
                                              .chunk = 65536,
                                              .counts = V(&w, 0, 0),
                                              .displs = V(&w, 0, 1),
                                              .topo = TOPO},
                           m)) == supported,
          "%s: cost finiteness disagrees with the builder", where);
    if (supported && ok) {
        char err[256];
        int rc = arb_sim_run(P, s, ranks, NULL, NULL, err, sizeof(err));
        if (check(rc == 0, "%s: simulation failed: %s", where, err)) {
            for (int r = 0; r < P; r++) {
                bool same = memcmp(w.dst[r], w.want[r], w.dst_len[r]) == 0;
                if (!check(same, "%s: rank %d DST differs", where, r)) {
                    for (size_t i = 0; i < w.dst_len[r]; i++)
                        if (w.dst[r][i] != w.want[r][i]) {
                            fprintf(stderr, "  first at byte %zu: got %u want %u\n", i, w.dst[r][i],
                                    w.want[r][i]);
                            break;
                        }
                    break;
                }
                check(memcmp(w.src[r], w.src_copy[r], w.src_len[r]) == 0,
                      "%s: rank %d SRC modified", where, r);
            }
        }
    }
    for (int r = 0; r < P; r++) arb_sched_free(&s[r]);
    free(s), free(ranks), free(srcp), free(dstp);
    world_free(&w);
}

/* layout 0: one node; 1, 2: nodes of 2 and 3 consecutive ranks; 3: round-robin over 3. The
 * multi-node layouts run the node-aware entries only (the others ignore the topology). */
static void test_correctness_on(const arb_logp_t *m, int layout)
{
    static const int Ps[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 32, 33};
    static const size_t blocks[] = {0, 1, 3, 8};
    static int node[64];
    for (int fi = 0; fi < NFAM; fi++) {
        const family_t *f = &families[fi];
        int before = failures, ran = 0;
        for (int alg = 1; alg < *f->n; alg++)
            for (size_t pi = 0; pi < sizeof(Ps) / sizeof(Ps[0]); pi++) {
                int P = Ps[pi];
                if (layout && !f->tab[alg].topo_aware) continue;
                arb_topo_t t = {.nnodes = 0, .node = node, .inter = {20, 2, 2, 2, 0.001, 0}};
                for (int r = 0; r < P; r++) {
                    node[r] = layout == 1 ? r / 2 : layout == 2 ? r / 3 : r % 3;
                    if (node[r] + 1 > t.nnodes) t.nnodes = node[r] + 1;
                }
                TOPO = layout ? &t : NULL;
                ran++;
                for (int root = 0; root < (f->rooted ? P : 1); root++)
                    for (int inplace = 0; inplace < 2; inplace++) {
                        if (f->vec) {
                            for (int trial = 0; trial < 3; trial++)
                                run_case(f, alg, P, root, 0, inplace, m);
                        } else {
                            for (size_t bi = 0; bi < sizeof(blocks) / sizeof(blocks[0]); bi++)
                                run_case(f, alg, P, root, blocks[bi], inplace, m);
                        }
                    }
                TOPO = NULL;
            }
        if (ran)
            printf("%-11s %d algorithm(s), layout %d: %s\n", f->name, *f->n - 1, layout,
                   failures == before ? "ok" : "FAILED");
    }
}

static void test_correctness(const arb_logp_t *m)
{
    for (int layout = 0; layout < 4; layout++) test_correctness_on(m, layout);
}

static double cost_of(const family_t *f, const char *name, int P, size_t b, const arb_logp_t *m)
{
    for (int i = 1; i < *f->n; i++)
        if (strcmp(f->tab[i].name, name) == 0) {
            arb_coll_args_t a = {.coll = f->coll, .size = P, .bytes = b, .chunk = 65536};
            return f->tab[i].cost(&f->tab[i], &a, m);
        }
    check(false, "%s has no algorithm %s", f->name, name);
    return NAN;
}

static const char *cheapest(const family_t *f, int P, size_t b, const arb_logp_t *m)
{
    int best = 0;
    double bt = INFINITY;
    for (int i = 1; i < *f->n; i++) {
        arb_coll_args_t a = {.coll = f->coll, .size = P, .bytes = b, .chunk = 65536};
        double t = f->tab[i].cost(&f->tab[i], &a, m);
        if (t < bt) bt = t, best = i;
    }
    return best ? f->tab[best].name : "(none)";
}

static void test_costs(void)
{
    static const char *const transports[] = {"ucx", "ofi:shm", "ofi:tcp"};
    size_t cnt[64], dsp[64];
    for (int t = 0; t < 3; t++) {
        arb_logp_t m;
        arb_model_defaults_by_name(transports[t], &m, NULL);
        for (int fi = 0; fi < NFAM; fi++) {
            const family_t *f = &families[fi];
            check(f->tab[0].build == NULL && f->tab[0].cost == NULL &&
                      strcmp(f->tab[0].name, "auto") == 0,
                  "%s: entry 0 is not auto", f->name);
            for (int alg = 1; alg < *f->n; alg++)
                for (int P = 1; P <= 64; P++)
                    for (size_t b = 1; b <= (1u << 22); b *= 16) {
                        for (int r = 0; r < P; r++) cnt[r] = b, dsp[r] = b * (size_t)r;
                        arb_coll_args_t a = {.coll = f->coll,
                                             .size = P,
                                             .bytes = b,
                                             .chunk = 65536,
                                             .counts = cnt,
                                             .displs = dsp,
                                             .rcounts = cnt,
                                             .rdispls = dsp};
                        double c = f->tab[alg].cost(&f->tab[alg], &a, &m);
                        bool want_inf = (strcmp(f->tab[alg].name, "recursive_doubling") == 0 &&
                                         (P & (P - 1))) ||
                                        f->tab[alg].topo_aware; /* one node */
                        check(want_inf ? isinf(c) : (isfinite(c) && c >= 0),
                              "%s/%s P=%d bytes=%zu (%s): cost %g", f->name, f->tab[alg].name, P, b,
                              transports[t], c);
                    }
        }
        /* names arrays match the tables */
        const char *const *names[] = {arb_scatter_alg_names,   arb_scatterv_alg_names,
                                      arb_gather_alg_names,    arb_gatherv_alg_names,
                                      arb_allgather_alg_names, arb_allgatherv_alg_names,
                                      arb_alltoall_alg_names,  arb_alltoallv_alg_names};
        for (int fi = 0; fi < NFAM; fi++) {
            int i = 0;
            for (; names[fi][i]; i++)
                check(i < *families[fi].n && strcmp(names[fi][i], families[fi].tab[i].name) == 0,
                      "%s: names[%d] does not match the table", families[fi].name, i);
            check(i == *families[fi].n, "%s: %d names for %d entries", families[fi].name, i,
                  *families[fi].n);
        }
    }

    arb_logp_t m;
    arb_logp_default_mapped(&m);
    const family_t *ag = &families[4], *a2a = &families[6], *sc = &families[0], *ga = &families[2];
    /* allgather: the stores-and-forward log algorithms win small blocks, the ring large ones */
    check(cost_of(ag, "bruck", 16, 8, &m) < cost_of(ag, "ring", 16, 8, &m),
          "allgather P=16 8 B: bruck %g !< ring %g", cost_of(ag, "bruck", 16, 8, &m),
          cost_of(ag, "ring", 16, 8, &m));
    check(cost_of(ag, "ring", 16, 1 << 20, &m) < cost_of(ag, "bruck", 16, 1 << 20, &m),
          "allgather P=16 1 MiB: ring %g !< bruck %g", cost_of(ag, "ring", 16, 1 << 20, &m),
          cost_of(ag, "bruck", 16, 1 << 20, &m));
    check(strcmp(cheapest(ag, 16, 8, &m), "recursive_doubling") == 0, "allgather P=16 8 B picks %s",
          cheapest(ag, 16, 8, &m));
    check(strcmp(cheapest(ag, 16, 1 << 20, &m), "ring") == 0, "allgather P=16 1 MiB picks %s",
          cheapest(ag, 16, 1 << 20, &m));
    check(strcmp(cheapest(ag, 24, 8, &m), "bruck") == 0, "allgather P=24 8 B picks %s",
          cheapest(ag, 24, 8, &m));
    check(strcmp(cheapest(ag, 24, 1 << 20, &m), "ring") == 0, "allgather P=24 1 MiB picks %s",
          cheapest(ag, 24, 1 << 20, &m));
    /* allgather direct: one round wins small blocks on few ranks, and on more when a hop costs
     * a context switch (L + ARBOR_OVERSUB_WAKE) */
    check(strcmp(cheapest(ag, 4, 8, &m), "direct") == 0, "allgather P=4 8 B picks %s",
          cheapest(ag, 4, 8, &m));
    arb_logp_t busy = m;
    busy.L += 5;
    check(strcmp(cheapest(ag, 12, 8, &busy), "direct") == 0,
          "allgather P=12 8 B oversubscribed picks %s", cheapest(ag, 12, 8, &busy));
    check(strcmp(cheapest(ag, 4, 1 << 20, &busy), "direct") != 0,
          "allgather P=4 1 MiB oversubscribed picks %s", cheapest(ag, 4, 1 << 20, &busy));
    /* alltoall: bruck for small blocks on many ranks, pairwise for large */
    check(strcmp(cheapest(a2a, 64, 8, &m), "bruck") == 0, "alltoall P=64 8 B picks %s",
          cheapest(a2a, 64, 8, &m));
    check(strcmp(cheapest(a2a, 64, 1 << 16, &m), "pairwise") == 0, "alltoall P=64 64 KiB picks %s",
          cheapest(a2a, 64, 1 << 16, &m));
    check(strcmp(cheapest(a2a, 3, 8, &m), "pairwise") == 0, "alltoall P=3 8 B picks %s",
          cheapest(a2a, 3, 8, &m));
    /* scatter / gather: the tree for small blocks on many ranks, flat when bandwidth rules */
    check(strcmp(cheapest(sc, 64, 8, &m), "binomial") == 0, "scatter P=64 8 B picks %s",
          cheapest(sc, 64, 8, &m));
    check(strcmp(cheapest(sc, 64, 1 << 20, &m), "flat") == 0, "scatter P=64 1 MiB picks %s",
          cheapest(sc, 64, 1 << 20, &m));
    check(strcmp(cheapest(ga, 64, 8, &m), "binomial") == 0, "gather P=64 8 B picks %s",
          cheapest(ga, 64, 8, &m));
    check(strcmp(cheapest(ga, 64, 1 << 20, &m), "flat") == 0, "gather P=64 1 MiB picks %s",
          cheapest(ga, 64, 1 << 20, &m));
    printf("costs: allgather P=16 8 B ring=%.3g rd=%.3g bruck=%.3g; 1 MiB ring=%.4g rd=%.4g "
           "bruck=%.4g us\n",
           cost_of(ag, "ring", 16, 8, &m), cost_of(ag, "recursive_doubling", 16, 8, &m),
           cost_of(ag, "bruck", 16, 8, &m), cost_of(ag, "ring", 16, 1 << 20, &m),
           cost_of(ag, "recursive_doubling", 16, 1 << 20, &m),
           cost_of(ag, "bruck", 16, 1 << 20, &m));
}

int main(void)
{
    arb_logp_t m;
    arb_logp_default_mapped(&m);
    test_correctness(&m);
    test_costs();
    printf("unit_movement: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
