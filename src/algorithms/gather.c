/*
 * Gather and gatherv (coll.h: block = one rank's piece; every rank's SRC holds one block, the
 * root's DST P blocks in rank order; gatherv: block = 1 byte, counts / displs in bytes).
 *
 * binomial: scatter's tree reversed (scatter.c). Over virtual ranks v = (rank - root) mod P an
 *   inner node copies its own block to SCRATCH[0] and receives every child's subtree (virtual
 *   ranks [c, c + n)) into SCRATCH[c - v] in one round, then sends its whole subtree to its
 *   parent; a leaf sends its SRC block directly. The root receives straight into DST: a range
 *   that wraps past rank P - 1 travels as two messages, split by both ends at the same point,
 *   so no rotation is needed at the end.
 * flat: every rank sends its block to the root, which receives them all in one round.
 * gatherv flat: the same with counts[r] bytes landing at displs[r]; a rank that is not the
 *   root knows only counts[rank]. Empty pieces send no message.
 *
 * The root's own block is a COPY SRC -> DST + root; for in-place calls the core points SRC at
 * DST + root, so the copy has equal ends and the executor skips it.
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
        arb_sched_copy(s, 0, ARB_BUF_DST, (uint64_t)root, ARB_BUF_SRC, 0, 1, -1);
        for (int d = 1; d < P; d *= 2) {
            int peer = (d + root) % P,
                k = arb_binomial_split(d, arb_binomial_subtree(d, P), root, P, st, ln);
            for (int i = 0; i < k; i++)
                arb_sched_recv(s, 0, peer, ARB_BUF_DST, (uint64_t)st[i], (uint64_t)ln[i], 0, -1);
        }
        return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
    }
    int parent = (v - l + root) % P, k = 1;
    st[0] = 0, ln[0] = n;
    if (v == l) k = arb_binomial_split(v, n, root, P, st, ln); /* to the root: as it splits */
    if (n == 1) {
        arb_sched_send(s, 0, parent, ARB_BUF_SRC, 0, 1, -1);
    } else {
        s->scratch_blocks = (size_t)n;
        arb_sched_copy(s, 0, ARB_BUF_SCRATCH, 0, ARB_BUF_SRC, 0, 1, -1);
        for (int d = 1; d < n; d *= 2)
            arb_sched_recv(s, 0, (v + d + root) % P, ARB_BUF_SCRATCH, (uint64_t)d,
                           (uint64_t)arb_binomial_subtree(v + d, P), 0, -1);
        for (int i = 0, off = 0; i < k; off += ln[i], i++)
            arb_sched_send(s, 1, parent, ARB_BUF_SCRATCH, (uint64_t)off, (uint64_t)ln[i], -1);
    }
    return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
}

/* Under LogGP: a node is ready when its last child's subtree has landed, absorbing arrivals at
 * most one per gap (children in order of size, roughly the order they arrive); the root's
 * ready time is the completion. */
static double cost_binomial(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                            const arb_logp_t *m)
{
    (void)alg;
    int P = a->size;
    if (P == 1 || a->bytes == 0) return 0;
    double *ready = calloc((size_t)P, sizeof(double));
    if (!ready) return INFINITY;
    for (int v = P - 1; v >= 0; v--) { /* children are larger virtual ranks */
        double t = 0;
        int first = 1;
        for (int d = 1; d < arb_binomial_subtree(v, P); d *= 2) {
            size_t bytes = (size_t)arb_binomial_subtree(v + d, P) * a->bytes;
            double arr = ready[v + d] + arb_logp_arrival(m, bytes);
            t = first ? arr : fmax(t + arb_logp_gap(m, bytes), arr);
            first = 0;
        }
        ready[v] = t;
    }
    double done = ready[0];
    free(ready);
    return done;
}

static arbor_status_t build_flat(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                 const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    int P = a->size, root = a->root, me = a->rank;
    if (a->bytes == 0) return ARBOR_OK;
    if (me == root) {
        arb_sched_copy(s, 0, ARB_BUF_DST, (uint64_t)root, ARB_BUF_SRC, 0, 1, -1);
        for (int i = 1; i < P; i++) {
            int r = (root + i) % P;
            arb_sched_recv(s, 0, r, ARB_BUF_DST, (uint64_t)r, 1, 0, -1);
        }
    } else {
        arb_sched_send(s, 0, root, ARB_BUF_SRC, 0, 1, -1);
    }
    return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
}

/* The root absorbs P - 1 messages one gap apart after the first lands. */
static double flat_cost(int P, size_t bytes, const arb_logp_t *m)
{
    if (P == 1) return 0;
    return arb_logp_arrival(m, bytes) + (P - 2) * arb_logp_gap(m, bytes);
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
            arb_sched_copy(s, 0, ARB_BUF_DST, a->displs[root], ARB_BUF_SRC, 0, a->counts[root], -1);
        for (int i = 1; i < P; i++) {
            int r = (root + i) % P;
            if (a->counts[r])
                arb_sched_recv(s, 0, r, ARB_BUF_DST, a->displs[r], a->counts[r], 0, -1);
        }
    } else if (a->counts[me]) {
        arb_sched_send(s, 0, root, ARB_BUF_SRC, 0, a->counts[me], -1);
    }
    return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
}

/* Priced with the caller's own piece as the typical one. */
static double cost_flatv(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)alg;
    return flat_cost(a->size, a->bytes, m);
}

const char *const arb_gather_alg_names[] = {"auto", "binomial", "flat", NULL};

const arb_alg_desc_t arb_gather_algs[] = {
    {"auto", "cheapest predicted by the LogGP model", NULL, NULL, 0, 0, 0, 0},
    {"binomial", "binomial tree gathering each subtree's blocks upward", build_binomial,
     cost_binomial, 0, 2, 0, 0},
    {"flat", "every rank sends its block to the root", build_flat, cost_flat, 0, 0, 0, 0},
};
const int arb_gather_nalgs = sizeof(arb_gather_algs) / sizeof(arb_gather_algs[0]);

const char *const arb_gatherv_alg_names[] = {"auto", "flat", NULL};

const arb_alg_desc_t arb_gatherv_algs[] = {
    {"auto", "cheapest predicted by the LogGP model", NULL, NULL, 0, 0, 0, 0},
    {"flat", "every rank sends counts[rank] bytes to the root, landing at displs[rank]",
     build_flatv, cost_flatv, 0, 0, 0, 0},
};
const int arb_gatherv_nalgs = sizeof(arb_gatherv_algs) / sizeof(arb_gatherv_algs[0]);
