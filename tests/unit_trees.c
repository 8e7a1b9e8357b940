/*
 * Unit test (no launcher) of the broadcast tree builders and the LogGP simulator
 * (algorithms/tree.h):
 * - every kind gives a valid spanning tree for P = 1..200 and some large P;
 * - the fixed send orders (binomial 4,2,1 for P = 8, flat, binary), knomial radix 2 = binomial;
 * - Karp is binomial-shaped when T(m) = s(m) and flat when T(m) >> s(m);
 * - Karp is optimal: for P <= 10 against every ordered tree (exhaustive, through
 *   arb_tree_simulate), for P <= 300 against an exact recursion, and never worse than the
 *   other kinds up to P = 4096.
 * Prints a summary; exits non-zero on any failure. No check depends on wall time.
 */
#include "algorithms/tree.h"
#include "arbor.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "unit_check.h"

static bool close_to(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (1 + fabs(a) + fabs(b));
}

/* Models: {L, os, or, g, G} with the byte counts they are used with. */
typedef struct {
    arb_logp_t m;
    size_t bytes;
    const char *name;
} model_case_t;

static const model_case_t models[] = {
    {{.L = 0.5, .os = 0.25, .orecv = 0.25, .g = 1, .G = 0}, 8, "T/s=1"},
    {{.L = 6, .os = 1, .orecv = 1, .g = 2, .G = 0}, 8, "T/s=4"},
    {{.L = 2.5, .os = 0.3, .orecv = 0.4, .g = 1.1, .G = 0}, 8, "T/s=2.9"},
    {{.L = 1.3, .os = 0.7, .orecv = 0.2, .g = 0.45, .G = 0}, 0, "T/s=3.14"},
    {{.L = 100, .os = 1, .orecv = 1, .g = 1, .G = 0}, 8, "T/s=102"},
    {{.L = 0.1, .os = 0.05, .orecv = 0.05, .g = 0.05, .G = 0.00008}, 65536, "ucx 64KiB"},
    {{.L = 15, .os = 2, .orecv = 2, .g = 2, .G = 0.001}, 4096, "tcp 4KiB"},
    {{.L = 0, .os = 0, .orecv = 0, .g = 0, .G = 0}, 0, "all zero"},
};
#define NMODELS (int)(sizeof(models) / sizeof(models[0]))

/* Spanning tree over 0..P-1 rooted at 0: parent/children consistent, each non-root node a
 * child exactly once, every node reachable from the root. */
static bool tree_valid(const arb_tree_t *t, int P, const char *what)
{
    bool ok =
        t->size == P && t->parent[0] == -1 && t->child_start[0] == 0 && t->child_start[P] == P - 1;
    int *seen = calloc((size_t)P, sizeof(int));
    int *queue = malloc((size_t)P * sizeof(int));
    int head = 0, tail = 0;

    for (int v = 0; ok && v < P; v++) {
        ok = t->child_start[v] <= t->child_start[v + 1] && (v == 0 || t->parent[v] >= 0) &&
             t->parent[v] < P;
        for (int i = t->child_start[v]; ok && i < t->child_start[v + 1]; i++) {
            int c = t->children[i];
            ok = c > 0 && c < P && t->parent[c] == v && seen[c]++ == 0;
        }
    }
    if (ok) {
        queue[tail++] = 0;
        while (head < tail) {
            int u = queue[head++];
            for (int i = t->child_start[u]; i < t->child_start[u + 1]; i++)
                queue[tail++] = t->children[i];
        }
        ok = tail == P;
    }
    free(seen);
    free(queue);
    return check(ok, "%s: P = %d is not a valid spanning tree", what, P);
}

static void build_ok(arb_tree_kind_t kind, int P, int radix, const model_case_t *mc, arb_tree_t *t)
{
    arbor_status_t st = arb_tree_build(kind, P, radix, &mc->m, mc->bytes, t);
    if (!check(st == ARBOR_OK, "build %s P %d: status %d", arb_tree_kind_name(kind), P, st)) {
        fprintf(stderr, "cannot continue\n");
        exit(1);
    }
}

