/*
 * Reduce-scatter (coll.h: block = one element; SRC holds sum(counts) elements, rank r's piece
 * of counts[r] elements at the prefix sum of the counts before r; DST gets counts[me]).
 *
 * pairwise: any op. DST starts as this rank's own piece of SRC; at step i every rank sends
 *   rank me + i its piece and combines what rank me - i sends it, all in one round. For a
 *   non-commutative op the receives are chained (each gated chunk by chunk on the previous
 *   one) in the order me - 1, me - 2, ..., 0 (combined before) then me + 1, ..., P - 1
 *   (combined after), which is rank order. P - 1 messages of one piece each: the
 *   large-vector choice.
 * recursive_halving: commutative ops. A SCRATCH copy of the whole vector; after the fold
 *   (fold.h) each round splits the current window of (new) ranks in two, sends the half the
 *   partner keeps and combines the half this rank keeps; log2 P rounds of halving vectors.
 *   The odd rank of a folded pair sends its partner's piece at the end.
 */
#include "algorithms/coll.h"
#include "algorithms/fold.h"

#include <math.h>
#include <stdlib.h>

#define OK(s) (arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY)

/* displs[r] = sum of counts before r, r = 0..P; NULL when out of memory. */
static uint64_t *prefix(const arb_coll_args_t *a)
{
    uint64_t *d = malloc(sizeof(uint64_t) * (size_t)(a->size + 1));
    if (!d) return NULL;
    d[0] = 0;
    for (int r = 0; r < a->size; r++) d[r + 1] = d[r] + a->counts[r];
    return d;
}

static arbor_status_t build_pairwise(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                     const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    int P = a->size, me = a->rank;
    uint64_t *d = prefix(a);
    if (!d) return ARBOR_ERR_NO_MEMORY;
    uint64_t mine = a->counts[me];
    if (mine) arb_sched_copy(s, 0, ARB_BUF_DST, 0, ARB_BUF_SRC, d[me], mine, -1);
    for (int i = 1; i < P; i++) {
        int to = (me + i) % P;
        if (a->counts[to]) arb_sched_send(s, 1, to, ARB_BUF_SRC, d[to], a->counts[to], -1);
    }
    if (mine) arb_sched_recv_combine_all(s, 1, me, P, a->commutative, 0, mine);
    free(d);
    return OK(s);
}

/* Every rank sends P - 1 pieces back to back and combines P - 1. */
static double cost_pairwise(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                            const arb_logp_t *m)
{
    (void)alg;
    int P = a->size;
    if (P == 1 || a->bytes == 0) return 0;
    size_t piece = a->bytes / (size_t)P;
    return (P - 1) * (arb_logp_gap(m, piece) + arb_logp_combine(m, piece)) +
           arb_logp_arrival(m, piece);
}

static arbor_status_t build_halving(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                    const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    if (!a->commutative) return ARBOR_ERR_UNSUPPORTED;
    int P = a->size, me = a->rank;
    uint64_t *d = prefix(a);
    if (!d) return ARBOR_ERR_NO_MEMORY;
    uint64_t total = d[P];
    if (total == 0) {
        free(d);
        return ARBOR_OK;
    }
    arb_fold_t f = arb_fold_of(P, me);
    s->scratch_blocks = total;
    arb_sched_copy(s, 0, ARB_BUF_SCRATCH, 0, ARB_BUF_SRC, 0, total, -1);
    uint32_t r = 1;
    if (me < 2 * f.rem) {
        if (f.newrank < 0)
            arb_sched_send(s, 1, me + 1, ARB_BUF_SCRATCH, 0, total, -1);
        else
            arb_sched_recv(s, 1, me - 1, ARB_BUF_SCRATCH, 0, total, ARB_COMBINE_AFTER, -1);
        r = 2;
    }
    if (f.newrank >= 0) {
        int lo = 0, hi = f.pof2; /* window of new ranks; its elements are contiguous */
        for (int mask = f.pof2 / 2; mask >= 1; mask /= 2, r++) {
            int mid = lo + mask, upper = (f.newrank & mask) != 0;
            int peer = arb_fold_real(&f, f.newrank ^ mask);
            uint64_t a0 = d[arb_fold_first(&f, lo)], a1 = d[arb_fold_first(&f, mid)],
                     a2 = d[arb_fold_first(&f, hi)];
            uint64_t klo = upper ? a1 : a0, khi = upper ? a2 : a1;
            uint64_t glo = upper ? a0 : a1, ghi = upper ? a1 : a2;
            if (ghi > glo) arb_sched_send(s, r, peer, ARB_BUF_SCRATCH, glo, ghi - glo, -1);
            if (khi > klo)
                arb_sched_recv(s, r, peer, ARB_BUF_SCRATCH, klo, khi - klo, ARB_COMBINE_AFTER, -1);
            if (upper)
                lo = mid;
            else
                hi = mid;
        }
        if (me < 2 * f.rem && a->counts[me - 1])
            arb_sched_send(s, r, me - 1, ARB_BUF_SCRATCH, d[me - 1], a->counts[me - 1], -1);
        if (a->counts[me])
            arb_sched_copy(s, r, ARB_BUF_DST, 0, ARB_BUF_SCRATCH, d[me], a->counts[me], -1);
    } else if (a->counts[me]) {
        arb_sched_recv(s, r, me + 1, ARB_BUF_DST, 0, a->counts[me], 0, -1);
    }
    free(d);
    return OK(s);
}

static double cost_halving(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)alg;
    if (!a->commutative) return INFINITY;
    if (a->size == 1 || a->bytes == 0) return 0;
    arb_fold_t f = arb_fold_of(a->size, 0);
    /* The schedule opens with a copy of the whole vector into SCRATCH and ends with one of
     * this rank's piece into DST; the formula used to leave both out, which made halving look
     * cheaper than pairwise on large vectors (1 MiB pieces at P = 4 chosen by prediction while
     * measured almost three times slower). The copies move bytes through memory like a
     * transfer does, at G per byte. */
    double t = (double)(a->bytes + a->bytes / (size_t)a->size) * m->G;
    if (f.rem) t += 2 * arb_logp_arrival(m, a->bytes) + arb_logp_combine(m, a->bytes);
    size_t part = a->bytes;
    for (int k = 0; k < arb_fold_log2(&f); k++) {
        part = (part + 1) / 2;
        t += arb_logp_arrival(m, part) + arb_logp_combine(m, part);
    }
    return t;
}

const char *const arb_reduce_scatter_alg_names[] = {"auto", "pairwise", "recursive_halving", NULL};

const arb_alg_desc_t arb_reduce_scatter_algs[] = {
    {"auto", "cheapest predicted by the LogGP model", NULL, NULL, 0, 0, 0, 0},
    {"pairwise", "P - 1 direct exchanges of pieces (any op, rank order when non-commutative)",
     build_pairwise, cost_pairwise, 0, 0, 0, 0},
    {"recursive_halving", "log2 P rounds of halving windows (commutative ops)", build_halving,
     cost_halving, 0, 0, 0, 0},
};
const int arb_reduce_scatter_nalgs =
    sizeof(arb_reduce_scatter_algs) / sizeof(arb_reduce_scatter_algs[0]);
