/*
 * libfabric backend: the triggered offload hook (coll/offload.h, docs/OFFLOAD.md). Three small
 * regions of registered memory, each registered on its own with FI_RMA_EVENT and a counter
 * bound to it (fi_mr_bind FI_REMOTE_WRITE), so that a counter counts only the writes peers make
 * into its region: never the put-with-signal and credit traffic of the software path, which
 * goes to the segment. A triggered write (fi_writemsg FI_TRIGGER with a threshold on one of
 * those counters) then fires inside the provider, with no call of ours; that needs the
 * provider's automatic progress (tests/probe_trigger.c: sockets fires nothing under manual
 * progress), which ofi_select.c asks for only in ARBOR_OFFLOAD=triggered.
 *
 * Every rank registers the regions with the same keys (ARB_OFI_TRIG_KEY + i) and addresses
 * them by offset, so peers need no exchange: a provider that picks keys (FI_MR_PROV_KEY) or
 * addresses by virtual address (FI_MR_VIRT_ADDR) gets no ARB_TP_CAP_TRIGGERED.
 */
#include "transports/ofi/ofi.h"

#include "util/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ARB_OFI_TRIG_KEY 0x7472690000ull /* far above the keys ofi_mr.c hands out */

/* Region sizes: broadcast payloads (one landing slot), barrier signals, acknowledgements. */
static const size_t region_size[ARB_TP_TRIG_REGIONS] = {64u << 10, 4096, 4096};

struct arb_ofi_trig {
    char *mem;
    size_t len;
    size_t off[ARB_TP_TRIG_REGIONS];
    struct fid_mr *mr[ARB_TP_TRIG_REGIONS];
    struct fid_cntr *cntr[ARB_TP_TRIG_REGIONS];
};

static const char *why_not(const arb_tp_t *tp)
{
    const struct fi_info *info = tp->info;
    if (!(info->caps & FI_TRIGGER)) return "no FI_TRIGGER";
    if (!(info->caps & FI_RMA_EVENT)) return "no FI_RMA_EVENT (counters of remote writes)";
    if (info->domain_attr->data_progress != FI_PROGRESS_AUTO)
        return "no automatic data progress (triggered writes would wait for our calls)";
    if (tp->mr_prov || tp->mr_virt)
        return "keys or virtual addresses chosen by the provider (FI_MR_PROV_KEY / "
               "FI_MR_VIRT_ADDR): the regions would need an exchange";
    return NULL;
}

