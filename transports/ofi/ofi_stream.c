/*
 * libfabric backend: streams (transport.h), the per-thread transport resources of a private
 * communication context. A stream opens a domain of its own on tp's fabric, with its own
 * address vector (every peer's main endpoint name, kept from the blobs at connect), completion
 * queue and RDM endpoint, with the main endpoint's provider and attributes (fi_dupinfo of
 * tp->info, less the capabilities only the main endpoint uses). A domain of its own because tp
 * asks for FI_THREAD_DOMAIN: every object of a domain is then used by one thread at a time,
 * the stream's by its thread and tp's under the engine lock. The peers' segment keys are
 * theirs, valid from any initiator's domain, so tp->seg_rkeys serve as they are.
 *
 * As tp's operations (ofi_post.c): writes carry FI_DELIVERY_COMPLETE and atomics always fetch,
 * so a completion means "visible at the target"; a fence then waits until nothing is in flight
 * to the peer (the next operation to it is refused, ARB_ERR_AGAIN, until then) and a flush
 * until nothing is in flight at all. The target's side is served by its main endpoint's
 * progress, as for tp's operations (shm's commands, tcp;ofi_rxm's connection set-up and data).
 *
 * Not offered (stream_open ARBOR_ERR_UNSUPPORTED, the core keeps the shared path): providers
 * that need local registration (FI_MR_LOCAL: tp stages through registered scratch) or
 * endpoint-bound keys (FI_MR_ENDPOINT), and the shm provider: a new address vector maps each
 * peer's region by its name in /dev/shm, which ofi_all_connected removed once every rank had
 * connected (so that a killed job leaves nothing there), and tp's AV is in tp's domain.
 */
#include "transports/ofi/ofi.h"

#include "util/log.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STREAM_NCTX 256 /* operations in flight at once on one stream */
#define CQ_BATCH    16

/* One posted operation: libfabric's scratch space first (FI_CONTEXT / FI_CONTEXT2). */
typedef struct stream_ctx {
    struct fi_context2 fi;
    struct stream_ctx *next; /* free list */
    arb_tp_comp_t *comp;
    int peer;
    uint64_t operand, compare, result; /* an atomic's operands and fetched word */
    uint64_t *user_result;             /* where the fetched word goes (NULL: nowhere) */
} stream_ctx_t;

struct arb_tp_stream {
    arb_tp_t *tp; /* read-only after connect: sizes, keys, peers' names, limits */
    struct fi_info *info;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    fi_addr_t *addr;  /* [tp->size] */
    long *inflight;   /* [tp->size] operations posted to the peer, not complete */
    bool *fence_next; /* [tp->size] the next operation waits until inflight drops to 0 */
    long total;       /* operations in flight, all peers */
    stream_ctx_t ctxs[STREAM_NCTX];
    stream_ctx_t *free_ctx;
};

static void fid_close(struct fid *fid, const char *what)
{
    int rc;

    if (fid == NULL) return;
    rc = fi_close(fid);
    if (rc != 0) arb_warn("stream: closing the %s: %s", what, fi_strerror(-rc));
}

/* Operations in flight went to peers that are gone or out of step: closing the endpoint
 * releases them; their contexts are ours and go with the stream. */
void arb_ofi_stream_close(arb_tp_t *tp, arb_tp_stream_t *s)
{
    (void)tp;
    if (s == NULL) return;
    fid_close(s->ep ? &s->ep->fid : NULL, "endpoint");
    fid_close(s->av ? &s->av->fid : NULL, "address vector");
    fid_close(s->cq ? &s->cq->fid : NULL, "completion queue");
    fid_close(s->domain ? &s->domain->fid : NULL, "domain");
    if (s->info != NULL) fi_freeinfo(s->info);
    free(s->addr);
    free(s->inflight);
    free(s->fence_next);
    free(s);
}

