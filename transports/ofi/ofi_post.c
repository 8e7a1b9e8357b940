/*
 * libfabric backend: how a request reaches the provider. A request is cut into chunks of at most
 * max_msg_size (and of one staging slot when FI_MR_LOCAL makes us bounce); each chunk gets a
 * context from the registered pool. Writes and atomics carry FI_DELIVERY_COMPLETE, so their
 * completion means "visible at the target"; writes that fit the inject size also carry
 * FI_INJECT (the source is free on return and the completion still comes). A put_signal's put
 * carries the signal as remote CQ data on its last chunk. A fenced request starts only once its
 * peer has nothing in flight (FI_FENCE is not used: see modes_read in ofi_fabric.c).
 * -FI_EAGAIN (connections forming, queues full) before a request's first chunk is handed back as
 * ARB_ERR_AGAIN; after it, the rest waits in the peer's FIFO queue, drained by progress.
 */
#include "transports/ofi/ofi.h"

#include "util/log.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

arb_ofi_req_t *arb_ofi_req_get(arb_tp_t *tp)
{
    arb_ofi_req_t *req = tp->free_req, *all;

    if (req != NULL) {
        tp->free_req = req->next;
    } else {
        if ((req = malloc(sizeof(*req))) == NULL) return NULL;
        req->all = tp->all_reqs;
        tp->all_reqs = req;
    }
    all = req->all;
    memset(req, 0, sizeof(*req));
    req->all = all;
    req->status = ARBOR_OK;
    return req;
}

void arb_ofi_req_put(arb_tp_t *tp, arb_ofi_req_t *req)
{
    req->next = tp->free_req;
    tp->free_req = req;
}

void arb_ofi_req_free_all(arb_tp_t *tp)
{
    arb_ofi_req_t *req;

    while ((req = tp->all_reqs) != NULL) {
        tp->all_reqs = req->all;
        free(req);
    }
    tp->free_req = NULL;
}

/* An accepted request joins its peer's list (a flush of some peers counts on it). */
static void live_add(arb_tp_t *tp, arb_ofi_req_t *req)
{
    arb_ofi_peer_t *peer = &tp->peers[req->peer];

    req->seq = peer->next_seq++;
    req->live_next = NULL;
    req->live_prev = peer->live_tail;
    if (peer->live_tail != NULL)
        peer->live_tail->live_next = req;
    else
        peer->live_head = req;
    peer->live_tail = req;
}

static void live_remove(arb_tp_t *tp, arb_ofi_req_t *req)
{
    arb_ofi_peer_t *peer = &tp->peers[req->peer];

    if (req->live_prev != NULL)
        req->live_prev->live_next = req->live_next;
    else
        peer->live_head = req->live_next;
    if (req->live_next != NULL)
        req->live_next->live_prev = req->live_prev;
    else
        peer->live_tail = req->live_prev;
}

static void req_finish(arb_tp_t *tp, arb_ofi_req_t *req)
{
    live_remove(tp, req);
    if (req->counted) {
        if (req->status != ARBOR_OK) req->comp->status = req->status;
        arb_tp_comp_end(req->comp);
    } else if (req->status != ARBOR_OK) {
        /* reported by the next flush that covers the peer */
        if (tp->peers[req->peer].status == ARBOR_OK) tp->peers[req->peer].status = req->status;
        if (tp->async_status == ARBOR_OK) tp->async_status = req->status;
    }
    arb_ofi_req_put(tp, req);
}

static int slot_get(arb_tp_t *tp)
{
    int slot = ffs((int)tp->stage_free) - 1;

    if (slot >= 0) tp->stage_free &= ~(1u << slot);
    return slot;
}

static void ctx_release(arb_tp_t *tp, arb_ofi_ctx_t *ctx)
{
    if (ctx->slot >= 0) tp->stage_free |= 1u << ctx->slot;
    if (ctx->rc) arb_ofi_rc_release(tp, ctx->rc);
    ctx->rc = NULL;
    ctx->next = tp->free_ctx;
    tp->free_ctx = ctx;
}

