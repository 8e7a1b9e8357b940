/*
 * Node-aware broadcast trees and their simulation with per-link costs (topo.h).
 */
#include "algorithms/slot_heap.h"
#include "algorithms/topo.h"
#include "arbor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void pop(arb_slot_t *h, int *n)
{
    h[0] = h[--*n];
    if (*n) arb_slot_sift_down(h, *n, 0);
}

/* Scratch of one build: per virtual rank its node, per node its ranks in virtual order. */
typedef struct {
    int P, nnodes;
    int *vnode;      /* [P] */
    int *node_first; /* [nnodes + 1] CSR start of each node's ranks in members */
    int *members;    /* [P] */
    int *next_local; /* [nnodes] cursor: next uninformed member */
    int *order;      /* [P] children in send order, grouped by parent (filled at the end) */
    int *seq;        /* [P] send sequence number of v at its parent */
} layout_t;

static void layout_free(layout_t *l)
{
    free(l->vnode);
    free(l->node_first);
    free(l->members);
    free(l->next_local);
    free(l->order);
    free(l->seq);
}

static arbor_status_t layout_init(layout_t *l, int P, const arb_topo_t *topo, int root)
{
    memset(l, 0, sizeof(*l));
    l->P = P;
    l->nnodes = topo->nnodes;
    l->vnode = malloc((size_t)P * sizeof(int));
    l->node_first = calloc((size_t)topo->nnodes + 1, sizeof(int));
    l->members = malloc((size_t)P * sizeof(int));
    l->next_local = calloc((size_t)topo->nnodes, sizeof(int));
    l->order = malloc((size_t)P * sizeof(int));
    l->seq = calloc((size_t)P, sizeof(int));
    if (!l->vnode || !l->node_first || !l->members || !l->next_local || !l->order || !l->seq) {
        layout_free(l);
        return ARBOR_ERR_NO_MEMORY;
    }
    for (int v = 0; v < P; v++) {
        int n = topo->node[(v + root) % P];
        if (n < 0 || n >= topo->nnodes) {
            layout_free(l);
            return ARBOR_ERR_INVALID_ARG;
        }
        l->vnode[v] = n;
        l->node_first[n + 1]++;
    }
    for (int n = 0; n < topo->nnodes; n++) l->node_first[n + 1] += l->node_first[n];
    for (int n = 0; n < topo->nnodes; n++) l->next_local[n] = l->node_first[n];
    for (int v = 0; v < P; v++) l->members[l->next_local[l->vnode[v]]++] = v;
    for (int n = 0; n < topo->nnodes; n++) l->next_local[n] = l->node_first[n];
    return ARBOR_OK;
}

static arbor_status_t tree_new(arb_tree_t *t, int P)
{
    memset(t, 0, sizeof(*t));
    t->size = P;
    t->parent = malloc((size_t)P * sizeof(int));
    t->child_start = calloc((size_t)P + 1, sizeof(int));
    t->children = malloc((size_t)(P > 1 ? P - 1 : 1) * sizeof(int));
    if (!t->parent || !t->child_start || !t->children) {
        arb_tree_free(t);
        return ARBOR_ERR_NO_MEMORY;
    }
    return ARBOR_OK;
}

/* CSR children from parent[] and each child's send sequence at its parent. */
static void csr_by_seq(arb_tree_t *t, const int *seq)
{
    int P = t->size, *cs = t->child_start;
    memset(cs, 0, ((size_t)P + 1) * sizeof(int));
    for (int v = 1; v < P; v++) cs[t->parent[v] + 1]++;
    for (int v = 0; v < P; v++) cs[v + 1] += cs[v];
    for (int v = 1; v < P; v++) t->children[cs[t->parent[v]] + seq[v]] = v;
}

static double link_T(const arb_logp_t *intra, const arb_topo_t *topo, bool same, size_t bytes)
{
    return arb_logp_arrival(same ? intra : &topo->inter, bytes);
}

static double link_gap(const arb_logp_t *intra, const arb_topo_t *topo, bool same, size_t bytes)
{
    return arb_logp_gap(same ? intra : &topo->inter, bytes);
}

