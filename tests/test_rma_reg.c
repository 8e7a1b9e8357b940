/*
 * Launched test of registered user memory (arbor_mem_register / pack / attach / detach, rma/
 * reg.c) and of fences that cover packed strided puts (rma/am_strided.c). Every rank
 * registers a malloc'd buffer, publishes its descriptor with an allgather and attaches its
 * peers'; then, each byte checked against a pattern:
 *   - put / get (blocking, explicit, implicit) of 1 .. 64 KiB and 1 MiB + 3 unaligned bytes
 *     into every rank's buffer, self included;
 *   - fetch-add tickets on one rank's 64-bit word and both 32-bit halves of another (every
 *     ticket exactly once), every atomic op on 32 and 64 bits against a local model;
 *   - accumulates from every rank to one location (int32, int64, double with a scale, float
 *     complex) giving the exact sum;
 *   - a 2 x 100 section of a 10 x 300 array of doubles put and got strided, an I/O vector get,
 *     a strided accumulate;
 *   - a target computing without calling arbor still serves them (passive progress);
 *   - out-of-range, detached, misaligned and bad-argument calls answer their codes, nothing
 *     written; 200 register / deregister cycles (leaks show under ASan);
 *   - packed strided puts (the active-message path, whenever the model picks it: small pieces
 *     to an unmapped target) in the implicit and explicit forms followed by arbor_notify: the
 *     target reads the data after arbor_notify_wait; and after arbor_order, behind a flag.
 */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arbor.h"
#include "runtime/context.h"
#include "runtime/lock.h"
#include "rma/am.h"
#include "rma/rma.h"

#include "launched_check.h"

#define CHECK_IS(_call, _want)                                                                     \
    do {                                                                                           \
        arbor_status_t _s = (_call);                                                               \
        CHECK(_s == (_want), "%s returned %s, expected %s", #_call, arbor_strerror(_s),            \
              arbor_strerror(_want));                                                              \
    } while (0)
#define CHECK_OK(_call) CHECK_IS(_call, ARBOR_OK)

enum { REGION = 65536, BIG = (1 << 20) + 3 };

/* Layout of every rank's registered buffer. */
#define OFF_REGIONS 0                    /* [size] regions of REGION bytes */
#define OFF_BIG(P)  ((size_t)(P)*REGION) /* 1 MiB + 3, at an odd offset + 1 */
/* words: 0, 1 tickets; 8 + r: 32-bit ops of rank r (high half); 8 + P + r: 64-bit ops; 32 ..:
 * passive test; bytes 768 .. 831: untouched by refused calls */
#define OFF_WORDS(P) (OFF_BIG(P) + BIG + 13) /* counters and atomics (8-aligned) */
#define BAD_OFF      768
#define OFF_ACC(P)   (OFF_WORDS(P) + 1024) /* accumulate targets */
#define OFF_MAT(P)   (OFF_ACC(P) + 4096)   /* 10 x 300 doubles */
#define BUF_BYTES(P) (OFF_MAT(P) + 10 * 300 * sizeof(double) + 64)

static uint8_t *buf;        /* this rank's registered buffer (8-aligned inside) */
static uint8_t **peer;      /* [size] each rank's buffer base, in its address space */
static arbor_attach_h *att; /* [size] attachments (NULL for this rank) */
static size_t buf_bytes;

