/*
 * Allreduce (coll.h: block = one element, count elements; the result in every DST).
 *
 * recursive_doubling: any op. After the fold (fold.h), in round k new rank r swaps its whole
 *   vector with r ^ 2^k and combines (the lower rank's data first, so non-commutative ops stay
 *   in rank order); log2 pof2 exchanges of the full vector: the small-message choice. The
 *   incoming vector combines into DST once this rank's send of DST has left when the vector
 *   fits one landing slot, else it lands in SCRATCH (the sends need both sides draining).
 * rabenseifner: commutative ops. A reduce-scatter by recursive halving (each round sends the
 *   half of the current window the partner keeps and combines the half this rank keeps, straight
 *   into DST: the halves are disjoint), then an allgather by recursive doubling retracing the
 *   windows: about 2 n bytes moved per rank whatever P, in 2 log2 P rounds.
 * ring: commutative ops. The vector in P segments; P - 1 ring steps reduce-scatter them and
 *   P - 1 more allgather them, all in one round: each forward is gated chunk by chunk on the
 *   receive of the same segment, so segments stream around the ring (cut-through), the
 *   large-message choice when P is not a power of two.
 * direct: any op. One round: every rank sends its whole vector to every other, and each
 *   combines all P vectors itself in rank order (a chain of receives, each gated on the one
 *   before, accumulating in SCRATCH; DST is written at the end because SRC may be DST). One
 *   latency plus P - 2 gaps and P - 1 combines, and no rank waits for another to forward: the
 *   small-vector choice on few ranks, and wherever a hop is expensive (logp.h).
 * reduce_scatter_allgather: any op. Rank i owns block i of P near-equal blocks. Round 0: each
 *   rank sends block p of its SRC to rank p and combines block i of every peer into its DST
 *   (chained in rank order for a non-commutative op, as pairwise reduce_scatter does); round 1:
 *   each rank sends its finished block to every other and receives theirs. 2 (P - 1) / P of the
 *   vector moved and (P - 1) / P combined per rank, in two rounds with no relay. It is also the
 *   schedule that runs one-copy on symmetric buffers (coll/coll_direct.c): SRC is only read,
 *   DST block i only written before it is sent, and DST block p (SRC block p in place) only
 *   rewritten from rank p in round 1, after rank p has read it in round 0.
 * The folded-out ranks of the first two get the result back from their partner at the end.
 */
#include "algorithms/coll.h"
#include "algorithms/fold.h"

#include <math.h>

#define OK(s) (arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY)

/* Element offset of ring segment i of n elements split P ways. */
static uint64_t seg(size_t n, int P, int i)
{
    return (uint64_t)((unsigned __int128)n * (unsigned)i / (unsigned)P);
}

/* The fold's first round: DST starts as SRC; an even rank below 2 rem sends it to the odd rank
 * above, which combines it before its own. Returns the next free round. */
static uint32_t fold_in(const arb_coll_args_t *a, const arb_fold_t *f, arb_sched_t *s)
{
    arb_sched_copy(s, 0, ARB_BUF_DST, 0, ARB_BUF_SRC, 0, a->count, -1);
    if (a->rank >= 2 * f->rem) return 1;
    if (f->newrank < 0)
        arb_sched_send(s, 1, a->rank + 1, ARB_BUF_DST, 0, a->count, -1);
    else
        arb_sched_recv(s, 1, a->rank - 1, ARB_BUF_DST, 0, a->count, ARB_COMBINE_BEFORE, -1);
    return 2;
}

/* The result goes back to the folded-out ranks. */
static void fold_out(const arb_coll_args_t *a, const arb_fold_t *f, uint32_t round, arb_sched_t *s)
{
    if (a->rank >= 2 * f->rem) return;
    if (f->newrank < 0)
        arb_sched_recv(s, round, a->rank + 1, ARB_BUF_DST, 0, a->count, 0, -1);
    else
        arb_sched_send(s, round, a->rank - 1, ARB_BUF_DST, 0, a->count, -1);
}

