/* Location order of one-sided operations (order.c). */
#ifndef ARB_RMA_ORDER_H
#define ARB_RMA_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arbor.h"

/* What waits until everything outstanding to a rank (-1: every rank) is complete (the same
 * type as rma.h's fence hook). */
typedef arbor_status_t (*arb_rma_fence_fn)(int rank);

/* Location order (order.c): operations from this rank to one location of a target take effect
 * in issue order. arb_rma_order_access runs before each transport operation on [off, off + len)
 * of rank's key (write: put, accumulate, atomic), fencing when it overlaps an earlier one not
 * yet ordered; arb_rma_order_packed before each packed strided operation; reset once
 * everything to rank (-1: every rank) is complete or fenced. All are no-ops when
 * ARBOR_RMA_LOCATION_ORDER is off (or ARBOR_RMA_ORDERED fences every operation anyway). */
/* complete: what completes everything outstanding to a rank (arb_rma_complete_to), handed in
 * so that location order sits below the transfers that call it. */
arbor_status_t arb_rma_order_init(arb_rma_fence_fn complete);
void arb_rma_order_fini(void);
bool arb_rma_order_on(void);
void arb_rma_order_packed_register(arb_rma_fence_fn fn);
arbor_status_t arb_rma_order_access(int rank, uint64_t off, size_t len, bool write);
arbor_status_t arb_rma_order_packed(int rank, bool put);
void arb_rma_order_reset(int rank);

/* Location-order extents [lo, hi) (order.c, ctx_stream.c; lo >= hi: empty): whether one meets
 * [a, b), and widening one to cover [a, b). */
static inline bool arb_rma_extent_meets(uint64_t lo, uint64_t hi, uint64_t a, uint64_t b)
{
    return lo < hi && a < hi && lo < b;
}

static inline void arb_rma_extent_widen(uint64_t *lo, uint64_t *hi, uint64_t a, uint64_t b)
{
    if (*lo >= *hi) {
        *lo = a, *hi = b;
        return;
    }
    if (a < *lo) *lo = a;
    if (b > *hi) *hi = b;
}

#endif /* ARB_RMA_ORDER_H */
