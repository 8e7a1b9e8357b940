/*
 * shmemx.h: OpenSHMEM implementation extensions. Portable programs and test suites include it
 * unconditionally; libshmem_arbor declares here the few extensions such programs commonly call:
 * a wall-clock timer, and the bitwise AMO and put-with-signal names that predate their
 * standardisation (1.4 and 1.5).
 */
#ifndef SHMEMX_H
#define SHMEMX_H

#include "shmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds since an arbitrary point in the past (a monotonic clock), for timing. */
SHMEM_API double shmemx_wtime(void);
/* Programs that define their own timer when the implementation has none test this. */
#define HAVE_SHMEMX_WTIME 1

/* shmemx_<type>_atomic_{and,or,xor} and the fetching forms: the 1.4 standard names. */
#define SHMEMX_AMO_BIT_(T, N)                                                                      \
    static inline void shmemx_##N##_atomic_and(T *dest, T value, int pe)                           \
    {                                                                                              \
        shmem_##N##_atomic_and(dest, value, pe);                                                   \
    }                                                                                              \
    static inline void shmemx_##N##_atomic_or(T *dest, T value, int pe)                            \
    {                                                                                              \
        shmem_##N##_atomic_or(dest, value, pe);                                                    \
    }                                                                                              \
    static inline void shmemx_##N##_atomic_xor(T *dest, T value, int pe)                           \
    {                                                                                              \
        shmem_##N##_atomic_xor(dest, value, pe);                                                   \
    }                                                                                              \
    static inline T shmemx_##N##_atomic_fetch_and(T *dest, T value, int pe)                        \
    {                                                                                              \
        return shmem_##N##_atomic_fetch_and(dest, value, pe);                                      \
    }                                                                                              \
    static inline T shmemx_##N##_atomic_fetch_or(T *dest, T value, int pe)                         \
    {                                                                                              \
        return shmem_##N##_atomic_fetch_or(dest, value, pe);                                       \
    }                                                                                              \
    static inline T shmemx_##N##_atomic_fetch_xor(T *dest, T value, int pe)                        \
    {                                                                                              \
        return shmem_##N##_atomic_fetch_xor(dest, value, pe);                                      \
    }
SHMEM_AMO_BITWISE_TYPES(SHMEMX_AMO_BIT_)
#undef SHMEMX_AMO_BIT_

/* Put with signal as it was before OpenSHMEM 1.5 (no signal operation: the signal word is set).
 * shmemx_<type>_put_signal(_nbi) and shmemx_putmem_signal(_nbi). */
#define SHMEMX_PUT_SIGNAL_(T, N)                                                                   \
    static inline void shmemx_##N##_put_signal(T *dest, const T *source, size_t nelems,            \
                                               uint64_t *sig_addr, uint64_t signal, int pe)        \
    {                                                                                              \
        shmem_##N##_put_signal(dest, source, nelems, sig_addr, signal, SHMEM_SIGNAL_SET, pe);      \
    }                                                                                              \
    static inline void shmemx_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,        \
                                                   uint64_t *sig_addr, uint64_t signal, int pe)    \
    {                                                                                              \
        shmem_##N##_put_signal_nbi(dest, source, nelems, sig_addr, signal, SHMEM_SIGNAL_SET, pe);  \
    }
SHMEM_RMA_TYPES(SHMEMX_PUT_SIGNAL_)
#undef SHMEMX_PUT_SIGNAL_
static inline void shmemx_putmem_signal(void *dest, const void *source, size_t nelems,
                                        uint64_t *sig_addr, uint64_t signal, int pe)
{
    shmem_putmem_signal(dest, source, nelems, sig_addr, signal, SHMEM_SIGNAL_SET, pe);
}
static inline void shmemx_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
                                            uint64_t *sig_addr, uint64_t signal, int pe)
{
    shmem_putmem_signal_nbi(dest, source, nelems, sig_addr, signal, SHMEM_SIGNAL_SET, pe);
}

#ifdef __cplusplus
}
#endif

#endif
