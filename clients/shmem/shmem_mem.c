/*
 * Symmetric heap: shmem_malloc and friends over arbor_mem_alloc on the world team, and
 * shmem_ptr. Each allocation is collective (every PE passes the same size), so the block lies
 * at the same offset of every PE's segment and shm_remote's per-PE delta reaches it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmem_internal.h"

static bool remember(void *base, void *block, size_t size, size_t common, arbor_mem_h mem)
{
    pthread_mutex_lock(&shm.alloc_lock);
    bool ok = true;
    if (shm.nallocs == shm.cap_allocs) {
        size_t cap = shm.cap_allocs ? 2 * shm.cap_allocs : 16;
        shm_alloc_t *grown = realloc(shm.allocs, cap * sizeof(*grown));
        if (grown) {
            shm.allocs = grown;
            shm.cap_allocs = cap;
        } else {
            ok = false;
        }
    }
    if (ok) shm.allocs[shm.nallocs++] = (shm_alloc_t){base, block, size, common, mem};
    pthread_mutex_unlock(&shm.alloc_lock);
    return ok;
}

/* Removes the record of @p base and returns it (mem NULL: none). */
static shm_alloc_t forget(void *base)
{
    shm_alloc_t found = {0};
    pthread_mutex_lock(&shm.alloc_lock);
    for (size_t i = 0; i < shm.nallocs; i++)
        if (shm.allocs[i].base == base) {
            found = shm.allocs[i];
            shm.allocs[i] = shm.allocs[--shm.nallocs];
            __atomic_add_fetch(&shm.alloc_generation, 1, __ATOMIC_RELEASE);
            break;
        }
    pthread_mutex_unlock(&shm.alloc_lock);
    return found;
}

static size_t size_of(void *base)
{
    size_t size = 0;
    pthread_mutex_lock(&shm.alloc_lock);
    for (size_t i = 0; i < shm.nallocs; i++)
        if (shm.allocs[i].base == base) size = shm.allocs[i].size;
    pthread_mutex_unlock(&shm.alloc_lock);
    return size;
}

/* The common allocation: @p alignment is a power of two (<= 64: arbor's own alignment). A
 * larger one pads the block; the padding is taken from the local address, so it is checked to
 * be the same on every PE (segments are page-aligned, so it is for alignments up to a page). */
static void *symmetric_alloc(size_t alignment, size_t size, const char *what)
{
    shm_require_init(what);
    if (size == 0) return NULL;
    size_t pad = alignment > 64 ? alignment : 0;
    if (size > SIZE_MAX - pad) return NULL;
    /* The standard's barrier_all semantics on exit: arbor_mem_alloc synchronises the PEs, and
     * this PE's own operations are completed first. */
    shm_check(arbor_quiet(), what);
    arbor_mem_h mem = NULL;
    void *block = NULL;
    arbor_status_t st = arbor_mem_alloc(ARBOR_TEAM_WORLD, size + pad, &mem, &block);
    if (st == ARBOR_ERR_NO_MEMORY) return NULL; /* every PE returns NULL */
    shm_check(st, what);
    uintptr_t base = (uintptr_t)block;
    if (pad) base = (base + alignment - 1) & ~(uintptr_t)(alignment - 1);
    uint64_t skip[2] = {base - (uintptr_t)block, ~(uint64_t)(base - (uintptr_t)block)}, agreed[2];
    if (pad) {
        shm_check(arbor_allreduce(ARBOR_TEAM_WORLD, skip, agreed, 2, ARBOR_UINT64, ARBOR_MAX),
                  what);
        if (agreed[0] != ~agreed[1]) {
            arbor_mem_free(&mem);
            fprintf(stderr, "%s: alignment %zu differs between PEs' heaps; not allocated\n", what,
                    alignment);
            return NULL;
        }
    }
    /* The smallest block of any PE bounds what the mapped path may touch. */
    size_t skipped = base - (uintptr_t)block, common = size;
    for (int pe = 0; pe < shm.npes; pe++) {
        size_t theirs = 0;
        shm_check(arbor_mem_addr(mem, pe, NULL, &theirs), what);
        size_t usable = theirs > skipped ? theirs - skipped : 0;
        if (usable < common) common = usable;
    }
    if (!remember((void *)base, block, size, common, mem)) {
        arbor_mem_free(&mem);
        shm_fatal(what, "out of memory for the allocation table");
    }
    return (void *)base;
}

void *shmem_malloc(size_t size)
{
    return symmetric_alloc(0, size, "shmem_malloc");
}

void *shmem_malloc_with_hints(size_t size, long hints)
{
    /* Every hint names a use that every allocation serves already. */
    (void)hints;
    return symmetric_alloc(0, size, "shmem_malloc_with_hints");
}

void *shmem_calloc(size_t count, size_t size)
{
    if (count && size > SIZE_MAX / count) return NULL;
    /* arbor hands out zero-filled memory. */
    return symmetric_alloc(0, count * size, "shmem_calloc");
}

void *shmem_align(size_t alignment, size_t size)
{
    if (alignment == 0 || (alignment & (alignment - 1))) return NULL;
    return symmetric_alloc(alignment, size, "shmem_align");
}

void shmem_free(void *ptr)
{
    shm_require_init("shmem_free");
    /* Collective with a barrier on entry (the standard's), and arbor_mem_free needs every
     * operation on the block complete: a quiet first. */
    shm_check(arbor_quiet(), "shmem_free");
    if (!ptr) {
        shm_check(arbor_barrier(ARBOR_TEAM_WORLD), "shmem_free");
        return;
    }
    shm_alloc_t a = forget(ptr);
    if (!a.mem) {
        char why[96];
        snprintf(why, sizeof why, "%p is not an address shmem_malloc returned", ptr);
        shm_fatal("shmem_free", why);
    }
    shm_check(arbor_mem_free(&a.mem), "shmem_free");
}

void *shmem_realloc(void *ptr, size_t size)
{
    if (!ptr) return shmem_malloc(size);
    if (size == 0) {
        shmem_free(ptr);
        return NULL;
    }
    size_t old = size_of(ptr);
    if (!old) shm_fatal("shmem_realloc", "not an address shmem_malloc returned");
    void *grown = shmem_malloc(size);
    if (!grown) return NULL; /* the old block stays, as the standard says */
    memcpy(grown, ptr, old < size ? old : size);
    shmem_free(ptr);
    return grown;
}

void *shmalloc(size_t size)
{
    return shmem_malloc(size);
}

void *shmemalign(size_t alignment, size_t size)
{
    return shmem_align(alignment, size);
}

void *shrealloc(void *ptr, size_t size)
{
    return shmem_realloc(ptr, size);
}

void shfree(void *ptr)
{
    shmem_free(ptr);
}

void *shmem_ptr(const void *dest, int pe)
{
    shm_require_init("shmem_ptr");
    if (!dest || pe < 0 || pe >= shm.npes) return NULL;
    void *local = NULL;
    /* NULL where arbor reaches the peer only through the transport, or dest is no symmetric
     * address: both are "not accessible by load/store" to the caller. */
    if (arbor_mem_ptr(pe, shm_remote(dest, pe), &local) != ARBOR_OK) return NULL;
    return local;
}
