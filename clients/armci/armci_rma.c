/* Put / Get / Acc in the contiguous and strided shapes, blocking and non-blocking. A NULL
 * handle makes a non-blocking call implicit (completed by Fence / AllFence / WaitProc /
 * WaitAll), as in ARMCI. */
#include "armci_arbor.h"

#include <stdio.h>

static int put(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl, int nb)
{
    if (bytes < 0) return armcia_status("ARMCI_Put", ARBOR_ERR_COUNT);
    if (!nb) return armcia_status("ARMCI_Put", arbor_put(proc, dst, src, (size_t)bytes));
    arbor_request_h *req = armcia_hdl_slot(hdl, proc);
    return armcia_hdl_started(hdl, arbor_put_nb(proc, dst, src, (size_t)bytes, req));
}

static int get(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl, int nb)
{
    if (bytes < 0) return armcia_status("ARMCI_Get", ARBOR_ERR_COUNT);
    if (!nb) return armcia_status("ARMCI_Get", arbor_get(proc, dst, src, (size_t)bytes));
    arbor_request_h *req = armcia_hdl_slot(hdl, proc);
    return armcia_hdl_started(hdl, arbor_get_nb(proc, dst, src, (size_t)bytes, req));
}

static int acc(int datatype, void *scale, void *src, void *dst, int bytes, int proc,
               armci_hdl_t *hdl, int nb)
{
    arbor_dtype_t dtype;
    size_t size;
    if (armcia_acc_type(datatype, &dtype, &size))
        return armcia_status("ARMCI_Acc", ARBOR_ERR_DATATYPE);
    if (bytes < 0 || (size_t)bytes % size) return armcia_status("ARMCI_Acc", ARBOR_ERR_COUNT);
    size_t n = (size_t)bytes / size;
    if (!nb)
        return armcia_status("ARMCI_Acc", arbor_acc(proc, dst, src, n, dtype, ARBOR_SUM, scale));
    arbor_request_h *req = armcia_hdl_slot(hdl, proc);
    return armcia_hdl_started(hdl, arbor_acc_nb(proc, dst, src, n, dtype, ARBOR_SUM, scale, req));
}

int PARMCI_Put(void *src, void *dst, int size, int target)
{
    return put(src, dst, size, target, NULL, 0);
}
int PARMCI_Get(void *src, void *dst, int size, int target)
{
    return get(src, dst, size, target, NULL, 0);
}
int PARMCI_Acc(int datatype, void *scale, void *src, void *dst, int bytes, int proc)
{
    return acc(datatype, scale, src, dst, bytes, proc, NULL, 0);
}
int PARMCI_NbPut(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl)
{
    return put(src, dst, bytes, proc, hdl, 1);
}
int PARMCI_NbGet(void *src, void *dst, int bytes, int proc, armci_hdl_t *hdl)
{
    return get(src, dst, bytes, proc, hdl, 1);
}
int PARMCI_NbAcc(int datatype, void *scale, void *src, void *dst, int bytes, int proc,
                 armci_hdl_t *hdl)
{
    return acc(datatype, scale, src, dst, bytes, proc, hdl, 1);
}

/* Strided: one converter, then the arbor call of the requested kind. */
enum { OP_PUT = ARMCIA_PUT, OP_GET = ARMCIA_GET, OP_ACC = ARMCIA_ACC };

static int strided(int kind, int datatype, void *scale, void *src_ptr, int src_stride_ar[],
                   void *dst_ptr, int dst_stride_ar[], int count[], int stride_levels, int proc,
                   armci_hdl_t *hdl, int nb)
{
    static const char *const names[] = {"ARMCI_PutS", "ARMCI_GetS", "ARMCI_AccS"};
    ptrdiff_t ss[ARMCIA_MAX_STRIDE_LEVELS], ds[ARMCIA_MAX_STRIDE_LEVELS];
    size_t cnt[ARMCIA_MAX_STRIDE_LEVELS + 1];
    int rc = armcia_strides(stride_levels, src_stride_ar, dst_stride_ar, count, ss, ds, cnt);
    if (rc) return armcia_status(names[kind], rc);
    arbor_dtype_t dtype = ARBOR_BYTE;
    size_t size = 1;
    if (kind == OP_ACC && armcia_acc_type(datatype, &dtype, &size))
        return armcia_status(names[kind], ARBOR_ERR_DATATYPE);
    if (kind == OP_ACC && cnt[0] % size) return armcia_status(names[kind], ARBOR_ERR_COUNT);
    arbor_request_h *req = nb ? armcia_hdl_slot(hdl, proc) : NULL;
    arbor_status_t st;
    switch (kind) {
    case OP_PUT:
        st = nb ? arbor_put_strided_nb(proc, dst_ptr, ds, src_ptr, ss, cnt, stride_levels, req)
                : arbor_put_strided(proc, dst_ptr, ds, src_ptr, ss, cnt, stride_levels);
        break;
    case OP_GET:
        st = nb ? arbor_get_strided_nb(proc, dst_ptr, ds, src_ptr, ss, cnt, stride_levels, req)
                : arbor_get_strided(proc, dst_ptr, ds, src_ptr, ss, cnt, stride_levels);
        break;
    default:
        st = nb ? arbor_acc_strided_nb(proc, dst_ptr, ds, src_ptr, ss, cnt, stride_levels, dtype,
                                       ARBOR_SUM, scale, req)
                : arbor_acc_strided(proc, dst_ptr, ds, src_ptr, ss, cnt, stride_levels, dtype,
                                    ARBOR_SUM, scale);
        break;
    }
    return nb ? armcia_hdl_started(hdl, st) : armcia_status(names[kind], st);
}

