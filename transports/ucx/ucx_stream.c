/*
 * UCX backend: streams (transport.h), the per-thread transport resources of a private
 * communication context. A stream is a ucp worker of its own on tp's context, used by one
 * thread (UCS_THREAD_MODE_SINGLE), with an endpoint per peer created on first use to the
 * peer's main worker address (kept from its blob at connect) and the peer's segment key
 * unpacked on that endpoint (UCX keys are per endpoint). RMA to a segment needs nothing of the
 * target's new workers: UCX reaches the memory, or, where it emulates RMA (tcp, memory it did
 * not allocate), the target's main worker serves the request as it serves tp's, and replies to
 * our worker, which this stream's progress drives.
 *
 * Nothing here touches tp's mutable state (its worker, endpoints, pools, counters): tp is read
 * for what connect fixed (sizes, the peers' addresses and keys, locality, the segment's kind),
 * so a stream runs beside tp's users without the engine lock. The context is created with
 * mt_workers_shared (ucx_context.c) for what workers share inside UCX.
 */
#include "transports/ucx/ucx.h"

#include "util/log.h"

#include <stdlib.h>

/* One peer as the stream sees it. */
typedef struct {
    ucp_ep_h ep;     /* NULL until the first operation to the peer */
    ucp_rkey_h rkey; /* the peer's segment key, unpacked on ep */
    bool failed;     /* the endpoint or its key could not be made: the shared path serves */
    bool lost;       /* the endpoint reported an error: its process is gone */
    bool dirty;      /* emulated operations since the last fence (a fence flushes then) */
    ucs_status_ptr_t fence_req; /* that fence's endpoint flush in flight: the peer waits */
    bool posted;                /* on the list of peers posted to since the last flush began */
    ucs_status_ptr_t flush_req; /* its endpoint flush in flight, or NULL */
} stream_peer_t;

/* Stable storage for an atomic's operand (UCX reads it until completion) and its comp. */
typedef struct stream_amo {
    struct stream_amo *next; /* free list */
    arb_tp_stream_t *s;
    arb_tp_comp_t *comp;
    uint64_t operand;
    uint64_t scratch; /* reply of an atomic that fetches only to complete at the target */
} stream_amo_t;

struct arb_tp_stream {
    arb_tp_t *tp; /* read-only after connect (above) */
    ucp_worker_h worker;
    stream_peer_t *peers; /* [tp->size] */
    stream_amo_t *free_amo;
    /* Peers posted to since the last flush began: a flush flushes their endpoints only (a
     * worker flush costs more per call, and a quiet after one put is the common pattern). */
    int *posted; /* [tp->size] */
    int nposted;
    int *flushing; /* [tp->size] peers whose endpoint flush is in flight */
    int nflushing;
    arbor_status_t flush_status; /* first failure of the flush in progress */
};

arbor_status_t arb_ucx_stream_open(arb_tp_t *tp, arb_tp_stream_t **s_p)
{
    ucp_worker_params_t params = {0};
    arb_tp_stream_t *s;
    ucs_status_t status;

    if (tp == NULL || s_p == NULL) return ARBOR_ERR_INVALID_ARG;
    if (tp->peers == NULL) {
        arb_error("stream_open before connect");
        return ARBOR_ERR_INVALID_ARG;
    }
    if ((s = calloc(1, sizeof(*s))) == NULL) return ARBOR_ERR_NO_MEMORY;
    s->peers = calloc((size_t)tp->size, sizeof(*s->peers));
    s->posted = calloc((size_t)tp->size, sizeof(int));
    s->flushing = calloc((size_t)tp->size, sizeof(int));
    if (s->peers == NULL || s->posted == NULL || s->flushing == NULL) {
        free(s->peers);
        free(s->posted);
        free(s->flushing);
        free(s);
        return ARBOR_ERR_NO_MEMORY;
    }
    s->tp = tp;
    params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    params.thread_mode = UCS_THREAD_MODE_SINGLE; /* one thread uses a stream */
    status = ucp_worker_create(tp->context, &params, &s->worker);
    if (status != UCS_OK) {
        arb_warn("stream: ucp_worker_create failed: %s", ucs_status_string(status));
        free(s->peers);
        free(s->posted);
        free(s->flushing);
        free(s);
        return status == UCS_ERR_NO_MEMORY ? ARBOR_ERR_NO_MEMORY : ARBOR_ERR_UNSUPPORTED;
    }
    *s_p = s;
    return ARBOR_OK;
}

