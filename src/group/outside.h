/* Collective allocation outside the heap (arbor_mem_alloc_any where the heap has no room). */
#ifndef ARB_GROUP_OUTSIDE_H
#define ARB_GROUP_OUTSIDE_H

#include <stddef.h>

#include "coll/team.h"
#include "rma/rma.h"

/* Collective over @p t: every member maps @p nbytes of its own (0 allowed, may differ),
 * registers them (node-shared where the members of a node map each other) and attaches every
 * other member's registration, the addresses and descriptors exchanged in the team. The same
 * outcome on every member: ARBOR_ERR_NO_MEMORY (or the registration's error) when any member
 * could not map, register or attach. */
arbor_status_t arb_mem_outside_alloc(struct arbor_team *t, size_t nbytes, struct arbor_mem **mem_p);
/* After the free's barrier: detaches, deregisters, unmaps and destroys @p m. */
void arb_mem_outside_free(struct arbor_mem *m);

#endif /* ARB_GROUP_OUTSIDE_H */
