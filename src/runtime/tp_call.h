/*
 * A thin inline layer in front of the transport table (transports/transport.h) for the core:
 * the checks every backend would otherwise repeat, done once here, and capability gates. Each
 * wrapper calls the open backend of arb_ctx; behaviour is the contract's (a backend still
 * accepts what the wrapper filters: tests/tp_contract.c calls the table directly).
 */
#ifndef ARB_CORE_TP_CALL_H
#define ARB_CORE_TP_CALL_H

#include "runtime/context.h"

/* Whether the open transport has capability @p cap (ARB_TP_CAP_*). */
static inline bool arb_tp_has(uint32_t cap)
{
    return (arb_ctx.tp_ops->caps(arb_ctx.tp) & cap) == cap;
}

/* A world rank's segment key (after connect). */
static inline arb_tp_rkey_t *arb_tp_seg_rkey(int world_rank)
{
    return arb_ctx.tp_ops->seg_rkey(arb_ctx.tp, world_rank);
}

/* An empty put or get moves nothing and completes at once: comp is not touched. */
static inline arbor_status_t arb_tp_put(const void *src, size_t len, arb_tp_rkey_t *rkey,
                                        uint64_t off, arb_tp_comp_t *comp)
{
    if (len == 0) return ARBOR_OK;
    return arb_ctx.tp_ops->put(arb_ctx.tp, src, len, rkey, off, comp);
}

static inline arbor_status_t arb_tp_get(void *dst, size_t len, arb_tp_rkey_t *rkey, uint64_t off,
                                        arb_tp_comp_t *comp)
{
    if (len == 0) return ARBOR_OK;
    return arb_ctx.tp_ops->get(arb_ctx.tp, dst, len, rkey, off, comp);
}

static inline arbor_status_t arb_tp_amo(arb_tp_amo_t op, arb_tp_rkey_t *rkey, uint64_t off,
                                        uint64_t operand, uint64_t compare, uint64_t *result,
                                        arb_tp_comp_t *comp)
{
    return arb_ctx.tp_ops->amo(arb_ctx.tp, op, rkey, off, operand, compare, result, comp);
}

/* An empty put_signal still signals (the landing channels count on it): no length filter. The
 * source of an empty one is never read, so it is passed as NULL. */
static inline arbor_status_t arb_tp_put_signal(const void *src, size_t len, arb_tp_rkey_t *rkey,
                                               uint64_t off, arb_tp_rkey_t *sig_rkey,
                                               uint64_t sig_off, uint64_t sig_add,
                                               arb_tp_comp_t *comp)
{
    return arb_ctx.tp_ops->put_signal(arb_ctx.tp, len ? src : NULL, len, rkey, off, sig_rkey,
                                      sig_off, sig_add, comp);
}

static inline arbor_status_t arb_tp_fence(int world_rank)
{
    return arb_ctx.tp_ops->fence(arb_ctx.tp, world_rank);
}

/* Flushes: runtime/flush.h (arb_flush_peers), never the backend's blocking flush(). */

/* One turn of the transport alone (not the whole engine: see runtime/progress.h). */
static inline int arb_tp_progress(void)
{
    return arb_ctx.tp_ops->progress(arb_ctx.tp);
}

#endif /* ARB_CORE_TP_CALL_H */