/* Operations in flight went to peers that are gone or out of step: the worker's destruction
 * releases them (as tp's close does, ucx_context.c); keys go before their endpoints. */
void arb_ucx_stream_close(arb_tp_t *tp, arb_tp_stream_t *s)
{
    (void)tp;
    if (s == NULL) return;
    for (int peer = 0; peer < s->tp->size; peer++) {
        if (s->peers[peer].flush_req != NULL) ucp_request_free(s->peers[peer].flush_req);
        if (s->peers[peer].fence_req != NULL) ucp_request_free(s->peers[peer].fence_req);
        if (s->peers[peer].rkey != NULL) ucp_rkey_destroy(s->peers[peer].rkey);
    }
    ucp_worker_destroy(s->worker);
    while (s->free_amo != NULL) {
        stream_amo_t *a = s->free_amo;
        s->free_amo = a->next;
        free(a);
    }
    free(s->peers);
    free(s->posted);
    free(s->flushing);
    free(s);
}

/* The endpoint to a peer off this node failed: its process is gone or unreachable. */
static void ep_error(void *arg, ucp_ep_h ep, ucs_status_t status)
{
    arb_tp_stream_t *s = arg;

    for (int peer = 0; peer < s->tp->size; peer++) {
        if (s->peers[peer].ep != ep) continue;
        arb_warn("stream endpoint to peer %d failed: %s: peer reported lost", peer,
                 ucs_status_string(status));
        s->peers[peer].lost = true;
        if (s->tp->peer_lost != NULL) s->tp->peer_lost(peer);
        return;
    }
}

/* The peer's endpoint and key on this stream, made on first use; NULL when the stream cannot
 * reach it (*status_p says how the caller goes on). */
static stream_peer_t *peer_of(arb_tp_stream_t *s, int peer, arbor_status_t *status_p)
{
    arb_tp_t *tp = s->tp;
    ucp_ep_params_t params = {0};
    stream_peer_t *p;
    ucs_status_t status;

    *status_p = ARB_ERR_NOT_STREAM;
    if (peer < 0 || peer >= tp->size) {
        *status_p = ARBOR_ERR_INVALID_ARG;
        return NULL;
    }
    p = &s->peers[peer];
    if (p->lost) {
        *status_p = ARBOR_ERR_PEER_LOST;
        return NULL;
    }
    if (p->ep != NULL) return p;
    if (p->failed || tp->peers[peer].wire == NULL) return NULL;
    params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    params.address = (const ucp_address_t *)tp->peers[peer].wire;
    /* Error handling as tp's endpoints have it (ucx_context.c says why off the node only). */
    if (tp->off_node != NULL && tp->off_node[peer]) {
        params.field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
        params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
        params.err_handler.cb = ep_error;
        params.err_handler.arg = s;
    }
    status = ucp_ep_create(s->worker, &params, &p->ep);
    if (status != UCS_OK) {
        p->ep = NULL;
        p->failed = true;
        arb_warn("stream: peer %d: ucp_ep_create failed: %s (its operations take the shared path)",
                 peer, ucs_status_string(status));
        return NULL;
    }
    status = ucp_ep_rkey_unpack(p->ep, tp->peers[peer].wire_rkey, &p->rkey);
    if (status != UCS_OK) {
        p->rkey = NULL;
        p->failed = true; /* the endpoint stays until close: nothing was posted on it */
        arb_warn("stream: peer %d: ucp_ep_rkey_unpack failed: %s (its operations take the shared "
                 "path)",
                 peer, ucs_status_string(status));
        return NULL;
    }
    return p;
}

