/*
 * Communication contexts: independent streams of one-sided operations (docs/ONESIDED.md,
 * "Contexts"). A context owns the implicit accounting the default context keeps in arb_rma
 * (per-target counters, the list of operations with a finish step, which targets it posted to
 * through the transport), so its quiet waits for its own operations and flushes only the
 * targets it wrote to. The operations themselves are the default context's code paths, run
 * with arb_rma_cur pointing here (transfer.c, atomic.c, notify.c).
 *
 * A private context is used by one thread: what that thread's calls write (the marks, the
 * list) is read by that thread alone, so a quiet or fence with nothing posted through the
 * transport is one memory barrier and takes no lock, and mapped operations never take it.
 * The counters are the exception: the transport's progress (any thread, under the lock)
 * completes operations on them, which is why they are atomic (arb_tp_comp_t). Its mapped puts
 * and gets find the peer's address in its own copy of the translation cache (pxhits), so at
 * THREAD_MULTIPLE, where the shared cache needs the lock, they still take none.
 */
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "rma/ctx_stream.h"
#include "rma/rma_impl.h"
#include "runtime/tp_call.h"
#include "runtime/lock.h"

struct arbor_ctx *arb_rma_ctx_live;

struct arbor_ctx *arb_rma_ctx_alloc(unsigned flags)
{
    struct arbor_ctx *c = calloc(1, sizeof(*c));
    if (!c) return NULL;
    c->imp = calloc((size_t)arb_ctx.size, sizeof(*c->imp));
    c->dirty = calloc((size_t)arb_ctx.size, sizeof(*c->dirty));
    if (flags & ARBOR_CTX_PRIVATE) c->pxhits = calloc((size_t)arb_ctx.size, sizeof(*c->pxhits));
    if (!c->imp || !c->dirty || ((flags & ARBOR_CTX_PRIVATE) && !c->pxhits)) {
        arb_rma_ctx_discard(c);
        return NULL;
    }
    c->flags = flags;
    return c;
}

void arb_rma_ctx_discard(struct arbor_ctx *c)
{
    if (!c) return;
    arb_rma_ctx_stream_free(c);
    free(c->world);
    free(c->imp);
    free(c->dirty);
    free(c->pxhits);
    free(c);
}

arbor_status_t arb_rma_ctx_attach(struct arbor_ctx *c, const int *world, int n, int me)
{
    if (!(c->world = malloc((size_t)n * sizeof(int)))) return ARBOR_ERR_NO_MEMORY;
    memcpy(c->world, world, (size_t)n * sizeof(int));
    c->magic = ARB_RMA_CTX_MAGIC;
    c->n = n;
    c->me = me;
    c->next = arb_rma_ctx_live;
    arb_rma_ctx_live = c;
    return ARBOR_OK;
}

static bool ctx_valid(const struct arbor_ctx *c)
{
    return c && c->magic == ARB_RMA_CTX_MAGIC;
}

arbor_status_t arbor_ctx_rank(arbor_ctx_h ctx, int *rank_p, int *size_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (ctx == ARBOR_CTX_DEFAULT) {
        if (rank_p) *rank_p = arb_ctx.rank;
        if (size_p) *size_p = arb_ctx.size;
        return ARBOR_OK;
    }
    if (!ctx_valid(ctx)) return ARBOR_ERR_HANDLE;
    if (rank_p) *rank_p = ctx->me;
    if (size_p) *size_p = ctx->n;
    return ARBOR_OK;
}

/* Nothing of a private context is in flight through the transport: its operations were all
 * mapped copies and CPU atomics, complete at issue. Read by its one thread only. */
static bool private_idle(const struct arbor_ctx *c)
{
    return (c->flags & ARBOR_CTX_PRIVATE) && !c->posted && !c->implicit && !c->strided;
}