static uint8_t val(int src, int dst, size_t i)
{
    return (uint8_t)(src * 31 + dst * 17 + i * 7 + (i >> 8) + 1);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t *word(int r, size_t i)
{
    return (uint64_t *)(peer[r] + OFF_WORDS(size)) + i;
}

/* ---- publishing --------------------------------------------------------------------------- */

static arbor_reg_h publish(void)
{
    arbor_reg_h reg = NULL;
    CHECK_OK(arbor_mem_register(buf, buf_bytes, 0, &reg));
    size_t len = 0;
    CHECK_OK(arbor_mem_pack(reg, NULL, &len));
    uint64_t mine = len, most = 0;
    CHECK_OK(arbor_allreduce(ARBOR_TEAM_WORLD, &mine, &most, 1, ARBOR_UINT64, ARBOR_MAX));
    size_t rec = 8 + (size_t)most;
    uint8_t *out = calloc(1, rec), *all = calloc((size_t)size, rec);
    memcpy(out, &mine, 8);
    size_t room = len - 1;
    CHECK_IS(arbor_mem_pack(reg, out + 8, &room), ARBOR_ERR_COUNT); /* one byte short */
    CHECK(room == len, "pack reported %zu bytes, then %zu", len, room);
    CHECK_OK(arbor_mem_pack(reg, out + 8, &len));
    CHECK_OK(arbor_allgather(ARBOR_TEAM_WORLD, out, all, rec, ARBOR_BYTE));
    for (int r = 0; r < size; r++) {
        uint64_t l;
        memcpy(&l, all + (size_t)r * rec, 8);
        uint8_t *blob = all + (size_t)r * rec + 8;
        void *base = NULL;
        size_t n = 0;
        int owner = -1;
        arbor_attach_h a = NULL;
        CHECK_OK(arbor_mem_attach(blob, (size_t)l, &a));
        CHECK_OK(arbor_mem_attach_info(a, &owner, &base, &n));
        CHECK(owner == r && n == buf_bytes, "attach info: rank %d, %zu bytes", owner, n);
        peer[r] = base;
        if (r == rank) { /* the owner reaches its range without attaching: detach the extra */
            CHECK(base == buf, "own descriptor names %p, registered %p", base, (void *)buf);
            CHECK_OK(arbor_mem_detach(&a));
            CHECK(a == NULL, "detach left the handle");
        }
        att[r] = a;
    }
    /* a corrupted descriptor is refused */
    uint8_t *bad = malloc(rec);
    memcpy(bad, all + 8, rec - 8);
    bad[0] ^= 0xff;
    arbor_attach_h a = (arbor_attach_h)1;
    uint64_t l0;
    memcpy(&l0, all, 8);
    CHECK_IS(arbor_mem_attach(bad, (size_t)l0, &a), ARBOR_ERR_INVALID_ARG);
    CHECK(a == NULL, "a refused attach left a handle");
    CHECK_IS(arbor_mem_attach(all + 8, 16, &a), ARBOR_ERR_INVALID_ARG);
    CHECK_IS(arbor_mem_attach(NULL, 64, &a), ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_mem_attach(all + 8, (size_t)l0, NULL), ARBOR_ERR_INVALID_ARG);
    free(bad);
    free(out);
    free(all);
    return reg;
}

/* ---- put / get --------------------------------------------------------------------------- */

static void test_contig(void)
{
    static const size_t sizes[] = {1, 8, 4095, REGION};
    /* every rank writes its region of every rank's buffer, in three forms */
    memset(buf, 0, buf_bytes);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    /* one source per target: an implicit put's source stays untouched until the quiet */
    uint8_t *srcs = malloc((size_t)size * REGION), *src = malloc(BIG);
    for (int t = 0; t < size; t++) {
        uint8_t *src = srcs + (size_t)t * REGION;
        for (size_t i = 0; i < REGION; i++) src[i] = val(rank, t, i);
        uint8_t *dst = peer[t] + OFF_REGIONS + (size_t)rank * REGION;
        arbor_request_h h = NULL;
        CHECK_OK(arbor_put(t, dst, src, 1000));
        CHECK_OK(arbor_put_nb(t, dst + 1000, src + 1000, 3001, &h));
        CHECK_OK(arbor_wait(&h));
        CHECK_OK(arbor_put_nb(t, dst + 4001, src + 4001, REGION - 4001, NULL));
    }
    CHECK_OK(arbor_quiet());
    free(srcs);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    int bad = 0;
    for (int s = 0; s < size; s++)
        for (size_t i = 0; i < REGION; i++) bad += buf[(size_t)s * REGION + i] != val(s, rank, i);
    CHECK(bad == 0, "puts into registered memory: %d wrong bytes", bad);

    /* gets of every size from the next rank, three forms */
    int to = (rank + 1) % size;
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t n = sizes[k];
        for (int form = 0; form < 3; form++) {
            memset(src, 0xEE, n + 1);
            const uint8_t *from = peer[to] + OFF_REGIONS + (size_t)((rank + form) % size) * REGION;
            arbor_request_h h = NULL;
            if (form == 0) CHECK_OK(arbor_get(to, src, from, n));
            if (form == 1) {
                CHECK_OK(arbor_get_nb(to, src, from, n, &h));
                CHECK_OK(arbor_wait(&h));
            }
            if (form == 2) {
                CHECK_OK(arbor_get_nb(to, src, from, n, NULL));
                CHECK_OK(arbor_fence(to));
            }
            bad = src[n] != 0xEE;
            for (size_t i = 0; i < n; i++) bad += src[i] != val((rank + form) % size, to, i);
            CHECK(bad == 0, "get of %zu bytes (form %d) from rank %d: %d wrong", n, form, to, bad);
        }
    }

    /* 1 MiB + 3 at an odd address, both ways */
    for (size_t i = 0; i < BIG; i++) src[i] = (uint8_t)(i * 13 + rank + 5);
    uint8_t *big = peer[to] + OFF_BIG(size) + 1;
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_OK(arbor_put(to, big, src, BIG - 1));
    CHECK_OK(arbor_quiet());
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    int from = (rank + size - 1) % size;
    bad = buf[OFF_BIG(size)] != 0;
    for (size_t i = 0; i < BIG - 1; i++)
        bad += buf[OFF_BIG(size) + 1 + i] != (uint8_t)(i * 13 + from + 5);
    CHECK(bad == 0, "1 MiB put into registered memory: %d wrong bytes", bad);
    memset(src, 0, BIG);
    CHECK_OK(arbor_get(to, src, big, BIG - 1));
    bad = 0;
    for (size_t i = 0; i < BIG - 1; i++) bad += src[i] != (uint8_t)(i * 13 + rank + 5);
    CHECK(bad == 0, "1 MiB get from registered memory: %d wrong bytes", bad);
    free(src);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
}