static bool children_are(const arb_tree_t *t, int v, const int *want, int n)
{
    if (t->child_start[v + 1] - t->child_start[v] != n) return false;
    return n == 0 || memcmp(&t->children[t->child_start[v]], want, (size_t)n * sizeof(int)) == 0;
}

static void test_valid(void)
{
    static const int big[] = {1000, 4097, 65536, 100003, 1 << 20};
    static const int radix[] = {2, 3, 4, 7, 1000};
    arb_tree_t t;

    for (int P = 1; P <= 200; P++) {
        for (int k = 0; k < ARB_TREE_KINDS; k++) {
            int nr = k == ARB_TREE_KNOMIAL ? (int)(sizeof(radix) / sizeof(radix[0])) : 1;
            int nm = k == ARB_TREE_KARP ? NMODELS : 1;
            for (int r = 0; r < nr; r++) {
                for (int mi = 0; mi < nm; mi++) {
                    build_ok((arb_tree_kind_t)k, P, radix[r], &models[mi], &t);
                    tree_valid(&t, P, arb_tree_kind_name((arb_tree_kind_t)k));
                    arb_tree_free(&t);
                }
            }
        }
    }
    for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
        for (int k = 0; k < ARB_TREE_KINDS; k++) {
            build_ok((arb_tree_kind_t)k, big[i], 3, &models[1], &t);
            tree_valid(&t, big[i], arb_tree_kind_name((arb_tree_kind_t)k));
            arb_tree_free(&t);
        }
    }
}

static void test_orders(void)
{
    arb_tree_t t, u;
    static const int b8_root[] = {4, 2, 1}, b8_4[] = {6, 5}, b8_2[] = {3}, b8_6[] = {7};
    static const int k3_root[] = {9, 18, 3, 6, 1, 2}, k3_3[] = {4, 5}, k3_9[] = {12, 15, 10, 11};

    build_ok(ARB_TREE_BINOMIAL, 8, 0, &models[0], &t);
    check(children_are(&t, 0, b8_root, 3) && children_are(&t, 4, b8_4, 2) &&
              children_are(&t, 2, b8_2, 1) && children_are(&t, 6, b8_6, 1) &&
              children_are(&t, 1, NULL, 0),
          "binomial P = 8: root sends to 4, 2, 1; 4 to 6, 5; 2 to 3; 6 to 7");
    arb_tree_free(&t);

    build_ok(ARB_TREE_KNOMIAL, 27, 3, &models[0], &t);
    check(children_are(&t, 0, k3_root, 6) && children_are(&t, 3, k3_3, 2) &&
              children_are(&t, 9, k3_9, 4),
          "knomial k = 3 P = 27: root sends to 9, 18, 3, 6, 1, 2");
    arb_tree_free(&t);

    for (int P = 1; P <= 300; P++) {
        build_ok(ARB_TREE_BINOMIAL, P, 0, &models[0], &t);
        build_ok(ARB_TREE_KNOMIAL, P, 2, &models[0], &u);
        check(memcmp(t.parent, u.parent, (size_t)P * sizeof(int)) == 0 &&
                  memcmp(t.child_start, u.child_start, ((size_t)P + 1) * sizeof(int)) == 0 &&
                  memcmp(t.children, u.children, (size_t)(P - 1) * sizeof(int)) == 0,
              "knomial radix 2 equals binomial for P = %d", P);
        arb_tree_free(&t);
        arb_tree_free(&u);

        build_ok(ARB_TREE_FLAT, P, 0, &models[0], &t);
        bool ok = t.child_start[1] == P - 1;
        for (int v = 1; v < P; v++) ok = ok && t.children[v - 1] == v && t.parent[v] == 0;
        check(ok, "flat P = %d: root sends to 1..P-1 in order", P);
        arb_tree_free(&t);

        build_ok(ARB_TREE_BINARY, P, 0, &models[0], &t);
        ok = true;
        for (int v = 0; v < P; v++) {
            int want[2], n = 0;
            if (2 * v + 1 < P) want[n++] = 2 * v + 1;
            if (2 * v + 2 < P) want[n++] = 2 * v + 2;
            ok = ok && children_are(&t, v, want, n);
        }
        check(ok, "binary P = %d: children 2v+1 then 2v+2", P);
        arb_tree_free(&t);
    }
}