static arbor_status_t build_rd(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                               const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    if (a->count == 0) return ARBOR_OK;
    arb_fold_t f = arb_fold_of(a->size, a->rank);
    uint32_t r = fold_in(a, &f, s);
    uint64_t n = a->count;
    int K = arb_fold_log2(&f), prev = -1;
    if (f.newrank >= 0 && a->bytes <= a->chunk) {
        /* One landing slot: the send leaves without the partner's help, so the partner's
         * vector can combine straight into DST once ours has gone (lower rank first). */
        for (int k = 0; k < K; k++, r++) {
            int peer = arb_fold_real(&f, f.newrank ^ (1 << k));
            int tx = arb_sched_send(s, r, peer, ARB_BUF_DST, 0, n, -1);
            arb_sched_recv(s, r, peer, ARB_BUF_DST, 0, n,
                           peer < a->rank ? ARB_COMBINE_BEFORE : ARB_COMBINE_AFTER, tx);
        }
    } else if (f.newrank >= 0) {
        /* Longer vectors need both directions moving at once (each send waits for the
         * partner to drain its slots): the incoming one lands in SCRATCH, two halves used in
         * turn, and combines at the start of the next round. */
        s->scratch_blocks = K ? 2 * n : 0;
        for (int k = 0; k <= K; k++, r++) {
            int dep = -1;
            if (k > 0)
                dep = arb_sched_combine(
                    s, r, ARB_BUF_DST, 0, ARB_BUF_SCRATCH, (uint64_t)((k - 1) % 2) * n, n,
                    prev < a->rank ? ARB_COMBINE_BEFORE : ARB_COMBINE_AFTER, -1);
            if (k == K) break;
            int peer = arb_fold_real(&f, f.newrank ^ (1 << k));
            arb_sched_send(s, r, peer, ARB_BUF_DST, 0, n, dep);
            arb_sched_recv(s, r, peer, ARB_BUF_SCRATCH, (uint64_t)(k % 2) * n, n, 0, -1);
            prev = peer;
        }
    }
    fold_out(a, &f, r, s);
    return OK(s);
}

/* Recursive doubling, Rabenseifner, the ring and direct each copy the whole vector once between
 * SRC, SCRATCH and DST; reduce_scatter_allgather copies its own block only. Priced (like a
 * move through memory, as reduce_scatter.c's halving does) where reduce_scatter_allgather is a
 * candidate, the one-copy path: without it a P = 2 call tied with Rabenseifner and the tie kept
 * Rabenseifner although measured one copy is about twice as fast there. The two-copy prices
 * leave it out as they always have, so the two-copy choices (and the offload's) do not move
 * here; they are calibrated with the rest of the model (docs/PERFORMANCE.md). */
static double whole_copy(const arb_coll_args_t *a, const arb_logp_t *m)
{
    return a->one_copy ? (double)a->bytes * m->G : 0;
}

static double fold_cost(const arb_coll_args_t *a, const arb_logp_t *m)
{
    arb_fold_t f = arb_fold_of(a->size, 0);
    return f.rem ? 2 * arb_logp_arrival(m, a->bytes) + arb_logp_combine(m, a->bytes) : 0;
}

static double cost_rd(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)alg;
    if (a->size == 1 || a->bytes == 0) return 0;
    arb_fold_t f = arb_fold_of(a->size, 0);
    return fold_cost(a, m) + whole_copy(a, m) +
           arb_fold_log2(&f) * (arb_logp_arrival(m, a->bytes) + arb_logp_combine(m, a->bytes));
}

