/*
 * UCX backend data movement: put, get, 64-bit atomics and put-with-signal through the ucp *_nbx
 * calls, fence and flush, progress and the wakeup descriptor. A completion callback keeps
 * arb_tp_comp_t: +1 when UCX hands back a request, -1 when it completes; an op that completes
 * inside the call never touches comp.
 */
#include "transports/ucx/ucx.h"

#include "util/log.h"

#include <sched.h>
#include <time.h>

#define CLOCK_CHECK_EVERY 256 /* polls between two deadline checks */

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

arbor_status_t arb_ucx_wait(arb_tp_t *tp, ucs_status_ptr_t req, const char *what)
{
    double deadline = tp->timeout_s > 0 ? now_s() + tp->timeout_s : 0;
    unsigned polls = 0;
    ucs_status_t status;

    if (req == NULL) return ARBOR_OK;
    if (UCS_PTR_IS_ERR(req)) {
        arb_error("%s failed: %s", what, ucs_status_string(UCS_PTR_STATUS(req)));
        return arb_ucx_status(UCS_PTR_STATUS(req));
    }
    while ((status = ucp_request_check_status(req)) == UCS_INPROGRESS) {
        if (ucp_worker_progress(tp->worker) == 0 && tp->yield) sched_yield();
        if (deadline > 0 && ++polls % CLOCK_CHECK_EVERY == 0 && now_s() > deadline) {
            arb_error("%s: not complete after %.1f s", what, tp->timeout_s);
            ucp_request_free(req);
            return ARBOR_ERR_TIMEOUT;
        }
    }
    ucp_request_free(req);
    if (status != UCS_OK) {
        arb_error("%s failed: %s", what, ucs_status_string(status));
        return arb_ucx_status(status);
    }
    return ARBOR_OK;
}

static void rma_done(void *req, ucs_status_t status, void *user_data)
{
    arb_tp_comp_t *comp = user_data;

    if (status != UCS_OK) {
        arb_debug("rma completed with %s", ucs_status_string(status));
        comp->status = arb_ucx_status(status);
    }
    arb_tp_comp_end(comp);
    ucp_request_free(req);
}

void arb_ucx_rma_param(ucp_request_param_t *param, arb_tp_comp_t *comp)
{
    param->op_attr_mask = 0;
    if (comp == NULL) return;
    param->op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    param->cb.send = rma_done;
    param->user_data = comp;
}

/* ARB_ERR_AGAIN while a fence's flush to the peer is in flight; notes emulated traffic. */
static bool peer_busy(arb_tp_t *tp, const arb_tp_rkey_t *rkey)
{
    arb_ucx_peer_t *peer = &tp->peers[rkey->peer];

    if (peer->fencing) return true;
    peer->dirty |= rkey->emulated;
    return false;
}

arbor_status_t arb_ucx_put(arb_tp_t *tp, const void *src, size_t len, arb_tp_rkey_t *rkey,
                           uint64_t off, arb_tp_comp_t *comp)
{
    ucp_request_param_t param;

    if (len == 0) return ARBOR_OK;
    if (peer_busy(tp, rkey)) return ARB_ERR_AGAIN;
    arb_ucx_rma_param(&param, comp);
    return arb_ucx_posted(ucp_put_nbx(rkey->ep, src, len, rkey->base + off, rkey->rkey, &param),
                          comp, "put", rkey->peer);
}

arbor_status_t arb_ucx_get(arb_tp_t *tp, void *dst, size_t len, arb_tp_rkey_t *rkey, uint64_t off,
                           arb_tp_comp_t *comp)
{
    ucp_request_param_t param;

    if (len == 0) return ARBOR_OK;
    if (peer_busy(tp, rkey)) return ARB_ERR_AGAIN;
    arb_ucx_rma_param(&param, comp);
    return arb_ucx_posted(ucp_get_nbx(rkey->ep, dst, len, rkey->base + off, rkey->rkey, &param),
                          comp, "get", rkey->peer);
}

static void amo_done(void *req, ucs_status_t status, void *user_data)
{
    if (status != UCS_OK) arb_debug("atomic completed with %s", ucs_status_string(status));
    arb_ucx_amo_ctx_put(user_data, status);
    ucp_request_free(req);
}

/* Posts ctx's atomic: operand X in ctx, reply buffer per ucp_atomic_op_nbx's table (NULL: no
 * fetch). ctx goes back to the free list when the atomic is done or refused. The request of an
 * atomic in flight belongs to amo_done, comp or not: UCX reads the operand in ctx until then,
 * and a request freed at once (as arb_ucx_posted does for fire-and-forget RMA) never calls its
 * callback, so ctx was lost (a leak per fire-and-forget atomic that did not complete inline). */
