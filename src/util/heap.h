/*
 * The symmetric heap's free list: first fit with coalescing over the whole segment, in units of
 * ARB_HEAP_ALIGN bytes. Pure bookkeeping (no communication, no arbor state), so the unit test
 * drives it directly. Its code is util/heap.c, a leaf of core outside rma/, so that the
 * landing channels (coll/channel.c, used by the executor) take blocks without depending on the
 * one-sided layer. The collective common-offset search is built from two steps so that the
 * same code runs over a team (rma/mem.c) and in the unit test (several heaps in one
 * process):
 *   c = 0
 *   loop: every member contributes arb_heap_search_round(h, len, c, v)
 *         v = elementwise MAX of every member's v (an allreduce)
 *         arb_heap_search_done(v, &c, &status) -> done (status OK: offset c; or NO_MEMORY)
 * Every member's free list has [c, c + its len) free when it ends with ARBOR_OK.
 */
#ifndef ARB_CORE_RMA_HEAP_H
#define ARB_CORE_RMA_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arbor.h"

#define ARB_HEAP_ALIGN 64u
#define ARB_HEAP_NONE  UINT64_MAX /* no fit */

typedef struct {
    uint64_t off, len;
} arb_heap_ext_t;

typedef struct {
    arb_heap_ext_t *ext; /* free extents, sorted by offset, never adjacent (coalesced) */
    size_t n, cap;
    uint64_t size; /* bytes managed */
    uint64_t used; /* bytes taken */
} arb_heap_t;

/* len rounded up to the granule; ARB_HEAP_NONE when it would overflow. */
uint64_t arb_heap_round(uint64_t len);
arbor_status_t arb_heap_init(arb_heap_t *h, uint64_t size);
void arb_heap_fini(arb_heap_t *h);
/* Lowest granule-aligned offset >= from where len bytes (rounded) are free; len 0 fits at
 * from (rounded up). ARB_HEAP_NONE when nothing fits. */
uint64_t arb_heap_fit(const arb_heap_t *h, uint64_t len, uint64_t from);
/* The highest ARB_HEAP_ALIGN-aligned offset where len bytes are free, or ARB_HEAP_NONE. Local
 * allocations that ranks make in different numbers and orders (landing channel blocks) come
 * from the top, so they never move the blocks init takes from the bottom in the same order on
 * every rank, and rarely meet the common-offset search. */
uint64_t arb_heap_fit_top(const arb_heap_t *h, uint64_t len);
/* Takes [off, off + round(len)), which must lie in one free extent (ARBOR_ERR_INVALID_ARG
 * otherwise, nothing changes). len 0 takes nothing. */
arbor_status_t arb_heap_take(arb_heap_t *h, uint64_t off, uint64_t len);
/* Returns [off, off + round(len)) to the free list, merging with its neighbours. Giving back
 * space that is (partly) free already is refused (ARBOR_ERR_INVALID_ARG). */
arbor_status_t arb_heap_give(arb_heap_t *h, uint64_t off, uint64_t len);
uint64_t arb_heap_largest(const arb_heap_t *h);

/* The common-offset search (see above). v[0] = this member's lowest fit >= c (ARB_HEAP_NONE:
 * none), v[1] = ~v[0], so that a MAX over members yields the highest answer and the lowest. */
void arb_heap_search_round(const arb_heap_t *h, uint64_t len, uint64_t c, uint64_t v[2]);
/* After the MAX: true when the search is over (*status ARBOR_OK with the offset in *c, or
 * ARBOR_ERR_NO_MEMORY), false to run another round from *c. */
bool arb_heap_search_done(const uint64_t v[2], uint64_t *c, arbor_status_t *status);

#endif /* ARB_CORE_RMA_HEAP_H */
