/*
 * The contiguous put / get entry points, blocking, explicit and implicit, on the default
 * context and on a communication context: the mapped path by memcpy, any other through the
 * transfers of transfer.c at the address's translation (mem.c).
 */
#include <string.h>

#include "rma/ctx_stream.h"
#include "rma/rma_impl.h"
#include "runtime/doorbell.h"
#include "runtime/lock.h"
#include "runtime/tp_call.h"

/* A mapped copy: the word sizes inline (a load, then a store: overlapping ranges of a self put
 * stay safe, as with memmove), anything else through memmove. */
#define COPY_WORD(T)                                                                               \
    do {                                                                                           \
        T v_;                                                                                      \
        memcpy(&v_, src, sizeof(T));                                                               \
        memcpy(dst, &v_, sizeof(T));                                                               \
    } while (0)
static inline void mapped_copy(void *dst, const void *src, size_t n)
{
    switch (n) {
    case 1:
        COPY_WORD(uint8_t);
        break;
    case 2:
        COPY_WORD(uint16_t);
        break;
    case 4:
        COPY_WORD(uint32_t);
        break;
    case 8:
        COPY_WORD(uint64_t);
        break;
    default:
        memmove(dst, src, n);
        break;
    }
}
#undef COPY_WORD

static arbor_status_t xfer(bool put, int rank, void *dst, const void *src, size_t nbytes,
                           arbor_request_h *req_p, bool blocking)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    arbor_status_t status = arb_rma_check_rank(rank);
    if (status != ARBOR_OK) return status;
    if (req_p) *req_p = NULL;
    if (nbytes == 0) return req_p ? arb_rma_req_done_handle(rank, req_p) : ARBOR_OK;
    if (!dst || !src) return ARBOR_ERR_BUFFER;
    arb_rma_target_t tgt;
    if ((status = arb_rma_translate(rank, put ? dst : src, nbytes, false, &tgt)) != ARBOR_OK)
        return status;
    if (tgt.ptr) { /* mapped (or self): done here; a handle asked for comes back complete */
        if (put) {
            mapped_copy(tgt.ptr, src, nbytes);
            arb_bell_ring(rank); /* the target may wait_until on what we wrote */
        } else
            mapped_copy(dst, tgt.ptr, nbytes);
        return req_p ? arb_rma_req_done_handle(rank, req_p) : ARBOR_OK;
    }
    if (!blocking && !req_p)
        return put ? arb_rma_tp_put(rank, tgt.rkey, tgt.off, src, nbytes, NULL)
                   : arb_rma_tp_get(rank, tgt.rkey, tgt.off, dst, nbytes, NULL);
    arb_rma_req_t *req = arb_rma_req_get(rank);
    if (!req) return ARBOR_ERR_NO_MEMORY;
    status = put ? arb_rma_tp_put(rank, tgt.rkey, tgt.off, src, nbytes, &req->comp)
                 : arb_rma_tp_get(rank, tgt.rkey, tgt.off, dst, nbytes, &req->comp);
    if (status != ARBOR_OK) {
        /* nothing was accepted (the transport refuses before counting): drop the request */
        arb_rma_req_commit(req, NULL, true);
        return status;
    }
    return arb_rma_req_commit(req, req_p, blocking);
}

/* The fast path of a put to a mapped user allocation found in the translation cache (no lock
 * to take, no handle to make): the copy, nothing else. False: take the normal path. */
static inline bool fast_put(int rank, void *dst, const void *src, size_t nbytes)
{
    uint8_t *p = arb_rma_fast_mapped(rank, dst, nbytes);
    if (!p || !src) return false;
    mapped_copy(p, src, nbytes);
    arb_bell_ring(rank);
    return true;
}

static inline bool fast_get(int rank, void *dst, const void *src, size_t nbytes)
{
    uint8_t *p = arb_rma_fast_mapped(rank, src, nbytes);
    if (!p || !dst) return false;
    mapped_copy(dst, p, nbytes);
    return true;
}

