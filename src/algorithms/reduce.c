/*
 * Reduce over a broadcast tree reversed (coll.h: block = one element, count elements). Every
 * rank with children starts an accumulator from its SRC (the root's is DST; other ranks keep
 * theirs in SCRATCH, since a non-root's DST is not touched), combines what its children send,
 * then sends the accumulator to its parent. Children are heard in reverse send order: the last
 * child a broadcast serves has the smallest subtree and is ready first. Each child's receive is
 * gated chunk by chunk on the previous one and the send to the parent on the last, so large
 * vectors stream up the tree like a broadcast streams down.
 *
 * Commutative ops can use any tree with any root (relabelled, as broadcast does). A
 * non-commutative op needs every subtree to be a contiguous run of ranks combined in rank
 * order: the binomial and flat trees rooted at rank 0 are, so those two run there with
 * children heard in ascending order (each covers the ranks just above the previous ones, so
 * it combines after the accumulator) and rank 0 then sends the result to the real root. The
 * Karp, k-nomial and binary trees are not, and cost INFINITY (ARBOR_ERR_UNSUPPORTED) for them.
 *
 * direct: any op, any root. Every rank sends its vector to the root, which combines all P in
 * rank order into its DST itself (lower ranks before its own, higher after, each receive gated
 * on the previous one for a non-commutative op): the flat tree without the detour through rank
 * 0, and the reduce that runs one-copy on symmetric buffers (coll/coll_direct.c) for any op,
 * since no rank sends from scratch.
 */
#include "algorithms/coll.h"
#include "algorithms/tree.h"

#include <math.h>
#include <stdlib.h>

/* Node-aware trees are built per root, so they are never "ordered". */
static int ordered_kind(int kind)
{
    return kind == ARB_TREE_BINOMIAL || kind == ARB_TREE_FLAT;
}

static int cmp_int(const void *x, const void *y)
{
    return *(const int *)x - *(const int *)y;
}

static arbor_status_t build_tree(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                 const arb_logp_t *m, arb_sched_t *s)
{
    int P = a->size, me = a->rank, root = a->root;
    int ordered = !a->commutative;
    if (ordered && !ordered_kind(alg->variant)) return ARBOR_ERR_UNSUPPORTED;
    if (alg->variant >= ARB_TREE_KARP_NODE && !arb_topo_multi(a->topo))
        return ARBOR_ERR_UNSUPPORTED;
    if (a->count == 0) return ARBOR_OK;
    if (P == 1) {
        arb_sched_copy(s, 0, ARB_BUF_DST, 0, ARB_BUF_SRC, 0, a->count, -1);
        return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
    }

    arb_tree_t tree;
    size_t chunk = a->bytes < a->chunk ? a->bytes : a->chunk;
    int tree_root = ordered ? 0 : root; /* ordered trees run on the ranks as they are */
    arbor_status_t status =
        arb_coll_tree_build(a, m, alg->variant, alg->radix, tree_root, chunk, &tree);
    if (status != ARBOR_OK) return status;

    int v = (me - tree_root + P) % P;
    int nkids = tree.child_start[v + 1] - tree.child_start[v];
    int *kids = malloc(sizeof(int) * (size_t)(nkids ? nkids : 1));
    if (!kids) {
        arb_tree_free(&tree);
        return ARBOR_ERR_NO_MEMORY;
    }
    for (int i = 0; i < nkids; i++) kids[i] = tree.children[tree.child_start[v] + nkids - 1 - i];
    if (ordered) qsort(kids, (size_t)nkids, sizeof(int), cmp_int);

    /* Where this rank's partial result lives: the root's DST; elsewhere SCRATCH. */
    arb_buf_space_t acc = me == root && v == 0 ? ARB_BUF_DST : ARB_BUF_SCRATCH;
    if (acc == ARB_BUF_SCRATCH && nkids) s->scratch_blocks = a->count;
    if (!nkids)
        acc = ARB_BUF_SRC; /* a leaf sends its own data */
    else
        arb_sched_copy(s, 0, acc, 0, ARB_BUF_SRC, 0, a->count, -1);

    int last = -1;
    for (int i = 0; i < nkids; i++) {
        int child = (kids[i] + tree_root) % P;
        last = arb_sched_recv(s, 1, child, acc, 0, a->count, ARB_COMBINE_AFTER, last);
    }
    if (v != 0) {
        int parent = (tree.parent[v] + tree_root) % P;
        arb_sched_send(s, 1, parent, acc, 0, a->count, last);
    } else if (me != root) {
        arb_sched_send(s, 1, root, acc, 0, a->count, last); /* ordered, root elsewhere */
    }
    if (me == root && v != 0) arb_sched_recv(s, 2, 0, ARB_BUF_DST, 0, a->count, 0, -1);
    free(kids);
    arb_tree_free(&tree);
    return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
}

/* The broadcast over the same tree, plus combining: every rank combines each child's vector
 * once, the busiest (largest fan-in) rank most often. An ordered run with the root away from
 * rank 0 pays one more hop. */
