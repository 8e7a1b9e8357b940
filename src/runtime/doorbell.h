/*
 * Interrupt-mode progress (ARBOR_PROGRESS=interrupt, docs/PROGRESS.md): a waiting loop that sees
 * nothing move for ARBOR_SPIN_US blocks in poll() on the transport's wait descriptor and on this
 * rank's doorbell. Data between mapped peers moves by loads and stores and raises no transport
 * event, so a sender that stores into a mapped peer's segment rings that peer's doorbell, but
 * only when the peer said it is sleeping (a word in its segment).
 */
#ifndef ARB_CORE_DOORBELL_H
#define ARB_CORE_DOORBELL_H

#include <stdbool.h>
#include <stdint.h>

#include "arbor.h"

/* True in every process of a job that runs in interrupt mode: senders then look at a mapped
 * peer's sleeping word after each store that may end its wait. */
extern bool arb_bell_armed;

/* BELL_LINE_BYTES at line_off of every rank's segment (init takes it at the same offset on
 * every rank, in every mode, so the layout never depends on the mode). Opens this rank's bell
 * and, in interrupt mode, checks that the transport has a wait descriptor (else one warning
 * and ARBOR_PROGRESS falls back to thread). */
#define ARB_BELL_LINE_BYTES 64
arbor_status_t arb_bell_init(uint64_t line_off);
void arb_bell_fini(void);

void arb_bell_ring_slow(int world_rank);

/* After a store (release order) into world_rank's mapped segment that a waiter there may be
 * waiting for: costs a flag test outside interrupt mode, a full fence and one load in it. */
static inline void arb_bell_ring(int world_rank)
{
    if (arb_bell_armed) arb_bell_ring_slow(world_rank);
}

/* The waiting step of a waiting loop. The loop calls it on every idle turn (nothing moved); it
 * returns false at once outside interrupt mode and while the spin budget lasts. Past it, it
 * publishes "sleeping", runs check(arg) once more (a progress turn: true when anything moved
 * or the wait is over), drains and arms the transport, and blocks in poll() on the transport's
 * descriptor and the doorbell for at most a slice of ARBOR_TIMEOUT (and 10 ms), so the
 * caller's timeout and lost-peer checks still run. Returns true when it went that far: the
 * caller then runs those checks. */
typedef struct {
    double idle_since; /* start of the current idle stretch (0: none) */
} arb_nap_t;
bool arb_bell_nap(arb_nap_t *nap, bool (*check)(void *), void *arg);

/* The progress thread's sleep when nothing moved (live: a collective is in flight). In
 * interrupt mode it blocks (up to 10 ms) on the transport's descriptor and the doorbell, after
 * the same handshake as a wait, made under the arbor lock; else it yields (live) or sleeps
 * max_us, as before. Called without the lock. The hooks come from the engine (this file calls
 * nothing of it by name): its lock, and a progress turn (called under the lock when live:
 * true when it moved something). */
typedef struct {
    void (*lock)(void);
    void (*unlock)(void);
    bool (*recheck)(void);
} arb_bell_thread_hooks_t;
void arb_bell_thread_nap(unsigned max_us, bool live, const arb_bell_thread_hooks_t *h);

#endif /* ARB_CORE_DOORBELL_H */