/* Checks the endpoint flushes in flight (after a progress): false while some are. */
static bool flushes_done(arb_tp_stream_t *s)
{
    int n = 0;
    for (int i = 0; i < s->nflushing; i++) {
        stream_peer_t *p = &s->peers[s->flushing[i]];
        ucs_status_t status = ucp_request_check_status(p->flush_req);
        if (status == UCS_INPROGRESS) {
            s->flushing[n++] = s->flushing[i];
            continue;
        }
        if (status != UCS_OK && s->flush_status == ARBOR_OK) {
            arb_error("stream flush of peer %d failed: %s", s->flushing[i],
                      ucs_status_string(status));
            s->flush_status = arb_ucx_status(status);
        }
        ucp_request_free(p->flush_req);
        p->flush_req = NULL;
    }
    s->nflushing = n;
    return n == 0;
}

/* A flush that is waited for covers what was posted before it: nothing may join it until it
 * ends (one a caller gave up on ends here too). */
static bool busy(arb_tp_stream_t *s)
{
    if (s->nflushing == 0) return false;
    ucp_worker_progress(s->worker);
    return !flushes_done(s);
}

/* Whether a fence's endpoint flush to the peer is still in flight (then its operations wait). */
static bool fencing(arb_tp_stream_t *s, stream_peer_t *p)
{
    ucs_status_t status;

    if (p->fence_req == NULL) return false;
    ucp_worker_progress(s->worker);
    status = ucp_request_check_status(p->fence_req);
    if (status == UCS_INPROGRESS) return true;
    if (status != UCS_OK)
        arb_error("stream fence: endpoint flush failed: %s", ucs_status_string(status));
    ucp_request_free(p->fence_req);
    p->fence_req = NULL;
    return false;
}

/* The peer joins the list the next flush covers. */
static void note_posted(arb_tp_stream_t *s, int peer, stream_peer_t *p)
{
    if (p->posted) return;
    p->posted = true;
    s->posted[s->nposted++] = peer;
}

/* The common start of a stream put or get: *p_p the peer's endpoint, param set; ARBOR_OK to
 * post, else what to return (ARB_ERR_AGAIN while a flush or fence is in the way). */
static arbor_status_t rma_start(arb_tp_stream_t *s, int peer, arb_tp_comp_t *comp,
                                stream_peer_t **p_p, ucp_request_param_t *param)
{
    arbor_status_t status;
    stream_peer_t *p;

    if (busy(s)) return ARB_ERR_AGAIN;
    if ((p = peer_of(s, peer, &status)) == NULL) return status;
    if (fencing(s, p)) return ARB_ERR_AGAIN;
    p->dirty |= s->tp->seg_given;
    note_posted(s, peer, p);
    arb_ucx_rma_param(param, comp);
    *p_p = p;
    return ARBOR_OK;
}

arbor_status_t arb_ucx_stream_put(arb_tp_stream_t *s, int peer, uint64_t off, const void *src,
                                  size_t len, arb_tp_comp_t *comp)
{
    ucp_request_param_t param;
    stream_peer_t *p = NULL;
    arbor_status_t status;

    if (len == 0) return ARBOR_OK;
    if ((status = rma_start(s, peer, comp, &p, &param)) != ARBOR_OK) return status;
    return arb_ucx_posted(
        ucp_put_nbx(p->ep, src, len, s->tp->seg_rkeys[peer].base + off, p->rkey, &param), comp,
        "stream put", peer);
}

arbor_status_t arb_ucx_stream_get(arb_tp_stream_t *s, int peer, uint64_t off, void *dst, size_t len,
                                  arb_tp_comp_t *comp)
{
    ucp_request_param_t param;
    stream_peer_t *p = NULL;
    arbor_status_t status;

    if (len == 0) return ARBOR_OK;
    if ((status = rma_start(s, peer, comp, &p, &param)) != ARBOR_OK) return status;
    return arb_ucx_posted(
        ucp_get_nbx(p->ep, dst, len, s->tp->seg_rkeys[peer].base + off, p->rkey, &param), comp,
        "stream get", peer);
}

