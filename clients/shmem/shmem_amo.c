/*
 * Atomic memory operations over arbor_atomic: every AMO type is 32 or 64 bits, so each maps
 * onto arbor's unsigned word of its size (the operations are the same bit patterns signed or
 * not); float and double (fetch, set, swap only) travel as their bit patterns. The fetching
 * _nbi forms are arbor's implicit non-blocking atomics: the result is written by the next
 * quiet.
 */
#include <string.h>

#include "shmem_internal.h"

/* One atomic on a mapped word, with the CPU atomics arbor uses on mapped memory. */
#define SHM_CPU_AMO_(T, W)                                                                         \
    do {                                                                                           \
        T *w = (W), v = operand ? *(const T *)operand : 0, old = 0;                                \
        switch (op) {                                                                              \
        case ARBOR_AMO_FETCH:                                                                      \
            old = __atomic_load_n(w, __ATOMIC_SEQ_CST);                                            \
            break;                                                                                 \
        case ARBOR_AMO_SET:                                                                        \
            __atomic_store_n(w, v, __ATOMIC_SEQ_CST);                                              \
            break;                                                                                 \
        case ARBOR_AMO_ADD:                                                                        \
        case ARBOR_AMO_FADD:                                                                       \
            old = __atomic_fetch_add(w, v, __ATOMIC_SEQ_CST);                                      \
            break;                                                                                 \
        case ARBOR_AMO_AND:                                                                        \
        case ARBOR_AMO_FAND:                                                                       \
            old = __atomic_fetch_and(w, v, __ATOMIC_SEQ_CST);                                      \
            break;                                                                                 \
        case ARBOR_AMO_OR:                                                                         \
        case ARBOR_AMO_FOR:                                                                        \
            old = __atomic_fetch_or(w, v, __ATOMIC_SEQ_CST);                                       \
            break;                                                                                 \
        case ARBOR_AMO_XOR:                                                                        \
        case ARBOR_AMO_FXOR:                                                                       \
            old = __atomic_fetch_xor(w, v, __ATOMIC_SEQ_CST);                                      \
            break;                                                                                 \
        case ARBOR_AMO_SWAP:                                                                       \
            old = __atomic_exchange_n(w, v, __ATOMIC_SEQ_CST);                                     \
            break;                                                                                 \
        case ARBOR_AMO_CSWAP:                                                                      \
            old = *(const T *)compare;                                                             \
            __atomic_compare_exchange_n(w, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);    \
            break;                                                                                 \
        default:                                                                                   \
            break;                                                                                 \
        }                                                                                          \
        if (result) *(T *)result = old;                                                            \
    } while (0)

static inline void amo(shm_tgt_t t, void *dest, arbor_amo_t op, size_t size, const void *operand,
                       const void *compare, void *result, bool nbi, const char *what)
{
    void *mapped = shm_mapped(dest, size, t.wpe);
    if (mapped && ((uintptr_t)mapped & (size - 1)) == 0) {
        if (size == 4)
            SHM_CPU_AMO_(uint32_t, mapped);
        else
            SHM_CPU_AMO_(uint64_t, mapped);
        return;
    }
    arbor_dtype_t dt = size == 4 ? ARBOR_UINT32 : ARBOR_UINT64;
    void *r = shm_remote(dest, t.wpe);
    shm_check(nbi ? arbor_ctx_atomic_nbi(t.ac, t.ape, r, op, dt, operand, compare, result)
                  : arbor_ctx_atomic(t.ac, t.ape, r, op, dt, operand, compare, result),
              what);
    shm_note_op(t);
}

_Static_assert(sizeof(float) == 4 && sizeof(double) == 8, "AMO word sizes");

