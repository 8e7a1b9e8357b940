/* Handles of non-blocking collectives and the ASYNC_FENCE list (coll_req.c). */
#ifndef ARB_COLL_COLL_REQ_H
#define ARB_COLL_COLL_REQ_H

#include <stdbool.h>

#include "coll/executor.h"

/* A handle for inst (and the AGGREGATE run chained to it). */
arbor_status_t arb_coll_req_new(arb_inst_t *inst, arbor_request_h *req_p);
/* An ASYNC_FENCE instance: completed by arbor_coll_fence of its team. */
arbor_status_t arb_coll_fence_add(arb_inst_t *inst);
/* arbor_coll_fence on a resolved team: waits for its ASYNC_FENCE entries (lock held). */
arbor_status_t arb_coll_fence_wait(struct arbor_team *t);
/* A blocking call that timed out leaves its instance here, reclaimed at finalize. */
void arb_coll_adopt(arb_inst_t *inst);
/* Whether any handle, fence entry or adopted instance still belongs to team. */
bool arb_coll_team_busy(const struct arbor_team *t);
/* Registers these handles as a kind of request (runtime/request.h). */
arbor_status_t arb_coll_req_register(void);

#endif /* ARB_COLL_COLL_REQ_H */
