/*
 * Unit test of runtime/dtype.c and the generated kernels: for every (type, op) pair, whether it
 * is defined (the rules of arbor.h, restated here by hand), and for defined pairs the result of
 * arb_reduce in both combine orders against a scalar reference that computes in int64 /
 * uint64 / long double / long double _Complex; MINLOC / MAXLOC ties; user ops, commutative and
 * not, over more elements than dtype.c stages at a time; the public calls' argument checks.
 * Runs without arbor_init: these calls must not depend on it. Exits 1 on any failure.
 */
#include "runtime/dtype.h"

#include "algorithms/sched.h"
#include "arbor.h"

#include <complex.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

#define CHECK(_cond, ...)                                                                          \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(_cond)) {                                                                            \
            failures++;                                                                            \
            if (failures <= 30) {                                                                  \
                printf("FAIL %s:%d: ", __FILE__, __LINE__);                                        \
                printf(__VA_ARGS__);                                                               \
                printf("\n");                                                                      \
            }                                                                                      \
        }                                                                                          \
    } while (0)

typedef enum { K_SINT, K_UINT, K_REAL, K_CPLX, K_PAIR } kind_t;

/* The pair types as arbor.h describes them. */
struct float_int {
    float v;
    int i;
};
struct double_int {
    double v;
    int i;
};
struct long_int {
    long v;
    int i;
};
struct int_int {
    int v;
    int i;
};
struct short_int {
    short v;
    int i;
};
struct ldouble_int {
    long double v;
    int i;
};

typedef struct {
    kind_t kind;
    size_t size;
} tdesc_t;

#define CHAR_KIND (CHAR_MIN < 0 ? K_SINT : K_UINT)
static const tdesc_t types[ARBOR_DTYPE_COUNT] = {
    [ARBOR_BYTE] = {K_UINT, 1}, /* a byte: an unsigned char */
    [ARBOR_CHAR] = {CHAR_KIND, sizeof(char)},
    [ARBOR_UCHAR] = {K_UINT, sizeof(unsigned char)},
    [ARBOR_SHORT] = {K_SINT, sizeof(short)},
    [ARBOR_USHORT] = {K_UINT, sizeof(unsigned short)},
    [ARBOR_INT] = {K_SINT, sizeof(int)},
    [ARBOR_UINT] = {K_UINT, sizeof(unsigned)},
    [ARBOR_LONG] = {K_SINT, sizeof(long)},
    [ARBOR_ULONG] = {K_UINT, sizeof(unsigned long)},
    [ARBOR_LONGLONG] = {K_SINT, sizeof(long long)},
    [ARBOR_ULONGLONG] = {K_UINT, sizeof(unsigned long long)},
    [ARBOR_INT8] = {K_SINT, sizeof(int8_t)},
    [ARBOR_UINT8] = {K_UINT, sizeof(uint8_t)},
    [ARBOR_INT16] = {K_SINT, sizeof(int16_t)},
    [ARBOR_UINT16] = {K_UINT, sizeof(uint16_t)},
    [ARBOR_INT32] = {K_SINT, sizeof(int32_t)},
    [ARBOR_UINT32] = {K_UINT, sizeof(uint32_t)},
    [ARBOR_INT64] = {K_SINT, sizeof(int64_t)},
    [ARBOR_UINT64] = {K_UINT, sizeof(uint64_t)},
    [ARBOR_FLOAT] = {K_REAL, sizeof(float)},
    [ARBOR_DOUBLE] = {K_REAL, sizeof(double)},
    [ARBOR_LONGDOUBLE] = {K_REAL, sizeof(long double)},
    [ARBOR_CPLX] = {K_CPLX, sizeof(float _Complex)},
    [ARBOR_DBLCPLX] = {K_CPLX, sizeof(double _Complex)},
    [ARBOR_LONGDBLCPLX] = {K_CPLX, sizeof(long double _Complex)},
    [ARBOR_FLOAT_INT] = {K_PAIR, sizeof(struct float_int)},
    [ARBOR_DOUBLE_INT] = {K_PAIR, sizeof(struct double_int)},
    [ARBOR_LONG_INT] = {K_PAIR, sizeof(struct long_int)},
    [ARBOR_2INT] = {K_PAIR, sizeof(struct int_int)},
    [ARBOR_SHORT_INT] = {K_PAIR, sizeof(struct short_int)},
    [ARBOR_LONG_DOUBLE_INT] = {K_PAIR, sizeof(struct ldouble_int)},
};

