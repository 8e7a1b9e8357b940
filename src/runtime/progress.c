/*
 * The progress engine (polling mode): drive the transport, then every collective in flight in
 * initiation order. Waiting loops yield the CPU when this node has more ranks than cores, and
 * give up with ARBOR_ERR_TIMEOUT after ARBOR_TIMEOUT seconds in which nothing moved. With the
 * engine lock on, a waiting loop holds it for one turn at a time (arb_wait_pause). Also: the
 * lock itself and the progress thread (docs/THREADS.md).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "runtime/progress.h"

#include "runtime/doorbell.h"
#include "coll/executor.h"
#include "util/log.h"
#include "rma/am.h"
#include "rma/rma.h"

int arb_progress_all(void)
{
    int moved = 0;
    if (arb_ctx.in_progress) return 0; /* a combine callback called back into arbor */
    arb_ctx.in_progress = true;
    /* Between mapped peers our data moves by loads and stores: the transport then needs only an
     * occasional turn (its own housekeeping), not one per poll. */
    if (!arb_ctx.all_mapped || (++arb_ctx.polls & 63) == 0) arb_ctx.tp_ops->progress(arb_ctx.tp);
    moved += arb_rma_poll(); /* one-sided per-poll work (active messages, implicit ops) */
    for (arb_inst_t *i = arb_ctx.active_head, *next; i; i = next) {
        next = i->next;
        moved += arb_exec_advance(i);
    }
    arb_ctx.in_progress = false;
    return moved;
}

/* One turn for the non-blocking calls (test, poll). A client spinning on them with more ranks
 * than cores would otherwise hold the core the peer it waits for needs, so an idle turn yields
 * exactly as the waiting loops do. */
int arb_progress_turn(void)
{
    int moved = arb_progress_all();
    if (!moved && arb_ctx.locking)
        arb_wait_pause(true); /* and let the thread that holds what we test for run */
    else if (!moved && arb_ctx.yield)
        sched_yield();
    return moved;
}

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
    arbor_status_t why = arb_team_stall_reason(inst->team, inst);
    double now = arb_now_us();
    if (*since == 0) *since = now;
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