static double cost_tree(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    if (!a->commutative && !ordered_kind(alg->variant)) return INFINITY;
    if (alg->variant >= ARB_TREE_KARP_NODE && !arb_topo_multi(a->topo)) return INFINITY;
    if (a->size == 1 || a->bytes == 0) return 0;
    double t = arb_bcast_tree_cost(a, m, alg->variant, alg->radix);
    int fanin = alg->variant == ARB_TREE_FLAT ? a->size - 1 : (int)ceil(log2((double)a->size));
    /* A rank combines each chunk from the landing slot as it lands, while the next chunks of
     * its fanin children are still moving: past the first chunk, combining shows only where it
     * is slower than those streams. Adding fanin whole-vector combines after the transfer (as
     * this did) overpriced a pipelined reduce by up to 1.85x against the LogGP time of its own
     * schedule (unit.costsim: flat, P = 4..8, 256 KiB and 1 MiB). What it left out: every inner
     * rank first copies its own vector into the accumulator (round 0 of build_tree), a local
     * copy of the whole vector before the first combine. bench/fidelity, 1 MiB at P = 2: 168 us
     * predicted before, 131 now, 117-123 measured. */
    size_t chunk = a->chunk && a->chunk < a->bytes ? a->chunk : a->bytes;
    double behind = ceil((double)a->bytes / (double)chunk) - 1;
    double hidden = fanin * behind * arb_logp_gap(m, chunk);
    double rest = fanin * arb_logp_combine(m, a->bytes - chunk);
    t += arb_logp_one_copy(m).G * (double)a->bytes + fanin * arb_logp_combine(m, chunk) +
         (rest > hidden ? rest - hidden : 0);
    if (!a->commutative && a->root != 0) t += arb_logp_arrival(m, a->bytes);
    return t;
}

static arbor_status_t build_direct(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                   const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    int P = a->size, me = a->rank, root = a->root;
    if (a->count == 0) return ARBOR_OK;
    if (me != root) {
        arb_sched_send(s, 0, root, ARB_BUF_SRC, 0, a->count, -1);
        return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
    }
    arb_sched_copy(s, 0, ARB_BUF_DST, 0, ARB_BUF_SRC, 0, a->count, -1);
    int last = -1;
    for (int i = 1; i < P; i++) {
        int from, order;
        if (a->commutative)
            from = (me + i) % P, order = ARB_COMBINE_AFTER;
        else if (i <= me)
            from = me - i, order = ARB_COMBINE_BEFORE;
        else
            from = i, order = ARB_COMBINE_AFTER;
        int rx = arb_sched_recv(s, 0, from, ARB_BUF_DST, 0, a->count, order, last);
        if (!a->commutative) last = rx;
    }
    return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
}

/* One latency and P - 2 gaps into the root, which combines P - 1 vectors. */
static double cost_direct(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)alg;
    if (!a->one_copy) return INFINITY; /* coll.h, one_copy: forced only on two copies */
    if (a->size == 1 || a->bytes == 0) return 0;
    return arb_logp_direct(m, a->size, a->bytes, a->size - 1);
}

const char *const arb_reduce_alg_names[] = {"auto", "karp",   "binomial",  "knomial",   "binary",
                                            "flat", "direct", "karp_node", "two_level", NULL};

const arb_alg_desc_t arb_reduce_algs[] = {
    {"auto", "cheapest predicted by the LogGP model", NULL, NULL, 0, 0, 0, 0},
    {"karp", "LogP-optimal broadcast tree reversed, pipelined (commutative ops)", build_tree,
     cost_tree, ARB_TREE_KARP, 2, 1, 0},
    {"binomial", "binomial tree reversed, pipelined (rank order for non-commutative ops)",
     build_tree, cost_tree, ARB_TREE_BINOMIAL, 2, 1, 0},
    {"knomial", "4-nomial tree reversed, pipelined (commutative ops)", build_tree, cost_tree,
     ARB_TREE_KNOMIAL, 4, 1, 0},
    {"binary", "binary heap tree reversed, pipelined (commutative ops)", build_tree, cost_tree,
     ARB_TREE_BINARY, 2, 1, 0},
    {"flat", "every rank sends to the root, which combines in rank order", build_tree, cost_tree,
     ARB_TREE_FLAT, 2, 1, 0},
    {"direct", "every rank sends to the root, which combines all P in rank order itself (any op)",
     build_direct, cost_direct, 0, 0, 0, 0},
    {"karp_node", "node-aware Karp tree reversed (commutative ops, several nodes)", build_tree,
     cost_tree, ARB_TREE_KARP_NODE, 2, 1, 0},
    {"two_level", "two-level tree reversed: inside nodes, then across leaders (commutative ops)",
     build_tree, cost_tree, ARB_TREE_TWO_LEVEL, 2, 1, 0},
};
const int arb_reduce_nalgs = sizeof(arb_reduce_algs) / sizeof(arb_reduce_algs[0]);