static arbor_status_t build_karp_node(arb_tree_t *t, layout_t *l, const arb_logp_t *intra,
                                      const arb_topo_t *topo, size_t bytes)
{
    int P = l->P, n = 0, informed = 1, nodes_left = l->nnodes - 1, next_node = 0;
    double T_intra = link_T(intra, topo, true, bytes),
           s_inter = link_gap(intra, topo, false, bytes);
    arb_slot_t *heap = malloc((size_t)P * sizeof(arb_slot_t));
    int *nchild = calloc((size_t)P, sizeof(int));
    char *node_done = calloc((size_t)l->nnodes, 1);
    if (!heap || !nchild || !node_done) {
        free(heap), free(nchild), free(node_done);
        return ARBOR_ERR_NO_MEMORY;
    }
    t->parent[0] = -1;
    /* Nodes with no member in this team need no message. */
    for (int nd = 0; nd < l->nnodes; nd++)
        if (l->node_first[nd] == l->node_first[nd + 1]) node_done[nd] = 1, nodes_left--;
    node_done[l->vnode[0]] = 1;
    l->next_local[l->vnode[0]]++; /* v = 0 is its node's first member: virtual order */
    arb_slot_push(heap, &n, (arb_slot_t){0.0, 0});
    while (informed < P && n > 0) {
        int u = heap[0].v, target = -1;
        double slot = heap[0].t;
        bool same = true;
        int me = l->vnode[u];
        bool locals = l->next_local[me] < l->node_first[me + 1];
        /* Recruit a local helper first when it would be sending across nodes before u's own
         * next inter-node slot (T_intra < s_inter) and there are at least two nodes to reach:
         * more senders of the slow level then start sooner. */
        bool recruit = locals && nodes_left >= 2 && T_intra < s_inter;
        if (nodes_left > 0 && !recruit) {
            while (node_done[next_node]) next_node++;
            target = l->members[l->next_local[next_node]++];
            node_done[next_node] = 1;
            nodes_left--;
            same = false;
        } else if (locals) {
            target = l->members[l->next_local[me]++];
        }
        if (target < 0) { /* nothing left that u should serve */
            pop(heap, &n);
            continue;
        }
        t->parent[target] = u;
        l->seq[target] = nchild[u]++;
        heap[0].t = slot + link_gap(intra, topo, same, bytes);
        arb_slot_sift_down(heap, n, 0);
        arb_slot_push(heap, &n, (arb_slot_t){slot + link_T(intra, topo, same, bytes), target});
        informed++;
    }
    free(heap), free(nchild), free(node_done);
    if (informed < P) return ARBOR_ERR_INVALID_ARG; /* unreachable: every node is served */
    csr_by_seq(t, l->seq);
    return ARBOR_OK;
}

static arbor_status_t build_two_level(arb_tree_t *t, layout_t *l, const arb_logp_t *intra,
                                      const arb_topo_t *topo, size_t bytes, arb_tree_kind_t kind)
{
    int P = l->P, N = l->nnodes;
    int *leader = malloc((size_t)N * sizeof(int)), *lnode = malloc((size_t)N * sizeof(int));
    int *nchild = calloc((size_t)P, sizeof(int));
    int *sub = malloc((size_t)P * sizeof(int));
    arbor_status_t status = ARBOR_OK;
    if (!leader || !lnode || !nchild || !sub) {
        status = ARBOR_ERR_NO_MEMORY;
        goto out;
    }
    /* Leaders in the order of their nodes' first virtual rank: the root's node first. */
    int nl = 0;
    for (int v = 0; v < P; v++) {
        int nd = l->vnode[v];
        if (l->members[l->node_first[nd]] == v) lnode[nl] = nd, leader[nl++] = v;
    }
    arb_tree_t lt, it;
    t->parent[0] = -1;
    if ((status = arb_tree_build(kind, nl, 2, &topo->inter, bytes, &lt)) != ARBOR_OK) goto out;
    for (int i = 1; i < nl; i++) {
        int c = leader[i], p = leader[lt.parent[i]];
        t->parent[c] = p;
    }
    /* Send order: a leader's leader children (in the leader tree's order), then its node's. */
    for (int i = 0; i < nl; i++)
        for (int k = lt.child_start[i]; k < lt.child_start[i + 1]; k++)
            l->seq[leader[lt.children[k]]] = nchild[leader[i]]++;
    arb_tree_free(&lt);
    for (int i = 0; i < nl; i++) {
        int nd = lnode[i], first = l->node_first[nd], cnt = l->node_first[nd + 1] - first;
        if (cnt < 2) continue;
        if ((status = arb_tree_build(kind, cnt, 2, intra, bytes, &it)) != ARBOR_OK) goto out;
        for (int j = 0; j < cnt; j++) sub[j] = l->members[first + j]; /* sub[0] is the leader */
        for (int j = 1; j < cnt; j++) t->parent[sub[j]] = sub[it.parent[j]];
        for (int j = 0; j < cnt; j++)
            for (int k = it.child_start[j]; k < it.child_start[j + 1]; k++)
                l->seq[sub[it.children[k]]] = nchild[sub[j]]++;
        arb_tree_free(&it);
    }
    csr_by_seq(t, l->seq);
out:
    free(leader), free(lnode), free(nchild), free(sub);
    return status;
}