#define SHM_NAME_(N, OP) "shmem_" #N "_atomic_" #OP
/* Fetch, set, swap (every extended type). */
#define SHM_DEF_AMO_EXT_(T, N)                                                                     \
    T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe)                       \
    {                                                                                              \
        T out;                                                                                     \
        amo(shm_ctx_tgt(ctx, pe, SHM_NAME_(N, fetch)), (void *)source, ARBOR_AMO_FETCH, sizeof(T), \
            NULL, NULL, &out, false, SHM_NAME_(N, fetch));                                         \
        return out;                                                                                \
    }                                                                                              \
    T shmem_##N##_atomic_fetch(const T *source, int pe)                                            \
    {                                                                                              \
        return shmem_ctx_##N##_atomic_fetch(SHMEM_CTX_DEFAULT, source, pe);                        \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe)                     \
    {                                                                                              \
        amo(shm_ctx_tgt(ctx, pe, SHM_NAME_(N, set)), dest, ARBOR_AMO_SET, sizeof(T), &value, NULL, \
            NULL, false, SHM_NAME_(N, set));                                                       \
    }                                                                                              \
    void shmem_##N##_atomic_set(T *dest, T value, int pe)                                          \
    {                                                                                              \
        shmem_ctx_##N##_atomic_set(SHMEM_CTX_DEFAULT, dest, value, pe);                            \
    }                                                                                              \
    T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe)                       \
    {                                                                                              \
        T out;                                                                                     \
        amo(shm_ctx_tgt(ctx, pe, SHM_NAME_(N, swap)), dest, ARBOR_AMO_SWAP, sizeof(T), &value,     \
            NULL, &out, false, SHM_NAME_(N, swap));                                                \
        return out;                                                                                \
    }                                                                                              \
    T shmem_##N##_atomic_swap(T *dest, T value, int pe)                                            \
    {                                                                                              \
        return shmem_ctx_##N##_atomic_swap(SHMEM_CTX_DEFAULT, dest, value, pe);                    \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe)      \
    {                                                                                              \
        amo(shm_ctx_tgt(ctx, pe, SHM_NAME_(N, fetch_nbi)), (void *)source, ARBOR_AMO_FETCH,        \
            sizeof(T), NULL, NULL, fetch, true, SHM_NAME_(N, fetch_nbi));                          \
    }                                                                                              \
    void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe)                           \
    {                                                                                              \
        shmem_ctx_##N##_atomic_fetch_nbi(SHMEM_CTX_DEFAULT, fetch, source, pe);                    \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe)      \
    {                                                                                              \
        /* arbor reads the operand at issue, so the by-value copy may go. */                       \
        amo(shm_ctx_tgt(ctx, pe, SHM_NAME_(N, swap_nbi)), dest, ARBOR_AMO_SWAP, sizeof(T), &value, \
            NULL, fetch, true, SHM_NAME_(N, swap_nbi));                                            \
    }                                                                                              \
    void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe)                           \
    {                                                                                              \
        shmem_ctx_##N##_atomic_swap_nbi(SHMEM_CTX_DEFAULT, fetch, dest, value, pe);                \
    }