static void test_errors(void)
{
    arb_tree_t t;
    arb_logp_t neg = {.L = -1}, nan_m = {.L = NAN};

    check(arb_tree_build(ARB_TREE_FLAT, 0, 0, NULL, 0, &t) == ARBOR_ERR_INVALID_ARG, "P = 0");
    check(arb_tree_build(ARB_TREE_KNOMIAL, 8, 1, NULL, 0, &t) == ARBOR_ERR_INVALID_ARG, "radix 1");
    check(arb_tree_build(ARB_TREE_KARP, 8, 0, NULL, 0, &t) == ARBOR_ERR_INVALID_ARG,
          "karp without a model");
    check(arb_tree_build(ARB_TREE_KARP, 8, 0, &neg, 0, &t) == ARBOR_ERR_INVALID_ARG &&
              arb_tree_build(ARB_TREE_KARP, 8, 0, &nan_m, 0, &t) == ARBOR_ERR_INVALID_ARG,
          "karp with a negative / NaN model");
    check(arb_tree_build(ARB_TREE_KINDS, 8, 0, NULL, 0, &t) == ARBOR_ERR_INVALID_ARG, "bad kind");
    check(arb_tree_build(ARB_TREE_FLAT, 8, 0, NULL, 0, NULL) == ARBOR_ERR_INVALID_ARG, "NULL tree");
    check(strcmp(arb_tree_kind_name(ARB_TREE_KARP), "karp") == 0 &&
              strcmp(arb_tree_kind_name(ARB_TREE_BINOMIAL), "binomial") == 0 &&
              strcmp(arb_tree_kind_name(ARB_TREE_KNOMIAL), "knomial") == 0 &&
              strcmp(arb_tree_kind_name(ARB_TREE_BINARY), "binary") == 0 &&
              strcmp(arb_tree_kind_name(ARB_TREE_FLAT), "flat") == 0,
          "kind names");
    arb_tree_free(NULL);

    /* A malformed tree (node 2 listed twice, node 3 unreachable) simulates to INFINITY. */
    int parent[4] = {-1, 0, 0, 0}, cs[5] = {0, 3, 3, 3, 3}, ch[3] = {1, 2, 2};
    arb_tree_t bad = {4, parent, cs, ch};
    check(isinf(arb_tree_simulate(&bad, &models[1].m, 8, NULL, NULL)), "malformed tree");
}

static void test_simulate(void)
{
    arb_tree_t t;
    double ready[4], send[4];

    /* T = 8, s = 2: the flat root sends at 0, 2, 4; arrivals at 8, 10, 12. */
    build_ok(ARB_TREE_FLAT, 4, 0, &models[1], &t);
    double done = arb_tree_simulate(&t, &models[1].m, 8, ready, send);
    check(done == 12 && ready[0] == 0 && ready[1] == 8 && ready[2] == 10 && ready[3] == 12 &&
              send[0] == 0 && send[3] == 12,
          "flat P = 4 under T = 8, s = 2: completion %g", done);
    arb_tree_free(&t);
    /* P = 1 completes at 0. */
    build_ok(ARB_TREE_KARP, 1, 0, &models[1], &t);
    check(arb_tree_simulate(&t, &models[1].m, 8, NULL, NULL) == 0, "P = 1 completes at 0");
    arb_tree_free(&t);
}