arbor_status_t arb_tree_build_topo(int kind, int P, const arb_logp_t *intra, const arb_topo_t *topo,
                                   int root, size_t bytes, arb_tree_t *tree)
{
    if (!tree || P < 1 || !intra || !arb_topo_multi(topo) || root < 0 || root >= P ||
        kind < ARB_TREE_KARP_NODE || kind > ARB_TREE_TWO_LEVEL_BINOMIAL)
        return ARBOR_ERR_INVALID_ARG;
    layout_t l;
    arb_tree_t t;
    arbor_status_t status = layout_init(&l, P, topo, root);
    if (status != ARBOR_OK) return status;
    if ((status = tree_new(&t, P)) == ARBOR_OK) {
        if (kind == ARB_TREE_KARP_NODE)
            status = build_karp_node(&t, &l, intra, topo, bytes);
        else
            status =
                build_two_level(&t, &l, intra, topo, bytes,
                                kind == ARB_TREE_TWO_LEVEL ? ARB_TREE_KARP : ARB_TREE_BINOMIAL);
        if (status == ARBOR_OK)
            *tree = t;
        else
            arb_tree_free(&t);
    }
    layout_free(&l);
    return status;
}

static bool same_node(const arb_topo_t *topo, int P, int root, int u, int v)
{
    return topo->node[(u + root) % P] == topo->node[(v + root) % P];
}

double arb_tree_simulate_topo(const arb_tree_t *tree, const arb_logp_t *intra,
                              const arb_topo_t *topo, int root, size_t bytes, double *ready_us,
                              double *send_us)
{
    if (!tree || !intra || !arb_topo_multi(topo) || tree->size < 1 || root < 0 ||
        root >= tree->size)
        return INFINITY;
    int P = tree->size, head = 0, tail = 0;
    double done = 0, *ready = ready_us ? ready_us : malloc((size_t)P * sizeof(double));
    int *queue = malloc((size_t)P * sizeof(int));
    if (!ready || !queue) {
        done = INFINITY;
        goto out;
    }
    for (int v = 0; v < P; v++) ready[v] = -1;
    ready[0] = 0;
    queue[tail++] = 0;
    while (head < tail) {
        int u = queue[head++], first = tree->child_start[u], last = tree->child_start[u + 1];
        if (first < 0 || last < first || last > P - 1) {
            done = INFINITY;
            goto out;
        }
        if (ready[u] > done) done = ready[u];
        double slot = ready[u];
        for (int i = first; i < last; i++) {
            int c = tree->children[i];
            if (c <= 0 || c >= P || ready[c] >= 0 || tail == P) {
                done = INFINITY;
                goto out;
            }
            bool same = same_node(topo, P, root, u, c);
            if (send_us) send_us[c] = slot;
            ready[c] = slot + link_T(intra, topo, same, bytes);
            slot += link_gap(intra, topo, same, bytes);
            queue[tail++] = c;
        }
    }
    if (tail != P) done = INFINITY;
out:
    if (ready != ready_us) free(ready);
    free(queue);
    return done;
}

double arb_tree_busiest_topo(const arb_tree_t *tree, const arb_logp_t *intra,
                             const arb_topo_t *topo, int root, size_t bytes)
{
    double worst = 0;
    if (!tree || !arb_topo_multi(topo)) return INFINITY;
    for (int u = 0; u < tree->size; u++) {
        double sum = 0;
        for (int i = tree->child_start[u]; i < tree->child_start[u + 1]; i++)
            sum += link_gap(intra, topo, same_node(topo, tree->size, root, u, tree->children[i]),
                            bytes);
        if (sum > worst) worst = sum;
    }
    return worst;
}