arbor_status_t arb_exec_wait(arb_inst_t *inst)
{
    uint64_t seen = arb_ctx.epoch;
    double since = 0;
    unsigned idle = 0;
    arb_nap_t nap = {0};

    /* inst stays valid across the pauses: one thread per handle, and nothing frees an
     * instance another thread waits for (team_fail only completes it). */
    while (!arb_inst_complete(inst)) {
        if (arb_progress_all() || arb_ctx.epoch != seen) {
            seen = arb_ctx.epoch;
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
    if (moved || chain->test_epoch != arb_ctx.epoch || chain->test_idle_since == 0) {
        chain->test_epoch = arb_ctx.epoch;
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

arbor_status_t arbor_poll(void)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    ARB_ENTER();
    arb_progress_turn();
    arb_unlock();
    return ARBOR_OK;
}

/* ---- threads (the lock itself: runtime/lock.c) ------------------------------------------- */

arbor_status_t arb_threads_init(int level)
{
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
    int rc = pthread_mutex_init(&arb_ctx.lock, &attr);
    pthread_mutexattr_destroy(&attr);
    if (rc) return ARBOR_ERR_NO_MEMORY;
    atomic_init(&arb_ctx.lock_wanted, 0);
    atomic_init(&arb_ctx.progress_stop, false);
    arb_ctx.thread_level = level;
    arb_ctx.locking = level == ARBOR_THREAD_MULTIPLE;
    return ARBOR_OK;
}

void arb_threads_fini(void)
{
    arb_progress_thread_stop();
    arb_ctx.locking = false;
    pthread_mutex_destroy(&arb_ctx.lock);
}

/* The progress thread (ARBOR_PROGRESS=thread): advances collectives while the application is
 * elsewhere (computing, or blocked in a lock as in figure 1 of the UPC paper), and sleeps
 * while none is in flight, as the GASNet collectives note suggests.
 *
 * With no collective in flight the thread sleeps, except that while symmetric allocations
 * exist on a transport whose targets must progress for one-sided operations aimed at them
 * (docs/ONESIDED.md), or registrations of user memory exist (every transport: ONESIDED.md,
 * "Registered memory"), or active-message handlers are registered (docs/AM.md), it polls the
 * transport and the one-sided hook every ARB_PASSIVE_US: a target computing without calling
 * arbor still serves gets, puts, atomics and active messages.
 *
 * On such a transport it also drives the transport at every idle wake (ARB_IDLE_US) even with
 * nothing allocated: peers still inside a collective we have left return credits to us, and
 * those wait for our progress. On ofi:shm an initiator's completions come in posting order, so
 * one credit we never read holds back every later completion of that peer: it stalled until we
 * called arbor again (Global Arrays in ARMCI_Group_create, tests/test_split_leave.c). */
#define ARB_PASSIVE_US 100
#define ARB_IDLE_US    200

/* What the thread's sleep in interrupt mode needs from the engine (runtime/doorbell.h). */
static bool thread_recheck(void)
{
    return arb_ctx.active_head && arb_progress_all() > 0;
}
static const arb_bell_thread_hooks_t thread_hooks = {arb_lock, arb_unlock, thread_recheck};

static void *progress_main(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&arb_ctx.progress_stop, memory_order_acquire)) {
        arb_lock_take();
        bool live = arb_ctx.active_head != NULL, moved = live && arb_progress_all() > 0;
        bool serve = !live && arb_rma_target_progress_needed();
        bool passive = (serve && arb_mem_any_live()) || (!live && arb_am_active());
        if ((serve || passive) && !arb_ctx.in_progress) {
            arb_ctx.in_progress = true;
            while (arb_ctx.tp_ops->progress(arb_ctx.tp) > 0) {
            }
            if (passive) arb_rma_poll();
            arb_ctx.in_progress = false;
        }
        pthread_mutex_unlock(&arb_ctx.lock);
        if (!live || !moved)
            arb_bell_thread_nap(passive ? ARB_PASSIVE_US : ARB_IDLE_US, live, &thread_hooks);
    }
    return NULL;
}

/* Called at init, or from an entry (arb_rma_passive_check) after it let go of the lock. Below
 * MULTIPLE no other thread is inside arbor then, so turning locking on here is safe. */
arbor_status_t arb_progress_thread_start(void)
{
    bool was_locking = arb_ctx.locking;
    if (was_locking) arb_lock_take();
    bool running = arb_ctx.threaded;
    arb_ctx.threaded = true;
    if (was_locking) pthread_mutex_unlock(&arb_ctx.lock);
    if (running) return ARBOR_OK;
    atomic_store_explicit(&arb_ctx.progress_stop, false, memory_order_relaxed);
    if (!was_locking) arb_ctx.locking = true; /* no other thread is inside arbor now */
    if (pthread_create(&arb_ctx.progress_thread, NULL, progress_main, NULL)) {
        if (was_locking) arb_lock_take();
        arb_ctx.threaded = false;
        if (was_locking)
            pthread_mutex_unlock(&arb_ctx.lock);
        else
            arb_ctx.locking = false;
        arb_error("cannot start the progress thread");
        return ARBOR_ERR_NO_MEMORY;
    }
    return ARBOR_OK;
}

/* Finalize, with no other thread inside arbor. */
void arb_progress_thread_stop(void)
{
    if (!arb_ctx.threaded) return;
    atomic_store_explicit(&arb_ctx.progress_stop, true, memory_order_release);
    pthread_join(arb_ctx.progress_thread, NULL);
    arb_ctx.threaded = false;
    arb_ctx.locking = arb_ctx.thread_level == ARBOR_THREAD_MULTIPLE;
}
