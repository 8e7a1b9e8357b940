/*
 * shmem.h: the OpenSHMEM 1.5 C API of libshmem_arbor (clients/shmem), built on arbor's public
 * API. clients/shmem/README.md says what is implemented, how it maps onto arbor and what is
 * not supported.
 *
 * The typed interfaces are declared from type lists (X-macros), so every standard type gets
 * every routine; the C11 generic selections below dispatch on the pointed-to type, with and
 * without a leading context argument.
 */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SHMEM_API __attribute__((visibility("default")))
#else
#define SHMEM_API
#endif

#define SHMEM_MAJOR_VERSION  1
#define SHMEM_MINOR_VERSION  5
#define SHMEM_MAX_NAME_LEN   256
#define SHMEM_VENDOR_STRING  "arbor libshmem_arbor"
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN  SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

enum {
    SHMEM_THREAD_SINGLE = 0,
    SHMEM_THREAD_FUNNELED = 1,
    SHMEM_THREAD_SERIALIZED = 2,
    SHMEM_THREAD_MULTIPLE = 3
};

/* The comparison constants. The standard passes them as int; the type name is the one other
 * implementations give them, which programs written for those declare comparisons with. */
typedef enum shmem_cmp {
    SHMEM_CMP_EQ = 0,
    SHMEM_CMP_NE = 1,
    SHMEM_CMP_GT = 2,
    SHMEM_CMP_GE = 3,
    SHMEM_CMP_LT = 4,
    SHMEM_CMP_LE = 5
} shmem_cmp_t;
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* Synchronisation and work arrays of the deprecated active-set collectives. */
#define SHMEM_SYNC_VALUE               0L
#define SHMEM_SYNC_SIZE                8
#define SHMEM_BCAST_SYNC_SIZE          SHMEM_SYNC_SIZE
#define SHMEM_BARRIER_SYNC_SIZE        SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE         SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE        SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE       SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE      SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE  1
#define _SHMEM_SYNC_VALUE              SHMEM_SYNC_VALUE
#define _SHMEM_BCAST_SYNC_SIZE         SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE       SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE        SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE       SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_ALLTOALL_SYNC_SIZE      SHMEM_ALLTOALL_SYNC_SIZE
#define _SHMEM_ALLTOALLS_SYNC_SIZE     SHMEM_ALLTOALLS_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* Hints of shmem_malloc_with_hints (accepted; every allocation already serves them). */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE  (1L << 1)

/* Context options (accepted: see README.md, "Contexts"). */
#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE    (1L << 1)
#define SHMEM_CTX_NOSTORE    (1L << 2)

typedef struct shmem_ctx_s *shmem_ctx_t;
typedef struct shmem_team_s *shmem_team_t;
typedef struct {
    int num_contexts;
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

SHMEM_API extern shmem_ctx_t SHMEM_CTX_DEFAULT;
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
SHMEM_API extern shmem_team_t SHMEM_TEAM_WORLD;
SHMEM_API extern shmem_team_t SHMEM_TEAM_SHARED;
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

/* ---- library setup, query, exit -------------------------------------------------------- */
SHMEM_API void shmem_init(void);
SHMEM_API int shmem_init_thread(int requested, int *provided);
SHMEM_API void shmem_query_thread(int *provided);
SHMEM_API void shmem_finalize(void);
SHMEM_API void shmem_global_exit(int status);
SHMEM_API int shmem_my_pe(void);
SHMEM_API int shmem_n_pes(void);
SHMEM_API int shmem_pe_accessible(int pe);
SHMEM_API int shmem_addr_accessible(const void *addr, int pe);
SHMEM_API void *shmem_ptr(const void *dest, int pe);
SHMEM_API void shmem_info_get_version(int *major, int *minor);
SHMEM_API void shmem_info_get_name(char *name);
SHMEM_API void shmem_pcontrol(int level, ...);
/* Deprecated spellings. */
SHMEM_API void start_pes(int npes);
/* Deprecated cache management: the standard lets them do nothing, and here they do nothing
 * (arbor keeps no caches that a program must manage). */
SHMEM_API void shmem_clear_cache_inv(void);
SHMEM_API void shmem_set_cache_inv(void);
SHMEM_API void shmem_clear_cache_line_inv(void *dest);
SHMEM_API void shmem_set_cache_line_inv(void *dest);
SHMEM_API void shmem_udcflush(void);
SHMEM_API void shmem_udcflush_line(void *dest);
SHMEM_API int _my_pe(void);
SHMEM_API int _num_pes(void);

/* ---- memory management ------------------------------------------------------------------ */
SHMEM_API void *shmem_malloc(size_t size);
SHMEM_API void *shmem_calloc(size_t count, size_t size);
SHMEM_API void *shmem_realloc(void *ptr, size_t size);
SHMEM_API void *shmem_align(size_t alignment, size_t size);
SHMEM_API void *shmem_malloc_with_hints(size_t size, long hints);
SHMEM_API void shmem_free(void *ptr);
SHMEM_API void *shmalloc(size_t size);
SHMEM_API void *shmemalign(size_t alignment, size_t size);
SHMEM_API void *shrealloc(void *ptr, size_t size);
SHMEM_API void shfree(void *ptr);

/* ---- teams and contexts ----------------------------------------------------------------- */
SHMEM_API int shmem_team_my_pe(shmem_team_t team);
SHMEM_API int shmem_team_n_pes(shmem_team_t team);
SHMEM_API int shmem_team_get_config(shmem_team_t team, long config_mask,
                                    shmem_team_config_t *config);
SHMEM_API int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
SHMEM_API int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                                       const shmem_team_config_t *config, long config_mask,
                                       shmem_team_t *new_team);
SHMEM_API int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                                  const shmem_team_config_t *xaxis_config, long xaxis_mask,
                                  shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                                  long yaxis_mask, shmem_team_t *yaxis_team);
SHMEM_API void shmem_team_destroy(shmem_team_t team);
SHMEM_API void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);
SHMEM_API int shmem_ctx_create(long options, shmem_ctx_t *ctx);
SHMEM_API int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
SHMEM_API void shmem_ctx_destroy(shmem_ctx_t ctx);
SHMEM_API int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* ---- type lists ------------------------------------------------------------------------- */
/* Standard RMA types: X(C type, TYPENAME). */
#define SHMEM_RMA_TYPES(X)                                                                         \
    X(float, float)                                                                                \
    X(double, double)                                                                              \
    X(long double, longdouble)                                                                     \
    X(char, char)                                                                                  \
    X(signed char, schar)                                                                          \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(unsigned char, uchar)                                                                        \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int8_t, int8)                                                                                \
    X(int16_t, int16)                                                                              \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint8_t, uint8)                                                                              \
    X(uint16_t, uint16)                                                                            \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)                                                                                \
    X(ptrdiff_t, ptrdiff)
/* Sized interfaces: X(bits, C type of that many bits). */
#define SHMEM_SIZED(X)                                                                             \
    X(8, uint8_t)                                                                                  \
    X(16, uint16_t)                                                                                \
    X(32, uint32_t)                                                                                \
    X(64, uint64_t)                                                                                \
    X(128, shmem_uint128_t_)
typedef struct {
    uint64_t w[2];
} shmem_uint128_t_;
/* Standard AMO types (every AMO). */
#define SHMEM_AMO_STD_TYPES(X)                                                                     \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)                                                                                \
    X(ptrdiff_t, ptrdiff)
/* Extended AMO types (fetch, set, swap): the standard ones plus these. */
#define SHMEM_AMO_EXT_ONLY_TYPES(X)                                                                \
    X(float, float)                                                                                \
    X(double, double)
#define SHMEM_AMO_BITWISE_TYPES(X)                                                                 \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)
/* Point-to-point synchronisation types. */
#define SHMEM_P2P_TYPES(X)                                                                         \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)                                                                                \
    X(ptrdiff_t, ptrdiff)
