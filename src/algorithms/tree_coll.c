/*
 * A collective's tree, shared by the tree algorithms (bcast, reduce, updown) and the offload
 * candidates that price a tree (offload.c): building the tree a call uses, and the predicted
 * time of a pipelined broadcast over it. Apart from any family's file, so that the families
 * and the offload candidates depend on it and not on each other.
 */
#include "algorithms/coll.h"
#include "algorithms/tree.h"

#include <math.h>

/* Predicted time: the tree's one-chunk completion, then the remaining chunks stream behind it
 * at the pace of the busiest sender (its fan-out times the per-chunk gap). */
double arb_bcast_tree_cost(const arb_coll_args_t *a, const arb_logp_t *m, int kind, int radix)
{
    arb_tree_t tree;
    size_t chunk = a->bytes < a->chunk ? a->bytes : a->chunk;
    if (kind >= ARB_TREE_KARP_NODE && !arb_topo_multi(a->topo)) return INFINITY;
    if (a->size == 1 || a->bytes == 0) return 0;
    if (arb_coll_tree_build(a, m, kind, radix, a->root, chunk, &tree) != ARBOR_OK) return INFINITY;
    double nchunks = ceil((double)a->bytes / (double)chunk), t;
    if (arb_topo_multi(a->topo)) {
        t = arb_tree_simulate_topo(&tree, m, a->topo, a->root, chunk, NULL, NULL) +
            (nchunks - 1) * arb_tree_busiest_topo(&tree, m, a->topo, a->root, chunk);
    } else {
        int fanout = 0;
        for (int v = 0; v < a->size; v++) {
            int d = tree.child_start[v + 1] - tree.child_start[v];
            if (d > fanout) fanout = d;
        }
        t = arb_tree_simulate(&tree, m, chunk, NULL, NULL) +
            (nchunks - 1) * fanout * arb_logp_gap(m, chunk);
    }
    arb_tree_free(&tree);
    return t;
}

arbor_status_t arb_coll_tree_build(const arb_coll_args_t *a, const arb_logp_t *m, int kind,
                                   int radix, int root, size_t bytes, arb_tree_t *tree)
{
    if (kind >= ARB_TREE_KARP_NODE) /* needs a team that spans nodes */
        return arb_topo_multi(a->topo)
                   ? arb_tree_build_topo(kind, a->size, m, a->topo, root, bytes, tree)
                   : ARBOR_ERR_UNSUPPORTED;
    return arb_tree_build((arb_tree_kind_t)kind, a->size, radix, m, bytes, tree);
}