arbor_status_t arbor_put(int rank, void *dst, const void *src, size_t nbytes)
{
    if (fast_put(rank, dst, src, nbytes)) return ARBOR_OK;
    ARB_RMA_LOCKED(xfer(true, rank, dst, src, nbytes, NULL, true));
}

arbor_status_t arbor_get(int rank, void *dst, const void *src, size_t nbytes)
{
    if (fast_get(rank, dst, src, nbytes)) return ARBOR_OK;
    ARB_RMA_LOCKED(xfer(false, rank, dst, src, nbytes, NULL, true));
}

arbor_status_t arbor_put_nb(int rank, void *dst, const void *src, size_t nbytes,
                            arbor_request_h *req_p)
{
    if (!req_p && fast_put(rank, dst, src, nbytes)) return ARBOR_OK;
    ARB_RMA_LOCKED_NB(req_p, xfer(true, rank, dst, src, nbytes, req_p, false));
}

arbor_status_t arbor_get_nb(int rank, void *dst, const void *src, size_t nbytes,
                            arbor_request_h *req_p)
{
    if (!req_p && fast_get(rank, dst, src, nbytes)) return ARBOR_OK;
    ARB_RMA_LOCKED_NB(req_p, xfer(false, rank, dst, src, nbytes, req_p, false));
}

/* ---- contiguous put / get on a context --------------------------------------------------- */

static arbor_status_t ctx_xfer(arbor_ctx_h ctx, bool put, int rank, void *dst, const void *src,
                               size_t nbytes, bool blocking)
{
    int w;
    arbor_status_t status = arb_rma_ctx_world(ctx, rank, &w);
    if (status != ARBOR_OK) return status;
    /* Mapped: a copy, complete at issue, no lock (any context; a private one also where the
     * shared cache needs the lock, from its own copy). */
    if (put ? fast_put(w, dst, src, nbytes) : fast_get(w, dst, src, nbytes)) return ARBOR_OK;
    uint8_t *p = ctx ? arb_rma_ctx_fast_mapped(ctx, w, put ? dst : src, nbytes) : NULL;
    if (p && (put ? src : dst)) {
        if (put) {
            mapped_copy(p, src, nbytes);
            arb_bell_ring(w);
        } else
            mapped_copy(dst, p, nbytes);
        return ARBOR_OK;
    }
    /* A private context's stream: unmapped targets without the lock (ctx_stream.c). */
    if (ctx && ctx->cs) {
        status = arb_rma_ctx_stream_xfer(ctx, put, w, dst, src, nbytes, blocking);
        if (status != ARB_ERR_NOT_STREAM) return status;
        if ((status = arb_rma_ctx_stream_settle(ctx, w)) != ARBOR_OK) return status;
    }
    ARB_RMA_ON_CTX(ctx, status = xfer(put, w, dst, src, nbytes, NULL, blocking);
                   if (status == ARBOR_OK) arb_rma_ctx_learn(ctx, w));
    return status;
}

arbor_status_t arbor_ctx_put(arbor_ctx_h ctx, int rank, void *dst, const void *src, size_t nbytes)
{
    return ctx_xfer(ctx, true, rank, dst, src, nbytes, true);
}

arbor_status_t arbor_ctx_get(arbor_ctx_h ctx, int rank, void *dst, const void *src, size_t nbytes)
{
    return ctx_xfer(ctx, false, rank, dst, src, nbytes, true);
}

arbor_status_t arbor_ctx_put_nbi(arbor_ctx_h ctx, int rank, void *dst, const void *src,
                                 size_t nbytes)
{
    return ctx_xfer(ctx, true, rank, dst, src, nbytes, false);
}

arbor_status_t arbor_ctx_get_nbi(arbor_ctx_h ctx, int rank, void *dst, const void *src,
                                 size_t nbytes)
{
    return ctx_xfer(ctx, false, rank, dst, src, nbytes, false);
}

/* The active-message layer's fence (packed strided puts) for a context's fence (ctx.c). */
