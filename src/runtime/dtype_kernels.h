/*
 * Reduction kernels generated at build time by scripts/gen_reduce_kernels.py (see
 * runtime/dtype.cmake): one loop per defined (datatype, op) pair and the per-type facts.
 * Only runtime/dtype.c uses these; everything else goes through runtime/dtype.h.
 */
#ifndef ARB_CORE_DTYPE_KERNELS_H
#define ARB_CORE_DTYPE_KERNELS_H

#include <stddef.h>

#include "arbor.h"

/* inout[k] = inout[k] op in[k] for k < n. The buffers must not overlap (restrict) and must be
 * aligned for the element type. Every built-in op is commutative, so one kernel serves both
 * combine orders. */
typedef void (*arb_reduce_kernel_fn_t)(void *restrict inout, const void *restrict in, size_t n);

typedef struct {
    const char *name; /* "int32", "float_int", ... */
    size_t size;      /* sizeof the C type, pair padding included */
} arb_dtype_info_t;

extern const arb_dtype_info_t arb_dtype_info[ARBOR_DTYPE_COUNT];

/* NULL where the op is not defined on the type: the single source of definedness. */
extern const arb_reduce_kernel_fn_t arb_reduce_kernels[ARBOR_DTYPE_COUNT][ARBOR_OP_PREDEFINED];

#endif /* ARB_CORE_DTYPE_KERNELS_H */