/* arbor.h: bitwise ops on integers only; MIN / MAX not on complex (nor pairs, where MPI leaves
 * them undefined); MINLOC / MAXLOC on pairs only; SUM / PROD / LAND / LOR not on pairs. */
static bool defined(kind_t k, arbor_op_t op)
{
    bool integer = k == K_SINT || k == K_UINT;
    switch (op) {
    case ARBOR_BAND:
    case ARBOR_BOR:
    case ARBOR_BXOR:
        return integer;
    case ARBOR_MIN:
    case ARBOR_MAX:
        return integer || k == K_REAL;
    case ARBOR_MINLOC:
    case ARBOR_MAXLOC:
        return k == K_PAIR;
    default:
        return k != K_PAIR; /* SUM, PROD, LAND, LOR */
    }
}

/* One element in a wide form: integers in s / u, reals and pair values in c (real part),
 * complex in c, pair index in i. */
typedef struct {
    int64_t s;
    uint64_t u;
    long double _Complex c;
    int i;
} val_t;

#define CASE_INT(_t, _T)                                                                           \
    case _t:                                                                                       \
        if (store)                                                                                 \
            ((_T *)buf)[k] = (_T)(types[t].kind == K_SINT ? (uint64_t)v->s : v->u);                \
        else if (types[t].kind == K_SINT)                                                          \
            v->s = (int64_t)((_T *)buf)[k];                                                        \
        else                                                                                       \
            v->u = (uint64_t)((_T *)buf)[k];                                                       \
        break
#define CASE_FP(_t, _T)                                                                            \
    case _t:                                                                                       \
        if (store)                                                                                 \
            ((_T *)buf)[k] = (_T)v->c;                                                             \
        else                                                                                       \
            v->c = ((_T *)buf)[k];                                                                 \
        break
#define CASE_PAIR(_t, _S, _V)                                                                      \
    case _t:                                                                                       \
        if (store) {                                                                               \
            ((struct _S *)buf)[k].v = (_V)creall(v->c);                                            \
            ((struct _S *)buf)[k].i = v->i;                                                        \
        } else {                                                                                   \
            v->c = ((struct _S *)buf)[k].v;                                                        \
            v->i = ((struct _S *)buf)[k].i;                                                        \
        }                                                                                          \
        break

