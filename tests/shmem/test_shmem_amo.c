/* OpenSHMEM atomics of every standard, extended and bitwise type (typed, generic and context
 * forms, fetching _nbi), on heap and static words; locks; the wait_until / test families
 * including the set and vector forms. */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <string.h>

#include "shmem_check.h"

static long static_counter;
static long static_lock;

/* Every PE adds to PE 0's word; then the fetching forms are checked on the own word. */
#define STD_ROUND(T, NAME)                                                                         \
    do {                                                                                           \
        T *x = shmem_calloc(2, sizeof(T));                                                         \
        shmem_##NAME##_atomic_add(&x[0], (T)2, 0);                                                 \
        shmem_##NAME##_atomic_inc(&x[0], 0);                                                       \
        shmem_barrier_all();                                                                       \
        if (me == 0) CHECK(x[0] == (T)(3 * npes), #NAME " add / inc: %lld", (long long)x[0]);      \
        shmem_barrier_all();                                                                       \
        x[1] = (T)10;                                                                              \
        CHECK(shmem_##NAME##_atomic_fetch(&x[1], me) == (T)10, #NAME " fetch");                    \
        CHECK(shmem_##NAME##_atomic_fetch_add(&x[1], (T)5, me) == (T)10, #NAME " fetch_add");      \
        CHECK(shmem_##NAME##_atomic_fetch_inc(&x[1], me) == (T)15, #NAME " fetch_inc");            \
        CHECK(shmem_##NAME##_atomic_swap(&x[1], (T)3, me) == (T)16, #NAME " swap");                \
        CHECK(shmem_##NAME##_atomic_compare_swap(&x[1], (T)4, (T)9, me) == (T)3,                   \
              #NAME " failing compare_swap");                                                      \
        CHECK(shmem_##NAME##_atomic_compare_swap(&x[1], (T)3, (T)9, me) == (T)3,                   \
              #NAME " compare_swap");                                                              \
        shmem_##NAME##_atomic_set(&x[1], (T)20, me);                                               \
        T f1 = 0, f2 = 0, f3 = 0, f4 = 0, f5 = 0;                                                  \
        shmem_##NAME##_atomic_fetch_nbi(&f1, &x[1], me);                                           \
        shmem_quiet();                                                                             \
        shmem_##NAME##_atomic_fetch_add_nbi(&f2, &x[1], (T)1, me);                                 \
        shmem_quiet();                                                                             \
        shmem_##NAME##_atomic_fetch_inc_nbi(&f3, &x[1], me);                                       \
        shmem_quiet();                                                                             \
        shmem_##NAME##_atomic_swap_nbi(&f4, &x[1], (T)30, me);                                     \
        shmem_quiet();                                                                             \
        shmem_##NAME##_atomic_compare_swap_nbi(&f5, &x[1], (T)30, (T)31, me);                      \
        shmem_quiet();                                                                             \
        CHECK(f1 == (T)20 && f2 == (T)20 && f3 == (T)21 && f4 == (T)22 && f5 == (T)30,             \
              #NAME " fetching nbi");                                                              \
        CHECK(x[1] == (T)31, #NAME " after nbi");                                                  \
        shmem_barrier_all();                                                                       \
        shmem_free(x);                                                                             \
    } while (0)

#define BIT_ROUND(T, NAME)                                                                         \
    do {                                                                                           \
        T *x = shmem_calloc(1, sizeof(T));                                                         \
        /* Each PE sets its own bit of PE 0's word (PEs beyond the width share bits). */           \
        shmem_##NAME##_atomic_or(x, (T)1 << (me % 31), 0);                                         \
        shmem_barrier_all();                                                                       \
        if (me == 0) {                                                                             \
            T want = 0;                                                                            \
            for (int p = 0; p < npes; p++) want |= (T)1 << (p % 31);                               \
            CHECK(*x == want, #NAME " or");                                                        \
            CHECK(shmem_##NAME##_atomic_fetch_and(x, (T)1, 0) == want, #NAME " fetch_and");        \
            CHECK(shmem_##NAME##_atomic_fetch_xor(x, (T)3, 0) == (T)1, #NAME " fetch_xor");        \
            CHECK(shmem_##NAME##_atomic_fetch_or(x, (T)8, 0) == (T)2, #NAME " fetch_or");          \
            shmem_##NAME##_atomic_and(x, (T)8, 0);                                                 \
            shmem_##NAME##_atomic_xor(x, (T)9, 0);                                                 \
            CHECK(*x == (T)1, #NAME " and / xor");                                                 \
            T f1 = 0, f2 = 0, f3 = 0;                                                              \
            shmem_##NAME##_atomic_fetch_and_nbi(&f1, x, (T)1, 0);                                  \
            shmem_quiet();                                                                         \
            shmem_##NAME##_atomic_fetch_or_nbi(&f2, x, (T)6, 0);                                   \
            shmem_quiet();                                                                         \
            shmem_##NAME##_atomic_fetch_xor_nbi(&f3, x, (T)2, 0);                                  \
            shmem_quiet();                                                                         \
            CHECK(f1 == (T)1 && f2 == (T)1 && f3 == (T)7 && *x == (T)5, #NAME " bitwise nbi");     \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        shmem_free(x);                                                                             \
    } while (0)

#define EXT_ROUND(T, NAME)                                                                         \
    do {                                                                                           \
        T *x = shmem_calloc(1, sizeof(T));                                                         \
        shmem_##NAME##_atomic_set(x, (T)1.5, right);                                               \
        shmem_barrier_all();                                                                       \
        CHECK(*x == (T)1.5, #NAME " set");                                                         \
        CHECK(shmem_##NAME##_atomic_fetch(x, me) == (T)1.5, #NAME " fetch");                       \
        shmem_barrier_all();                                                                       \
        T old = shmem_##NAME##_atomic_swap(x, (T)(me + 0.25), right);                              \
        CHECK(old == (T)1.5, #NAME " swap");                                                       \
        shmem_barrier_all();                                                                       \
        CHECK(*x == (T)(left + 0.25), #NAME " swapped in");                                        \
        T f = 0;                                                                                   \
        shmem_##NAME##_atomic_fetch_nbi(&f, x, me);                                                \
        shmem_quiet();                                                                             \
        CHECK(f == (T)(left + 0.25), #NAME " fetch_nbi");                                          \
        shmem_barrier_all();                                                                       \
        shmem_free(x);                                                                             \
    } while (0)

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    STD_ROUND(int, int);
    STD_ROUND(long, long);
    STD_ROUND(long long, longlong);
    STD_ROUND(unsigned int, uint);
    STD_ROUND(unsigned long, ulong);
    STD_ROUND(unsigned long long, ulonglong);
    STD_ROUND(int32_t, int32);
    STD_ROUND(int64_t, int64);
    STD_ROUND(uint32_t, uint32);
    STD_ROUND(uint64_t, uint64);
    STD_ROUND(size_t, size);
    STD_ROUND(ptrdiff_t, ptrdiff);
    BIT_ROUND(unsigned int, uint);
    BIT_ROUND(unsigned long, ulong);
    BIT_ROUND(unsigned long long, ulonglong);
    BIT_ROUND(int32_t, int32);
    BIT_ROUND(int64_t, int64);
    BIT_ROUND(uint32_t, uint32);
    BIT_ROUND(uint64_t, uint64);
    EXT_ROUND(float, float);
    EXT_ROUND(double, double);
    EXT_ROUND(int, int);

    /* Generic and context forms, on a static word. */
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0 && ctx, "ctx_create");
    shmem_atomic_add(&static_counter, 1L, 0);
    shmem_atomic_inc(ctx, &static_counter, 0);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    if (me == 0) CHECK(static_counter == 2L * npes, "static counter %ld", static_counter);
    shmem_barrier_all();
    long before = shmem_atomic_fetch_add(ctx, &static_counter, 10L, 0);
    CHECK(before >= 2L * npes, "ctx fetch_add on static");
    shmem_barrier_all();
    CHECK(shmem_atomic_fetch(&static_counter, 0) == 12L * npes, "generic fetch");
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();

    /* Old (1.3) spellings. */
    int *old = shmem_calloc(1, sizeof(int));
    shmem_int_add(old, 3, 0);
    shmem_int_inc(old, 0);
    shmem_barrier_all();
    CHECK(shmem_int_fetch(old, 0) == 4 * npes, "deprecated add / inc / fetch");
    shmem_barrier_all();
    if (me == 0) {
        CHECK(shmem_swap(old, 1, 0) == 4 * npes, "deprecated generic swap");
        CHECK(shmem_cswap(old, 1, 2, 0) == 1, "deprecated generic cswap");
        CHECK(shmem_finc(old, 0) == 2 && shmem_fadd(old, 2, 0) == 3, "deprecated finc / fadd");
        shmem_add(old, 1, 0);
        shmem_inc(old, 0);
        shmem_set(old, shmem_fetch(old, 0) + 1, 0);
        CHECK(*old == 8, "deprecated generic add / inc / set / fetch: %d", *old);
    }
    shmem_barrier_all();
    shmem_free(old);

    /* Locks: a counter under the lock, read-modify-written with get and put. */
    long *guarded = shmem_calloc(1, sizeof(long));
    long *heap_lock = shmem_calloc(1, sizeof(long));
    for (int pass = 0; pass < 2; pass++) {
        long *lock = pass ? heap_lock : &static_lock; /* static, then heap */
        for (int round = 0; round < 10; round++) {
            shmem_set_lock(lock);
            long v = shmem_long_g(guarded, 0);
            shmem_long_p(guarded, v + 1, 0);
            shmem_clear_lock(lock);
        }
        shmem_barrier_all();
    }
    if (me == 0) CHECK(*guarded == 20L * npes, "locked counter %ld", *guarded);
    if (me == 0) {
        CHECK(shmem_test_lock(heap_lock) == 0, "test_lock takes a free lock");
        CHECK(shmem_test_lock(heap_lock) == 1, "test_lock fails on a held lock");
        shmem_clear_lock(heap_lock);
    }
    shmem_barrier_all();

    /* Waits: every PE sets its slot in each PE's flags; PE waits for all / any / some. */
    int *flags = shmem_calloc((size_t)npes, sizeof(int));
    long long *vals = shmem_calloc((size_t)npes, sizeof(long long));
    shmem_barrier_all();
    for (int p = 0; p < npes; p++) shmem_int_atomic_set(&flags[me], 1, p);
    shmem_int_wait_until_all(flags, (size_t)npes, NULL, SHMEM_CMP_EQ, 1);
    CHECK(shmem_int_test_all(flags, (size_t)npes, NULL, SHMEM_CMP_EQ, 1) == 1, "test_all");
    size_t any = shmem_int_wait_until_any(flags, (size_t)npes, NULL, SHMEM_CMP_EQ, 1);
    CHECK(any < (size_t)npes, "wait_until_any %zu", any);
    size_t idx[64];
    size_t some = shmem_int_wait_until_some(flags, (size_t)npes, idx, NULL, SHMEM_CMP_NE, 0);
    CHECK(some == (size_t)npes, "wait_until_some %zu", some);
    int status[64] = {0};
    status[0] = 1; /* excluded */
    CHECK(shmem_int_test_any(flags, 1, status, SHMEM_CMP_EQ, 1) == SIZE_MAX,
          "test_any with every element excluded");
    CHECK(shmem_int_test_some(flags, (size_t)npes, idx, status, SHMEM_CMP_EQ, 1) ==
              (size_t)npes - 1,
          "test_some skips excluded");
    CHECK(shmem_int_test(&flags[0], SHMEM_CMP_EQ, 1) == 1, "test");
    CHECK(shmem_int_test(&flags[0], SHMEM_CMP_GT, 1) == 0, "test false");
    shmem_barrier_all();
    /* Vector form: PE p writes p + 1 into slot p; wait for each slot's own value. */
    long long want[64];
    for (int p = 0; p < npes; p++) want[p] = p + 1;
    for (int p = 0; p < npes; p++) shmem_longlong_atomic_set(&vals[me], me + 1LL, p);
    shmem_longlong_wait_until_all_vector(vals, (size_t)npes, NULL, SHMEM_CMP_EQ, want);
    CHECK(shmem_longlong_test_all_vector(vals, (size_t)npes, NULL, SHMEM_CMP_GE, want) == 1,
          "test_all_vector");
    CHECK(shmem_longlong_wait_until_any_vector(vals, (size_t)npes, NULL, SHMEM_CMP_EQ, want) <
              (size_t)npes,
          "wait_until_any_vector");
    CHECK(shmem_longlong_test_some_vector(vals, (size_t)npes, idx, NULL, SHMEM_CMP_LT, want) == 0,
          "test_some_vector none");
    CHECK(shmem_longlong_wait_until_some_vector(vals, (size_t)npes, idx, NULL, SHMEM_CMP_LE,
                                                want) == (size_t)npes,
          "wait_until_some_vector");
    /* Signed and unsigned comparisons differ on negative values. */
    shmem_barrier_all();
    int neg = -1;
    unsigned int big = 0xffffffffu;
    CHECK(shmem_int_test(&neg, SHMEM_CMP_LT, 0) == 1, "signed compare");
    shmem_cmp_t lt = SHMEM_CMP_LT; /* the type other implementations name the constants by */
    CHECK(shmem_int_test(&neg, lt, 0) == 1, "shmem_cmp_t compare");
    CHECK(shmem_uint_test(&big, SHMEM_CMP_GT, 0u) == 1, "unsigned compare");
    /* Generic wait: the left neighbour sets our short. */
    short *s = shmem_calloc(1, sizeof(short));
    shmem_barrier_all();
    shmem_short_p(s, (short)-3, right);
    shmem_wait_until(s, SHMEM_CMP_EQ, (short)-3);
    CHECK(*s == -3, "short wait_until");
    shmem_barrier_all();
    shmem_free(s);

    /* shmemx.h: the pre-1.4 bitwise AMO names reach the same words; the timer advances. */
    static uint64_t xbits;
    shmem_barrier_all();
    shmemx_uint64_atomic_or(&xbits, (uint64_t)1 << (me % 64), 0);
    shmem_barrier_all();
    if (me == 0) {
        uint64_t want = 0;
        for (int r = 0; r < npes; r++) want |= (uint64_t)1 << (r % 64);
        CHECK(xbits == want, "shmemx or %llx", (unsigned long long)xbits);
        CHECK(shmemx_uint64_atomic_fetch_xor(&xbits, want, 0) == want && xbits == 0,
              "shmemx fetch_xor");
    }
    double t0 = shmemx_wtime(), t1 = t0;
    while (t1 == t0) t1 = shmemx_wtime();
    CHECK(t0 > 0 && t1 > t0, "shmemx_wtime %g %g", t0, t1);
    shmem_barrier_all();
    shmem_free(vals);
    shmem_free(flags);
    shmem_free(heap_lock);
    shmem_free(guarded);
    return shmem_check_finish("shmem_amo");
}
