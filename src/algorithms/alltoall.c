/*
 * Alltoall and alltoallv (coll.h: block = one rank's piece; SRC and DST hold P blocks in rank
 * order, block j of rank i's SRC lands as block i of rank j's DST; alltoallv: block = 1 byte,
 * counts / displs describe SRC per destination, rcounts / rdispls DST per source).
 *
 * pairwise: the shifted exchange order of [Karp93] (seeds, "Exchange"): rank r sends to r + 1,
 *   r + 2, ... and receives from r - 1, r - 2, ..., so when all start together each rank
 *   receives one message per step. No send waits for a receive, so all steps share one round:
 *   separate rounds would only add a latency per step. Cost: one latency plus P - 2 gaps.
 * bruck: [Bruck et al. 1997] for small blocks: rotate SRC into SCRATCH so that SCRATCH[j] is
 *   the block for rank r + j; in round k send every block whose index has bit k set to r + 2^k
 *   (packed into one message) and receive the same positions from r - 2^k; finally SCRATCH[j]
 *   holds the block from rank r - j. ceil(log2 P) messages instead of P - 1, but each carries
 *   about P/2 blocks and everything is copied locally a few times (priced at the model's G),
 *   so it loses to pairwise as blocks grow.
 * alltoallv pairwise: the same order with counts / rcounts; empty pieces are not sent.
 *
 * In-place alltoall: the core copies the input aside (SRC is never DST here).
 */
#include "algorithms/coll.h"

#include <math.h>

static int ceil_log2(int P)
{
    int k = 0;
    while ((1 << k) < P) k++;
    return k;
}

static arbor_status_t pairwise(const arb_coll_args_t *a, const size_t *sc, const size_t *sd,
                               const size_t *rc, const size_t *rd, arb_sched_t *s)
{
    int P = a->size, me = a->rank;
#define SC(j) (sc ? sc[j] : 1)
#define SD(j) (sd ? sd[j] : (uint64_t)(j))
#define RC(j) (rc ? rc[j] : 1)
#define RD(j) (rd ? rd[j] : (uint64_t)(j))
    if (RC(me)) arb_sched_copy(s, 0, ARB_BUF_DST, RD(me), ARB_BUF_SRC, SD(me), RC(me), -1);
    for (int i = 1; i < P; i++) {
        int to = (me + i) % P, from = (me - i + P) % P;
        if (SC(to)) arb_sched_send(s, 0, to, ARB_BUF_SRC, SD(to), SC(to), -1);
        if (RC(from)) arb_sched_recv(s, 0, from, ARB_BUF_DST, RD(from), RC(from), 0, -1);
    }
#undef SC
#undef SD
#undef RC
#undef RD
    return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
}

static double pairwise_cost(int P, size_t bytes, const arb_logp_t *m)
{
    if (P == 1) return 0;
    return arb_logp_arrival(m, bytes) + (P - 2) * arb_logp_gap(m, bytes);
}

static arbor_status_t build_pairwise(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                     const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    if (a->bytes == 0) return ARBOR_OK;
    return pairwise(a, NULL, NULL, NULL, NULL, s);
}

static double cost_pairwise(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                            const arb_logp_t *m)
{
    (void)alg;
    return a->bytes == 0 ? 0 : pairwise_cost(a->size, a->bytes, m);
}

/* Indices j in [0, P) with bit k set form runs [q 2^(k+1) + 2^k, (q + 1) 2^(k+1)) clipped to P. */
static int bruck_count(int P, int k, int *nruns)
{
    int dist = 1 << k, n = 0, runs = 0;
    for (int lo = dist; lo < P; lo += 2 * dist) {
        int hi = lo + dist < P ? lo + dist : P;
        n += hi - lo;
        runs++;
    }
    if (nruns) *nruns = runs;
    return n;
}

