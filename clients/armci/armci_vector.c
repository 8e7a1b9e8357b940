/* PutV / GetV / AccV: armci_giov_t is arbor_iov_t with int fields. */
#include "armci_arbor.h"

#include <stdlib.h>

enum { OP_PUT = ARMCIA_PUT, OP_GET = ARMCIA_GET, OP_ACC = ARMCIA_ACC };

static int vector(int kind, int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc,
                  armci_hdl_t *hdl, int nb)
{
    static const char *const names[] = {"ARMCI_PutV", "ARMCI_GetV", "ARMCI_AccV"};
    if (iov_len < 0 || (iov_len > 0 && !iov)) return armcia_status(names[kind], ARBOR_ERR_COUNT);
    arbor_dtype_t dtype = ARBOR_BYTE;
    size_t size = 1;
    if (kind == OP_ACC && armcia_acc_type(datatype, &dtype, &size))
        return armcia_status(names[kind], ARBOR_ERR_DATATYPE);
    arbor_iov_t one, *v = iov_len <= 1 ? &one : malloc((size_t)iov_len * sizeof *v);
    if (!v) return armcia_status(names[kind], ARBOR_ERR_NO_MEMORY);
    for (int i = 0; i < iov_len; i++) {
        if (iov[i].bytes < 0 || iov[i].ptr_array_len < 0 || (size_t)iov[i].bytes % size) {
            if (v != &one) free(v);
            return armcia_status(names[kind], ARBOR_ERR_COUNT);
        }
        v[i] = (arbor_iov_t){.src = iov[i].src_ptr_array,
                             .dst = iov[i].dst_ptr_array,
                             .count = (size_t)iov[i].ptr_array_len,
                             .nbytes = (size_t)iov[i].bytes};
    }
    /* A non-blocking call's descriptor lives until the call completes (armcia_hdl_keep). */
    arbor_request_h *req = nb ? armcia_hdl_slot(hdl, proc) : NULL;
    size_t n = (size_t)iov_len;
    arbor_status_t st;
    switch (kind) {
    case OP_PUT:
        st = nb ? arbor_put_vector_nb(proc, v, n, req) : arbor_put_vector(proc, v, n);
        break;
    case OP_GET:
        st = nb ? arbor_get_vector_nb(proc, v, n, req) : arbor_get_vector(proc, v, n);
        break;
    default:
        st = nb ? arbor_acc_vector_nb(proc, v, n, dtype, ARBOR_SUM, scale, req)
                : arbor_acc_vector(proc, v, n, dtype, ARBOR_SUM, scale);
        break;
    }
    if (v != &one) {
        if (nb && st == ARBOR_OK)
            armcia_hdl_keep(hdl, proc, v);
        else
            free(v);
    }
    return nb ? armcia_hdl_started(hdl, st) : armcia_status(names[kind], st);
}

int PARMCI_PutV(armci_giov_t *iov, int iov_len, int proc)
{
    return vector(OP_PUT, 0, NULL, iov, iov_len, proc, NULL, 0);
}
int PARMCI_GetV(armci_giov_t *iov, int iov_len, int proc)
{
    return vector(OP_GET, 0, NULL, iov, iov_len, proc, NULL, 0);
}
int PARMCI_AccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc)
{
    return vector(OP_ACC, datatype, scale, iov, iov_len, proc, NULL, 0);
}
int PARMCI_NbPutV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle)
{
    return vector(OP_PUT, 0, NULL, iov, iov_len, proc, handle, 1);
}
int PARMCI_NbGetV(armci_giov_t *iov, int iov_len, int proc, armci_hdl_t *handle)
{
    return vector(OP_GET, 0, NULL, iov, iov_len, proc, handle, 1);
}
int PARMCI_NbAccV(int datatype, void *scale, armci_giov_t *iov, int iov_len, int proc,
                  armci_hdl_t *handle)
{
    return vector(OP_ACC, datatype, scale, iov, iov_len, proc, handle, 1);
}

/* The public names: weak aliases of the profiling names (armci_arbor.h). */
ARMCIA_PROFILED(ARMCI_AccV, PARMCI_AccV);
ARMCIA_PROFILED(ARMCI_GetV, PARMCI_GetV);
ARMCIA_PROFILED(ARMCI_NbAccV, PARMCI_NbAccV);
ARMCIA_PROFILED(ARMCI_NbGetV, PARMCI_NbGetV);
ARMCIA_PROFILED(ARMCI_NbPutV, PARMCI_NbPutV);
ARMCIA_PROFILED(ARMCI_PutV, PARMCI_PutV);
