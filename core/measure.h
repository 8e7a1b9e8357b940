/* ARBOR_LOGP_MEASURE: LogGP parameters measured once at init (measure.c). */
#ifndef ARB_CORE_MEASURE_H
#define ARB_CORE_MEASURE_H

#include "arbor.h"

/* Collective over the world team: ranks 0 and 1 measure, rank 0's values reach every rank. */
arbor_status_t arb_logp_measure(void);

#endif /* ARB_CORE_MEASURE_H */
