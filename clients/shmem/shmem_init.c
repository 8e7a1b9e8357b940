/*
 * Library setup and teardown, queries, global exit, and the symmetric global and
 * static data of the program (registered with arbor at init).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <link.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shmem_internal.h"
#include "shmemx.h"

shm_state_t shm = {.alloc_lock = PTHREAD_MUTEX_INITIALIZER};
struct shmem_ctx_s shm_ctx_default = {.team = &shm_team_world, .options = 0};
shmem_ctx_t SHMEM_CTX_DEFAULT = &shm_ctx_default;

void shm_progress(unsigned *spins)
{
    (void)arbor_poll();
    if (++*spins > 64) sched_yield(); /* oversubscribed nodes: let the writer run */
}

/* ---- global and static data ------------------------------------------------------------ */

typedef struct {
    uintptr_t lo, hi;
} shm_range_t;

/* The writable part of the executable's image after relocation: .data and .bss (and the
 * writable sections around them), not the RELRO part, which becomes read-only. The first
 * object dl_iterate_phdr reports is the program itself. */
static int find_static_range(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    shm_range_t *r = arg;
    uintptr_t relro_end = 0;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO)
            relro_end = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr + info->dlpi_phdr[i].p_memsz;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W)) continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (relro_end > lo && relro_end < hi) lo = relro_end;
        if (hi > r->hi) r->hi = hi;
        if (!r->lo || lo < r->lo) r->lo = lo;
    }
    return 1; /* the program only */
}

/* Registers the static range, exchanges the descriptors over an allgather and attaches every
 * peer's. A PE whose registration fails (the transport refuses) makes every PE go without:
 * accesses to static data then fail with a clear message instead of reaching wrong memory. */
static void register_static_data(void)
{
    shm_range_t r = {0, 0};
    const char *want = getenv("SHMEM_SYMMETRIC_STATIC");
    bool opted_out = want && strcmp(want, "0") == 0;
    if (!opted_out) dl_iterate_phdr(find_static_range, &r);
    r.lo = (r.lo + 7) & ~(uintptr_t)7;
    r.hi = (r.hi + 7) & ~(uintptr_t)7;
    uint64_t ok = r.hi > r.lo;
    size_t blob_len = 0;
    /* Node-shared where every PE maps every other: peers then reach it as the heap, and no PE
     * needs a progress thread for it. */
    if (ok && arbor_mem_register((void *)r.lo, r.hi - r.lo, ARBOR_MEM_NODE_SHARED,
                                 &shm.static_reg) != ARBOR_OK)
        ok = 0;
    if (ok && arbor_mem_pack(shm.static_reg, NULL, &blob_len) != ARBOR_OK) ok = 0;
    uint64_t mine[2] = {ok ? 0 : 1, blob_len}, agreed[2];
    shm_check(arbor_allreduce(ARBOR_TEAM_WORLD, mine, agreed, 2, ARBOR_UINT64, ARBOR_MAX),
              "shmem_init (static data)");
    shm.static_base = calloc((size_t)shm.npes, sizeof(uintptr_t));
    shm.static_att = calloc((size_t)shm.npes, sizeof(arbor_attach_h));
    if (!shm.static_base || !shm.static_att) shm_fatal("shmem_init", "out of memory");
    if (agreed[0] != 0) {
        if (shm.static_reg) arbor_mem_deregister(&shm.static_reg);
        if (shm.me == 0 && !opted_out)
            fprintf(stderr, "shmem: global and static variables are not symmetric on this "
                            "transport (arbor_mem_register refused); use shmem_malloc\n");
        return;
    }
    size_t slot = (size_t)agreed[1];
    uint8_t *blobs = malloc(slot * (size_t)(shm.npes + 1));
    if (!blobs) shm_fatal("shmem_init", "out of memory");
    uint8_t *own = blobs + slot * (size_t)shm.npes;
    memset(own, 0, slot);
    size_t len = slot;
    shm_check(arbor_mem_pack(shm.static_reg, own, &len), "shmem_init (static data)");
    shm_check(arbor_allgather(ARBOR_TEAM_WORLD, own, blobs, slot, ARBOR_BYTE),
              "shmem_init (static data)");
    for (int pe = 0; pe < shm.npes; pe++) {
        if (pe == shm.me) {
            shm.static_base[pe] = r.lo; /* the owner reaches its range without attaching */
            continue;
        }
        void *base = NULL;
        shm_check(arbor_mem_attach(blobs + slot * (size_t)pe, slot, &shm.static_att[pe]),
                  "shmem_init (static data)");
        shm_check(arbor_mem_attach_info(shm.static_att[pe], NULL, &base, NULL),
                  "shmem_init (static data)");
        shm.static_base[pe] = (uintptr_t)base;
    }
    free(blobs);
    shm.static_lo = r.lo;
    shm.static_hi = r.hi;
}

