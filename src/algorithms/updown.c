/*
 * Up-down trees: a reduction up a broadcast tree to rank 0, then a broadcast down the same
 * tree. With a node-aware tree (topo.h) this is the hierarchical allreduce and barrier of a
 * multi-node team as one schedule: each node combines inside itself and crosses the network
 * once per node on the way up and once on the way down, with no sub-team and no extra copy.
 * Commutative ops only (the tree's subtrees are not runs of consecutive ranks).
 *   allreduce  round 0 seeds DST from SRC (ranks with children), round 1 combines every
 *              child's vector into DST (gated one after another, chunk by chunk) and sends the
 *              partial result up, round 2 receives the result from the parent and forwards it
 *              down, chunk by chunk.
 *   barrier    the same signals with no payload, one round per direction and level, so a rank
 *              is released only after every rank has arrived.
 */
#include "algorithms/coll.h"

#include <math.h>
#include <stdlib.h>

#define OK(s) (arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY)

arbor_status_t arb_updown_build(const arb_coll_args_t *a, const arb_logp_t *m, int kind,
                                arb_sched_t *s)
{
    int P = a->size, me = a->rank;
    bool data = a->coll != ARB_COLL_BARRIER;
    size_t n = a->count;
    if (data && !a->commutative) return ARBOR_ERR_UNSUPPORTED;
    if (kind >= ARB_TREE_KARP_NODE && !arb_topo_multi(a->topo)) return ARBOR_ERR_UNSUPPORTED;
    if (P == 1 || (data && n == 0)) {
        if (data && n) arb_sched_copy(s, 0, ARB_BUF_DST, 0, ARB_BUF_SRC, 0, n, -1);
        return OK(s);
    }
    arb_tree_t tree;
    size_t chunk = a->bytes < a->chunk ? a->bytes : a->chunk;
    arbor_status_t status = arb_coll_tree_build(a, m, kind, 2, 0, chunk, &tree);
    if (status != ARBOR_OK) return status;
    int first = tree.child_start[me], nkids = tree.child_start[me + 1] - first;
    int parent = tree.parent[me];
    if (!data) {
        for (int i = nkids - 1; i >= 0; i--)
            arb_sched_recv(s, 0, tree.children[first + i], ARB_BUF_DST, 0, 0, 0, -1);
        if (parent >= 0) {
            arb_sched_send(s, 1, parent, ARB_BUF_SRC, 0, 0, -1);
            arb_sched_recv(s, 2, parent, ARB_BUF_DST, 0, 0, 0, -1);
        }
        for (int i = 0; i < nkids; i++)
            arb_sched_send(s, 3, tree.children[first + i], ARB_BUF_SRC, 0, 0, -1);
    } else {
        arb_buf_space_t up = nkids ? ARB_BUF_DST : ARB_BUF_SRC;
        if (nkids) arb_sched_copy(s, 0, ARB_BUF_DST, 0, ARB_BUF_SRC, 0, n, -1);
        int last = -1;
        /* The last child served has the smallest subtree: hear it first. */
        for (int i = nkids - 1; i >= 0; i--)
            last = arb_sched_recv(s, 1, tree.children[first + i], ARB_BUF_DST, 0, n,
                                  ARB_COMBINE_AFTER, last);
        int down = -1;
        if (parent >= 0) {
            arb_sched_send(s, 1, parent, up, 0, n, last);
            down = arb_sched_recv(s, 2, parent, ARB_BUF_DST, 0, n, 0, -1);
        }
        for (int i = 0; i < nkids; i++)
            arb_sched_send(s, 2, tree.children[first + i], ARB_BUF_DST, 0, n, down);
    }
    arb_tree_free(&tree);
    return OK(s);
}

double arb_updown_cost(const arb_coll_args_t *a, const arb_logp_t *m, int kind)
{
    bool data = a->coll != ARB_COLL_BARRIER, multi = arb_topo_multi(a->topo);
    if (data && !a->commutative) return INFINITY;
    if (kind >= ARB_TREE_KARP_NODE && !multi) return INFINITY;
    if (a->size == 1 || (data && a->bytes == 0)) return 0;
    size_t chunk = a->bytes < a->chunk ? a->bytes : a->chunk;
    arb_tree_t tree;
    if (arb_coll_tree_build(a, m, kind, 2, 0, chunk, &tree) != ARBOR_OK) return INFINITY;
    double one, pace;
    if (multi) {
        one = arb_tree_simulate_topo(&tree, m, a->topo, 0, chunk, NULL, NULL);
        pace = arb_tree_busiest_topo(&tree, m, a->topo, 0, chunk);
    } else {
        int fanout = 0;
        for (int v = 0; v < a->size; v++) {
            int d = tree.child_start[v + 1] - tree.child_start[v];
            if (d > fanout) fanout = d;
        }
        one = arb_tree_simulate(&tree, m, chunk, NULL, NULL);
        pace = fanout * arb_logp_gap(m, chunk);
    }
    int fanin = 0;
    for (int v = 0; v < a->size; v++) {
        int d = tree.child_start[v + 1] - tree.child_start[v];
        if (d > fanin) fanin = d;
    }
    arb_tree_free(&tree);
    double nchunks = chunk ? ceil((double)a->bytes / (double)chunk) : 1;
    double t = 2 * (one + (nchunks - 1) * pace);
    return data ? t + fanin * arb_logp_combine(m, a->bytes) : t;
}
