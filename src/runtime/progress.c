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

#include "runtime/context.h"
#include "runtime/lock.h"
#include "runtime/doorbell.h"
#include "util/log.h"

/* The layers above register what the engine drives for them (progress.h); a turn runs them in
 * registration order, which init fixes: the one-sided layer's per-poll work, then the
 * collectives in flight. */
enum { ARB_PROGRESS_HOOKS_MAX = 8 };
static const arb_progress_hook_t *hooks[ARB_PROGRESS_HOOKS_MAX];
static int nhooks;

arbor_status_t arb_progress_hook_add(const arb_progress_hook_t *hook)
{
    if (!hook || !hook->poll) return ARBOR_ERR_INVALID_ARG;
    for (int i = 0; i < nhooks; i++)
        if (hooks[i] == hook) return ARBOR_OK; /* a second init registers nothing new */
    if (nhooks == ARB_PROGRESS_HOOKS_MAX) return ARBOR_ERR_NO_MEMORY;
    hooks[nhooks++] = hook;
    return ARBOR_OK;
}

int arb_progress_all(void)
{
    int moved = 0;
    if (arb_ctx.stream.in_progress) return 0; /* a combine callback called back into arbor */
    arb_ctx.stream.in_progress = true;
    /* Between mapped peers our data moves by loads and stores: the transport then needs only an
     * occasional turn (its own housekeeping), not one per poll. */
    if (!arb_ctx.all_mapped || (++arb_ctx.stream.polls & 63) == 0) {
        arb_ctx.tp_ops->progress(arb_ctx.tp);
        arb_ctx.stream.tp_turns++;
    }
    for (int i = 0; i < nhooks; i++) moved += hooks[i]->poll();
    arb_ctx.stream.in_progress = false;
    return moved;
}

/* What the registered layers need from the progress thread while nothing is in flight: the
 * most any of them asks; *poll_p marks the hooks whose poll the thread runs then. */
static arb_idle_t idle_need(bool *poll_p)
{
    arb_idle_t need = ARB_IDLE_SLEEP;
    for (int i = 0; i < nhooks; i++) {
        arb_idle_t n = hooks[i]->idle ? hooks[i]->idle() : ARB_IDLE_SLEEP;
        poll_p[i] = n == ARB_IDLE_POLL;
        if (n > need) need = n;
    }
    return need;
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
 * With no collective in flight the thread sleeps, except that a registered hook may ask it to
 * poll the transport and that hook every ARB_PASSIVE_US (the one-sided layer does while
 * symmetric allocations exist on a transport whose targets must progress for one-sided
 * operations aimed at them, docs/ONESIDED.md, or registrations of user memory exist, or
 * active-message handlers are registered, docs/AM.md): a target computing without calling
 * arbor still serves gets, puts, atomics and active messages.
 *
 * A hook may also ask for the transport alone at every idle wake (ARB_IDLE_US: the one-sided
 * layer on such a transport, even with nothing allocated): peers still inside a collective we have
 * left return credits to us, and those wait for our progress. On ofi:shm an initiator's completions
 * come in posting order, so one credit we never read holds back every later completion of that
 * peer: it stalled until we called arbor again (Global Arrays in ARMCI_Group_create,
 * tests/test_split_leave.c).
 *
 * The passive polls back off: each one that finds nothing to do doubles the nap, up to
 * ARB_PASSIVE_MAX_US, and one that serves something brings it back to ARB_PASSIVE_US; a poll is
 * skipped (and counts as finding nothing) when the application drove the transport itself since
 * the last one, as it does in every wait. A wake costs its process a context switch and the
 * lock: at a fixed 100 us, on a node with fewer free cores than threads, the wakes of a job
 * whose targets were idle or inside arbor anyway slowed OpenSHMEM's mapped large puts and small
 * collectives (clients/shmem/README.md has the figures). A target that computes without
 * calling arbor still serves a peer's first operation within ARB_PASSIVE_MAX_US and the ones
 * that follow it within ARB_PASSIVE_US. */
#define ARB_PASSIVE_US     100
#define ARB_PASSIVE_MAX_US 1000
#define ARB_IDLE_US        200

/* What the thread's sleep in interrupt mode needs from the engine (runtime/doorbell.h). */
static bool thread_recheck(void)
{
    return arb_ctx.stream.active_head && arb_progress_all() > 0;
}
static const arb_bell_thread_hooks_t thread_hooks = {arb_lock, arb_unlock, thread_recheck};

static void *progress_main(void *arg)
{
    (void)arg;
    unsigned passive_us = ARB_PASSIVE_US, seen_tp_turns = 0;
    while (!atomic_load_explicit(&arb_ctx.progress_stop, memory_order_acquire)) {
        arb_lock_take();
        bool live = arb_ctx.stream.active_head != NULL, moved = live && arb_progress_all() > 0;
        bool poll[ARB_PROGRESS_HOOKS_MAX] = {false};
        arb_idle_t need = live ? ARB_IDLE_SLEEP : idle_need(poll);
        bool passive = need == ARB_IDLE_POLL, served = false;
        bool driven = arb_ctx.stream.tp_turns != seen_tp_turns;
        if (need != ARB_IDLE_SLEEP && !arb_ctx.stream.in_progress && !(passive && driven)) {
            arb_ctx.stream.in_progress = true;
            while (arb_ctx.tp_ops->progress(arb_ctx.tp) > 0) served = true;
            for (int i = 0; i < nhooks; i++)
                if (poll[i] && hooks[i]->poll() > 0) served = true;
            arb_ctx.stream.in_progress = false;
        }
        seen_tp_turns = arb_ctx.stream.tp_turns;
        pthread_mutex_unlock(&arb_ctx.lock);
        if (!passive || served)
            passive_us = ARB_PASSIVE_US;
        else if (passive_us < ARB_PASSIVE_MAX_US)
            passive_us = passive_us * 2 < ARB_PASSIVE_MAX_US ? passive_us * 2 : ARB_PASSIVE_MAX_US;
        if (!live || !moved)
            arb_bell_thread_nap(passive ? passive_us : ARB_IDLE_US, live, &thread_hooks);
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
