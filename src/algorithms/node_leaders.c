/*
 * Node-aware barrier and allreduce whose inter-node level is one exchange among the node leaders
 * (docs/TOPOLOGY.md), not a tree: karp_node / two_level go up a tree to one root and back down,
 * so their inter-node part is two latencies in sequence (leader -> root's leader -> leaders).
 * Here every node first gathers to its leader (its lowest rank) up a Karp tree of the node with
 * the intra-node model, as updown.c does; then the leaders exchange:
 *   leader_dissem (barrier)   a q-ary dissemination among the N leaders: in round k each leader
 *                             signals the leaders j q^k ahead (j = 1 .. q - 1) and waits for
 *                             those j q^k behind. ceil(log_q N) rounds of one inter-node
 *                             latency and q - 2 send gaps each; q is the one the inter-node
 *                             model prices cheapest (q >= N: one round, every leader signals
 *                             every other, one latency and N - 2 gaps);
 *   leader_direct (allreduce) every leader sends its node's partial vector to every other leader
 *                             in one round; each lands them in SCRATCH (one slot per leader) and
 *                             combines all N in leader order, its own in its place, so every
 *                             leader computes the same bits (floating point included);
 * then each leader releases / sends the result down its node's tree. Commutative ops only, as
 * updown (a node's members are not a run of consecutive ranks). One schedule over the team: no
 * sub-teams, and split teams and nodes of uneven sizes work as any team does (topo.h).
 */
#include "algorithms/coll.h"

#include <math.h>
#include <stdlib.h>

#define OK(s) (arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY)

typedef struct {
    int nleaders;  /* nodes with a member */
    int *leaders;  /* [nleaders] lowest rank of each such node, in node order */
    int me_leader; /* my node's index in leaders */
    int k;         /* members of my node */
    int *members;  /* [k] my node's ranks, ascending (members[0] is the leader) */
    int idx;       /* my index in members */
    int kmax;      /* members of the largest node */
} leaders_t;

static void leaders_free(leaders_t *l)
{
    free(l->leaders), free(l->members);
}

static arbor_status_t leaders_init(leaders_t *l, const arb_coll_args_t *a)
{
    const arb_topo_t *t = a->topo;
    int P = a->size, N = t->nnodes, mine = t->node[a->rank];
    int *count = calloc((size_t)N, sizeof(int));
    l->leaders = malloc((size_t)N * sizeof(int));
    l->members = malloc((size_t)P * sizeof(int));
    if (!count || !l->leaders || !l->members) {
        free(count), leaders_free(l);
        return ARBOR_ERR_NO_MEMORY;
    }
    l->k = 0, l->idx = 0, l->kmax = 0, l->nleaders = 0, l->me_leader = 0;
    for (int r = 0; r < P; r++) {
        int n = t->node[r];
        if (n < 0 || n >= N) {
            free(count), leaders_free(l);
            return ARBOR_ERR_INVALID_ARG;
        }
        if (++count[n] > l->kmax) l->kmax = count[n];
        if (n == mine) {
            if (r == a->rank) l->idx = l->k;
            l->members[l->k++] = r;
        }
    }
    /* Leaders in node order; a node with no member of this team has none. */
    int *lowest = count; /* reused: the lowest rank of each node, -1 for none */
    for (int n = 0; n < N; n++) lowest[n] = -1;
    for (int r = P - 1; r >= 0; r--) lowest[t->node[r]] = r;
    for (int n = 0; n < N; n++) {
        if (lowest[n] < 0) continue;
        if (n == mine) l->me_leader = l->nleaders;
        l->leaders[l->nleaders++] = lowest[n];
    }
    free(count);
    return ARBOR_OK;
}

/* The radix of the leaders' dissemination: the q in 2..N (N >= 2) with the fewest predicted
 * microseconds, ceil(log_q N) rounds of T + (min(q, N) - 2) s; the larger q on a tie (fewer
 * rounds, fewer wake-ups). Every rank computes the same from the same model. */
