/*
 * Active messages over one-sided operations only (core/rma/am.c; design in docs/AM.md): a
 * request ring and a reply ring per rank in the segment, taken at init at the same offset on
 * every rank, served by a per-poll hook of the progress engine.
 */
#ifndef ARB_CORE_RMA_AM_H
#define ARB_CORE_RMA_AM_H

#include <stdbool.h>

#include "arbor.h"

/* After arb_rma_init_world: takes the mailbox (no communication) and registers the hook. */
arbor_status_t arb_am_init(void);
/* Before arb_rma_fini: unregisters the hook, returns the mailbox, forgets the handlers. */
void arb_am_fini(void);
/* Handlers are registered: the progress thread must keep polling for requests. */
bool arb_am_active(void);

#endif /* ARB_CORE_RMA_AM_H */