static arbor_status_t objects_open(arb_tp_stream_t *s)
{
    arb_tp_t *tp = s->tp;
    struct fi_av_attr av_attr = {0};
    struct fi_cq_attr cq_attr = {0};
    const char *what;
    int rc;

    /* The main endpoint's caps less what only it uses (collectives, triggered writes, the
     * counters of remote writes, messages); the same provider, domain name and modes. */
    s->info->caps &= ~(uint64_t)(FI_COLLECTIVE | FI_TRIGGER | FI_RMA_EVENT | FI_MSG | FI_TAGGED);
    arb_ofi_unique_shm_name(s->info); /* the shm provider names the region after the address */
    what = "fi_domain";
    rc = fi_domain(tp->fabric, s->info, &s->domain, NULL);
    if (rc != 0) goto err;
    what = "fi_av_open";
    av_attr.type = FI_AV_TABLE;
    av_attr.count = (size_t)tp->size;
    rc = fi_av_open(s->domain, &av_attr, &s->av, NULL);
    if (rc != 0) goto err;
    what = "fi_cq_open";
    cq_attr.format = FI_CQ_FORMAT_CONTEXT;
    cq_attr.size = 2 * STREAM_NCTX;
    cq_attr.wait_obj = FI_WAIT_NONE;
    rc = fi_cq_open(s->domain, &cq_attr, &s->cq, NULL);
    if (rc != 0) goto err;
    what = "fi_endpoint";
    rc = fi_endpoint(s->domain, s->info, &s->ep, NULL);
    if (rc != 0) goto err;
    what = "fi_ep_bind (AV)";
    rc = fi_ep_bind(s->ep, &s->av->fid, 0);
    if (rc != 0) goto err;
    what = "fi_ep_bind (CQ)";
    rc = fi_ep_bind(s->ep, &s->cq->fid, FI_TRANSMIT | FI_RECV);
    if (rc != 0) goto err;
    what = "fi_enable";
    rc = fi_enable(s->ep);
    if (rc != 0) goto err;
    for (int peer = 0; peer < tp->size; peer++) {
        what = "fi_av_insert";
        rc = fi_av_insert(s->av, tp->peers[peer].name, 1, &s->addr[peer], 0, NULL);
        if (rc != 1) {
            rc = rc < 0 ? rc : -FI_EINVAL;
            goto err;
        }
    }
    return ARBOR_OK;
err:
    rc = -rc; /* a positive error number for fi_strerror */
    arb_warn("stream: %s (%s): %s", what, s->info->fabric_attr->prov_name, fi_strerror(rc));
    return ARBOR_ERR_UNSUPPORTED;
}

arbor_status_t arb_ofi_stream_open(arb_tp_t *tp, arb_tp_stream_t **s_p)
{
    arb_tp_stream_t *s;
    arbor_status_t status;

    if (tp == NULL || s_p == NULL) return ARBOR_ERR_INVALID_ARG;
    if (tp->peers == NULL) {
        arb_error("stream_open before connect");
        return ARBOR_ERR_INVALID_ARG;
    }
    if (tp->mr_local || tp->mr_ep || strcmp(tp->info->fabric_attr->prov_name, "shm") == 0)
        return ARBOR_ERR_UNSUPPORTED; /* file comment */
    if ((s = calloc(1, sizeof(*s))) == NULL) return ARBOR_ERR_NO_MEMORY;
    s->tp = tp;
    s->addr = calloc((size_t)tp->size, sizeof(*s->addr));
    s->inflight = calloc((size_t)tp->size, sizeof(*s->inflight));
    s->fence_next = calloc((size_t)tp->size, sizeof(*s->fence_next));
    s->info = fi_dupinfo(tp->info);
    if (s->addr == NULL || s->inflight == NULL || s->fence_next == NULL || s->info == NULL) {
        arb_ofi_stream_close(tp, s);
        return ARBOR_ERR_NO_MEMORY;
    }
    for (int i = 0; i < STREAM_NCTX; i++) {
        s->ctxs[i].next = s->free_ctx;
        s->free_ctx = &s->ctxs[i];
    }
    if ((status = objects_open(s)) != ARBOR_OK) {
        arb_ofi_stream_close(tp, s);
        return status;
    }
    *s_p = s;
    return ARBOR_OK;
}

static void ctx_done(arb_tp_stream_t *s, stream_ctx_t *ctx, arbor_status_t status)
{
    if (status == ARBOR_OK && ctx->user_result != NULL) *ctx->user_result = ctx->result;
    if (ctx->comp != NULL) {
        if (status != ARBOR_OK) ctx->comp->status = status;
        arb_tp_comp_end(ctx->comp);
    }
    s->inflight[ctx->peer]--;
    s->total--;
    ctx->next = s->free_ctx;
    s->free_ctx = ctx;
}

/* A failed completion: as tp's (ofi_progress.c), a connection that failed means a lost peer. */
static void cq_error(arb_tp_stream_t *s)
{
    struct fi_cq_err_entry err = {0};
    ssize_t rc = fi_cq_readerr(s->cq, &err, 0);
    stream_ctx_t *ctx = err.op_context;

    if (rc < 0 || ctx == NULL) return;
    bool gone = err.err == FI_ECONNRESET || err.err == FI_ECONNREFUSED ||
                err.err == FI_ECONNABORTED || err.err == FI_ENOTCONN ||
                err.err == FI_EHOSTUNREACH || err.err == FI_ETIMEDOUT || err.err == FI_EIO;
    arb_error("stream operation to peer %d failed: %s (%s)", ctx->peer, fi_strerror(err.err),
              fi_cq_strerror(s->cq, err.prov_errno, err.err_data, NULL, 0));
    if (gone && s->tp->peer_lost != NULL) s->tp->peer_lost(ctx->peer);
    ctx_done(s, ctx, gone ? ARBOR_ERR_PEER_LOST : ARBOR_ERR_TRANSPORT);
}

