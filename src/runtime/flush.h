/*
 * The core's flush: every operation posted so far to some peers complete at its target, waited
 * for by the engine's own loop (docs/PROGRESS.md) and not inside the backend: other work keeps
 * moving, interrupt mode sleeps between tests, ARBOR_TIMEOUT bounds it, and a covered peer the
 * bootstrap knows gone ends it with ARBOR_ERR_PEER_LOST.
 */
#ifndef ARB_CORE_FLUSH_H
#define ARB_CORE_FLUSH_H

#include "arbor.h"

/* Flushes the world ranks peers[0..n) (peers NULL: every rank); what names the caller in the
 * error messages. Under the engine lock (the waits let go of it between turns). */
arbor_status_t arb_flush_peers(const int *peers, int n, const char *what);

#endif /* ARB_CORE_FLUSH_H */