/* A put or get chunk: from / into the user's buffer, or through a staging slot. */
static ssize_t post_rma(arb_tp_t *tp, arb_ofi_req_t *req, arb_ofi_ctx_t *ctx)
{
    uint64_t flags = FI_COMPLETION;
    size_t n = req->len - req->done;
    char *buf = req->buf + req->done;
    struct fi_msg_rma msg;
    struct fi_rma_iov riov;
    struct iovec iov;
    void *desc;
    bool copied = false;

    if (n > tp->max_msg) n = tp->max_msg;
    if (!arb_ofi_local_desc(tp, buf, n, &desc) &&
        !arb_ofi_rc_desc(tp, req->buf, req->len, buf, n, &desc, &ctx->rc)) {
        if (n > ARB_OFI_STAGE_SIZE) n = ARB_OFI_STAGE_SIZE;
        if ((ctx->slot = slot_get(tp)) < 0) return -FI_EAGAIN;
        desc = tp->stage_mr.desc;
        if (req->kind == ARB_OFI_PUT) {
            memcpy(tp->stage + (size_t)ctx->slot * ARB_OFI_STAGE_SIZE, buf, n);
            copied = true;
        } else {
            ctx->copy_to = buf;
        }
        buf = tp->stage + (size_t)ctx->slot * ARB_OFI_STAGE_SIZE;
    }
    ctx->len = n;
    iov.iov_base = buf;
    iov.iov_len = n;
    riov.addr = req->raddr + req->done;
    riov.len = n;
    riov.key = req->key;
    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = &iov;
    msg.desc = &desc;
    msg.iov_count = 1;
    msg.addr = tp->peers[req->peer].addr;
    msg.rma_iov = &riov;
    msg.rma_iov_count = 1;
    msg.context = ctx;
    if (req->kind == ARB_OFI_GET) return fi_readmsg(tp->ep, &msg, flags);
    flags |= FI_DELIVERY_COMPLETE;
    if (req->cq_data && req->done + n == req->len) { /* the last chunk: after all the data */
        flags |= FI_REMOTE_CQ_DATA;
        msg.data = req->data;
    }
    if (n <= tp->inject_size) {
        flags |= FI_INJECT;
        copied = true;
    }
    if (!copied) req->copied = false;
    return fi_writemsg(tp->ep, &msg, flags);
}

static ssize_t post_amo(arb_tp_t *tp, arb_ofi_req_t *req, arb_ofi_ctx_t *ctx)
{
    const uint64_t flags = FI_COMPLETION;
    struct fi_msg_atomic msg;
    struct fi_rma_ioc rioc = {req->raddr, 1, req->key};
    struct fi_ioc ioc = {&ctx->operand, 1}, res = {&ctx->result, 1}, cmp = {&ctx->compare, 1};
    void *desc = tp->ctx_mr.desc;

    ctx->operand = req->operand;
    ctx->compare = req->compare;
    ctx->len = 1;
    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = &ioc;
    msg.desc = &desc;
    msg.iov_count = 1;
    msg.addr = tp->peers[req->peer].addr;
    msg.rma_iov = &rioc;
    msg.rma_iov_count = 1;
    msg.datatype = FI_UINT64;
    msg.context = ctx;
    switch (req->amo) {
    case ARB_TP_AMO_ADD: /* fetching: the reply proves it was applied (ofi.h) */
    case ARB_TP_AMO_FADD:
        msg.op = FI_SUM;
        return fi_fetch_atomicmsg(tp->ep, &msg, &res, &desc, 1, flags);
    case ARB_TP_AMO_SWAP:
        msg.op = FI_ATOMIC_WRITE;
        return fi_fetch_atomicmsg(tp->ep, &msg, &res, &desc, 1, flags);
    case ARB_TP_AMO_CSWAP:
        msg.op = FI_CSWAP;
        return fi_compare_atomicmsg(tp->ep, &msg, &cmp, &desc, 1, &res, &desc, 1, flags);
    }
    return -FI_EINVAL;
}

/* One chunk: ARBOR_OK, ARB_ERR_AGAIN (nothing posted) or an error. */
static arbor_status_t post_chunk(arb_tp_t *tp, arb_ofi_req_t *req)
{
    arb_ofi_ctx_t *ctx = tp->free_ctx;
    ssize_t rc;

    if (ctx == NULL) return ARB_ERR_AGAIN;
    tp->free_ctx = ctx->next;
    ctx->req = req;
    ctx->slot = -1;
    ctx->rc = NULL;
    ctx->copy_to = NULL;
    if (req->kind == ARB_OFI_AMO)
        rc = post_amo(tp, req, ctx);
    else
        rc = post_rma(tp, req, ctx);
    if (rc != 0) {
        ctx_release(tp, ctx);
        if (rc == -FI_EAGAIN) return ARB_ERR_AGAIN;
        arb_error("%s of %zu bytes to peer %d: %s",
                  req->kind == ARB_OFI_PUT   ? "write"
                  : req->kind == ARB_OFI_GET ? "read"
                                             : "atomic",
                  req->len, req->peer, fi_strerror((int)-rc));
        return ARBOR_ERR_TRANSPORT;
    }
    req->done += ctx->len;
    req->chunks++;
    req->started = true;
    tp->peers[req->peer].inflight++;
    tp->inflight++;
    return ARBOR_OK;
}

/* Must a fenced request wait for its peer's operations in flight? */
static bool fence_blocks(const arb_tp_t *tp, const arb_ofi_req_t *req)
{
    return req->fenced && !req->started && tp->peers[req->peer].inflight > 0;
}

