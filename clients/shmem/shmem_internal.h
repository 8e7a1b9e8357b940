/*
 * State shared by the files of libshmem_arbor. Everything here sits on arbor's public API
 * (include/arbor.h) only.
 */
#ifndef SHMEM_INTERNAL_H
#define SHMEM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arbor.h"
#include "shmem.h"

#define SHM_HIDDEN __attribute__((visibility("hidden")))

/* A team: arbor's team plus the rank tables that translate between it and the world. */
struct shmem_team_s {
    arbor_team_h arbor;
    int my_pe; /* rank in the team */
    int n_pes;
    int *world_of;  /* [n_pes]: world rank of each member */
    int *member_of; /* [world size]: team rank of each world rank, -1 for non-members */
    shmem_team_config_t config;
    long config_mask;
    int contexts;    /* live contexts made on this team */
    bool predefined; /* WORLD, SHARED: never destroyed by the user */
};

/*
 * A context: an arbor context on its team (README.md, "Contexts"), so its quiet completes its
 * own operations only; SHMEM_CTX_DEFAULT is arbor's default context (arbor NULL, world ranks).
 */
struct shmem_ctx_s {
    struct shmem_team_s *team;
    long options;
    arbor_ctx_h arbor;
};

/* Symmetric allocation records (heap): local address -> arbor handle and size. */
typedef struct {
    void *base;    /* what shmem_malloc returned (maybe past the block start: shmem_align) */
    void *block;   /* start of the arbor allocation */
    size_t size;   /* bytes the user asked for */
    size_t common; /* bytes every PE's block holds from base (PEs may ask for different sizes):
                    * what the mapped path may reach without arbor's per-PE check */
    arbor_mem_h mem;
} shm_alloc_t;

typedef struct {
    bool initialized;
    bool finalized;
    int me, npes;
    int thread_level;
    /* Heap addressing: every symmetric allocation lies at the same segment offset on every PE
     * (arbor_mem_alloc's contract), so a peer's address is ours plus a per-PE constant. */
    intptr_t *heap_delta; /* [npes] */
    arbor_mem_h scratch_mem;
    void *scratch; /* internal symmetric scratch: see SHM_SCRATCH_* */
    /* Global and static data (the executable's .data and .bss), registered with arbor. */
    uintptr_t static_lo, static_hi;
    uintptr_t *static_base; /* [npes]: each PE's address of static_lo */
    arbor_reg_h static_reg;
    arbor_attach_h *static_att; /* [npes] */
    /* Mapped heap: where arbor maps every PE's heap here (arbor_mem_ptr non-NULL for all,
     * agreed by all PEs), a heap address plus mapped_delta[pe] is PE pe's object, reached with
     * loads, stores and CPU atomics, as arbor itself does on that path (docs/ONESIDED.md,
     * "Atomics: one mechanism per word"), without arbor's entry costs. */
    bool heap_mapped;
    intptr_t *mapped_delta;    /* [npes] */
    unsigned alloc_generation; /* bumped when an allocation goes (stale range caches) */
    /* Set (after the call) by every one-sided call that went through arbor, cleared by quiet:
     * a quiet with nothing issued through arbor since the last one is a memory barrier. */
    unsigned arbor_pending;
    /* Allocations. */
    pthread_mutex_t alloc_lock;
    shm_alloc_t *allocs;
    size_t nallocs, cap_allocs;
} shm_state_t;

SHM_HIDDEN extern shm_state_t shm;
SHM_HIDDEN extern struct shmem_team_s shm_team_world, shm_team_shared;
SHM_HIDDEN extern struct shmem_ctx_s shm_ctx_default;

/* Internal scratch layout (longs): the sizes exchanged by the active-set collect. */
#define SHM_SCRATCH_COLLECT 0 /* [npes] */

/* Reports a failed arbor call of @p what and ends the job (the void OpenSHMEM calls have no
 * error return: the standard leaves errors undefined, and running on would be silently wrong). */
SHM_HIDDEN _Noreturn void shm_fatal(const char *what, const char *why);
SHM_HIDDEN void shm_check(arbor_status_t status, const char *what);
SHM_HIDDEN void shm_require_init(const char *what);