int PARMCI_PutS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
                int stride_levels, int proc)
{
    return strided(OP_PUT, 0, NULL, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count,
                   stride_levels, proc, NULL, 0);
}
int PARMCI_GetS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[], int count[],
                int stride_levels, int proc)
{
    return strided(OP_GET, 0, NULL, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count,
                   stride_levels, proc, NULL, 0);
}
int PARMCI_AccS(int datatype, void *scale, void *src_ptr, int src_stride_ar[], void *dst_ptr,
                int dst_stride_ar[], int count[], int stride_levels, int proc)
{
    return strided(OP_ACC, datatype, scale, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count,
                   stride_levels, proc, NULL, 0);
}
int PARMCI_NbPutS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                  int count[], int stride_levels, int proc, armci_hdl_t *hdl)
{
    return strided(OP_PUT, 0, NULL, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count,
                   stride_levels, proc, hdl, 1);
}
int PARMCI_NbGetS(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                  int count[], int stride_levels, int proc, armci_hdl_t *hdl)
{
    return strided(OP_GET, 0, NULL, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count,
                   stride_levels, proc, hdl, 1);
}
int PARMCI_NbAccS(int datatype, void *scale, void *src_ptr, int src_stride_ar[], void *dst_ptr,
                  int dst_stride_ar[], int count[], int stride_levels, int proc, armci_hdl_t *hdl)
{
    return strided(OP_ACC, datatype, scale, src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count,
                   stride_levels, proc, hdl, 1);
}

/* Put_flag: the data, then the int flag, ordered so that the target never sees the flag
 * first. arbor_put_signal's signal is a 64-bit word; ARMCI's flag is an int, so the flag goes
 * as a 4-byte put after arbor_order. */
static int set_flag(int rc, int *flag, int value, int proc)
{
    if (rc) return rc;
    arbor_status_t st = arbor_order(proc);
    if (st == ARBOR_OK) st = arbor_put(proc, flag, &value, sizeof value);
    return armcia_status("ARMCI_Put_flag", st);
}

int PARMCI_Put_flag(void *src, void *dst, int size, int *flag, int value, int proc)
{
    if (!flag) return armcia_status("ARMCI_Put_flag", ARBOR_ERR_BUFFER);
    return set_flag(put(src, dst, size, proc, NULL, 0), flag, value, proc);
}

int PARMCI_PutS_flag(void *src_ptr, int src_stride_ar[], void *dst_ptr, int dst_stride_ar[],
                     int count[], int stride_levels, int *flag, int value, int proc)
{
    if (!flag) return armcia_status("ARMCI_PutS_flag", ARBOR_ERR_BUFFER);
    int rc =
        PARMCI_PutS(src_ptr, src_stride_ar, dst_ptr, dst_stride_ar, count, stride_levels, proc);
    return set_flag(rc, flag, value, proc);
}

/* The public names: weak aliases of the profiling names (armci_arbor.h). */
ARMCIA_PROFILED(ARMCI_Acc, PARMCI_Acc);
ARMCIA_PROFILED(ARMCI_AccS, PARMCI_AccS);
ARMCIA_PROFILED(ARMCI_Get, PARMCI_Get);
ARMCIA_PROFILED(ARMCI_GetS, PARMCI_GetS);
ARMCIA_PROFILED(ARMCI_NbAcc, PARMCI_NbAcc);
ARMCIA_PROFILED(ARMCI_NbAccS, PARMCI_NbAccS);
ARMCIA_PROFILED(ARMCI_NbGet, PARMCI_NbGet);
ARMCIA_PROFILED(ARMCI_NbGetS, PARMCI_NbGetS);
ARMCIA_PROFILED(ARMCI_NbPut, PARMCI_NbPut);
ARMCIA_PROFILED(ARMCI_NbPutS, PARMCI_NbPutS);
ARMCIA_PROFILED(ARMCI_Put, PARMCI_Put);
ARMCIA_PROFILED(ARMCI_PutS, PARMCI_PutS);
ARMCIA_PROFILED(ARMCI_PutS_flag, PARMCI_PutS_flag);
ARMCIA_PROFILED(ARMCI_Put_flag, PARMCI_Put_flag);
