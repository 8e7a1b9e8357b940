/* Conversions between ARMCI's argument shapes and arbor's, and the deadline of waits. */
#include "armci_arbor.h"

#include <stdlib.h>
#include <time.h>

int armcia_acc_type(int datatype, arbor_dtype_t *dtype_p, size_t *size_p)
{
    switch (datatype) {
    case ARMCI_ACC_INT:
        *dtype_p = ARBOR_INT;
        *size_p = sizeof(int);
        return 0;
    case ARMCI_ACC_LNG:
        *dtype_p = ARBOR_LONG;
        *size_p = sizeof(long);
        return 0;
    case ARMCI_ACC_FLT:
        *dtype_p = ARBOR_FLOAT;
        *size_p = sizeof(float);
        return 0;
    case ARMCI_ACC_DBL:
        *dtype_p = ARBOR_DOUBLE;
        *size_p = sizeof(double);
        return 0;
    case ARMCI_ACC_CPL:
        *dtype_p = ARBOR_CPLX;
        *size_p = 2 * sizeof(float);
        return 0;
    case ARMCI_ACC_DCP:
        *dtype_p = ARBOR_DBLCPLX;
        *size_p = 2 * sizeof(double);
        return 0;
    default:
        return ARBOR_ERR_DATATYPE;
    }
}

int armcia_strides(int stride_levels, const int *src_stride, const int *dst_stride,
                   const int *count, ptrdiff_t *src_out, ptrdiff_t *dst_out, size_t *count_out)
{
    if (stride_levels < 0 || stride_levels > ARMCIA_MAX_STRIDE_LEVELS || !count)
        return ARBOR_ERR_COUNT;
    if (stride_levels > 0 && (!src_stride || !dst_stride)) return ARBOR_ERR_COUNT;
    for (int i = 0; i <= stride_levels; i++) {
        if (count[i] < 0) return ARBOR_ERR_COUNT;
        count_out[i] = (size_t)count[i];
    }
    for (int i = 0; i < stride_levels; i++) {
        src_out[i] = src_stride[i];
        dst_out[i] = dst_stride[i];
    }
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

armcia_deadline_t armcia_deadline_start(void)
{
    const char *s = getenv("ARBOR_TIMEOUT"); /* the same patience as every arbor wait */
    double t = s ? atof(s) : 300;
    return (armcia_deadline_t){t > 0 ? now_s() + t : 0};
}

int armcia_deadline_passed(const armcia_deadline_t *deadline)
{
    return deadline->end_s > 0 && now_s() > deadline->end_s;
}
