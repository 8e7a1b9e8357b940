/*
 * Allgather and allgatherv (coll.h: block = one rank's piece; SRC holds one block, DST P blocks
 * in rank order; allgatherv: block = 1 byte, counts / displs in bytes, known to every rank).
 *
 * ring: block j travels r -> r + 1 -> ... P - 1 hops. All steps are in one round and each
 *   forward depends on the receive of the same block, so a block moves chunk by chunk
 *   (cut-through) and a rank forwards while it is still receiving: for large blocks the ring
 *   costs about one latency plus (P - 1) blocks at the link rate, the best of the three.
 * recursive_doubling: P a power of two only; in round k rank r swaps its 2^k aligned blocks
 *   with r ^ 2^k, straight into DST. Other P: the cost is INFINITY and the builder says
 *   ARBOR_ERR_UNSUPPORTED.
 * bruck: any P, ceil(log2 P) rounds (the dissemination pattern): in round k rank r sends the
 *   first min(2^k, P - 2^k) blocks of its SCRATCH (blocks of ranks r, r + 1, ...) to r - 2^k and
 *   appends those of r + 2^k; a final rotation copies SCRATCH into DST (its price: P blocks at
 *   the model's G, which is what loses to the ring on large blocks).
 * direct: one round: every rank sends its block to every other and receives theirs, in the
 *   shifted order of alltoall's pairwise. One latency plus P - 2 gaps, and no rank ever waits
 *   for another to forward: the choice for small blocks on few ranks, and wherever a hop is
 *   expensive (more ranks than cores: a relay may be descheduled, see logp.h).
 * allgatherv ring / direct: the same with counts[j] bytes at displs[j]; empty pieces are not
 *   sent.
 *
 * The own block is a COPY SRC -> DST + rank; in-place calls have SRC = DST + rank (the core),
 * so it has equal ends and the executor skips it.
 */
#include "algorithms/coll.h"

#include <math.h>

static int ceil_log2(int P)
{
    int k = 0;
    while ((1 << k) < P) k++;
    return k;
}

/* One ring: blocks of cnt[j] blocks at off[j] (NULL: 1 block at j), zero-sized ones skipped. */
static arbor_status_t ring(const arb_coll_args_t *a, const size_t *cnt, const size_t *off,
                           arb_sched_t *s)
{
    int P = a->size, me = a->rank, next = (me + 1) % P, prev = (me - 1 + P) % P;
#define CNT(j) (cnt ? cnt[j] : 1)
#define OFF(j) (off ? off[j] : (uint64_t)(j))
    if (CNT(me)) arb_sched_copy(s, 0, ARB_BUF_DST, OFF(me), ARB_BUF_SRC, 0, CNT(me), -1);
    if (P > 1 && CNT(me)) arb_sched_send(s, 0, next, ARB_BUF_SRC, 0, CNT(me), -1);
    for (int i = 1; i < P; i++) {
        int j = (me - i + P) % P;
        if (!CNT(j)) continue;
        int rx = arb_sched_recv(s, 0, prev, ARB_BUF_DST, OFF(j), CNT(j), 0, -1);
        if (i < P - 1) arb_sched_send(s, 0, next, ARB_BUF_DST, OFF(j), CNT(j), rx);
    }
#undef CNT
#undef OFF
    return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
}

/* Block j reaches its farthest rank after P - 1 cut-through hops (each a chunk's latency,
 * whole blocks when they fit one chunk), and no rank can send its P - 1 blocks faster than one
 * per gap. */
static double ring_cost(int P, size_t bytes, size_t chunk, const arb_logp_t *m)
{
    if (P == 1) return 0;
    size_t c = chunk && chunk < bytes ? chunk : bytes;
    double hops = (P - 2) * arb_logp_arrival(m, c), link = (P - 2) * arb_logp_gap(m, bytes);
    return (hops > link ? hops : link) + arb_logp_arrival(m, bytes);
}