static int leader_radix(int N, const arb_logp_t *inter, double *time)
{
    double T = arb_logp_arrival(inter, 0), s = arb_logp_gap(inter, 0), best = INFINITY;
    int radix = N;
    for (int q = N; q >= 2; q--) {
        int rounds = 0;
        for (long long reach = 1; reach < N; reach *= q) rounds++;
        double t = rounds * (T + (q - 2) * s);
        if (t < best) best = t, radix = q;
    }
    if (time) *time = N > 1 ? best : 0;
    return radix;
}

/* The Karp tree of a node of k members (local index 0 = the leader), under the intra model. */
static arbor_status_t node_tree(int k, const arb_logp_t *m, size_t bytes, arb_tree_t *tree)
{
    return arb_tree_build(ARB_TREE_KARP, k, 2, m, bytes, tree);
}

arbor_status_t arb_leader_dissem_build(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                       const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg;
    if (!arb_topo_multi(a->topo)) return ARBOR_ERR_UNSUPPORTED;
    leaders_t l;
    arbor_status_t status = leaders_init(&l, a);
    if (status != ARBOR_OK) return status;
    arb_tree_t tree;
    status = node_tree(l.k, m, 0, &tree);
    if (status != ARBOR_OK) {
        leaders_free(&l);
        return status;
    }
    int first = tree.child_start[l.idx], nkids = tree.child_start[l.idx + 1] - first;
    /* The last child served has the smallest subtree: hear it first (as updown.c). */
    for (int i = nkids - 1; i >= 0; i--)
        arb_sched_recv(s, 0, l.members[tree.children[first + i]], ARB_BUF_DST, 0, 0, 0, -1);
    uint32_t down;
    if (l.idx != 0) {
        arb_sched_send(s, 1, l.members[tree.parent[l.idx]], ARB_BUF_SRC, 0, 0, -1);
        arb_sched_recv(s, 2, l.members[tree.parent[l.idx]], ARB_BUF_DST, 0, 0, 0, -1);
        down = 3;
    } else {
        int N = l.nleaders, me = l.me_leader, q = leader_radix(N, &a->topo->inter, NULL);
        uint32_t round = 1;
        for (long long dist = 1; dist < N; dist *= q, round++)
            for (int j = 1; j < q && j * dist < N; j++) {
                int d = (int)(j * dist);
                arb_sched_send(s, round, l.leaders[(me + d) % N], ARB_BUF_SRC, 0, 0, -1);
                arb_sched_recv(s, round, l.leaders[(me - d + N) % N], ARB_BUF_DST, 0, 0, 0, -1);
            }
        down = round;
    }
    for (int i = 0; i < nkids; i++)
        arb_sched_send(s, down, l.members[tree.children[first + i]], ARB_BUF_SRC, 0, 0, -1);
    arb_tree_free(&tree);
    leaders_free(&l);
    return OK(s);
}

/* Up the largest node's tree, the leaders' exchange, down the tree; with data, each node's
 * tree pipelines its chunks at its busiest sender's pace and combines at the widest fan-in,
 * and a leader combines the N partial vectors after the exchange. */
static double leaders_cost(const arb_coll_args_t *a, const arb_logp_t *m, bool data)
{
    const arb_topo_t *t = a->topo;
    if (!arb_topo_multi(t)) return INFINITY;
    if (data && !a->commutative) return INFINITY;
    if (a->size == 1 || (data && a->bytes == 0)) return 0;
    leaders_t l;
    if (leaders_init(&l, a) != ARBOR_OK) return INFINITY;
    int N = l.nleaders, kmax = l.kmax;
    leaders_free(&l);
    size_t bytes = data ? a->bytes : 0;
    size_t chunk = bytes < a->chunk ? bytes : a->chunk;
    double nchunks = chunk ? ceil((double)bytes / (double)chunk) : 1, intra = 0;
    int fan = 0;
    if (kmax > 1) {
        arb_tree_t tree;
        if (node_tree(kmax, m, chunk, &tree) != ARBOR_OK) return INFINITY;
        for (int v = 0; v < kmax; v++) {
            int d = tree.child_start[v + 1] - tree.child_start[v];
            if (d > fan) fan = d;
        }
        intra = arb_tree_simulate(&tree, m, chunk, NULL, NULL) +
                (nchunks - 1) * fan * arb_logp_gap(m, chunk);
        arb_tree_free(&tree);
    }
    double across;
    if (data)
        across = (N > 1 ? arb_logp_direct(&t->inter, N, bytes, 0) : 0) +
                 N * arb_logp_combine(m, bytes) + fan * arb_logp_combine(m, bytes);
    else
        leader_radix(N, &t->inter, &across);
    return 2 * intra + across;
}