/* Ordered-tree isomorphism of a's subtree at x and b's subtree at y. */
static bool same_shape(const arb_tree_t *a, int x, const arb_tree_t *b, int y)
{
    int na = a->child_start[x + 1] - a->child_start[x];
    if (na != b->child_start[y + 1] - b->child_start[y]) return false;
    for (int i = 0; i < na; i++)
        if (!same_shape(a, a->children[a->child_start[x] + i], b,
                        b->children[b->child_start[y] + i]))
            return false;
    return true;
}

static void test_karp_shapes(void)
{
    const model_case_t *unit = &models[0]; /* T = s = 1 */
    arb_logp_t lat = {.L = 1000, .os = 0, .orecv = 0, .g = 1, .G = 0};
    model_case_t flat = {lat, 8, "T/s=1000"};
    arb_tree_t k, b;

    for (int P = 1; P <= 200; P++) {
        build_ok(ARB_TREE_KARP, P, 0, unit, &k);
        build_ok(ARB_TREE_BINOMIAL, P, 0, unit, &b);
        double tk = arb_tree_simulate(&k, &unit->m, unit->bytes, NULL, NULL);
        double tb = arb_tree_simulate(&b, &unit->m, unit->bytes, NULL, NULL);
        check(tk == tb && tk == ceil(log2((double)P)),
              "T = s, P = %d: karp %g, binomial %g, want ceil(log2 P)", P, tk, tb);
        if ((P & (P - 1)) == 0)
            check(same_shape(&k, 0, &b, 0), "T = s, P = %d: karp has the binomial shape", P);
        arb_tree_free(&k);
        arb_tree_free(&b);

        build_ok(ARB_TREE_KARP, P, 0, &flat, &k);
        bool ok = k.child_start[1] == P - 1;
        for (int v = 1; v < P; v++) ok = ok && k.children[v - 1] == v;
        check(ok, "T >> s, P = %d: karp is the flat tree", P);
        arb_tree_free(&k);
    }
}

/* Exact optimum for the model of arb_tree_simulate: the root's first child takes a subtree
 * of a nodes (ready at T, then optimal), the root keeps n - a and goes on at s. All non-root
 * nodes are alike, so f(n) = min over a of max(T + f(a), s + f(n - a)), f(1) = 0. */
static void optimum(double T, double s, int nmax, double *f)
{
    f[1] = 0;
    for (int n = 2; n <= nmax; n++) {
        double best = INFINITY;
        for (int a = 1; a < n; a++) {
            double x = T + f[a], y = s + f[n - a];
            double c = x > y ? x : y;
            if (c < best) best = c;
        }
        f[n] = best;
    }
}

/* Minimum simulated completion over every ordered tree on P nodes. Numbering nodes in
 * preorder makes parent[v] < v and siblings increasing, so enumerating all parent arrays with
 * parent[v] < v (children in id order) covers every ordered tree: (P-1)! of them. */
static double brute_force(int P, const model_case_t *mc)
{
    int parent[16], cs[17], ch[16];
    arb_tree_t t = {P, parent, cs, ch};
    double best = INFINITY;

    parent[0] = -1;
    for (int v = 1; v < P; v++) parent[v] = 0;
    for (;;) {
        memset(cs, 0, sizeof(cs));
        for (int v = 1; v < P; v++) cs[parent[v] + 1]++;
        for (int v = 0; v < P; v++) cs[v + 1] += cs[v];
        int fill[16];
        memcpy(fill, cs, sizeof(fill));
        for (int v = 1; v < P; v++) ch[fill[parent[v]]++] = v;
        double c = arb_tree_simulate(&t, &mc->m, mc->bytes, NULL, NULL);
        if (c < best) best = c;
        int v = P - 1; /* odometer: parent[v] runs over 0..v-1 */
        while (v >= 1 && ++parent[v] == v) parent[v--] = 0;
        if (v < 1) break;
    }
    return best;
}