static arbor_status_t build_rabenseifner(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                         const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    if (!a->commutative) return ARBOR_ERR_UNSUPPORTED;
    if (a->count == 0) return ARBOR_OK;
    arb_fold_t f = arb_fold_of(a->size, a->rank);
    /* A rank outside the fold sends the first half it gives away from SRC, so DST starts as
     * SRC over the half it keeps only (the other half arrives finished in the allgather). */
    bool unfolded = a->rank >= 2 * f.rem && arb_fold_log2(&f) > 0;
    uint32_t r = 1;
    if (unfolded) {
        bool upper = (f.newrank & (f.pof2 >> 1)) != 0;
        uint64_t mid = a->count / 2, lo = upper ? mid : 0, len = upper ? a->count - mid : mid;
        if (len) arb_sched_copy(s, 0, ARB_BUF_DST, lo, ARB_BUF_SRC, lo, len, -1);
    } else {
        r = fold_in(a, &f, s);
    }
    if (f.newrank >= 0) {
        int K = arb_fold_log2(&f);
        uint64_t keep_lo[32], keep_hi[32], give_lo[32], give_hi[32], lo = 0, hi = a->count;
        int peer[32];
        for (int k = 0; k < K; k++, r++) { /* reduce-scatter by recursive halving */
            int mask = f.pof2 >> (k + 1);
            uint64_t mid = lo + (hi - lo) / 2;
            int upper = (f.newrank & mask) != 0;
            peer[k] = arb_fold_real(&f, f.newrank ^ mask);
            keep_lo[k] = upper ? mid : lo, keep_hi[k] = upper ? hi : mid;
            give_lo[k] = upper ? lo : mid, give_hi[k] = upper ? mid : hi;
            if (give_hi[k] > give_lo[k])
                arb_sched_send(s, r, peer[k], k == 0 && unfolded ? ARB_BUF_SRC : ARB_BUF_DST,
                               give_lo[k], give_hi[k] - give_lo[k], -1);
            if (keep_hi[k] > keep_lo[k])
                arb_sched_recv(s, r, peer[k], ARB_BUF_DST, keep_lo[k], keep_hi[k] - keep_lo[k],
                               ARB_COMBINE_AFTER, -1);
            lo = keep_lo[k], hi = keep_hi[k];
        }
        for (int k = K - 1; k >= 0; k--, r++) { /* allgather retracing the windows */
            if (keep_hi[k] > keep_lo[k])
                arb_sched_send(s, r, peer[k], ARB_BUF_DST, keep_lo[k], keep_hi[k] - keep_lo[k], -1);
            if (give_hi[k] > give_lo[k])
                arb_sched_recv(s, r, peer[k], ARB_BUF_DST, give_lo[k], give_hi[k] - give_lo[k], 0,
                               -1);
        }
    }
    fold_out(a, &f, r, s);
    return OK(s);
}

static double cost_rabenseifner(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                const arb_logp_t *m)
{
    (void)alg;
    if (!a->commutative) return INFINITY;
    if (a->size == 1 || a->bytes == 0) return 0;
    arb_fold_t f = arb_fold_of(a->size, 0);
    double t = fold_cost(a, m) + whole_copy(a, m);
    size_t part = a->bytes;
    for (int k = 0; k < arb_fold_log2(&f); k++) {
        part = (part + 1) / 2;
        t += 2 * arb_logp_arrival(m, part) + arb_logp_combine(m, part);
    }
    return t;
}

