/*
 * Distributed locks (shmem_set_lock, shmem_test_lock, shmem_clear_lock).
 *
 * A lock is the symmetric long's word on PE 0: 0 free, else 1 + the holder's PE, taken by
 * compare-and-swap and released after a quiet (so that what the holder wrote under the lock is
 * complete before the next holder can take it).
 *
 * Threads of one PE first pass a local gate per lock (a semaphore, so that the thread that
 * clears the lock need not be the one that set it): only one of them at a time competes for the
 * word on PE 0 and the others sleep instead of spinning on it. Without the gate, many threads
 * spinning on compare-and-swap take the cores the holder needs when threads outnumber cores.
 * A PE holds the lock for all its threads, as the word records PEs, not threads.
 */
#include <sched.h>
#include <semaphore.h>
#include <time.h>

#include "shmem_internal.h"

/* The locks a program uses are few and live as long as it does: a small table, never freed.
 * Past its size, locks go without the gate (correct, only slower under thread contention). */
enum { GATES = 256 };
static struct {
    const long *lock;
    sem_t gate;
} gates[GATES];
static int gates_used;
static pthread_mutex_t gates_lock = PTHREAD_MUTEX_INITIALIZER;

static sem_t *gate_of(const long *lock)
{
    sem_t *found = NULL;
    pthread_mutex_lock(&gates_lock);
    for (int i = 0; i < gates_used && !found; i++)
        if (gates[i].lock == lock) found = &gates[i].gate;
    if (!found && gates_used < GATES && sem_init(&gates[gates_used].gate, 0, 1) == 0) {
        gates[gates_used].lock = lock;
        found = &gates[gates_used++].gate;
    }
    pthread_mutex_unlock(&gates_lock);
    return found;
}

static long lock_try(long *lock)
{
    uint64_t free_word = 0, mine = (uint64_t)shm.me + 1, old = 0;
    shm_check(arbor_atomic(0, shm_remote(lock, 0), ARBOR_AMO_CSWAP, ARBOR_UINT64, &mine, &free_word,
                           &old),
              "shmem_set_lock");
    return (long)old;
}

void shmem_set_lock(long *lock)
{
    shm_require_init("shmem_set_lock");
    if (!lock) shm_fatal("shmem_set_lock", "NULL lock");
    sem_t *gate = gate_of(lock);
    while (gate && sem_wait(gate) != 0) {
        /* EINTR: a signal interrupted the wait; wait again */
    }
    unsigned spins = 0;
    while (lock_try(lock) != 0) {
        shm_progress(&spins);
        /* A long wait: the holder is likely descheduled (more threads than cores); sleeping
         * lets it run instead of taking its time slice away. */
        if (spins > 256) nanosleep(&(struct timespec){.tv_nsec = 20000}, NULL);
    }
}

int shmem_test_lock(long *lock)
{
    shm_require_init("shmem_test_lock");
    if (!lock) shm_fatal("shmem_test_lock", "NULL lock");
    sem_t *gate = gate_of(lock);
    /* A failed attempt yields: callers retry in a loop, and the holder needs the core. */
    if (gate && sem_trywait(gate) != 0) { /* another thread of this PE has it */
        sched_yield();
        return 1;
    }
    if (lock_try(lock) == 0) return 0;
    if (gate) sem_post(gate);
    sched_yield();
    return 1;
}

void shmem_clear_lock(long *lock)
{
    shm_require_init("shmem_clear_lock");
    if (!lock) shm_fatal("shmem_clear_lock", "NULL lock");
    shmem_quiet();
    uint64_t mine = (uint64_t)shm.me + 1, free_word = 0, old = 0;
    shm_check(arbor_atomic(0, shm_remote(lock, 0), ARBOR_AMO_CSWAP, ARBOR_UINT64, &free_word, &mine,
                           &old),
              "shmem_clear_lock");
    if (old != mine) shm_fatal("shmem_clear_lock", "the lock is not held by this PE");
    sem_t *gate = gate_of(lock);
    if (gate) sem_post(gate);
}
