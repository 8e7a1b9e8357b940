/*
 * Broadcast over a tree (tree.h): the root sends its buffer to its children in send order;
 * every other rank receives from its parent and forwards each chunk to its children as soon
 * as the chunk has landed (the schedule's dependency), so payloads larger than one landing
 * slot are pipelined down the tree. Any root by relabelling (virtual = rank - root mod P).
 */
#include "algorithms/coll.h"
#include "algorithms/tree.h"

#include <math.h>

arbor_status_t arb_bcast_tree_build(const arb_coll_args_t *a, const arb_logp_t *m, int kind,
                                    int radix, arb_sched_t *s)
{
    arb_tree_t tree;
    arbor_status_t status;
    int P = a->size;

    if (a->bytes == 0 || P == 1) return ARBOR_OK; /* nothing moves */
    status = arb_tree_build((arb_tree_kind_t)kind, P, radix, m,
                            a->bytes < a->chunk ? a->bytes : a->chunk, &tree);
    if (status != ARBOR_OK) return status;

    int v = (a->rank - a->root + P) % P, dep = -1;
    if (v != 0) {
        int parent = (tree.parent[v] + a->root) % P;
        dep = arb_sched_recv(s, 0, parent, ARB_BUF_DST, 0, 1, 0, -1);
    }
    for (int i = tree.child_start[v]; i < tree.child_start[v + 1]; i++) {
        int child = (tree.children[i] + a->root) % P;
        arb_sched_send(s, 0, child, v == 0 ? ARB_BUF_SRC : ARB_BUF_DST, 0, 1, dep);
    }
    arb_tree_free(&tree);
    return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
}

/* Predicted time: the tree's one-chunk completion, then the remaining chunks stream behind it
 * at the pace of the busiest sender (its fan-out times the per-chunk gap). */
double arb_bcast_tree_cost(const arb_coll_args_t *a, const arb_logp_t *m, int kind, int radix)
{
    arb_tree_t tree;
    size_t chunk = a->bytes < a->chunk ? a->bytes : a->chunk;
    if (a->size == 1 || a->bytes == 0) return 0;
    if (arb_tree_build((arb_tree_kind_t)kind, a->size, radix, m, chunk, &tree) != ARBOR_OK)
        return INFINITY;
    double t = arb_tree_simulate(&tree, m, chunk, NULL, NULL);
    int fanout = 0;
    for (int v = 0; v < a->size; v++) {
        int d = tree.child_start[v + 1] - tree.child_start[v];
        if (d > fanout) fanout = d;
    }
    arb_tree_free(&tree);
    double nchunks = ceil((double)a->bytes / (double)chunk);
    return t + (nchunks - 1) * fanout * arb_logp_gap(m, chunk);
}

static arbor_status_t build_tree(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                 const arb_logp_t *m, arb_sched_t *s)
{
    return arb_bcast_tree_build(a, m, alg->variant, alg->radix, s);
}

static double cost_tree(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    return arb_bcast_tree_cost(a, m, alg->variant, alg->radix);
}

const char *const arb_bcast_alg_names[] = {"auto",   "karp", "binomial", "knomial",
                                           "binary", "flat", NULL};

const arb_alg_desc_t arb_bcast_algs[] = {
    {"auto", "cheapest predicted by the LogGP model", NULL, NULL, 0, 0},
    {"karp", "LogP-optimal greedy tree (Karp et al. 1993), pipelined", build_tree, cost_tree,
     ARB_TREE_KARP, 2},
    {"binomial", "binomial tree, largest subtree first, pipelined", build_tree, cost_tree,
     ARB_TREE_BINOMIAL, 2},
    {"knomial", "4-nomial tree, pipelined", build_tree, cost_tree, ARB_TREE_KNOMIAL, 4},
    {"binary", "binary heap tree, pipelined", build_tree, cost_tree, ARB_TREE_BINARY, 2},
    {"flat", "root sends to every rank in order", build_tree, cost_tree, ARB_TREE_FLAT, 2},
};
const int arb_bcast_nalgs = sizeof(arb_bcast_algs) / sizeof(arb_bcast_algs[0]);