/* ---- atomics ------------------------------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void check_tickets(uint64_t *mine, int per, const char *what)
{
    uint64_t *all = malloc(sizeof(uint64_t) * (size_t)per * (size_t)size);
    CHECK_OK(arbor_allgather(ARBOR_TEAM_WORLD, mine, all, (size_t)per, ARBOR_UINT64));
    qsort(all, (size_t)per * (size_t)size, sizeof(uint64_t), cmp_u64);
    int bad = 0;
    for (size_t i = 0; i < (size_t)per * (size_t)size; i++) bad += all[i] != i;
    CHECK(bad == 0, "%s: %d tickets missing or repeated", what, bad);
    free(all);
}

static void test_atomics(void)
{
    enum { PER = 50 };
    memset(buf + OFF_WORDS(size), 0, 1024);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    int t64 = 0, t32 = size - 1;
    uint64_t one = 1, mine[PER];
    uint32_t one32 = 1, m32[2 * PER];
    for (int i = 0; i < PER; i++) {
        CHECK_OK(
            arbor_atomic(t64, word(t64, 0), ARBOR_AMO_FADD, ARBOR_UINT64, &one, NULL, &mine[i]));
        arbor_request_h h = NULL;
        uint32_t *halves = (uint32_t *)word(t32, 1);
        CHECK_OK(
            arbor_atomic_nb(t32, halves, ARBOR_AMO_FADD, ARBOR_UINT32, &one32, NULL, &m32[i], &h));
        CHECK_OK(arbor_wait(&h));
        CHECK_OK(arbor_atomic(t32, halves + 1, ARBOR_AMO_FADD, ARBOR_UINT32, &one32, NULL,
                              &m32[PER + i]));
    }
    check_tickets(mine, PER, "64-bit fetch-add on registered memory");
    uint64_t lo[PER], hi[PER];
    for (int i = 0; i < PER; i++) lo[i] = m32[i], hi[i] = m32[PER + i];
    check_tickets(lo, PER, "32-bit fetch-add (low half)");
    check_tickets(hi, PER, "32-bit fetch-add (high half)");
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));

    /* every op on both widths against a model, on the next rank's private words */
    int to = (rank + 1) % size;
    for (int w = 0; w < 2; w++) {
        arbor_dtype_t dt = w ? ARBOR_UINT64 : ARBOR_UINT32;
        size_t sz = w ? 8 : 4;
        void *dst = w ? (void *)word(to, 8 + (size_t)(size + rank))
                      : (void *)((uint8_t *)word(to, 8 + (size_t)rank) + 4); /* high half */
        uint64_t model = 0, mask = w ? ~(uint64_t)0 : 0xffffffffu;
        for (int op = 0; op < ARBOR_AMO_COUNT; op++) {
            uint64_t operand = (0x1234567890abcdefull * (uint64_t)(op + 3)) & mask;
            uint64_t compare = op == ARBOR_AMO_CSWAP ? model : 0, result = 0, expect = model;
            uint64_t next = model;
            switch (op) {
            case ARBOR_AMO_SET:
            case ARBOR_AMO_SWAP:
                next = operand;
                break;
            case ARBOR_AMO_ADD:
            case ARBOR_AMO_FADD:
                next = (model + operand) & mask;
                break;
            case ARBOR_AMO_AND:
            case ARBOR_AMO_FAND:
                next = model & operand;
                break;
            case ARBOR_AMO_OR:
            case ARBOR_AMO_FOR:
                next = model | operand;
                break;
            case ARBOR_AMO_XOR:
            case ARBOR_AMO_FXOR:
                next = model ^ operand;
                break;
            case ARBOR_AMO_CSWAP:
                next = operand;
                break;
            default:
                break;
            }
            arbor_request_h h = NULL;
            if (op % 3 == 0)
                CHECK_OK(arbor_atomic(to, dst, (arbor_amo_t)op, dt, &operand, &compare, &result));
            else if (op % 3 == 1) {
                CHECK_OK(
                    arbor_atomic_nb(to, dst, (arbor_amo_t)op, dt, &operand, &compare, &result, &h));
                CHECK_OK(arbor_wait(&h));
            } else {
                CHECK_OK(arbor_atomic_nb(to, dst, (arbor_amo_t)op, dt, &operand, &compare, &result,
                                         NULL));
                CHECK_OK(arbor_fence(to));
            }
            bool fetches = op == ARBOR_AMO_FETCH || op == ARBOR_AMO_SWAP || op == ARBOR_AMO_CSWAP ||
                           op >= ARBOR_AMO_FADD;
            if (fetches)
                CHECK((result & mask) == expect, "%zu-byte atomic op %d fetched %llx, want %llx",
                      sz, op, (unsigned long long)(result & mask), (unsigned long long)expect);
            model = next;
            uint64_t seen = 0;
            CHECK_OK(arbor_get(to, &seen, dst, sz));
            CHECK((seen & mask) == model, "%zu-byte atomic op %d left %llx, want %llx", sz, op,
                  (unsigned long long)(seen & mask), (unsigned long long)model);
        }
    }
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    /* the untouched low half beside each 32-bit word stayed 0 */
    for (int s = 0; s < size; s++) {
        uint32_t low;
        memcpy(&low, buf + OFF_WORDS(size) + (8 + (size_t)s) * 8, 4);
        CHECK(low == 0, "the low half beside rank %d's 32-bit word changed: %x", s, low);
    }
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
}

