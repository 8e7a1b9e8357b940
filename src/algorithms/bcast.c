/*
 * Broadcast over a tree (tree.h): the root sends its buffer to its children in send order;
 * every other rank receives from its parent and forwards each chunk to its children as soon
 * as the chunk has landed (the schedule's dependency), so payloads larger than one landing
 * slot are pipelined down the tree. Any root by relabelling (virtual = rank - root mod P).
 */
#include "algorithms/coll.h"
#include "algorithms/tree.h"

arbor_status_t arb_bcast_tree_build(const arb_coll_args_t *a, const arb_logp_t *m, int kind,
                                    int radix, arb_sched_t *s)
{
    arb_tree_t tree;
    arbor_status_t status;
    int P = a->size;

    if (kind >= ARB_TREE_KARP_NODE && !arb_topo_multi(a->topo)) return ARBOR_ERR_UNSUPPORTED;
    if (a->bytes == 0 || P == 1) return ARBOR_OK; /* nothing moves */
    status = arb_coll_tree_build(a, m, kind, radix, a->root,
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

static arbor_status_t build_tree(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                 const arb_logp_t *m, arb_sched_t *s)
{
    return arb_bcast_tree_build(a, m, alg->variant, alg->radix, s);
}

static double cost_tree(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    return arb_bcast_tree_cost(a, m, alg->variant, alg->radix);
}

const char *const arb_bcast_alg_names[] = {"auto",   "karp",      "binomial",  "knomial",
                                           "binary", "flat",      "karp_node", "two_level",
                                           "hwcoll", "triggered", NULL};

const arb_alg_desc_t arb_bcast_algs[] = {
    {"auto", "cheapest predicted by the LogGP model", NULL, NULL, 0, 0, 0, 0},
    {"karp", "LogP-optimal greedy tree (Karp et al. 1993), pipelined", build_tree, cost_tree,
     ARB_TREE_KARP, 2, 1, 0},
    {"binomial", "binomial tree, largest subtree first, pipelined", build_tree, cost_tree,
     ARB_TREE_BINOMIAL, 2, 1, 0},
    {"knomial", "4-nomial tree, pipelined", build_tree, cost_tree, ARB_TREE_KNOMIAL, 4, 1, 0},
    {"binary", "binary heap tree, pipelined", build_tree, cost_tree, ARB_TREE_BINARY, 2, 1, 0},
    {"flat", "root sends to every rank in order", build_tree, cost_tree, ARB_TREE_FLAT, 2, 1, 0},
    {"karp_node",
     "node-aware Karp greedy: every informed rank reaches a new node first, then its own",
     build_tree, cost_tree, ARB_TREE_KARP_NODE, 2, 1, 0},
    {"two_level", "Karp tree over node leaders (inter-node model), then Karp trees inside nodes",
     build_tree, cost_tree, ARB_TREE_TWO_LEVEL, 2, 1, 0},
    {"hwcoll", "the transport's provider collective (libfabric fi_broadcast, the team's group)",
     arb_hwcoll_build, arb_hwcoll_cost, 0, 0, 0, ARB_ALG_NEEDS_HWCOLL},
    {"triggered", "libfabric triggered writes: the binomial tree, posted whole at start",
     arb_trig_build, arb_trig_cost, 0, 0, 0, ARB_ALG_NEEDS_TRIGGERED},
};
const int arb_bcast_nalgs = sizeof(arb_bcast_algs) / sizeof(arb_bcast_algs[0]);
