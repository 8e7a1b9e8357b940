/*
 * Scatter and scatterv (coll.h: block = one rank's piece; the root's SRC holds P blocks in rank
 * order, every rank's DST one block; scatterv: block = 1 byte, counts / displs in bytes).
 *
 * binomial: a binomial tree over virtual ranks v = (rank - root) mod P, largest subtree first
 *   (the root sends to P/2, P/4, ..., 1). Each message carries the blocks of the child's whole
 *   subtree, virtual ranks [c, c + n) in virtual order. The root sends straight from SRC: a
 *   virtual range maps to one real range of SRC, or to two when it wraps past rank P - 1, and
 *   then both ends split the message in two at the same point (no staging copy at the root).
 *   An inner node receives its subtree into SCRATCH (round 0), then keeps block 0 and forwards
 *   the sub-ranges (round 1); a leaf receives its block into DST directly.
 * flat: the root sends block r to rank r, in the shifted order root + 1, root + 2, ...
 * scatterv flat: the same with counts[r] bytes at displs[r]; a rank that is not the root knows
 *   only counts[rank] (the core passes zeros elsewhere), which is all it needs. Empty pieces
 *   send no message (both ends know the count).
 *
 * The root's own block is a COPY SRC + root -> DST; for in-place calls the core points DST at
 * SRC + root, so the copy has equal ends and the executor skips it.
 */
#include "algorithms/binomial.h"
#include "algorithms/coll.h"

#include <math.h>
#include <stdlib.h>

static arbor_status_t build_binomial(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                     const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    int P = a->size, root = a->root, me = a->rank;
    if (a->bytes == 0) return ARBOR_OK;
    int v = (me - root + P) % P, l = arb_binomial_lowbit(v, P), n = arb_binomial_subtree(v, P);
    int st[2], ln[2];

    if (v == 0) {
        arb_sched_copy(s, 0, ARB_BUF_DST, 0, ARB_BUF_SRC, (uint64_t)root, 1, -1);
        for (int d = l / 2; d >= 1; d /= 2) { /* l >= P, so every d < P */
            int peer = (d + root) % P,
                k = arb_binomial_split(d, arb_binomial_subtree(d, P), root, P, st, ln);
            for (int i = 0; i < k; i++)
                arb_sched_send(s, 0, peer, ARB_BUF_SRC, (uint64_t)st[i], (uint64_t)ln[i], -1);
        }
    } else {
        int parent = (v - l + root) % P, k = 1;
        ln[0] = n;
        if (v == l) k = arb_binomial_split(v, n, root, P, st, ln); /* from the root: as it splits */
        if (n == 1) {
            arb_sched_recv(s, 0, parent, ARB_BUF_DST, 0, 1, 0, -1);
        } else {
            for (int i = 0, off = 0; i < k; off += ln[i], i++)
                arb_sched_recv(s, 0, parent, ARB_BUF_SCRATCH, (uint64_t)off, (uint64_t)ln[i], 0,
                               -1);
            s->scratch_blocks = (size_t)n;
            arb_sched_copy(s, 1, ARB_BUF_DST, 0, ARB_BUF_SCRATCH, 0, 1, -1);
            for (int d = l / 2; d >= 1; d /= 2)
                if (d < n)
                    arb_sched_send(s, 1, (v + d + root) % P, ARB_BUF_SCRATCH, (uint64_t)d,
                                   (uint64_t)arb_binomial_subtree(v + d, P), -1);
        }
    }
    return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
}

/* Ready time of every virtual rank of the binomial scatter under LogGP: a node's sends go out
 * one gap apart, largest subtree first; the maximum is the completion. */
