/*
 * Inclusive and exclusive prefix reductions (coll.h: block = one element, count elements).
 * Both keep rank order, so every op works, commutative or not; exscan leaves rank 0's DST
 * untouched (its result is undefined, as in MPI).
 *
 * recursive_doubling (Hillis and Steele): in round k rank r sends its running prefix (ranks
 *   r - 2^k + 1 .. r) to r + 2^k and combines what r - 2^k sends before its own; ceil(log2 P)
 *   rounds. scan combines the incoming prefix into DST once its own send has left (vectors
 *   of one landing slot; longer ones use SCRATCH like exscan); exscan
 *   keeps the running inclusive prefix in SCRATCH, lands the incoming one in SCRATCH too
 *   (alternating halves) and builds the exclusive result in DST from the same messages.
 * linear: a chain 0 -> 1 -> ... -> P - 1. For scan each rank forwards chunk by chunk as its
 *   predecessor's prefix arrives and combines (pipelined); exscan forwards once the whole
 *   prefix is in. P - 1 hops: cheapest for few ranks or long vectors.
 * direct: one round: rank r sends its vector to every higher rank and combines what the lower
 *   ones send, in rank order (receives chained, accumulating in SCRATCH; DST written at the
 *   end because SRC may be DST). One latency plus P - 2 gaps: small vectors on few ranks, and
 *   wherever a hop is expensive (more ranks than cores, logp.h).
 */
#include "algorithms/coll.h"

#include <math.h>

#define OK(s) (arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY)

/* The running prefix (scan: DST; exscan: SCRATCH block 0) and where round k's incoming
 * prefix lands. */
static arbor_status_t build_rd(const arb_coll_args_t *a, int exclusive, arb_sched_t *s)
{
    int P = a->size, me = a->rank;
    uint64_t n = a->count;
    if (n == 0 || (exclusive && P == 1)) return ARBOR_OK;
    if (!exclusive && a->bytes <= a->chunk) {
        /* One landing slot: our send leaves without the receiver's help, so the incoming
         * prefix can combine into DST once it has (longer vectors would deadlock: every
         * rank's send would wait for a receiver that waits for its own send). */
        arb_sched_copy(s, 0, ARB_BUF_DST, 0, ARB_BUF_SRC, 0, n, -1);
        for (int d = 1, k = 1; d < P; d *= 2, k++) {
            int tx =
                me + d < P ? arb_sched_send(s, (uint32_t)k, me + d, ARB_BUF_DST, 0, n, -1) : -1;
            if (me - d >= 0)
                arb_sched_recv(s, (uint32_t)k, me - d, ARB_BUF_DST, 0, n, ARB_COMBINE_BEFORE, tx);
        }
        return OK(s);
    }
    arb_buf_space_t run = exclusive ? ARB_BUF_SCRATCH : ARB_BUF_DST;
    uint64_t base = exclusive ? n : 0; /* incoming halves after the running prefix */
    int K = 0;
    while ((1 << K) < P) K++;
    s->scratch_blocks = K ? base + 2 * n : 0;
    arb_sched_copy(s, 0, run, 0, ARB_BUF_SRC, 0, n, -1);
    for (int k = 0; k <= K; k++) {
        uint32_t r = (uint32_t)k + 1;
        int dep = -1;
        if (k > 0 && me - (1 << (k - 1)) >= 0) { /* last round's prefix joins, before ours */
            uint64_t in = base + (uint64_t)((k - 1) % 2) * n;
            if (exclusive)
                arb_sched_combine(s, r, ARB_BUF_DST, 0, ARB_BUF_SCRATCH, in, n,
                                  k == 1 ? ARB_COMBINE_NONE : ARB_COMBINE_BEFORE, -1);
            dep = arb_sched_combine(s, r, run, 0, ARB_BUF_SCRATCH, in, n, ARB_COMBINE_BEFORE, -1);
        }
        if (k == K) break;
        int d = 1 << k;
        if (me + d < P) arb_sched_send(s, r, me + d, run, 0, n, dep);
        if (me - d >= 0)
            arb_sched_recv(s, r, me - d, ARB_BUF_SCRATCH, base + (uint64_t)(k % 2) * n, n, 0, -1);
    }
    return OK(s);
}

