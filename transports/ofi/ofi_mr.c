/*
 * libfabric backend: memory registration for the core (mem_reg / mem_dereg), local descriptors
 * and remote keys, in the modes providers demand (each region registered by ofi_reg.c).
 * - FI_MR_PROV_KEY: the provider picks the key (fi_mr_key); otherwise we request unique keys.
 * - FI_MR_VIRT_ADDR: remote addresses are virtual addresses; otherwise offsets into the region
 *   (the old FI_MR_SCALABLE). A packed key carries {key, registered address}, so the side that
 *   unpacks it computes either (as UCX's packed keys carry their base).
 * - FI_MR_ENDPOINT: each region is bound to the endpoint and enabled.
 * - FI_MR_ALLOCATED: we only register allocated memory (segment, scratch, user buffers).
 * - FI_MR_LOCAL: local buffers need descriptors. Buffers in the segment or in a mem_reg'd region
 *   use theirs; others go through registered staging slots, or, when ARBOR_REG_CACHE allows,
 *   large ones through the registration cache (ofi_rcache.c: entries go stale when the memory
 *   is freed and reused, and catching that needs memory hooks or MMU-notifier support,
 *   FI_MR_MMU_NOTIFY, that we do not ask for; hence off by default). Atomic operands and
 *   results live in the contexts, which are registered too.
 */
#include "transports/ofi/ofi.h"

#include "util/log.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool covers(const arb_tp_mr_t *mr, const char *addr, size_t len)
{
    return mr->mr != NULL && addr >= mr->addr && len <= mr->len &&
           (size_t)(addr - mr->addr) <= mr->len - len;
}

bool arb_ofi_local_desc(arb_tp_t *tp, const void *addr, size_t len, void **desc_p)
{
    *desc_p = NULL;
    if (!tp->mr_local) return true;
    if (covers(&tp->seg_mr, addr, len)) {
        *desc_p = tp->seg_mr.desc;
        return true;
    }
    for (arb_tp_mr_t *mr = tp->mrs; mr != NULL; mr = mr->next) {
        if (covers(mr, addr, len)) {
            *desc_p = mr->desc;
            return true;
        }
    }
    return false;
}

static void *page_alloc(size_t len)
{
    long page = sysconf(_SC_PAGESIZE);
    void *p = NULL;

    if (page <= 0) page = 4096;
    if (posix_memalign(&p, (size_t)page, len) != 0) return NULL;
    memset(p, 0, len);
    return p;
}

arbor_status_t arb_ofi_scratch_init(arb_tp_t *tp)
{
    size_t len = ARB_OFI_NCTX * sizeof(arb_ofi_ctx_t);
    arbor_status_t status;

    tp->ctxs = page_alloc(len);
    if (tp->ctxs == NULL) {
        arb_error("%zu bytes of operation contexts: out of memory", len);
        return ARBOR_ERR_NO_MEMORY;
    }
    for (int i = ARB_OFI_NCTX - 1; i >= 0; i--) {
        tp->ctxs[i].next = tp->free_ctx;
        tp->free_ctx = &tp->ctxs[i];
    }
    if (!tp->mr_local) return ARBOR_OK;
    status = arb_ofi_reg(tp, tp->ctxs, len, FI_READ | FI_WRITE, &tp->ctx_mr);
    if (status != ARBOR_OK) return status;
    tp->stage = page_alloc((size_t)ARB_OFI_NSTAGE * ARB_OFI_STAGE_SIZE);
    if (tp->stage == NULL) {
        arb_error("staging buffers: out of memory");
        return ARBOR_ERR_NO_MEMORY;
    }
    status = arb_ofi_reg(tp, tp->stage, (size_t)ARB_OFI_NSTAGE * ARB_OFI_STAGE_SIZE,
                         FI_READ | FI_WRITE, &tp->stage_mr);
    if (status != ARBOR_OK) return status;
    tp->stage_free = (1u << ARB_OFI_NSTAGE) - 1;
    return ARBOR_OK;
}

void arb_ofi_scratch_fini(arb_tp_t *tp)
{
    arb_ofi_unreg(&tp->stage_mr);
    arb_ofi_unreg(&tp->ctx_mr);
    free(tp->stage);
    free(tp->ctxs);
    tp->stage = NULL;
    tp->ctxs = NULL;
    tp->free_ctx = NULL;
}

arbor_status_t arb_ofi_mem_reg(arb_tp_t *tp, void *addr, size_t len, arb_tp_mr_t **mr_p,
                               void **packed_p, size_t *packed_len_p)
{
    arb_tp_mr_t *mr;
    arbor_status_t status;

    if (addr == NULL || len == 0) {
        arb_error("mem_reg: empty region (%p, %zu bytes)", addr, len);
        return ARBOR_ERR_INVALID_ARG;
    }
    mr = calloc(1, sizeof(*mr));
    if (mr == NULL) return ARBOR_ERR_NO_MEMORY;
    status = arb_ofi_reg(tp, addr, len, FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE, mr);
    if (status != ARBOR_OK) {
        free(mr);
        return status;
    }
    mr->next = tp->mrs;
    tp->mrs = mr;
    *mr_p = mr;
    *packed_p = mr->packed;
    *packed_len_p = sizeof(mr->packed);
    return ARBOR_OK;
}

void arb_ofi_mem_dereg(arb_tp_t *tp, arb_tp_mr_t *mr)
{
    arb_tp_mr_t **pp;

    if (mr == NULL) return;
    for (pp = &tp->mrs; *pp != NULL && *pp != mr; pp = &(*pp)->next) continue;
    if (*pp == NULL) {
        arb_warn("mem_dereg: %p is not a registration of this transport", (void *)mr);
        return;
    }
    *pp = mr->next;
    /* cached spans of that memory go too: after deregistration the user may free it */
    arb_ofi_rc_invalidate(tp, mr->addr, mr->len);
    arb_ofi_unreg(mr);
    free(mr);
}

void arb_ofi_key_set(arb_tp_t *tp, arb_tp_rkey_t *rkey, int peer, const uint64_t packed[2],
                     uint64_t base)
{
    rkey->peer = peer;
    rkey->key = packed[0];
    rkey->addr0 = tp->mr_virt ? base : base - packed[1];
}

arbor_status_t arb_ofi_rkey_unpack(arb_tp_t *tp, int peer, const void *packed, size_t len,
                                   uint64_t base, arb_tp_rkey_t **rkey_p)
{
    uint64_t words[2];
    arb_tp_rkey_t *rkey;

    if (packed == NULL || len != sizeof(words) || tp->peers == NULL || peer < 0 ||
        peer >= tp->size) {
        arb_error("rkey_unpack: bad key (%zu bytes) or peer %d", len, peer);
        return ARBOR_ERR_INVALID_ARG;
    }
    rkey = malloc(sizeof(*rkey));
    if (rkey == NULL) return ARBOR_ERR_NO_MEMORY;
    memcpy(words, packed, sizeof(words));
    arb_ofi_key_set(tp, rkey, peer, words, base);
    tp->user_rkeys++;
    *rkey_p = rkey;
    return ARBOR_OK;
}

void arb_ofi_rkey_release(arb_tp_t *tp, arb_tp_rkey_t *rkey)
{
    if (rkey == NULL) return;
    tp->user_rkeys--;
    free(rkey);
}