static double cost_binomial(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                            const arb_logp_t *m)
{
    (void)alg;
    int P = a->size;
    if (P == 1 || a->bytes == 0) return 0;
    double *ready = calloc((size_t)P, sizeof(double)), worst = 0;
    if (!ready) return INFINITY;
    for (int v = 0; v < P; v++) { /* a parent is always a smaller virtual rank */
        double t = ready[v];
        for (int d = arb_binomial_lowbit(v, P) / 2; d >= 1; d /= 2) {
            if (v + d >= P) continue;
            size_t bytes = (size_t)arb_binomial_subtree(v + d, P) * a->bytes;
            ready[v + d] = t + arb_logp_arrival(m, bytes);
            t += arb_logp_gap(m, bytes);
        }
        if (ready[v] > worst) worst = ready[v];
    }
    free(ready);
    return worst;
}

static arbor_status_t build_flat(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                 const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    int P = a->size, root = a->root, me = a->rank;
    if (a->bytes == 0) return ARBOR_OK;
    if (me == root) {
        arb_sched_copy(s, 0, ARB_BUF_DST, 0, ARB_BUF_SRC, (uint64_t)root, 1, -1);
        for (int i = 1; i < P; i++) {
            int r = (root + i) % P;
            arb_sched_send(s, 0, r, ARB_BUF_SRC, (uint64_t)r, 1, -1);
        }
    } else {
        arb_sched_recv(s, 0, root, ARB_BUF_DST, 0, 1, 0, -1);
    }
    return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
}

/* The root's P - 1 sends one gap apart; the last lands T(m) after it leaves. */
static double flat_cost(int P, size_t bytes, const arb_logp_t *m)
{
    if (P == 1) return 0;
    return (P - 2) * arb_logp_gap(m, bytes) + arb_logp_arrival(m, bytes);
}

static double cost_flat(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)alg;
    return a->bytes == 0 ? 0 : flat_cost(a->size, a->bytes, m);
}

static arbor_status_t build_flatv(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                  const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    int P = a->size, root = a->root, me = a->rank;
    if (!a->counts || !a->displs) return ARBOR_ERR_INVALID_ARG;
    if (me == root) {
        if (a->counts[root])
            arb_sched_copy(s, 0, ARB_BUF_DST, 0, ARB_BUF_SRC, a->displs[root], a->counts[root], -1);
        for (int i = 1; i < P; i++) {
            int r = (root + i) % P;
            if (a->counts[r]) arb_sched_send(s, 0, r, ARB_BUF_SRC, a->displs[r], a->counts[r], -1);
        }
    } else if (a->counts[me]) {
        arb_sched_recv(s, 0, root, ARB_BUF_DST, 0, a->counts[me], 0, -1);
    }
    return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
}

/* Priced with the caller's own piece as the typical one (a rank other than the root knows no
 * other count). */
static double cost_flatv(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)alg;
    return flat_cost(a->size, a->bytes, m);
}

const char *const arb_scatter_alg_names[] = {"auto", "binomial", "flat", NULL};

const arb_alg_desc_t arb_scatter_algs[] = {
    {"auto", "cheapest predicted by the LogGP model", NULL, NULL, 0, 0, 0, 0},
    {"binomial", "binomial tree carrying each subtree's blocks, largest subtree first",
     build_binomial, cost_binomial, 0, 2, 0, 0},
    {"flat", "root sends block r to every rank r in turn", build_flat, cost_flat, 0, 0, 0, 0},
};
const int arb_scatter_nalgs = sizeof(arb_scatter_algs) / sizeof(arb_scatter_algs[0]);

const char *const arb_scatterv_alg_names[] = {"auto", "flat", NULL};

const arb_alg_desc_t arb_scatterv_algs[] = {
    {"auto", "cheapest predicted by the LogGP model", NULL, NULL, 0, 0, 0, 0},
    {"flat", "root sends counts[r] bytes from displs[r] to every rank r in turn", build_flatv,
     cost_flatv, 0, 0, 0, 0},
};
const int arb_scatterv_nalgs = sizeof(arb_scatterv_algs) / sizeof(arb_scatterv_algs[0]);