arbor_status_t arbor_ctx_quiet(arbor_ctx_h ctx)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (ctx != ARBOR_CTX_DEFAULT && !ctx_valid(ctx)) return ARBOR_ERR_HANDLE;
    if (ctx == ARBOR_CTX_DEFAULT) { /* arbor_quiet */
        ARB_ENTER();
        arbor_status_t status = arb_rma_complete_to(-1);
        arb_unlock();
        return status;
    }
    if (arb_in_callback == ARB_CB_NONE && (ctx->flags & ARBOR_CTX_PRIVATE)) {
        /* The stream's operations complete without the lock (ctx_stream.c); a context that
         * never went through the transport has none (no call: mapped quiets are a few ns). */
        arbor_status_t status = ctx->cs ? arb_rma_ctx_stream_quiet(ctx) : ARBOR_OK;
        if (status != ARBOR_OK || private_idle(ctx)) {
            __atomic_thread_fence(__ATOMIC_SEQ_CST); /* arbor_fence's barrier: transfer.c */
            return status;
        }
    }
    ARB_ENTER();
    arbor_status_t status = arb_rma_ctx_complete(ctx);
    arb_unlock();
    return status;
}

arbor_status_t arbor_ctx_fence(arbor_ctx_h ctx)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (ctx == ARBOR_CTX_DEFAULT) { /* shmem_fence: arbor_order to every rank */
        ARB_ENTER();
        arbor_status_t status = ARBOR_OK;
        for (int r = 0; r < arb_ctx.size && status == ARBOR_OK; r++) status = arb_rma_order_to(r);
        arb_unlock();
        return status;
    }
    if (!ctx_valid(ctx)) return ARBOR_ERR_HANDLE;
    if (arb_in_callback == ARB_CB_NONE && (ctx->flags & ARBOR_CTX_PRIVATE)) {
        arbor_status_t status = ctx->cs ? arb_rma_ctx_stream_fence(ctx) : ARBOR_OK; /* no lock */
        if (status != ARBOR_OK || private_idle(ctx)) {
            __atomic_thread_fence(__ATOMIC_SEQ_CST);
            return status;
        }
    }
    ARB_ENTER();
    /* Mapped operations are done at issue; a transport fence orders what this context posted,
     * and packed strided puts (carried as active messages) are waited for. */
    arbor_status_t status = ctx->strided ? arb_rma_ctx_fence_packed() : ARBOR_OK;
    for (int r = 0; r < arb_ctx.size && status == ARBOR_OK; r++)
        if (ctx->dirty[r]) status = arb_tp_fence(r);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    arb_unlock();
    return status;
}

static void ctx_free(struct arbor_ctx *c)
{
    arb_rma_ctx_drop(c);
    arb_rma_ctx_stream_free(c);
    c->magic = 0;
    free(c->world);
    free(c->imp);
    free(c->dirty);
    free(c->pxhits);
    free(c);
}

arbor_status_t arbor_ctx_destroy(arbor_ctx_h *ctx_p)
{
    if (!ctx_p) return ARBOR_ERR_INVALID_ARG;
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    struct arbor_ctx *c = *ctx_p;
    if (!ctx_valid(c)) return ARBOR_ERR_HANDLE;
    /* The stream's operations without the lock, as arbor_ctx_quiet (the owner's call). */
    arbor_status_t stream_status = ARBOR_OK;
    if (c->cs && arb_in_callback == ARB_CB_NONE && (c->flags & ARBOR_CTX_PRIVATE)) {
        stream_status = arb_rma_ctx_stream_quiet(c);
        if (stream_status == ARBOR_ERR_TIMEOUT) return stream_status;
    }
    ARB_ENTER();
    arbor_status_t status = arb_rma_ctx_complete(c);
    if (status != ARBOR_ERR_TIMEOUT) {
        for (struct arbor_ctx **pp = &arb_rma_ctx_live; *pp; pp = &(*pp)->next)
            if (*pp == c) {
                *pp = c->next;
                break;
            }
        ctx_free(c);
        *ctx_p = NULL;
    }
    arb_unlock();
    return status != ARBOR_OK ? status : stream_status;
}

void arb_rma_ctx_fini(void)
{
    while (arb_rma_ctx_live) {
        struct arbor_ctx *c = arb_rma_ctx_live;
        arb_rma_ctx_live = c->next;
        ctx_free(c);
    }
}
