/*
 * Launched test of the whole collective set: every collective x datatype x op (reductions) x
 * root at small counts (0, 1, 7), a few types at 64 KiB and > 1 MiB, non-commutative user ops
 * in rank order, in-place variants, sync flags (ALLSYNC, ASYNC_FENCE + fence, AGGREGATE), two
 * interleaved split teams with 64 collectives in flight, the UPC paper's figure 1 (EX1: a
 * cross-process lock around the start), and bad input. Every rank checks every element against
 * values it computes itself. Run under a PMIx launcher at any rank count.
 */
#include <complex.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "arbor.h"
#include "launched_check.h"

typedef enum { K_INT, K_UINT, K_REAL, K_CPLX, K_PAIR } kind_t;

typedef struct {
    arbor_dtype_t dt;
    const char *name;
    kind_t kind;
    size_t size, vsize; /* pair: size of the value part */
} type_t;

typedef struct {
    float v;
    int i;
} float_int;
typedef struct {
    double v;
    int i;
} double_int;
typedef struct {
    long v;
    int i;
} long_int;
typedef struct {
    int v;
    int i;
} int_int;
typedef struct {
    short v;
    int i;
} short_int;
typedef struct {
    long double v;
    int i;
} ldouble_int;

#define T(_dt, _k, _c)                                                                             \
    {                                                                                              \
        _dt, #_dt, _k, sizeof(_c), 0                                                               \
    }
#define TP(_dt, _c, _v)                                                                            \
    {                                                                                              \
        _dt, #_dt, K_PAIR, sizeof(_c), sizeof(_v)                                                  \
    }
static const type_t types[] = {
    T(ARBOR_BYTE, K_UINT, unsigned char),
    T(ARBOR_CHAR, K_INT, signed char),
    T(ARBOR_UCHAR, K_UINT, unsigned char),
    T(ARBOR_SHORT, K_INT, short),
    T(ARBOR_USHORT, K_UINT, unsigned short),
    T(ARBOR_INT, K_INT, int),
    T(ARBOR_UINT, K_UINT, unsigned),
    T(ARBOR_LONG, K_INT, long),
    T(ARBOR_ULONG, K_UINT, unsigned long),
    T(ARBOR_LONGLONG, K_INT, long long),
    T(ARBOR_ULONGLONG, K_UINT, unsigned long long),
    T(ARBOR_INT8, K_INT, int8_t),
    T(ARBOR_UINT8, K_UINT, uint8_t),
    T(ARBOR_INT16, K_INT, int16_t),
    T(ARBOR_UINT16, K_UINT, uint16_t),
    T(ARBOR_INT32, K_INT, int32_t),
    T(ARBOR_UINT32, K_UINT, uint32_t),
    T(ARBOR_INT64, K_INT, int64_t),
    T(ARBOR_UINT64, K_UINT, uint64_t),
    T(ARBOR_FLOAT, K_REAL, float),
    T(ARBOR_DOUBLE, K_REAL, double),
    T(ARBOR_LONGDOUBLE, K_REAL, long double),
    T(ARBOR_CPLX, K_CPLX, float complex),
    T(ARBOR_DBLCPLX, K_CPLX, double complex),
    T(ARBOR_LONGDBLCPLX, K_CPLX, long double complex),
    TP(ARBOR_FLOAT_INT, float_int, float),
    TP(ARBOR_DOUBLE_INT, double_int, double),
    TP(ARBOR_LONG_INT, long_int, long),
    TP(ARBOR_2INT, int_int, int),
    TP(ARBOR_SHORT_INT, short_int, short),
    TP(ARBOR_LONG_DOUBLE_INT, ldouble_int, long double),
};
#define NTYPES ((int)(sizeof(types) / sizeof(types[0])))

/* An element as numbers: re (value), im (imaginary part or pair index). */
typedef struct {
    long double re, im;
} num_t;

