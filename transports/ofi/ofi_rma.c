/*
 * libfabric backend: the data-movement entry points of the contract. Each builds a request and
 * hands it to ofi_post.c. put_signal uses the cheapest ordering the provider has: with FI_FENCE
 * (sockets) the signal atomic goes out at once, fenced; otherwise it waits in the peer's queue
 * until the put's chunks are delivery-complete (FI_DELIVERY_COMPLETE), so the target never sees
 * the signal before the data. fence() marks the peer's next request the same way.
 */
#include "transports/ofi/ofi.h"

#include "core/log.h"

static bool key_ok(const arb_tp_t *tp, const arb_tp_rkey_t *rkey, const char *what)
{
    if (tp->peers != NULL && rkey != NULL && rkey->peer >= 0 && rkey->peer < tp->size)
        return true;
    arb_error("%s: bad remote key (not connected, or peer out of range)", what);
    return false;
}

static arbor_status_t rma(arb_tp_t *tp, arb_ofi_kind_t kind, void *buf, size_t len,
                          arb_tp_rkey_t *rkey, uint64_t off, arb_tp_comp_t *comp)
{
    arb_ofi_req_t *req;

    if (len == 0) return ARBOR_OK;
    if (!key_ok(tp, rkey, kind == ARB_OFI_PUT ? "put" : "get") || buf == NULL)
        return ARBOR_ERR_INVALID_ARG;
    if ((req = arb_ofi_req_get(tp)) == NULL) return ARBOR_ERR_NO_MEMORY;
    req->kind = kind;
    req->peer = rkey->peer;
    req->comp = comp;
    req->buf = buf;
    req->len = len;
    req->raddr = rkey->addr0 + off;
    req->key = rkey->key;
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
    return arb_ofi_submit(tp, req, false);
}

arbor_status_t arb_ofi_put_signal(arb_tp_t *tp, const void *src, size_t len, arb_tp_rkey_t *rkey,
                                  uint64_t off, arb_tp_rkey_t *sig_rkey, uint64_t sig_off,
                                  uint64_t sig_add, arb_tp_comp_t *comp)
{
    arb_ofi_req_t *sig;
    arbor_status_t status;

    if (!key_ok(tp, sig_rkey, "put_signal") || !key_ok(tp, rkey, "put_signal"))
        return ARBOR_ERR_INVALID_ARG;
    if (sig_rkey->peer != rkey->peer || (sig_rkey->addr0 + sig_off) % sizeof(uint64_t) != 0) {
        arb_error("put_signal: data to peer %d, signal to peer %d at offset %llu: the signal must "
                  "go to the same peer and be 8-byte aligned",
                  rkey->peer, sig_rkey->peer, (unsigned long long)sig_off);
        return ARBOR_ERR_INVALID_ARG;
    }
    if (len == 0) return arb_ofi_amo(tp, ARB_TP_AMO_ADD, sig_rkey, sig_off, sig_add, 0, NULL, comp);
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
