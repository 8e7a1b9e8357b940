/* The collective layer's registrations with the runtime (coll_init.c). */
#ifndef ARB_COLL_COLL_INIT_H
#define ARB_COLL_COLL_INIT_H

#include "arbor.h"

/* Registers the collective layer with the runtime: the collectives in flight with the progress
 * engine (init calls it after the one-sided layer registered its hook, so a turn runs one-sided
 * work first), its handles as a kind of request, and the check whether a user op is in use. */
arbor_status_t arb_coll_register(void);

#endif /* ARB_COLL_COLL_INIT_H */