/* ---- accumulate --------------------------------------------------------------------------- */

static void test_acc(void)
{
    enum { N = 64 };
    uint8_t *acc = buf + OFF_ACC(size);
    memset(acc, 0, 4096);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    int t = size > 1 ? 1 : 0;
    uint8_t *r = peer[t] + OFF_ACC(size);
    int32_t i32[N];
    int64_t i64[N];
    double d[N], two = 2.0;
    float complex c[N];
    for (int i = 0; i < N; i++) {
        i32[i] = rank * 1000 + i;
        i64[i] = (int64_t)rank * 1000000007 + i;
        d[i] = rank + 0.5 * i;
        c[i] = (float)rank + (float)i * I;
    }
    arbor_request_h h = NULL;
    CHECK_OK(arbor_acc(t, r, i32, N, ARBOR_INT32, ARBOR_SUM, NULL));
    CHECK_OK(arbor_acc_nb(t, r + 512, i64, N, ARBOR_INT64, ARBOR_SUM, NULL, &h));
    CHECK_OK(arbor_wait(&h));
    CHECK_OK(arbor_acc_nb(t, r + 1024, d, N, ARBOR_DOUBLE, ARBOR_SUM, &two, NULL));
    CHECK_OK(arbor_acc(t, r + 2048, c, N, ARBOR_CPLX, ARBOR_SUM, NULL));
    CHECK_OK(arbor_acc(t, r + 3072, i64, 8, ARBOR_INT64, ARBOR_MAX, NULL));
    CHECK_OK(arbor_quiet());
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    if (rank == t) {
        int bad = 0;
        int64_t S = (int64_t)size * (size - 1) / 2;
        for (int i = 0; i < N; i++) {
            int32_t a;
            int64_t b;
            double x;
            float complex y;
            memcpy(&a, acc + 4 * i, 4);
            memcpy(&b, acc + 512 + 8 * i, 8);
            memcpy(&x, acc + 1024 + 8 * i, 8);
            memcpy(&y, acc + 2048 + 8 * i, 8);
            bad += a != (int32_t)(S * 1000 + (int64_t)size * i);
            bad += b != S * 1000000007 + (int64_t)size * i;
            bad += x != 2.0 * ((double)S + 0.5 * i * size);
            bad += crealf(y) != (float)S || cimagf(y) != (float)(i * size);
        }
        for (int i = 0; i < 8; i++) {
            int64_t m;
            memcpy(&m, acc + 3072 + 8 * i, 8);
            bad += m != (int64_t)(size - 1) * 1000000007 + i;
        }
        CHECK(bad == 0, "accumulates into registered memory: %d wrong elements", bad);
    }
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
}

/* ---- strided and vector ------------------------------------------------------------------- */