static void put(const type_t *t, void *buf, size_t i, num_t x)
{
    char *p = (char *)buf + i * t->size;
    switch (t->dt) {
    case ARBOR_BYTE:
    case ARBOR_UCHAR:
    case ARBOR_UINT8:
        *(uint8_t *)p = (uint8_t)x.re;
        break;
    case ARBOR_CHAR:
    case ARBOR_INT8:
        *(int8_t *)p = (int8_t)x.re;
        break;
    case ARBOR_SHORT:
    case ARBOR_INT16:
        *(int16_t *)p = (int16_t)x.re;
        break;
    case ARBOR_USHORT:
    case ARBOR_UINT16:
        *(uint16_t *)p = (uint16_t)x.re;
        break;
    case ARBOR_INT:
    case ARBOR_INT32:
        *(int32_t *)p = (int32_t)x.re;
        break;
    case ARBOR_UINT:
    case ARBOR_UINT32:
        *(uint32_t *)p = (uint32_t)x.re;
        break;
    case ARBOR_LONG:
    case ARBOR_LONGLONG:
    case ARBOR_INT64:
        *(int64_t *)p = (int64_t)x.re;
        break;
    case ARBOR_ULONG:
    case ARBOR_ULONGLONG:
    case ARBOR_UINT64:
        *(uint64_t *)p = (uint64_t)x.re;
        break;
    case ARBOR_FLOAT:
        *(float *)p = (float)x.re;
        break;
    case ARBOR_DOUBLE:
        *(double *)p = (double)x.re;
        break;
    case ARBOR_LONGDOUBLE:
        *(long double *)p = x.re;
        break;
    case ARBOR_CPLX:
        *(float complex *)p = (float)x.re + (float)x.im * I;
        break;
    case ARBOR_DBLCPLX:
        *(double complex *)p = (double)x.re + (double)x.im * I;
        break;
    case ARBOR_LONGDBLCPLX:
        *(long double complex *)p = x.re + x.im * I;
        break;
    case ARBOR_FLOAT_INT:
        *(float_int *)p = (float_int){(float)x.re, (int)x.im};
        break;
    case ARBOR_DOUBLE_INT:
        *(double_int *)p = (double_int){(double)x.re, (int)x.im};
        break;
    case ARBOR_LONG_INT:
        *(long_int *)p = (long_int){(long)x.re, (int)x.im};
        break;
    case ARBOR_2INT:
        *(int_int *)p = (int_int){(int)x.re, (int)x.im};
        break;
    case ARBOR_SHORT_INT:
        *(short_int *)p = (short_int){(short)x.re, (int)x.im};
        break;
    case ARBOR_LONG_DOUBLE_INT:
        *(ldouble_int *)p = (ldouble_int){x.re, (int)x.im};
        break;
    default:
        break;
    }
}

static num_t get(const type_t *t, const void *buf, size_t i)
{
    const char *p = (const char *)buf + i * t->size;
    switch (t->dt) {
    case ARBOR_BYTE:
    case ARBOR_UCHAR:
    case ARBOR_UINT8:
        return (num_t){*(const uint8_t *)p, 0};
    case ARBOR_CHAR:
    case ARBOR_INT8:
        return (num_t){*(const int8_t *)p, 0};
    case ARBOR_SHORT:
    case ARBOR_INT16:
        return (num_t){*(const int16_t *)p, 0};
    case ARBOR_USHORT:
    case ARBOR_UINT16:
        return (num_t){*(const uint16_t *)p, 0};
    case ARBOR_INT:
    case ARBOR_INT32:
        return (num_t){*(const int32_t *)p, 0};
    case ARBOR_UINT:
    case ARBOR_UINT32:
        return (num_t){*(const uint32_t *)p, 0};
    case ARBOR_LONG:
    case ARBOR_LONGLONG:
    case ARBOR_INT64:
        return (num_t){(long double)*(const int64_t *)p, 0};
    case ARBOR_ULONG:
    case ARBOR_ULONGLONG:
    case ARBOR_UINT64:
        return (num_t){(long double)*(const uint64_t *)p, 0};
    case ARBOR_FLOAT:
        return (num_t){*(const float *)p, 0};
    case ARBOR_DOUBLE:
        return (num_t){*(const double *)p, 0};
    case ARBOR_LONGDOUBLE:
        return (num_t){*(const long double *)p, 0};
    case ARBOR_CPLX:
        return (num_t){crealf(*(const float complex *)p), cimagf(*(const float complex *)p)};
    case ARBOR_DBLCPLX:
        return (num_t){creal(*(const double complex *)p), cimag(*(const double complex *)p)};
    case ARBOR_LONGDBLCPLX:
        return (num_t){creall(*(const long double complex *)p),
                       cimagl(*(const long double complex *)p)};
    case ARBOR_FLOAT_INT:
        return (num_t){((const float_int *)p)->v, ((const float_int *)p)->i};
    case ARBOR_DOUBLE_INT:
        return (num_t){((const double_int *)p)->v, ((const double_int *)p)->i};
    case ARBOR_LONG_INT:
        return (num_t){((const long_int *)p)->v, ((const long_int *)p)->i};
    case ARBOR_2INT:
        return (num_t){((const int_int *)p)->v, ((const int_int *)p)->i};
    case ARBOR_SHORT_INT:
        return (num_t){((const short_int *)p)->v, ((const short_int *)p)->i};
    case ARBOR_LONG_DOUBLE_INT:
        return (num_t){((const ldouble_int *)p)->v, ((const ldouble_int *)p)->i};
    default:
        return (num_t){0, 0};
    }
}