static arbor_status_t build_bruck(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                  const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    int P = a->size, me = a->rank, K = ceil_log2(P), M = 0;
    if (a->bytes == 0) return ARBOR_OK;
    if (P == 1) return pairwise(a, NULL, NULL, NULL, NULL, s);
    for (int k = 0; k < K; k++) {
        int n = bruck_count(P, k, NULL);
        if (n > M) M = n;
    }
    /* SCRATCH: [0, P) the rotated blocks, [P, P + M) outgoing pack, [P + M, P + 2M) incoming */
    s->scratch_blocks = (size_t)P + 2 * (size_t)M;
    const uint64_t out = (uint64_t)P, in = (uint64_t)(P + M);
    arb_sched_copy(s, 0, ARB_BUF_SCRATCH, 0, ARB_BUF_SRC, (uint64_t)me, (uint64_t)(P - me), -1);
    if (me)
        arb_sched_copy(s, 0, ARB_BUF_SCRATCH, (uint64_t)(P - me), ARB_BUF_SRC, 0, (uint64_t)me, -1);
    for (int k = 0; k < K; k++) {
        int dist = 1 << k, nruns, n = bruck_count(P, k, &nruns);
        uint32_t R = 1 + 3 * (uint32_t)k;
        uint64_t send_off = (uint64_t)dist; /* one run: sent in place */
        if (nruns > 1) {
            send_off = out;
            for (int lo = dist, pos = 0; lo < P; lo += 2 * dist) {
                int hi = lo + dist < P ? lo + dist : P;
                arb_sched_copy(s, R, ARB_BUF_SCRATCH, out + (uint64_t)pos, ARB_BUF_SCRATCH,
                               (uint64_t)lo, (uint64_t)(hi - lo), -1);
                pos += hi - lo;
            }
        }
        arb_sched_send(s, R + 1, (me + dist) % P, ARB_BUF_SCRATCH, send_off, (uint64_t)n, -1);
        arb_sched_recv(s, R + 1, (me - dist + P) % P, ARB_BUF_SCRATCH, in, (uint64_t)n, 0, -1);
        for (int lo = dist, pos = 0; lo < P; lo += 2 * dist) {
            int hi = lo + dist < P ? lo + dist : P;
            arb_sched_copy(s, R + 2, ARB_BUF_SCRATCH, (uint64_t)lo, ARB_BUF_SCRATCH,
                           in + (uint64_t)pos, (uint64_t)(hi - lo), -1);
            pos += hi - lo;
        }
    }
    /* SCRATCH[j] now holds the block from rank me - j */
    for (int j = 0; j < P; j++)
        arb_sched_copy(s, 1 + 3 * (uint32_t)K, ARB_BUF_DST, (uint64_t)((me - j + P) % P),
                       ARB_BUF_SCRATCH, (uint64_t)j, 1, -1);
    return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
}

/* ceil(log2 P) store-and-forward rounds of about P/2 blocks, plus every local copy (the two
 * rotations, packing and unpacking) at the model's G per byte. */
static double cost_bruck(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)alg;
    int P = a->size;
    if (P == 1 || a->bytes == 0) return 0;
    double t = 0, copied = 2.0 * P;
    for (int k = 0; (1 << k) < P; k++) {
        int nruns, n = bruck_count(P, k, &nruns);
        t += arb_logp_arrival(m, (size_t)n * a->bytes);
        copied += nruns > 1 ? 2.0 * n : n;
    }
    return t + copied * (double)a->bytes * m->G;
}

static arbor_status_t build_pairwisev(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                      const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    if (!a->counts || !a->displs || !a->rcounts || !a->rdispls) return ARBOR_ERR_INVALID_ARG;
    return pairwise(a, a->counts, a->displs, a->rcounts, a->rdispls, s);
}

/* Priced for this rank's mean outgoing piece. */
static double cost_pairwisev(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                             const arb_logp_t *m)
{
    (void)alg;
    size_t total = 0;
    for (int r = 0; a->counts && r < a->size; r++) total += a->counts[r];
    return pairwise_cost(a->size, total / (size_t)a->size, m);
}

const char *const arb_alltoall_alg_names[] = {"auto", "pairwise", "bruck", NULL};

const arb_alg_desc_t arb_alltoall_algs[] = {
    {"auto", "cheapest predicted by the LogGP model", NULL, NULL, 0, 0, 0, 0},
    {"pairwise", "shifted order: send to rank + i, receive from rank - i, i = 1..P-1",
     build_pairwise, cost_pairwise, 0, 0, 0, 0},
    {"bruck", "ceil(log2 P) rounds of packed blocks whose index has bit k set", build_bruck,
     cost_bruck, 0, 2, 0, 0},
};
const int arb_alltoall_nalgs = sizeof(arb_alltoall_algs) / sizeof(arb_alltoall_algs[0]);

const char *const arb_alltoallv_alg_names[] = {"auto", "pairwise", NULL};

const arb_alg_desc_t arb_alltoallv_algs[] = {
    {"auto", "cheapest predicted by the LogGP model", NULL, NULL, 0, 0, 0, 0},
    {"pairwise", "shifted order with per-pair counts and displacements", build_pairwisev,
     cost_pairwisev, 0, 0, 0, 0},
};
const int arb_alltoallv_nalgs = sizeof(arb_alltoallv_algs) / sizeof(arb_alltoallv_algs[0]);
