/*
 * The one-sided layer's lifecycle and what it registers with the runtime: init and finalize of
 * every part (the transfers' state in transfer.c, location order, registrations, allocations,
 * contexts, active messages and what rides on them), the progress hook with its idle need and
 * the request kind. Above the parts: they never call here.
 */
#include <stdlib.h>

#include "rma/am.h"
#include "rma/rma_impl.h"
#include "runtime/progress.h"
#include "runtime/request.h"
#include "runtime/tp_call.h"
#include "util/log.h"

/* One-sided handles as a kind of request (runtime/request.h): tagged, in this layer's table. */
static const arb_req_kind_t rma_kind = {
    .owns = arb_rma_req_is,
    .valid = arb_rma_req_valid,
    .complete = arb_rma_req_done,
    .wait = arb_rma_req_wait,
    .test_idle = arb_rma_req_test_idle,
    .release = arb_rma_req_release,
    .live = arb_rma_req_live,
};

/* What the progress thread does for the one-sided layer while no collective is in flight
 * (runtime/progress.h): active-message handlers, or symmetric allocations on a transport whose
 * targets must progress, want this layer polled; such a transport with nothing allocated wants
 * the transport driven, for the credits of peers still inside a collective we have left. */
static arb_idle_t rma_idle(void)
{
    if (arb_am_active()) return ARB_IDLE_POLL;
    if (!arb_rma_target_progress_needed()) return ARB_IDLE_SLEEP;
    return arb_mem_any_live() ? ARB_IDLE_POLL : ARB_IDLE_SERVE;
}

static const arb_progress_hook_t rma_hook = {arb_rma_poll, rma_idle};

arbor_status_t arb_rma_init(void)
{
    arbor_status_t status = arb_heap_init(&arb_ctx.heap, arb_ctx.seg_size);
    if (status != ARBOR_OK) return status;
    if ((status = arb_progress_hook_add(&rma_hook)) != ARBOR_OK) return status;
    if ((status = arb_req_kind_add(&rma_kind)) != ARBOR_OK) return status;
    if ((status = arb_rma_state_init()) != ARBOR_OK) return status;
    return arb_rma_order_init(arb_rma_complete_to);
}

arbor_status_t arb_rma_init_world(void)
{
    int P = arb_ctx.size;
    /* The notification counters: the same block of every heap (init takes the same blocks in
     * the same order everywhere). */
    arbor_status_t status =
        arb_mem_take_local((uint64_t)(P + 1) * sizeof(uint64_t), &arb_rma.notify_off);
    if (status != ARBOR_OK) {
        arb_error("no room in the segment for %d notification counters", P);
        return status;
    }
    arb_rma.notify = (uint64_t *)(arb_ctx.seg + arb_rma.notify_off);
    arb_rma.lock_off = arb_rma.notify_off + (uint64_t)P * sizeof(uint64_t); /* after them */
    return ARBOR_OK;
}

bool arb_rma_mapped_here(void)
{
    bool mapped = true;
    for (int r = 0; r < arb_ctx.size; r++) mapped &= arb_rma.peer_seg[r] != NULL;
    return mapped;
}

bool arb_rma_maps_all(const int *world, int n)
{
    if (!arb_rma.cpu_amo_capable) return false;
    for (int i = 0; i < n; i++)
        if (world[i] < 0 || world[i] >= arb_ctx.size || !arb_rma.peer_seg[world[i]]) return false;
    return true;
}

/* The job's atomics rule (docs/ONESIDED.md): CPU atomics where every rank maps every
 * other's segment (one node), and then no atomic on a segment word goes through the
 * transport; else every atomic, even to self, goes through the transport, except on an
 * allocation whose members all map each other (arb_rma_cpu_amo): no other rank can address
 * its words. So the CPU's
 * and the provider's atomics never meet on one word: libfabric's software providers (shm,
 * tcp;ofi_rxm, sockets) apply atomics in the target's progress and UCX emulates them with
 * messages on the core's registered memory, and neither promises atomicity against loads
 * and CPU atomics of other processes. The segment is the core's (runtime/segment.h) on every
 * transport, so a transport without CPU atomics of its own (OFI) takes this path as well;
 * with a segment the transport allocated (ARBOR_DIRECT=n) only UCX's mapping could. */
void arb_rma_set_mapping(void)
{
    bool all_mapped = arb_ctx.mapped_everywhere;
    bool cpu_amo = arb_tp_has(ARB_TP_CAP_MAPPED_CPU_AMO) || arb_ctx.seg_owned;
    arb_rma.all_mapped = all_mapped;
    arb_rma.cpu_amo_capable = cpu_amo;
    arb_rma.cpu_atomics = cpu_amo && all_mapped;
    arb_rma.target_progress = !cpu_amo || !all_mapped;
    arb_debug("one-sided: %s atomics, targets %s their own progress",
              arb_rma.cpu_atomics ? "CPU" : "transport",
              arb_rma.target_progress ? "need" : "do not need");
}

void arb_rma_fini(void)
{
    arb_reg_cleanup();
    arb_mem_cleanup();
    arb_heap_fini(&arb_ctx.heap);
    arb_rma_req_table_fini();
    arb_rma_ctx_fini();
    arb_rma_order_fini();
    arb_rma_state_fini();
}

/* Active messages with what rides on them: the strided pack path and the registration
 * exchange (am_strided.c, reg.c), set up and torn down around the mailbox (am.c). */
arbor_status_t arb_am_init(void)
{
    arbor_status_t st = arb_am_mailbox_init();
    if (st != ARBOR_OK) return st;
    arb_am_strided_init();
    arb_reg_am_init();
    return ARBOR_OK;
}

void arb_am_fini(void)
{
    if (arb_am_ready()) arb_am_strided_fini();
    arb_am_mailbox_fini();
}