static bool defined(const type_t *t, arbor_op_t op)
{
    switch (op) {
    case ARBOR_SUM:
    case ARBOR_PROD:
        return t->kind != K_PAIR;
    case ARBOR_BAND:
    case ARBOR_BOR:
    case ARBOR_BXOR:
        return t->kind == K_INT || t->kind == K_UINT;
    case ARBOR_LAND:
    case ARBOR_LOR:
        return t->kind != K_PAIR;
    case ARBOR_MIN:
    case ARBOR_MAX:
        return t->kind == K_INT || t->kind == K_UINT || t->kind == K_REAL;
    case ARBOR_MINLOC:
    case ARBOR_MAXLOC:
        return t->kind == K_PAIR;
    default:
        return false;
    }
}

/* What rank r contributes at element i for op: small, so every type holds every result. */
static num_t contribution(const type_t *t, arbor_op_t op, int r, size_t i)
{
    if (op == ARBOR_PROD)
        return (num_t){1 + (r + (int)i) % 2, t->kind == K_CPLX ? (r + (int)i) % 2 : 0};
    if (op == ARBOR_LAND || op == ARBOR_LOR) return (num_t){(r + (int)i) % 3 ? 1 : 0, 0};
    if (t->kind == K_PAIR) return (num_t){(r * 3 + (int)i) % 5, r};
    return (num_t){1 + (r * 3 + (int)i) % 5, t->kind == K_CPLX ? (r + (int)i) % 3 : 0};
}

static num_t combine(kind_t k, arbor_op_t op, num_t a, num_t b)
{
    switch (op) {
    case ARBOR_SUM:
        return (num_t){a.re + b.re, a.im + b.im};
    case ARBOR_PROD:
        return k == K_CPLX ? (num_t){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}
                           : (num_t){a.re * b.re, 0};
    case ARBOR_BAND:
        return (num_t){(long double)((uint64_t)a.re & (uint64_t)b.re), 0};
    case ARBOR_BOR:
        return (num_t){(long double)((uint64_t)a.re | (uint64_t)b.re), 0};
    case ARBOR_BXOR:
        return (num_t){(long double)((uint64_t)a.re ^ (uint64_t)b.re), 0};
    case ARBOR_LAND:
        return (num_t){a.re != 0 && b.re != 0, 0};
    case ARBOR_LOR:
        return (num_t){a.re != 0 || b.re != 0, 0};
    case ARBOR_MIN:
        return a.re <= b.re ? a : b;
    case ARBOR_MAX:
        return a.re >= b.re ? a : b;
    case ARBOR_MINLOC:
        return a.re < b.re || (a.re == b.re && a.im <= b.im) ? a : b;
    case ARBOR_MAXLOC:
        return a.re > b.re || (a.re == b.re && a.im <= b.im) ? a : b;
    default:
        return a;
    }
}

static num_t expected(const type_t *t, arbor_op_t op, int lo, int hi, size_t i)
{
    num_t acc = contribution(t, op, lo, i);
    for (int r = lo + 1; r < hi; r++) acc = combine(t->kind, op, acc, contribution(t, op, r, i));
    return acc;
}

static bool same(const type_t *t, num_t a, num_t b)
{
    return a.re == b.re && (t->kind == K_CPLX || t->kind == K_PAIR ? a.im == b.im : 1);
}

static void *alloc(size_t n)
{
    return calloc(1, n ? n : 1);
}

/* --- reductions ------------------------------------------------------------------------- */