static arbor_status_t build_ring(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                 const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    if (!a->commutative) return ARBOR_ERR_UNSUPPORTED;
    if (a->count == 0) return ARBOR_OK;
    int P = a->size, me = a->rank, next = (me + 1) % P, prev = (me - 1 + P) % P;
    size_t n = a->count;
    /* DST starts as SRC but for this rank's own segment: each other segment is combined into
     * once in the reduce-scatter, while the own one goes out from SRC at the first step and
     * comes back finished at the last (1 / P of the vector not copied). */
    uint64_t mlo = P > 1 ? seg(n, P, me) : n, mhi = P > 1 ? seg(n, P, me + 1) : n;
    if (mlo) arb_sched_copy(s, 0, ARB_BUF_DST, 0, ARB_BUF_SRC, 0, mlo, -1);
    if (mhi < n) arb_sched_copy(s, 0, ARB_BUF_DST, mhi, ARB_BUF_SRC, mhi, n - mhi, -1);
    int last = -1;
    /* Steps 0 .. P-2 reduce-scatter (combining), P-1 .. 2P-3 allgather (copying); the segment
     * sent at each step is the one received at the step before. */
    for (int i = 0; i < 2 * (P - 1); i++) {
        int j = i < P - 1 ? i : i - (P - 1), back = i < P - 1 ? 0 : 1;
        int out = (me - j + back + 2 * P) % P, in = (me - j - 1 + back + 2 * P) % P;
        uint64_t olen = seg(n, P, out + 1) - seg(n, P, out);
        uint64_t ilen = seg(n, P, in + 1) - seg(n, P, in);
        if (olen)
            arb_sched_send(s, 1, next, i ? ARB_BUF_DST : ARB_BUF_SRC, seg(n, P, out), olen, last);
        last = -1;
        if (ilen)
            last = arb_sched_recv(s, 1, prev, ARB_BUF_DST, seg(n, P, in), ilen,
                                  i < P - 1 ? ARB_COMBINE_AFTER : 0, -1);
    }
    return OK(s);
}

/* 2 (P - 1) segment hops that stream: the first segment's hops at a chunk's latency, the rest
 * at the link rate, plus combining P - 1 segments. */
static double cost_ring(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)alg;
    if (!a->commutative) return INFINITY;
    int P = a->size;
    if (P == 1 || a->bytes == 0) return 0;
    size_t segb = (a->bytes + (size_t)P - 1) / (size_t)P;
    size_t c = a->chunk && a->chunk < segb ? a->chunk : segb;
    double hops = 2.0 * (P - 1) * arb_logp_arrival(m, c);
    double link = 2.0 * (P - 1) * arb_logp_gap(m, segb);
    /* Streaming overlaps the hops with the link only while every relay runs: not on a node with
     * more ranks than CPUs (arb_topo_oversubscribed). */
    double ring = arb_topo_oversubscribed(a->topo) ? hops + link : hops > link ? hops : link;
    return ring + (P - 1) * arb_logp_combine(m, segb) + whole_copy(a, m);
}

static arbor_status_t build_direct(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                   const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    if (a->count == 0) return ARBOR_OK;
    int P = a->size, me = a->rank, prev = -1;
    uint64_t n = a->count;
    if (P == 1) {
        arb_sched_copy(s, 0, ARB_BUF_DST, 0, ARB_BUF_SRC, 0, n, -1);
        return OK(s);
    }
    s->scratch_blocks = n;
    for (int i = 1; i < P; i++) arb_sched_send(s, 0, (me + i) % P, ARB_BUF_SRC, 0, n, -1);
    for (int j = 0; j < P; j++) {
        int combine = j ? ARB_COMBINE_AFTER : 0;
        if (j == me)
            prev = arb_sched_combine(s, 0, ARB_BUF_SCRATCH, 0, ARB_BUF_SRC, 0, n, combine, prev);
        else
            prev = arb_sched_recv(s, 0, j, ARB_BUF_SCRATCH, 0, n, combine, prev);
    }
    arb_sched_copy(s, 1, ARB_BUF_DST, 0, ARB_BUF_SCRATCH, 0, n, -1);
    return OK(s);
}

static double cost_direct(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)alg;
    return a->bytes == 0 ? 0 : arb_logp_direct(m, a->size, a->bytes, a->size) + whole_copy(a, m);
}

