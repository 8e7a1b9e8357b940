/* Whether cross-memory attach works between the ranks (cma_probe.c; the path itself:
 * runtime/cma.h). */
#ifndef ARB_GROUP_CMA_PROBE_H
#define ARB_GROUP_CMA_PROBE_H

#include "arbor.h"

/* Probes and agrees at init (a collective over the world team, after it exists). Never fails
 * for a refusal (that only turns the path off); fails for a failed exchange. */
arbor_status_t arb_cma_init(void);

#endif /* ARB_GROUP_CMA_PROBE_H */
