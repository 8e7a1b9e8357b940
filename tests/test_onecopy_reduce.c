/*
 * Launched test of one-copy reductions on symmetric buffers (ARBOR_SYMMETRIC,
 * coll/coll_direct.h): allreduce, reduce to every root and reduce_scatter (even and uneven
 * counts, a zero among them) on buffers from arbor_mem_alloc, for built-in ops on every kind
 * of type (integers, floating point, complex, long double, MINLOC / MAXLOC pairs) and user ops
 * (commutative and not: composition of affine maps, where any deviation from rank order changes
 * the result), in place and not, at counts 0, 1, 3 P + 1 (not divisible by P) and, for two of
 * them, past one landing slot (64 KiB + 3 elements) and past 1 MiB. Every element of every
 * result is checked against a fold in rank order computed here (values are small integers, so
 * floating-point results are exact whatever the combining order).
 *
 * ONECOPY_EXPECT=1 (ucx, every rank maps every other): each receiving rank also checks, through
 * arbor_team_last_collective, that the 1 MiB calls chose one copy and read in place (every rank
 * of an allreduce or reduce_scatter, a reduce's root). ONECOPY_EXPECT=0 (ofi, or
 * ARBOR_DIRECT=n): that the path was never taken.
 */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbor.h"
#include "launched_check.h"