/* Team reductions: bitwise (and, or, xor). */
#define SHMEM_REDUCE_BITWISE_TYPES(X)                                                              \
    X(unsigned char, uchar)                                                                        \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int8_t, int8)                                                                                \
    X(int16_t, int16)                                                                              \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint8_t, uint8)                                                                              \
    X(uint16_t, uint16)                                                                            \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)
/* Bitwise team reductions on long long, beyond the standard's list: programs written for other
 * implementations call them through the generic shmem_and_reduce and friends. */
#define SHMEM_REDUCE_BITWISE_EXT_TYPES(X) X(long long, longlong)
/* Team reductions: comparison (max, min). */
#define SHMEM_REDUCE_MINMAX_TYPES(X)                                                               \
    X(char, char)                                                                                  \
    X(signed char, schar)                                                                          \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(ptrdiff_t, ptrdiff)                                                                          \
    X(unsigned char, uchar)                                                                        \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int8_t, int8)                                                                                \
    X(int16_t, int16)                                                                              \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint8_t, uint8)                                                                              \
    X(uint16_t, uint16)                                                                            \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)                                                                                \
    X(float, float)                                                                                \
    X(double, double)                                                                              \
    X(long double, longdouble)
/* Team reductions: arithmetic (sum, prod): the comparison types plus the complex ones. */
#define SHMEM_REDUCE_ARITH_TYPES(X)                                                                \
    SHMEM_REDUCE_MINMAX_TYPES(X)                                                                   \
    X(double _Complex, complexd)                                                                   \
    X(float _Complex, complexf)
/* Deprecated active-set reductions (*_to_all). */
#define SHMEM_TOALL_BITWISE_TYPES(X)                                                               \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)
#define SHMEM_TOALL_MINMAX_TYPES(X)                                                                \
    SHMEM_TOALL_BITWISE_TYPES(X)                                                                   \
    X(float, float)                                                                                \
    X(double, double)                                                                              \
    X(long double, longdouble)
#define SHMEM_TOALL_ARITH_TYPES(X)                                                                 \
    SHMEM_TOALL_MINMAX_TYPES(X)                                                                    \
    X(double _Complex, complexd)                                                                   \
    X(float _Complex, complexf)

/* The type lists in the (TYPENAME, TYPE) order and ';'-separated form that programs written
 * for Sandia OpenSHMEM use (its tests define SHMEM_INTERNAL_INCLUDE to get them). */
#ifdef SHMEM_INTERNAL_INCLUDE
#define SHMEM_DECLARE_FOR_RMA(M) SHMEM_RMA_TYPES_NT_(M)
#define SHMEM_DECLARE_FOR_AMO(M) SHMEM_AMO_STD_TYPES_NT_(M)
#define SHMEM_DECLARE_FOR_EXTENDED_AMO(M)                                                          \
    SHMEM_AMO_STD_TYPES_NT_(M) M(float, float);                                                    \
    M(double, double)
#define SHMEM_DECLARE_FOR_BITWISE_AMO(M)                                                           \
    M(uint, unsigned int);                                                                         \
    M(ulong, unsigned long);                                                                       \
    M(ulonglong, unsigned long long);                                                              \
    M(int32, int32_t);                                                                             \
    M(int64, int64_t);                                                                             \
    M(uint32, uint32_t);                                                                           \
    M(uint64, uint64_t)
#define SHMEM_DECLARE_FOR_SIZES(M)                                                                 \
    M(8, 1);                                                                                       \
    M(16, 2);                                                                                      \
    M(32, 4);                                                                                      \
    M(64, 8);                                                                                      \
    M(128, 16)
#define SHMEM_AMO_STD_TYPES_NT_(M)                                                                 \
    M(int, int);                                                                                   \
    M(long, long);                                                                                 \
    M(longlong, long long);                                                                        \
    M(uint, unsigned int);                                                                         \
    M(ulong, unsigned long);                                                                       \
    M(ulonglong, unsigned long long);                                                              \
    M(int32, int32_t);                                                                             \
    M(int64, int64_t);                                                                             \
    M(uint32, uint32_t);                                                                           \
    M(uint64, uint64_t);                                                                           \
    M(size, size_t);                                                                               \
    M(ptrdiff, ptrdiff_t);
#define SHMEM_RMA_TYPES_NT_(M)                                                                     \
    M(float, float);                                                                               \
    M(double, double);                                                                             \
    M(longdouble, long double);                                                                    \
    M(char, char);                                                                                 \
    M(schar, signed char);                                                                         \
    M(short, short);                                                                               \
    M(int, int);                                                                                   \
    M(long, long);                                                                                 \
    M(longlong, long long);                                                                        \
    M(uchar, unsigned char);                                                                       \
    M(ushort, unsigned short);                                                                     \
    M(uint, unsigned int);                                                                         \
    M(ulong, unsigned long);                                                                       \
    M(ulonglong, unsigned long long);                                                              \
    M(int8, int8_t);                                                                               \
    M(int16, int16_t);                                                                             \
    M(int32, int32_t);                                                                             \
    M(int64, int64_t);                                                                             \
    M(uint8, uint8_t);                                                                             \
    M(uint16, uint16_t);                                                                           \
    M(uint32, uint32_t);                                                                           \
    M(uint64, uint64_t);                                                                           \
    M(size, size_t);                                                                               \
    M(ptrdiff, ptrdiff_t)
#endif

/* ---- RMA -------------------------------------------------------------------------------- */
#define SHMEM_DECL_RMA_(T, N)                                                                      \
    SHMEM_API void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);               \
    SHMEM_API void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,   \
                                       int pe);                                                    \
    SHMEM_API void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);               \
    SHMEM_API void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,   \
                                       int pe);                                                    \
    SHMEM_API void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);           \
    SHMEM_API void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source,              \
                                           size_t nelems, int pe);                                 \
    SHMEM_API void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);           \
    SHMEM_API void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source,              \
                                           size_t nelems, int pe);                                 \
    SHMEM_API void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,        \
                                    size_t nelems, int pe);                                        \
    SHMEM_API void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,  \
                                        ptrdiff_t sst, size_t nelems, int pe);                     \
    SHMEM_API void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,        \
                                    size_t nelems, int pe);                                        \
    SHMEM_API void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,  \
                                        ptrdiff_t sst, size_t nelems, int pe);                     \
    SHMEM_API void shmem_##N##_p(T *dest, T value, int pe);                                        \
    SHMEM_API void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe);                   \
    SHMEM_API T shmem_##N##_g(const T *source, int pe);                                            \
    SHMEM_API T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);                       \
    SHMEM_API void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems,                 \
                                          uint64_t *sig_addr, uint64_t signal, int sig_op,         \
                                          int pe);                                                 \
    SHMEM_API void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source,           \
                                              size_t nelems, uint64_t *sig_addr, uint64_t signal,  \
                                              int sig_op, int pe);                                 \
    SHMEM_API void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,             \
                                              uint64_t *sig_addr, uint64_t signal, int sig_op,     \
                                              int pe);                                             \
    SHMEM_API void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source,       \
                                                  size_t nelems, uint64_t *sig_addr,               \
                                                  uint64_t signal, int sig_op, int pe);
SHMEM_RMA_TYPES(SHMEM_DECL_RMA_)

