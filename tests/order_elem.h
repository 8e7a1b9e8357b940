/*
 * The element helpers of the location-order tests (tests/test_rma_order.c on arbor's API,
 * tests/armci/test_armci_order.c through ARMCI): the six accumulate types in one order,
 * 32-bit int, 64-bit long, float, double, float complex, double complex. Values are small
 * integers, so every type represents the results exactly; a complex element holds v + (v+1)i,
 * or v + 0i for a real scale.
 */
#ifndef ARB_TESTS_ORDER_ELEM_H
#define ARB_TESTS_ORDER_ELEM_H

#include <complex.h>
#include <stdbool.h>
#include <stdint.h>

#define ORDER_NTYPES 6

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

#endif /* ARB_TESTS_ORDER_ELEM_H */
