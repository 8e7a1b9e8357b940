/*
 * Collectives. Team collectives (OpenSHMEM 1.5) are arbor's collectives on the team's arbor
 * team. The deprecated active-set collectives (PE_start, logPE_stride, PE_size, pSync) are
 * called by the members of the set only, which arbor's collectives (collective over a team made
 * by all of its parent) cannot serve: when the set is the whole world they are arbor's world
 * collectives, and otherwise puts and gets between the members, completed by a barrier over
 * pSync.
 */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "shmem_internal.h"

/* arbor's datatype of each OpenSHMEM type name. */
#define SHM_DT_float      ARBOR_FLOAT
#define SHM_DT_double     ARBOR_DOUBLE
#define SHM_DT_longdouble ARBOR_LONGDOUBLE
#define SHM_DT_char       ARBOR_CHAR
#define SHM_DT_schar      ARBOR_INT8
#define SHM_DT_short      ARBOR_SHORT
#define SHM_DT_int        ARBOR_INT
#define SHM_DT_long       ARBOR_LONG
#define SHM_DT_longlong   ARBOR_LONGLONG
#define SHM_DT_uchar      ARBOR_UCHAR
#define SHM_DT_ushort     ARBOR_USHORT
#define SHM_DT_uint       ARBOR_UINT
#define SHM_DT_ulong      ARBOR_ULONG
#define SHM_DT_ulonglong  ARBOR_ULONGLONG
#define SHM_DT_int8       ARBOR_INT8
#define SHM_DT_int16      ARBOR_INT16
#define SHM_DT_int32      ARBOR_INT32
#define SHM_DT_int64      ARBOR_INT64
#define SHM_DT_uint8      ARBOR_UINT8
#define SHM_DT_uint16     ARBOR_UINT16
#define SHM_DT_uint32     ARBOR_UINT32
#define SHM_DT_uint64     ARBOR_UINT64
#define SHM_DT_size       ARBOR_UINT64
#define SHM_DT_ptrdiff    ARBOR_INT64
#define SHM_DT_complexd   ARBOR_DBLCPLX
#define SHM_DT_complexf   ARBOR_CPLX
_Static_assert(sizeof(size_t) == 8 && sizeof(ptrdiff_t) == 8, "size_t / ptrdiff_t are 64-bit");

#define SHM_OP_and  ARBOR_BAND
#define SHM_OP_or   ARBOR_BOR
#define SHM_OP_xor  ARBOR_BXOR
#define SHM_OP_max  ARBOR_MAX
#define SHM_OP_min  ARBOR_MIN
#define SHM_OP_sum  ARBOR_SUM
#define SHM_OP_prod ARBOR_PROD

/* The same operations on two values, for the active-set reductions. */
#define SHM_COMBINE_and(a, b)  ((a) & (b))
#define SHM_COMBINE_or(a, b)   ((a) | (b))
#define SHM_COMBINE_xor(a, b)  ((a) ^ (b))
#define SHM_COMBINE_max(a, b)  ((a) > (b) ? (a) : (b))
#define SHM_COMBINE_min(a, b)  ((a) < (b) ? (a) : (b))
#define SHM_COMBINE_sum(a, b)  ((a) + (b))
#define SHM_COMBINE_prod(a, b) ((a) * (b))

/*
 * OpenSHMEM's collective buffers are symmetric, so arbor may move large chunks with one copy
 * between mapped PEs (ARBOR_SYMMETRIC: the reader takes them straight from the writer's heap
 * block; a buffer outside arbor's heap, static data, still goes through landing slots,
 * correctly). The sizes that decide are single-valued, so every member passes the same flags.
 * Small payloads keep the blocking call, which needs no handle.
 */
#define SHM_ONE_COPY_MIN 4096
static const arbor_op_params_t symmetric_params = {ARBOR_OP_PARAM_FLAGS, ARBOR_SYMMETRIC};

static arbor_status_t finish(arbor_status_t st, arbor_request_h *req)
{
    return st == ARBOR_OK ? arbor_wait(req) : st;
}

static arbor_status_t sym_bcast(arbor_team_h t, void *buf, size_t nbytes, int root)
{
    if (nbytes < SHM_ONE_COPY_MIN) return arbor_bcast(t, buf, nbytes, root);
    arbor_request_h req = NULL;
    return finish(arbor_bcast_nb(t, buf, nbytes, root, &symmetric_params, &req), &req);
}

