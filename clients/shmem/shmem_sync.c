/*
 * Point-to-point synchronisation (wait_until / test families, signal_wait_until), ordering and
 * completion (fence, quiet) and the world barriers (locks: shmem_lock.c).
 *
 * The wait_until / test families are arbor_wait_set / arbor_test_set (one word is a set of
 * one). Static data that is not registered (SHMEM_SYMMETRIC_STATIC=0) and words outside the
 * symmetric objects are polled here with acquire loads, driving arbor's progress between polls
 * (transports that apply remote writes in this PE's progress, OFI, need it).
 */
#include <stdlib.h>

#include "shmem_internal.h"

bool shm_compare(int cmp, const void *ivar, const void *value, size_t size, bool is_signed)
{
    int64_t a = 0, b = 0;
    uint64_t ua = 0, ub = 0;
    switch (size) {
    case 2:
        ua = __atomic_load_n((const uint16_t *)ivar, __ATOMIC_ACQUIRE);
        ub = *(const uint16_t *)value;
        a = (int16_t)ua;
        b = (int16_t)ub;
        break;
    case 4:
        ua = __atomic_load_n((const uint32_t *)ivar, __ATOMIC_ACQUIRE);
        ub = *(const uint32_t *)value;
        a = (int32_t)ua;
        b = (int32_t)ub;
        break;
    default:
        ua = __atomic_load_n((const uint64_t *)ivar, __ATOMIC_ACQUIRE);
        ub = *(const uint64_t *)value;
        a = (int64_t)ua;
        b = (int64_t)ub;
        break;
    }
    switch (cmp) {
    case SHMEM_CMP_EQ:
        return ua == ub;
    case SHMEM_CMP_NE:
        return ua != ub;
    case SHMEM_CMP_GT:
        return is_signed ? a > b : ua > ub;
    case SHMEM_CMP_GE:
        return is_signed ? a >= b : ua >= ub;
    case SHMEM_CMP_LT:
        return is_signed ? a < b : ua < ub;
    case SHMEM_CMP_LE:
        return is_signed ? a <= b : ua <= ub;
    default:
        shm_fatal("shmem wait / test", "unknown comparison (not a SHMEM_CMP_* value)");
    }
}

/* One pass over a set: which eligible words hold. Returns how many hold; *eligible_p how many
 * were looked at, *first_p the first that holds. @p indices (may be NULL, else room for
 * nelems) receives the satisfied ones. */
static size_t scan_set(const void *ivars, size_t nelems, const int *status, int cmp,
                       const void *values, bool vector, size_t size, bool is_signed,
                       size_t *indices, size_t *eligible_p, size_t *first_p)
{
    size_t hits = 0, eligible = 0;
    for (size_t i = 0; i < nelems; i++) {
        if (status && status[i]) continue;
        eligible++;
        const void *v = vector ? (const char *)values + i * size : values;
        if (shm_compare(cmp, (const char *)ivars + i * size, v, size, is_signed)) {
            if (indices) indices[hits] = i;
            if (!hits) *first_p = i;
            hits++;
        }
    }
    *eligible_p = eligible;
    return hits;
}

enum { SET_ALL, SET_ANY, SET_SOME };

/* The common body of every wait (block) and test (one pass). Returns: ALL: 1 when all hold;
 * ANY: an index or SIZE_MAX; SOME: the count (indices filled). */
static size_t wait_set(int kind, bool block, const void *ivars, size_t nelems, size_t *indices,
                       const int *status, int cmp, const void *values, bool vector, size_t size,
                       bool is_signed, const char *what)
{
    shm_require_init(what);
    if (nelems && !ivars) shm_fatal(what, "NULL ivars");
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE) shm_fatal(what, "unknown comparison");
    if (kind == SET_SOME && nelems && !indices) shm_fatal(what, "NULL indices");
    /* Words in the heap or in registered static data: arbor's wait on the set (its scans run
     * under arbor's lock, so they are ordered with what the transport's progress writes).
     * Others (static data not registered, or a non-symmetric word) are polled here. */
    if (nelems) {
        arbor_dtype_t dt = size == 2   ? (is_signed ? ARBOR_INT16 : ARBOR_UINT16)
                           : size == 4 ? (is_signed ? ARBOR_INT32 : ARBOR_UINT32)
                                       : (is_signed ? ARBOR_INT64 : ARBOR_UINT64);
        unsigned how = (kind == SET_ALL   ? ARBOR_WAIT_ALL
                        : kind == SET_ANY ? ARBOR_WAIT_ANY
                                          : ARBOR_WAIT_SOME) |
                       (vector ? ARBOR_WAIT_VECTOR : 0);
        size_t any_index = 0, count = 0;
        size_t *idx = kind == SET_ANY ? &any_index : indices;
        arbor_status_t st;
        /* OpenSHMEM waits have no time limit: ARBOR_TIMEOUT only bounds one arbor call. */
        do
            st = (block ? arbor_wait_set : arbor_test_set)((void *)(uintptr_t)ivars, nelems, dt,
                                                           status, (arbor_cmp_t)cmp, values, how,
                                                           idx, &count);
        while (block && st == ARBOR_ERR_TIMEOUT);
        if (st == ARBOR_OK || st == ARBOR_INPROGRESS) {
            bool held = st == ARBOR_OK;
            if (kind == SET_ALL) return held;
            if (kind == SET_ANY) return held && count ? any_index : SIZE_MAX;
            return held ? count : 0;
        }
        if (st != ARBOR_ERR_ADDRESS) shm_check(st, what);
    }
    size_t one = 0;
    unsigned spins = 0;
    for (;;) {
        size_t eligible = 0;
        size_t hits = scan_set(ivars, nelems, status, cmp, values, vector, size, is_signed,
                               kind == SET_SOME ? indices : NULL, &eligible, &one);
        if (kind == SET_ALL) {
            if (hits == eligible) return 1;
        } else if (eligible == 0) {
            return kind == SET_ANY ? SIZE_MAX : 0;
        } else if (hits) {
            return kind == SET_ANY ? one : hits;
        }
        if (!block) return kind == SET_ANY ? SIZE_MAX : 0;
        shm_progress(&spins);
    }
}