static arbor_status_t amo_post(arb_ucx_amo_ctx_t *ctx, ucp_atomic_op_t op, arb_tp_rkey_t *rkey,
                               uint64_t off, uint64_t *reply, arb_tp_comp_t *comp)
{
    ucp_request_param_t param;
    ucs_status_ptr_t req;

    param.op_attr_mask =
        UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_DATATYPE;
    param.cb.send = amo_done;
    param.user_data = ctx;
    param.datatype = ucp_dt_make_contig(sizeof(uint64_t));
    if (reply != NULL) {
        param.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        param.reply_buffer = reply;
    }
    ctx->comp = NULL;
    req = ucp_atomic_op_nbx(rkey->ep, op, &ctx->operand, 1, rkey->base + off, rkey->rkey, &param);
    if (req == NULL || UCS_PTR_IS_ERR(req)) {
        arb_ucx_amo_ctx_put(ctx, UCS_OK); /* done or refused: comp untouched */
        return arb_ucx_posted(req, comp, "atomic", rkey->peer);
    }
    ctx->comp = comp; /* amo_done accounts for it and frees req */
    if (comp != NULL) arb_tp_comp_begin(comp);
    return ARBOR_OK;
}

/* An atomic to a peer of this node on the core's memory (the segment UCX did not allocate):
 * UCX emulates it with messages the target applies in its progress, and a non-fetching one
 * completes when sent. The core reaches that peer's segment with loads and stores as well (its
 * own mapping) whenever the job spans nodes and atomics go through the transport, so a load
 * right after a completed atomic must see it: such atomics fetch (into the context), which
 * completes them at the target, as UCX's own CPU atomics on memory it allocated did. */
static bool amo_fetch_always(const arb_tp_t *tp, const arb_tp_rkey_t *rkey)
{
    return rkey->emulated && tp->seg_given && (tp->off_node == NULL || !tp->off_node[rkey->peer]);
}

static arbor_status_t amo_start(arb_tp_t *tp, ucp_atomic_op_t op, arb_tp_rkey_t *rkey, uint64_t off,
                                uint64_t operand, uint64_t *reply, arb_tp_comp_t *comp)
{
    arb_ucx_amo_ctx_t *ctx;

    if (peer_busy(tp, rkey)) return ARB_ERR_AGAIN;
    if ((ctx = arb_ucx_amo_ctx_get(tp)) == NULL) return ARBOR_ERR_NO_MEMORY;
    ctx->operand = operand;
    if (reply == NULL && amo_fetch_always(tp, rkey)) reply = &ctx->am_hdr[0];
    return amo_post(ctx, op, rkey, off, reply, comp);
}

arbor_status_t arb_ucx_amo(arb_tp_t *tp, arb_tp_amo_t op, arb_tp_rkey_t *rkey, uint64_t off,
                           uint64_t operand, uint64_t compare, uint64_t *result,
                           arb_tp_comp_t *comp)
{
    if ((rkey->base + off) % sizeof(uint64_t) != 0 || (op != ARB_TP_AMO_ADD && result == NULL)) {
        arb_error("atomic %d to peer %d: unaligned offset %llu or no result buffer", (int)op,
                  rkey->peer, (unsigned long long)off);
        return ARBOR_ERR_INVALID_ARG;
    }
    switch (op) {
    case ARB_TP_AMO_ADD:
        return amo_start(tp, UCP_ATOMIC_OP_ADD, rkey, off, operand, NULL, comp);
    case ARB_TP_AMO_FADD:
        return amo_start(tp, UCP_ATOMIC_OP_ADD, rkey, off, operand, result, comp);
    case ARB_TP_AMO_SWAP:
        return amo_start(tp, UCP_ATOMIC_OP_SWAP, rkey, off, operand, result, comp);
    case ARB_TP_AMO_CSWAP:
        if (tp->peers[rkey->peer].fencing) return ARB_ERR_AGAIN; /* leave *result alone */
        *result = operand; /* ucp reads the new value from the reply buffer */
        return amo_start(tp, UCP_ATOMIC_OP_CSWAP, rkey, off, compare, result, comp);
    }
    arb_error("atomic: unknown op %d", (int)op);
    return ARBOR_ERR_INVALID_ARG;
}

/* The endpoint flush after an emulated put ended: post the signal, then drop the pending count
 * that covered the flush (the signal holds its own). */
