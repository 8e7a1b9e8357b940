/*
 * UCX backend: what every posting file shares (ucx_rma.c, ucx_am.c, ucx_mem.c, ucx_flush.c,
 * ucx_context.c): UCX's status as ours, the accounting of what a *_nbx call returned, and the
 * pool of atomic contexts (an atomic's operand and reply, and its comp, live there until it
 * completes). Apart from the operations, so that one-sided operations and active messages
 * depend on it and not on each other.
 */
#include "transports/ucx/ucx.h"

#include "util/log.h"

#include <stdlib.h>

arbor_status_t arb_ucx_status(ucs_status_t status)
{
    switch (status) {
    case UCS_OK:
        return ARBOR_OK;
    case UCS_ERR_NO_RESOURCE:
        return ARB_ERR_AGAIN;
    case UCS_ERR_NO_MEMORY:
        return ARBOR_ERR_NO_MEMORY;
    case UCS_ERR_INVALID_PARAM:
        return ARBOR_ERR_INVALID_ARG;
    case UCS_ERR_UNSUPPORTED:
        return ARBOR_ERR_UNSUPPORTED;
    case UCS_ERR_TIMED_OUT:
        return ARBOR_ERR_TIMEOUT;
    case UCS_ERR_CONNECTION_RESET:
    case UCS_ERR_ENDPOINT_TIMEOUT:
        return ARBOR_ERR_PEER_LOST;
    default:
        return ARBOR_ERR_TRANSPORT;
    }
}

arbor_status_t arb_ucx_posted(ucs_status_ptr_t req, arb_tp_comp_t *comp, const char *what, int peer)
{
    if (req == NULL) return ARBOR_OK;
    if (UCS_PTR_IS_ERR(req)) {
        if (UCS_PTR_STATUS(req) != UCS_ERR_NO_RESOURCE)
            arb_error("%s to peer %d failed: %s", what, peer,
                      ucs_status_string(UCS_PTR_STATUS(req)));
        return arb_ucx_status(UCS_PTR_STATUS(req));
    }
    if (comp != NULL)
        arb_tp_comp_begin(comp);
    else
        ucp_request_free(req); /* fire and forget: flush completes it */
    return ARBOR_OK;
}

arb_ucx_amo_ctx_t *arb_ucx_amo_ctx_get(arb_tp_t *tp)
{
    arb_ucx_amo_ctx_t *ctx = tp->free_amo;

    if (ctx != NULL)
        tp->free_amo = ctx->next;
    else if ((ctx = malloc(sizeof(*ctx))) == NULL)
        return NULL;
    ctx->tp = tp;
    ctx->comp = NULL;
    return ctx;
}

void arb_ucx_amo_ctx_put(arb_ucx_amo_ctx_t *ctx, ucs_status_t status)
{
    arb_tp_t *tp = ctx->tp;

    if (ctx->comp != NULL) {
        if (status != UCS_OK) ctx->comp->status = arb_ucx_status(status);
        arb_tp_comp_end(ctx->comp);
    }
    ctx->next = tp->free_amo;
    tp->free_amo = ctx;
}

void arb_ucx_amo_ctx_free_all(arb_tp_t *tp)
{
    arb_ucx_amo_ctx_t *ctx;

    while ((ctx = tp->free_amo) != NULL) {
        tp->free_amo = ctx->next;
        free(ctx);
    }
}