static void release_static_data(void)
{
    if (shm.static_att)
        for (int pe = 0; pe < shm.npes; pe++)
            if (shm.static_att[pe]) arbor_mem_detach(&shm.static_att[pe]);
    if (shm.static_reg) arbor_mem_deregister(&shm.static_reg);
    free(shm.static_att);
    free(shm.static_base);
    shm.static_att = NULL;
    shm.static_base = NULL;
    shm.static_lo = shm.static_hi = 0;
}

/* ---- setup ------------------------------------------------------------------------------ */

/* Whether every PE maps every PE's heap (then arbor's own atomics are CPU atomics on it, so
 * loads, stores and CPU atomics through the mapping are the same mechanism), and the offsets.
 * SHMEM_MAPPED_BYPASS=0 sends every call through arbor. */
static void find_mapped_heap(void)
{
    shm.mapped_delta = calloc((size_t)shm.npes, sizeof(intptr_t));
    if (!shm.mapped_delta) shm_fatal("shmem_init", "out of memory");
    const char *want = getenv("SHMEM_MAPPED_BYPASS");
    int mapped = !want || strcmp(want, "0") != 0;
    for (int pe = 0; pe < shm.npes && mapped; pe++) {
        void *local = NULL;
        void *remote = (void *)((uintptr_t)shm.scratch + (uintptr_t)shm.heap_delta[pe]);
        if (arbor_mem_ptr(pe, remote, &local) != ARBOR_OK || !local)
            mapped = 0;
        else
            shm.mapped_delta[pe] = (intptr_t)((uintptr_t)local - (uintptr_t)shm.scratch);
    }
    int all = 0;
    shm_check(arbor_allreduce(ARBOR_TEAM_WORLD, &mapped, &all, 1, ARBOR_INT, ARBOR_MIN),
              "shmem_init");
    shm.heap_mapped = all != 0;
}

static void finalize_at_exit(void)
{
    if (shm.initialized && !shm.finalized) shmem_finalize();
}

static int init_common(int requested, int *provided)
{
    if (shm.initialized) {
        if (provided) *provided = shm.thread_level;
        return 0;
    }
    if (shm.finalized) shm_fatal("shmem_init", "called again after shmem_finalize");
    int level = ARBOR_THREAD_SINGLE;
    arbor_status_t st = arbor_init_thread(requested, &level);
    if (st != ARBOR_OK) {
        fprintf(stderr, "shmem_init: arbor_init failed: %s\n", arbor_strerror(st));
        return -1;
    }
    int rank = 0, size = 1;
    shm_check(arbor_team_rank(ARBOR_TEAM_WORLD, &rank), "shmem_init");
    shm_check(arbor_team_size(ARBOR_TEAM_WORLD, &size), "shmem_init");
    shm.me = rank;
    shm.npes = size;
    shm.thread_level = level;
    shm.initialized = true;

    /* The internal scratch block also gives the heap deltas: every later symmetric
     * allocation lies at the same offset on every PE, as this one does. */
    shm.heap_delta = calloc((size_t)size, sizeof(intptr_t));
    if (!shm.heap_delta) shm_fatal("shmem_init", "out of memory");
    shm_check(arbor_mem_alloc(ARBOR_TEAM_WORLD, sizeof(long) * (size_t)size + 64, &shm.scratch_mem,
                              &shm.scratch),
              "shmem_init (internal symmetric memory)");
    for (int pe = 0; pe < size; pe++) {
        void *addr = NULL;
        shm_check(arbor_mem_addr(shm.scratch_mem, pe, &addr, NULL), "shmem_init");
        shm.heap_delta[pe] = (intptr_t)((uintptr_t)addr - (uintptr_t)shm.scratch);
    }
    find_mapped_heap();
    register_static_data();
    if (shm_team_init_predefined() != 0) shm_fatal("shmem_init", "predefined teams");
    if (provided) *provided = level;
    static bool registered_exit;
    if (!registered_exit) {
        registered_exit = true;
        atexit(finalize_at_exit);
    }
    shm_check(arbor_barrier(ARBOR_TEAM_WORLD), "shmem_init");
    return 0;
}

