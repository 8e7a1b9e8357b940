/*
 * Unit test (no launcher) of the reduction schedule builders: reduce, allreduce,
 * reduce_scatter, scan, exscan (algorithms/reduce.c, allreduce.c, reduce_scatter.c, scan.c).
 * Every algorithm of every family, P = 1..17, 24, 32, 33, every root, counts 0, 1, 2, 5, 37:
 * all P schedules run together in the simulator (tests/sched_sim.h) on real buffers with two
 * ops, and every element is checked against the result computed here in rank order:
 * - a commutative one (64-bit wrapping sum), and
 * - a non-commutative one: composition of affine maps x -> a x + b (mod 2^64), where any
 *   deviation from rank order changes the result;
 * plus the in-place layout (SRC == DST), reduce's non-root DST and exscan's rank-0 DST staying
 * untouched, and reduce_scatter with uneven counts (zeros included). Algorithms that do not
 * support a case must say ARBOR_ERR_UNSUPPORTED and cost INFINITY; supported ones have finite,
 * non-negative costs. The selector must flip from recursive doubling (small vectors) to a
 * bandwidth algorithm (large) for allreduce.
 * Prints a summary; exits non-zero on any failure.
 */
#include "algorithms/coll.h"
#include "algorithms/logp.h"
#include "algorithms/sched.h"
#include "arbor.h"
#include "coll/coll_direct.h"
#include "tests/sched_sim.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_check.h"

typedef struct {
    uint64_t a, b;
} elem_t; /* an affine map, or (sum, unused) */

static elem_t value(int rank, size_t i)
{
    elem_t e = {(uint64_t)rank * 6364136223846793005ull + i * 1442695040888963407ull + 3,
                (uint64_t)rank * 7919u + i * 104729u + 1};
    e.a |= 1;
    return e;
}

static elem_t apply(int commutative, elem_t x, elem_t y) /* x op y */
{
    if (commutative) return (elem_t){x.a + y.a, x.b + y.b};
    /* first x then y: y(x(v)) = ya (xa v + xb) + yb */
    return (elem_t){x.a * y.a, y.a * x.b + y.b};
}

static void combine(void *inout, const void *in, size_t bytes, int order, void *arg)
{
    int commutative = *(int *)arg;
    elem_t *d = inout;
    const elem_t *s = in;
    for (size_t i = 0; i < bytes / sizeof(elem_t); i++)
        d[i] = order == ARB_COMBINE_AFTER ? apply(commutative, d[i], s[i])
                                          : apply(commutative, s[i], d[i]);
}

/* op over ranks lo..hi-1 of element i, in order. */
static elem_t fold_ranks(int commutative, int lo, int hi, size_t i)
{
    elem_t acc = value(lo, i);
    for (int r = lo + 1; r < hi; r++) acc = apply(commutative, acc, value(r, i));
    return acc;
}

static const elem_t SENT = {0xdeadbeefdeadbeefull, 0x5a5a5a5a5a5a5a5aull};

static bool same(elem_t x, elem_t y)
{
    return x.a == y.a && x.b == y.b;
}

static const arb_logp_t MODEL = {2.0, 0.4, 0.4, 0.6, 0.0005, 0, 0, 0, 0};

/* The topology of the current pass (NULL: one node). The node-aware algorithms run only with
 * one; every algorithm must also give exact results with one (per-link costs change the
 * shapes Karp and the selector pick). */
static const arb_topo_t *TOPO;

/* Schedules that run one-copy on symmetric buffers (arb_direct_schedule_ok on every rank), per
 * family: each is also run in the simulator's one-copy mode. */
static int one_copy_runs[ARB_COLL_KINDS];

/* The buffers of rank r for one run: SRC holds the rank's values, DST the sentinel (in place:
 * the values, SRC aliasing DST). */