int arb_ofi_stream_progress(arb_tp_stream_t *s)
{
    struct fi_cq_entry ev[CQ_BATCH];
    int n = 0;
    ssize_t rc;

    while ((rc = fi_cq_read(s->cq, ev, CQ_BATCH)) > 0) {
        for (ssize_t i = 0; i < rc; i++) ctx_done(s, ev[i].op_context, ARBOR_OK);
        n += (int)rc;
    }
    if (rc == -FI_EAVAIL) {
        cq_error(s);
        n++;
    }
    return n;
}

/* A context for an operation to peer, or NULL (ARB_ERR_AGAIN in *status_p: progress, retry). */
static stream_ctx_t *ctx_get(arb_tp_stream_t *s, int peer, arb_tp_comp_t *comp,
                             arbor_status_t *status_p)
{
    stream_ctx_t *ctx;

    *status_p = ARB_ERR_AGAIN;
    if (peer < 0 || peer >= s->tp->size) {
        *status_p = ARBOR_ERR_INVALID_ARG;
        return NULL;
    }
    if (s->fence_next[peer]) {
        if (s->inflight[peer] > 0) return NULL;
        s->fence_next[peer] = false;
    }
    if ((ctx = s->free_ctx) == NULL) return NULL;
    s->free_ctx = ctx->next;
    ctx->comp = comp;
    ctx->peer = peer;
    ctx->user_result = NULL;
    return ctx;
}

/* Accounts for what a post returned: accepted, pushed back (the context goes back) or failed. */
static arbor_status_t posted(arb_tp_stream_t *s, stream_ctx_t *ctx, ssize_t rc, const char *what)
{
    if (rc == 0) {
        s->inflight[ctx->peer]++;
        s->total++;
        if (ctx->comp != NULL) arb_tp_comp_begin(ctx->comp);
        return ARBOR_OK;
    }
    ctx->next = s->free_ctx;
    s->free_ctx = ctx;
    if (rc == -FI_EAGAIN) {
        arb_ofi_stream_progress(s);
        return ARB_ERR_AGAIN;
    }
    arb_error("stream %s to peer %d: %s", what, ctx->peer, fi_strerror((int)-rc));
    return ARBOR_ERR_TRANSPORT;
}

/* One chunk of at most the provider's maximum message size. */
static arbor_status_t rma_chunk(arb_tp_stream_t *s, bool put, int peer, uint64_t off, void *buf,
                                size_t len, arb_tp_comp_t *comp)
{
    const arb_tp_rkey_t *key;
    struct fi_msg_rma msg;
    struct fi_rma_iov riov;
    struct iovec iov;
    arbor_status_t status;
    stream_ctx_t *ctx;
    uint64_t flags = FI_COMPLETION;
    void *desc = NULL;

    if ((ctx = ctx_get(s, peer, comp, &status)) == NULL) return status;
    key = &s->tp->seg_rkeys[peer];
    iov.iov_base = buf;
    iov.iov_len = len;
    riov.addr = key->addr0 + off;
    riov.len = len;
    riov.key = key->key;
    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = &iov;
    msg.desc = &desc;
    msg.iov_count = 1;
    msg.addr = s->addr[peer];
    msg.rma_iov = &riov;
    msg.rma_iov_count = 1;
    msg.context = ctx;
    if (!put) return posted(s, ctx, fi_readmsg(s->ep, &msg, flags), "read");
    flags |= FI_DELIVERY_COMPLETE;
    if (len <= s->tp->inject_size) flags |= FI_INJECT;
    return posted(s, ctx, fi_writemsg(s->ep, &msg, flags), "write");
}

/* A transfer in chunks: the first may be pushed back (nothing accepted, ARB_ERR_AGAIN); once
 * one is accepted the rest must be, so the call drives the stream until they are, bounded by
 * tp's timeout (a peer that stops serving us: ARBOR_ERR_TIMEOUT, the part posted stays). */