arbor_status_t arb_ofi_trig_open(arb_tp_t *tp)
{
    if (!(tp->offload_want & ARB_TP_CAP_TRIGGERED)) return ARBOR_OK;
    const char *why = why_not(tp);
    if (why != NULL) {
        arb_debug("%s: no triggered operations: %s", tp->describe, why);
        return ARBOR_OK;
    }
    struct arb_ofi_trig *t = calloc(1, sizeof(*t));
    if (t == NULL) return ARBOR_ERR_NO_MEMORY;
    tp->trig = t;
    for (int i = 0; i < ARB_TP_TRIG_REGIONS; i++) {
        t->off[i] = t->len;
        t->len += region_size[i];
    }
    t->mem = mmap(NULL, t->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (t->mem == MAP_FAILED) {
        t->mem = NULL;
        arb_error("triggered regions: mmap: %s", strerror(errno));
        return ARBOR_ERR_NO_MEMORY;
    }
    for (int i = 0; i < ARB_TP_TRIG_REGIONS; i++) {
        struct fi_cntr_attr attr = {0};
        const char *what = "fi_cntr_open";
        attr.events = FI_CNTR_EVENTS_COMP;
        int rc = fi_cntr_open(tp->domain, &attr, &t->cntr[i], NULL);
        if (rc == 0) {
            what = "fi_mr_reg";
            rc = fi_mr_reg(tp->domain, t->mem + t->off[i], region_size[i],
                           FI_WRITE | FI_REMOTE_WRITE, 0, ARB_OFI_TRIG_KEY + (uint64_t)i,
                           FI_RMA_EVENT, &t->mr[i], NULL);
        }
        if (rc == 0) {
            what = "fi_mr_bind (counter)";
            rc = fi_mr_bind(t->mr[i], &t->cntr[i]->fid, FI_REMOTE_WRITE);
        }
        if (rc != 0) {
            arb_error("%s: triggered region %d: %s: %s", tp->describe, i, what, fi_strerror(-rc));
            return ARBOR_ERR_TRANSPORT;
        }
    }
    tp->caps |= ARB_TP_CAP_TRIGGERED;
    return ARBOR_OK;
}

void arb_ofi_trig_close(arb_tp_t *tp)
{
    struct arb_ofi_trig *t = tp->trig;
    if (t == NULL) return;
    for (int i = 0; i < ARB_TP_TRIG_REGIONS; i++) {
        if (t->mr[i]) fi_close(&t->mr[i]->fid);
        if (t->cntr[i]) fi_close(&t->cntr[i]->fid);
    }
    if (t->mem) munmap(t->mem, t->len);
    free(t);
    tp->trig = NULL;
}

void *arb_ofi_trig_region(arb_tp_t *tp, int region, size_t *len_p)
{
    if (tp->trig == NULL || region < 0 || region >= ARB_TP_TRIG_REGIONS) return NULL;
    *len_p = region_size[region];
    return tp->trig->mem + tp->trig->off[region];
}

uint64_t arb_ofi_trig_count(arb_tp_t *tp, int region)
{
    if (tp->trig == NULL || region < 0 || region >= ARB_TP_TRIG_REGIONS) return 0;
    return fi_cntr_read(tp->trig->cntr[region]);
}

arbor_status_t arb_ofi_trig_post(arb_tp_t *tp, const arb_tp_trig_op_t *op, arb_tp_comp_t *comp)
{
    struct arb_ofi_trig *t = tp->trig;
    if (t == NULL || op->region < 0 || op->region >= ARB_TP_TRIG_REGIONS || op->gate < 0 ||
        op->gate >= ARB_TP_TRIG_REGIONS || op->len == 0 ||
        op->off + op->len > region_size[op->region] || op->peer < 0 || op->peer >= tp->size)
        return ARBOR_ERR_INVALID_ARG;
    struct fi_triggered_context *ctx = arb_ofi_coll_ctx(tp, comp);
    if (ctx == NULL) return ARB_ERR_AGAIN;
    struct iovec iov = {.iov_base = t->mem + t->off[op->region] + op->off, .iov_len = op->len};
    void *desc = fi_mr_desc(t->mr[op->region]);
    struct fi_rma_iov riov = {
        .addr = op->off, .len = op->len, .key = ARB_OFI_TRIG_KEY + (uint64_t)op->region};
    struct fi_msg_rma msg = {.msg_iov = &iov,
                             .desc = &desc,
                             .iov_count = 1,
                             .addr = tp->peers[op->peer].addr,
                             .rma_iov = &riov,
                             .rma_iov_count = 1,
                             .context = ctx};
    uint64_t flags = FI_DELIVERY_COMPLETE;
    if (op->threshold > 0) {
        ctx->event_type = FI_TRIGGER_THRESHOLD;
        ctx->trigger.threshold.cntr = t->cntr[op->gate];
        ctx->trigger.threshold.threshold = (size_t)op->threshold;
        flags |= FI_TRIGGER;
    }
    ssize_t rc = fi_writemsg(tp->ep, &msg, flags);
    if (rc == 0) return ARBOR_OK;
    arb_ofi_coll_ctx_drop(tp, ctx);
    if (rc == -FI_EAGAIN) return ARB_ERR_AGAIN;
    arb_error("%s: triggered write to rank %d: %s", tp->describe, op->peer, fi_strerror((int)-rc));
    return ARBOR_ERR_TRANSPORT;
}