#define SHMEM_DECL_SIZED_(B, T)                                                                    \
    SHMEM_API void shmem_put##B(void *dest, const void *source, size_t nelems, int pe);            \
    SHMEM_API void shmem_ctx_put##B(shmem_ctx_t ctx, void *dest, const void *source,               \
                                    size_t nelems, int pe);                                        \
    SHMEM_API void shmem_get##B(void *dest, const void *source, size_t nelems, int pe);            \
    SHMEM_API void shmem_ctx_get##B(shmem_ctx_t ctx, void *dest, const void *source,               \
                                    size_t nelems, int pe);                                        \
    SHMEM_API void shmem_put##B##_nbi(void *dest, const void *source, size_t nelems, int pe);      \
    SHMEM_API void shmem_ctx_put##B##_nbi(shmem_ctx_t ctx, void *dest, const void *source,         \
                                          size_t nelems, int pe);                                  \
    SHMEM_API void shmem_get##B##_nbi(void *dest, const void *source, size_t nelems, int pe);      \
    SHMEM_API void shmem_ctx_get##B##_nbi(shmem_ctx_t ctx, void *dest, const void *source,         \
                                          size_t nelems, int pe);                                  \
    SHMEM_API void shmem_iput##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,     \
                                 size_t nelems, int pe);                                           \
    SHMEM_API void shmem_ctx_iput##B(shmem_ctx_t ctx, void *dest, const void *source,              \
                                     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);         \
    SHMEM_API void shmem_iget##B(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,     \
                                 size_t nelems, int pe);                                           \
    SHMEM_API void shmem_ctx_iget##B(shmem_ctx_t ctx, void *dest, const void *source,              \
                                     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);         \
    SHMEM_API void shmem_put##B##_signal(void *dest, const void *source, size_t nelems,            \
                                         uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    SHMEM_API void shmem_ctx_put##B##_signal(shmem_ctx_t ctx, void *dest, const void *source,      \
                                             size_t nelems, uint64_t *sig_addr, uint64_t signal,   \
                                             int sig_op, int pe);                                  \
    SHMEM_API void shmem_put##B##_signal_nbi(void *dest, const void *source, size_t nelems,        \
                                             uint64_t *sig_addr, uint64_t signal, int sig_op,      \
                                             int pe);                                              \
    SHMEM_API void shmem_ctx_put##B##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,  \
                                                 size_t nelems, uint64_t *sig_addr,                \
                                                 uint64_t signal, int sig_op, int pe);
SHMEM_SIZED(SHMEM_DECL_SIZED_)

SHMEM_API void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                int pe);
SHMEM_API void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                int pe);
SHMEM_API void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                    int pe);
SHMEM_API void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                    int pe);
SHMEM_API void shmem_putmem_signal(void *dest, const void *source, size_t nelems,
                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEM_API void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source,
                                       size_t nelems, uint64_t *sig_addr, uint64_t signal,
                                       int sig_op, int pe);
SHMEM_API void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
                                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEM_API void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,
                                           size_t nelems, uint64_t *sig_addr, uint64_t signal,
                                           int sig_op, int pe);
SHMEM_API uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
SHMEM_API uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- AMOs ------------------------------------------------------------------------------- */
#define SHMEM_DECL_AMO_EXT_(T, N)                                                                  \
    SHMEM_API T shmem_##N##_atomic_fetch(const T *source, int pe);                                 \
    SHMEM_API T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe);            \
    SHMEM_API void shmem_##N##_atomic_set(T *dest, T value, int pe);                               \
    SHMEM_API void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe);          \
    SHMEM_API T shmem_##N##_atomic_swap(T *dest, T value, int pe);                                 \
    SHMEM_API T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe);            \
    SHMEM_API void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe);                \
    SHMEM_API void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source,    \
                                                    int pe);                                       \
    SHMEM_API void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe);                \
    SHMEM_API void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value,    \
                                                   int pe);
#define SHMEM_DECL_AMO_STD_(T, N)                                                                  \
    SHMEM_API T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);                 \
    SHMEM_API T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value,     \
                                                    int pe);                                       \
    SHMEM_API T shmem_##N##_atomic_fetch_inc(T *dest, int pe);                                     \
    SHMEM_API T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe);                \
    SHMEM_API void shmem_##N##_atomic_inc(T *dest, int pe);                                        \
    SHMEM_API void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe);                   \
    SHMEM_API T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe);                            \
    SHMEM_API T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe);       \
    SHMEM_API void shmem_##N##_atomic_add(T *dest, T value, int pe);                               \
    SHMEM_API void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe);          \
    SHMEM_API void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value,         \
                                                       int pe);                                    \
    SHMEM_API void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest,     \
                                                           T cond, T value, int pe);               \
    SHMEM_API void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe);                    \
    SHMEM_API void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest,        \
                                                        int pe);                                   \
    SHMEM_API void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe);           \
    SHMEM_API void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest,        \
                                                        T value, int pe);
#define SHMEM_DECL_AMO_BIT_(T, N)                                                                  \
    SHMEM_API T shmem_##N##_atomic_fetch_and(T *dest, T value, int pe);                            \
    SHMEM_API T shmem_ctx_##N##_atomic_fetch_and(shmem_ctx_t ctx, T *dest, T value, int pe);       \
    SHMEM_API void shmem_##N##_atomic_and(T *dest, T value, int pe);                               \
    SHMEM_API void shmem_ctx_##N##_atomic_and(shmem_ctx_t ctx, T *dest, T value, int pe);          \
    SHMEM_API T shmem_##N##_atomic_fetch_or(T *dest, T value, int pe);                             \
    SHMEM_API T shmem_ctx_##N##_atomic_fetch_or(shmem_ctx_t ctx, T *dest, T value, int pe);        \
    SHMEM_API void shmem_##N##_atomic_or(T *dest, T value, int pe);                                \
    SHMEM_API void shmem_ctx_##N##_atomic_or(shmem_ctx_t ctx, T *dest, T value, int pe);           \
    SHMEM_API T shmem_##N##_atomic_fetch_xor(T *dest, T value, int pe);                            \
    SHMEM_API T shmem_ctx_##N##_atomic_fetch_xor(shmem_ctx_t ctx, T *dest, T value, int pe);       \
    SHMEM_API void shmem_##N##_atomic_xor(T *dest, T value, int pe);                               \
    SHMEM_API void shmem_ctx_##N##_atomic_xor(shmem_ctx_t ctx, T *dest, T value, int pe);          \
    SHMEM_API void shmem_##N##_atomic_fetch_and_nbi(T *fetch, T *dest, T value, int pe);           \
    SHMEM_API void shmem_ctx_##N##_atomic_fetch_and_nbi(shmem_ctx_t ctx, T *fetch, T *dest,        \
                                                        T value, int pe);                          \
    SHMEM_API void shmem_##N##_atomic_fetch_or_nbi(T *fetch, T *dest, T value, int pe);            \
    SHMEM_API void shmem_ctx_##N##_atomic_fetch_or_nbi(shmem_ctx_t ctx, T *fetch, T *dest,         \
                                                       T value, int pe);                           \
    SHMEM_API void shmem_##N##_atomic_fetch_xor_nbi(T *fetch, T *dest, T value, int pe);           \
    SHMEM_API void shmem_ctx_##N##_atomic_fetch_xor_nbi(shmem_ctx_t ctx, T *fetch, T *dest,        \
                                                        T value, int pe);
SHMEM_AMO_STD_TYPES(SHMEM_DECL_AMO_EXT_)
SHMEM_AMO_EXT_ONLY_TYPES(SHMEM_DECL_AMO_EXT_)
SHMEM_AMO_STD_TYPES(SHMEM_DECL_AMO_STD_)
SHMEM_AMO_BITWISE_TYPES(SHMEM_DECL_AMO_BIT_)

/* Deprecated AMO spellings (OpenSHMEM 1.3). */
#define SHMEM_DECL_AMO_OLD_EXT_(T, N)                                                              \
    SHMEM_API T shmem_##N##_fetch(const T *source, int pe);                                        \
    SHMEM_API void shmem_##N##_set(T *dest, T value, int pe);                                      \
    SHMEM_API T shmem_##N##_swap(T *dest, T value, int pe);
