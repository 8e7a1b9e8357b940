/*
 * Datatypes and reduction operations: sizes, which (op, type) pairs are defined, and the
 * reduction kernels (one vectorizable loop per (type, op), generated: see dtype.c), plus user
 * operations created with a commute flag.
 */
#ifndef ARB_CORE_DTYPE_H
#define ARB_CORE_DTYPE_H

#include <stdbool.h>
#include <stddef.h>

#include "arbor.h"

/* Bytes of one element; 0 for an invalid type. */
size_t arb_dtype_size(arbor_dtype_t dtype);
const char *arb_dtype_name(arbor_dtype_t dtype); /* "int32", ...; "?" when invalid */
const char *arb_op_name(arbor_op_t op);          /* "sum", ...; "user" for user ops */

/* ARBOR_OK when op is defined on dtype; ARBOR_ERR_DATATYPE for an unknown type; ARBOR_ERR_OP
 * for an unknown or freed op or one not defined on the type (bitwise on float, ...). */
arbor_status_t arb_op_check(arbor_op_t op, arbor_dtype_t dtype);
bool arb_op_commutative(arbor_op_t op);

/* Combines count elements: order ARB_COMBINE_AFTER (1): inout = inout op in;
 * ARB_COMBINE_BEFORE (2): inout = in op inout. op must have passed arb_op_check. */
void arb_reduce(arbor_op_t op, arbor_dtype_t dtype, void *inout, const void *in, size_t count,
                int order);

/* Frees every user op (finalize). */
void arb_op_cleanup(void);

/* Whether a reduction in flight uses op (arbor_op_free refuses then): asked of the layer that
 * runs reductions, which registers it at init; none registered: no op is in use. */
typedef bool (*arb_op_in_use_fn)(arbor_op_t op);
void arb_op_set_in_use_check(arb_op_in_use_fn fn);

#endif /* ARB_CORE_DTYPE_H */
