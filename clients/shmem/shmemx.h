/*
 * shmemx.h: OpenSHMEM implementation extensions. Portable programs and test suites include it
 * unconditionally; libshmem_arbor declares here the few extensions such programs commonly call:
 * a wall-clock timer and the bitwise AMO names that predate their standardisation in 1.4.
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

#ifdef __cplusplus
}
#endif

#endif
