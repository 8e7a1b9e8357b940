/*
 * libfabric backend: the data-movement entry points of the contract. Each builds a request and
 * hands it to ofi_post.c. put_signal uses the cheapest ordering the provider has:
 * - remote CQ data (cq_data_size >= 8 and FI_ORDER_RMA_WAW: shm, tcp;ofi_rxm and sockets in
 *   1.17): the put's last write carries the signal's offset and addend, and the target adds it
 *   when it reads the completion from its CQ (ofi_progress.c), which the provider writes only
 *   once the data is in place. One message, no round trip; the target's progress applies it,
 *   which manual progress needs for the data anyway.
 * - otherwise the signal atomic waits in the peer's queue until everything in flight to that
 *   peer is delivery-complete (FI_DELIVERY_COMPLETE), so the target never sees the signal before
 *   the data: one round trip more.
 * FI_FENCE would be a third way; see modes_read in ofi_fabric.c for why it is not used. fence()
 * marks the peer's next request so that it waits like the second way.
 */
#include "transports/ofi/ofi.h"

#include "util/log.h"

static bool key_ok(const arb_tp_t *tp, const arb_tp_rkey_t *rkey, const char *what)
{
    if (tp->peers != NULL && rkey != NULL && rkey->peer >= 0 && rkey->peer < tp->size) return true;
    arb_error("%s: bad remote key (not connected, or peer out of range)", what);
    return false;
}

static arb_ofi_req_t *rma_req(arb_tp_t *tp, arb_ofi_kind_t kind, void *buf, size_t len,
                              arb_tp_rkey_t *rkey, uint64_t off, arb_tp_comp_t *comp)
{
    arb_ofi_req_t *req = arb_ofi_req_get(tp);

    if (req == NULL) return NULL;
    req->kind = kind;
    req->peer = rkey->peer;
    req->comp = comp;
    req->buf = buf;
    req->len = len;
    req->raddr = rkey->addr0 + off;
    req->key = rkey->key;
    return req;
}

static arbor_status_t rma(arb_tp_t *tp, arb_ofi_kind_t kind, void *buf, size_t len,
                          arb_tp_rkey_t *rkey, uint64_t off, arb_tp_comp_t *comp)
{
    arb_ofi_req_t *req;

    if (len == 0) return ARBOR_OK;
    if (!key_ok(tp, rkey, kind == ARB_OFI_PUT ? "put" : "get") || buf == NULL)
        return ARBOR_ERR_INVALID_ARG;
    if ((req = rma_req(tp, kind, buf, len, rkey, off, comp)) == NULL) return ARBOR_ERR_NO_MEMORY;
    return arb_ofi_submit(tp, req, false);
}

arbor_status_t arb_ofi_put(arb_tp_t *tp, const void *src, size_t len, arb_tp_rkey_t *rkey,
                           uint64_t off, arb_tp_comp_t *comp)
{
    return rma(tp, ARB_OFI_PUT, (void *)(uintptr_t)src, len, rkey, off, comp);
}

arbor_status_t arb_ofi_get(arb_tp_t *tp, void *dst, size_t len, arb_tp_rkey_t *rkey, uint64_t off,
                           arb_tp_comp_t *comp)
{
    return rma(tp, ARB_OFI_GET, dst, len, rkey, off, comp);
}

static arb_ofi_req_t *amo_req(arb_tp_t *tp, arb_tp_amo_t op, arb_tp_rkey_t *rkey, uint64_t off,
                              uint64_t operand, uint64_t compare, uint64_t *result,
                              arb_tp_comp_t *comp)
{
    arb_ofi_req_t *req = arb_ofi_req_get(tp);

    if (req == NULL) return NULL;
    req->kind = ARB_OFI_AMO;
    req->peer = rkey->peer;
    req->comp = comp;
    req->len = 1; /* one element */
    req->raddr = rkey->addr0 + off;
    req->key = rkey->key;
    req->amo = op;
    req->operand = operand;
    req->compare = compare;
    req->result = result;
    return req;
}

arbor_status_t arb_ofi_amo(arb_tp_t *tp, arb_tp_amo_t op, arb_tp_rkey_t *rkey, uint64_t off,
                           uint64_t operand, uint64_t compare, uint64_t *result,
                           arb_tp_comp_t *comp)
{
    arb_ofi_req_t *req;

    if (!key_ok(tp, rkey, "atomic")) return ARBOR_ERR_INVALID_ARG;
    if ((rkey->addr0 + off) % sizeof(uint64_t) != 0 || (unsigned)op > ARB_TP_AMO_CSWAP ||
        (op != ARB_TP_AMO_ADD && result == NULL)) {
        arb_error("atomic %d to peer %d: unknown op, unaligned offset %llu or no result buffer",
                  (int)op, rkey->peer, (unsigned long long)off);
        return ARBOR_ERR_INVALID_ARG;
    }
    if (op == ARB_TP_AMO_ADD) result = NULL;
    if ((req = amo_req(tp, op, rkey, off, operand, compare, result, comp)) == NULL)
        return ARBOR_ERR_NO_MEMORY;
    /* Accepted even when the provider pushes back: shm refuses every operation to a peer for
     * as long as a large transfer to it is under way, and callers that retry an atomic at once
     * (the core's credits) would spin without yielding the core that peer needs to finish it.
     * The request waits in the peer's queue instead; it holds no buffer of the caller's. */
    return arb_ofi_submit(tp, req, true);
}