double arb_leader_dissem_cost(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                              const arb_logp_t *m)
{
    (void)alg;
    return leaders_cost(a, m, false);
}

arbor_status_t arb_leader_direct_build(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                       const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg;
    if (!a->commutative || !arb_topo_multi(a->topo)) return ARBOR_ERR_UNSUPPORTED;
    size_t n = a->count;
    if (a->size == 1 || n == 0) {
        if (n) arb_sched_copy(s, 0, ARB_BUF_DST, 0, ARB_BUF_SRC, 0, n, -1);
        return OK(s);
    }
    leaders_t l;
    arbor_status_t status = leaders_init(&l, a);
    if (status != ARBOR_OK) return status;
    arb_tree_t tree;
    status = node_tree(l.k, m, a->bytes < a->chunk ? a->bytes : a->chunk, &tree);
    if (status != ARBOR_OK) {
        leaders_free(&l);
        return status;
    }
    int first = tree.child_start[l.idx], nkids = tree.child_start[l.idx + 1] - first;
    int N = l.nleaders, me = l.me_leader;
    bool leader = l.idx == 0;
    /* Where this rank's partial vector is combined: a leader's own slot of SCRATCH, another
     * member's DST (what it sends up, or SRC for a leaf). */
    arb_buf_space_t acc = leader ? ARB_BUF_SCRATCH : ARB_BUF_DST;
    uint64_t at = leader ? (uint64_t)me * n : 0;
    if (leader) s->scratch_blocks = (size_t)N * n;
    if (leader || nkids) arb_sched_copy(s, 0, acc, at, ARB_BUF_SRC, 0, n, -1);
    int last = -1;
    for (int i = nkids - 1; i >= 0; i--)
        last = arb_sched_recv(s, 1, l.members[tree.children[first + i]], acc, at, n,
                              ARB_COMBINE_AFTER, last);
    int down = -1;
    uint32_t round;
    if (!leader) {
        int parent = l.members[tree.parent[l.idx]];
        arb_sched_send(s, 1, parent, nkids ? ARB_BUF_DST : ARB_BUF_SRC, 0, n, last);
        down = arb_sched_recv(s, 2, parent, ARB_BUF_DST, 0, n, 0, -1);
        round = 2;
    } else {
        /* Shifted like alltoall's pairwise exchange, so no leader is everyone's first target. */
        for (int j = 1; j < N; j++) {
            int from = (me - j + N) % N;
            arb_sched_send(s, 2, l.leaders[(me + j) % N], ARB_BUF_SCRATCH, at, n, -1);
            arb_sched_recv(s, 2, l.leaders[from], ARB_BUF_SCRATCH, (uint64_t)from * n, n, 0, -1);
        }
        /* Leader order, own partial in its place: the same bits on every leader. */
        int prev = arb_sched_copy(s, 3, ARB_BUF_DST, 0, ARB_BUF_SCRATCH, 0, n, -1);
        for (int j = 1; j < N; j++)
            prev = arb_sched_combine(s, 3, ARB_BUF_DST, 0, ARB_BUF_SCRATCH, (uint64_t)j * n, n,
                                     ARB_COMBINE_AFTER, prev);
        round = 4;
    }
    for (int i = 0; i < nkids; i++)
        arb_sched_send(s, round, l.members[tree.children[first + i]], ARB_BUF_DST, 0, n, down);
    arb_tree_free(&tree);
    leaders_free(&l);
    return OK(s);
}

double arb_leader_direct_cost(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                              const arb_logp_t *m)
{
    (void)alg;
    return leaders_cost(a, m, true);
}