static arbor_status_t sym_allgather(arbor_team_h t, const void *src, void *dst, size_t nbytes)
{
    if (nbytes < SHM_ONE_COPY_MIN) return arbor_allgather(t, src, dst, nbytes, ARBOR_BYTE);
    arbor_request_h req = NULL;
    return finish(arbor_allgather_nb(t, src, dst, nbytes, ARBOR_BYTE, &symmetric_params, &req),
                  &req);
}

static arbor_status_t sym_alltoall(arbor_team_h t, const void *src, void *dst, size_t nbytes)
{
    if (nbytes < SHM_ONE_COPY_MIN) return arbor_alltoall(t, src, dst, nbytes, ARBOR_BYTE);
    arbor_request_h req = NULL;
    return finish(arbor_alltoall_nb(t, src, dst, nbytes, ARBOR_BYTE, &symmetric_params, &req),
                  &req);
}

static arbor_status_t sym_allreduce(arbor_team_h t, const void *src, void *dst, size_t count,
                                    size_t elem, arbor_dtype_t dtype, arbor_op_t op)
{
    if (count * elem < SHM_ONE_COPY_MIN) return arbor_allreduce(t, src, dst, count, dtype, op);
    arbor_request_h req = NULL;
    return finish(arbor_allreduce_nb(t, src, dst, count, dtype, op, &symmetric_params, &req), &req);
}

static bool team_usable(shmem_team_t team)
{
    return shm.initialized && team && team->world_of;
}

/* A team collective's arbor call: 0 on success; a failure is reported and ends the job, as
 * arbor leaves the team unusable after most collective errors. */
static int coll_status(arbor_status_t st, const char *what)
{
    shm_check(st, what);
    return 0;
}

/* ---- team collectives ------------------------------------------------------------------- */

int shmem_team_sync(shmem_team_t team)
{
    if (!team_usable(team)) return -1;
    return coll_status(arbor_barrier(team->arbor), "shmem_team_sync");
}

static int broadcast_bytes(shmem_team_t team, void *dest, const void *source, size_t nbytes,
                           int root, const char *what)
{
    if (!team_usable(team) || root < 0 || root >= team->n_pes) return -1;
    if (nbytes && (!dest || !source)) return -1;
    if (team->my_pe == root && dest != source && nbytes) memmove(dest, source, nbytes);
    return coll_status(sym_bcast(team->arbor, dest, nbytes, root), what);
}

static int collect_bytes(shmem_team_t team, void *dest, const void *source, size_t nbytes,
                         const char *what)
{
    if (!team_usable(team)) return -1;
    int n = team->n_pes;
    uint64_t mine = nbytes;
    uint64_t *counts64 = malloc(sizeof(uint64_t) * (size_t)n);
    size_t *counts = malloc(sizeof(size_t) * (size_t)n),
           *displs = malloc(sizeof(size_t) * (size_t)n);
    if (!counts64 || !counts || !displs) shm_fatal(what, "out of memory");
    shm_check(arbor_allgather(team->arbor, &mine, counts64, 1, ARBOR_UINT64), what);
    size_t at = 0;
    for (int r = 0; r < n; r++) {
        counts[r] = (size_t)counts64[r];
        displs[r] = at;
        at += counts[r];
    }
    int rc = coll_status(
        arbor_allgatherv(team->arbor, source, nbytes, dest, counts, displs, ARBOR_BYTE), what);
    free(counts64);
    free(counts);
    free(displs);
    return rc;
}

static int fcollect_bytes(shmem_team_t team, void *dest, const void *source, size_t nbytes,
                          const char *what)
{
    if (!team_usable(team)) return -1;
    return coll_status(sym_allgather(team->arbor, source, dest, nbytes), what);
}

static int alltoall_bytes(shmem_team_t team, void *dest, const void *source, size_t nbytes,
                          const char *what)
{
    if (!team_usable(team)) return -1;
    return coll_status(sym_alltoall(team->arbor, source, dest, nbytes), what);
}

