/* OpenSHMEM RMA: puts and gets of every standard type (typed and generic), mem and sized forms,
 * blocking and _nbi, strided iput / iget, p / g, on heap and static symmetric memory;
 * setup queries, the symmetric heap routines, shmem_ptr, put with signal. */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shmem_check.h"

#define N 64

/* Static and global symmetric objects (the standard makes them remotely accessible). */
static long static_longs[N];
double global_doubles[N];
static uint64_t static_signal;
static int static_flag_array[4] = {1, 2, 3, 4};

#define TYPED_ROUND(T, NAME)                                                                       \
    do {                                                                                           \
        T *dst = shmem_malloc(sizeof(T) * N);                                                      \
        T src[N], back[N];                                                                         \
        for (int i = 0; i < N; i++) src[i] = (T)(me * 3 + i + 1);                                  \
        shmem_##NAME##_put(dst, src, N, right);                                                    \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < N; i++) CHECK(dst[i] == (T)(left * 3 + i + 1), #NAME " put: [%d]", i); \
        shmem_##NAME##_get(back, dst, N, right);                                                   \
        for (int i = 0; i < N; i++) CHECK(back[i] == src[i], #NAME " get: [%d]", i);               \
        shmem_barrier_all(); /* everyone has checked dst before it changes */                      \
        shmem_##NAME##_p(&dst[0], (T)7, right);                                                    \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_##NAME##_g(&dst[0], right) == (T)7, #NAME " p / g");                           \
        shmem_barrier_all();                                                                       \
        shmem_free(dst);                                                                           \
    } while (0)

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    CHECK(me >= 0 && me < npes, "my_pe %d n_pes %d", me, npes);
    CHECK(shmem_pe_accessible(right) && !shmem_pe_accessible(npes), "pe_accessible");
    int major = 0, minor = 0;
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_version(&major, &minor);
    shmem_info_get_name(name);
    CHECK(major == 1 && minor == 5 && strlen(name) > 0, "info %d.%d %s", major, minor, name);

    /* Every standard RMA type through its typed interface. */
    TYPED_ROUND(float, float);
    TYPED_ROUND(double, double);
    TYPED_ROUND(long double, longdouble);
    TYPED_ROUND(char, char);
    TYPED_ROUND(signed char, schar);
    TYPED_ROUND(short, short);
    TYPED_ROUND(int, int);
    TYPED_ROUND(long, long);
    TYPED_ROUND(long long, longlong);
    TYPED_ROUND(unsigned char, uchar);
    TYPED_ROUND(unsigned short, ushort);
    TYPED_ROUND(unsigned int, uint);
    TYPED_ROUND(unsigned long, ulong);
    TYPED_ROUND(unsigned long long, ulonglong);
    TYPED_ROUND(int8_t, int8);
    TYPED_ROUND(int16_t, int16);
    TYPED_ROUND(int32_t, int32);
    TYPED_ROUND(int64_t, int64);
    TYPED_ROUND(uint8_t, uint8);
    TYPED_ROUND(uint16_t, uint16);
    TYPED_ROUND(uint32_t, uint32);
    TYPED_ROUND(uint64_t, uint64);
    TYPED_ROUND(size_t, size);
    TYPED_ROUND(ptrdiff_t, ptrdiff);

    /* Generic selections, with and without a context, and the _nbi forms. */
    int *ibuf = shmem_calloc(N, sizeof(int));
    for (int i = 0; i < N; i++) CHECK(ibuf[i] == 0, "calloc zero [%d]", i);
    shmem_barrier_all();
    int isrc[N], iback[N];
    for (int i = 0; i < N; i++) isrc[i] = me * 1000 + i;
    shmem_put(ibuf, isrc, N / 2, right);
    shmem_put(SHMEM_CTX_DEFAULT, ibuf + N / 2, isrc + N / 2, N / 2, right);
    shmem_barrier_all();
    for (int i = 0; i < N; i++) CHECK(ibuf[i] == left * 1000 + i, "generic put [%d]", i);
    memset(iback, 0, sizeof iback);
    shmem_get_nbi(iback, ibuf, N, right);
    shmem_quiet();
    for (int i = 0; i < N; i++) CHECK(iback[i] == me * 1000 + i, "get_nbi [%d]", i);
    shmem_barrier_all();
    shmem_put_nbi(ibuf, isrc, N, right);
    shmem_quiet();
    shmem_barrier_all();
    CHECK(ibuf[N - 1] == left * 1000 + N - 1, "put_nbi");
    shmem_p(&ibuf[1], 42, right);
    shmem_barrier_all();
    CHECK(shmem_g(&ibuf[1], right) == 42, "generic p / g");
    shmem_barrier_all();

    /* Strided: every other element of the source into every third of the target. */
    memset(ibuf, 0, sizeof(int) * N);
    shmem_barrier_all();
    shmem_int_iput(ibuf, isrc, 3, 2, N / 4, right);
    shmem_barrier_all();
    for (int k = 0; k < N / 4; k++) CHECK(ibuf[3 * k] == left * 1000 + 2 * k, "iput [%d]", k);
    CHECK(ibuf[1] == 0 && ibuf[2] == 0, "iput left gaps alone");
    memset(iback, 0, sizeof iback);
    shmem_iget(iback, ibuf, 1, 3, N / 4, right);
    for (int k = 0; k < N / 4; k++) CHECK(iback[k] == me * 1000 + 2 * k, "iget [%d]", k);
    shmem_barrier_all();

    /* mem and sized forms. */
    uint8_t *bytes = shmem_malloc(1024);
    uint8_t bsrc[1024], bback[1024];
    for (int i = 0; i < 1024; i++) bsrc[i] = (uint8_t)(me + i);
    shmem_putmem(bytes, bsrc, 1024, right);
    shmem_barrier_all();
    for (int i = 0; i < 1024; i++) CHECK(bytes[i] == (uint8_t)(left + i), "putmem [%d]", i);
    shmem_getmem_nbi(bback, bytes, 1024, right);
    shmem_quiet();
    CHECK(memcmp(bback, bsrc, 1024) == 0, "getmem_nbi");
    shmem_barrier_all();
    shmem_put8(bytes, bsrc + 1, 8, right);
    shmem_put16(bytes + 8, bsrc, 4, right);
    shmem_put32(bytes + 16, bsrc, 4, right);
    shmem_put64(bytes + 32, bsrc, 2, right);
    shmem_put128(bytes + 48, bsrc, 2, right);
    shmem_put64_nbi(bytes + 80, bsrc, 1, right);
    shmem_quiet();
    shmem_barrier_all();
    CHECK(bytes[0] == (uint8_t)(left + 1), "put8");
    CHECK(bytes[8] == (uint8_t)left && bytes[15] == (uint8_t)(left + 7), "put16");
    CHECK(bytes[16 + 15] == (uint8_t)(left + 15), "put32");
    CHECK(bytes[48 + 31] == (uint8_t)(left + 31), "put128");
    CHECK(bytes[80 + 7] == (uint8_t)(left + 7), "put64_nbi");
    uint64_t w[2] = {0, 0};
    shmem_get64(w, bytes + 32, 2, right);
    CHECK(memcmp(w, bsrc, 16) == 0, "get64");
    shmem_iget32(w, bytes + 16, 1, 2, 2, me);
    CHECK(((uint32_t *)w)[1] == ((uint32_t *)(bytes + 16))[2], "iget32 on self");
    shmem_barrier_all();

    /* Static and global variables are symmetric. */
    long lsrc[N];
    for (int i = 0; i < N; i++) lsrc[i] = me * 100000L + i;
    shmem_long_put(static_longs, lsrc, N, right);
    for (int i = 0; i < N; i++) global_doubles[i] = 0;
    shmem_barrier_all();
    for (int i = 0; i < N; i++) CHECK(static_longs[i] == left * 100000L + i, "static put [%d]", i);
    double dsrc = me + 0.5;
    shmem_double_p(&global_doubles[me % N], dsrc, right);
    shmem_barrier_all();
    CHECK(global_doubles[left % N] == left + 0.5, "global p: %g", global_doubles[left % N]);
    CHECK(shmem_int_g(&static_flag_array[2], right) == 3, "static g");
    CHECK(shmem_addr_accessible(static_longs, right) && shmem_addr_accessible(ibuf, right),
          "addr_accessible");
    CHECK(!shmem_addr_accessible(lsrc, right), "a stack array is not symmetric");
    shmem_barrier_all();

    /* shmem_ptr: self always; peers where arbor maps them (checked through the pointer). */
    CHECK(shmem_ptr(ibuf, me) == ibuf, "shmem_ptr to self");
    int *peer = shmem_ptr(ibuf, right);
    if (peer) {
        CHECK(*peer == shmem_int_g(ibuf, right), "shmem_ptr load");
        shmem_barrier_all();
        *peer = -5;
        shmem_barrier_all();
        CHECK(ibuf[0] == -5, "store through a peer's shmem_ptr");
    } else {
        shmem_barrier_all();
        shmem_barrier_all();
    }
    CHECK(shmem_ptr(lsrc, right) == NULL, "shmem_ptr of non-symmetric memory is NULL");

    /* Heap management. */
    long *aligned = shmem_align(4096, 100);
    CHECK(aligned && ((uintptr_t)aligned & 4095) == 0, "align %p", (void *)aligned);
    aligned[0] = me;
    shmem_barrier_all();
    CHECK(shmem_long_g(aligned, right) == right, "aligned block is symmetric");
    shmem_barrier_all();
    /* Alignments up to megabytes (public suites ask for up to 8 MiB): the same offset on every
     * PE must be aligned on every PE, whoever allocated the segments (arbor's node-shared
     * memory, or the transport's where nothing maps it: ARBOR_DIRECT=n). */
    for (size_t a = 8; a <= ((size_t)1 << 23); a <<= 1) {
        long *blk = shmem_align(a, 3 * sizeof(long));
        CHECK(blk && ((uintptr_t)blk & (a - 1)) == 0, "align %zu: %p", a, (void *)blk);
        if (!blk) break;
        shmem_long_p(&blk[1], me + (long)a, right);
        shmem_barrier_all();
        CHECK(blk[1] == left + (long)a, "align %zu: put to the aligned block", a);
        shmem_free(blk);
    }
    long *grown = shmem_realloc(aligned, 200000);
    CHECK(grown && grown[0] == me, "realloc keeps contents");
    grown[199999 / sizeof(long)] = 1;
    long *hinted = shmem_malloc_with_hints(64, SHMEM_MALLOC_ATOMICS_REMOTE);
    CHECK(hinted != NULL, "malloc_with_hints");
    CHECK(shmem_malloc(0) == NULL, "malloc(0) is NULL");
    shmem_free(hinted);
    shmem_free(grown);

    /* PEs may ask for different sizes (OpenSHMEM 1.1 semantics, still used): each block is
     * reached within its own size, whatever the caller's. */
    int *asym = shmem_malloc(sizeof(int) * (size_t)(me + 1) * 100);
    int *fill = malloc(sizeof(int) * (size_t)(right + 1) * 100);
    for (int i = 0; i < (right + 1) * 100; i++) fill[i] = right * 7 + i;
    shmem_int_put(asym, fill, (size_t)(right + 1) * 100, right);
    free(fill);
    shmem_barrier_all();
    for (int i = 0; i < (me + 1) * 100; i++) CHECK(asym[i] == me * 7 + i, "asymmetric [%d]", i);
    shmem_barrier_all();
    shmem_free(asym);

    /* Put with signal: the data is there when the signal is. */
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    int *data = shmem_calloc(N, sizeof(int));
    shmem_barrier_all();
    shmem_int_put_signal(data, isrc, N, sig, 1, SHMEM_SIGNAL_SET, right);
    uint64_t seen = shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 1);
    CHECK(seen == 1, "signal value %llu", (unsigned long long)seen);
    for (int i = 0; i < N; i++) CHECK(data[i] == left * 1000 + i, "put_signal data [%d]", i);
    shmem_barrier_all();
    shmem_putmem_signal_nbi(data, isrc, 16, sig, 5, SHMEM_SIGNAL_ADD, right);
    shmem_quiet();
    shmem_signal_wait_until(sig, SHMEM_CMP_GE, 6);
    CHECK(shmem_signal_fetch(sig) == 6, "signal add");
    /* A signal word in static memory. */
    shmem_barrier_all();
    shmem_put_signal(data, isrc, 4, &static_signal, 9, SHMEM_SIGNAL_SET, right);
    shmem_signal_wait_until(&static_signal, SHMEM_CMP_EQ, 9);
    CHECK(data[3] == left * 1000 + 3, "static signal data");
    shmem_barrier_all();
    /* shmemx.h: the pre-1.5 spellings set the signal word. */
    memset(data, 0, sizeof(int) * N);
    *sig = 0;
    shmem_barrier_all();
    shmemx_int_put_signal(data, isrc, 8, sig, 3, right);
    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 3);
    CHECK(data[7] == left * 1000 + 7, "shmemx put_signal data");
    shmem_barrier_all();
    shmemx_putmem_signal_nbi(data + 8, isrc + 8, 8 * sizeof(int), sig, 4, right);
    shmem_quiet();
    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 4);
    CHECK(data[15] == left * 1000 + 15 && shmem_signal_fetch(sig) == 4,
          "shmemx putmem_signal_nbi sets the signal");
    shmem_barrier_all();

    /* fence orders a put before the flag put that follows it, round after round. */
    enum { BIG = 16384 };
    long *payload = shmem_calloc(BIG, sizeof(long)), *flag = shmem_calloc(1, sizeof(long));
    static long round_src[BIG];
    for (long round = 1; round <= 5; round++) {
        for (int i = 0; i < BIG; i++) round_src[i] = round * 1000000L + me * 1000L + (i % 1000);
        shmem_long_put_nbi(payload, round_src, BIG, right);
        shmem_fence();
        shmem_long_atomic_set(flag, round, right);
        shmem_long_wait_until(flag, SHMEM_CMP_EQ, round);
        int wrong = 0;
        for (int i = 0; i < BIG; i++)
            wrong += payload[i] != round * 1000000L + left * 1000L + (i % 1000);
        CHECK(wrong == 0, "fence round %ld: %d words wrong", round, wrong);
        shmem_barrier_all(); /* payload is read before the next round overwrites it */
    }
    shmem_free(flag);
    shmem_free(payload);
    shmem_free(data);
    shmem_free(sig);
    shmem_free(bytes);
    shmem_free(ibuf);
    return shmem_check_finish("shmem_rma");
}
