/*
 * Topology for the node-aware algorithms: which node each rank of a team is on, and the LogGP
 * parameters between nodes (the model passed beside it stays the intra-node one). Every rank
 * of a team holds the same table (built from the bootstrap at init and narrowed per team), so
 * every rank builds the same node-aware trees with no communication.
 *
 * Node-aware broadcast trees are over virtual ranks like every tree (tree.h: v = rank - root
 * mod P) but, unlike the others, their shape depends on the root, since nodes are not
 * symmetric under that relabelling:
 *   KARP_NODE  the Karp greedy with heterogeneous costs: the informed rank with the earliest
 *              free send slot sends next. While some node holds no informed rank, it informs
 *              that node's first rank (an inter-node message: T and the gap of the inter
 *              model) -- unless a helper on its own node would be ready to cross before its
 *              own next inter-node slot (T_intra < s_inter) and two or more nodes are left:
 *              then it informs the next uninformed rank of its node first (intra model). So
 *              every rank, not only a leader, spreads the data across nodes, which keeps the
 *              slow level off the critical path; with T_intra >= s_inter the greedy is the
 *              two-level Karp composition below.
 *   TWO_LEVEL  the classic composition: a Karp tree over one leader per node (the root for its
 *              own node, else the node's first rank) with the inter-node model, then a Karp
 *              tree inside every node with the intra-node model, each leader serving its
 *              leader children first.
 *   TWO_LEVEL_BINOMIAL  the same composition with binomial trees at both levels (what MPI
 *              libraries' hierarchical collectives do): a reference for the simulations.
 */
#ifndef ARB_ALGORITHMS_TOPO_H
#define ARB_ALGORITHMS_TOPO_H

#include <stdbool.h>
#include <stddef.h>

#include "algorithms/logp.h"
#include "algorithms/tree.h"

typedef struct {
    int nnodes;       /* nodes the team spans (>= 1) */
    const int *node;  /* [team size] node index 0..nnodes-1 of each team rank */
    arb_logp_t inter; /* between ranks of different nodes */
    /* Ranks that share fewer CPUs than there are of them: nodes that are namespaces of one
     * kernel (a simulated cluster), or an oversubscribed node. The busiest such group of the
     * team (team ranks, ascending), the CPUs it shares, and the context switch a message to a
     * rank that yielded its CPU costs (ARBOR_OVERSUB_WAKE); nshared = 0 when no group is
     * oversubscribed. Priced by arb_oversub_bound (oversub.h). */
    const int *shared;
    int nshared;
    int shared_cpus;
    double wake;
} arb_topo_t;

/* Tree kinds that need a topology (outside tree.h's range on purpose: arb_tree_build does not
 * know them). ARB_NODE_LEADERS is no tree: the variant of the node-aware entries whose leaders
 * exchange in one level (node_leaders.c); a table entry's variant >= ARB_TREE_KARP_NODE says
 * "needs a multi-node team". */
enum {
    ARB_TREE_KARP_NODE = 16,
    ARB_TREE_TWO_LEVEL = 17,
    ARB_TREE_TWO_LEVEL_BINOMIAL = 18,
    ARB_NODE_LEADERS = 19
};

static inline bool arb_topo_multi(const arb_topo_t *t)
{
    return t != NULL && t->nnodes > 1 && t->node != NULL;
}

/* One node whose ranks outnumber its CPUs (nshared > 0 without a multi-node team): a message
 * there waits for its receiver to be scheduled, so no pipeline streams through every rank at
 * once. */
static inline bool arb_topo_oversubscribed(const arb_topo_t *t)
{
    return t != NULL && t->nshared > 0 && !arb_topo_multi(t);
}

/* Builds a node-aware tree for P ranks rooted at team rank root (virtual rank 0), children in
 * send order. ARBOR_ERR_INVALID_ARG without a multi-node topology or with a bad kind. */
arbor_status_t arb_tree_build_topo(int kind, int P, const arb_logp_t *intra, const arb_topo_t *topo,
                                   int root, size_t bytes, arb_tree_t *tree);

/* arb_tree_simulate with per-link costs: a message between ranks of one node costs the intra
 * model's T and gap, one between nodes the inter model's. Any tree (node-aware or not) rooted
 * at team rank root. INFINITY for a malformed tree. */
double arb_tree_simulate_topo(const arb_tree_t *tree, const arb_logp_t *intra,
                              const arb_topo_t *topo, int root, size_t bytes, double *ready_us,
                              double *send_us);

/* Per-chunk pace of the busiest sender once a pipeline is full: the largest sum of a node's
 * per-child gaps. */
double arb_tree_busiest_topo(const arb_tree_t *tree, const arb_logp_t *intra,
                             const arb_topo_t *topo, int root, size_t bytes);

#endif /* ARB_ALGORITHMS_TOPO_H */