#define SHM_SIGNED_(T)                                                                             \
    _Generic((T)0, short : true, int : true, long : true, long long : true, default : false)
#define SHM_DEF_P2P_(T, N)                                                                         \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                                     \
    {                                                                                              \
        wait_set(SET_ALL, true, ivar, 1, NULL, NULL, cmp, &cmp_value, false, sizeof(T),            \
                 SHM_SIGNED_(T), "shmem_" #N "_wait_until");                                       \
    }                                                                                              \
    void shmem_##N##_wait(T *ivar, T cmp_value)                                                    \
    {                                                                                              \
        wait_set(SET_ALL, true, ivar, 1, NULL, NULL, SHMEM_CMP_NE, &cmp_value, false, sizeof(T),   \
                 SHM_SIGNED_(T), "shmem_" #N "_wait");                                             \
    }                                                                                              \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,           \
                                    T cmp_value)                                                   \
    {                                                                                              \
        wait_set(SET_ALL, true, ivars, nelems, NULL, status, cmp, &cmp_value, false, sizeof(T),    \
                 SHM_SIGNED_(T), "shmem_" #N "_wait_until_all");                                   \
    }                                                                                              \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,         \
                                      T cmp_value)                                                 \
    {                                                                                              \
        return wait_set(SET_ANY, true, ivars, nelems, NULL, status, cmp, &cmp_value, false,        \
                        sizeof(T), SHM_SIGNED_(T), "shmem_" #N "_wait_until_any");                 \
    }                                                                                              \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,                   \
                                       const int *status, int cmp, T cmp_value)                    \
    {                                                                                              \
        return wait_set(SET_SOME, true, ivars, nelems, indices, status, cmp, &cmp_value, false,    \
                        sizeof(T), SHM_SIGNED_(T), "shmem_" #N "_wait_until_some");                \
    }                                                                                              \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,    \
                                           T *cmp_values)                                          \
    {                                                                                              \
        wait_set(SET_ALL, true, ivars, nelems, NULL, status, cmp, cmp_values, true, sizeof(T),     \
                 SHM_SIGNED_(T), "shmem_" #N "_wait_until_all_vector");                            \
    }                                                                                              \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp,  \
                                             T *cmp_values)                                        \
    {                                                                                              \
        return wait_set(SET_ANY, true, ivars, nelems, NULL, status, cmp, cmp_values, true,         \
                        sizeof(T), SHM_SIGNED_(T), "shmem_" #N "_wait_until_any_vector");          \
    }                                                                                              \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,            \
                                              const int *status, int cmp, T *cmp_values)           \
    {                                                                                              \
        return wait_set(SET_SOME, true, ivars, nelems, indices, status, cmp, cmp_values, true,     \
                        sizeof(T), SHM_SIGNED_(T), "shmem_" #N "_wait_until_some_vector");         \
    }                                                                                              \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value)                                            \
    {                                                                                              \
        (void)arbor_poll();                                                                        \
        return (int)wait_set(SET_ALL, false, ivar, 1, NULL, NULL, cmp, &cmp_value, false,          \
                             sizeof(T), SHM_SIGNED_(T), "shmem_" #N "_test");                      \
    }                                                                                              \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)     \
    {                                                                                              \
        (void)arbor_poll();                                                                        \
        return (int)wait_set(SET_ALL, false, ivars, nelems, NULL, status, cmp, &cmp_value, false,  \
                             sizeof(T), SHM_SIGNED_(T), "shmem_" #N "_test_all");                  \
    }                                                                                              \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)  \
    {                                                                                              \
        (void)arbor_poll();                                                                        \
        return wait_set(SET_ANY, false, ivars, nelems, NULL, status, cmp, &cmp_value, false,       \
                        sizeof(T), SHM_SIGNED_(T), "shmem_" #N "_test_any");                       \
    }                                                                                              \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status,      \
                                 int cmp, T cmp_value)                                             \
    {                                                                                              \
        (void)arbor_poll();                                                                        \
        return wait_set(SET_SOME, false, ivars, nelems, indices, status, cmp, &cmp_value, false,   \
                        sizeof(T), SHM_SIGNED_(T), "shmem_" #N "_test_some");                      \
    }                                                                                              \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,           \
                                    T *cmp_values)                                                 \
    {                                                                                              \
        (void)arbor_poll();                                                                        \
        return (int)wait_set(SET_ALL, false, ivars, nelems, NULL, status, cmp, cmp_values, true,   \
                             sizeof(T), SHM_SIGNED_(T), "shmem_" #N "_test_all_vector");           \
    }                                                                                              \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,        \
                                       T *cmp_values)                                              \
    {                                                                                              \
        (void)arbor_poll();                                                                        \
        return wait_set(SET_ANY, false, ivars, nelems, NULL, status, cmp, cmp_values, true,        \
                        sizeof(T), SHM_SIGNED_(T), "shmem_" #N "_test_any_vector");                \
    }                                                                                              \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,                  \
                                        const int *status, int cmp, T *cmp_values)                 \
    {                                                                                              \
        (void)arbor_poll();                                                                        \
        return wait_set(SET_SOME, false, ivars, nelems, indices, status, cmp, cmp_values, true,    \
                        sizeof(T), SHM_SIGNED_(T), "shmem_" #N "_test_some_vector");               \
    }
SHMEM_P2P_TYPES(SHM_DEF_P2P_)

void(shmem_wait_until)(long *ivar, int cmp, long cmp_value)
{
    shmem_long_wait_until(ivar, cmp, cmp_value);
}

void(shmem_wait)(long *ivar, long cmp_value)
{
    shmem_long_wait(ivar, cmp_value);
}

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    if (!sig_addr) shm_fatal("shmem_signal_wait_until", "NULL sig_addr");
    wait_set(SET_ALL, true, sig_addr, 1, NULL, NULL, cmp, &cmp_value, false, sizeof(uint64_t),
             false, "shmem_signal_wait_until");
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}

/* ---- ordering and completion ------------------------------------------------------------ */

void shmem_ctx_fence(shmem_ctx_t ctx)
{
    shm_require_init("shmem_fence");
    if (!ctx) shm_fatal("shmem_ctx_fence", "invalid context");
    if (ctx->arbor) { /* arbor's context orders its own operations */
        shm_check(arbor_ctx_fence(ctx->arbor), "shmem_ctx_fence");
        return;
    }
    /* Operations that bypassed arbor (mapped heap) are complete at issue: a memory barrier
     * orders them. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__atomic_load_n(&shm.arbor_pending, __ATOMIC_ACQUIRE))
        for (int pe = 0; pe < shm.npes; pe++) shm_check(arbor_order(pe), "shmem_fence");
}

void shmem_fence(void)
{
    shmem_ctx_fence(SHMEM_CTX_DEFAULT);
}

void shmem_ctx_quiet(shmem_ctx_t ctx)
{
    shm_require_init("shmem_quiet");
    if (!ctx) shm_fatal("shmem_ctx_quiet", "invalid context");
    if (ctx->arbor) { /* arbor's context completes its own operations only */
        shm_check(arbor_ctx_quiet(ctx->arbor), "shmem_ctx_quiet");
        return;
    }
    /* The flag is set after each call through arbor, so taking it here covers every such call
     * issued before; one issued later sets it again for the next quiet. It is read before it
     * is taken: threads that quiet often would otherwise bounce its line between cores. */
    if (__atomic_load_n(&shm.arbor_pending, __ATOMIC_ACQUIRE) &&
        __atomic_exchange_n(&shm.arbor_pending, 0, __ATOMIC_ACQ_REL))
        shm_check(arbor_quiet(), "shmem_quiet");
    else
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void shmem_quiet(void)
{
    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
}

void shmem_barrier_all(void)
{
    shm_require_init("shmem_barrier_all");
    shmem_quiet();
    shm_check(arbor_barrier(ARBOR_TEAM_WORLD), "shmem_barrier_all");
}

void shmem_sync_all(void)
{
    shm_require_init("shmem_sync_all");
    shm_check(arbor_barrier(ARBOR_TEAM_WORLD), "shmem_sync_all");
}
