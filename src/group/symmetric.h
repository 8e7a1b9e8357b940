/* Symmetric allocation over a team (symmetric.c); the allocation itself: rma/rma.h. */
#ifndef ARB_GROUP_SYMMETRIC_H
#define ARB_GROUP_SYMMETRIC_H

#include <stdbool.h>
#include <stddef.h>

#include "coll/team.h"
#include "rma/rma.h"

/* Collective over @p t: allocate @p nbytes (may differ per member, 0 allowed) at an offset
 * free on every member (heap.h's search), zero-filled and ARB_HEAP_ALIGN-aligned. ARBOR_ERR_
 * NO_MEMORY on every member when any has no room. Internal allocations get no handle. */
arbor_status_t arb_mem_alloc_team(struct arbor_team *t, size_t nbytes, bool internal,
                                  struct arbor_mem **mem_p);
/* Collective over the allocation's team: a barrier (nobody touches it any more), then the space
 * is cleared and returned to the heap. @p barrier false skips the barrier when the caller has
 * synchronised already (team free); with it, m's team must still be live (the public free
 * checks). */
arbor_status_t arb_mem_free_team(struct arbor_mem *m, bool barrier);

#endif /* ARB_GROUP_SYMMETRIC_H */
