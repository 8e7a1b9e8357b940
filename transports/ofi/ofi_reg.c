/*
 * libfabric backend: registering one region with the provider, in the modes it demands
 * (FI_MR_PROV_KEY: its key, else one of ours; FI_MR_ENDPOINT: bound to the endpoint and
 * enabled), and the packed key {key, registered address} peers unpack (ofi_mr.c). The one
 * primitive under the segment, the scratch memory, mem_reg and the registration cache, apart
 * from all of them so that they depend on it and not on each other.
 */
#include "transports/ofi/ofi.h"

#include "util/log.h"

arbor_status_t arb_ofi_reg(arb_tp_t *tp, void *addr, size_t len, uint64_t access, arb_tp_mr_t *mr)
{
    uint64_t key = tp->mr_prov ? 0 : tp->next_key++;
    int rc;

    rc = fi_mr_reg(tp->domain, addr, len, access, 0, key, 0, &mr->mr, NULL);
    if (rc != 0) {
        mr->mr = NULL;
        arb_error("fi_mr_reg of %zu bytes at %p: %s", len, addr, fi_strerror(-rc));
        return rc == -FI_ENOMEM ? ARBOR_ERR_NO_MEMORY : ARBOR_ERR_TRANSPORT;
    }
    if (tp->mr_ep) {
        rc = fi_mr_bind(mr->mr, &tp->ep->fid, 0);
        if (rc == 0) rc = fi_mr_enable(mr->mr);
        if (rc != 0) {
            arb_error("FI_MR_ENDPOINT: binding %zu bytes at %p to the endpoint: %s", len, addr,
                      fi_strerror(-rc));
            arb_ofi_unreg(mr);
            return ARBOR_ERR_TRANSPORT;
        }
    }
    mr->addr = addr;
    mr->len = len;
    mr->desc = fi_mr_desc(mr->mr);
    mr->packed[0] = fi_mr_key(mr->mr);
    mr->packed[1] = (uint64_t)(uintptr_t)addr;
    if (mr->packed[0] == FI_KEY_NOTAVAIL) {
        arb_error("fi_mr_key: the key of %zu bytes at %p needs FI_MR_RAW, which we do not ask for",
                  len, addr);
        arb_ofi_unreg(mr);
        return ARBOR_ERR_TRANSPORT;
    }
    return ARBOR_OK;
}

void arb_ofi_unreg(arb_tp_mr_t *mr)
{
    int rc;

    if (mr->mr == NULL) return;
    rc = fi_close(&mr->mr->fid);
    if (rc != 0) arb_warn("closing a memory region at %p: %s", (void *)mr->addr, fi_strerror(-rc));
    mr->mr = NULL;
}