static arbor_status_t build_rsag(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                 const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    if (a->count == 0) return ARBOR_OK;
    int P = a->size, me = a->rank;
    size_t n = a->count;
    uint64_t lo = seg(n, P, me), mine = seg(n, P, me + 1) - lo;
    if (mine) arb_sched_copy(s, 0, ARB_BUF_DST, lo, ARB_BUF_SRC, lo, mine, -1);
    for (int i = 1; i < P; i++) {
        int to = (me + i) % P;
        uint64_t len = seg(n, P, to + 1) - seg(n, P, to);
        if (len) arb_sched_send(s, 0, to, ARB_BUF_SRC, seg(n, P, to), len, -1);
    }
    if (mine) arb_sched_recv_combine_all(s, 0, me, P, a->commutative, lo, mine);
    for (int i = 1; mine && i < P; i++)
        arb_sched_send(s, 1, (me + i) % P, ARB_BUF_DST, lo, mine, -1);
    for (int i = 1; i < P; i++) {
        int from = (me - i + P) % P;
        uint64_t len = seg(n, P, from + 1) - seg(n, P, from);
        if (len) arb_sched_recv(s, 1, from, ARB_BUF_DST, seg(n, P, from), len, 0, -1);
    }
    return OK(s);
}

/* Two direct rounds of one block each: this rank's block copied from SRC, P - 1 blocks out back
 * to back and P - 1 combined, then P - 1 blocks out and in. */
static double cost_rsag(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)alg;
    int P = a->size;
    if (!a->one_copy) return INFINITY; /* coll.h, one_copy: forced only on two copies */
    if (P == 1 || a->bytes == 0) return 0;
    size_t block = (a->bytes + (size_t)P - 1) / (size_t)P;
    return (double)block * m->G + 2 * arb_logp_direct(m, P, block, 0) +
           (P - 1) * arb_logp_combine(m, block);
}

static arbor_status_t build_updown(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                   const arb_logp_t *m, arb_sched_t *s)
{
    return arb_updown_build(a, m, alg->variant, s);
}

static double cost_updown(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    return arb_updown_cost(a, m, alg->variant);
}

const char *const arb_allreduce_alg_names[] = {"auto",
                                               "recursive_doubling",
                                               "rabenseifner",
                                               "ring",
                                               "direct",
                                               "reduce_scatter_allgather",
                                               "karp_node",
                                               "two_level",
                                               "leader_direct",
                                               "hwcoll",
                                               NULL};

const arb_alg_desc_t arb_allreduce_algs[] = {
    {"auto", "cheapest predicted by the LogGP model", NULL, NULL, 0, 0, 0, 0},
    {"recursive_doubling", "log2 P exchanges of the whole vector (any op)", build_rd, cost_rd, 0, 0,
     0, 0},
    {"rabenseifner",
     "recursive-halving reduce-scatter + recursive-doubling allgather "
     "(commutative ops)",
     build_rabenseifner, cost_rabenseifner, 0, 0, 0, 0},
    {"ring", "pipelined ring reduce-scatter + allgather (commutative ops)", build_ring, cost_ring,
     0, 0, 0, 0},
    {"direct",
     "one round: every rank sends its vector to every other and combines all P in rank "
     "order (any op)",
     build_direct, cost_direct, 0, 0, 0, 0},
    {"reduce_scatter_allgather",
     "two direct rounds: each rank combines its block of every vector, then every rank gathers "
     "the blocks (any op; one-copy on symmetric buffers)",
     build_rsag, cost_rsag, 0, 0, 0, 0},
    {"karp_node", "node-aware Karp tree: combine up to rank 0, then down (several nodes)",
     build_updown, cost_updown, ARB_TREE_KARP_NODE, 2, 1, 0},
    {"two_level", "two-level tree (inside nodes, then across leaders), up then down", build_updown,
     cost_updown, ARB_TREE_TWO_LEVEL, 2, 1, 0},
    {"leader_direct",
     "up each node's tree to its leader, leaders exchange partials in one round and combine "
     "them in leader order, down (commutative ops)",
     arb_leader_direct_build, arb_leader_direct_cost, ARB_NODE_LEADERS, 0, 1, 0},
    {"hwcoll", "the transport's provider collective (libfabric fi_allreduce, the team's group)",
     arb_hwcoll_build, arb_hwcoll_cost, 0, 0, 0, ARB_ALG_NEEDS_HWCOLL},
};
const int arb_allreduce_nalgs = sizeof(arb_allreduce_algs) / sizeof(arb_allreduce_algs[0]);
