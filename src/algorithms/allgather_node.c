/*
 * Hierarchical allgather on a multi-node team (docs/TOPOLOGY.md): one schedule over the whole
 * team, no sub-teams. SCRATCH holds the P blocks in node order (node 0's members in rank order,
 * then node 1's, ...), so each node's blocks are one contiguous run:
 *   round 0  every member sends its block to its node's leader (the node's lowest rank), which
 *            copies its own and lands the others at their place in its SCRATCH;
 *   round 1  each leader sends its node's run to every other leader in one message and lands
 *            theirs (the direct exchange among leaders, shifted like alltoall's pairwise);
 *   round 2  each leader sends its whole SCRATCH to its node's other members;
 *   round 3  every rank copies SCRATCH into DST in rank order (one copy per run of consecutive
 *            ranks: one copy in all when nodes hold consecutive ranks).
 * Between nodes this sends N (N - 1) messages, one per pair of leaders, against P (P - 1) for
 * the direct allgather and about P log2 P for Bruck: what pays where a message between nodes
 * costs the most (TCP between hosts, ranks sharing CPUs).
 */
#include "algorithms/coll.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    int N;
    int *pos;    /* [P] place of each rank's block in SCRATCH */
    int *first;  /* [N + 1] start of each node's run in SCRATCH */
    int *leader; /* [N] lowest rank of each node, -1 for a node with no member */
    int *order;  /* [P] rank at each SCRATCH place */
} node_layout_t;

static void layout_free(node_layout_t *l)
{
    free(l->pos), free(l->first), free(l->leader), free(l->order);
}

static arbor_status_t layout_init(node_layout_t *l, const arb_coll_args_t *a)
{
    int P = a->size, N = a->topo->nnodes;
    l->N = N;
    l->pos = malloc((size_t)P * sizeof(int));
    l->first = calloc((size_t)N + 1, sizeof(int));
    l->leader = malloc((size_t)N * sizeof(int));
    l->order = malloc((size_t)P * sizeof(int));
    if (!l->pos || !l->first || !l->leader || !l->order) {
        layout_free(l);
        return ARBOR_ERR_NO_MEMORY;
    }
    for (int n = 0; n < N; n++) l->leader[n] = -1;
    for (int r = 0; r < P; r++) {
        int n = a->topo->node[r];
        if (n < 0 || n >= N) {
            layout_free(l);
            return ARBOR_ERR_INVALID_ARG;
        }
        l->first[n + 1]++;
        if (l->leader[n] < 0) l->leader[n] = r;
    }
    for (int n = 0; n < N; n++) l->first[n + 1] += l->first[n];
    int *next = malloc((size_t)N * sizeof(int));
    if (!next) {
        layout_free(l);
        return ARBOR_ERR_NO_MEMORY;
    }
    for (int n = 0; n < N; n++) next[n] = l->first[n];
    for (int r = 0; r < P; r++) {
        int p = next[a->topo->node[r]]++;
        l->pos[r] = p;
        l->order[p] = r;
    }
    free(next);
    return ARBOR_OK;
}

arbor_status_t arb_allgather_node_build(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                        const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    if (!arb_topo_multi(a->topo)) return ARBOR_ERR_UNSUPPORTED;
    if (a->bytes == 0) return ARBOR_OK;
    int P = a->size, me = a->rank;
    node_layout_t l;
    arbor_status_t status = layout_init(&l, a);
    if (status != ARBOR_OK) return status;
    int n = a->topo->node[me], lead = l.leader[n], N = l.N;
    uint64_t run = (uint64_t)(l.first[n + 1] - l.first[n]);
    s->scratch_blocks = (size_t)P;
    if (me == lead) {
        arb_sched_copy(s, 0, ARB_BUF_SCRATCH, (uint64_t)l.pos[me], ARB_BUF_SRC, 0, 1, -1);
        for (int p = l.first[n] + 1; p < l.first[n + 1]; p++)
            arb_sched_recv(s, 0, l.order[p], ARB_BUF_SCRATCH, (uint64_t)p, 1, 0, -1);
        for (int k = 1; k < N; k++) {
            int to = l.leader[(n + k) % N], fn = (n - k + N) % N, from = l.leader[fn];
            if (to >= 0) arb_sched_send(s, 1, to, ARB_BUF_SCRATCH, (uint64_t)l.first[n], run, -1);
            if (from >= 0)
                arb_sched_recv(s, 1, from, ARB_BUF_SCRATCH, (uint64_t)l.first[fn],
                               (uint64_t)(l.first[fn + 1] - l.first[fn]), 0, -1);
        }
        for (int p = l.first[n] + 1; p < l.first[n + 1]; p++)
            arb_sched_send(s, 2, l.order[p], ARB_BUF_SCRATCH, 0, (uint64_t)P, -1);
    } else {
        arb_sched_send(s, 0, lead, ARB_BUF_SRC, 0, 1, -1);
        arb_sched_recv(s, 2, lead, ARB_BUF_SCRATCH, 0, (uint64_t)P, 0, -1);
    }
    /* Runs of consecutive ranks at consecutive places: one copy each. */
    for (int p = 0; p < P;) {
        int q = p + 1;
        while (q < P && l.order[q] == l.order[q - 1] + 1) q++;
        arb_sched_copy(s, 3, ARB_BUF_DST, (uint64_t)l.order[p], ARB_BUF_SCRATCH, (uint64_t)p,
                       (uint64_t)(q - p), -1);
        p = q;
    }
    layout_free(&l);
    return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
}

/* The three levels one after another, each priced as a one-round exchange of its own level: a
 * leader lands k - 1 blocks (one latency, k - 2 gaps, k the most members of a node), sends its
 * run of k blocks to N - 1 leaders, then sends P blocks to k - 1 members; every rank copies P
 * blocks out of SCRATCH. */
double arb_allgather_node_cost(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                               const arb_logp_t *m)
{
    (void)alg;
    const arb_topo_t *t = a->topo;
    if (!arb_topo_multi(t)) return INFINITY;
    if (a->bytes == 0) return 0;
    int P = a->size, N = t->nnodes, k = 0;
    int *cnt = calloc((size_t)N, sizeof(int));
    if (!cnt) return INFINITY;
    for (int r = 0; r < P; r++)
        if (t->node[r] >= 0 && t->node[r] < N && ++cnt[t->node[r]] > k) k = cnt[t->node[r]];
    free(cnt);
    size_t b = a->bytes, all = (size_t)P * b;
    double time = (double)all * m->G;
    if (k > 1) {
        time += arb_logp_arrival(m, b) + (k - 2) * arb_logp_gap(m, b);
        time += arb_logp_arrival(m, all) + (k - 2) * arb_logp_gap(m, all);
    }
    time += arb_logp_arrival(&t->inter, (size_t)k * b) +
            (N - 2) * arb_logp_gap(&t->inter, (size_t)k * b);
    return time;
}