static void test_strided(void)
{
    double *mat = (double *)(buf + OFF_MAT(size));
    for (int i = 0; i < 3000; i++) mat[i] = rank * 10000 + i;
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    double *rm = (double *)(peer[to] + OFF_MAT(size));
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    /* a 2 x 100 section (rows 3, 4; columns 50..149) of the next rank's 10 x 300 matrix */
    double sec[200];
    size_t count[2] = {100 * sizeof(double), 2};
    ptrdiff_t rs[1] = {300 * sizeof(double)}, ls[1] = {100 * sizeof(double)};
    CHECK_OK(arbor_get_strided(to, sec, ls, rm + 3 * 300 + 50, rs, count, 1));
    int bad = 0;
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 100; k++)
            bad += sec[r * 100 + k] != to * 10000 + (3 + r) * 300 + 50 + k;
    CHECK(bad == 0, "strided get from registered memory: %d wrong", bad);
    /* I/O vector get of the same 2 rows */
    void *rsrc[2] = {rm + 3 * 300 + 50, rm + 4 * 300 + 50}, *ldst[2] = {sec, sec + 100};
    memset(sec, 0, sizeof(sec));
    arbor_iov_t iov = {rsrc, ldst, 2, 100 * sizeof(double)};
    CHECK_OK(arbor_get_vector(to, &iov, 1));
    bad = 0;
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 100; k++)
            bad += sec[r * 100 + k] != to * 10000 + (3 + r) * 300 + 50 + k;
    CHECK(bad == 0, "vector get from registered memory: %d wrong", bad);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    /* put the section back negated into rows 6, 7; accumulate 1.0 onto row 8's section */
    for (int i = 0; i < 200; i++) sec[i] = -(rank * 10000.0 + i);
    CHECK_OK(arbor_put_strided(to, rm + 6 * 300 + 50, rs, sec, ls, count, 1));
    double ones[200];
    for (int i = 0; i < 200; i++) ones[i] = 1.0;
    size_t c1[2] = {100 * sizeof(double), 1};
    CHECK_OK(arbor_acc_strided(to, rm + 8 * 300 + 50, rs, ones, ls, c1, 1, ARBOR_DOUBLE, ARBOR_SUM,
                               NULL));
    CHECK_OK(arbor_quiet());
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    bad = 0;
    for (int r = 0; r < 10; r++)
        for (int k = 0; k < 300; k++) {
            double want = rank * 10000 + r * 300 + k;
            bool in = k >= 50 && k < 150;
            if (in && (r == 6 || r == 7)) want = -(from * 10000.0 + (r - 6) * 100 + (k - 50));
            if (in && r == 8) want += 1.0;
            bad += mat[r * 300 + k] != want;
        }
    CHECK(bad == 0, "strided put / acc into registered memory: %d wrong", bad);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
}

/* ---- packed strided puts and the fence ------------------------------------------------------ */

/* 256 pieces of 8 bytes at a stride of 24: the model packs them for an unmapped target (OFI
 * peers; on UCX the registered buffer, which is never mapped). */
static void packed_round(int to, int from, uint8_t *rbase_to, uint8_t *mine, int form,
                         uint64_t *flag, uint64_t *flag_to)
{
    enum { PIECES = 256 };
    size_t count[2] = {8, PIECES};
    ptrdiff_t wide[1] = {24}, tight[1] = {8};
    uint8_t src[8 * PIECES];
    for (size_t i = 0; i < sizeof(src); i++) src[i] = val(rank, form, i);
    memset(mine, 0xEE, 24 * PIECES);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    arbor_request_h h = NULL;
    if (form == 0) { /* implicit, then notify */
        CHECK_OK(arbor_put_strided_nb(to, rbase_to, wide, src, tight, count, 1, NULL));
        CHECK_OK(arbor_notify(to));
    } else if (form == 1) { /* explicit: the handle means the source is reusable */
        CHECK_OK(arbor_put_strided_nb(to, rbase_to, wide, src, tight, count, 1, &h));
        CHECK_OK(arbor_wait(&h));
        memset(src, 0x11, sizeof(src)); /* must not change what lands */
        CHECK_OK(arbor_notify(to));
    } else { /* blocking, then order, then a flag the target waits for */
        uint64_t one = 1;
        CHECK_OK(arbor_put_strided(to, rbase_to, wide, src, tight, count, 1));
        CHECK_OK(arbor_order(to));
        CHECK_OK(arbor_put(to, flag_to, &one, sizeof(one)));
        CHECK_OK(arbor_fence(to));
    }
    if (form < 2) {
        CHECK_OK(arbor_notify_wait(from, 1));
    } else {
        /* Spin without calling arbor: the handlers of the packed put run only in the progress
         * thread here, so the flag must not arrive before they ran (arbor_order's job). */
        double t0 = now_s();
        while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != 1 && now_s() - t0 < 30) {
        }
        CHECK(__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 1,
              "the flag after arbor_order never came");
    }
    int bad = 0;
    for (size_t i = 0; i < 24 * PIECES; i++) {
        bool in = i % 24 < 8;
        bad += mine[i] != (in ? val(from, form, (i / 24) * 8 + i % 24) : 0xEE);
    }
    CHECK(bad == 0, "packed strided put (form %d) seen after %s: %d wrong bytes", form,
          form < 2 ? "notify" : "order + flag", bad);
    *flag = 0;
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
}

