/* What the collective layer registers with the runtime below it (coll_init.h). */
#include "coll/coll_init.h"

#include "coll/coll_req.h"
#include "coll/executor.h"
#include "coll/wait.h"
#include "runtime/dtype.h"

arbor_status_t arb_coll_register(void)
{
    arb_op_set_in_use_check(arb_exec_op_in_use);
    arbor_status_t status = arb_coll_req_register();
    return status == ARBOR_OK ? arb_coll_wait_register() : status;
}