static void amo_free(stream_amo_t *a, ucs_status_t status)
{
    arb_tp_stream_t *s = a->s;

    if (a->comp != NULL) {
        if (status != UCS_OK) a->comp->status = arb_ucx_status(status);
        arb_tp_comp_end(a->comp);
    }
    a->next = s->free_amo;
    s->free_amo = a;
}

static void amo_done(void *req, ucs_status_t status, void *user_data)
{
    amo_free(user_data, status);
    ucp_request_free(req);
}

/* As ucx_rma.c's amo_post: the request of an atomic in flight belongs to amo_done, which
 * returns the operand's storage to the pool. */
static arbor_status_t amo_post(arb_tp_stream_t *s, int peer, stream_peer_t *p, ucp_atomic_op_t op,
                               uint64_t off, uint64_t operand, uint64_t *reply, arb_tp_comp_t *comp)
{
    ucp_request_param_t param;
    ucs_status_ptr_t req;
    stream_amo_t *a = s->free_amo;

    if (a != NULL)
        s->free_amo = a->next;
    else if ((a = malloc(sizeof(*a))) == NULL)
        return ARBOR_ERR_NO_MEMORY;
    a->s = s;
    a->comp = NULL;
    a->operand = operand;
    /* A non-fetching atomic UCX emulates at a peer of this node completes when sent (ucx_rma.c,
     * amo_fetch_always): fetch, so that completion means applied. */
    if (reply == NULL && s->tp->seg_given && (s->tp->off_node == NULL || !s->tp->off_node[peer]))
        reply = &a->scratch;
    param.op_attr_mask =
        UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_DATATYPE;
    param.cb.send = amo_done;
    param.user_data = a;
    param.datatype = ucp_dt_make_contig(sizeof(uint64_t));
    if (reply != NULL) {
        param.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        param.reply_buffer = reply;
    }
    p->dirty |= s->tp->seg_given;
    note_posted(s, peer, p);
    req = ucp_atomic_op_nbx(p->ep, op, &a->operand, 1, s->tp->seg_rkeys[peer].base + off, p->rkey,
                            &param);
    if (req == NULL || UCS_PTR_IS_ERR(req)) {
        amo_free(a, UCS_OK); /* done or refused: comp untouched */
        return arb_ucx_posted(req, comp, "stream atomic", peer);
    }
    a->comp = comp;
    if (comp != NULL) arb_tp_comp_begin(comp);
    return ARBOR_OK;
}

arbor_status_t arb_ucx_stream_amo(arb_tp_stream_t *s, int peer, uint64_t off, arb_tp_amo_t op,
                                  uint64_t operand, uint64_t compare, uint64_t *result,
                                  arb_tp_comp_t *comp)
{
    arbor_status_t status;
    stream_peer_t *p;

    if (off % sizeof(uint64_t) != 0 || (op != ARB_TP_AMO_ADD && result == NULL)) {
        arb_error("stream atomic %d to peer %d: unaligned offset %llu or no result buffer", (int)op,
                  peer, (unsigned long long)off);
        return ARBOR_ERR_INVALID_ARG;
    }
    if (busy(s)) return ARB_ERR_AGAIN;
    if ((p = peer_of(s, peer, &status)) == NULL) return status;
    if (fencing(s, p)) return ARB_ERR_AGAIN;
    switch (op) {
    case ARB_TP_AMO_ADD:
        return amo_post(s, peer, p, UCP_ATOMIC_OP_ADD, off, operand, NULL, comp);
    case ARB_TP_AMO_FADD:
        return amo_post(s, peer, p, UCP_ATOMIC_OP_ADD, off, operand, result, comp);
    case ARB_TP_AMO_SWAP:
        return amo_post(s, peer, p, UCP_ATOMIC_OP_SWAP, off, operand, result, comp);
    case ARB_TP_AMO_CSWAP:
        *result = operand; /* ucp reads the new value from the reply buffer */
        return amo_post(s, peer, p, UCP_ATOMIC_OP_CSWAP, off, compare, result, comp);
    }
    arb_error("stream atomic: unknown op %d", (int)op);
    return ARBOR_ERR_INVALID_ARG;
}