/* Everyone to everyone in one round, blocks of cnt[j] at off[j] (NULL: 1 block at j). */
static arbor_status_t direct(const arb_coll_args_t *a, const size_t *cnt, const size_t *off,
                             arb_sched_t *s)
{
    int P = a->size, me = a->rank;
#define CNT(j) (cnt ? cnt[j] : 1)
#define OFF(j) (off ? off[j] : (uint64_t)(j))
    if (CNT(me)) arb_sched_copy(s, 0, ARB_BUF_DST, OFF(me), ARB_BUF_SRC, 0, CNT(me), -1);
    for (int i = 1; i < P; i++) {
        int to = (me + i) % P, from = (me - i + P) % P;
        if (CNT(me)) arb_sched_send(s, 0, to, ARB_BUF_SRC, 0, CNT(me), -1);
        if (CNT(from)) arb_sched_recv(s, 0, from, ARB_BUF_DST, OFF(from), CNT(from), 0, -1);
    }
#undef CNT
#undef OFF
    return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
}

static arbor_status_t build_direct(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                   const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    if (a->bytes == 0) return ARBOR_OK;
    return direct(a, NULL, NULL, s);
}

static double cost_direct(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)alg;
    return a->bytes == 0 ? 0 : arb_logp_direct(m, a->size, a->bytes, 0);
}

static arbor_status_t build_ring(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                 const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    if (a->bytes == 0) return ARBOR_OK;
    return ring(a, NULL, NULL, s);
}

static double cost_ring(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)alg;
    return a->bytes == 0 ? 0 : ring_cost(a->size, a->bytes, a->chunk, m);
}

static arbor_status_t build_rd(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                               const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    int P = a->size, me = a->rank;
    if (P & (P - 1)) return ARBOR_ERR_UNSUPPORTED;
    if (a->bytes == 0) return ARBOR_OK;
    arb_sched_copy(s, 0, ARB_BUF_DST, (uint64_t)me, ARB_BUF_SRC, 0, 1, -1);
    for (int k = 0; (1 << k) < P; k++) {
        int n = 1 << k, peer = me ^ n, base = me & ~(n - 1), pbase = peer & ~(n - 1);
        if (k == 0)
            arb_sched_send(s, 0, peer, ARB_BUF_SRC, 0, 1, -1);
        else
            arb_sched_send(s, (uint32_t)k, peer, ARB_BUF_DST, (uint64_t)base, (uint64_t)n, -1);
        arb_sched_recv(s, (uint32_t)k, peer, ARB_BUF_DST, (uint64_t)pbase, (uint64_t)n, 0, -1);
    }
    return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
}

/* log2 P store-and-forward rounds of 2^k blocks. */
static double cost_rd(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)alg;
    int P = a->size;
    if (P & (P - 1)) return INFINITY;
    if (a->bytes == 0) return 0;
    double t = 0;
    for (int n = 1; n < P; n *= 2) t += arb_logp_arrival(m, (size_t)n * a->bytes);
    return t;
}

static arbor_status_t build_bruck(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                  const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    int P = a->size, me = a->rank, K = ceil_log2(P);
    if (a->bytes == 0) return ARBOR_OK;
    if (P == 1) {
        arb_sched_copy(s, 0, ARB_BUF_DST, 0, ARB_BUF_SRC, 0, 1, -1);
        return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
    }
    s->scratch_blocks = (size_t)P;
    /* SCRATCH[j] = block of rank me + j */
    arb_sched_copy(s, 0, ARB_BUF_SCRATCH, 0, ARB_BUF_SRC, 0, 1, -1);
    for (int k = 0; k < K; k++) {
        int dist = 1 << k, n = dist < P - dist ? dist : P - dist;
        int to = (me - dist + P) % P, from = (me + dist) % P;
        if (k == 0)
            arb_sched_send(s, 0, to, ARB_BUF_SRC, 0, 1, -1);
        else
            arb_sched_send(s, (uint32_t)k, to, ARB_BUF_SCRATCH, 0, (uint64_t)n, -1);
        arb_sched_recv(s, (uint32_t)k, from, ARB_BUF_SCRATCH, (uint64_t)dist, (uint64_t)n, 0, -1);
    }
    arb_sched_copy(s, (uint32_t)K, ARB_BUF_DST, (uint64_t)me, ARB_BUF_SCRATCH, 0,
                   (uint64_t)(P - me), -1);
    if (me)
        arb_sched_copy(s, (uint32_t)K, ARB_BUF_DST, 0, ARB_BUF_SCRATCH, (uint64_t)(P - me),
                       (uint64_t)me, -1);
    return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
}

