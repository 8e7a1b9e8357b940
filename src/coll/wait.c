/*
 * Waiting for collective instances over the progress engine (wait.h). With the engine lock on,
 * a waiting loop holds it for one turn at a time (arb_wait_pause); an idle loop yields the CPU
 * when this node has more ranks than cores, and gives up with ARBOR_ERR_TIMEOUT after
 * ARBOR_TIMEOUT seconds in which nothing moved.
 */
#include "coll/wait.h"

#include "coll/team.h"
#include "coll/coll_verdict.h"
#include "runtime/doorbell.h"
#include "runtime/progress.h"
#include "coll/team_fail.h"
#include "runtime/lock.h"

/* The re-check of interrupt mode's waiting step (runtime/doorbell.h). */
static bool exec_recheck(void *arg)
{
    return arb_progress_all() > 0 || arb_inst_complete(arg);
}

/* The checks at a waiting loop's idle point, for the instance a caller waits for: a lost
 * member or a stall hook's verdict, then ARBOR_TIMEOUT counted from *since (set at the first
 * check). On a verdict the team is failed (inst cancelled) and the verdict returned. */
/* A member that finished its part and left normally (team freed, finalized) reads as lost (or
 * stopped) at once, while what it sent last may still be on its way to us or to the rank we wait
 * for: a lost peer fails the wait once nothing has moved for ARB_LOST_IDLE_US, or at the latest
 * ARB_LOST_GRACE_US after the loss was first seen (whatever else keeps moving). */
#define ARB_LOST_IDLE_US  100000.0
#define ARB_LOST_GRACE_US 1000000.0

static arbor_status_t idle_check(arb_inst_t *inst, double *since)
{
    double now = arb_now_us();
    if (*since == 0) *since = now;
    inst->idle_since = *since;
    arbor_status_t why = arb_team_stall_reason(inst->team, inst);
    if (why == ARBOR_ERR_PEER_LOST || why == ARBOR_ERR_PEER_STOPPED) {
        struct arbor_team *t = inst->team;
        if (t->lost_seen_us == 0) t->lost_seen_us = now;
        if (now - *since < ARB_LOST_IDLE_US && now - t->lost_seen_us < ARB_LOST_GRACE_US)
            return ARBOR_OK;
    }
    if (why == ARBOR_OK) {
        if (arb_ctx.cfg.timeout_s <= 0 || now - *since <= arb_ctx.cfg.timeout_s * 1e6)
            return ARBOR_OK;
        /* Returning with the instance still running would let late data land in a buffer
         * the caller frees next: cancel it and fail its team. */
        why = ARBOR_ERR_TIMEOUT;
    }
    arb_team_fail(inst->team, inst, why);
    return why;
}

/* One turn of a waiting loop. When every peer is mapped and inst is the only collective in
 * flight, its data moves by loads and stores that only inst's own advance looks at: the other
 * layers' polls (active messages, departures) then run on every 16th turn, not on each, so the
 * loop sees the peer's flag sooner. The transport keeps its turn every 64th, as in a whole turn
 * between mapped peers (runtime/progress.c). */
static int wait_turn(arb_inst_t *inst, unsigned *turns)
{
    if (!arb_ctx.all_mapped || arb_ctx.stream.active_head != inst || inst->next ||
        arb_ctx.stream.in_progress)
        return arb_progress_all();
    unsigned n = ++*turns;
    if ((n & 63) == 0) {
        arb_ctx.tp_ops->progress(arb_ctx.tp);
        arb_ctx.stream.tp_turns++;
    }
    if (!(n & 15)) return arb_progress_all();
    /* As in a whole turn: a callback run from here that calls back into arbor must not advance
     * inst again underneath this advance. */
    arb_ctx.stream.in_progress = true;
    int moved = arb_exec_advance(inst);
    arb_ctx.stream.in_progress = false;
    return moved;
}

arbor_status_t arb_exec_wait(arb_inst_t *inst)
{
    uint64_t seen = arb_ctx.stream.epoch;
    double since = 0;
    unsigned idle = 0, turns = 0;
    arb_nap_t nap = {0};

    /* inst stays valid across the pauses: one thread per handle, and nothing frees an
     * instance another thread waits for (team_fail only completes it). */
    while (!arb_inst_complete(inst)) {
        if (wait_turn(inst, &turns) || arb_ctx.stream.epoch != seen) {
            seen = arb_ctx.stream.epoch;
            idle = 0;
            since = 0;
            nap.idle_since = 0;
            arb_wait_pause(false);
            continue;
        }
        arb_wait_pause(true);
        if (!arb_bell_nap(&nap, exec_recheck, inst) && ++idle % 256) continue;
        arbor_status_t why = idle_check(inst, &since);
        if (why != ARBOR_OK) return why;
    }
    return inst->status;
}

/* The test calls keep the wait's state in the chain's head between calls. The clock is read on
 * every idle call (a vDSO read, no system call) so the verdict comes after the same time
 * however often the caller tests; the checks themselves (the lost-peer probe, the stall hook)
 * run at most once a millisecond. */
#define ARB_TEST_CHECK_US 1000

arbor_status_t arb_exec_chain_test_idle(arb_inst_t *chain, bool moved)
{
    arb_inst_t *inst = chain;
    while (inst && arb_inst_complete(inst)) inst = inst->agg_next;
    if (!inst) return ARBOR_OK;
    if (moved || chain->test_epoch != arb_ctx.stream.epoch || chain->test_idle_since == 0) {
        chain->test_epoch = arb_ctx.stream.epoch;
        chain->test_idle_since = chain->test_checked = arb_now_us();
        return ARBOR_OK;
    }
    double now = arb_now_us();
    if (now - chain->test_checked < ARB_TEST_CHECK_US) return ARBOR_OK;
    chain->test_checked = now;
    arbor_status_t why = idle_check(inst, &chain->test_idle_since);
    if (why != ARBOR_OK)
        for (arb_inst_t *x = chain; x; x = x->agg_next) arb_exec_cancel(x, why);
    return why;
}

arbor_status_t arb_exec_chain_wait(arb_inst_t *inst)
{
    for (arb_inst_t *i = inst; i; i = i->agg_next) {
        arbor_status_t status = arb_exec_wait(i);
        if (status == ARBOR_ERR_TIMEOUT) return status;
    }
    return arb_exec_chain_status(inst);
}

/* Every collective in flight, once per engine turn, in initiation order. */
static int advance_all(void)
{
    int moved = 0;
    if (__builtin_expect(arb_verdict_unsent_n != 0, 0)) moved += arb_verdict_send_unsent();
    for (arb_inst_t *i = arb_ctx.stream.active_head, *next; i; i = next) {
        next = i->next;
        moved += arb_exec_advance(i);
    }
    return moved;
}

/* No idle hook: the progress thread sees instances in flight itself (arb_ctx.stream.active_head).
 */
static const arb_progress_hook_t coll_hook = {advance_all, NULL};

arbor_status_t arb_coll_wait_register(void)
{
    return arb_progress_hook_add(&coll_hook);
}
