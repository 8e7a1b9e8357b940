/*
 * The progress engine (polling mode): drive the transport, then every collective in flight in
 * initiation order. Waiting loops yield the CPU when this node has more ranks than cores, and
 * give up with ARBOR_ERR_TIMEOUT after ARBOR_TIMEOUT seconds in which nothing moved.
 */
#include <sched.h>
#include <time.h>

#include "core/executor.h"
#include "core/log.h"

double arb_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

int arb_progress_all(void)
{
    int moved = 0;
    if (arb_ctx.in_progress) return 0; /* a combine callback called back into arbor */
    arb_ctx.in_progress = true;
    arb_ctx.tp_ops->progress(arb_ctx.tp);
    for (arb_inst_t *i = arb_ctx.active_head, *next; i; i = next) {
        next = i->next;
        moved += arb_exec_advance(i);
    }
    arb_ctx.in_progress = false;
    return moved;
}

arbor_status_t arb_exec_wait(arb_inst_t *inst)
{
    uint64_t seen = arb_ctx.epoch;
    double since = 0;
    unsigned idle = 0;

    while (!inst->complete) {
        if (arb_progress_all() || arb_ctx.epoch != seen) {
            seen = arb_ctx.epoch;
            idle = 0;
            since = 0;
            continue;
        }
        if (arb_ctx.yield) sched_yield();
        if (++idle % 256) continue;
        double now = arb_now_us();
        if (since == 0) since = now;
        if (arb_ctx.cfg.timeout_s > 0 && now - since > arb_ctx.cfg.timeout_s * 1e6) {
            arb_error("%s made no progress for %g s (ARBOR_TIMEOUT); a peer may be gone or not "
                      "calling the collective", arb_coll_name(inst->coll), arb_ctx.cfg.timeout_s);
            return ARBOR_ERR_TIMEOUT;
        }
    }
    return inst->status;
}

arbor_status_t arbor_poll(void)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    arb_progress_all();
    return ARBOR_OK;
}