/* Strided all-to-all: packed into contiguous blocks, exchanged, unpacked. */
static int alltoalls_bytes(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                           ptrdiff_t sst, size_t nelems, size_t elem, const char *what)
{
    if (!team_usable(team)) return -1;
    size_t n = (size_t)team->n_pes, block = nelems * elem;
    uint8_t *packed = calloc(block * n + 1, 1), *landed = calloc(block * n + 1, 1);
    if (!packed || !landed) shm_fatal(what, "out of memory");
    const uint8_t *s = source;
    uint8_t *d = dest;
    for (size_t j = 0; j < n; j++)
        for (size_t k = 0; k < nelems; k++)
            memcpy(packed + (j * nelems + k) * elem,
                   s + ((ptrdiff_t)(j * nelems) * sst + (ptrdiff_t)k * sst) * (ptrdiff_t)elem,
                   elem);
    int rc = coll_status(arbor_alltoall(team->arbor, packed, landed, block, ARBOR_BYTE), what);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < nelems; k++)
            memcpy(d + ((ptrdiff_t)(i * nelems) * dst + (ptrdiff_t)k * dst) * (ptrdiff_t)elem,
                   landed + (i * nelems + k) * elem, elem);
    free(packed);
    free(landed);
    return rc;
}

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root)
{
    return broadcast_bytes(team, dest, source, nelems, PE_root, "shmem_broadcastmem");
}

int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return collect_bytes(team, dest, source, nelems, "shmem_collectmem");
}

int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return fcollect_bytes(team, dest, source, nelems, "shmem_fcollectmem");
}

int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return alltoall_bytes(team, dest, source, nelems, "shmem_alltoallmem");
}

int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems)
{
    return alltoalls_bytes(team, dest, source, dst, sst, nelems, 1, "shmem_alltoallsmem");
}

