/*
 * libfabric backend: progress. Reading the CQ is what drives data progress under
 * FI_PROGRESS_MANUAL (all three providers here), including the target side of peers' operations
 * on our memory, so every wait loop calls progress. Our completions release contexts and end
 * requests; peers' remote-CQ-data signals are added to their words in our segment (ofi_rma.c);
 * then the peer queues get another chance; completions of provider collectives and triggered
 * writes go to the handler ofi_coll.c registered (tp->coll_done). Interrupt mode: the CQ's wait
 * descriptor (FI_WAIT_FD, fi_control FI_GETWAIT) and fi_trywait.
 */
#include "transports/ofi/ofi.h"

#include "util/log.h"

#define CQ_BATCH 16

/* Our context, or NULL for a completion of a peer's operation (op_context is then whatever the
 * provider leaves there). */
static arb_ofi_ctx_t *own_ctx(const arb_tp_t *tp, void *op_context)
{
    uintptr_t p = (uintptr_t)op_context, lo = (uintptr_t)tp->ctxs;

    if (p < lo || p >= lo + ARB_OFI_NCTX * sizeof(arb_ofi_ctx_t) ||
        (p - lo) % sizeof(arb_ofi_ctx_t) != 0)
        return NULL;
    return op_context;
}

/* A peer's put_signal landed: its data is in place, so the signal may count it. The release
 * pairs with the waiter's acquire load; the add is atomic because a progress thread and the
 * application may both poll (under the core's lock, but the waiter reads without it). */
static void signal_apply(arb_tp_t *tp, const struct fi_cq_data_entry *ev)
{
    uint64_t word = ev->data & ((UINT64_C(1) << ARB_OFI_SIG_OFF_BITS) - 1);
    uint64_t add = ev->data >> ARB_OFI_SIG_OFF_BITS;

    if (word >= tp->seg_size / sizeof(uint64_t)) {
        arb_warn("remote CQ data 0x%llx names no word of the %zu-byte segment; ignored",
                 (unsigned long long)ev->data, tp->seg_size);
        return;
    }
    __atomic_fetch_add((uint64_t *)(void *)tp->seg + word, add, __ATOMIC_RELEASE);
}

static arbor_status_t cq_error(arb_tp_t *tp)
{
    struct fi_cq_err_entry err = {0};
    ssize_t rc = fi_cq_readerr(tp->cq, &err, 0);
    arb_ofi_ctx_t *ctx;

    if (rc == -FI_EAGAIN) return ARBOR_OK;
    if (rc < 0) {
        arb_error("fi_cq_readerr: %s", fi_strerror((int)-rc));
        return ARBOR_ERR_TRANSPORT;
    }
    if (tp->coll_done != NULL && tp->coll_done(tp, err.op_context, ARBOR_ERR_TRANSPORT)) {
        arb_error("a provider collective failed: %s (%s)", fi_strerror(err.err),
                  fi_cq_strerror(tp->cq, err.prov_errno, err.err_data, NULL, 0));
        return ARBOR_OK;
    }
    ctx = own_ctx(tp, err.op_context);
    arb_error("%s to peer %d failed: %s (%s)",
              ctx == NULL                     ? "an operation"
              : ctx->req->kind == ARB_OFI_PUT ? "write"
              : ctx->req->kind == ARB_OFI_GET ? "read"
                                              : "atomic",
              ctx != NULL ? ctx->req->peer : -1, fi_strerror(err.err),
              fi_cq_strerror(tp->cq, err.prov_errno, err.err_data, NULL, 0));
    /* A connection that failed (the peer's process is gone: its kernel reset the socket, or
     * no one answers) means a lost peer, not a broken transport. */
    bool gone = err.err == FI_ECONNRESET || err.err == FI_ECONNREFUSED ||
                err.err == FI_ECONNABORTED || err.err == FI_ENOTCONN ||
                err.err == FI_EHOSTUNREACH || err.err == FI_ETIMEDOUT || err.err == FI_EIO;
    if (gone && ctx != NULL && ctx->req->peer >= 0 && ctx->req->peer < tp->size &&
        tp->peer_lost != NULL)
        tp->peer_lost(ctx->req->peer);
    if (ctx != NULL) arb_ofi_ctx_done(tp, ctx, gone ? ARBOR_ERR_PEER_LOST : ARBOR_ERR_TRANSPORT);
    return ARBOR_OK;
}

int arb_ofi_progress(arb_tp_t *tp)
{
    struct fi_cq_data_entry ev[CQ_BATCH];
    int seen = 0;

    for (;;) {
        ssize_t rc = fi_cq_read(tp->cq, ev, CQ_BATCH);
        if (rc > 0) {
            for (ssize_t i = 0; i < rc; i++) {
                arb_ofi_ctx_t *ctx = own_ctx(tp, ev[i].op_context);
                if (ctx != NULL)
                    arb_ofi_ctx_done(tp, ctx, ARBOR_OK);
                else if (ev[i].flags & FI_REMOTE_CQ_DATA)
                    signal_apply(tp, &ev[i]);
                else if (tp->coll_done != NULL && tp->coll_done(tp, ev[i].op_context, ARBOR_OK))
                    continue;
                else
                    arb_warn("a completion that is neither ours nor a signal (flags 0x%llx); "
                             "ignored",
                             (unsigned long long)ev[i].flags);
            }
            seen += (int)rc;
            if (rc < CQ_BATCH) break;
        } else if (rc == -FI_EAVAIL) {
            if (cq_error(tp) != ARBOR_OK) return ARBOR_ERR_TRANSPORT;
            seen++;
        } else if (rc == -FI_EAGAIN) {
            break;
        } else {
            arb_error("fi_cq_read: %s", fi_strerror((int)-rc));
            return ARBOR_ERR_TRANSPORT;
        }
    }
    if (tp->queued > 0) arb_ofi_drain(tp);
    return seen;
}

arbor_status_t arb_ofi_wait_fd(arb_tp_t *tp, int *fd_p)
{
    if (tp->wait_fd < 0) return ARBOR_ERR_UNSUPPORTED;
    *fd_p = tp->wait_fd;
    return ARBOR_OK;
}

arbor_status_t arb_ofi_arm(arb_tp_t *tp)
{
    struct fid *fids[1] = {&tp->cq->fid};
    int rc;

    if (tp->wait_fd < 0) return ARBOR_ERR_UNSUPPORTED;
    if (tp->queued > 0 && tp->inflight == 0) return ARB_ERR_AGAIN; /* no event would come */
    rc = fi_trywait(tp->fabric, fids, 1);
    if (rc == -FI_EAGAIN) return ARB_ERR_AGAIN;
    if (rc != 0) {
        arb_error("fi_trywait: %s", fi_strerror(-rc));
        return ARBOR_ERR_TRANSPORT;
    }
    return ARBOR_OK;
}