#define SHMEM_DECL_AMO_OLD_STD_(T, N)                                                              \
    SHMEM_API T shmem_##N##_cswap(T *dest, T cond, T value, int pe);                               \
    SHMEM_API T shmem_##N##_finc(T *dest, int pe);                                                 \
    SHMEM_API void shmem_##N##_inc(T *dest, int pe);                                               \
    SHMEM_API T shmem_##N##_fadd(T *dest, T value, int pe);                                        \
    SHMEM_API void shmem_##N##_add(T *dest, T value, int pe);
#define SHMEM_AMO_OLD_TYPES(X)                                                                     \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)
SHMEM_AMO_OLD_TYPES(SHMEM_DECL_AMO_OLD_EXT_)
SHMEM_AMO_EXT_ONLY_TYPES(SHMEM_DECL_AMO_OLD_EXT_)
SHMEM_AMO_OLD_TYPES(SHMEM_DECL_AMO_OLD_STD_)

/* ---- point-to-point synchronisation ----------------------------------------------------- */
#define SHMEM_DECL_P2P_(T, N)                                                                      \
    SHMEM_API void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                          \
    SHMEM_API void shmem_##N##_wait(T *ivar, T cmp_value);                                         \
    SHMEM_API void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, \
                                              T cmp_value);                                        \
    SHMEM_API size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status,        \
                                                int cmp, T cmp_value);                             \
    SHMEM_API size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,         \
                                                 const int *status, int cmp, T cmp_value);         \
    SHMEM_API void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status,   \
                                                     int cmp, T *cmp_values);                      \
    SHMEM_API size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, \
                                                       int cmp, T *cmp_values);                    \
    SHMEM_API size_t shmem_##N##_wait_until_some_vector(                                           \
        T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T *cmp_values);      \
    SHMEM_API int shmem_##N##_test(T *ivar, int cmp, T cmp_value);                                 \
    SHMEM_API int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp,        \
                                       T cmp_value);                                               \
    SHMEM_API size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,     \
                                          T cmp_value);                                            \
    SHMEM_API size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices,               \
                                           const int *status, int cmp, T cmp_value);               \
    SHMEM_API int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                              T *cmp_values);                                      \
    SHMEM_API size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status,       \
                                                 int cmp, T *cmp_values);                          \
    SHMEM_API size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,        \
                                                  const int *status, int cmp, T *cmp_values);
SHMEM_P2P_TYPES(SHMEM_DECL_P2P_)
/* The pre-C11 (long) forms; C11 programs get the generic selections of the same names. */
SHMEM_API void shmem_wait_until(long *ivar, int cmp, long cmp_value);
SHMEM_API void shmem_wait(long *ivar, long cmp_value);

/* ---- memory ordering, locks ------------------------------------------------------------- */
SHMEM_API void shmem_fence(void);
SHMEM_API void shmem_ctx_fence(shmem_ctx_t ctx);
SHMEM_API void shmem_quiet(void);
SHMEM_API void shmem_ctx_quiet(shmem_ctx_t ctx);
SHMEM_API void shmem_set_lock(long *lock);
SHMEM_API void shmem_clear_lock(long *lock);
SHMEM_API int shmem_test_lock(long *lock);

/* ---- collectives ------------------------------------------------------------------------ */
SHMEM_API void shmem_barrier_all(void);
SHMEM_API void shmem_sync_all(void);
SHMEM_API int shmem_team_sync(shmem_team_t team);
SHMEM_API int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                                 int PE_root);
SHMEM_API int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
SHMEM_API int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
SHMEM_API int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
SHMEM_API int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                                 ptrdiff_t sst, size_t nelems);
#define SHMEM_DECL_COLL_(T, N)                                                                     \
    SHMEM_API int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source,               \
                                        size_t nelems, int PE_root);                               \
    SHMEM_API int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    SHMEM_API int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source,                \
                                       size_t nelems);                                             \
    SHMEM_API int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source,                \
                                       size_t nelems);                                             \
    SHMEM_API int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source,               \
                                        ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
SHMEM_RMA_TYPES(SHMEM_DECL_COLL_)

#define SHMEM_DECL_REDUCE_(T, N, OP)                                                               \
    SHMEM_API int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source,           \
                                            size_t nreduce);
#define SHMEM_DECL_REDUCE_BIT_(T, N)                                                               \
    SHMEM_DECL_REDUCE_(T, N, and) SHMEM_DECL_REDUCE_(T, N, or) SHMEM_DECL_REDUCE_(T, N, xor)
#define SHMEM_DECL_REDUCE_MINMAX_(T, N) SHMEM_DECL_REDUCE_(T, N, max) SHMEM_DECL_REDUCE_(T, N, min)
#define SHMEM_DECL_REDUCE_ARITH_(T, N)  SHMEM_DECL_REDUCE_(T, N, sum) SHMEM_DECL_REDUCE_(T, N, prod)
SHMEM_REDUCE_BITWISE_TYPES(SHMEM_DECL_REDUCE_BIT_)
SHMEM_REDUCE_BITWISE_EXT_TYPES(SHMEM_DECL_REDUCE_BIT_)
SHMEM_REDUCE_MINMAX_TYPES(SHMEM_DECL_REDUCE_MINMAX_)
SHMEM_REDUCE_ARITH_TYPES(SHMEM_DECL_REDUCE_ARITH_)

/* Deprecated active-set collectives (PE_start, logPE_stride, PE_size, pSync). */
SHMEM_API void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
SHMEM_API void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);
#define SHMEM_DECL_ASET_(B)                                                                        \
    SHMEM_API void shmem_broadcast##B(void *dest, const void *source, size_t nelems, int PE_root,  \
                                      int PE_start, int logPE_stride, int PE_size, long *pSync);   \
    SHMEM_API void shmem_collect##B(void *dest, const void *source, size_t nelems, int PE_start,   \
                                    int logPE_stride, int PE_size, long *pSync);                   \
    SHMEM_API void shmem_fcollect##B(void *dest, const void *source, size_t nelems, int PE_start,  \
                                     int logPE_stride, int PE_size, long *pSync);                  \
    SHMEM_API void shmem_alltoall##B(void *dest, const void *source, size_t nelems, int PE_start,  \
                                     int logPE_stride, int PE_size, long *pSync);                  \
    SHMEM_API void shmem_alltoalls##B(void *dest, const void *source, ptrdiff_t dst,               \
                                      ptrdiff_t sst, size_t nelems, int PE_start,                  \
                                      int logPE_stride, int PE_size, long *pSync);
SHMEM_DECL_ASET_(32)
SHMEM_DECL_ASET_(64)
#define SHMEM_DECL_TOALL_(T, N, OP)                                                                \
    SHMEM_API void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,  \
                                             int logPE_stride, int PE_size, T *pWrk, long *pSync);
#define SHMEM_DECL_TOALL_BIT_(T, N)                                                                \
    SHMEM_DECL_TOALL_(T, N, and) SHMEM_DECL_TOALL_(T, N, or) SHMEM_DECL_TOALL_(T, N, xor)
#define SHMEM_DECL_TOALL_MINMAX_(T, N) SHMEM_DECL_TOALL_(T, N, max) SHMEM_DECL_TOALL_(T, N, min)
#define SHMEM_DECL_TOALL_ARITH_(T, N)  SHMEM_DECL_TOALL_(T, N, sum) SHMEM_DECL_TOALL_(T, N, prod)
SHMEM_TOALL_BITWISE_TYPES(SHMEM_DECL_TOALL_BIT_)
SHMEM_TOALL_MINMAX_TYPES(SHMEM_DECL_TOALL_MINMAX_)
SHMEM_TOALL_ARITH_TYPES(SHMEM_DECL_TOALL_ARITH_)