static void test_packed_fence(void)
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    arbor_mem_h m;
    uint8_t *heap;
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, 8192 + 64, &m, (void **)&heap));
    void *heap_to;
    int to_team = to; /* world team: team rank = world rank */
    CHECK_OK(arbor_mem_addr(m, to_team, &heap_to, NULL));
    uint64_t *flag = (uint64_t *)(heap + 8192), *flag_to = (uint64_t *)((uint8_t *)heap_to + 8192);
    uint64_t before = arb_am_strided_packed_calls();
    int packs = 0;
    for (int where = 0; where < 2; where++) { /* heap, then registered memory */
        uint8_t *mine = where ? buf + OFF_REGIONS : heap;
        uint8_t *rbase = where ? peer[to] + OFF_REGIONS : (uint8_t *)heap_to;
        bool mapped = !where && arb_rma_peer_seg(to) != NULL;
        arb_lock();
        bool pack = arb_rma_strided_choose(8, 256, mapped) == ARB_STRIDED_PACK;
        arb_unlock();
        for (int form = 0; form < 3; form++)
            packed_round(to, from, rbase, mine, form, flag, flag_to);
        packs += pack ? 3 : 0;
    }
    uint64_t ran = arb_am_strided_packed_calls() - before;
    CHECK(ran == (uint64_t)packs, "the pack path ran %llu times, the model chose it %d times",
          (unsigned long long)ran, packs);
    if (rank == 0 && size > 1) {
        const char *tp = "?";
        arbor_transport_name(&tp);
        printf("test_rma_reg: %s: %d of 6 strided puts went packed (active messages)\n", tp, packs);
    }
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_OK(arbor_mem_free(&m));
}

/* ---- put with signal: data in registered memory, signal in the heap ---------------------- */

static void test_put_signal(void)
{
    enum { N = 3000 };
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    arbor_mem_h m;
    uint64_t *sig;
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, 64, &m, (void **)&sig));
    void *sig_to;
    CHECK_OK(arbor_mem_addr(m, to, &sig_to, NULL));
    uint8_t *src = malloc(2 * N);
    for (int i = 0; i < 2 * N; i++) src[i] = val(rank, 7, (size_t)i);
    memset(buf + OFF_REGIONS, 0, 2 * N);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    uint8_t *dst = peer[to] + OFF_REGIONS;
    arbor_request_h h = NULL;
    CHECK_OK(arbor_put_signal(to, dst, src, N, sig_to, 1, ARBOR_SIGNAL_ADD));
    CHECK_OK(arbor_put_signal_nb(to, dst + N, src + N, N, sig_to, 1, ARBOR_SIGNAL_ADD, &h));
    CHECK_OK(arbor_wait(&h));
    CHECK_OK(arbor_wait_until(sig, ARBOR_CMP_EQ, 2, NULL));
    int bad = 0;
    for (int i = 0; i < 2 * N; i++) bad += buf[OFF_REGIONS + (size_t)i] != val(from, 7, (size_t)i);
    CHECK(bad == 0, "put_signal into registered memory: %d bytes wrong once signalled", bad);
    CHECK_OK(arbor_quiet());
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    free(src);
    CHECK_OK(arbor_mem_free(&m));
}

/* ---- passive progress -------------------------------------------------------------------- */

static void test_passive(void)
{
    enum { OPS = 30 };
    uint64_t *w = (uint64_t *)(buf + OFF_WORDS(size)) + 32;
    memset(w, 0, 8 * (size_t)(size + 1));
    for (int i = 0; i < 16; i++) buf[OFF_REGIONS + (size_t)i] = (uint8_t)(i + 100);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    double t_end = 0, t_done = 0;
    if (rank == 0) {
        double t0 = now_s();
        volatile double x = 1;
        while (now_s() - t0 < 1.0)
            for (int i = 0; i < 1000; i++) x = x * 1.0000001 + 1e-9;
        t_end = now_s();
    } else {
        int bad = 0;
        uint8_t got[16];
        uint64_t one = 1, t;
        for (int i = 0; i < OPS; i++) {
            CHECK_OK(arbor_get(0, got, peer[0] + OFF_REGIONS, sizeof(got)));
            for (int k = 0; k < 16; k++) bad += got[k] != (uint8_t)(k + 100);
            CHECK_OK(arbor_atomic(0, word(0, 32), ARBOR_AMO_FADD, ARBOR_UINT64, &one, NULL, &t));
            bad += t >= (uint64_t)(OPS * size);
        }
        CHECK_OK(arbor_put(0, word(0, 33 + (size_t)rank), &one, sizeof(one)));
        CHECK_OK(arbor_fence(0));
        t_done = now_s();
        CHECK(bad == 0, "passive registered target: %d wrong values", bad);
    }
    double *ends = malloc(sizeof(double) * (size_t)size), target_end = 0;
    CHECK_OK(arbor_allgather(ARBOR_TEAM_WORLD, &t_done, ends, 1, ARBOR_DOUBLE));
    CHECK_OK(arbor_allreduce(ARBOR_TEAM_WORLD, &t_end, &target_end, 1, ARBOR_DOUBLE, ARBOR_MAX));
    if (rank == 0) {
        int late = 0;
        for (int r = 1; r < size; r++) late += ends[r] > target_end;
        CHECK(late == 0, "%d ranks were served only after the target stopped computing", late);
        CHECK(w[0] == (uint64_t)(OPS * (size - 1)), "passive counter %llu",
              (unsigned long long)w[0]);
        for (int r = 1; r < size; r++) CHECK(w[1 + r] == 1, "passive put from %d", r);
    }
    free(ends);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
}