/* A fetching operation with one operand: fetch_add and the bitwise ones. */
#define SHM_DEF_AMO_OP_(T, N, NAME, FOP, OP)                                                       \
    T shmem_ctx_##N##_atomic_fetch_##NAME(shmem_ctx_t ctx, T *dest, T value, int pe)               \
    {                                                                                              \
        T out;                                                                                     \
        amo(shm_ctx_tgt(ctx, pe, SHM_NAME_(N, fetch_##NAME)), dest, FOP, sizeof(T), &value, NULL,  \
            &out, false, SHM_NAME_(N, fetch_##NAME));                                              \
        return out;                                                                                \
    }                                                                                              \
    T shmem_##N##_atomic_fetch_##NAME(T *dest, T value, int pe)                                    \
    {                                                                                              \
        return shmem_ctx_##N##_atomic_fetch_##NAME(SHMEM_CTX_DEFAULT, dest, value, pe);            \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_##NAME(shmem_ctx_t ctx, T *dest, T value, int pe)                  \
    {                                                                                              \
        amo(shm_ctx_tgt(ctx, pe, SHM_NAME_(N, NAME)), dest, OP, sizeof(T), &value, NULL, NULL,     \
            false, SHM_NAME_(N, NAME));                                                            \
    }                                                                                              \
    void shmem_##N##_atomic_##NAME(T *dest, T value, int pe)                                       \
    {                                                                                              \
        shmem_ctx_##N##_atomic_##NAME(SHMEM_CTX_DEFAULT, dest, value, pe);                         \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_fetch_##NAME##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value,    \
                                                   int pe)                                         \
    {                                                                                              \
        amo(shm_ctx_tgt(ctx, pe, SHM_NAME_(N, fetch_##NAME##_nbi)), dest, FOP, sizeof(T), &value,  \
            NULL, fetch, true, SHM_NAME_(N, fetch_##NAME##_nbi));                                  \
    }                                                                                              \
    void shmem_##N##_atomic_fetch_##NAME##_nbi(T *fetch, T *dest, T value, int pe)                 \
    {                                                                                              \
        shmem_ctx_##N##_atomic_fetch_##NAME##_nbi(SHMEM_CTX_DEFAULT, fetch, dest, value, pe);      \
    }

#define SHM_DEF_AMO_STD_(T, N)                                                                     \
    SHM_DEF_AMO_OP_(T, N, add, ARBOR_AMO_FADD, ARBOR_AMO_ADD)                                      \
    T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe)       \
    {                                                                                              \
        T out;                                                                                     \
        amo(shm_ctx_tgt(ctx, pe, SHM_NAME_(N, compare_swap)), dest, ARBOR_AMO_CSWAP, sizeof(T),    \
            &value, &cond, &out, false, SHM_NAME_(N, compare_swap));                               \
        return out;                                                                                \
    }                                                                                              \
    T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe)                            \
    {                                                                                              \
        return shmem_ctx_##N##_atomic_compare_swap(SHMEM_CTX_DEFAULT, dest, cond, value, pe);      \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond,       \
                                                 T value, int pe)                                  \
    {                                                                                              \
        amo(shm_ctx_tgt(ctx, pe, SHM_NAME_(N, compare_swap_nbi)), dest, ARBOR_AMO_CSWAP,           \
            sizeof(T), &value, &cond, fetch, true, SHM_NAME_(N, compare_swap_nbi));                \
    }                                                                                              \
    void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe)           \
    {                                                                                              \
        shmem_ctx_##N##_atomic_compare_swap_nbi(SHMEM_CTX_DEFAULT, fetch, dest, cond, value, pe);  \
    }                                                                                              \
    T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe)                           \
    {                                                                                              \
        return shmem_ctx_##N##_atomic_fetch_add(ctx, dest, (T)1, pe);                              \
    }                                                                                              \
    T shmem_##N##_atomic_fetch_inc(T *dest, int pe)                                                \
    {                                                                                              \
        return shmem_ctx_##N##_atomic_fetch_add(SHMEM_CTX_DEFAULT, dest, (T)1, pe);                \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe)                              \
    {                                                                                              \
        shmem_ctx_##N##_atomic_add(ctx, dest, (T)1, pe);                                           \
    }                                                                                              \
    void shmem_##N##_atomic_inc(T *dest, int pe)                                                   \
    {                                                                                              \
        shmem_ctx_##N##_atomic_add(SHMEM_CTX_DEFAULT, dest, (T)1, pe);                             \
    }                                                                                              \
    void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe)          \
    {                                                                                              \
        shmem_ctx_##N##_atomic_fetch_add_nbi(ctx, fetch, dest, (T)1, pe);                          \
    }                                                                                              \
    void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe)                               \
    {                                                                                              \
        shmem_ctx_##N##_atomic_fetch_add_nbi(SHMEM_CTX_DEFAULT, fetch, dest, (T)1, pe);            \
    }

#define SHM_DEF_AMO_BIT_(T, N)                                                                     \
    SHM_DEF_AMO_OP_(T, N, and, ARBOR_AMO_FAND, ARBOR_AMO_AND)                                      \
    SHM_DEF_AMO_OP_(T, N, or, ARBOR_AMO_FOR, ARBOR_AMO_OR)                                         \
    SHM_DEF_AMO_OP_(T, N, xor, ARBOR_AMO_FXOR, ARBOR_AMO_XOR)

SHMEM_AMO_STD_TYPES(SHM_DEF_AMO_EXT_)
SHMEM_AMO_EXT_ONLY_TYPES(SHM_DEF_AMO_EXT_)
SHMEM_AMO_STD_TYPES(SHM_DEF_AMO_STD_)
SHMEM_AMO_BITWISE_TYPES(SHM_DEF_AMO_BIT_)

/* Deprecated spellings. */
#define SHM_DEF_AMO_OLD_EXT_(T, N)                                                                 \
    T shmem_##N##_fetch(const T *source, int pe)                                                   \
    {                                                                                              \
        return shmem_##N##_atomic_fetch(source, pe);                                               \
    }                                                                                              \
    void shmem_##N##_set(T *dest, T value, int pe)                                                 \
    {                                                                                              \
        shmem_##N##_atomic_set(dest, value, pe);                                                   \
    }                                                                                              \
    T shmem_##N##_swap(T *dest, T value, int pe)                                                   \
    {                                                                                              \
        return shmem_##N##_atomic_swap(dest, value, pe);                                           \
    }
#define SHM_DEF_AMO_OLD_STD_(T, N)                                                                 \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe)                                          \
    {                                                                                              \
        return shmem_##N##_atomic_compare_swap(dest, cond, value, pe);                             \
    }                                                                                              \
    T shmem_##N##_finc(T *dest, int pe)                                                            \
    {                                                                                              \
        return shmem_##N##_atomic_fetch_inc(dest, pe);                                             \
    }                                                                                              \
    void shmem_##N##_inc(T *dest, int pe)                                                          \
    {                                                                                              \
        shmem_##N##_atomic_inc(dest, pe);                                                          \
    }                                                                                              \
    T shmem_##N##_fadd(T *dest, T value, int pe)                                                   \
    {                                                                                              \
        return shmem_##N##_atomic_fetch_add(dest, value, pe);                                      \
    }                                                                                              \
    void shmem_##N##_add(T *dest, T value, int pe)                                                 \
    {                                                                                              \
        shmem_##N##_atomic_add(dest, value, pe);                                                   \
    }
SHMEM_AMO_OLD_TYPES(SHM_DEF_AMO_OLD_EXT_)
SHMEM_AMO_EXT_ONLY_TYPES(SHM_DEF_AMO_OLD_EXT_)
SHMEM_AMO_OLD_TYPES(SHM_DEF_AMO_OLD_STD_)