static void test_reductions_for(arbor_team_h team, int me, int P, const type_t *t, arbor_op_t op,
                                size_t n)
{
    size_t bytes = n * t->size;
    char *send = alloc(bytes * (size_t)P), *recv = alloc(bytes * (size_t)P);
    char what[160];
    for (size_t i = 0; i < n * (size_t)P; i++) put(t, send, i, contribution(t, op, me, i));

    for (int root = 0; root < P; root++) { /* reduce */
        memset(recv, 0x5A, bytes);
        arbor_status_t st = arbor_reduce(team, send, recv, n, t->dt, op, root);
        snprintf(what, sizeof(what), "reduce %s op %d n %zu root %d", t->name, op, n, root);
        CHECK(st == ARBOR_OK, "%s: %s", what, arbor_strerror(st));
        for (size_t i = 0; me == root && i < n; i++)
            CHECK(same(t, get(t, recv, i), expected(t, op, 0, P, i)), "%s: element %zu", what, i);
        for (size_t i = 0; me != root && i < bytes; i++)
            CHECK((unsigned char)recv[i] == 0x5A, "%s: non-root buffer written", what);
    }
    arbor_status_t st = arbor_allreduce(team, send, recv, n, t->dt, op);
    CHECK(st == ARBOR_OK, "allreduce %s: %s", t->name, arbor_strerror(st));
    for (size_t i = 0; i < n; i++)
        CHECK(same(t, get(t, recv, i), expected(t, op, 0, P, i)), "allreduce %s op %d n %zu el %zu",
              t->name, op, n, i);
    st = arbor_scan(team, send, recv, n, t->dt, op);
    CHECK(st == ARBOR_OK, "scan: %s", arbor_strerror(st));
    for (size_t i = 0; i < n; i++)
        CHECK(same(t, get(t, recv, i), expected(t, op, 0, me + 1, i)), "scan %s op %d el %zu",
              t->name, op, i);
    memset(recv, 0x5A, bytes);
    st = arbor_exscan(team, send, recv, n, t->dt, op);
    CHECK(st == ARBOR_OK, "exscan: %s", arbor_strerror(st));
    for (size_t i = 0; i < n; i++) {
        if (me == 0)
            CHECK((unsigned char)recv[i * t->size] == 0x5A, "exscan rank 0 written");
        else
            CHECK(same(t, get(t, recv, i), expected(t, op, 0, me, i)), "exscan %s el %zu", t->name,
                  i);
    }
    /* reduce_scatter: rank r keeps n + r % 2 elements */
    size_t *counts = malloc(sizeof(size_t) * (size_t)P), off = 0, total = 0;
    for (int r = 0; r < P; r++) counts[r] = n ? n + (size_t)(r % 2) : 0, total += counts[r];
    char *rsend = alloc(total * t->size);
    for (size_t i = 0; i < total; i++) put(t, rsend, i, contribution(t, op, me, i));
    for (int r = 0; r < me; r++) off += counts[r];
    st = arbor_reduce_scatter(team, rsend, recv, counts, t->dt, op);
    CHECK(st == ARBOR_OK, "reduce_scatter: %s", arbor_strerror(st));
    for (size_t i = 0; i < counts[me]; i++)
        CHECK(same(t, get(t, recv, i), expected(t, op, 0, P, off + i)), "reduce_scatter %s el %zu",
              t->name, i);
    free(rsend);
    /* even pieces (reduce_scatter_block): one cached schedule per piece size, met again by every
     * type and op of the same element size */
    for (int r = 0; r < P; r++) counts[r] = n;
    rsend = alloc(n * (size_t)P * t->size);
    for (size_t i = 0; i < n * (size_t)P; i++) put(t, rsend, i, contribution(t, op, me, i));
    for (int rep = 0; rep < 2; rep++) {
        memset(recv, 0x5A, bytes);
        st = arbor_reduce_scatter(team, rsend, recv, counts, t->dt, op);
        CHECK(st == ARBOR_OK, "reduce_scatter even: %s", arbor_strerror(st));
        for (size_t i = 0; i < n; i++)
            CHECK(same(t, get(t, recv, i), expected(t, op, 0, P, (size_t)me * n + i)),
                  "reduce_scatter even %s op %d rep %d el %zu", t->name, op, rep, i);
    }
    free(rsend);
    free(counts);
    free(send);
    free(recv);
}

static void test_reductions(void)
{
    static const size_t small[] = {0, 1, 7};
    for (int k = 0; k < NTYPES; k++)
        for (arbor_op_t op = 0; op < ARBOR_OP_PREDEFINED; op++) {
            if (!defined(&types[k], op)) {
                char b[64] = {0};
                CHECK(arbor_allreduce(ARBOR_TEAM_WORLD, b, b + 32, 1, types[k].dt, op) ==
                          ARBOR_ERR_OP,
                      "%s accepted op %d", types[k].name, op);
                continue;
            }
            for (size_t s = 0; s < 3; s++)
                test_reductions_for(ARBOR_TEAM_WORLD, rank, size, &types[k], op, small[s]);
        }
    /* large vectors on a few types: 64 KiB and a bit over 1 MiB */
    static const int big_types[] = {ARBOR_INT32, ARBOR_DOUBLE};
    for (int b = 0; b < 2; b++) {
        const type_t *t = NULL;
        for (int k = 0; k < NTYPES; k++)
            if (types[k].dt == (arbor_dtype_t)big_types[b]) t = &types[k];
        test_reductions_for(ARBOR_TEAM_WORLD, rank, size, t, ARBOR_SUM, 65536 / t->size);
        test_reductions_for(ARBOR_TEAM_WORLD, rank, size, t, ARBOR_MAX,
                            ((1u << 20) + 24) / t->size);
    }
}

/* Non-commutative user op on ARBOR_2INT elements read as affine maps t -> a*t + b (mod 2^32):
 * x op y = "x, then y". Element-wise, associative, not commutative. */
typedef struct {
    uint32_t a, b;
} affine_t;

static affine_t compose(affine_t x, affine_t y)
{
    return (affine_t){x.a * y.a, x.b * y.a + y.b};
}

static void affine_op(void *in, void *inout, size_t len, arbor_dtype_t dt)
{
    (void)dt;
    affine_t *x = in, *y = inout; /* inout = in op inout */
    for (size_t k = 0; k < len; k++) y[k] = compose(x[k], y[k]);
}