/* The remote CQ data that makes the target add sig_add to the signal word, or false when the
 * target could not apply it: the word must lie in its segment (the one memory it knows without
 * a key), and offset and addend must fit the 64 bits (ofi.h). */
static bool cq_signal_data(const arb_tp_t *tp, const arb_tp_rkey_t *sig_rkey, uint64_t sig_off,
                           uint64_t sig_add, uint64_t *data_p)
{
    const arb_tp_rkey_t *seg = &tp->seg_rkeys[sig_rkey->peer];
    uint64_t word;

    if (!tp->cq_signal || sig_rkey->key != seg->key || sig_rkey->addr0 < seg->addr0 ||
        sig_add > ARB_OFI_SIG_ADD_MAX)
        return false;
    word = (sig_rkey->addr0 - seg->addr0 + sig_off) / sizeof(uint64_t);
    if (word >= UINT64_C(1) << ARB_OFI_SIG_OFF_BITS) return false;
    *data_p = sig_add << ARB_OFI_SIG_OFF_BITS | word;
    return true;
}

/* A signal without data. With remote-CQ-data signals, an atomic could overtake the earlier
 * writes whose completions carry the earlier signals (write-after-write order says nothing
 * about atomics): the peer would count a signal whose data is not there. So it waits for
 * what is in flight to the peer, as a fence does. */
static arbor_status_t signal_alone(arb_tp_t *tp, arb_tp_rkey_t *sig_rkey, uint64_t sig_off,
                                   uint64_t sig_add, arb_tp_comp_t *comp)
{
    arb_ofi_req_t *req;

    if (!tp->cq_signal)
        return arb_ofi_amo(tp, ARB_TP_AMO_ADD, sig_rkey, sig_off, sig_add, 0, NULL, comp);
    if ((req = amo_req(tp, ARB_TP_AMO_ADD, sig_rkey, sig_off, sig_add, 0, NULL, comp)) == NULL)
        return ARBOR_ERR_NO_MEMORY;
    req->fenced = true;
    return arb_ofi_submit(tp, req, true); /* accepted like any atomic (arb_ofi_amo) */
}

arbor_status_t arb_ofi_put_signal(arb_tp_t *tp, const void *src, size_t len, arb_tp_rkey_t *rkey,
                                  uint64_t off, arb_tp_rkey_t *sig_rkey, uint64_t sig_off,
                                  uint64_t sig_add, arb_tp_comp_t *comp)
{
    arb_ofi_req_t *sig;
    arbor_status_t status;
    uint64_t data;

    if (!key_ok(tp, sig_rkey, "put_signal") || !key_ok(tp, rkey, "put_signal"))
        return ARBOR_ERR_INVALID_ARG;
    if (src == NULL && len > 0) {
        arb_error("put_signal of %zu bytes to peer %d: no source buffer", len, rkey->peer);
        return ARBOR_ERR_INVALID_ARG;
    }
    if (sig_rkey->peer != rkey->peer || (sig_rkey->addr0 + sig_off) % sizeof(uint64_t) != 0) {
        arb_error("put_signal: data to peer %d, signal to peer %d at offset %llu: the signal must "
                  "go to the same peer and be 8-byte aligned",
                  rkey->peer, sig_rkey->peer, (unsigned long long)sig_off);
        return ARBOR_ERR_INVALID_ARG;
    }
    if (len == 0) return signal_alone(tp, sig_rkey, sig_off, sig_add, comp);
    if (cq_signal_data(tp, sig_rkey, sig_off, sig_add, &data)) {
        arb_ofi_req_t *req = rma_req(tp, ARB_OFI_PUT, (void *)(uintptr_t)src, len, rkey, off, comp);
        if (req == NULL) return ARBOR_ERR_NO_MEMORY;
        req->cq_data = true;
        req->data = data;
        return arb_ofi_submit(tp, req, false);
    }
    sig = amo_req(tp, ARB_TP_AMO_ADD, sig_rkey, sig_off, sig_add, 0, NULL, NULL);
    if (sig == NULL) return ARBOR_ERR_NO_MEMORY;
    status = arb_ofi_put(tp, src, len, rkey, off, comp);
    if (status != ARBOR_OK) {
        arb_ofi_req_put(tp, sig);
        return status;
    }
    /* The put is accepted; the signal must be too (it waits in the queue if need be). */
    sig->fenced = true;
    return arb_ofi_submit(tp, sig, true);
}

arbor_status_t arb_ofi_fence(arb_tp_t *tp, int peer)
{
    arb_ofi_peer_t *p;

    if (tp->peers == NULL || peer < 0 || peer >= tp->size) {
        arb_error("fence: peer %d out of range or not connected", peer);
        return ARBOR_ERR_INVALID_ARG;
    }
    p = &tp->peers[peer];
    if (p->inflight > 0 || p->head != NULL) p->fence_next = true;
    return ARBOR_OK;
}