static void lay_buffers(arb_coll_t coll, int r, size_t n, size_t total, size_t dn, int in_place,
                        elem_t **src, elem_t **dst, arb_sim_rank_t *rk)
{
    src[r] = malloc((total + 1) * sizeof(elem_t));
    dst[r] = malloc((dn + 1) * sizeof(elem_t));
    for (size_t i = 0; i < total; i++) src[r][i] = value(r, i);
    for (size_t i = 0; i <= dn; i++) dst[r][i] = SENT;
    if (in_place && coll != ARB_COLL_REDUCE_SCATTER) {
        for (size_t i = 0; i < n; i++) dst[r][i] = src[r][i];
        free(src[r]);
        src[r] = dst[r];
    }
    memset(rk, 0, sizeof(*rk));
    rk->buf[ARB_BUF_SRC] = (uint8_t *)src[r];
    rk->buf[ARB_BUF_DST] = (uint8_t *)dst[r];
    rk->block = sizeof(elem_t);
}

static void free_buffers(int P, elem_t **src, elem_t **dst)
{
    for (int r = 0; r < P; r++) {
        if (src[r] != dst[r]) free(src[r]);
        free(dst[r]);
        src[r] = dst[r] = NULL;
    }
}

/* Runs family coll with algorithm alg on P ranks; checks results. Schedules that may run
 * one-copy run a second time in the simulator's one-copy mode, checked the same way. */
static void run_case(arb_coll_t coll, const arb_alg_desc_t *alg, int P, int root, size_t n,
                     int commutative, int in_place, const size_t *rs_counts)
{
    arb_sched_t *s = calloc((size_t)P, sizeof(*s));
    arb_sim_rank_t *rk = calloc((size_t)P, sizeof(*rk));
    elem_t **src = calloc((size_t)P, sizeof(*src)), **dst = calloc((size_t)P, sizeof(*dst));
    size_t total = n;
    if (coll == ARB_COLL_REDUCE_SCATTER) {
        total = 0;
        for (int r = 0; r < P; r++) total += rs_counts[r];
    }
    const char *name = arb_coll_name(coll);
    bool unsupported = false, one_copy = P > 1;
    for (int r = 0; r < P; r++) {
        arb_coll_args_t a = {.coll = coll,
                             .rank = r,
                             .size = P,
                             .root = root,
                             .bytes = total * sizeof(elem_t),
                             .chunk = 64,
                             .count = n,
                             .counts = rs_counts,
                             .commutative = commutative,
                             .topo = TOPO,
                             .one_copy = 1}; /* every algorithm priced (coll.h) */
        arb_sched_init(&s[r]);
        arbor_status_t st = alg->build(alg, &a, &MODEL, &s[r]);
        double cost = alg->cost(alg, &a, &MODEL);
        if (st == ARBOR_ERR_UNSUPPORTED) {
            check(isinf(cost), "%s/%s P %d: unsupported but cost %g", name, alg->name, P, cost);
            unsupported = true;
            continue;
        }
        check(st == ARBOR_OK, "%s/%s P %d rank %d: build %d", name, alg->name, P, r, st);
        check(isfinite(cost) && cost >= 0, "%s/%s P %d: cost %g", name, alg->name, P, cost);
        /* One-copy runs on the one-node pass only (one node is where the path runs; the
         * multi-node passes would quadruple the time, which the ASan tier feels). */
        one_copy &= TOPO == NULL && arb_direct_schedule_ok(&s[r], coll);
    }
    if (unsupported) goto out;
    for (int mode = 0; mode < 2; mode++) {
        if (mode == 1 && !one_copy) break;
        if (mode == 1) one_copy_runs[coll]++;
        for (int r = 0; r < P; r++)
            lay_buffers(coll, r, n, total, coll == ARB_COLL_REDUCE_SCATTER ? rs_counts[r] : n,
                        in_place, src, dst, &rk[r]);
        char err[256];
        int rc = mode ? arb_sim_run_one_copy(P, s, rk, combine, &commutative, err, sizeof(err))
                      : arb_sim_run(P, s, rk, combine, &commutative, err, sizeof(err));
        const char *how = mode ? " one-copy" : "";
        if (!check(rc == 0, "%s/%s%s P %d root %d n %zu comm %d inplace %d: %s", name, alg->name,
                   how, P, root, n, commutative, in_place, err))
            goto out;
        for (int r = 0; r < P; r++) {
            size_t off = 0, dn = n;
            int lo = 0, hi = P;
            bool untouched = false;
            switch (coll) {
            case ARB_COLL_REDUCE:
                untouched = r != root;
                break;
            case ARB_COLL_SCAN:
                hi = r + 1;
                break;
            case ARB_COLL_EXSCAN:
                hi = r, untouched = r == 0;
                break;
            case ARB_COLL_REDUCE_SCATTER:
                for (int q = 0; q < r; q++) off += rs_counts[q];
                dn = rs_counts[r];
                break;
            default:
                break;
            }
            for (size_t i = 0; i < dn; i++) {
                elem_t want = untouched ? (in_place ? value(r, i) : SENT)
                                        : fold_ranks(commutative, lo, hi, off + i);
                if (!check(same(dst[r][i], want),
                           "%s/%s%s P %d root %d n %zu comm %d inplace %d: rank "
                           "%d element %zu",
                           name, alg->name, how, P, root, n, commutative, in_place, r, i))
                    break;
            }
            check(same(dst[r][dn], SENT), "%s/%s%s P %d: rank %d wrote past its DST", name,
                  alg->name, how, P, r);
        }
        free_buffers(P, src, dst);
    }
out:
    free_buffers(P, src, dst);
    for (int r = 0; r < P; r++) arb_sched_free(&s[r]);
    free(s), free(rk), free(src), free(dst);
}