#define CHECK_OK(_call)                                                                            \
    do {                                                                                           \
        arbor_status_t _s = (_call);                                                               \
        CHECK(_s == ARBOR_OK, "%s returned %s", #_call, arbor_strerror(_s));                       \
    } while (0)

static int expect = -1;
static const arbor_op_params_t symmetric = {.field_mask = ARBOR_OP_PARAM_FLAGS,
                                            .flags = ARBOR_SYMMETRIC};

typedef struct {
    double v;
    int i;
} double_int_t;
typedef struct {
    int v, i;
} int_int_t;

/* An affine map x -> a x + b (mod 2^32), a in the high half: applying `first` then `then`. */
static uint64_t affine_then(uint64_t first, uint64_t then)
{
    uint32_t a1 = (uint32_t)(first >> 32), b1 = (uint32_t)first;
    uint32_t a2 = (uint32_t)(then >> 32), b2 = (uint32_t)then;
    return (uint64_t)(a1 * a2) << 32 | (uint32_t)(a2 * b1 + b2);
}

/* User ops: inout[i] = in[i] op inout[i], in from lower ranks (arbor_user_fn_t). */
static void affine_op(void *in, void *inout, size_t len, arbor_dtype_t dtype)
{
    (void)dtype;
    const uint64_t *x = in;
    uint64_t *y = inout;
    for (size_t i = 0; i < len; i++) y[i] = affine_then(x[i], y[i]);
}

static void wrap_sum_op(void *in, void *inout, size_t len, arbor_dtype_t dtype)
{
    (void)dtype;
    const uint32_t *x = in;
    uint32_t *y = inout;
    for (size_t i = 0; i < len; i++) y[i] += x[i];
}

enum {
    C_I32_SUM,
    C_U64_BXOR,
    C_I64_MAX,
    C_FLT_MIN,
    C_DBL_PROD,
    C_DCPLX_SUM,
    C_LDBL_SUM,
    C_SHORT_BOR,
    C_DBLINT_MINLOC,
    C_2INT_MAXLOC,
    C_USER_AFFINE,
    C_USER_SUM,
    NCASES
};

typedef struct {
    const char *name;
    arbor_dtype_t dtype;
    arbor_op_t op; /* user ops: filled in at start */
    size_t elem;
    bool large; /* also run past one slot and past 1 MiB */
} case_t;

static case_t cases[NCASES] = {
    [C_I32_SUM] = {"int32 sum", ARBOR_INT32, ARBOR_SUM, 4, true},
    [C_U64_BXOR] = {"uint64 bxor", ARBOR_UINT64, ARBOR_BXOR, 8, false},
    [C_I64_MAX] = {"int64 max", ARBOR_INT64, ARBOR_MAX, 8, false},
    [C_FLT_MIN] = {"float min", ARBOR_FLOAT, ARBOR_MIN, 4, false},
    [C_DBL_PROD] = {"double prod", ARBOR_DOUBLE, ARBOR_PROD, 8, false},
    [C_DCPLX_SUM] = {"double complex sum", ARBOR_DBLCPLX, ARBOR_SUM, 16, false},
    [C_LDBL_SUM] = {"long double sum", ARBOR_LONGDOUBLE, ARBOR_SUM, sizeof(long double), false},
    [C_SHORT_BOR] = {"short bor", ARBOR_SHORT, ARBOR_BOR, 2, false},
    [C_DBLINT_MINLOC] = {"double_int minloc", ARBOR_DOUBLE_INT, ARBOR_MINLOC, sizeof(double_int_t),
                         false},
    [C_2INT_MAXLOC] = {"2int maxloc", ARBOR_2INT, ARBOR_MAXLOC, sizeof(int_int_t), false},
    [C_USER_AFFINE] = {"user affine (non-commutative)", ARBOR_UINT64, 0, 8, true},
    [C_USER_SUM] = {"user wrapping sum (commutative)", ARBOR_UINT32, 0, 4, false},
};

/* Element i of rank r's contribution (small integers: exact in every type). */
static void gen(int c, int r, size_t i, void *out)
{
    int v = (int)((i * 7 + (size_t)r * 13) % 11);
    switch (c) {
    case C_I32_SUM:
        *(int32_t *)out = v - 5;
        break;
    case C_U64_BXOR:
        *(uint64_t *)out = (uint64_t)(i * 2654435761u) ^ ((uint64_t)r << 40) ^ (uint64_t)v;
        break;
    case C_I64_MAX:
        *(int64_t *)out = (int64_t)v * 1000000007 - 5000000000;
        break;
    case C_FLT_MIN:
        *(float *)out = (float)v - 3.5f;
        break;
    case C_DBL_PROD:
        *(double *)out = v % 3 ? 1.0 : (v % 2 ? 2.0 : -1.0);
        break;
    case C_DCPLX_SUM:
        *(double complex *)out = (double)v + (double)(r - v) * I;
        break;
    case C_LDBL_SUM:
        memset(out, 0, sizeof(long double));
        *(long double *)out = (long double)v * 0.25L;
        break;
    case C_SHORT_BOR:
        *(short *)out = (short)(1 << ((i + (size_t)r) % 15));
        break;
    case C_DBLINT_MINLOC:
        ((double_int_t *)out)->v = v % 4;
        ((double_int_t *)out)->i = r;
        break;
    case C_2INT_MAXLOC:
        ((int_int_t *)out)->v = v % 4;
        ((int_int_t *)out)->i = r;
        break;
    case C_USER_AFFINE:
        *(uint64_t *)out =
            (uint64_t)(2 * v + 1 + 2 * r) << 32 | (uint32_t)(i * 31 + (size_t)r * 7 + 1);
        break;
    case C_USER_SUM:
        *(uint32_t *)out = 0xFFFFFFF0u + (uint32_t)v;
        break;
    }
}

/* acc = acc op next (next from the higher rank). */
static void fold(int c, void *acc, const void *next)
{
    switch (c) {
    case C_I32_SUM:
        *(int32_t *)acc += *(const int32_t *)next;
        break;
    case C_U64_BXOR:
        *(uint64_t *)acc ^= *(const uint64_t *)next;
        break;
    case C_I64_MAX:
        if (*(const int64_t *)next > *(int64_t *)acc) *(int64_t *)acc = *(const int64_t *)next;
        break;
    case C_FLT_MIN:
        if (*(const float *)next < *(float *)acc) *(float *)acc = *(const float *)next;
        break;
    case C_DBL_PROD:
        *(double *)acc *= *(const double *)next;
        break;
    case C_DCPLX_SUM:
        *(double complex *)acc += *(const double complex *)next;
        break;
    case C_LDBL_SUM:
        *(long double *)acc += *(const long double *)next;
        break;
    case C_SHORT_BOR:
        *(short *)acc |= *(const short *)next;
        break;
    case C_DBLINT_MINLOC: {
        double_int_t *a = acc;
        const double_int_t *b = next;
        if (b->v < a->v || (b->v == a->v && b->i < a->i)) *a = *b;
        break;
    }
    case C_2INT_MAXLOC: {
        int_int_t *a = acc;
        const int_int_t *b = next;
        if (b->v > a->v || (b->v == a->v && b->i < a->i)) *a = *b;
        break;
    }
    case C_USER_AFFINE:
        *(uint64_t *)acc = affine_then(*(uint64_t *)acc, *(const uint64_t *)next);
        break;
    case C_USER_SUM:
        *(uint32_t *)acc += *(const uint32_t *)next;
        break;
    }
}

static bool same(int c, const void *x, const void *y)
{
    switch (c) {
    case C_LDBL_SUM:
        return *(const long double *)x == *(const long double *)y;
    case C_DBLINT_MINLOC: {
        const double_int_t *a = x, *b = y;
        return a->v == b->v && a->i == b->i;
    }
    case C_2INT_MAXLOC: {
        const int_int_t *a = x, *b = y;
        return a->v == b->v && a->i == b->i;
    }
    default:
        return !memcmp(x, y, cases[c].elem);
    }
}

/* The expected element i: the fold over ranks in order. */
static void want(int c, size_t i, void *out)
{
    unsigned char next[32];
    gen(c, 0, i, out);
    for (int r = 1; r < size; r++) {
        gen(c, r, i, next);
        fold(c, out, next);
    }
}

/* Checks n elements at buf against the reduction of elements first.. of the vector. */
static void check_result(int c, const unsigned char *buf, size_t first, size_t n, const char *what,
                         size_t count, bool in_place)
{
    unsigned char w[32];
    for (size_t i = 0; i < n; i++) {
        want(c, first + i, w);
        if (!same(c, buf + i * cases[c].elem, w)) {
            CHECK(0, "%s %s count %zu%s: element %zu wrong", what, cases[c].name, count,
                  in_place ? " in place" : "", first + i);
            return;
        }
    }
    CHECK(1, "%s", what);
}

static void fill(int c, unsigned char *buf, size_t first, size_t n)
{
    for (size_t i = 0; i < n; i++) gen(c, rank, first + i, buf + i * cases[c].elem);
}

static uint64_t read_in_place(void)
{
    arbor_coll_info_t info;
    return arbor_team_last_collective(ARBOR_TEAM_WORLD, &info) == ARBOR_OK ? info.one_copy_bytes
                                                                           : 0;
}

/* After a call: with ONECOPY_EXPECT=0 the path must not have been taken; with 1 and a large
 * call, one copy must have been chosen (must: false where the model may rightly prefer a
 * two-copy tree) and, where this rank receives from buffers in the heap (reads), something
 * read in place. */
static void check_path(const char *what, uint64_t before, size_t bytes, bool reads, bool must)
{
    arbor_coll_info_t info;
    CHECK_OK(arbor_team_last_collective(ARBOR_TEAM_WORLD, &info));
    uint64_t read = info.one_copy_bytes - before;
    if (expect == 0)
        CHECK(!info.one_copy && read == 0, "%s: one copy taken where it must not be (%llu B)", what,
              (unsigned long long)read);
    else if (expect == 1 && bytes >= 1048576 && size > 1) {
        CHECK(info.one_copy || !must, "%s: the model did not choose one copy for %zu bytes (%s)",
              what, bytes, info.algorithm);
        if (reads && info.one_copy) CHECK(read > 0, "%s: nothing read in place", what);
    }
}

static void test_allreduce(int c, size_t count, unsigned char *send, unsigned char *recv,
                           bool in_place)
{
    size_t e = cases[c].elem;
    fill(c, in_place ? recv : send, 0, count);
    if (!in_place) memset(recv, 0xA5, count * e);
    uint64_t before = read_in_place();
    arbor_request_h req;
    CHECK_OK(arbor_allreduce_nb(ARBOR_TEAM_WORLD, in_place ? ARBOR_IN_PLACE : send, recv, count,
                                cases[c].dtype, cases[c].op, &symmetric, &req));
    CHECK_OK(arbor_wait(&req));
    check_result(c, recv, 0, count, "allreduce", count, in_place);
    check_path("allreduce", before, count * e, true, true);
}

static void test_reduce(int c, size_t count, unsigned char *send, unsigned char *recv,
                        bool in_place)
{
    size_t e = cases[c].elem;
    for (int root = 0; root < size; root++) {
        bool ip = in_place && rank == root;
        fill(c, ip ? recv : send, 0, count);
        if (!ip) memset(recv, 0x5A, count * e + 1);
        uint64_t before = read_in_place();
        arbor_request_h req;
        CHECK_OK(arbor_reduce_nb(ARBOR_TEAM_WORLD, ip ? ARBOR_IN_PLACE : send, recv, count,
                                 cases[c].dtype, cases[c].op, root, &symmetric, &req));
        CHECK_OK(arbor_wait(&req));
        if (rank == root) {
            check_result(c, recv, 0, count, "reduce", count, ip);
        } else {
            size_t touched = 0;
            for (size_t i = 0; i < count * e; i++) touched += recv[i] != 0x5A;
            CHECK(touched == 0, "reduce wrote %zu bytes of a non-root's recvbuf", touched);
        }
        /* One copy reduces at the root alone (flat, direct): from P = 4 the model may prefer a
         * two-copy tree that spreads the combining (a non-commutative op at 1 MiB on ucx). */
        check_path("reduce", before, count * e, rank == root, size <= 3);
    }
}

/* counts: even (count each), or uneven with a zero (rank 1 gets none). */
static void test_reduce_scatter(int c, size_t count, unsigned char *send, unsigned char *recv,
                                bool in_place, bool uneven)
{
    size_t e = cases[c].elem, counts[64], total = 0, mine_at = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = uneven ? (r == 1 ? 0 : count + (size_t)(r % 3)) : count;
        if (r < rank) mine_at += counts[r];
        total += counts[r];
    }
    fill(c, in_place ? recv : send, 0, total);
    if (!in_place) memset(recv, 0x3C, counts[rank] * e + 1);
    uint64_t before = read_in_place();
    arbor_request_h req;
    CHECK_OK(arbor_reduce_scatter_nb(ARBOR_TEAM_WORLD, in_place ? ARBOR_IN_PLACE : send, recv,
                                     counts, cases[c].dtype, cases[c].op, &symmetric, &req));
    CHECK_OK(arbor_wait(&req));
    check_result(c, recv, mine_at, counts[rank], "reduce_scatter", count, in_place);
    if (!in_place) CHECK(recv[counts[rank] * e] == 0x3C, "reduce_scatter wrote past its piece");
    /* In place the input is copied out of the heap first (coll/coll_start.c), so nothing is
     * read in place; the choice is still one copy. */
    check_path("reduce_scatter", before, total * e, !in_place && counts[rank] > 0, true);
}