static void signal_post(arb_ucx_amo_ctx_t *ctx, ucs_status_t status)
{
    arb_tp_comp_t *comp = ctx->comp;
    arbor_status_t ret;

    ctx->tp->chains_waiting--;
    ctx->tp->chained++;
    ctx->tp->peers[ctx->sig_rkey->peer].chains--;
    ctx->tp->peers[ctx->sig_rkey->peer].chained++;
    if (status != UCS_OK) {
        arb_error("put_signal: flush to peer %d failed: %s", ctx->sig_rkey->peer,
                  ucs_status_string(status));
        arb_ucx_amo_ctx_put(ctx, status);
        return;
    }
    ret = amo_post(ctx, UCP_ATOMIC_OP_ADD, ctx->sig_rkey, ctx->sig_off, NULL, comp);
    if (comp != NULL) {
        if (ret != ARBOR_OK) comp->status = ret;
        arb_tp_comp_end(comp);
    }
}

static void signal_flushed(void *req, ucs_status_t status, void *user_data)
{
    signal_post(user_data, status);
    ucp_request_free(req);
}

/* put_signal with user memory on either side: put, flush the endpoint, then the signal. */
static arbor_status_t signal_after_flush(arb_tp_t *tp, const void *src, size_t len,
                                         arb_tp_rkey_t *rkey, uint64_t off, arb_tp_rkey_t *sig_rkey,
                                         uint64_t sig_off, uint64_t sig_add, arb_tp_comp_t *comp)
{
    ucp_request_param_t param;
    arb_ucx_amo_ctx_t *ctx;
    arbor_status_t status;
    ucs_status_ptr_t req;

    if (peer_busy(tp, sig_rkey)) return ARB_ERR_AGAIN;
    if ((ctx = arb_ucx_amo_ctx_get(tp)) == NULL) return ARBOR_ERR_NO_MEMORY;
    status = arb_ucx_put(tp, src, len, rkey, off, comp);
    if (status != ARBOR_OK) {
        arb_ucx_amo_ctx_put(ctx, UCS_OK);
        return status;
    }
    ctx->operand = sig_add;
    ctx->sig_rkey = sig_rkey;
    ctx->sig_off = sig_off;
    ctx->comp = comp;
    if (comp != NULL) arb_tp_comp_begin(comp);
    tp->chains_waiting++;
    tp->peers[sig_rkey->peer].chains++;
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    param.cb.send = signal_flushed;
    param.user_data = ctx;
    req = ucp_ep_flush_nbx(rkey->ep, &param);
    if (!UCS_PTR_IS_PTR(req)) signal_post(ctx, UCS_PTR_STATUS(req));
    return UCS_PTR_IS_ERR(req) ? arb_ucx_status(UCS_PTR_STATUS(req)) : ARBOR_OK;
}

arbor_status_t arb_ucx_put_signal(arb_tp_t *tp, const void *src, size_t len, arb_tp_rkey_t *rkey,
                                  uint64_t off, arb_tp_rkey_t *sig_rkey, uint64_t sig_off,
                                  uint64_t sig_add, arb_tp_comp_t *comp)
{
    arbor_status_t status;
    ucs_status_t ucs;

    if ((sig_rkey->base + sig_off) % sizeof(uint64_t) != 0) {
        arb_error("put_signal to peer %d: unaligned signal offset %llu", sig_rkey->peer,
                  (unsigned long long)sig_off);
        return ARBOR_ERR_INVALID_ARG;
    }
    /* One message to a peer without atomic lanes: every put_signal to it, so they stay in
     * order among themselves (ucx_am.c). */
    if (tp->peers[rkey->peer].am_signal)
        return arb_ucx_am_put_signal(tp, src, len, rkey, off, sig_rkey, sig_off, sig_add, comp);
    if (len > 0 && (rkey->emulated || sig_rkey->emulated))
        return signal_after_flush(tp, src, len, rkey, off, sig_rkey, sig_off, sig_add, comp);
    if (len > 0) {
        if (peer_busy(tp, sig_rkey)) return ARB_ERR_AGAIN;
        status = arb_ucx_put(tp, src, len, rkey, off, comp);
        if (status != ARBOR_OK) return status;
        ucs = ucp_worker_fence(tp->worker); /* put and atomic both direct: lane order holds */
        if (ucs != UCS_OK) {
            arb_error("put_signal: ucp_worker_fence failed: %s", ucs_status_string(ucs));
            return arb_ucx_status(ucs);
        }
    }
    return arb_ucx_amo(tp, ARB_TP_AMO_ADD, sig_rkey, sig_off, sig_add, 0, NULL, comp);
}