static arbor_status_t build_linear(const arb_coll_args_t *a, int exclusive, arb_sched_t *s)
{
    int P = a->size, me = a->rank;
    uint64_t n = a->count;
    if (n == 0 || (exclusive && P == 1)) return ARBOR_OK;
    if (!exclusive) {
        arb_sched_copy(s, 0, ARB_BUF_DST, 0, ARB_BUF_SRC, 0, n, -1);
        int rx = me ? arb_sched_recv(s, 1, me - 1, ARB_BUF_DST, 0, n, ARB_COMBINE_BEFORE, -1) : -1;
        if (me + 1 < P) arb_sched_send(s, 1, me + 1, ARB_BUF_DST, 0, n, rx);
        return OK(s);
    }
    if (me == 0) {
        arb_sched_send(s, 0, 1, ARB_BUF_SRC, 0, n, -1);
        return OK(s);
    }
    if (me + 1 < P) { /* the prefix to forward is built in SCRATCH: DST keeps the exclusive one */
        s->scratch_blocks = n;
        arb_sched_copy(s, 0, ARB_BUF_SCRATCH, 0, ARB_BUF_SRC, 0, n, -1);
    }
    arb_sched_recv(s, 1, me - 1, ARB_BUF_DST, 0, n, 0, -1);
    if (me + 1 < P) {
        int c =
            arb_sched_combine(s, 2, ARB_BUF_SCRATCH, 0, ARB_BUF_DST, 0, n, ARB_COMBINE_BEFORE, -1);
        arb_sched_send(s, 2, me + 1, ARB_BUF_SCRATCH, 0, n, c);
    }
    return OK(s);
}

static arbor_status_t build_scan_rd(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                    const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    return build_rd(a, 0, s);
}

static arbor_status_t build_exscan_rd(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                      const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    return build_rd(a, 1, s);
}

static arbor_status_t build_scan_linear(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                        const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    return build_linear(a, 0, s);
}

static arbor_status_t build_exscan_linear(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                          const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    return build_linear(a, 1, s);
}

static arbor_status_t build_direct(const arb_coll_args_t *a, int exclusive, arb_sched_t *s)
{
    int P = a->size, me = a->rank, prev = -1;
    uint64_t n = a->count;
    if (n == 0 || (exclusive && me == 0)) {
        for (int to = me + 1; n && to < P; to++) arb_sched_send(s, 0, to, ARB_BUF_SRC, 0, n, -1);
        return OK(s);
    }
    s->scratch_blocks = n;
    for (int to = me + 1; to < P; to++) arb_sched_send(s, 0, to, ARB_BUF_SRC, 0, n, -1);
    for (int j = 0; j < me; j++)
        prev = arb_sched_recv(s, 0, j, ARB_BUF_SCRATCH, 0, n, j ? ARB_COMBINE_AFTER : 0, prev);
    if (!exclusive)
        arb_sched_combine(s, 0, ARB_BUF_SCRATCH, 0, ARB_BUF_SRC, 0, n,
                          me ? ARB_COMBINE_AFTER : ARB_COMBINE_NONE, prev);
    arb_sched_copy(s, 1, ARB_BUF_DST, 0, ARB_BUF_SCRATCH, 0, n, -1);
    return OK(s);
}

static arbor_status_t build_scan_direct(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                        const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    return build_direct(a, 0, s);
}

static arbor_status_t build_exscan_direct(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                          const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    return build_direct(a, 1, s);
}

/* Rank 0 sends P - 1 vectors; rank P - 1 combines P of them. */
static double cost_direct(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)alg;
    return a->bytes == 0 ? 0 : arb_logp_direct(m, a->size, a->bytes, a->size);
}

