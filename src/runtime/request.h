/* Handles of non-blocking calls and the ASYNC_FENCE list (request.c). */
#ifndef ARB_CORE_REQUEST_H
#define ARB_CORE_REQUEST_H

#include <stdbool.h>

#include "coll/executor.h"

arbor_status_t arb_req_new(arb_inst_t *inst, arbor_request_h *req_p);
/* An ASYNC_FENCE instance: completed by arbor_coll_fence of its team. */
arbor_status_t arb_req_fence_add(arb_inst_t *inst);
/* arbor_coll_fence on a resolved team: waits for its ASYNC_FENCE entries (lock held). */
arbor_status_t arb_req_fence_wait(struct arbor_team *t);
/* A blocking call that timed out leaves its instance here, reclaimed at finalize. */
void arb_req_adopt(arb_inst_t *inst);
/* Whether any handle, fence entry or adopted instance still belongs to team. */
bool arb_req_team_busy(const struct arbor_team *t);
int arb_req_live(void);     /* handles not yet completed by test / wait, fence entries */
void arb_req_cleanup(void); /* finalize: frees every remaining handle */

#endif /* ARB_CORE_REQUEST_H */