/* ---- refusals ----------------------------------------------------------------------------- */

static void test_bad_input(arbor_reg_h *reg)
{
    int to = (rank + 1) % size;
    uint8_t *end = peer[to] + buf_bytes, x[16] = {0};
    uint64_t one = 1, res;
    memset(buf + OFF_WORDS(size) + BAD_OFF, 0x5a, 64);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_IS(arbor_put(to, end - 4, x, 8), ARBOR_ERR_ADDRESS);
    CHECK_IS(arbor_get(to, x, end, 1), ARBOR_ERR_ADDRESS);
    CHECK_IS(arbor_put(to, peer[to] - 8, x, 8), ARBOR_ERR_ADDRESS);
    CHECK_IS(arbor_put(to, end - 8, x, SIZE_MAX), ARBOR_ERR_ADDRESS);
    CHECK_IS(arbor_atomic(to, end, ARBOR_AMO_ADD, ARBOR_UINT64, &one, NULL, NULL),
             ARBOR_ERR_ADDRESS);
    CHECK_IS(arbor_atomic(to, peer[to] + OFF_WORDS(size) + BAD_OFF + 4, ARBOR_AMO_FADD,
                          ARBOR_UINT64, &one, NULL, &res),
             ARBOR_ERR_ALIGNMENT);
    CHECK_IS(arbor_acc(to, peer[to] + OFF_WORDS(size) + BAD_OFF + 2, &one, 1, ARBOR_INT32,
                       ARBOR_SUM, NULL),
             ARBOR_ERR_ALIGNMENT);
    uint64_t *sig_in_reg = (uint64_t *)(peer[to] + OFF_WORDS(size) + BAD_OFF);
    CHECK_IS(arbor_put_signal(to, peer[to] + OFF_WORDS(size) + BAD_OFF + 8, x, 8, sig_in_reg, 1,
                              ARBOR_SIGNAL_ADD),
             ARBOR_ERR_ADDRESS);
    CHECK_IS(arbor_wait_until((uint64_t *)(buf + OFF_WORDS(size) + BAD_OFF), ARBOR_CMP_EQ, 0, NULL),
             ARBOR_ERR_ADDRESS);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    int bad = 0;
    for (int i = 0; i < 64; i++) bad += buf[OFF_WORDS(size) + BAD_OFF + (size_t)i] != 0x5a;
    CHECK(bad == 0, "a refused call wrote %d bytes", bad);

    /* registration arguments */
    arbor_reg_h r = (arbor_reg_h)1;
    uint8_t *mem = malloc(4096 + 64);
    uint8_t *al = (uint8_t *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);
    CHECK_IS(arbor_mem_register(NULL, 64, 0, &r), ARBOR_ERR_BUFFER);
    CHECK(r == NULL, "a refused register left a handle");
    CHECK_IS(arbor_mem_register(al, 0, 0, &r), ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_mem_register(al + 4, 64, 0, &r), ARBOR_ERR_ALIGNMENT);
    CHECK_IS(arbor_mem_register(al, 64, 1u << 7, &r), ARBOR_ERR_FLAGS);
    CHECK_IS(arbor_mem_register(al, 64, 0, NULL), ARBOR_ERR_INVALID_ARG);
    CHECK_IS(arbor_mem_register(al, SIZE_MAX - 8, 0, &r), ARBOR_ERR_COUNT);
    arbor_mem_h m;
    void *heap;
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, 128, &m, &heap));
    CHECK_IS(arbor_mem_register(heap, 64, 0, &r), ARBOR_ERR_ADDRESS);
    size_t len = 0;
    CHECK_IS(arbor_mem_pack(NULL, NULL, &len), ARBOR_ERR_HANDLE);
    CHECK_IS(arbor_mem_pack(*reg, NULL, NULL), ARBOR_ERR_INVALID_ARG);
    arbor_attach_h stale = NULL;
    CHECK_IS(arbor_mem_detach(&stale), ARBOR_ERR_HANDLE);
    CHECK_IS(arbor_mem_attach_info(NULL, NULL, NULL, NULL), ARBOR_ERR_HANDLE);

    /* 200 register / deregister cycles; a stale handle is refused */
    for (int i = 0; i < 200; i++) {
        CHECK_OK(arbor_mem_register(al, 4096, 0, &r));
        uint64_t v = (uint64_t)i;
        CHECK_OK(arbor_put(rank, al + 8 * (i % 64), &v, 8)); /* own range, no attach */
        arbor_reg_h keep = r;
        CHECK_OK(arbor_mem_deregister(&r));
        CHECK(r == NULL, "deregister left the handle");
        CHECK_IS(arbor_mem_deregister(&keep), ARBOR_ERR_HANDLE);
        CHECK_IS(arbor_put(rank, al, &v, 8), ARBOR_ERR_ADDRESS);
    }
    bad = 0;
    for (int i = 0; i < 64; i++) {
        uint64_t v;
        memcpy(&v, al + 8 * i, 8);
        bad += v != (uint64_t)(192 + i < 200 ? 192 + i : 128 + i); /* the last i of that word */
    }
    CHECK(bad == 0, "puts of the register cycles: %d wrong words", bad);
    free(mem);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_OK(arbor_mem_free(&m));

    /* detached: refused; the owner's deregistration after everyone detached */
    for (int t = 0; t < size; t++)
        if (att[t]) {
            CHECK_OK(arbor_mem_detach(&att[t]));
            CHECK_IS(arbor_put(t, peer[t], x, 8), ARBOR_ERR_ADDRESS);
            CHECK_IS(arbor_get(t, x, peer[t] + 64, 8), ARBOR_ERR_ADDRESS);
        }
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_OK(arbor_mem_deregister(reg));
    CHECK_IS(arbor_put(rank, buf, x, 8), ARBOR_ERR_ADDRESS);
}

