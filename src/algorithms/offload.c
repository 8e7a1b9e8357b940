/*
 * Offloaded candidates (coll/offload.h, docs/OFFLOAD.md): the collective goes to a transport
 * hook whole, as one ARB_STEP_OFFLOAD step. They appear in the barrier, bcast and allreduce
 * tables like any algorithm, need ARB_ALG_NEEDS_HWCOLL (the selector skips them on a call the
 * provider cannot run) and are priced like any algorithm: the hook's fixed per-call cost plus
 * the messages of libfabric's software collectives (recursive doubling; a broadcast is a
 * scatter then an allgather), which is what tcp;ofi_rxm runs; a provider whose switches
 * combine (cxi) is priced as one traversal of the fabric.
 */
#include "algorithms/coll.h"
#include "algorithms/tree.h"

#include <math.h>

arbor_status_t arb_hwcoll_build(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    if (!(a->caps & ARB_ALG_NEEDS_HWCOLL)) return ARBOR_ERR_UNSUPPORTED;
    uint64_t blocks = a->coll == ARB_COLL_ALLREDUCE ? a->count : a->coll == ARB_COLL_BCAST ? 1 : 0;
    arb_sched_offload(s, 0, ARB_HOOK_HWCOLL, a->root, blocks);
    return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
}

double arb_hwcoll_cost(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)alg;
    if (!(a->caps & ARB_ALG_NEEDS_HWCOLL)) return INFINITY;
    int P = a->size;
    if (!a->hwcoll_software) return a->hwcoll_us + arb_logp_arrival(m, a->bytes);
    double lg = P > 1 ? ceil(log2((double)P)) : 0;
    bool pow2 = (P & (P - 1)) == 0;
    double rounds = lg + (pow2 ? 0 : 2); /* the extra ranks fold in first and out last */
    size_t bytes = a->bytes;
    switch (a->coll) {
    case ARB_COLL_BCAST: {
        size_t piece = P > 0 ? (bytes + (size_t)P - 1) / (size_t)P : bytes;
        return a->hwcoll_us + 2 * rounds * arb_logp_arrival(m, piece) +
               (double)(P - 1) * arb_logp_gap(m, piece);
    }
    case ARB_COLL_ALLREDUCE:
        return a->hwcoll_us + rounds * (arb_logp_arrival(m, bytes) + arb_logp_combine(m, bytes));
    default:
        return a->hwcoll_us + rounds * arb_logp_arrival(m, 8); /* a barrier allreduces a word */
    }
}

/* Triggered programs (coll/offload.c lowers the binomial broadcast tree and the flat barrier
 * into triggered writes): the same messages as those schedules, so the same predicted time;
 * what the hook saves is the intermediate ranks' CPU, not latency. */
arbor_status_t arb_trig_build(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                              const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    if (!(a->caps & ARB_ALG_NEEDS_TRIGGERED)) return ARBOR_ERR_UNSUPPORTED;
    arb_sched_offload(s, 0, ARB_HOOK_TRIGGERED, a->root, a->coll == ARB_COLL_BCAST ? 1 : 0);
    return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
}

double arb_trig_cost(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)alg;
    if (!(a->caps & ARB_ALG_NEEDS_TRIGGERED)) return INFINITY;
    if (a->coll == ARB_COLL_BCAST) {
        arb_coll_args_t b = *a;
        b.chunk = b.bytes; /* one message per edge: the payload is not pipelined */
        return arb_bcast_tree_cost(&b, m, ARB_TREE_BINOMIAL, 2);
    }
    if (a->size < 2) return 0;
    return 2 * arb_logp_arrival(m, 1) + 2 * (a->size - 2) * arb_logp_gap(m, 1);
}
