/*
 * One-sided calls declared in arbor.h and not implemented yet: they link, and answer
 * ARBOR_ERR_UNSUPPORTED, so client runtimes can build against the whole header today.
 */
#include "core/rma/rma_impl.h"

#define STUB return arb_initialized() ? ARBOR_ERR_UNSUPPORTED : ARBOR_ERR_NOT_INITIALIZED

arbor_status_t arbor_put_strided(int rank, void *dst, const ptrdiff_t dst_stride[], const void *src,
                                 const ptrdiff_t src_stride[], const size_t count[],
                                 int stride_levels)
{
    (void)rank, (void)dst, (void)dst_stride, (void)src, (void)src_stride, (void)count,
        (void)stride_levels;
    STUB;
}
arbor_status_t arbor_get_strided(int rank, void *dst, const ptrdiff_t dst_stride[], const void *src,
                                 const ptrdiff_t src_stride[], const size_t count[],
                                 int stride_levels)
{
    (void)rank, (void)dst, (void)dst_stride, (void)src, (void)src_stride, (void)count,
        (void)stride_levels;
    STUB;
}
arbor_status_t arbor_put_strided_nb(int rank, void *dst, const ptrdiff_t dst_stride[],
                                    const void *src, const ptrdiff_t src_stride[],
                                    const size_t count[], int stride_levels, arbor_request_h *req_p)
{
    (void)rank, (void)dst, (void)dst_stride, (void)src, (void)src_stride, (void)count,
        (void)stride_levels, (void)req_p;
    STUB;
}
arbor_status_t arbor_get_strided_nb(int rank, void *dst, const ptrdiff_t dst_stride[],
                                    const void *src, const ptrdiff_t src_stride[],
                                    const size_t count[], int stride_levels, arbor_request_h *req_p)
{
    (void)rank, (void)dst, (void)dst_stride, (void)src, (void)src_stride, (void)count,
        (void)stride_levels, (void)req_p;
    STUB;
}
arbor_status_t arbor_put_vector(int rank, const arbor_iov_t *iov, size_t niov)
{
    (void)rank, (void)iov, (void)niov;
    STUB;
}
arbor_status_t arbor_get_vector(int rank, const arbor_iov_t *iov, size_t niov)
{
    (void)rank, (void)iov, (void)niov;
    STUB;
}
arbor_status_t arbor_put_vector_nb(int rank, const arbor_iov_t *iov, size_t niov,
                                   arbor_request_h *req_p)
{
    (void)rank, (void)iov, (void)niov, (void)req_p;
    STUB;
}
arbor_status_t arbor_get_vector_nb(int rank, const arbor_iov_t *iov, size_t niov,
                                   arbor_request_h *req_p)
{
    (void)rank, (void)iov, (void)niov, (void)req_p;
    STUB;
}
arbor_status_t arbor_acc(int rank, void *dst, const void *src, size_t count, arbor_dtype_t dtype,
                         arbor_op_t op, const void *scale)
{
    (void)rank, (void)dst, (void)src, (void)count, (void)dtype, (void)op, (void)scale;
    STUB;
}
arbor_status_t arbor_acc_nb(int rank, void *dst, const void *src, size_t count, arbor_dtype_t dtype,
                            arbor_op_t op, const void *scale, arbor_request_h *req_p)
{
    (void)rank, (void)dst, (void)src, (void)count, (void)dtype, (void)op, (void)scale, (void)req_p;
    STUB;
}
arbor_status_t arbor_acc_strided(int rank, void *dst, const ptrdiff_t dst_stride[], const void *src,
                                 const ptrdiff_t src_stride[], const size_t count[],
                                 int stride_levels, arbor_dtype_t dtype, arbor_op_t op,
                                 const void *scale)
{
    (void)rank, (void)dst, (void)dst_stride, (void)src, (void)src_stride, (void)count,
        (void)stride_levels, (void)dtype, (void)op, (void)scale;
    STUB;
}
arbor_status_t arbor_acc_strided_nb(int rank, void *dst, const ptrdiff_t dst_stride[],
                                    const void *src, const ptrdiff_t src_stride[],
                                    const size_t count[], int stride_levels, arbor_dtype_t dtype,
                                    arbor_op_t op, const void *scale, arbor_request_h *req_p)
{
    (void)rank, (void)dst, (void)dst_stride, (void)src, (void)src_stride, (void)count,
        (void)stride_levels, (void)dtype, (void)op, (void)scale, (void)req_p;
    STUB;
}
arbor_status_t arbor_acc_vector(int rank, const arbor_iov_t *iov, size_t niov, arbor_dtype_t dtype,
                                arbor_op_t op, const void *scale)
{
    (void)rank, (void)iov, (void)niov, (void)dtype, (void)op, (void)scale;
    STUB;
}
arbor_status_t arbor_acc_vector_nb(int rank, const arbor_iov_t *iov, size_t niov,
                                   arbor_dtype_t dtype, arbor_op_t op, const void *scale,
                                   arbor_request_h *req_p)
{
    (void)rank, (void)iov, (void)niov, (void)dtype, (void)op, (void)scale, (void)req_p;
    STUB;
}