static affine_t affine_of(int r, size_t m)
{
    return (affine_t){3 + 2 * (uint32_t)r, 5 + (uint32_t)(r * 7) + (uint32_t)m};
}

static void test_user_ops(void)
{
    arbor_op_t op;
    CHECK(arbor_op_create(affine_op, 0, &op) == ARBOR_OK, "op_create");
    const size_t n = 20000; /* elements: several landing chunks */
    affine_t *send = malloc(n * sizeof(affine_t)), *recv = malloc(n * sizeof(affine_t));
    for (size_t m = 0; m < n; m++) send[m] = affine_of(rank, m);
    for (int kind = 0; kind < 4; kind++) {
        memset(recv, 0, n * sizeof(affine_t));
        arbor_status_t st =
            kind == 0   ? arbor_allreduce(ARBOR_TEAM_WORLD, send, recv, n, ARBOR_2INT, op)
            : kind == 1 ? arbor_scan(ARBOR_TEAM_WORLD, send, recv, n, ARBOR_2INT, op)
            : kind == 2 ? arbor_exscan(ARBOR_TEAM_WORLD, send, recv, n, ARBOR_2INT, op)
                        : arbor_reduce(ARBOR_TEAM_WORLD, send, recv, n, ARBOR_2INT, op, size - 1);
        CHECK(st == ARBOR_OK, "user op collective %d: %s", kind, arbor_strerror(st));
        int hi = kind == 1 ? rank + 1 : kind == 2 ? rank : size;
        if ((kind == 3 && rank != size - 1) || hi == 0) continue;
        for (size_t m = 0; m < n; m++) {
            affine_t acc = affine_of(0, m);
            for (int r = 1; r < hi; r++) acc = compose(acc, affine_of(r, m));
            CHECK(acc.a == recv[m].a && acc.b == recv[m].b,
                  "non-commutative op (collective %d) out of rank order at %zu", kind, m);
            if (acc.a != recv[m].a || acc.b != recv[m].b) break;
        }
    }
    arbor_op_t comm;
    CHECK(arbor_op_create(affine_op, 1, &comm) == ARBOR_OK, "op_create commutative");
    CHECK(arbor_op_free(comm) == ARBOR_OK, "op_free commutative");
    CHECK(arbor_op_free(op) == ARBOR_OK, "op_free");
    CHECK(arbor_allreduce(ARBOR_TEAM_WORLD, send, recv, 4, ARBOR_2INT, op) == ARBOR_ERR_OP,
          "freed op accepted");
    free(send);
    free(recv);
}

/* --- data movement ------------------------------------------------------------------------ */

static unsigned char pat(int src, int dst, size_t i)
{
    return (unsigned char)(src * 31 + dst * 7 + i * 13 + 1);
}