/* ucp_worker_fence orders per lane (ucx.h): where RMA is emulated at the target, an endpoint
 * flush orders it instead, as tp's fence does. Not waited for here: the peer refuses operations
 * (fencing) until it is over, and the caller's loop drives the stream and the engine, which
 * the target may need from us meanwhile. */
static arbor_status_t fence_peer(arb_tp_stream_t *s, int peer)
{
    stream_peer_t *p = &s->peers[peer];
    ucp_request_param_t param = {0};
    ucs_status_ptr_t req;

    if (!p->dirty || p->ep == NULL || p->lost || p->fence_req != NULL) return ARBOR_OK;
    req = ucp_ep_flush_nbx(p->ep, &param);
    if (UCS_PTR_IS_ERR(req)) {
        arb_error("stream fence (peer %d): ucp_ep_flush_nbx failed: %s", peer,
                  ucs_status_string(UCS_PTR_STATUS(req)));
        return arb_ucx_status(UCS_PTR_STATUS(req));
    }
    p->dirty = false;
    p->fence_req = req; /* NULL: done already */
    return ARBOR_OK;
}

arbor_status_t arb_ucx_stream_fence(arb_tp_stream_t *s, int peer)
{
    arbor_status_t status = ARBOR_OK;
    ucs_status_t ucs;

    if (peer >= s->tp->size) return ARBOR_ERR_INVALID_ARG;
    for (int r = peer < 0 ? 0 : peer; r < (peer < 0 ? s->tp->size : peer + 1); r++)
        if (status == ARBOR_OK) status = fence_peer(s, r);
    if (status != ARBOR_OK) return status;
    ucs = ucp_worker_fence(s->worker);
    if (ucs != UCS_OK) {
        arb_error("stream fence: ucp_worker_fence failed: %s", ucs_status_string(ucs));
        return arb_ucx_status(ucs);
    }
    return ARBOR_OK;
}

/* Starts the endpoint flushes of the peers posted to (first call), then checks them. */
arbor_status_t arb_ucx_stream_flush(arb_tp_stream_t *s)
{
    ucp_request_param_t param = {0};
    arbor_status_t status;

    if (s->nflushing == 0) { /* a new flush: what was posted so far */
        s->flush_status = ARBOR_OK;
        for (int i = 0; i < s->nposted; i++) {
            int peer = s->posted[i];
            stream_peer_t *p = &s->peers[peer];
            ucs_status_ptr_t req = ucp_ep_flush_nbx(p->ep, &param);
            p->posted = false;
            p->dirty = false;
            if (UCS_PTR_IS_PTR(req)) {
                p->flush_req = req;
                s->flushing[s->nflushing++] = peer;
            } else if (UCS_PTR_IS_ERR(req) && s->flush_status == ARBOR_OK) {
                arb_error("stream flush of peer %d failed: %s", peer,
                          ucs_status_string(UCS_PTR_STATUS(req)));
                s->flush_status = arb_ucx_status(UCS_PTR_STATUS(req));
            }
        }
        s->nposted = 0;
    }
    if (s->nflushing > 0) {
        ucp_worker_progress(s->worker);
        if (!flushes_done(s)) return ARB_ERR_AGAIN;
    }
    status = s->flush_status;
    s->flush_status = ARBOR_OK;
    return status;
}

int arb_ucx_stream_progress(arb_tp_stream_t *s)
{
    return (int)ucp_worker_progress(s->worker);
}
