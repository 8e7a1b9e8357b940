/* Questions tools ask the library about itself (arbor-bench). */
#ifndef ARB_CORE_INTROSPECT_H
#define ARB_CORE_INTROSPECT_H

#include "core/coll.h"

/* Name of the algorithm the world team runs for this call; NULL if the call is invalid or
 * arbor is not initialised. */
const char *arb_chosen_algorithm_of(const arb_call_t *call);

#endif /* ARB_CORE_INTROSPECT_H */