#define SHM_DEF_COLL_(T, N)                                                                        \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,          \
                              int PE_root)                                                         \
    {                                                                                              \
        return broadcast_bytes(team, dest, source, nelems * sizeof(T), PE_root,                    \
                               "shmem_" #N "_broadcast");                                          \
    }                                                                                              \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems)            \
    {                                                                                              \
        return collect_bytes(team, dest, source, nelems * sizeof(T), "shmem_" #N "_collect");      \
    }                                                                                              \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems)           \
    {                                                                                              \
        return fcollect_bytes(team, dest, source, nelems * sizeof(T), "shmem_" #N "_fcollect");    \
    }                                                                                              \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems)           \
    {                                                                                              \
        return alltoall_bytes(team, dest, source, nelems * sizeof(T), "shmem_" #N "_alltoall");    \
    }                                                                                              \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,          \
                              ptrdiff_t sst, size_t nelems)                                        \
    {                                                                                              \
        return alltoalls_bytes(team, dest, source, dst, sst, nelems, sizeof(T),                    \
                               "shmem_" #N "_alltoalls");                                          \
    }
SHMEM_RMA_TYPES(SHM_DEF_COLL_)

#define SHM_DEF_REDUCE_(T, N, OP)                                                                  \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce)     \
    {                                                                                              \
        if (!team_usable(team)) return -1;                                                         \
        const void *send = dest == source ? ARBOR_IN_PLACE : (const void *)source;                 \
        return coll_status(                                                                        \
            sym_allreduce(team->arbor, send, dest, nreduce, sizeof(T), SHM_DT_##N, SHM_OP_##OP),   \
            "shmem_" #N "_" #OP "_reduce");                                                        \
    }
#define SHM_DEF_REDUCE_BIT_(T, N)                                                                  \
    SHM_DEF_REDUCE_(T, N, and) SHM_DEF_REDUCE_(T, N, or) SHM_DEF_REDUCE_(T, N, xor)
#define SHM_DEF_REDUCE_MINMAX_(T, N) SHM_DEF_REDUCE_(T, N, max) SHM_DEF_REDUCE_(T, N, min)
#define SHM_DEF_REDUCE_ARITH_(T, N)  SHM_DEF_REDUCE_(T, N, sum) SHM_DEF_REDUCE_(T, N, prod)
SHMEM_REDUCE_BITWISE_TYPES(SHM_DEF_REDUCE_BIT_)
SHMEM_REDUCE_BITWISE_EXT_TYPES(SHM_DEF_REDUCE_BIT_)
SHMEM_REDUCE_MINMAX_TYPES(SHM_DEF_REDUCE_MINMAX_)
SHMEM_REDUCE_ARITH_TYPES(SHM_DEF_REDUCE_ARITH_)

/* ---- active sets -------------------------------------------------------------------------- */

typedef struct {
    int start, log_stride, size;
    int index;  /* this PE's index in the set */
    bool world; /* the set is every PE in order */
} shm_aset_t;

static shm_aset_t aset_of(int start, int log_stride, int size, const char *what)
{
    shm_require_init(what);
    if (size <= 0 || start < 0 || log_stride < 0 || log_stride > 30)
        shm_fatal(what, "invalid active set (PE_start, logPE_stride, PE_size)");
    long last = (long)start + ((long)(size - 1) << log_stride);
    if (last >= shm.npes) shm_fatal(what, "active set reaches past the last PE");
    shm_aset_t a = {start, log_stride, size, -1, false};
    long rel = shm.me - start;
    if (rel >= 0 && (rel & ((1L << log_stride) - 1)) == 0 && (rel >> log_stride) < size)
        a.index = (int)(rel >> log_stride);
    if (a.index < 0) shm_fatal(what, "this PE is not in the active set");
    a.world = start == 0 && size == shm.npes && (log_stride == 0 || size == 1);
    return a;
}

static inline int aset_pe(const shm_aset_t *a, int index)
{
    return a->start + (index << a->log_stride);
}

static void wait_word(long *word, int cmp, long value, const char *what)
{
    unsigned spins = 0;
    while (!shm_compare(cmp, word, &value, sizeof(long), true)) shm_progress(&spins);
    (void)what;
}

/* The set's first PE counts arrivals in its pSync[0]; once all have arrived it resets the count
 * and sets every other member's pSync[1], which each resets on leaving. Both words are back to
 * SHMEM_SYNC_VALUE when the call returns, as the standard requires. */
static void aset_barrier(const shm_aset_t *a, long *pSync, const char *what)
{
    shm_check(arbor_quiet(), what);
    if (a->world) {
        shm_check(arbor_barrier(ARBOR_TEAM_WORLD), what);
        return;
    }
    if (a->size == 1) return;
    if (!pSync) shm_fatal(what, "NULL pSync");
    int root = aset_pe(a, 0);
    int64_t one = 1, zero = 0;
    if (a->index == 0) {
        wait_word(&pSync[0], SHMEM_CMP_EQ, a->size - 1, what);
        shm_check(arbor_atomic(shm.me, shm_remote(&pSync[0], shm.me), ARBOR_AMO_SET, ARBOR_INT64,
                               &zero, NULL, NULL),
                  what);
        for (int i = 1; i < a->size; i++) {
            int pe = aset_pe(a, i);
            shm_check(arbor_atomic(pe, shm_remote(&pSync[1], pe), ARBOR_AMO_SET, ARBOR_INT64, &one,
                                   NULL, NULL),
                      what);
        }
    } else {
        shm_check(arbor_atomic(root, shm_remote(&pSync[0], root), ARBOR_AMO_ADD, ARBOR_INT64, &one,
                               NULL, NULL),
                  what);
        wait_word(&pSync[1], SHMEM_CMP_NE, 0, what);
        shm_check(arbor_atomic(shm.me, shm_remote(&pSync[1], shm.me), ARBOR_AMO_SET, ARBOR_INT64,
                               &zero, NULL, NULL),
                  what);
    }
}

void shm_aset_barrier(int start, int log_stride, int size, long *pSync, const char *what)
{
    shm_aset_t a = aset_of(start, log_stride, size, what);
    aset_barrier(&a, pSync, what);
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    shm_aset_barrier(PE_start, logPE_stride, PE_size, pSync, "shmem_barrier");
}

void(shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    /* A barrier without the quiet would do; the quiet only adds completion. */
    shm_aset_barrier(PE_start, logPE_stride, PE_size, pSync, "shmem_sync");
}

static void aset_put(int pe, void *dest, const void *src, size_t nbytes, const char *what)
{
    if (nbytes) shm_check(arbor_put_nb(pe, shm_remote(dest, pe), src, nbytes, NULL), what);
}

static void aset_broadcast(void *dest, const void *source, size_t nbytes, int root, int start,
                           int log_stride, int size, long *pSync, const char *what)
{
    shm_aset_t a = aset_of(start, log_stride, size, what);
    if (root < 0 || root >= size) shm_fatal(what, "PE_root outside the active set");
    if (a.world) {
        /* The root's dest is not written (the deprecated broadcast leaves it). */
        void *buf = a.index == root ? (void *)source : dest;
        shm_check(sym_bcast(ARBOR_TEAM_WORLD, buf, nbytes, root), what);
        return;
    }
    if (a.index == root)
        for (int i = 0; i < size; i++)
            if (i != root) aset_put(aset_pe(&a, i), dest, source, nbytes, what);
    aset_barrier(&a, pSync, what);
}

static void aset_fcollect(void *dest, const void *source, size_t nbytes, int start, int log_stride,
                          int size, long *pSync, const char *what)
{
    shm_aset_t a = aset_of(start, log_stride, size, what);
    if (a.world) {
        shm_check(sym_allgather(ARBOR_TEAM_WORLD, source, dest, nbytes), what);
        return;
    }
    for (int i = 0; i < size; i++)
        aset_put(aset_pe(&a, i), (uint8_t *)dest + (size_t)a.index * nbytes, source, nbytes, what);
    aset_barrier(&a, pSync, what);
}

static void aset_collect(void *dest, const void *source, size_t nbytes, int start, int log_stride,
                         int size, long *pSync, const char *what)
{
    shm_aset_t a = aset_of(start, log_stride, size, what);
    if (a.world) {
        collect_bytes(SHMEM_TEAM_WORLD, dest, source, nbytes, what);
        return;
    }
    /* Every member's size lands in the scratch slot of its PE on every member. */
    long *sizes = (long *)shm.scratch + SHM_SCRATCH_COLLECT;
    long mine = (long)nbytes;
    for (int i = 0; i < size; i++)
        aset_put(aset_pe(&a, i), &sizes[shm.me], &mine, sizeof mine, what);
    aset_barrier(&a, pSync, what);
    size_t at = 0;
    for (int i = 0; i < a.index; i++)
        at += (size_t)__atomic_load_n(&sizes[aset_pe(&a, i)], __ATOMIC_ACQUIRE);
    for (int i = 0; i < size; i++)
        aset_put(aset_pe(&a, i), (uint8_t *)dest + at, source, nbytes, what);
    aset_barrier(&a, pSync, what);
}

static void aset_alltoall(void *dest, const void *source, size_t nbytes, int start, int log_stride,
                          int size, long *pSync, const char *what)
{
    shm_aset_t a = aset_of(start, log_stride, size, what);
    if (a.world) {
        shm_check(sym_alltoall(ARBOR_TEAM_WORLD, source, dest, nbytes), what);
        return;
    }
    for (int i = 0; i < size; i++)
        aset_put(aset_pe(&a, i), (uint8_t *)dest + (size_t)a.index * nbytes,
                 (const uint8_t *)source + (size_t)i * nbytes, nbytes, what);
    aset_barrier(&a, pSync, what);
}

static void aset_alltoalls(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                           size_t nelems, size_t elem, int start, int log_stride, int size,
                           long *pSync, const char *what)
{
    shm_aset_t a = aset_of(start, log_stride, size, what);
    for (int i = 0; i < size && nelems; i++) {
        int pe = aset_pe(&a, i);
        uint8_t *d = (uint8_t *)dest + (ptrdiff_t)(a.index * nelems) * dst * (ptrdiff_t)elem;
        const uint8_t *s =
            (const uint8_t *)source + (ptrdiff_t)(i * nelems) * sst * (ptrdiff_t)elem;
        ptrdiff_t dstride[1] = {dst * (ptrdiff_t)elem}, sstride[1] = {sst * (ptrdiff_t)elem};
        size_t count[2] = {elem, nelems};
        shm_check(arbor_put_strided_nb(pe, shm_remote(d, pe), dstride, s, sstride, count, 1, NULL),
                  what);
    }
    aset_barrier(&a, pSync, what);
}

#define SHM_DEF_ASET_(B)                                                                           \
    void shmem_broadcast##B(void *dest, const void *source, size_t nelems, int PE_root,            \
                            int PE_start, int logPE_stride, int PE_size, long *pSync)              \
    {                                                                                              \
        aset_broadcast(dest, source, nelems *(B / 8), PE_root, PE_start, logPE_stride, PE_size,    \
                       pSync, "shmem_broadcast" #B);                                               \
    }                                                                                              \
    void shmem_collect##B(void *dest, const void *source, size_t nelems, int PE_start,             \
                          int logPE_stride, int PE_size, long *pSync)                              \
    {                                                                                              \
        aset_collect(dest, source, nelems *(B / 8), PE_start, logPE_stride, PE_size, pSync,        \
                     "shmem_collect" #B);                                                          \
    }                                                                                              \
    void shmem_fcollect##B(void *dest, const void *source, size_t nelems, int PE_start,            \
                           int logPE_stride, int PE_size, long *pSync)                             \
    {                                                                                              \
        aset_fcollect(dest, source, nelems *(B / 8), PE_start, logPE_stride, PE_size, pSync,       \
                      "shmem_fcollect" #B);                                                        \
    }                                                                                              \
    void shmem_alltoall##B(void *dest, const void *source, size_t nelems, int PE_start,            \
                           int logPE_stride, int PE_size, long *pSync)                             \
    {                                                                                              \
        aset_alltoall(dest, source, nelems *(B / 8), PE_start, logPE_stride, PE_size, pSync,       \
                      "shmem_alltoall" #B);                                                        \
    }                                                                                              \
    void shmem_alltoalls##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,          \
                            size_t nelems, int PE_start, int logPE_stride, int PE_size,            \
                            long *pSync)                                                           \
    {                                                                                              \
        aset_alltoalls(dest, source, dst, sst, nelems, B / 8, PE_start, logPE_stride, PE_size,     \
                       pSync, "shmem_alltoalls" #B);                                               \
    }
SHM_DEF_ASET_(32)
SHM_DEF_ASET_(64)

/* Active-set reduction off the world: after a barrier (every source ready), each member gets
 * every member's source and combines locally; a second barrier (every source read) comes before
 * dest is written, since dest may be source. */
#define SHM_DEF_TOALL_(T, N, OP)                                                                   \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,            \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync)            \
    {                                                                                              \
        const char *what = "shmem_" #N "_" #OP "_to_all";                                          \
        (void)pWrk;                                                                                \
        shm_aset_t a = aset_of(PE_start, logPE_stride, PE_size, what);                             \
        if (nreduce < 0) shm_fatal(what, "negative nreduce");                                      \
        size_t n = (size_t)nreduce;                                                                \
        if (a.world) {                                                                             \
            const void *send = dest == source ? ARBOR_IN_PLACE : (const void *)source;             \
            shm_check(sym_allreduce(ARBOR_TEAM_WORLD, send, dest, n, sizeof(T), SHM_DT_##N,        \
                                    SHM_OP_##OP),                                                  \
                      what);                                                                       \
            return;                                                                                \
        }                                                                                          \
        T *acc = malloc(sizeof(T) * n + 1), *peer = malloc(sizeof(T) * n + 1);                     \
        if (!acc || !peer) shm_fatal(what, "out of memory");                                       \
        aset_barrier(&a, pSync, what);                                                             \
        for (int i = 0; i < PE_size; i++) {                                                        \
            int pe = aset_pe(&a, i);                                                               \
            T *into = i == 0 ? acc : peer;                                                         \
            if (n) shm_check(arbor_get(pe, into, shm_remote(source, pe), sizeof(T) * n), what);    \
            if (i)                                                                                 \
                for (size_t k = 0; k < n; k++) acc[k] = SHM_COMBINE_##OP(acc[k], peer[k]);         \
        }                                                                                          \
        aset_barrier(&a, pSync, what);                                                             \
        if (n) memcpy(dest, acc, sizeof(T) * n);                                                   \
        free(acc);                                                                                 \
        free(peer);                                                                                \
    }
#define SHM_DEF_TOALL_BIT_(T, N)                                                                   \
    SHM_DEF_TOALL_(T, N, and) SHM_DEF_TOALL_(T, N, or) SHM_DEF_TOALL_(T, N, xor)
#define SHM_DEF_TOALL_MINMAX_(T, N) SHM_DEF_TOALL_(T, N, max) SHM_DEF_TOALL_(T, N, min)
#define SHM_DEF_TOALL_ARITH_(T, N)  SHM_DEF_TOALL_(T, N, sum) SHM_DEF_TOALL_(T, N, prod)
SHMEM_TOALL_BITWISE_TYPES(SHM_DEF_TOALL_BIT_)
SHMEM_TOALL_MINMAX_TYPES(SHM_DEF_TOALL_MINMAX_)
SHMEM_TOALL_ARITH_TYPES(SHM_DEF_TOALL_ARITH_)