/* Element k of buf <-> *v, through the C type itself. */
static void elem_io(arbor_dtype_t t, void *buf, size_t k, val_t *v, bool store)
{
    if (!store) memset(v, 0, sizeof(*v));
    switch (t) {
        CASE_INT(ARBOR_BYTE, unsigned char);
        CASE_INT(ARBOR_CHAR, char);
        CASE_INT(ARBOR_UCHAR, unsigned char);
        CASE_INT(ARBOR_SHORT, short);
        CASE_INT(ARBOR_USHORT, unsigned short);
        CASE_INT(ARBOR_INT, int);
        CASE_INT(ARBOR_UINT, unsigned);
        CASE_INT(ARBOR_LONG, long);
        CASE_INT(ARBOR_ULONG, unsigned long);
        CASE_INT(ARBOR_LONGLONG, long long);
        CASE_INT(ARBOR_ULONGLONG, unsigned long long);
        CASE_INT(ARBOR_INT8, int8_t);
        CASE_INT(ARBOR_UINT8, uint8_t);
        CASE_INT(ARBOR_INT16, int16_t);
        CASE_INT(ARBOR_UINT16, uint16_t);
        CASE_INT(ARBOR_INT32, int32_t);
        CASE_INT(ARBOR_UINT32, uint32_t);
        CASE_INT(ARBOR_INT64, int64_t);
        CASE_INT(ARBOR_UINT64, uint64_t);
        CASE_FP(ARBOR_FLOAT, float);
        CASE_FP(ARBOR_DOUBLE, double);
        CASE_FP(ARBOR_LONGDOUBLE, long double);
        CASE_FP(ARBOR_CPLX, float _Complex);
        CASE_FP(ARBOR_DBLCPLX, double _Complex);
        CASE_FP(ARBOR_LONGDBLCPLX, long double _Complex);
        CASE_PAIR(ARBOR_FLOAT_INT, float_int, float);
        CASE_PAIR(ARBOR_DOUBLE_INT, double_int, double);
        CASE_PAIR(ARBOR_LONG_INT, long_int, long);
        CASE_PAIR(ARBOR_2INT, int_int, int);
        CASE_PAIR(ARBOR_SHORT_INT, short_int, short);
        CASE_PAIR(ARBOR_LONG_DOUBLE_INT, ldouble_int, long double);
    default:
        break;
    }
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static int64_t rnd_range(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

/* A value for op: small where the result must not overflow (SUM / PROD: |a * b| <= 121 fits
 * int8, and reals are multiples of 1/4 so float results are exact), the full range of the type
 * otherwise (catches signedness and width mistakes), with zeros for LAND / LOR and frequent
 * value ties for MINLOC / MAXLOC. */
static val_t gen(arbor_dtype_t t, arbor_op_t op)
{
    val_t v = {0};
    int bits = (int)types[t].size * 8;
    bool small = op == ARBOR_SUM || op == ARBOR_PROD;
    bool zero = (op == ARBOR_LAND || op == ARBOR_LOR) && rnd() % 3 == 0;
    switch (types[t].kind) {
    case K_SINT:
        if (small)
            v.s = rnd_range(-11, 11);
        else if (bits == 64)
            v.s = (int64_t)(rnd() >> 1) - (int64_t)(rnd() >> 1);
        else
            v.s = (int64_t)(rnd() >> (64 - bits)) - ((int64_t)1 << (bits - 1));
        if (zero) v.s = 0;
        break;
    case K_UINT:
        v.u = small ? (uint64_t)rnd_range(0, 15) : bits == 64 ? rnd() : rnd() >> (64 - bits);
        if (zero) v.u = 0;
        break;
    case K_REAL:
        v.c = zero ? 0 : rnd_range(small ? -20 : -4000, small ? 20 : 4000) / 4.0L;
        break;
    case K_CPLX: {
        long double re = rnd_range(-20, 20) / 4.0L, im = rnd_range(-20, 20) / 4.0L;
        /* LAND / LOR: zero, or zero in one part only (still a true value). */
        if (zero)
            re = im = 0;
        else if (!small && rnd() % 3 == 0)
            re = 0;
        v.c = re + im * I;
        break;
    }
    case K_PAIR:
        v.c = rnd_range(-3, 3);
        v.i = (int)rnd_range(0, 50);
        break;
    }
    return v;
}

/* x op y, computed independently of the kernels. */
static val_t reference(arbor_dtype_t t, arbor_op_t op, val_t x, val_t y)
{
    kind_t k = types[t].kind;
    int bits = (int)types[t].size * 8;
    uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1; /* reals: unused */
    val_t r = {0};
    bool xt = k == K_SINT ? x.s != 0 : k == K_UINT ? x.u != 0 : x.c != 0;
    bool yt = k == K_SINT ? y.s != 0 : k == K_UINT ? y.u != 0 : y.c != 0;
    bool x_less = k == K_SINT ? x.s < y.s : k == K_UINT ? x.u < y.u : creall(x.c) < creall(y.c);
    bool y_less = k == K_SINT ? y.s < x.s : k == K_UINT ? y.u < x.u : creall(y.c) < creall(x.c);
    switch (op) {
    case ARBOR_SUM:
        r.s = x.s + y.s;
        r.u = (x.u + y.u) & mask;
        r.c = x.c + y.c;
        break;
    case ARBOR_PROD:
        r.s = x.s * y.s;
        r.u = (x.u * y.u) & mask;
        r.c = x.c * y.c;
        break;
    case ARBOR_BAND:
        r.s = x.s & y.s, r.u = x.u & y.u;
        break;
    case ARBOR_BOR:
        r.s = x.s | y.s, r.u = x.u | y.u;
        break;
    case ARBOR_BXOR:
        r.s = x.s ^ y.s, r.u = x.u ^ y.u;
        break;
    case ARBOR_LAND:
        r.s = r.u = (uint64_t)(xt && yt), r.c = xt && yt;
        break;
    case ARBOR_LOR:
        r.s = r.u = (uint64_t)(xt || yt), r.c = xt || yt;
        break;
    case ARBOR_MIN:
    case ARBOR_MINLOC:
        r = y_less ? y : x;
        break;
    case ARBOR_MAX:
    case ARBOR_MAXLOC:
        r = x_less ? y : x;
        break;
    }
    if ((op == ARBOR_MINLOC || op == ARBOR_MAXLOC) && !x_less && !y_less)
        r.i = x.i < y.i ? x.i : y.i; /* a tie: the smaller index */
    return r;
}

static bool same(arbor_dtype_t t, val_t a, val_t b)
{
    switch (types[t].kind) {
    case K_SINT:
        return a.s == b.s;
    case K_UINT:
        return a.u == b.u;
    case K_PAIR:
        return a.c == b.c && a.i == b.i;
    default:
        return creall(a.c) == creall(b.c) && cimagl(a.c) == cimagl(b.c);
    }
}

/* One arb_reduce of n elements, checked element by element; one guard element after each
 * buffer must come back untouched and in must not change. */
static void check_reduce(arbor_dtype_t t, arbor_op_t op, size_t n, int order)
{
    size_t sz = types[t].size;
    unsigned char *a = NULL, *b = NULL, *a0 = NULL, *b0 = NULL;
    if (n) {
        a = calloc(n + 1, sz), b = calloc(n + 1, sz);
        a0 = malloc((n + 1) * sz), b0 = malloc((n + 1) * sz);
        if (!a || !b || !a0 || !b0) abort();
        for (size_t k = 0; k < n; k++) {
            val_t x = gen(t, op), y = gen(t, op);
            elem_io(t, a, k, &x, true);
            elem_io(t, b, k, &y, true);
        }
        memset(a + n * sz, 0xa5, sz);
        memset(b + n * sz, 0x5a, sz);
        memcpy(a0, a, (n + 1) * sz);
        memcpy(b0, b, (n + 1) * sz);
    }
    arb_reduce(op, t, a, b, n, order);
    int bad = 0;
    for (size_t k = 0; k < n && bad < 3; k++) {
        val_t io, in, got;
        elem_io(t, a0, k, &io, false);
        elem_io(t, b0, k, &in, false);
        elem_io(t, a, k, &got, false);
        val_t want =
            order == ARB_COMBINE_AFTER ? reference(t, op, io, in) : reference(t, op, in, io);
        if (!same(t, got, want)) bad++;
        CHECK(same(t, got, want), "%s %s n=%zu order=%d element %zu wrong", arb_dtype_name(t),
              arb_op_name(op), n, order, k);
    }
    if (n) {
        CHECK(!memcmp(b, b0, (n + 1) * sz), "%s %s n=%zu: in changed", arb_dtype_name(t),
              arb_op_name(op), n);
        CHECK(!memcmp(a + n * sz, a0 + n * sz, sz), "%s %s n=%zu: wrote past the end",
              arb_dtype_name(t), arb_op_name(op), n);
    }
    free(a), free(b), free(a0), free(b0);
}

static void test_builtin(void)
{
    static const size_t ns[] = {0, 1, 7, 1000};
    int pairs = 0;
    for (int t = 0; t < ARBOR_DTYPE_COUNT; t++) {
        size_t size = 0;
        CHECK(arbor_dtype_size((arbor_dtype_t)t, &size) == ARBOR_OK && size == types[t].size,
              "arbor_dtype_size(%d) = %zu, want %zu", t, size, types[t].size);
        CHECK(arb_dtype_size((arbor_dtype_t)t) == types[t].size, "arb_dtype_size(%d)", t);
        CHECK(strcmp(arb_dtype_name((arbor_dtype_t)t), "?") != 0, "no name for type %d", t);
        for (int u = 0; u < t; u++)
            CHECK(strcmp(arb_dtype_name((arbor_dtype_t)t), arb_dtype_name((arbor_dtype_t)u)),
                  "types %d and %d share a name", t, u);
        for (arbor_op_t op = 0; op < ARBOR_OP_PREDEFINED; op++) {
            bool def = defined(types[t].kind, op);
            arbor_status_t st = arb_op_check(op, (arbor_dtype_t)t);
            CHECK(st == (def ? ARBOR_OK : ARBOR_ERR_OP), "arb_op_check(%s, %s) = %d",
                  arb_op_name(op), arb_dtype_name((arbor_dtype_t)t), st);
            if (!def || st != ARBOR_OK) continue;
            pairs++;
            for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
                check_reduce((arbor_dtype_t)t, op, ns[i], ARB_COMBINE_AFTER);
                check_reduce((arbor_dtype_t)t, op, ns[i], ARB_COMBINE_BEFORE);
            }
        }
    }
    /* 19 integer types x 9 ops + 3 reals x 6 + 3 complex x 4 + 6 pairs x 2 */
    CHECK(pairs == 19 * 9 + 3 * 6 + 3 * 4 + 6 * 2, "%d defined pairs", pairs);
}

static void test_names_and_bad_args(void)
{
    size_t size = 12345;
    CHECK(arbor_dtype_size(ARBOR_DTYPE_COUNT, &size) == ARBOR_ERR_DATATYPE && size == 12345,
          "arbor_dtype_size(COUNT)");
    CHECK(arbor_dtype_size((arbor_dtype_t)-1, &size) == ARBOR_ERR_DATATYPE, "dtype -1");
    CHECK(arbor_dtype_size(ARBOR_INT, NULL) == ARBOR_ERR_INVALID_ARG, "NULL size_p");
    CHECK(arb_dtype_size(ARBOR_DTYPE_COUNT) == 0, "arb_dtype_size(COUNT)");
    CHECK(!strcmp(arb_dtype_name(ARBOR_DTYPE_COUNT), "?"), "name of a bad type");
    CHECK(!strcmp(arb_dtype_name(ARBOR_INT32), "int32"), "int32 name");
    CHECK(!strcmp(arb_op_name(ARBOR_SUM), "sum") && !strcmp(arb_op_name(ARBOR_MAXLOC), "maxloc"),
          "op names");
    CHECK(!strcmp(arb_op_name(ARBOR_OP_USER_BASE + 3), "user"), "user op name");
    CHECK(!strcmp(arb_op_name(-1), "?") && !strcmp(arb_op_name(ARBOR_OP_PREDEFINED), "?"),
          "bad op name");
    static const arbor_op_t bad_ops[] = {-1,
                                         ARBOR_OP_PREDEFINED,
                                         ARBOR_OP_USER_BASE - 1,
                                         ARBOR_OP_USER_BASE,
                                         ARBOR_OP_USER_BASE + 77,
                                         INT_MAX,
                                         INT_MIN};
    for (size_t i = 0; i < sizeof(bad_ops) / sizeof(bad_ops[0]); i++) {
        CHECK(arb_op_check(bad_ops[i], ARBOR_INT) == ARBOR_ERR_OP, "op %d accepted", bad_ops[i]);
        CHECK(arbor_op_free(bad_ops[i]) == ARBOR_ERR_OP, "free of op %d", bad_ops[i]);
    }
    CHECK(arbor_op_free(ARBOR_SUM) == ARBOR_ERR_OP, "free of a built-in op");
    CHECK(arb_op_check(ARBOR_SUM, ARBOR_DTYPE_COUNT) == ARBOR_ERR_DATATYPE, "bad type");
    CHECK(arb_op_check(-1, (arbor_dtype_t)-1) == ARBOR_ERR_DATATYPE, "bad type before bad op");
    for (arbor_op_t op = 0; op < ARBOR_OP_PREDEFINED; op++)
        CHECK(arb_op_commutative(op), "built-in %s not commutative", arb_op_name(op));
}

/* User ops. affine: (m, c) on ARBOR_2INT stands for x -> m x + c and combines by composition,
 * a op b = a(b(x)) = (ma mb, ma cb + ca): associative and not commutative. */
static size_t calls, max_len;
static arbor_dtype_t seen_dtype;

static void affine(void *in, void *inout, size_t len, arbor_dtype_t dtype)
{
    struct int_int *a = in, *b = inout;
    calls++;
    max_len = len > max_len ? len : max_len;
    seen_dtype = dtype;
    for (size_t k = 0; k < len; k++) {
        int m = a[k].v * b[k].v, c = a[k].v * b[k].i + a[k].i;
        b[k].v = m, b[k].i = c;
    }
}

static void dsum(void *in, void *inout, size_t len, arbor_dtype_t dtype)
{
    (void)dtype;
    for (size_t k = 0; k < len; k++) ((double *)inout)[k] += ((double *)in)[k];
}

/* A non-commutative op over n elements in both orders: AFTER gives inout op in, BEFORE
 * in op inout; n spans several of dtype.c's staging chunks. */
static void check_affine(arbor_op_t op, size_t n, int order)
{
    struct int_int *io = calloc(n, sizeof(*io)), *in = calloc(n, sizeof(*in));
    struct int_int *io0 = malloc(n * sizeof(*io)), *in0 = malloc(n * sizeof(*in));
    if (!io || !in || !io0 || !in0) abort();
    for (size_t k = 0; k < n; k++) {
        io[k] = (struct int_int){(int)rnd_range(1, 3), (int)rnd_range(-9, 9)};
        in[k] = (struct int_int){(int)rnd_range(1, 3), (int)rnd_range(-9, 9)};
    }
    memcpy(io0, io, n * sizeof(*io));
    memcpy(in0, in, n * sizeof(*in));
    calls = max_len = 0;
    arb_reduce(op, ARBOR_2INT, io, in, n, order);
    int bad = 0;
    for (size_t k = 0; k < n && bad < 3; k++) {
        struct int_int l = order == ARB_COMBINE_AFTER ? io0[k] : in0[k];
        struct int_int r = order == ARB_COMBINE_AFTER ? in0[k] : io0[k];
        bool ok = io[k].v == l.v * r.v && io[k].i == l.v * r.i + l.i;
        bad += !ok;
        CHECK(ok, "affine n=%zu order=%d element %zu wrong", n, order, k);
    }
    CHECK(!memcmp(in, in0, n * sizeof(*in)), "affine: in changed");
    CHECK(seen_dtype == ARBOR_2INT, "user fn got dtype %d", seen_dtype);
    /* Staging is bounded: AFTER must have gone in several calls, each shorter than n. */
    if (order == ARB_COMBINE_AFTER) CHECK(calls > 1 && max_len < n, "%zu calls", calls);
    free(io), free(in), free(io0), free(in0);
}

static void test_user_ops(void)
{
    arbor_op_t nc = -7, cm = -7, op = -7;
    CHECK(arbor_op_create(NULL, 0, &op) == ARBOR_ERR_INVALID_ARG && op == -7, "NULL fn");
    CHECK(arbor_op_create(affine, 0, NULL) == ARBOR_ERR_INVALID_ARG, "NULL op_p");
    CHECK(arbor_op_create(affine, 2, &op) == ARBOR_ERR_INVALID_ARG && op == -7, "commute 2");
    CHECK(arbor_op_create(affine, -1, &op) == ARBOR_ERR_INVALID_ARG, "commute -1");

    CHECK(arbor_op_create(affine, 0, &nc) == ARBOR_OK && nc >= ARBOR_OP_USER_BASE, "create nc");
    CHECK(arbor_op_create(dsum, 1, &cm) == ARBOR_OK && cm >= ARBOR_OP_USER_BASE && cm != nc,
          "create cm");
    CHECK(!arb_op_commutative(nc) && arb_op_commutative(cm), "commute flags");
    CHECK(!strcmp(arb_op_name(nc), "user"), "user name");
    for (int t = 0; t < ARBOR_DTYPE_COUNT; t++)
        CHECK(arb_op_check(nc, (arbor_dtype_t)t) == ARBOR_OK, "user op on type %d", t);
    CHECK(arb_op_check(nc, ARBOR_DTYPE_COUNT) == ARBOR_ERR_DATATYPE, "user op, bad type");

    static const size_t ns[] = {1, 7, 1000, 20011, 70000};
    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
        if (ns[i] > 1000) {
            check_affine(nc, ns[i], ARB_COMBINE_AFTER);
        } else {
            /* Short runs go in one call; the big ones check chunking. */
            struct int_int a = {2, 1}, b = {3, 5};
            arb_reduce(nc, ARBOR_2INT, &a, &b, 1, ARB_COMBINE_AFTER);
            CHECK(a.v == 6 && a.i == 2 * 5 + 1, "affine after: (%d, %d)", a.v, a.i);
        }
        check_affine(nc, ns[i], ARB_COMBINE_BEFORE);
    }
    calls = 0;
    arb_reduce(nc, ARBOR_2INT, NULL, NULL, 0, ARB_COMBINE_AFTER);
    CHECK(calls == 0, "user fn called for 0 elements");

    double x[3] = {1, 2, 3}, y[3] = {10, 20, 30};
    arb_reduce(cm, ARBOR_DOUBLE, x, y, 3, ARB_COMBINE_AFTER);
    arb_reduce(cm, ARBOR_DOUBLE, x, y, 3, ARB_COMBINE_BEFORE);
    CHECK(x[0] == 21 && x[1] == 42 && x[2] == 63 && y[2] == 30, "commutative user op");

    /* Free, double free, and slot reuse: the next create takes the freed slot under a new
     * generation, so the freed value stays invalid. */
    CHECK(arbor_op_free(nc) == ARBOR_OK, "free nc");
    CHECK(arb_op_check(nc, ARBOR_2INT) == ARBOR_ERR_OP, "freed op accepted");
    CHECK(arbor_op_free(nc) == ARBOR_ERR_OP, "double free");
    CHECK(!arb_op_commutative(nc), "freed op commutative");
    CHECK(arbor_op_create(affine, 1, &op) == ARBOR_OK && op != nc, "slot reuse: %d", op);
    CHECK(arb_op_check(nc, ARBOR_2INT) == ARBOR_ERR_OP && arbor_op_free(nc) == ARBOR_ERR_OP,
          "stale op value names the op that reused its slot");
    CHECK(arb_op_check(op, ARBOR_2INT) == ARBOR_OK, "reused slot's op rejected");
    CHECK(arb_op_check(cm, ARBOR_DOUBLE) == ARBOR_OK, "cm lost");

    /* Many create / free cycles and many live ops. */
    arbor_op_t many[100];
    for (int i = 0; i < 100; i++) CHECK(arbor_op_create(dsum, i & 1, &many[i]) == ARBOR_OK, "many");
    for (int i = 0; i < 100; i++) {
        CHECK(arb_op_commutative(many[i]) == (i & 1), "many[%d] flag", i);
        CHECK(arbor_op_free(many[i]) == ARBOR_OK, "free many[%d]", i);
    }
    for (int i = 0; i < 1000; i++) {
        arbor_op_t o;
        CHECK(arbor_op_create(dsum, 0, &o) == ARBOR_OK && arbor_op_free(o) == ARBOR_OK, "cycle");
    }

    arb_op_cleanup();
    CHECK(arb_op_check(cm, ARBOR_DOUBLE) == ARBOR_ERR_OP, "op survived cleanup");
    CHECK(arbor_op_create(dsum, 1, &op) == ARBOR_OK && arb_op_check(op, ARBOR_INT) == ARBOR_OK,
          "create after cleanup");
    arb_op_cleanup();
}

int main(void)
{
    test_names_and_bad_args();
    test_builtin();
    test_user_ops();
    printf("unit_dtype: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