static void test_karp_optimal(void)
{
    enum { NMAX = 300 };
    double f[NMAX + 1];
    arb_tree_t k;
    long trees = 0;

    for (int mi = 0; mi < NMODELS; mi++) {
        const model_case_t *mc = &models[mi];
        optimum(arb_logp_arrival(&mc->m, mc->bytes), arb_logp_gap(&mc->m, mc->bytes), NMAX, f);
        for (int P = 1; P <= NMAX; P++) {
            build_ok(ARB_TREE_KARP, P, 0, mc, &k);
            double tk = arb_tree_simulate(&k, &mc->m, mc->bytes, NULL, NULL);
            check(close_to(tk, f[P]), "%s P = %d: karp %.9g, optimum %.9g", mc->name, P, tk, f[P]);
            if (P <= 10 && mi < 5) {
                double bf = brute_force(P, mc);
                long n = 1;
                for (int i = 2; i < P; i++) n *= i;
                trees += n;
                check(close_to(tk, bf) && close_to(bf, f[P]),
                      "%s P = %d: karp %.9g, exhaustive %.9g, recursion %.9g", mc->name, P, tk, bf,
                      f[P]);
            }
            arb_tree_free(&k);
        }
    }
    printf("karp optimal: P <= %d against the recursion (%d models), P <= 10 against all %ld "
           "ordered trees (5 models)\n",
           NMAX, NMODELS, trees);
}

static void test_karp_never_worse(void)
{
    static const int sizes[] = {2,   3,   5,   7,    8,    13,   16,   31,   64,   100, 127,
                                128, 255, 256, 1000, 1023, 1024, 2047, 3001, 4095, 4096};
    static const struct {
        arb_tree_kind_t kind;
        int radix;
    } others[] = {{ARB_TREE_BINOMIAL, 0},
                  {ARB_TREE_KNOMIAL, 3},
                  {ARB_TREE_KNOMIAL, 4},
                  {ARB_TREE_BINARY, 0},
                  {ARB_TREE_FLAT, 0}};
    arb_tree_t k, o;

    for (int mi = 0; mi < NMODELS; mi++) {
        const model_case_t *mc = &models[mi];
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
            int P = sizes[i];
            build_ok(ARB_TREE_KARP, P, 0, mc, &k);
            double tk = arb_tree_simulate(&k, &mc->m, mc->bytes, NULL, NULL);
            for (size_t j = 0; j < sizeof(others) / sizeof(others[0]); j++) {
                build_ok(others[j].kind, P, others[j].radix, mc, &o);
                double to = arb_tree_simulate(&o, &mc->m, mc->bytes, NULL, NULL);
                check(tk <= to * (1 + 1e-12), "%s P = %d: karp %g worse than %s(%d) %g", mc->name,
                      P, tk, arb_tree_kind_name(others[j].kind), others[j].radix, to);
                arb_tree_free(&o);
            }
            arb_tree_free(&k);
        }
    }
}

static double now_s(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC); /* C11; clock_gettime needs POSIX */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void report_big(void)
{
    arb_tree_t k;
    double t0 = now_s();
    build_ok(ARB_TREE_KARP, 1 << 20, 0, &models[1], &k);
    double t1 = now_s();
    double done = arb_tree_simulate(&k, &models[1].m, models[1].bytes, NULL, NULL);
    double t2 = now_s();
    tree_valid(&k, 1 << 20, "karp");
    printf("karp P = 1048576: build %.1f ms, simulate %.1f ms, completion %g us "
           "(information only)\n",
           1e3 * (t1 - t0), 1e3 * (t2 - t1), done);
    arb_tree_free(&k);
}

int main(void)
{
    test_valid();
    test_orders();
    test_errors();
    test_simulate();
    test_karp_shapes();
    test_karp_optimal();
    test_karp_never_worse();
    report_big();
    printf("unit_trees: %d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