static arbor_status_t rma(arb_tp_stream_t *s, bool put, int peer, uint64_t off, void *buf,
                          size_t len, arb_tp_comp_t *comp)
{
    size_t max = s->tp->max_msg, done = 0;
    unsigned polls = 0;
    double deadline = 0;

    while (done < len) {
        size_t n = len - done < max ? len - done : max;
        arbor_status_t status = rma_chunk(s, put, peer, off + done, (char *)buf + done, n, comp);
        if (status == ARBOR_OK) {
            done += n;
            continue;
        }
        if (status != ARB_ERR_AGAIN || done == 0) return status;
        arb_ofi_stream_progress(s);
        if (s->tp->timeout_s > 0 && ++polls % 256 == 0) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            double now = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
            if (deadline == 0) deadline = now + s->tp->timeout_s;
            if (now > deadline) {
                arb_error("stream %s to peer %d: %zu of %zu bytes posted after %.1f s",
                          put ? "put" : "get", peer, done, len, s->tp->timeout_s);
                return ARBOR_ERR_TIMEOUT;
            }
        }
    }
    return ARBOR_OK;
}

arbor_status_t arb_ofi_stream_put(arb_tp_stream_t *s, int peer, uint64_t off, const void *src,
                                  size_t len, arb_tp_comp_t *comp)
{
    return rma(s, true, peer, off, (void *)(uintptr_t)src, len, comp);
}

arbor_status_t arb_ofi_stream_get(arb_tp_stream_t *s, int peer, uint64_t off, void *dst, size_t len,
                                  arb_tp_comp_t *comp)
{
    return rma(s, false, peer, off, dst, len, comp);
}

arbor_status_t arb_ofi_stream_amo(arb_tp_stream_t *s, int peer, uint64_t off, arb_tp_amo_t op,
                                  uint64_t operand, uint64_t compare, uint64_t *result,
                                  arb_tp_comp_t *comp)
{
    struct fi_msg_atomic msg;
    struct fi_rma_ioc rioc;
    struct fi_ioc ioc, res, cmp;
    arbor_status_t status;
    stream_ctx_t *ctx;
    void *desc = NULL;
    ssize_t rc;

    if (off % sizeof(uint64_t) != 0 || (unsigned)op > ARB_TP_AMO_CSWAP ||
        (op != ARB_TP_AMO_ADD && result == NULL)) {
        arb_error("stream atomic %d to peer %d: unknown op, unaligned offset %llu or no result "
                  "buffer",
                  (int)op, peer, (unsigned long long)off);
        return ARBOR_ERR_INVALID_ARG;
    }
    if ((ctx = ctx_get(s, peer, comp, &status)) == NULL) return status;
    ctx->operand = operand;
    ctx->compare = compare;
    ctx->user_result = op == ARB_TP_AMO_ADD ? NULL : result;
    rioc = (struct fi_rma_ioc){s->tp->seg_rkeys[peer].addr0 + off, 1, s->tp->seg_rkeys[peer].key};
    ioc = (struct fi_ioc){&ctx->operand, 1};
    res = (struct fi_ioc){&ctx->result, 1};
    cmp = (struct fi_ioc){&ctx->compare, 1};
    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = &ioc;
    msg.desc = &desc;
    msg.iov_count = 1;
    msg.addr = s->addr[peer];
    msg.rma_iov = &rioc;
    msg.rma_iov_count = 1;
    msg.datatype = FI_UINT64;
    msg.context = ctx;
    /* Every atomic fetches: the reply proves it was applied (ofi.h). */
    switch (op) {
    case ARB_TP_AMO_ADD:
    case ARB_TP_AMO_FADD:
        msg.op = FI_SUM;
        rc = fi_fetch_atomicmsg(s->ep, &msg, &res, &desc, 1, FI_COMPLETION);
        break;
    case ARB_TP_AMO_SWAP:
        msg.op = FI_ATOMIC_WRITE;
        rc = fi_fetch_atomicmsg(s->ep, &msg, &res, &desc, 1, FI_COMPLETION);
        break;
    default:
        msg.op = FI_CSWAP;
        rc = fi_compare_atomicmsg(s->ep, &msg, &cmp, &desc, 1, &res, &desc, 1, FI_COMPLETION);
        break;
    }
    return posted(s, ctx, rc, "atomic");
}

/* Completions are "visible at the target" (file comment): the next operation to the peer
 * waits until nothing earlier is in flight to it. */
arbor_status_t arb_ofi_stream_fence(arb_tp_stream_t *s, int peer)
{
    if (peer >= s->tp->size) return ARBOR_ERR_INVALID_ARG;
    for (int r = peer < 0 ? 0 : peer; r < (peer < 0 ? s->tp->size : peer + 1); r++)
        if (s->inflight[r] > 0) s->fence_next[r] = true;
    return ARBOR_OK;
}

arbor_status_t arb_ofi_stream_flush(arb_tp_stream_t *s)
{
    if (s->total > 0) arb_ofi_stream_progress(s);
    return s->total > 0 ? ARB_ERR_AGAIN : ARBOR_OK;
}