/* Posts what it can of req: ARBOR_OK (all of it), ARB_ERR_AGAIN or an error. */
static arbor_status_t advance(arb_tp_t *tp, arb_ofi_req_t *req)
{
    while (req->done < req->len) {
        arbor_status_t status;

        if (fence_blocks(tp, req)) return ARB_ERR_AGAIN;
        status = post_chunk(tp, req);
        if (status != ARBOR_OK) return status;
    }
    return ARBOR_OK;
}

static void enqueue(arb_tp_t *tp, arb_ofi_req_t *req)
{
    arb_ofi_peer_t *peer = &tp->peers[req->peer];

    req->next = NULL;
    if (peer->tail != NULL)
        peer->tail->next = req;
    else
        peer->head = req;
    peer->tail = req;
    tp->queued++;
    if (!peer->active) {
        peer->active = true;
        peer->next_active = tp->active_head;
        tp->active_head = req->peer;
    }
}

/* req failed after part of it went out: it ends when those chunks complete. */
static void truncate_failed(arb_tp_t *tp, arb_ofi_req_t *req, arbor_status_t status)
{
    req->status = status;
    req->len = req->done;
    if (req->chunks == 0) req_finish(tp, req);
}

arbor_status_t arb_ofi_submit(arb_tp_t *tp, arb_ofi_req_t *req, bool must_accept)
{
    arb_ofi_peer_t *peer = &tp->peers[req->peer];
    arbor_status_t status = ARB_ERR_AGAIN;

    req->fenced |= peer->fence_next;
    req->copied = req->kind == ARB_OFI_PUT;
    if (peer->head == NULL && !fence_blocks(tp, req)) {
        status = advance(tp, req);
        if (status == ARB_ERR_AGAIN && !req->started && !must_accept) {
            arb_ofi_req_put(tp, req);
            return ARB_ERR_AGAIN;
        }
        if (status != ARBOR_OK && status != ARB_ERR_AGAIN && !req->started) {
            arb_ofi_req_put(tp, req);
            return status;
        }
    }
    peer->fence_next = false; /* accepted: req carries the fence */
    live_add(tp, req);
    /* Fully posted puts whose source was copied (inject, staging) are done for the caller. */
    req->counted = req->comp != NULL && !(status == ARBOR_OK && req->copied);
    if (req->counted) arb_tp_comp_begin(req->comp);
    if (status == ARB_ERR_AGAIN)
        enqueue(tp, req);
    else if (status != ARBOR_OK)
        truncate_failed(tp, req, status);
    return ARBOR_OK;
}

void arb_ofi_ctx_done(arb_tp_t *tp, arb_ofi_ctx_t *ctx, arbor_status_t status)
{
    arb_ofi_req_t *req = ctx->req;

    if (status == ARBOR_OK && ctx->copy_to != NULL)
        memcpy(ctx->copy_to, tp->stage + (size_t)ctx->slot * ARB_OFI_STAGE_SIZE, ctx->len);
    if (status == ARBOR_OK && req->kind == ARB_OFI_AMO && req->result != NULL)
        *req->result = ctx->result;
    if (status != ARBOR_OK && req->status == ARBOR_OK) req->status = status;
    ctx_release(tp, ctx);
    tp->peers[req->peer].inflight--;
    tp->inflight--;
    if (--req->chunks == 0 && req->done == req->len) req_finish(tp, req);
}

/* A queued put whose chunks all went out copied (inject, staging) is done for the caller, as
 * arb_ofi_submit says of one posted at once; a later failure goes to the next flush. Waiting for
 * its completion instead would wait for the target's progress, and on shm for every operation
 * posted before it, to any peer: a peer that has left the collective and stopped calling arbor
 * (blocked in MPI) may never read the credits we returned to it, and this put would then never
 * complete (Global Arrays in ARMCI_Group_create). */
static void release_copied(arb_ofi_req_t *req)
{
    if (!req->counted || req->kind != ARB_OFI_PUT || !req->copied) return;
    req->counted = false;
    arb_tp_comp_end(req->comp);
}

/* Posts queued requests in order, peer by peer, until the provider pushes back. */
void arb_ofi_drain(arb_tp_t *tp)
{
    int *link = &tp->active_head;

    while (*link >= 0) {
        arb_ofi_peer_t *peer = &tp->peers[*link];
        arb_ofi_req_t *req;

        while ((req = peer->head) != NULL) {
            arbor_status_t status;
            if (fence_blocks(tp, req)) break;
            status = advance(tp, req);
            if (status == ARB_ERR_AGAIN) return; /* contexts or provider queues are full */
            if ((peer->head = req->next) == NULL) peer->tail = NULL;
            tp->queued--;
            if (status != ARBOR_OK)
                truncate_failed(tp, req, status);
            else
                release_copied(req);
        }
        if (peer->head == NULL) {
            peer->active = false;
            *link = peer->next_active;
        } else {
            link = &peer->next_active;
        }
    }
}
