/*
 * Puts and gets (typed, sized, mem; blocking and _nbi; strided iput / iget; p / g) and put
 * with signal, over arbor_put / arbor_get and their _nb (implicit) and strided forms.
 */
#include <string.h>

#include "shmem_internal.h"

/* A mapped copy: the word sizes as one load and one store (a p / g, or an 8-byte put, would
 * otherwise pay a call into the C library's memmove for a single word), anything else through
 * memmove (a put to this PE's own object may overlap its source). */
#define COPY_WORD(T)                                                                               \
    do {                                                                                           \
        T v_;                                                                                      \
        memcpy(&v_, src, sizeof(T));                                                               \
        memcpy(dst, &v_, sizeof(T));                                                               \
    } while (0)
static inline void mapped_copy(void *dst, const void *src, size_t n)
{
    switch (n) {
    case 1:
        COPY_WORD(uint8_t);
        break;
    case 2:
        COPY_WORD(uint16_t);
        break;
    case 4:
        COPY_WORD(uint32_t);
        break;
    case 8:
        COPY_WORD(uint64_t);
        break;
    default:
        memmove(dst, src, n);
        break;
    }
}
#undef COPY_WORD

static inline void put_bytes(shm_tgt_t t, void *dest, const void *src, size_t nbytes, bool nbi,
                             const char *what)
{
    if (!nbytes) return;
    void *mapped = shm_mapped(dest, nbytes, t.wpe);
    if (mapped) { /* complete at issue, as arbor's mapped path */
        mapped_copy(mapped, src, nbytes);
        return;
    }
    void *r = shm_remote(dest, t.wpe);
    shm_check(nbi ? arbor_ctx_put_nbi(t.ac, t.ape, r, src, nbytes)
                  : arbor_ctx_put(t.ac, t.ape, r, src, nbytes),
              what);
    shm_note_op(t);
}

static inline void get_bytes(shm_tgt_t t, void *dest, const void *src, size_t nbytes, bool nbi,
                             const char *what)
{
    if (!nbytes) return;
    void *mapped = shm_mapped(src, nbytes, t.wpe);
    if (mapped) {
        mapped_copy(dest, mapped, nbytes);
        return;
    }
    void *r = shm_remote(src, t.wpe);
    shm_check(nbi ? arbor_ctx_get_nbi(t.ac, t.ape, dest, r, nbytes)
                  : arbor_ctx_get(t.ac, t.ape, dest, r, nbytes),
              what);
    shm_note_op(t);
}

/* Strided: one element per piece, nelems pieces; strides in elements. */
static void strided(bool is_put, shm_tgt_t t, void *dest, const void *src, ptrdiff_t dst,
                    ptrdiff_t sst, size_t nelems, size_t elem, const char *what)
{
    if (!nelems) return;
    if (nelems == 1) {
        if (is_put)
            put_bytes(t, dest, src, elem, false, what);
        else
            get_bytes(t, dest, src, elem, false, what);
        return;
    }
    ptrdiff_t dstride[1] = {dst * (ptrdiff_t)elem}, sstride[1] = {sst * (ptrdiff_t)elem};
    size_t count[2] = {elem, nelems};
    if (is_put)
        shm_check(arbor_ctx_put_strided(t.ac, t.ape, shm_remote(dest, t.wpe), dstride, src, sstride,
                                        count, 1),
                  what);
    else
        shm_check(arbor_ctx_get_strided(t.ac, t.ape, dest, dstride, shm_remote(src, t.wpe), sstride,
                                        count, 1),
                  what);
    shm_note_op(t);
}

/* The signal word must lie in arbor's heap for arbor_put_signal; one in static data gets the
 * same guarantee from a put, an order point, then an atomic on the word. */
static void put_signal(shm_tgt_t t, void *dest, const void *src, size_t nbytes, uint64_t *sig,
                       uint64_t signal, int sig_op, bool nbi, const char *what)
{
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        shm_fatal(what, "sig_op is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD");
    uint64_t *rsig = shm_remote(sig, t.wpe);
    uintptr_t s = (uintptr_t)sig;
    if (!(s >= shm.static_lo && s < shm.static_hi)) {
        void *rdest = nbytes ? shm_remote(dest, t.wpe) : shm_remote(sig, t.wpe);
        arbor_signal_op_t op = sig_op == SHMEM_SIGNAL_SET ? ARBOR_SIGNAL_SET : ARBOR_SIGNAL_ADD;
        shm_check(nbi ? arbor_ctx_put_signal_nbi(t.ac, t.ape, rdest, src, nbytes, rsig, signal, op)
                      : arbor_ctx_put_signal(t.ac, t.ape, rdest, src, nbytes, rsig, signal, op),
                  what);
        shm_note_op(t);
        return;
    }
    put_bytes(t, dest, src, nbytes, nbi, what);
    shm_check(t.ac ? arbor_ctx_fence(t.ac) : arbor_order(t.wpe), what);
    arbor_amo_t op = sig_op == SHMEM_SIGNAL_SET ? ARBOR_AMO_SET : ARBOR_AMO_ADD;
    shm_check(arbor_ctx_atomic(t.ac, t.ape, rsig, op, ARBOR_UINT64, &signal, NULL, NULL), what);
    shm_note_op(t);
}

