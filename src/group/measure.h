/* ARBOR_LOGP_MEASURE: LogGP parameters measured once at init (measure.c). */
#ifndef ARB_CORE_MEASURE_H
#define ARB_CORE_MEASURE_H

#include "arbor.h"

/* Collective over the world team: ranks 0 and 1 measure, rank 0's values reach every rank. */
arbor_status_t arb_logp_measure(void);

/* The per-call term (logp.h: call) of ARBOR_LOGP_MEASURE, once arbor is initialised: the median
 * time of an 8-byte allreduce on a team of this rank alone (every step of a call but its
 * messages, the internal entry), rank 0's figure on every rank. Sets the model's and the measured
 * paths' call. */
arbor_status_t arb_logp_measure_call(void);

#endif /* ARB_CORE_MEASURE_H */