/* ---- C11 generic selections ------------------------------------------------------------- */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
/* Picks the form with a leading context when a call has one argument more. */
#define SHMEM_PICK2_(_1, _2, NAME, ...)                         NAME
#define SHMEM_PICK3_(_1, _2, _3, NAME, ...)                     NAME
#define SHMEM_PICK4_(_1, _2, _3, _4, NAME, ...)                 NAME
#define SHMEM_PICK5_(_1, _2, _3, _4, _5, NAME, ...)             NAME
#define SHMEM_PICK6_(_1, _2, _3, _4, _5, _6, NAME, ...)         NAME
#define SHMEM_PICK7_(_1, _2, _3, _4, _5, _6, _7, NAME, ...)     NAME
#define SHMEM_PICK8_(_1, _2, _3, _4, _5, _6, _7, _8, NAME, ...) NAME

/* The types that C11 can tell apart (the fixed-width ones are aliases of these). */
#define SHMEM_G_RMA_(P, X, S)                                                                      \
    _Generic(*(X), float                                                                           \
             : P##float##S, double                                                                 \
             : P##double##S, long double                                                           \
             : P##longdouble##S, char                                                              \
             : P##char##S, signed char                                                             \
             : P##schar##S, short                                                                  \
             : P##short##S, int                                                                    \
             : P##int##S, long                                                                     \
             : P##long##S, long long                                                               \
             : P##longlong##S, unsigned char                                                       \
             : P##uchar##S, unsigned short                                                         \
             : P##ushort##S, unsigned int                                                          \
             : P##uint##S, unsigned long                                                           \
             : P##ulong##S, unsigned long long                                                     \
             : P##ulonglong##S)
#define SHMEM_G_AMO_STD_(P, X, S)                                                                  \
    _Generic(*(X), int                                                                             \
             : P##int##S, long                                                                     \
             : P##long##S, long long                                                               \
             : P##longlong##S, unsigned int                                                        \
             : P##uint##S, unsigned long                                                           \
             : P##ulong##S, unsigned long long                                                     \
             : P##ulonglong##S)
#define SHMEM_G_AMO_EXT_(P, X, S)                                                                  \
    _Generic(*(X), int                                                                             \
             : P##int##S, long                                                                     \
             : P##long##S, long long                                                               \
             : P##longlong##S, unsigned int                                                        \
             : P##uint##S, unsigned long                                                           \
             : P##ulong##S, unsigned long long                                                     \
             : P##ulonglong##S, float                                                              \
             : P##float##S, double                                                                 \
             : P##double##S)
#define SHMEM_G_AMO_BIT_(P, X, S)                                                                  \
    _Generic(*(X), unsigned int                                                                    \
             : P##uint##S, unsigned long                                                           \
             : P##ulong##S, unsigned long long                                                     \
             : P##ulonglong##S, int32_t                                                            \
             : P##int32##S, int64_t                                                                \
             : P##int64##S)
#define SHMEM_G_P2P_(P, X, S)                                                                      \
    _Generic(*(X), short                                                                           \
             : P##short##S, int                                                                    \
             : P##int##S, long                                                                     \
             : P##long##S, long long                                                               \
             : P##longlong##S, unsigned short                                                      \
             : P##ushort##S, unsigned int                                                          \
             : P##uint##S, unsigned long                                                           \
             : P##ulong##S, unsigned long long                                                     \
             : P##ulonglong##S)
/* The signed bitwise types are the fixed-width ones (int8_t .. int64_t are signed char, short,
 * int and long here); long long has its own functions, as it is no fixed-width type here. */
#define SHMEM_G_RED_BIT_(P, X, S)                                                                  \
    _Generic(*(X), unsigned char                                                                   \
             : P##uchar##S, unsigned short                                                         \
             : P##ushort##S, unsigned int                                                          \
             : P##uint##S, unsigned long                                                           \
             : P##ulong##S, unsigned long long                                                     \
             : P##ulonglong##S, int8_t                                                             \
             : P##int8##S, int16_t                                                                 \
             : P##int16##S, int32_t                                                                \
             : P##int32##S, int64_t                                                                \
             : P##int64##S, long long                                                              \
             : P##longlong##S)
#define SHMEM_G_RED_MINMAX_(P, X, S)                                                               \
    _Generic(*(X), char                                                                            \
             : P##char##S, signed char                                                             \
             : P##schar##S, short                                                                  \
             : P##short##S, int                                                                    \
             : P##int##S, long                                                                     \
             : P##long##S, long long                                                               \
             : P##longlong##S, unsigned char                                                       \
             : P##uchar##S, unsigned short                                                         \
             : P##ushort##S, unsigned int                                                          \
             : P##uint##S, unsigned long                                                           \
             : P##ulong##S, unsigned long long                                                     \
             : P##ulonglong##S, float                                                              \
             : P##float##S, double                                                                 \
             : P##double##S, long double                                                           \
             : P##longdouble##S)
#define SHMEM_G_RED_ARITH_(P, X, S)                                                                \
    _Generic(*(X), char                                                                            \
             : P##char##S, signed char                                                             \
             : P##schar##S, short                                                                  \
             : P##short##S, int                                                                    \
             : P##int##S, long                                                                     \
             : P##long##S, long long                                                               \
             : P##longlong##S, unsigned char                                                       \
             : P##uchar##S, unsigned short                                                         \
             : P##ushort##S, unsigned int                                                          \
             : P##uint##S, unsigned long                                                           \
             : P##ulong##S, unsigned long long                                                     \
             : P##ulonglong##S, float                                                              \
             : P##float##S, double                                                                 \
             : P##double##S, long double                                                           \
             : P##longdouble##S, double _Complex                                                   \
             : P##complexd##S, float _Complex                                                      \
             : P##complexf##S)

/* RMA: (dest, source, nelems, pe) or (ctx, dest, source, nelems, pe). */
#define shmem_g_put_(d, ...)            SHMEM_G_RMA_(shmem_, d, _put)(d, __VA_ARGS__)
#define shmem_g_ctx_put_(c, d, ...)     SHMEM_G_RMA_(shmem_ctx_, d, _put)(c, d, __VA_ARGS__)
#define shmem_put(...)                  SHMEM_PICK5_(__VA_ARGS__, shmem_g_ctx_put_, shmem_g_put_, )(__VA_ARGS__)
#define shmem_g_get_(d, ...)            SHMEM_G_RMA_(shmem_, d, _get)(d, __VA_ARGS__)
#define shmem_g_ctx_get_(c, d, ...)     SHMEM_G_RMA_(shmem_ctx_, d, _get)(c, d, __VA_ARGS__)
#define shmem_get(...)                  SHMEM_PICK5_(__VA_ARGS__, shmem_g_ctx_get_, shmem_g_get_, )(__VA_ARGS__)
#define shmem_g_put_nbi_(d, ...)        SHMEM_G_RMA_(shmem_, d, _put_nbi)(d, __VA_ARGS__)
#define shmem_g_ctx_put_nbi_(c, d, ...) SHMEM_G_RMA_(shmem_ctx_, d, _put_nbi)(c, d, __VA_ARGS__)
#define shmem_put_nbi(...)                                                                         \
    SHMEM_PICK5_(__VA_ARGS__, shmem_g_ctx_put_nbi_, shmem_g_put_nbi_, )(__VA_ARGS__)
#define shmem_g_get_nbi_(d, ...)        SHMEM_G_RMA_(shmem_, d, _get_nbi)(d, __VA_ARGS__)
#define shmem_g_ctx_get_nbi_(c, d, ...) SHMEM_G_RMA_(shmem_ctx_, d, _get_nbi)(c, d, __VA_ARGS__)
#define shmem_get_nbi(...)                                                                         \
    SHMEM_PICK5_(__VA_ARGS__, shmem_g_ctx_get_nbi_, shmem_g_get_nbi_, )(__VA_ARGS__)
#define shmem_g_iput_(d, ...)        SHMEM_G_RMA_(shmem_, d, _iput)(d, __VA_ARGS__)
#define shmem_g_ctx_iput_(c, d, ...) SHMEM_G_RMA_(shmem_ctx_, d, _iput)(c, d, __VA_ARGS__)
#define shmem_iput(...)              SHMEM_PICK7_(__VA_ARGS__, shmem_g_ctx_iput_, shmem_g_iput_, )(__VA_ARGS__)
#define shmem_g_iget_(d, ...)        SHMEM_G_RMA_(shmem_, d, _iget)(d, __VA_ARGS__)
#define shmem_g_ctx_iget_(c, d, ...) SHMEM_G_RMA_(shmem_ctx_, d, _iget)(c, d, __VA_ARGS__)
#define shmem_iget(...)              SHMEM_PICK7_(__VA_ARGS__, shmem_g_ctx_iget_, shmem_g_iget_, )(__VA_ARGS__)
#define shmem_g_p_(d, ...)           SHMEM_G_RMA_(shmem_, d, _p)(d, __VA_ARGS__)
#define shmem_g_ctx_p_(c, d, ...)    SHMEM_G_RMA_(shmem_ctx_, d, _p)(c, d, __VA_ARGS__)
#define shmem_p(...)                 SHMEM_PICK4_(__VA_ARGS__, shmem_g_ctx_p_, shmem_g_p_, )(__VA_ARGS__)
#define shmem_g_g_(s, ...)           SHMEM_G_RMA_(shmem_, s, _g)(s, __VA_ARGS__)
#define shmem_g_ctx_g_(c, s, ...)    SHMEM_G_RMA_(shmem_ctx_, s, _g)(c, s, __VA_ARGS__)
#define shmem_g(...)                 SHMEM_PICK3_(__VA_ARGS__, shmem_g_ctx_g_, shmem_g_g_, )(__VA_ARGS__)
#define shmem_g_put_signal_(d, ...)  SHMEM_G_RMA_(shmem_, d, _put_signal)(d, __VA_ARGS__)
#define shmem_g_ctx_put_signal_(c, d, ...)                                                         \
    SHMEM_G_RMA_(shmem_ctx_, d, _put_signal)(c, d, __VA_ARGS__)
#define shmem_put_signal(...)                                                                      \
    SHMEM_PICK8_(__VA_ARGS__, shmem_g_ctx_put_signal_, shmem_g_put_signal_, )(__VA_ARGS__)
#define shmem_g_put_signal_nbi_(d, ...) SHMEM_G_RMA_(shmem_, d, _put_signal_nbi)(d, __VA_ARGS__)
#define shmem_g_ctx_put_signal_nbi_(c, d, ...)                                                     \
    SHMEM_G_RMA_(shmem_ctx_, d, _put_signal_nbi)(c, d, __VA_ARGS__)
#define shmem_put_signal_nbi(...)                                                                  \
    SHMEM_PICK8_(__VA_ARGS__, shmem_g_ctx_put_signal_nbi_, shmem_g_put_signal_nbi_, )(__VA_ARGS__)

/* AMOs: the target's position is 1 without a context, 2 with one. */
#define shmem_g_atomic_fetch_(s, ...) SHMEM_G_AMO_EXT_(shmem_, s, _atomic_fetch)(s, __VA_ARGS__)
#define shmem_g_ctx_atomic_fetch_(c, s, ...)                                                       \
    SHMEM_G_AMO_EXT_(shmem_ctx_, s, _atomic_fetch)(c, s, __VA_ARGS__)
#define shmem_atomic_fetch(...)                                                                    \
    SHMEM_PICK3_(__VA_ARGS__, shmem_g_ctx_atomic_fetch_, shmem_g_atomic_fetch_, )(__VA_ARGS__)
#define shmem_g_atomic_set_(d, ...) SHMEM_G_AMO_EXT_(shmem_, d, _atomic_set)(d, __VA_ARGS__)
#define shmem_g_ctx_atomic_set_(c, d, ...)                                                         \
    SHMEM_G_AMO_EXT_(shmem_ctx_, d, _atomic_set)(c, d, __VA_ARGS__)
#define shmem_atomic_set(...)                                                                      \
    SHMEM_PICK4_(__VA_ARGS__, shmem_g_ctx_atomic_set_, shmem_g_atomic_set_, )(__VA_ARGS__)
#define shmem_g_atomic_swap_(d, ...) SHMEM_G_AMO_EXT_(shmem_, d, _atomic_swap)(d, __VA_ARGS__)
#define shmem_g_ctx_atomic_swap_(c, d, ...)                                                        \
    SHMEM_G_AMO_EXT_(shmem_ctx_, d, _atomic_swap)(c, d, __VA_ARGS__)
#define shmem_atomic_swap(...)                                                                     \
    SHMEM_PICK4_(__VA_ARGS__, shmem_g_ctx_atomic_swap_, shmem_g_atomic_swap_, )(__VA_ARGS__)
#define shmem_g_atomic_compare_swap_(d, ...)                                                       \
    SHMEM_G_AMO_STD_(shmem_, d, _atomic_compare_swap)(d, __VA_ARGS__)
#define shmem_g_ctx_atomic_compare_swap_(c, d, ...)                                                \
    SHMEM_G_AMO_STD_(shmem_ctx_, d, _atomic_compare_swap)(c, d, __VA_ARGS__)
#define shmem_atomic_compare_swap(...)                                                             \
    SHMEM_PICK5_(__VA_ARGS__, shmem_g_ctx_atomic_compare_swap_, shmem_g_atomic_compare_swap_, )    \
    (__VA_ARGS__)
#define shmem_g_atomic_fetch_inc_(d, ...)                                                          \
    SHMEM_G_AMO_STD_(shmem_, d, _atomic_fetch_inc)(d, __VA_ARGS__)
#define shmem_g_ctx_atomic_fetch_inc_(c, d, ...)                                                   \
    SHMEM_G_AMO_STD_(shmem_ctx_, d, _atomic_fetch_inc)(c, d, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...)                                                                \
    SHMEM_PICK3_(__VA_ARGS__, shmem_g_ctx_atomic_fetch_inc_, shmem_g_atomic_fetch_inc_, )          \
    (__VA_ARGS__)
#define shmem_g_atomic_inc_(d, ...) SHMEM_G_AMO_STD_(shmem_, d, _atomic_inc)(d, __VA_ARGS__)
#define shmem_g_ctx_atomic_inc_(c, d, ...)                                                         \
    SHMEM_G_AMO_STD_(shmem_ctx_, d, _atomic_inc)(c, d, __VA_ARGS__)
#define shmem_atomic_inc(...)                                                                      \
    SHMEM_PICK3_(__VA_ARGS__, shmem_g_ctx_atomic_inc_, shmem_g_atomic_inc_, )(__VA_ARGS__)
#define shmem_g_atomic_fetch_add_(d, ...)                                                          \
    SHMEM_G_AMO_STD_(shmem_, d, _atomic_fetch_add)(d, __VA_ARGS__)
#define shmem_g_ctx_atomic_fetch_add_(c, d, ...)                                                   \
    SHMEM_G_AMO_STD_(shmem_ctx_, d, _atomic_fetch_add)(c, d, __VA_ARGS__)
#define shmem_atomic_fetch_add(...)                                                                \
    SHMEM_PICK4_(__VA_ARGS__, shmem_g_ctx_atomic_fetch_add_, shmem_g_atomic_fetch_add_, )          \
    (__VA_ARGS__)
#define shmem_g_atomic_add_(d, ...) SHMEM_G_AMO_STD_(shmem_, d, _atomic_add)(d, __VA_ARGS__)
#define shmem_g_ctx_atomic_add_(c, d, ...)                                                         \
    SHMEM_G_AMO_STD_(shmem_ctx_, d, _atomic_add)(c, d, __VA_ARGS__)
#define shmem_atomic_add(...)                                                                      \
    SHMEM_PICK4_(__VA_ARGS__, shmem_g_ctx_atomic_add_, shmem_g_atomic_add_, )(__VA_ARGS__)
#define shmem_g_atomic_fetch_and_(d, ...)                                                          \
    SHMEM_G_AMO_BIT_(shmem_, d, _atomic_fetch_and)(d, __VA_ARGS__)
#define shmem_g_ctx_atomic_fetch_and_(c, d, ...)                                                   \
    SHMEM_G_AMO_BIT_(shmem_ctx_, d, _atomic_fetch_and)(c, d, __VA_ARGS__)
#define shmem_atomic_fetch_and(...)                                                                \
    SHMEM_PICK4_(__VA_ARGS__, shmem_g_ctx_atomic_fetch_and_, shmem_g_atomic_fetch_and_, )          \
    (__VA_ARGS__)
#define shmem_g_atomic_and_(d, ...) SHMEM_G_AMO_BIT_(shmem_, d, _atomic_and)(d, __VA_ARGS__)
#define shmem_g_ctx_atomic_and_(c, d, ...)                                                         \
    SHMEM_G_AMO_BIT_(shmem_ctx_, d, _atomic_and)(c, d, __VA_ARGS__)
#define shmem_atomic_and(...)                                                                      \
    SHMEM_PICK4_(__VA_ARGS__, shmem_g_ctx_atomic_and_, shmem_g_atomic_and_, )(__VA_ARGS__)
#define shmem_g_atomic_fetch_or_(d, ...)                                                           \
    SHMEM_G_AMO_BIT_(shmem_, d, _atomic_fetch_or)(d, __VA_ARGS__)
#define shmem_g_ctx_atomic_fetch_or_(c, d, ...)                                                    \
    SHMEM_G_AMO_BIT_(shmem_ctx_, d, _atomic_fetch_or)(c, d, __VA_ARGS__)
#define shmem_atomic_fetch_or(...)                                                                 \
    SHMEM_PICK4_(__VA_ARGS__, shmem_g_ctx_atomic_fetch_or_, shmem_g_atomic_fetch_or_, )            \
    (__VA_ARGS__)
#define shmem_g_atomic_or_(d, ...) SHMEM_G_AMO_BIT_(shmem_, d, _atomic_or)(d, __VA_ARGS__)
#define shmem_g_ctx_atomic_or_(c, d, ...)                                                          \
    SHMEM_G_AMO_BIT_(shmem_ctx_, d, _atomic_or)(c, d, __VA_ARGS__)
#define shmem_atomic_or(...)                                                                       \
    SHMEM_PICK4_(__VA_ARGS__, shmem_g_ctx_atomic_or_, shmem_g_atomic_or_, )(__VA_ARGS__)
#define shmem_g_atomic_fetch_xor_(d, ...)                                                          \
    SHMEM_G_AMO_BIT_(shmem_, d, _atomic_fetch_xor)(d, __VA_ARGS__)
#define shmem_g_ctx_atomic_fetch_xor_(c, d, ...)                                                   \
    SHMEM_G_AMO_BIT_(shmem_ctx_, d, _atomic_fetch_xor)(c, d, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...)                                                                \
    SHMEM_PICK4_(__VA_ARGS__, shmem_g_ctx_atomic_fetch_xor_, shmem_g_atomic_fetch_xor_, )          \
    (__VA_ARGS__)
#define shmem_g_atomic_xor_(d, ...) SHMEM_G_AMO_BIT_(shmem_, d, _atomic_xor)(d, __VA_ARGS__)
#define shmem_g_ctx_atomic_xor_(c, d, ...)                                                         \
    SHMEM_G_AMO_BIT_(shmem_ctx_, d, _atomic_xor)(c, d, __VA_ARGS__)
#define shmem_atomic_xor(...)                                                                      \
    SHMEM_PICK4_(__VA_ARGS__, shmem_g_ctx_atomic_xor_, shmem_g_atomic_xor_, )(__VA_ARGS__)
/* Fetching non-blocking AMOs: dispatch on the fetch pointer. */
#define shmem_g_atomic_fetch_nbi_(f, ...)                                                          \
    SHMEM_G_AMO_EXT_(shmem_, f, _atomic_fetch_nbi)(f, __VA_ARGS__)
#define shmem_g_ctx_atomic_fetch_nbi_(c, f, ...)                                                   \
    SHMEM_G_AMO_EXT_(shmem_ctx_, f, _atomic_fetch_nbi)(c, f, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...)                                                                \
    SHMEM_PICK4_(__VA_ARGS__, shmem_g_ctx_atomic_fetch_nbi_, shmem_g_atomic_fetch_nbi_, )          \
    (__VA_ARGS__)
#define shmem_g_atomic_swap_nbi_(f, ...)                                                           \
    SHMEM_G_AMO_EXT_(shmem_, f, _atomic_swap_nbi)(f, __VA_ARGS__)
#define shmem_g_ctx_atomic_swap_nbi_(c, f, ...)                                                    \
    SHMEM_G_AMO_EXT_(shmem_ctx_, f, _atomic_swap_nbi)(c, f, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...)                                                                 \
    SHMEM_PICK5_(__VA_ARGS__, shmem_g_ctx_atomic_swap_nbi_, shmem_g_atomic_swap_nbi_, )            \
    (__VA_ARGS__)
#define shmem_g_atomic_compare_swap_nbi_(f, ...)                                                   \
    SHMEM_G_AMO_STD_(shmem_, f, _atomic_compare_swap_nbi)(f, __VA_ARGS__)
#define shmem_g_ctx_atomic_compare_swap_nbi_(c, f, ...)                                            \
    SHMEM_G_AMO_STD_(shmem_ctx_, f, _atomic_compare_swap_nbi)(c, f, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...)                                                         \
    SHMEM_PICK6_(__VA_ARGS__, shmem_g_ctx_atomic_compare_swap_nbi_,                                \
                 shmem_g_atomic_compare_swap_nbi_, )                                               \
    (__VA_ARGS__)
#define shmem_g_atomic_fetch_inc_nbi_(f, ...)                                                      \
    SHMEM_G_AMO_STD_(shmem_, f, _atomic_fetch_inc_nbi)(f, __VA_ARGS__)
#define shmem_g_ctx_atomic_fetch_inc_nbi_(c, f, ...)                                               \
    SHMEM_G_AMO_STD_(shmem_ctx_, f, _atomic_fetch_inc_nbi)(c, f, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...)                                                            \
    SHMEM_PICK4_(__VA_ARGS__, shmem_g_ctx_atomic_fetch_inc_nbi_, shmem_g_atomic_fetch_inc_nbi_, )  \
    (__VA_ARGS__)
#define shmem_g_atomic_fetch_add_nbi_(f, ...)                                                      \
    SHMEM_G_AMO_STD_(shmem_, f, _atomic_fetch_add_nbi)(f, __VA_ARGS__)
#define shmem_g_ctx_atomic_fetch_add_nbi_(c, f, ...)                                               \
    SHMEM_G_AMO_STD_(shmem_ctx_, f, _atomic_fetch_add_nbi)(c, f, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...)                                                            \
    SHMEM_PICK5_(__VA_ARGS__, shmem_g_ctx_atomic_fetch_add_nbi_, shmem_g_atomic_fetch_add_nbi_, )  \
    (__VA_ARGS__)
#define shmem_g_atomic_fetch_and_nbi_(f, ...)                                                      \
    SHMEM_G_AMO_BIT_(shmem_, f, _atomic_fetch_and_nbi)(f, __VA_ARGS__)
#define shmem_g_ctx_atomic_fetch_and_nbi_(c, f, ...)                                               \
    SHMEM_G_AMO_BIT_(shmem_ctx_, f, _atomic_fetch_and_nbi)(c, f, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...)                                                            \
    SHMEM_PICK5_(__VA_ARGS__, shmem_g_ctx_atomic_fetch_and_nbi_, shmem_g_atomic_fetch_and_nbi_, )  \
    (__VA_ARGS__)
#define shmem_g_atomic_fetch_or_nbi_(f, ...)                                                       \
    SHMEM_G_AMO_BIT_(shmem_, f, _atomic_fetch_or_nbi)(f, __VA_ARGS__)
#define shmem_g_ctx_atomic_fetch_or_nbi_(c, f, ...)                                                \
    SHMEM_G_AMO_BIT_(shmem_ctx_, f, _atomic_fetch_or_nbi)(c, f, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...)                                                             \
    SHMEM_PICK5_(__VA_ARGS__, shmem_g_ctx_atomic_fetch_or_nbi_, shmem_g_atomic_fetch_or_nbi_, )    \
    (__VA_ARGS__)
#define shmem_g_atomic_fetch_xor_nbi_(f, ...)                                                      \
    SHMEM_G_AMO_BIT_(shmem_, f, _atomic_fetch_xor_nbi)(f, __VA_ARGS__)
#define shmem_g_ctx_atomic_fetch_xor_nbi_(c, f, ...)                                               \
    SHMEM_G_AMO_BIT_(shmem_ctx_, f, _atomic_fetch_xor_nbi)(c, f, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...)                                                            \
    SHMEM_PICK5_(__VA_ARGS__, shmem_g_ctx_atomic_fetch_xor_nbi_, shmem_g_atomic_fetch_xor_nbi_, )  \
    (__VA_ARGS__)

/* Point-to-point synchronisation. */
#define shmem_wait_until(ivar, ...) SHMEM_G_P2P_(shmem_, ivar, _wait_until)(ivar, __VA_ARGS__)
#define shmem_wait(ivar, ...)       SHMEM_G_P2P_(shmem_, ivar, _wait)(ivar, __VA_ARGS__)
#define shmem_wait_until_all(ivars, ...)                                                           \
    SHMEM_G_P2P_(shmem_, ivars, _wait_until_all)(ivars, __VA_ARGS__)
#define shmem_wait_until_any(ivars, ...)                                                           \
    SHMEM_G_P2P_(shmem_, ivars, _wait_until_any)(ivars, __VA_ARGS__)
#define shmem_wait_until_some(ivars, ...)                                                          \
    SHMEM_G_P2P_(shmem_, ivars, _wait_until_some)(ivars, __VA_ARGS__)
#define shmem_wait_until_all_vector(ivars, ...)                                                    \
    SHMEM_G_P2P_(shmem_, ivars, _wait_until_all_vector)(ivars, __VA_ARGS__)
#define shmem_wait_until_any_vector(ivars, ...)                                                    \
    SHMEM_G_P2P_(shmem_, ivars, _wait_until_any_vector)(ivars, __VA_ARGS__)
#define shmem_wait_until_some_vector(ivars, ...)                                                   \
    SHMEM_G_P2P_(shmem_, ivars, _wait_until_some_vector)(ivars, __VA_ARGS__)
#define shmem_test(ivar, ...)       SHMEM_G_P2P_(shmem_, ivar, _test)(ivar, __VA_ARGS__)
#define shmem_test_all(ivars, ...)  SHMEM_G_P2P_(shmem_, ivars, _test_all)(ivars, __VA_ARGS__)
#define shmem_test_any(ivars, ...)  SHMEM_G_P2P_(shmem_, ivars, _test_any)(ivars, __VA_ARGS__)
#define shmem_test_some(ivars, ...) SHMEM_G_P2P_(shmem_, ivars, _test_some)(ivars, __VA_ARGS__)
#define shmem_test_all_vector(ivars, ...)                                                          \
    SHMEM_G_P2P_(shmem_, ivars, _test_all_vector)(ivars, __VA_ARGS__)
#define shmem_test_any_vector(ivars, ...)                                                          \
    SHMEM_G_P2P_(shmem_, ivars, _test_any_vector)(ivars, __VA_ARGS__)
#define shmem_test_some_vector(ivars, ...)                                                         \
    SHMEM_G_P2P_(shmem_, ivars, _test_some_vector)(ivars, __VA_ARGS__)

/* Team collectives: (team, dest, ...). */
#define shmem_broadcast(t, d, ...)   SHMEM_G_RMA_(shmem_, d, _broadcast)(t, d, __VA_ARGS__)
#define shmem_collect(t, d, ...)     SHMEM_G_RMA_(shmem_, d, _collect)(t, d, __VA_ARGS__)
#define shmem_fcollect(t, d, ...)    SHMEM_G_RMA_(shmem_, d, _fcollect)(t, d, __VA_ARGS__)
#define shmem_alltoall(t, d, ...)    SHMEM_G_RMA_(shmem_, d, _alltoall)(t, d, __VA_ARGS__)
#define shmem_alltoalls(t, d, ...)   SHMEM_G_RMA_(shmem_, d, _alltoalls)(t, d, __VA_ARGS__)
#define shmem_and_reduce(t, d, ...)  SHMEM_G_RED_BIT_(shmem_, d, _and_reduce)(t, d, __VA_ARGS__)
#define shmem_or_reduce(t, d, ...)   SHMEM_G_RED_BIT_(shmem_, d, _or_reduce)(t, d, __VA_ARGS__)
#define shmem_xor_reduce(t, d, ...)  SHMEM_G_RED_BIT_(shmem_, d, _xor_reduce)(t, d, __VA_ARGS__)
#define shmem_max_reduce(t, d, ...)  SHMEM_G_RED_MINMAX_(shmem_, d, _max_reduce)(t, d, __VA_ARGS__)
#define shmem_min_reduce(t, d, ...)  SHMEM_G_RED_MINMAX_(shmem_, d, _min_reduce)(t, d, __VA_ARGS__)
#define shmem_sum_reduce(t, d, ...)  SHMEM_G_RED_ARITH_(shmem_, d, _sum_reduce)(t, d, __VA_ARGS__)
#define shmem_prod_reduce(t, d, ...) SHMEM_G_RED_ARITH_(shmem_, d, _prod_reduce)(t, d, __VA_ARGS__)

/* shmem_sync(team) (1.5) and the deprecated shmem_sync(PE_start, logPE_stride, PE_size, pSync)
 * share a name: the number of arguments picks. */
#define shmem_sync(...)                                                                            \
    SHMEM_PICK4_(__VA_ARGS__, shmem_sync, shmem_sync_takes_1_or_4_arguments_,                      \
                 shmem_sync_takes_1_or_4_arguments_, shmem_team_sync, )                            \
    (__VA_ARGS__)

/* Deprecated (1.3) generic AMO names. */
#define shmem_fetch(...) shmem_atomic_fetch(__VA_ARGS__)
#define shmem_set(...)   shmem_atomic_set(__VA_ARGS__)
#define shmem_swap(...)  shmem_atomic_swap(__VA_ARGS__)
#define shmem_cswap(...) shmem_atomic_compare_swap(__VA_ARGS__)
#define shmem_finc(...)  shmem_atomic_fetch_inc(__VA_ARGS__)
#define shmem_inc(...)   shmem_atomic_inc(__VA_ARGS__)
#define shmem_fadd(...)  shmem_atomic_fetch_add(__VA_ARGS__)
#define shmem_add(...)   shmem_atomic_add(__VA_ARGS__)
#endif /* C11 */

#ifdef __cplusplus
}
#endif

#endif /* SHMEM_H */