/* Translates a symmetric address of this PE to world PE @p pe's address of the same object
 * (heap or static data). */
static inline void *shm_remote(const void *addr, int pe)
{
    uintptr_t a = (uintptr_t)addr;
    if (a >= shm.static_lo && a < shm.static_hi)
        return (void *)(shm.static_base[pe] + (a - shm.static_lo));
    return (void *)(a + (uintptr_t)shm.heap_delta[pe]);
}

/* Whether [addr, addr + len) lies in one live shmem_malloc block (a per-thread cache of the
 * last block hit, then the table). */
SHM_HIDDEN bool shm_heap_range_slow(uintptr_t addr, size_t len);
extern _Thread_local uintptr_t shm_hit_lo, shm_hit_hi;
extern _Thread_local unsigned shm_hit_generation;
static inline bool shm_heap_range(const void *addr, size_t len)
{
    uintptr_t a = (uintptr_t)addr;
    if (shm_hit_generation == __atomic_load_n(&shm.alloc_generation, __ATOMIC_ACQUIRE) &&
        a >= shm_hit_lo && a < shm_hit_hi && len <= shm_hit_hi - a)
        return true;
    return shm_heap_range_slow(a, len);
}

/* The mapped address of PE @p pe's copy of the heap object at @p addr (len bytes), or NULL when
 * the call must go through arbor (not mapped, not a heap block: arbor then checks it). */
static inline void *shm_mapped(const void *addr, size_t len, int pe)
{
    if (!shm.heap_mapped || !shm_heap_range(addr, len)) return NULL;
    return (void *)((uintptr_t)addr + (uintptr_t)shm.mapped_delta[pe]);
}

static inline void shm_note_arbor_op(void)
{
    if (!__atomic_load_n(&shm.arbor_pending, __ATOMIC_RELAXED))
        __atomic_store_n(&shm.arbor_pending, 1, __ATOMIC_RELEASE);
}

/* The world rank of @p pe of @p ctx's team; ends the job for a PE outside the team. */
SHM_HIDDEN int shm_ctx_world_pe(shmem_ctx_t ctx, int pe, const char *what);
static inline int shm_world_pe(int pe, const char *what)
{
    if (__builtin_expect(pe < 0 || pe >= shm.npes, 0)) shm_fatal(what, "PE out of range");
    return pe;
}

/* Where a call on a context goes: arbor's context, the rank it names there (the team rank on a
 * context made on the team, the world rank on the default one) and the world PE (for the
 * mapped path and address translation). */
typedef struct {
    arbor_ctx_h ac;
    int ape, wpe;
    struct shmem_ctx_s *ctx;
} shm_tgt_t;
static inline shm_tgt_t shm_ctx_tgt(shmem_ctx_t ctx, int pe, const char *what)
{
    int wpe = shm_ctx_world_pe(ctx, pe, what);
    return (shm_tgt_t){ctx->arbor, ctx->arbor ? pe : wpe, wpe, ctx};
}
static inline shm_tgt_t shm_world_tgt(int pe, const char *what)
{
    int wpe = shm_world_pe(pe, what);
    return (shm_tgt_t){ARBOR_CTX_DEFAULT, wpe, wpe, &shm_ctx_default};
}
/* After a call through arbor on t: the default context's quiet flag, or nothing (an arbor
 * context's own quiet knows). */
static inline void shm_note_op(shm_tgt_t t)
{
    if (!t.ac) shm_note_arbor_op();
}

/* Waits for a comparison on a local word, making progress. */
SHM_HIDDEN bool shm_compare(int cmp, const void *ivar, const void *value, size_t size,
                            bool is_signed);
SHM_HIDDEN void shm_progress(unsigned *spins);

/* Teams (shmem_team.c). */
SHM_HIDDEN int shm_team_init_predefined(void);
SHM_HIDDEN void shm_team_fini_predefined(void);
SHM_HIDDEN int shm_team_fill(struct shmem_team_s *t, arbor_team_h h);

/* Active-set barrier over pSync (shmem_coll.c). */
SHM_HIDDEN void shm_aset_barrier(int start, int log_stride, int size, long *pSync,
                                 const char *what);

#endif