#ifdef ARB_OFI_TEST_MR_LOCAL
/* The OFI registration cache (transports/ofi/ofi_rcache.c), in the build that forces
 * FI_MR_LOCAL, run with ARBOR_REG_CACHE set: a 512 KiB put from a malloc'd buffer registers its
 * span once (a miss), the same put again hits, both land right; registering and deregistering
 * memory overlapping the entry drops it. */
void arb_ofi_rc_stats(arb_tp_t *tp, uint64_t out[4]);

static void test_rcache(void)
{
    enum { N = 512 * 1024 };
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    uint8_t *src = NULL;
    if (posix_memalign((void **)&src, 4096, N)) return;
    uint64_t s0[4], s1[4], s2[4];
    arb_ofi_rc_stats(arb_ctx.tp, s0);
    for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < N; i++) src[i] = (uint8_t)(i * 3 + rank + round);
        CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
        CHECK_OK(arbor_put(to, peer[to] + OFF_BIG(size), src, N));
        CHECK_OK(arbor_quiet());
        CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
        int bad = 0;
        for (size_t i = 0; i < N; i++)
            bad += buf[OFF_BIG(size) + i] != (uint8_t)(i * 3 + from + round);
        CHECK(bad == 0, "put through the registration cache (round %d): %d wrong bytes", round,
              bad);
    }
    arb_ofi_rc_stats(arb_ctx.tp, s1);
    CHECK(s1[1] == s0[1] + 1, "registration cache: %llu misses for one buffer, want 1",
          (unsigned long long)(s1[1] - s0[1]));
    CHECK(s1[0] > s0[0], "registration cache: no hit on the second put");
    arbor_reg_h r;
    CHECK_OK(arbor_mem_register(src + 4096, 4096, 0, &r));
    CHECK_OK(arbor_mem_deregister(&r));
    arb_ofi_rc_stats(arb_ctx.tp, s2);
    CHECK(s2[3] + 1 == s1[3], "deregistering overlapping memory left %llu entries (had %llu)",
          (unsigned long long)s2[3], (unsigned long long)s1[3]);
    free(src);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
}
#endif

int main(void)
{
    arbor_status_t st = arbor_init();
    if (st != ARBOR_OK) return 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    buf_bytes = BUF_BYTES(size);
    void *raw = NULL;
    if (posix_memalign(&raw, 64, buf_bytes)) return 1;
    buf = raw;
    memset(buf, 0, buf_bytes);
    peer = calloc((size_t)size, sizeof(*peer));
    att = calloc((size_t)size, sizeof(*att));
    arbor_reg_h reg = publish();
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    test_contig();
    test_atomics();
    test_acc();
    test_strided();
    test_packed_fence();
    test_put_signal();
    test_passive();
#ifdef ARB_OFI_TEST_MR_LOCAL
    test_rcache();
#endif
    test_bad_input(&reg);
    int total = 0;
    CHECK_OK(arbor_allreduce(ARBOR_TEAM_WORLD, &failures, &total, 1, ARBOR_INT, ARBOR_SUM));
    if (rank == 0) printf("test_rma_reg: %d ranks, %d checks, %d failures\n", size, checks, total);
    CHECK_OK(arbor_finalize());
    free(raw);
    free(peer);
    free(att);
    return total ? 1 : 0;
}