static void family_pass(arb_coll_t coll);

/* Each family on one node, then on nodes of 2 ranks (blocks), of 3, and round-robin over 3. */
static void family(arb_coll_t coll)
{
    static int node[40];
    for (int layout = 0; layout < 4; layout++) {
        arb_topo_t t = {.nnodes = 0, .node = node, .inter = {20, 2, 2, 2, 0.001, 0, 0, 0, 0}};
        for (int r = 0; r < 40; r++) {
            node[r] = layout == 1 ? r / 2 : layout == 2 ? r / 3 : r % 3;
            if (node[r] + 1 > t.nnodes) t.nnodes = node[r] + 1;
        }
        TOPO = layout ? &t : NULL;
        family_pass(coll);
    }
    TOPO = NULL;
}

static void family_pass(arb_coll_t coll)
{
    const arb_topo_t *pass_topo = TOPO;
    static const int Ps[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 24, 32, 33};
    static const size_t ns[] = {0, 1, 2, 5, 37};
    int nalgs;
    const arb_alg_desc_t *algs = arb_alg_table(coll, &nalgs);
    for (int k = 1; k < nalgs; k++)
        for (size_t pi = 0; pi < sizeof(Ps) / sizeof(Ps[0]); pi++) {
            int P = Ps[pi];
            arb_topo_t sized;
            const arb_topo_t *whole = pass_topo;
            TOPO = whole;
            if (whole) { /* the nodes this team of P spans */
                sized = *whole;
                sized.nnodes = 0;
                for (int r = 0; r < P; r++)
                    if (sized.node[r] + 1 > sized.nnodes) sized.nnodes = sized.node[r] + 1;
                TOPO = &sized;
            }
            for (size_t ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ni++)
                for (int comm = 0; comm < 2; comm++)
                    for (int ip = 0; ip < 2; ip++) {
                        if (coll == ARB_COLL_REDUCE_SCATTER) {
                            size_t *c = malloc(sizeof(size_t) * (size_t)P);
                            for (int r = 0; r < P; r++)
                                c[r] = ni == 4 ? (size_t)((r * 7 + 3) % 5) : ns[ni];
                            run_case(coll, &algs[k], P, 0, 0, comm, ip, c);
                            free(c);
                            continue;
                        }
                        int nroots = coll == ARB_COLL_REDUCE ? P : 1;
                        for (int root = 0; root < nroots; root++)
                            run_case(coll, &algs[k], P, root, ns[ni], comm, ip, NULL);
                    }
        }
}