int main(void)
{
    const char *env = getenv("ONECOPY_EXPECT");
    if (env) expect = atoi(env);
    arbor_status_t status = arbor_init();
    if (status != ARBOR_OK) {
        fprintf(stderr, "arbor_init: %s\n", arbor_strerror(status));
        return 1;
    }
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    CHECK_OK(arbor_op_create(affine_op, 0, &cases[C_USER_AFFINE].op));
    CHECK_OK(arbor_op_create(wrap_sum_op, 1, &cases[C_USER_SUM].op));
    size_t most = (2u << 20) + 4096; /* 1 MiB + 7 elements of 8 bytes, or P pieces of 1 MiB / P */
    arbor_mem_h hs, hr;
    unsigned char *send = NULL, *recv = NULL;
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, most, &hs, (void **)&send));
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, most, &hr, (void **)&recv));
    for (int c = 0; send && recv && c < NCASES; c++) {
        size_t e = cases[c].elem;
        size_t counts[] = {0, 1, 3 * (size_t)size + 1, 65536 / e + 3, 1048576 / e + 7};
        int ncounts = cases[c].large ? 5 : 3;
        for (int k = 0; k < ncounts; k++)
            for (int ip = 0; ip < 2; ip++) {
                test_allreduce(c, counts[k], send, recv, ip);
                test_reduce(c, counts[k], send, recv, ip);
                /* reduce_scatter: per-rank pieces, so the large cases keep ~1 MiB in all */
                size_t piece = k >= 3 ? counts[k] / (size_t)size + 1 : counts[k];
                test_reduce_scatter(c, piece, send, recv, ip, false);
                test_reduce_scatter(c, piece, send, recv, ip, true);
            }
    }
    if (recv) CHECK_OK(arbor_mem_free(&hr));
    if (send) CHECK_OK(arbor_mem_free(&hs));
    status = arbor_finalize();
    CHECK(status == ARBOR_OK, "arbor_finalize: %s", arbor_strerror(status));
    if (failures) fprintf(stderr, "rank %d: %d of %d checks failed\n", rank, failures, checks);
    if (rank == 0 && !failures)
        printf("test_onecopy_reduce: %d checks passed on rank 0 (P=%d)\n", checks, size);
    return failures ? 1 : 0;
}
