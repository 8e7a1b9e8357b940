/*
 * The engine lock (docs/THREADS.md): taking it, the pause of a waiting loop, and the refusal of
 * an arbor call from inside a callback. A bottom module of the engine: the progress engine,
 * the doorbell and every entry point use it, and it calls none of them.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/lock.h"
#include "util/log.h"

_Thread_local int arb_in_callback __attribute__((tls_model("initial-exec")));

void arb_lock_take(void)
{
    if (pthread_mutex_trylock(&arb_ctx.lock) == 0) return;
    atomic_fetch_add_explicit(&arb_ctx.lock_wanted, 1, memory_order_relaxed);
    int rc = pthread_mutex_lock(&arb_ctx.lock);
    atomic_fetch_sub_explicit(&arb_ctx.lock_wanted, 1, memory_order_relaxed);
    if (rc == EDEADLK) {
        /* An internal path that went through a public entry: a bug, never a user error. */
        fprintf(stderr, "arbor: internal error: the engine lock taken twice by one thread\n");
        abort();
    }
}

arbor_status_t arb_callback_refused(void)
{
    if (arb_in_callback == ARB_CB_AM_HANDLER)
        arb_error("an arbor call from inside an active-message handler: only arbor_am_reply and "
                  "implicit non-blocking one-sided calls may be made there (docs/THREADS.md)");
    else
        arb_error("an arbor call from inside a user reduction operation: none may be made there "
                  "(docs/THREADS.md)");
    return ARBOR_ERR_BUSY;
}

void arb_wait_pause_locked(bool idle)
{
    if (arb_ctx.stream.in_progress) { /* inside a progress turn: the lock stays ours */
        if (idle && arb_ctx.yield) sched_yield();
        return;
    }
    pthread_mutex_unlock(&arb_ctx.lock);
    /* An unlock followed at once by a lock would hand the lock straight back to us (glibc's
     * mutex is not fair): a thread blocked on it gets its turn. Otherwise an idle turn yields
     * only where every idle turn does (more ranks than cores): a yield costs a system call,
     * which at every turn made an 8-byte barrier 6 times slower. */
    if (atomic_load_explicit(&arb_ctx.lock_wanted, memory_order_relaxed) > 0 ||
        (idle && arb_ctx.yield))
        sched_yield();
    arb_lock_take();
}
