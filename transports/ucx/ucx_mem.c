/*
 * UCX backend: registration of memory other than the segment (ucp_mem_map without ALLOCATE) and
 * remote keys of such memory. On shared memory UCX serves these with software emulation that
 * needs the target's progress (docs/TRANSPORTS.md); the segment is the fast path.
 */
#include "transports/ucx/ucx.h"

#include "util/log.h"

#include <stdlib.h>

arbor_status_t arb_ucx_mem_reg(arb_tp_t *tp, void *addr, size_t len, arb_tp_mr_t **mr_p,
                               void **packed_p, size_t *packed_len_p)
{
    ucp_mem_map_params_t params = {0};
    arb_tp_mr_t *mr;
    ucs_status_t status;

    if (addr == NULL || len == 0) {
        arb_error("mem_reg: empty region (%p, %zu bytes)", addr, len);
        return ARBOR_ERR_INVALID_ARG;
    }
    mr = calloc(1, sizeof(*mr));
    if (mr == NULL) return ARBOR_ERR_NO_MEMORY;
    params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
    params.address = addr;
    params.length = len;
    status = ucp_mem_map(tp->context, &params, &mr->memh);
    if (status != UCS_OK) {
        arb_error("mem_reg of %zu bytes at %p: ucp_mem_map failed: %s", len, addr,
                  ucs_status_string(status));
        goto err_free;
    }
    status = ucp_rkey_pack(tp->context, mr->memh, &mr->packed, &mr->packed_len);
    if (status != UCS_OK) {
        arb_error("mem_reg: ucp_rkey_pack failed: %s", ucs_status_string(status));
        goto err_unmap;
    }
    mr->addr = addr;
    mr->len = len;
    mr->next = tp->mrs;
    tp->mrs = mr;
    *mr_p = mr;
    *packed_p = mr->packed;
    *packed_len_p = mr->packed_len;
    return ARBOR_OK;
err_unmap:
    ucp_mem_unmap(tp->context, mr->memh);
err_free:
    free(mr);
    return arb_ucx_status(status);
}

void arb_ucx_mem_dereg(arb_tp_t *tp, arb_tp_mr_t *mr)
{
    ucs_status_t status;

    if (mr == NULL) return;
    for (arb_tp_mr_t **p = &tp->mrs; *p != NULL; p = &(*p)->next)
        if (*p == mr) {
            *p = mr->next;
            break;
        }
    ucp_rkey_buffer_release(mr->packed);
    status = ucp_mem_unmap(tp->context, mr->memh);
    if (status != UCS_OK)
        arb_warn("mem_dereg: ucp_mem_unmap failed: %s", ucs_status_string(status));
    free(mr);
}

arbor_status_t arb_ucx_rkey_unpack(arb_tp_t *tp, int peer, const void *packed, size_t len,
                                   uint64_t base, arb_tp_rkey_t **rkey_p)
{
    arb_tp_rkey_t *key;
    ucs_status_t status;

    if (tp->eps == NULL || peer < 0 || peer >= tp->size || packed == NULL || len == 0) {
        arb_error("rkey_unpack: bad arguments (peer %d, %zu bytes, connected %d)", peer, len,
                  tp->eps != NULL);
        return ARBOR_ERR_INVALID_ARG;
    }
    key = calloc(1, sizeof(*key));
    if (key == NULL) return ARBOR_ERR_NO_MEMORY;
    status = ucp_ep_rkey_unpack(tp->eps[peer], packed, &key->rkey);
    if (status != UCS_OK) {
        arb_error("peer %d: ucp_ep_rkey_unpack failed: %s", peer, ucs_status_string(status));
        free(key);
        return arb_ucx_status(status);
    }
    key->ep = tp->eps[peer];
    key->base = base;
    key->peer = peer;
    key->emulated = true;
    tp->user_rkeys++;
    *rkey_p = key;
    return ARBOR_OK;
}

void arb_ucx_rkey_release(arb_tp_t *tp, arb_tp_rkey_t *rkey)
{
    if (rkey == NULL) return;
    ucp_rkey_destroy(rkey->rkey);
    tp->user_rkeys--;
    free(rkey);
}