static void test_movement_for(arbor_team_h team, int me, int P, size_t n, arbor_dtype_t dt,
                              size_t es)
{
    size_t b = n * es, Pb = b * (size_t)P;
    unsigned char *send = alloc(Pb), *recv = alloc(Pb);
    size_t *counts = malloc(sizeof(size_t) * (size_t)P),
           *displs = malloc(sizeof(size_t) * (size_t)P);
    for (int r = 0; r < P; r++) counts[r] = n, displs[r] = (size_t)(P - 1 - r) * n; /* reversed */
    for (int root = 0; root < P; root++) {
        for (size_t i = 0; i < Pb; i++) send[i] = pat(me, (int)(i / (b ? b : 1)), i % (b ? b : 1));
        memset(recv, 0, Pb);
        CHECK(arbor_scatter(team, send, recv, n, dt, root) == ARBOR_OK, "scatter");
        for (size_t i = 0; i < b; i++)
            CHECK(recv[i] == pat(root, me, i), "scatter root %d n %zu byte %zu", root, n, i);
        memset(recv, 0, Pb);
        CHECK(arbor_scatterv(team, send, counts, displs, recv, n, dt, root) == ARBOR_OK,
              "scatterv");
        for (size_t i = 0; i < b; i++)
            CHECK(recv[i] == pat(root, P - 1 - me, i), "scatterv byte %zu", i);
        for (size_t i = 0; i < b; i++) send[i] = pat(me, 0, i);
        memset(recv, 0, Pb);
        CHECK(arbor_gather(team, send, recv, n, dt, root) == ARBOR_OK, "gather");
        for (size_t i = 0; me == root && i < Pb; i++)
            CHECK(recv[i] == pat((int)(i / b), 0, i % b), "gather byte %zu", i);
        memset(recv, 0, Pb);
        CHECK(arbor_gatherv(team, send, n, recv, counts, displs, dt, root) == ARBOR_OK, "gatherv");
        for (size_t i = 0; me == root && i < Pb; i++)
            CHECK(recv[i] == pat(P - 1 - (int)(i / b), 0, i % b), "gatherv byte %zu", i);
    }
    memset(recv, 0, Pb);
    CHECK(arbor_allgather(team, send, recv, n, dt) == ARBOR_OK, "allgather");
    for (size_t i = 0; i < Pb; i++)
        CHECK(recv[i] == pat((int)(i / b), 0, i % b), "allgather byte %zu", i);
    memset(recv, 0, Pb);
    CHECK(arbor_allgatherv(team, send, n, recv, counts, displs, dt) == ARBOR_OK, "allgatherv");
    for (size_t i = 0; i < Pb; i++)
        CHECK(recv[i] == pat(P - 1 - (int)(i / b), 0, i % b), "allgatherv byte %zu", i);
    /* in place: own block already in place */
    memset(recv, 0, Pb);
    memcpy(recv + (size_t)me * b, send, b);
    CHECK(arbor_allgather(team, ARBOR_IN_PLACE, recv, n, dt) == ARBOR_OK, "allgather in place");
    for (size_t i = 0; i < Pb; i++)
        CHECK(recv[i] == pat((int)(i / b), 0, i % b), "allgather in place byte %zu", i);
    for (size_t i = 0; i < Pb; i++) send[i] = pat(me, (int)(i / b), i % b);
    memset(recv, 0, Pb);
    CHECK(arbor_alltoall(team, send, recv, n, dt) == ARBOR_OK, "alltoall");
    for (size_t i = 0; i < Pb; i++)
        CHECK(recv[i] == pat((int)(i / b), me, i % b), "alltoall byte %zu", i);
    memcpy(recv, send, Pb);
    CHECK(arbor_alltoall(team, ARBOR_IN_PLACE, recv, n, dt) == ARBOR_OK, "alltoall in place");
    for (size_t i = 0; i < Pb; i++)
        CHECK(recv[i] == pat((int)(i / b), me, i % b), "alltoall in place byte %zu", i);
    /* alltoallv: rank s sends (s + d) % 3 elements to rank d */
    size_t *sc = calloc((size_t)P, sizeof(size_t)), *sd = calloc((size_t)P, sizeof(size_t));
    size_t *rc = calloc((size_t)P, sizeof(size_t)), *rd = calloc((size_t)P, sizeof(size_t)), so = 0,
           ro = 0;
    for (int r = 0; r < P; r++) {
        sc[r] = n ? (size_t)((me + r) % 3) : 0, sd[r] = so, so += sc[r];
        rc[r] = n ? (size_t)((r + me) % 3) : 0, rd[r] = ro, ro += rc[r];
    }
    unsigned char *vs = alloc(so * es), *vr = alloc(ro * es);
    for (int r = 0; r < P; r++)
        for (size_t i = 0; i < sc[r] * es; i++) vs[sd[r] * es + i] = pat(me, r, i);
    CHECK(arbor_alltoallv(team, vs, sc, sd, vr, rc, rd, dt) == ARBOR_OK, "alltoallv");
    for (int r = 0; r < P; r++)
        for (size_t i = 0; i < rc[r] * es; i++)
            CHECK(vr[rd[r] * es + i] == pat(r, me, i), "alltoallv from %d byte %zu", r, i);
    free(vs), free(vr), free(sc), free(sd), free(rc), free(rd);
    free(counts), free(displs), free(send), free(recv);
}

static void test_movement(void)
{
    static const size_t counts[] = {0, 1, 7};
    for (int k = 0; k < NTYPES; k += 5) /* several widths, the pair and complex layouts */
        for (int c = 0; c < 3; c++)
            test_movement_for(ARBOR_TEAM_WORLD, rank, size, counts[c], types[k].dt, types[k].size);
    test_movement_for(ARBOR_TEAM_WORLD, rank, size, 65536 / 4, ARBOR_INT32, 4);
    test_movement_for(ARBOR_TEAM_WORLD, rank, size, ((1u << 20) + 8) / 8, ARBOR_DOUBLE, 8);
}

/* --- flags, teams, figure 1 --------------------------------------------------------------- */