void shmem_init(void)
{
    if (init_common(SHMEM_THREAD_SINGLE, NULL) != 0) shm_fatal("shmem_init", "arbor_init failed");
}

int shmem_init_thread(int requested, int *provided)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) return -1;
    return init_common(requested, provided);
}

void shmem_query_thread(int *provided)
{
    shm_require_init("shmem_query_thread");
    if (!provided) shm_fatal("shmem_query_thread", "NULL provided");
    *provided = shm.thread_level;
}

void start_pes(int npes)
{
    (void)npes;
    shmem_init();
}

void shmem_finalize(void)
{
    if (!shm.initialized) return;
    shm_check(arbor_quiet(), "shmem_finalize");
    shm_check(arbor_barrier(ARBOR_TEAM_WORLD), "shmem_finalize");
    shm_team_fini_predefined();
    release_static_data();
    pthread_mutex_lock(&shm.alloc_lock);
    for (size_t i = 0; i < shm.nallocs; i++) arbor_mem_free(&shm.allocs[i].mem);
    free(shm.allocs);
    shm.allocs = NULL;
    shm.nallocs = shm.cap_allocs = 0;
    pthread_mutex_unlock(&shm.alloc_lock);
    arbor_mem_free(&shm.scratch_mem);
    free(shm.heap_delta);
    shm.heap_delta = NULL;
    free(shm.mapped_delta);
    shm.mapped_delta = NULL;
    shm.heap_mapped = false;
    shm.initialized = false;
    shm.finalized = true;
    arbor_status_t st = arbor_finalize();
    if (st != ARBOR_OK) fprintf(stderr, "shmem_finalize: %s\n", arbor_strerror(st));
}

void shmem_global_exit(int status)
{
    fflush(stdout);
    fflush(stderr);
    arbor_abort(status & 0xff);
    exit(status);
}

/* ---- queries ---------------------------------------------------------------------------- */

int shmem_my_pe(void)
{
    return shm.initialized ? shm.me : -1;
}

int shmem_n_pes(void)
{
    return shm.initialized ? shm.npes : -1;
}

int _my_pe(void)
{
    return shmem_my_pe();
}

int _num_pes(void)
{
    return shmem_n_pes();
}

int shmem_pe_accessible(int pe)
{
    return shm.initialized && pe >= 0 && pe < shm.npes;
}

int shmem_addr_accessible(const void *addr, int pe)
{
    if (!shmem_pe_accessible(pe) || !addr) return 0;
    uintptr_t a = (uintptr_t)addr;
    if (a >= shm.static_lo && a < shm.static_hi) return 1;
    int found = 0;
    pthread_mutex_lock(&shm.alloc_lock);
    for (size_t i = 0; i < shm.nallocs && !found; i++) {
        uintptr_t b = (uintptr_t)shm.allocs[i].base;
        found = a >= b && a < b + shm.allocs[i].size;
    }
    pthread_mutex_unlock(&shm.alloc_lock);
    return found;
}

void shmem_info_get_version(int *major, int *minor)
{
    if (!major || !minor) shm_fatal("shmem_info_get_version", "NULL argument");
    *major = SHMEM_MAJOR_VERSION;
    *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name)
{
    if (!name) shm_fatal("shmem_info_get_name", "NULL argument");
    snprintf(name, SHMEM_MAX_NAME_LEN, "%s", SHMEM_VENDOR_STRING);
}

void shmem_pcontrol(int level, ...)
{
    /* The standard leaves the effect to the implementation; arbor has no profiling levels. */
    (void)level;
}

double shmemx_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void *dest)
{
    (void)dest;
}
void shmem_set_cache_line_inv(void *dest)
{
    (void)dest;
}
void shmem_udcflush(void) {}
void shmem_udcflush_line(void *dest)
{
    (void)dest;
}
