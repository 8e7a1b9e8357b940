/*
 * arbor_abort: end the whole job from one rank (a Fortran error stop, a fatal client error).
 * The launcher does the killing; this process exits on its own when there is no launcher to ask.
 */
#include <stdio.h>
#include <unistd.h>

#include "runtime/context.h"

arbor_status_t arbor_abort(int code)
{
    if (code < 0 || code > 255) return ARBOR_ERR_INVALID_ARG;
    /* Output of this rank written so far should reach the user before the kill. */
    fflush(stdout);
    fflush(stderr);
    if (arb_initialized() && arb_ctx.boot && arb_ctx.boot->ops->abort)
        arb_ctx.boot->ops->abort(arb_ctx.boot, code, "arbor_abort");
    _exit(code);
}