/* Allreduce: the model prefers the one-round direct exchange for 8 bytes on few ranks (and on
 * any number when hops are dear), recursive doubling on many, a bandwidth algorithm for 16 MiB,
 * and recursive doubling for 16 MiB with a non-commutative op (reduce_scatter_allgather, which
 * moves less, is priced only for the one-copy path: coll.h, one_copy). */
static void selector(void)
{
    for (int P = 2; P <= 64; P *= 2) {
        double pred[16];
        arb_coll_args_t a = {.coll = ARB_COLL_ALLREDUCE,
                             .size = P,
                             .bytes = 8,
                             .count = 1,
                             .chunk = 65536,
                             .commutative = 1};
        arb_logp_t m = {2.0, 0.4, 0.4, 0.6, 0.0002, 0, 0, 0, 0};
        int small = arb_select(&a, &m, 0, pred);
        a.bytes = 16u << 20, a.count = 2u << 20;
        int large = arb_select(&a, &m, 0, pred);
        int n;
        const arb_alg_desc_t *t = arb_alg_table(ARB_COLL_ALLREDUCE, &n);
        /* Few ranks: one round of P - 1 sends beats log2 P latencies; many: the gaps add up.
         * At P = 2 both are the same single exchange (a tie keeps the earlier entry). */
        const char *want_small = P > 2 && P <= 8 ? "direct" : "recursive_doubling";
        check(strcmp(t[small].name, want_small) == 0, "allreduce 8 B P %d: %s", P, t[small].name);
        check(strcmp(t[large].name, "recursive_doubling") != 0 &&
                  strcmp(t[large].name, "direct") != 0,
              "allreduce 16 MiB P %d: %s", P, t[large].name);
        /* A hop as dear as on an oversubscribed node (L + ARBOR_OVERSUB_WAKE): direct. */
        arb_logp_t over = {5.1, 0.05, 0.05, 0.05, 0.00008, 0, 0, 0, 0};
        a.bytes = 8, a.count = 1;
        int busy = arb_select(&a, &over, 0, pred);
        check(strcmp(t[busy].name, P > 2 ? "direct" : "recursive_doubling") == 0,
              "allreduce 8 B P %d oversubscribed: %s", P, t[busy].name);
        a.bytes = 16u << 20, a.count = 2u << 20;
        a.commutative = 0;
        int nc = arb_select(&a, &m, 0, pred);
        check(strcmp(t[nc].name, "recursive_doubling") == 0,
              "allreduce non-commutative P %d picks %s", P, t[nc].name);
    }
}

/* Index of a family's algorithm by name. */
static const arb_alg_desc_t *alg_named(arb_coll_t coll, const char *name)
{
    int n;
    const arb_alg_desc_t *t = arb_alg_table(coll, &n);
    for (int i = 1; i < n; i++)
        if (!strcmp(t[i].name, name)) return &t[i];
    return NULL;
}

/* Whether alg's schedules of every rank may run one-copy (arb_direct_schedule_ok). */
static bool one_copy_ok(arb_coll_t coll, const char *name, int P, int root, int commutative)
{
    const arb_alg_desc_t *alg = alg_named(coll, name);
    size_t counts[16];
    for (int r = 0; r < P; r++) counts[r] = (size_t)(r % 3) + 2;
    bool ok = alg != NULL;
    for (int r = 0; ok && r < P; r++) {
        arb_coll_args_t a = {.coll = coll,
                             .rank = r,
                             .size = P,
                             .root = root,
                             .bytes = 37 * sizeof(elem_t),
                             .chunk = 64,
                             .count = 37,
                             .counts = counts,
                             .commutative = commutative};
        arb_sched_t s;
        arb_sched_init(&s);
        ok = alg->build(alg, &a, &MODEL, &s) == ARBOR_OK && arb_direct_schedule_ok(&s, coll);
        arb_sched_free(&s);
    }
    return ok;
}