static void test_flags(void)
{
    int64_t v = rank + 1, sum[4] = {0};
    arbor_op_params_t p = {.field_mask = ARBOR_OP_PARAM_FLAGS};
    arbor_request_h h = NULL;
    p.flags = ARBOR_IN_ALLSYNC | ARBOR_OUT_ALLSYNC;
    CHECK(arbor_allreduce_nb(ARBOR_TEAM_WORLD, &v, &sum[0], 1, ARBOR_INT64, ARBOR_SUM, &p, &h) ==
              ARBOR_OK,
          "allsync");
    CHECK(arbor_wait(&h) == ARBOR_OK, "allsync wait");
    p.flags = ARBOR_ASYNC_FENCE;
    CHECK(arbor_allreduce_nb(ARBOR_TEAM_WORLD, &v, &sum[1], 1, ARBOR_INT64, ARBOR_SUM, &p, NULL) ==
              ARBOR_OK,
          "fence start");
    CHECK(arbor_coll_fence(ARBOR_TEAM_WORLD) == ARBOR_OK, "fence");
    p.flags = ARBOR_AGGREGATE;
    CHECK(arbor_allreduce_nb(ARBOR_TEAM_WORLD, &v, &sum[2], 1, ARBOR_INT64, ARBOR_SUM, &p, NULL) ==
              ARBOR_OK,
          "aggregate");
    CHECK(arbor_allreduce_nb(ARBOR_TEAM_WORLD, &v, &sum[3], 1, ARBOR_INT64, ARBOR_SUM, NULL, &h) ==
              ARBOR_OK,
          "aggregate last");
    CHECK(arbor_wait(&h) == ARBOR_OK, "aggregate wait");
    for (int i = 0; i < 4; i++)
        CHECK(sum[i] == (int64_t)size * (size + 1) / 2, "flag case %d sum %lld", i,
              (long long)sum[i]);
    p.flags = ARBOR_IN_ALLSYNC | ARBOR_IN_NOSYNC;
    CHECK(arbor_barrier_nb(ARBOR_TEAM_WORLD, &p, &h) == ARBOR_ERR_FLAGS,
          "contradictory flags accepted");
    p.flags = ARBOR_ASYNC_FENCE | ARBOR_AGGREGATE;
    CHECK(arbor_barrier_nb(ARBOR_TEAM_WORLD, &p, &h) == ARBOR_ERR_FLAGS,
          "fence+aggregate accepted");
}

/* Two teams (even/odd ranks, and everyone in reverse order) with 64 collectives in flight,
 * interleaved, completed in a scrambled order. */
static void test_teams(void)
{
    arbor_team_h halves, reversed, none;
    CHECK(arbor_team_split(ARBOR_TEAM_WORLD, rank % 2, rank, &halves) == ARBOR_OK, "split halves");
    CHECK(arbor_team_split(ARBOR_TEAM_WORLD, 7, -rank, &reversed) == ARBOR_OK, "split reversed");
    CHECK(arbor_team_split(ARBOR_TEAM_WORLD, -1, 0, &none) == ARBOR_OK && none == NULL,
          "negative color");
    int hr, hs, rr, rs;
    arbor_team_rank(halves, &hr), arbor_team_size(halves, &hs);
    arbor_team_rank(reversed, &rr), arbor_team_size(reversed, &rs);
    CHECK(hs == (size + 1 - rank % 2) / 2 && hr == rank / 2, "halves rank %d size %d", hr, hs);
    CHECK(rs == size && rr == size - 1 - rank, "reversed rank %d", rr);

    enum { N = 64 };
    arbor_request_h req[N];
    int64_t in[N], out[N][2];
    for (int i = 0; i < N; i++) {
        arbor_team_h t = i % 2 ? halves : reversed;
        in[i] = (i % 2 ? hr : rr) + i;
        out[i][0] = out[i][1] = -1;
        if (i % 3 == 0)
            CHECK(arbor_allreduce_nb(t, &in[i], out[i], 1, ARBOR_INT64, ARBOR_SUM, NULL, &req[i]) ==
                      ARBOR_OK,
                  "nb %d", i);
        else
            CHECK(arbor_exscan_nb(t, &in[i], out[i], 1, ARBOR_INT64, ARBOR_SUM, NULL, &req[i]) ==
                      ARBOR_OK,
                  "nb %d", i);
    }
    size_t done, idx[N], got = 0;
    while (got < N / 2) {
        CHECK(arbor_wait_some(N / 2, req, &done, idx) == ARBOR_OK, "wait_some");
        got += done;
    }
    CHECK(arbor_wait_all(N, req) == ARBOR_OK, "wait_all");
    for (int i = 0; i < N; i++) {
        int tr = i % 2 ? hr : rr, ts = i % 2 ? hs : rs;
        int64_t all = (int64_t)ts * (ts - 1) / 2 + (int64_t)ts * i,
                pre = (int64_t)tr * (tr - 1) / 2 + (int64_t)tr * i;
        if (i % 3 == 0)
            CHECK(out[i][0] == all, "team collective %d: %lld != %lld", i, (long long)out[i][0],
                  (long long)all);
        else if (tr > 0)
            CHECK(out[i][0] == pre, "team exscan %d: %lld != %lld", i, (long long)out[i][0],
                  (long long)pre);
    }
    test_movement_for(halves, hr, hs, 3, ARBOR_INT16, 2);
    test_reductions_for(reversed, rr, rs, &types[17], ARBOR_SUM, 5); /* INT64 */
    CHECK(arbor_team_free(&halves) == ARBOR_OK && halves == NULL, "free halves");
    arbor_team_h stale = reversed;
    CHECK(arbor_team_free(&reversed) == ARBOR_OK, "free reversed");
    CHECK(arbor_barrier(stale) == ARBOR_ERR_TEAM, "stale team accepted");
    CHECK(arbor_team_free(&none) == ARBOR_ERR_TEAM, "NULL team freed");
}