#define SHM_DEF_RMA_(T, N)                                                                         \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe)     \
    {                                                                                              \
        put_bytes(shm_ctx_tgt(ctx, pe, "shmem_" #N "_put"), dest, source, nelems * sizeof(T),      \
                  false, "shmem_" #N "_put");                                                      \
    }                                                                                              \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe)                          \
    {                                                                                              \
        put_bytes(shm_world_tgt(pe, "shmem_" #N "_put"), dest, source, nelems * sizeof(T), false,  \
                  "shmem_" #N "_put");                                                             \
    }                                                                                              \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe)     \
    {                                                                                              \
        get_bytes(shm_ctx_tgt(ctx, pe, "shmem_" #N "_get"), dest, source, nelems * sizeof(T),      \
                  false, "shmem_" #N "_get");                                                      \
    }                                                                                              \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe)                          \
    {                                                                                              \
        get_bytes(shm_world_tgt(pe, "shmem_" #N "_get"), dest, source, nelems * sizeof(T), false,  \
                  "shmem_" #N "_get");                                                             \
    }                                                                                              \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) \
    {                                                                                              \
        put_bytes(shm_ctx_tgt(ctx, pe, "shmem_" #N "_put_nbi"), dest, source, nelems * sizeof(T),  \
                  true, "shmem_" #N "_put_nbi");                                                   \
    }                                                                                              \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe)                      \
    {                                                                                              \
        put_bytes(shm_world_tgt(pe, "shmem_" #N "_put_nbi"), dest, source, nelems * sizeof(T),     \
                  true, "shmem_" #N "_put_nbi");                                                   \
    }                                                                                              \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) \
    {                                                                                              \
        get_bytes(shm_ctx_tgt(ctx, pe, "shmem_" #N "_get_nbi"), dest, source, nelems * sizeof(T),  \
                  true, "shmem_" #N "_get_nbi");                                                   \
    }                                                                                              \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe)                      \
    {                                                                                              \
        get_bytes(shm_world_tgt(pe, "shmem_" #N "_get_nbi"), dest, source, nelems * sizeof(T),     \
                  true, "shmem_" #N "_get_nbi");                                                   \
    }                                                                                              \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,            \
                              ptrdiff_t sst, size_t nelems, int pe)                                \
    {                                                                                              \
        strided(true, shm_ctx_tgt(ctx, pe, "shmem_" #N "_iput"), dest, source, dst, sst, nelems,   \
                sizeof(T), "shmem_" #N "_iput");                                                   \
    }                                                                                              \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,   \
                          int pe)                                                                  \
    {                                                                                              \
        strided(true, shm_world_tgt(pe, "shmem_" #N "_iput"), dest, source, dst, sst, nelems,      \
                sizeof(T), "shmem_" #N "_iput");                                                   \
    }                                                                                              \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,            \
                              ptrdiff_t sst, size_t nelems, int pe)                                \
    {                                                                                              \
        strided(false, shm_ctx_tgt(ctx, pe, "shmem_" #N "_iget"), dest, source, dst, sst, nelems,  \
                sizeof(T), "shmem_" #N "_iget");                                                   \
    }                                                                                              \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,   \
                          int pe)                                                                  \
    {                                                                                              \
        strided(false, shm_world_tgt(pe, "shmem_" #N "_iget"), dest, source, dst, sst, nelems,     \
                sizeof(T), "shmem_" #N "_iget");                                                   \
    }                                                                                              \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe)                              \
    {                                                                                              \
        put_bytes(shm_ctx_tgt(ctx, pe, "shmem_" #N "_p"), dest, &value, sizeof(T), false,          \
                  "shmem_" #N "_p");                                                               \
    }                                                                                              \
    void shmem_##N##_p(T *dest, T value, int pe)                                                   \
    {                                                                                              \
        put_bytes(shm_world_tgt(pe, "shmem_" #N "_p"), dest, &value, sizeof(T), false,             \
                  "shmem_" #N "_p");                                                               \
    }                                                                                              \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe)                                  \
    {                                                                                              \
        T value;                                                                                   \
        get_bytes(shm_ctx_tgt(ctx, pe, "shmem_" #N "_g"), &value, source, sizeof(T), false,        \
                  "shmem_" #N "_g");                                                               \
        return value;                                                                              \
    }                                                                                              \
    T shmem_##N##_g(const T *source, int pe)                                                       \
    {                                                                                              \
        T value;                                                                                   \
        get_bytes(shm_world_tgt(pe, "shmem_" #N "_g"), &value, source, sizeof(T), false,           \
                  "shmem_" #N "_g");                                                               \
        return value;                                                                              \
    }                                                                                              \
    void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,      \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)       \
    {                                                                                              \
        put_signal(shm_ctx_tgt(ctx, pe, "shmem_" #N "_put_signal"), dest, source,                  \
                   nelems * sizeof(T), sig_addr, signal, sig_op, false,                            \
                   "shmem_" #N "_put_signal");                                                     \
    }                                                                                              \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,       \
                                uint64_t signal, int sig_op, int pe)                               \
    {                                                                                              \
        put_signal(shm_world_tgt(pe, "shmem_" #N "_put_signal"), dest, source, nelems * sizeof(T), \
                   sig_addr, signal, sig_op, false, "shmem_" #N "_put_signal");                    \
    }                                                                                              \
    void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,  \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)   \
    {                                                                                              \
        put_signal(shm_ctx_tgt(ctx, pe, "shmem_" #N "_put_signal_nbi"), dest, source,              \
                   nelems * sizeof(T), sig_addr, signal, sig_op, true,                             \
                   "shmem_" #N "_put_signal_nbi");                                                 \
    }                                                                                              \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,   \
                                    uint64_t signal, int sig_op, int pe)                           \
    {                                                                                              \
        put_signal(shm_world_tgt(pe, "shmem_" #N "_put_signal_nbi"), dest, source,                 \
                   nelems * sizeof(T), sig_addr, signal, sig_op, true,                             \
                   "shmem_" #N "_put_signal_nbi");                                                 \
    }
SHMEM_RMA_TYPES(SHM_DEF_RMA_)

/* Sized and mem forms: B bits per element (mem: bytes, B = 8). */
#define SHM_DEF_BYTES_(NAME, ESIZE)                                                                \
    void shmem_ctx_put##NAME(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,       \
                             int pe)                                                               \
    {                                                                                              \
        put_bytes(shm_ctx_tgt(ctx, pe, "shmem_put" #NAME), dest, source, nelems *(ESIZE), false,   \
                  "shmem_put" #NAME);                                                              \
    }                                                                                              \
    void shmem_put##NAME(void *dest, const void *source, size_t nelems, int pe)                    \
    {                                                                                              \
        put_bytes(shm_world_tgt(pe, "shmem_put" #NAME), dest, source, nelems *(ESIZE), false,      \
                  "shmem_put" #NAME);                                                              \
    }                                                                                              \
    void shmem_ctx_get##NAME(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,       \
                             int pe)                                                               \
    {                                                                                              \
        get_bytes(shm_ctx_tgt(ctx, pe, "shmem_get" #NAME), dest, source, nelems *(ESIZE), false,   \
                  "shmem_get" #NAME);                                                              \
    }                                                                                              \
    void shmem_get##NAME(void *dest, const void *source, size_t nelems, int pe)                    \
    {                                                                                              \
        get_bytes(shm_world_tgt(pe, "shmem_get" #NAME), dest, source, nelems *(ESIZE), false,      \
                  "shmem_get" #NAME);                                                              \
    }                                                                                              \
    void shmem_ctx_put##NAME##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                   int pe)                                                         \
    {                                                                                              \
        put_bytes(shm_ctx_tgt(ctx, pe, "shmem_put" #NAME "_nbi"), dest, source, nelems *(ESIZE),   \
                  true, "shmem_put" #NAME "_nbi");                                                 \
    }                                                                                              \
    void shmem_put##NAME##_nbi(void *dest, const void *source, size_t nelems, int pe)              \
    {                                                                                              \
        put_bytes(shm_world_tgt(pe, "shmem_put" #NAME "_nbi"), dest, source, nelems *(ESIZE),      \
                  true, "shmem_put" #NAME "_nbi");                                                 \
    }                                                                                              \
    void shmem_ctx_get##NAME##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                   int pe)                                                         \
    {                                                                                              \
        get_bytes(shm_ctx_tgt(ctx, pe, "shmem_get" #NAME "_nbi"), dest, source, nelems *(ESIZE),   \
                  true, "shmem_get" #NAME "_nbi");                                                 \
    }                                                                                              \
    void shmem_get##NAME##_nbi(void *dest, const void *source, size_t nelems, int pe)              \
    {                                                                                              \
        get_bytes(shm_world_tgt(pe, "shmem_get" #NAME "_nbi"), dest, source, nelems *(ESIZE),      \
                  true, "shmem_get" #NAME "_nbi");                                                 \
    }                                                                                              \
    void shmem_ctx_put##NAME##_signal(shmem_ctx_t ctx, void *dest, const void *source,             \
                                      size_t nelems, uint64_t *sig_addr, uint64_t signal,          \
                                      int sig_op, int pe)                                          \
    {                                                                                              \
        put_signal(shm_ctx_tgt(ctx, pe, "shmem_put" #NAME "_signal"), dest, source,                \
                   nelems *(ESIZE), sig_addr, signal, sig_op, false, "shmem_put" #NAME "_signal"); \
    }                                                                                              \
    void shmem_put##NAME##_signal(void *dest, const void *source, size_t nelems,                   \
                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)         \
    {                                                                                              \
        put_signal(shm_world_tgt(pe, "shmem_put" #NAME "_signal"), dest, source, nelems *(ESIZE),  \
                   sig_addr, signal, sig_op, false, "shmem_put" #NAME "_signal");                  \
    }                                                                                              \
    void shmem_ctx_put##NAME##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,         \
                                          size_t nelems, uint64_t *sig_addr, uint64_t signal,      \
                                          int sig_op, int pe)                                      \
    {                                                                                              \
        put_signal(shm_ctx_tgt(ctx, pe, "shmem_put" #NAME "_signal_nbi"), dest, source,            \
                   nelems *(ESIZE), sig_addr, signal, sig_op, true,                                \
                   "shmem_put" #NAME "_signal_nbi");                                               \
    }                                                                                              \
    void shmem_put##NAME##_signal_nbi(void *dest, const void *source, size_t nelems,               \
                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)     \
    {                                                                                              \
        put_signal(shm_world_tgt(pe, "shmem_put" #NAME "_signal_nbi"), dest, source,               \
                   nelems *(ESIZE), sig_addr, signal, sig_op, true,                                \
                   "shmem_put" #NAME "_signal_nbi");                                               \
    }
#define SHM_DEF_SIZED_(B, T)                                                                       \
    SHM_DEF_BYTES_(B, sizeof(T))                                                                   \
    void shmem_ctx_iput##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,         \
                           ptrdiff_t sst, size_t nelems, int pe)                                   \
    {                                                                                              \
        strided(true, shm_ctx_tgt(ctx, pe, "shmem_iput" #B), dest, source, dst, sst, nelems,       \
                sizeof(T), "shmem_iput" #B);                                                       \
    }                                                                                              \
    void shmem_iput##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,               \
                       size_t nelems, int pe)                                                      \
    {                                                                                              \
        strided(true, shm_world_tgt(pe, "shmem_iput" #B), dest, source, dst, sst, nelems,          \
                sizeof(T), "shmem_iput" #B);                                                       \
    }                                                                                              \
    void shmem_ctx_iget##B(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,         \
                           ptrdiff_t sst, size_t nelems, int pe)                                   \
    {                                                                                              \
        strided(false, shm_ctx_tgt(ctx, pe, "shmem_iget" #B), dest, source, dst, sst, nelems,      \
                sizeof(T), "shmem_iget" #B);                                                       \
    }                                                                                              \
    void shmem_iget##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,               \
                       size_t nelems, int pe)                                                      \
    {                                                                                              \
        strided(false, shm_world_tgt(pe, "shmem_iget" #B), dest, source, dst, sst, nelems,         \
                sizeof(T), "shmem_iget" #B);                                                       \
    }
SHMEM_SIZED(SHM_DEF_SIZED_)
SHM_DEF_BYTES_(mem, 1)

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    shm_require_init("shmem_signal_fetch");
    if (!sig_addr) shm_fatal("shmem_signal_fetch", "NULL sig_addr");
    uint64_t v = 0;
    shm_check(arbor_signal_fetch(sig_addr, &v), "shmem_signal_fetch");
    return v;
}
