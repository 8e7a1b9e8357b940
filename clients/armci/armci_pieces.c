/* Strided and vector transfers as a series of contiguous arbor calls. Used only when libarbor
 * answers ARBOR_ERR_UNSUPPORTED for the strided / vector form (a build whose one-sided layer
 * has the contiguous calls only); arbor's own strided path packs, this one does not. */
#include "armci_arbor.h"

static arbor_status_t piece(int kind, int proc, char *dst, char *src, size_t nbytes,
                            arbor_dtype_t dtype, size_t elem, const void *scale)
{
    switch (kind) {
    case ARMCIA_PUT:
        return arbor_put(proc, dst, src, nbytes);
    case ARMCIA_GET:
        return arbor_get(proc, dst, src, nbytes);
    default:
        return arbor_acc(proc, dst, src, nbytes / elem, dtype, ARBOR_SUM, scale);
    }
}

arbor_status_t armcia_strided_pieces(int kind, int proc, void *dst, const ptrdiff_t *dst_stride,
                                     const void *src, const ptrdiff_t *src_stride,
                                     const size_t *count, int levels, arbor_dtype_t dtype,
                                     size_t elem, const void *scale)
{
    size_t idx[ARMCIA_MAX_STRIDE_LEVELS + 1] = {0};
    for (int l = 1; l <= levels; l++)
        if (count[l] == 0) return ARBOR_OK;
    for (;;) {
        ptrdiff_t so = 0, d = 0;
        for (int l = 1; l <= levels; l++) {
            so += (ptrdiff_t)idx[l] * src_stride[l - 1];
            d += (ptrdiff_t)idx[l] * dst_stride[l - 1];
        }
        arbor_status_t st =
            piece(kind, proc, (char *)dst + d, (char *)src + so, count[0], dtype, elem, scale);
        if (st != ARBOR_OK) return st;
        int l = 1;
        while (l <= levels && ++idx[l] == count[l]) idx[l++] = 0;
        if (l > levels) return ARBOR_OK;
    }
}

arbor_status_t armcia_vector_pieces(int kind, int proc, const arbor_iov_t *iov, size_t niov,
                                    arbor_dtype_t dtype, size_t elem, const void *scale)
{
    for (size_t i = 0; i < niov; i++)
        for (size_t j = 0; j < iov[i].count; j++) {
            arbor_status_t st =
                piece(kind, proc, iov[i].dst[j], iov[i].src[j], iov[i].nbytes, dtype, elem, scale);
            if (st != ARBOR_OK) return st;
        }
    return ARBOR_OK;
}
