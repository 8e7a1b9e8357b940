/* Handles of non-blocking calls (request.c). */
#ifndef ARB_CORE_REQUEST_H
#define ARB_CORE_REQUEST_H

#include "core/executor.h"

arbor_status_t arb_req_new(arb_inst_t *inst, arbor_request_h *req_p);
/* A blocking call that timed out leaves its instance here, reclaimed at finalize. */
void arb_req_adopt(arb_inst_t *inst);
int arb_req_live(void);    /* handles not yet completed by test / wait */
void arb_req_cleanup(void); /* finalize: frees every remaining handle */

#endif /* ARB_CORE_REQUEST_H */
