/*
 * One round of the location-order tests (tests/test_rma_order.c on arbor's API,
 * tests/armci/test_armci_order.c through ARMCI), what both draw and check alike: a patch of a
 * ORDER_ROWS x ORDER_COLS array, three scaled accumulates on patches inside it in a random
 * order, and the values a get of the patch must then see. The six accumulate types in one order,
 * 32-bit int, 64-bit long, float, double, float complex, double complex. Values are small
 * integers, so every type represents the results exactly; a complex element holds v + (v+1)i,
 * or v + 0i for a real scale.
 */
#ifndef ARB_TESTS_ORDER_ROUND_H
#define ARB_TESTS_ORDER_ROUND_H

#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define ORDER_NTYPES 6
#define ORDER_ROWS   12
#define ORDER_COLS   24 /* elements per row */

static const size_t order_elem_size[ORDER_NTYPES] = {4, 8, 4, 8, 8, 16};

static void order_set_elem(int t, void *p, long v, bool imag)
{
    switch (t) {
    case 0:
        *(int32_t *)p = (int32_t)v;
        break;
    case 1:
        *(int64_t *)p = v;
        break;
    case 2:
        *(float *)p = (float)v;
        break;
    case 3:
        *(double *)p = (double)v;
        break;
    case 4:
        *(float complex *)p = (float)v + (imag ? (float)(v + 1) : 0.0f) * I;
        break;
    default:
        *(double complex *)p = (double)v + (imag ? (double)(v + 1) : 0.0) * I;
        break;
    }
}

/* The element as a pair of integers (real part, imaginary part). */
static void order_get_elem(int t, const void *p, long out[2])
{
    out[1] = 0;
    switch (t) {
    case 0:
        out[0] = *(const int32_t *)p;
        break;
    case 1:
        out[0] = (long)*(const int64_t *)p;
        break;
    case 2:
        out[0] = (long)*(const float *)p;
        break;
    case 3:
        out[0] = (long)*(const double *)p;
        break;
    case 4:
        out[0] = (long)crealf(*(const float complex *)p);
        out[1] = (long)cimagf(*(const float complex *)p);
        break;
    default:
        out[0] = (long)creal(*(const double complex *)p);
        out[1] = (long)cimag(*(const double complex *)p);
        break;
    }
}

typedef struct {
    int r0, c0, nr, nc; /* first row and column, rows, columns */
} order_patch_t;

/* A random patch inside @p in; with @p whole_rows, one in four spans whole rows where @p in
 * does (a single contiguous block). */
static order_patch_t order_patch_inside(const order_patch_t *in, bool whole_rows)
{
    order_patch_t p;
    p.nr = 1 + rand() % in->nr;
    p.nc = 1 + rand() % in->nc;
    p.r0 = in->r0 + rand() % (in->nr - p.nr + 1);
    p.c0 = in->c0 + rand() % (in->nc - p.nc + 1);
    if (whole_rows && rand() % 4 == 0 && in->c0 == 0 && in->nc == ORDER_COLS) {
        p.c0 = 0;
        p.nc = ORDER_COLS;
    }
    return p;
}

static bool order_in_patch(const order_patch_t *p, int r, int c)
{
    return r >= p->r0 && r < p->r0 + p->nr && c >= p->c0 && c < p->c0 + p->nc;
}

typedef struct {
    order_patch_t put, acc[3]; /* the put's patch, each accumulate's inside it */
    long scale[3];             /* accumulate k's scale */
    int order[3];              /* the accumulates in issue order */
    long expect[ORDER_ROWS][ORDER_COLS][2];
} order_round_t;

/* Draws a round of type @p t and fills the put's source and the accumulates' sources (whole
 * arrays of the type) and what a get must see after the put and all three accumulates. */
static void order_plan(order_round_t *rd, int t, bool whole_rows, uint8_t *put, uint8_t *acc[3])
{
    const order_patch_t whole = {0, 0, ORDER_ROWS, ORDER_COLS};
    const size_t e = order_elem_size[t];
    rd->put = order_patch_inside(&whole, whole_rows);
    const long base = rand() % 50;
    for (int k = 0; k < 3; k++) rd->order[k] = k;
    for (int k = 0; k < 3; k++) {
        rd->acc[k] = order_patch_inside(&rd->put, whole_rows);
        rd->scale[k] = 1 + rand() % 3;
        int j = rand() % (k + 1), x = rd->order[k];
        rd->order[k] = rd->order[j];
        rd->order[j] = x;
    }
    for (int r = 0; r < ORDER_ROWS; r++)
        for (int c = 0; c < ORDER_COLS; c++) {
            const size_t i = (size_t)(r * ORDER_COLS + c) * e;
            order_set_elem(t, put + i, base + r + c, true);
            order_get_elem(t, put + i, rd->expect[r][c]);
            for (int k = 0; k < 3; k++) {
                long a[2];
                order_set_elem(t, acc[k] + i, (r * 7 + c + k) % 5, true);
                order_get_elem(t, acc[k] + i, a);
                if (!order_in_patch(&rd->acc[k], r, c)) continue;
                rd->expect[r][c][0] += rd->scale[k] * a[0];
                rd->expect[r][c][1] += rd->scale[k] * a[1];
            }
        }
}

/* How many elements of the put's patch in @p got (a whole array of type @p t) differ from what
 * the round expects; the first one's position and value in first[0..3] (row, column, real,
 * imaginary). */
static int order_count_wrong(const order_round_t *rd, int t, const uint8_t *got, long first[4])
{
    int bad = 0;
    for (int r = rd->put.r0; r < rd->put.r0 + rd->put.nr; r++)
        for (int c = rd->put.c0; c < rd->put.c0 + rd->put.nc; c++) {
            long g[2];
            order_get_elem(t, got + (size_t)(r * ORDER_COLS + c) * order_elem_size[t], g);
            if (g[0] == rd->expect[r][c][0] && g[1] == rd->expect[r][c][1]) continue;
            if (bad++ == 0) first[0] = r, first[1] = c, first[2] = g[0], first[3] = g[1];
        }
    return bad;
}

#endif /* ARB_TESTS_ORDER_ROUND_H */
