/*
 * Location consistency: operations from this rank to one location of a target take effect
 * there in the order this rank issued them, with no fence between them (ARMCI's location
 * consistency, on which Global Arrays relies when it reads back what it just accumulated; MPI's
 * default accumulate ordering). Transports order nothing by themselves: a libfabric provider
 * may apply an atomic before an earlier write, and UCX sends puts and atomics on different
 * lanes. A fence before every operation would cost a round trip each and stop a stream of puts
 * to different places from pipelining, so per target the one-sided layer keeps two extents
 * (the range from the lowest to the highest byte) of the transport operations issued since
 * its last fence: what was written (put, accumulate, atomic) and what was read (get). An
 * operation whose range meets the written extent, or a write whose range meets the read
 * extent, is preceded by a transport fence to that target (arb_tp_fence: the later operation
 * starts after the earlier ones are done; lazy on libfabric, where it costs nothing when
 * nothing is in flight) and the extents start again empty. Operations that do not overlap,
 * streams in ascending order among them, never fence.
 *
 * Offsets are those of the operation's remote key (the segment, or one registration): two
 * registrations' offsets may coincide, which only costs a fence that was not needed.
 *
 * Mapped targets need nothing: their puts, gets and CPU atomics are done at issue. Packed
 * strided puts (active messages, rma/am_strided.c) are applied by the target's handler
 * whenever it polls, after everything earlier in its request ring, and the ring itself may be
 * written by mapping (UCX on one node) where no transport fence reaches: a packed operation
 * waits until the transport operations to the target not yet ordered are complete there, and
 * after a packed put the next transport operation to that target waits until the put has run
 * (without an address: a packed put covers a strided pattern).
 */
#include "rma/order.h"

#include <stdlib.h>

#include "runtime/context.h"
#include "runtime/tp_call.h"

typedef struct {
    uint64_t wlo, whi; /* written since the last fence: [wlo, whi), empty when wlo >= whi */
    uint64_t rlo, rhi; /* read since the last fence */
    bool packed;       /* a packed put may not have run at the target yet */
} extents_t;

static extents_t *ext; /* [arb_ctx.size], NULL when location order is off */
static arb_rma_fence_fn packed_wait;
static arb_rma_fence_fn complete_to; /* the transfers' completion toward a target (transfer.c) */

arbor_status_t arb_rma_order_init(arb_rma_fence_fn complete)
{
    complete_to = complete;
    if (!arb_ctx.cfg.rma_location_order || arb_ctx.cfg.rma_ordered) return ARBOR_OK;
    ext = calloc((size_t)arb_ctx.size, sizeof(*ext));
    return ext ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
}

bool arb_rma_order_on(void)
{
    return ext != NULL;
}

void arb_rma_order_fini(void)
{
    free(ext);
    ext = NULL;
    packed_wait = NULL;
}

void arb_rma_order_packed_register(arb_rma_fence_fn fn)
{
    packed_wait = fn;
}

void arb_rma_order_reset(int rank)
{
    if (!ext) return;
    int lo = rank < 0 ? 0 : rank, hi = rank < 0 ? arb_ctx.size : rank + 1;
    for (int r = lo; r < hi; r++) {
        ext[r].wlo = ext[r].whi = ext[r].rlo = ext[r].rhi = 0;
        ext[r].packed = false;
    }
}

arbor_status_t arb_rma_order_access(int rank, uint64_t off, size_t len, bool write)
{
    if (!ext || (unsigned)rank >= (unsigned)arb_ctx.size || len == 0) return ARBOR_OK;
    extents_t *e = &ext[rank];
    const uint64_t end = off + len;
    arbor_status_t st = ARBOR_OK;
    if (e->packed) {
        if (packed_wait && (st = packed_wait(rank)) != ARBOR_OK) return st;
        e->packed = false;
    }
    if (arb_rma_extent_meets(e->wlo, e->whi, off, end) ||
        (write && arb_rma_extent_meets(e->rlo, e->rhi, off, end))) {
        if ((st = arb_tp_fence(rank)) != ARBOR_OK) return st;
        e->wlo = e->whi = e->rlo = e->rhi = 0;
    }
    if (write)
        arb_rma_extent_widen(&e->wlo, &e->whi, off, end);
    else
        arb_rma_extent_widen(&e->rlo, &e->rhi, off, end);
    return ARBOR_OK;
}

arbor_status_t arb_rma_order_packed(int rank, bool put)
{
    if (!ext || (unsigned)rank >= (unsigned)arb_ctx.size) return ARBOR_OK;
    extents_t *e = &ext[rank];
    if (e->wlo < e->whi || (put && e->rlo < e->rhi)) {
        /* The request ring may be reached by mapping (UCX on one node), which no transport
         * fence orders: what is outstanding to rank completes first. */
        arbor_status_t st = complete_to(rank);
        if (st != ARBOR_OK) return st;
        e->wlo = e->whi = e->rlo = e->rhi = 0;
    }
    if (put) e->packed = true;
    return ARBOR_OK;
}