/* ceil(log2 P) store-and-forward rounds plus the local rotation of P blocks (priced at G). */
static double cost_bruck(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)alg;
    int P = a->size;
    if (P == 1 || a->bytes == 0) return 0;
    double t = (double)P * (double)a->bytes * m->G;
    for (int dist = 1; dist < P; dist *= 2) {
        int n = dist < P - dist ? dist : P - dist;
        t += arb_logp_arrival(m, (size_t)n * a->bytes);
    }
    return t;
}

static arbor_status_t build_ringv(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                  const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    if (!a->counts || !a->displs) return ARBOR_ERR_INVALID_ARG;
    return ring(a, a->counts, a->displs, s);
}

static arbor_status_t build_directv(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                    const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    if (!a->counts || !a->displs) return ARBOR_ERR_INVALID_ARG;
    return direct(a, a->counts, a->displs, s);
}

static size_t mean_piece(const arb_coll_args_t *a)
{
    size_t total = 0;
    for (int r = 0; a->counts && r < a->size; r++) total += a->counts[r];
    return total / (size_t)a->size;
}

static double cost_directv(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)alg;
    return arb_logp_direct(m, a->size, mean_piece(a), 0);
}

/* The ring priced for the mean piece (every rank knows all counts, so all agree). */
static double cost_ringv(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)alg;
    return ring_cost(a->size, mean_piece(a), a->chunk, m);
}

const char *const arb_allgather_alg_names[] = {
    "auto", "ring", "recursive_doubling", "bruck", "direct", "hierarchical", NULL};

const arb_alg_desc_t arb_allgather_algs[] = {
    {"auto", "cheapest predicted by the LogGP model", NULL, NULL, 0, 0, 0, 0},
    {"ring", "P - 1 hops around the ring, forwarded chunk by chunk", build_ring, cost_ring, 0, 0, 0,
     0},
    {"recursive_doubling", "log2 P rounds swapping 2^k blocks with rank ^ 2^k (P a power of two)",
     build_rd, cost_rd, 0, 2, 0, 0},
    {"bruck", "ceil(log2 P) dissemination rounds in scratch, then a rotation", build_bruck,
     cost_bruck, 0, 2, 0, 0},
    {"direct", "one round: every rank sends its block to every other", build_direct, cost_direct, 0,
     0, 0, 0},
    {"hierarchical",
     "gather to each node's leader, one message between every two leaders, leaders send all "
     "(several nodes)",
     arb_allgather_node_build, arb_allgather_node_cost, 0, 0, 1, 0},
};
const int arb_allgather_nalgs = sizeof(arb_allgather_algs) / sizeof(arb_allgather_algs[0]);

const char *const arb_allgatherv_alg_names[] = {"auto", "ring", "direct", NULL};

const arb_alg_desc_t arb_allgatherv_algs[] = {
    {"auto", "cheapest predicted by the LogGP model", NULL, NULL, 0, 0, 0, 0},
    {"ring", "P - 1 hops around the ring, forwarded chunk by chunk", build_ringv, cost_ringv, 0, 0,
     0, 0},
    {"direct", "one round: every rank sends its piece to every other", build_directv, cost_directv,
     0, 0, 0, 0},
};
const int arb_allgatherv_nalgs = sizeof(arb_allgatherv_algs) / sizeof(arb_allgatherv_algs[0]);
