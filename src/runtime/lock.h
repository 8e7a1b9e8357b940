/* The engine lock and the threads (docs/THREADS.md): lock.c, and progress.c for the thread
 * level and the progress thread. */
#ifndef ARB_RUNTIME_LOCK_H
#define ARB_RUNTIME_LOCK_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>

#include "runtime/context.h"

/* What the calling thread is running on arbor's behalf: a user callback runs inside the
 * progress engine, with the engine lock held by this very thread. */
enum { ARB_CB_NONE = 0, ARB_CB_USER, ARB_CB_AM_HANDLER };
extern _Thread_local int arb_in_callback __attribute__((tls_model("initial-exec")));

/* Takes the engine lock (when locking is on); a second take by the same thread is an internal
 * error and aborts with a message instead of deadlocking. */
void arb_lock_take(void);
/* An arbor call from inside a user callback: logs it, returns ARBOR_ERR_BUSY. */
arbor_status_t arb_callback_refused(void);

/* The prologue of every public entry that touches engine state: refuses calls from inside a
 * callback, then takes the lock. Costs a thread-local load and a predictable branch when
 * locking is off (SINGLE, FUNNELED, SERIALIZED without a progress thread). */
static inline arbor_status_t arb_enter(void)
{
    if (__builtin_expect(arb_in_callback != ARB_CB_NONE, 0)) return arb_callback_refused();
    if (arb_ctx.locking) arb_lock_take();
    return ARBOR_OK;
}
#define ARB_ENTER()                                                                                \
    do {                                                                                           \
        arbor_status_t _enter = arb_enter();                                                       \
        if (_enter != ARBOR_OK) return _enter;                                                     \
    } while (0)

/* The lock alone, for internal callers outside the entry points (tests of internal calls). */
static inline void arb_lock(void)
{
    if (arb_ctx.locking) arb_lock_take();
}

static inline void arb_unlock(void)
{
    if (arb_ctx.locking) pthread_mutex_unlock(&arb_ctx.lock);
}

/* Between two turns of a waiting loop (idle: the turn moved nothing): with locking on, lets go
 * of the lock, yields when another thread waits for it or nothing moved, and retakes it.
 * Pointers into tables another thread may grow (request slots, team slots) are stale after
 * it: look them up again. Inside a progress turn (a handler's wait) it keeps the lock. */
void arb_wait_pause_locked(bool idle);
static inline void arb_wait_pause(bool idle)
{
    if (__builtin_expect(arb_ctx.locking, 0))
        arb_wait_pause_locked(idle);
    else if (idle && arb_ctx.yield)
        sched_yield();
}

arbor_status_t arb_threads_init(int level);
void arb_threads_fini(void);
arbor_status_t arb_progress_thread_start(void);
void arb_progress_thread_stop(void);

#endif /* ARB_RUNTIME_LOCK_H */