/* Figure 1, EX1: the start runs inside a lock held across processes (a file lock): only
 * non-blocking starts can get through it. */
static void test_figure1(void)
{
    char path[128] = "";
    if (rank == 0) snprintf(path, sizeof(path), "/tmp/arbor-fig1-%d", (int)getpid());
    arbor_bcast(ARBOR_TEAM_WORLD, path, sizeof(path), 0);
    int fd = open(path, O_CREAT | O_RDWR, 0600);
    CHECK(fd >= 0, "lock file");
    int64_t v = 1, s = 0;
    arbor_request_h h;
    arbor_op_params_t p = {.field_mask = ARBOR_OP_PARAM_FLAGS,
                           .flags = ARBOR_IN_ALLSYNC | ARBOR_OUT_ALLSYNC};
    flock(fd, LOCK_EX);
    CHECK(arbor_allreduce_nb(ARBOR_TEAM_WORLD, &v, &s, 1, ARBOR_INT64, ARBOR_SUM, &p, &h) ==
              ARBOR_OK,
          "EX1 start");
    flock(fd, LOCK_UN);
    CHECK(arbor_wait(&h) == ARBOR_OK && s == size, "EX1 result %lld", (long long)s);
    close(fd);
    arbor_barrier(ARBOR_TEAM_WORLD);
    if (rank == 0) unlink(path);
}

static void test_bad_input(void)
{
    char b[64] = {0};
    size_t counts[64] = {0};
    CHECK(arbor_reduce(ARBOR_TEAM_WORLD, b, b, 1, ARBOR_INT32, ARBOR_SUM, size) == ARBOR_ERR_ROOT,
          "root");
    CHECK(arbor_allreduce(ARBOR_TEAM_WORLD, NULL, b, 1, ARBOR_INT32, ARBOR_SUM) == ARBOR_ERR_BUFFER,
          "NULL send");
    CHECK(arbor_allreduce(ARBOR_TEAM_WORLD, b, b, 1, (arbor_dtype_t)999, ARBOR_SUM) ==
              ARBOR_ERR_DATATYPE,
          "dtype");
    CHECK(arbor_allreduce(ARBOR_TEAM_WORLD, b, b, 1, ARBOR_FLOAT, ARBOR_BXOR) == ARBOR_ERR_OP,
          "bxor on float");
    CHECK(arbor_allreduce(ARBOR_TEAM_WORLD, b, b, 1, ARBOR_INT32, 77) == ARBOR_ERR_OP,
          "unknown op");
    CHECK(arbor_allgather(ARBOR_TEAM_WORLD, b, b, (size_t)1 << 62, ARBOR_INT32) == ARBOR_ERR_COUNT,
          "huge count");
    CHECK(arbor_reduce_scatter(ARBOR_TEAM_WORLD, b, b, NULL, ARBOR_INT32, ARBOR_SUM) ==
              ARBOR_ERR_COUNT,
          "NULL counts");
    CHECK(arbor_scatter(ARBOR_TEAM_WORLD, ARBOR_IN_PLACE, b, 1, ARBOR_INT32, 0) == ARBOR_ERR_BUFFER,
          "in-place send of scatter");
    CHECK(arbor_allgatherv(ARBOR_TEAM_WORLD, b, 1, b, counts, NULL, ARBOR_INT32) == ARBOR_ERR_COUNT,
          "NULL displs");
    CHECK(arbor_op_create(NULL, 1, NULL) == ARBOR_ERR_INVALID_ARG, "op_create NULL");
    int64_t x = rank, y = 0; /* everything still works */
    CHECK(arbor_allreduce(ARBOR_TEAM_WORLD, &x, &y, 1, ARBOR_INT64, ARBOR_MAX) == ARBOR_OK &&
              y == size - 1,
          "after bad calls");
}

int main(void)
{
    arbor_status_t st = arbor_init();
    if (st != ARBOR_OK) {
        fprintf(stderr, "arbor_init: %s\n", arbor_strerror(st));
        return st == ARBOR_ERR_UNSUPPORTED ? 77 : 1;
    }
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    test_bad_input();
    test_movement();
    test_reductions();
    test_user_ops();
    test_flags();
    test_teams();
    test_figure1();
    CHECK(arbor_finalize() == ARBOR_OK, "finalize");
    if (rank == 0 || failures)
        printf("rank %d of %d: %d checks, %d failures: %s\n", rank, size, checks, failures,
               failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