static void fence_flushed(void *req, ucs_status_t status, void *user_data)
{
    arb_ucx_peer_t *peer = user_data;

    if (status != UCS_OK) arb_error("fence: endpoint flush failed: %s", ucs_status_string(status));
    peer->fencing--;
    ucp_request_free(req);
}

arbor_status_t arb_ucx_fence(arb_tp_t *tp, int peer)
{
    ucs_status_t status = ucp_worker_fence(tp->worker);
    ucp_request_param_t param;
    ucs_status_ptr_t req;
    arb_ucx_peer_t *p;
    arbor_status_t ret;

    if (status != UCS_OK) {
        arb_error("fence (peer %d): ucp_worker_fence failed: %s", peer, ucs_status_string(status));
        return arb_ucx_status(status);
    }
    if (tp->peers == NULL || peer < 0 || peer >= tp->size) return ARBOR_OK;
    p = &tp->peers[peer];
    if (p->fencing) return ARBOR_OK; /* nothing was accepted since that fence began */
    ret = arb_ucx_am_ping(tp, peer); /* put_signal messages: their handlers must have run */
    if (ret != ARBOR_OK || !p->dirty) return ret;
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    param.cb.send = fence_flushed;
    param.user_data = p;
    req = ucp_ep_flush_nbx(tp->eps[peer], &param);
    if (UCS_PTR_IS_ERR(req)) {
        arb_error("fence (peer %d): ucp_ep_flush_nbx failed: %s", peer,
                  ucs_status_string(UCS_PTR_STATUS(req)));
        return arb_ucx_status(UCS_PTR_STATUS(req));
    }
    p->dirty = false;
    if (req != NULL) p->fencing++;
    return ARBOR_OK;
}

/* Waits for the pongs of every ping sent (ucx_am.c), bounded by tp->timeout_s. */
static arbor_status_t pongs_wait(arb_tp_t *tp)
{
    double deadline = tp->timeout_s > 0 ? now_s() + tp->timeout_s : 0;
    unsigned polls = 0;

    while (tp->pings_waiting > 0) {
        if (ucp_worker_progress(tp->worker) == 0 && tp->yield) sched_yield();
        if (deadline > 0 && ++polls % CLOCK_CHECK_EVERY == 0 && now_s() > deadline) {
            arb_error("flush: %ld pings unanswered after %.1f s", tp->pings_waiting, tp->timeout_s);
            return ARBOR_ERR_TIMEOUT;
        }
    }
    return ARBOR_OK;
}

/* Pings first: a pong says the peer has handled every put_signal message before it, which
 * an endpoint flush does not. A chain may post its signal while the worker flush runs, and that
 * flush need not cover it: flush again until no chain is waiting and none posted during the
 * last round. */
arbor_status_t arb_ucx_flush(arb_tp_t *tp)
{
    arbor_status_t status = ARBOR_OK;

    for (int peer = 0; tp->peers != NULL && peer < tp->size && status == ARBOR_OK; peer++)
        status = arb_ucx_am_ping(tp, peer);
    if (status == ARBOR_OK) status = pongs_wait(tp);
    return status == ARBOR_OK ? arb_ucx_flush_sends(tp) : status;
}

arbor_status_t arb_ucx_flush_sends(arb_tp_t *tp)
{
    ucp_request_param_t param = {0};
    arbor_status_t status;
    unsigned long chained;

    do {
        chained = tp->chained;
        status = arb_ucx_wait(tp, ucp_worker_flush_nbx(tp->worker, &param), "flush");
    } while (status == ARBOR_OK && (tp->chains_waiting > 0 || tp->chained != chained));
    return status;
}

int arb_ucx_progress(arb_tp_t *tp)
{
    return (int)ucp_worker_progress(tp->worker);
}

arbor_status_t arb_ucx_wait_fd(arb_tp_t *tp, int *fd_p)
{
    if (tp->efd < 0) return ARBOR_ERR_UNSUPPORTED;
    *fd_p = tp->efd;
    return ARBOR_OK;
}

arbor_status_t arb_ucx_arm(arb_tp_t *tp)
{
    ucs_status_t status;

    if (tp->efd < 0) return ARBOR_ERR_UNSUPPORTED;
    status = ucp_worker_arm(tp->worker);
    if (status == UCS_ERR_BUSY) return ARB_ERR_AGAIN;
    if (status != UCS_OK) {
        arb_error("ucp_worker_arm failed: %s", ucs_status_string(status));
        return arb_ucx_status(status);
    }
    return ARBOR_OK;
}
