/*
 * What every file of the library shares and shmem_internal.h's inline helpers fall back on: the
 * error helpers, the heap lookup behind shm_heap_range and the PE translation of a context. Kept
 * apart from init, mem and rma so that those call down into it, never into each other.
 */
#include <stdio.h>
#include <stdlib.h>

#include "shmem_internal.h"

void shm_fatal(const char *what, const char *why)
{
    fprintf(stderr, "shmem: PE %d: %s: %s; ending the job\n", shm.initialized ? shm.me : -1, what,
            why);
    fflush(stderr);
    arbor_abort(1);
    exit(1); /* arbor_abort returns only for a code outside 0..255 */
}

void shm_check(arbor_status_t status, const char *what)
{
    if (__builtin_expect(status != ARBOR_OK, 0)) shm_fatal(what, arbor_strerror(status));
}

void shm_require_init(const char *what)
{
    if (__builtin_expect(!shm.initialized, 0)) shm_fatal(what, "called before shmem_init");
}

_Thread_local uintptr_t shm_hit_lo, shm_hit_hi;
_Thread_local unsigned shm_hit_generation;

bool shm_heap_range_slow(uintptr_t addr, size_t len)
{
    bool found = false;
    pthread_mutex_lock(&shm.alloc_lock);
    unsigned generation = __atomic_load_n(&shm.alloc_generation, __ATOMIC_ACQUIRE);
    for (size_t i = 0; i < shm.nallocs && !found; i++) {
        uintptr_t lo = (uintptr_t)shm.allocs[i].base, hi = lo + shm.allocs[i].common;
        if (addr >= lo && addr < hi && len <= hi - addr) {
            found = true;
            shm_hit_lo = lo;
            shm_hit_hi = hi;
            shm_hit_generation = generation;
        }
    }
    pthread_mutex_unlock(&shm.alloc_lock);
    return found;
}

int shm_ctx_world_pe(shmem_ctx_t ctx, int pe, const char *what)
{
    if (__builtin_expect(!ctx, 0)) shm_fatal(what, "invalid context (SHMEM_CTX_INVALID)");
    struct shmem_team_s *t = ctx->team;
    if (__builtin_expect(pe < 0 || pe >= t->n_pes, 0)) shm_fatal(what, "PE out of range");
    return t->world_of[pe];
}
