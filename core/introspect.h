/* Questions tools ask the library about itself (arbor-bench, arbor-info). */
#ifndef ARB_CORE_INTROSPECT_H
#define ARB_CORE_INTROSPECT_H

#include <stddef.h>

#include "algorithms/coll.h"

/* Name of the algorithm the world team runs for (coll, bytes, root); NULL if not initialised. */
const char *arb_chosen_algorithm(arb_coll_t coll, size_t bytes, int root);

#endif /* ARB_CORE_INTROSPECT_H */