/* The one-copy rule (coll/coll_direct.c) admits the reduction schedules built for it and
 * refuses those that combine into what they just sent; the simulator's one-copy mode shows
 * why: recursive doubling run that way (each rank combining into the vector its partner is
 * still to read) gives wrong results. */
static void one_copy_rule(void)
{
    for (int P = 2; P <= 9; P++)
        for (int comm = 0; comm < 2; comm++) {
            check(one_copy_ok(ARB_COLL_ALLREDUCE, "reduce_scatter_allgather", P, 0, comm),
                  "one copy: allreduce reduce_scatter_allgather P %d comm %d refused", P, comm);
            check(!comm || one_copy_ok(ARB_COLL_ALLREDUCE, "rabenseifner", P, 0, comm),
                  "one copy: allreduce rabenseifner P %d refused", P);
            check(!one_copy_ok(ARB_COLL_ALLREDUCE, "ring", P, 0, comm) || P == 2,
                  "one copy: allreduce ring P %d admitted", P);
            check(!one_copy_ok(ARB_COLL_ALLREDUCE, "recursive_doubling", P, 0, comm),
                  "one copy: allreduce recursive_doubling P %d admitted", P);
            check(!one_copy_ok(ARB_COLL_ALLREDUCE, "direct", P, 0, comm),
                  "one copy: allreduce direct P %d admitted (its in-place form rewrites SRC)", P);
            check(one_copy_ok(ARB_COLL_REDUCE_SCATTER, "pairwise", P, 0, comm),
                  "one copy: reduce_scatter pairwise P %d comm %d refused", P, comm);
            for (int root = 0; root < P; root++)
                check(one_copy_ok(ARB_COLL_REDUCE, "direct", P, root, comm),
                      "one copy: reduce direct P %d root %d comm %d refused", P, root, comm);
        }
    check(one_copy_runs[ARB_COLL_ALLREDUCE] > 0 && one_copy_runs[ARB_COLL_REDUCE] > 0 &&
              one_copy_runs[ARB_COLL_REDUCE_SCATTER] > 0,
          "one-copy simulator runs: allreduce %d reduce %d reduce_scatter %d",
          one_copy_runs[ARB_COLL_ALLREDUCE], one_copy_runs[ARB_COLL_REDUCE],
          one_copy_runs[ARB_COLL_REDUCE_SCATTER]);

    const arb_alg_desc_t *rd = alg_named(ARB_COLL_ALLREDUCE, "recursive_doubling");
    enum { P = 2, N = 5 };
    arb_sched_t s[P];
    arb_sim_rank_t rk[P];
    elem_t *src[P], *dst[P];
    int commutative = 1;
    for (int r = 0; r < P; r++) {
        arb_coll_args_t a = {.coll = ARB_COLL_ALLREDUCE,
                             .rank = r,
                             .size = P,
                             .bytes = N * sizeof(elem_t),
                             .chunk = 64,
                             .count = N,
                             .commutative = 1};
        arb_sched_init(&s[r]);
        rd->build(rd, &a, &MODEL, &s[r]);
        lay_buffers(ARB_COLL_ALLREDUCE, r, N, N, N, 0, src, dst, &rk[r]);
    }
    char err[256];
    int rc = arb_sim_run_one_copy(P, s, rk, combine, &commutative, err, sizeof(err));
    bool right = rc == 0;
    for (int r = 0; r < P; r++)
        for (size_t i = 0; right && i < N; i++) right = same(dst[r][i], fold_ranks(1, 0, P, i));
    check(!right, "one-copy simulator: recursive doubling read in place gave the right sums");
    free_buffers(P, src, dst);
    for (int r = 0; r < P; r++) arb_sched_free(&s[r]);
}

int main(void)
{
    family(ARB_COLL_REDUCE);
    family(ARB_COLL_ALLREDUCE);
    family(ARB_COLL_REDUCE_SCATTER);
    family(ARB_COLL_SCAN);
    family(ARB_COLL_EXSCAN);
    selector();
    one_copy_rule();
    printf("unit_reduction: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