static double cost_rd(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)alg;
    if (a->size == 1 || a->bytes == 0) return 0;
    double rounds = ceil(log2((double)a->size));
    /* Past one landing slot each round's prefix lands whole in SCRATCH and is combined in a
     * pass of its own (build_rd), where linear combines chunk by chunk straight from the slot:
     * one more pass over the vector per round, which the formula left out and which made the
     * two tie at P = 2 (bench/fidelity: at 1 MiB, P = 2, recursive_doubling was chosen and was
     * slower than linear). */
    double land = a->bytes > a->chunk ? (double)a->bytes * m->G : 0;
    return rounds * (arb_logp_arrival(m, a->bytes) + land + arb_logp_combine(m, a->bytes));
}

/* scan: P - 1 cut-through hops of one chunk, the rest streaming behind at the link rate;
 * exscan: P - 1 store-and-forward hops.
 * A relay of scan both combines and forwards every chunk. Where taking a chunk in (o_r and its
 * combine) costs it more than the chunks' spacing (the sender's gap), the next chunk has
 * always landed by the time it is done, and the executor's progress takes in every landed chunk
 * of a channel before it moves the next step: the relay forwards nothing until the whole vector
 * is in, and every hop is store and forward (unit.costsim: up to 2.9x under its schedule at
 * P = 7-8 and 1 MiB, with the combine priced at G). */
static double cost_linear(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    int P = a->size;
    if (P == 1 || a->bytes == 0) return 0;
    if (alg->variant) /* exclusive */
        return (P - 1) * (arb_logp_arrival(m, a->bytes) + arb_logp_combine(m, a->bytes));
    size_t c = a->chunk && a->chunk < a->bytes ? a->chunk : a->bytes;
    double nchunks = ceil((double)a->bytes / (double)c);
    double take = m->orecv + arb_logp_combine(m, c);
    if (P > 2 && nchunks > 1 && take + m->os > arb_logp_gap(m, c))
        return (P - 1) * (arb_logp_arrival(m, c) - m->orecv + nchunks * take);
    return (P - 1) * (arb_logp_arrival(m, c) + arb_logp_combine(m, c)) +
           (nchunks - 1) * (arb_logp_gap(m, c) + arb_logp_combine(m, c));
}

const char *const arb_scan_alg_names[] = {"auto", "recursive_doubling", "linear", "direct", NULL};
const char *const arb_exscan_alg_names[] = {"auto", "recursive_doubling", "linear", "direct", NULL};

const arb_alg_desc_t arb_scan_algs[] = {
    {"auto", "cheapest predicted by the LogGP model", NULL, NULL, 0, 0, 0, 0},
    {"recursive_doubling", "ceil(log2 P) rounds, prefix from rank - 2^k (any op)", build_scan_rd,
     cost_rd, 0, 0, 0, 0},
    {"linear", "pipelined chain 0 -> 1 -> ... -> P - 1 (any op)", build_scan_linear, cost_linear, 0,
     0, 0, 0},
    {"direct", "one round: every rank sends to all higher ranks, combined in rank order (any op)",
     build_scan_direct, cost_direct, 0, 0, 0, 0},
};
const int arb_scan_nalgs = sizeof(arb_scan_algs) / sizeof(arb_scan_algs[0]);

const arb_alg_desc_t arb_exscan_algs[] = {
    {"auto", "cheapest predicted by the LogGP model", NULL, NULL, 0, 0, 0, 0},
    {"recursive_doubling", "ceil(log2 P) rounds, prefix from rank - 2^k (any op)", build_exscan_rd,
     cost_rd, 1, 0, 0, 0},
    {"linear", "chain 0 -> 1 -> ... -> P - 1, store and forward (any op)", build_exscan_linear,
     cost_linear, 1, 0, 0, 0},
    {"direct", "one round: every rank sends to all higher ranks, combined in rank order (any op)",
     build_exscan_direct, cost_direct, 1, 0, 0, 0},
};
const int arb_exscan_nalgs = sizeof(arb_exscan_algs) / sizeof(arb_exscan_algs[0]);
