/*
 * Array sections of the libcaf ABI: a descriptor (plus, on the remote side, vector subscripts)
 * becomes a list of element byte offsets in Fortran (column-major) order, kept as per-dimension
 * offset tables so that strided sections can still travel as one strided transfer.
 */
#ifndef CAF_SECTION_H
#define CAF_SECTION_H

#include <stddef.h>

#include "caf_abi.h"

typedef struct {
    int rank;
    size_t n;    /* elements */
    size_t elem; /* bytes per element */
    int type, kind;
    size_t extent[CAF_MAX_DIMS];
    ptrdiff_t stride[CAF_MAX_DIMS]; /* bytes, for the dimensions without a list */
    ptrdiff_t *list[CAF_MAX_DIMS];  /* byte offsets of a vector-subscripted dimension */
} caf_section_t;

/* Element @p k of a vector subscript of integer kind @p kind into *@p out; -1 for a kind other
 * than 1, 2, 4 or 8. */
int caf_vector_index(const void *v, int kind, size_t k, ptrdiff_t *out);

/* Describe @p desc (with @p vec for a remote reference, else NULL). @p kind is the kind the
 * compiler passed (0: take the descriptor's element size). Returns 0, or -1 (no memory, bad
 * vector kind). */
int caf_section_init(caf_section_t *s, const caf_desc_t *desc, const caf_vector_t *vec, int kind);
void caf_section_free(caf_section_t *s);
/* Byte offset of element @p j (0 <= j < n) from the section's first element. */
ptrdiff_t caf_section_offset(const caf_section_t *s, size_t j);
/* Elements in each run of adjacent, in-order elements the section is made of (the leading
 * dimensions that continue one another; 1 when the first does not); it divides n. */
size_t caf_section_run(const caf_section_t *s);
/* True when the section has no vector dimension (it can move as one strided transfer). */
int caf_section_strided(const caf_section_t *s);
/* True when its elements are adjacent and in order. */
int caf_section_contiguous(const caf_section_t *s);

/* Convert one element between Fortran types and kinds (integer, logical, real, complex:
 * value conversion; character: copy and blank-pad or truncate; derived: bytes). Returns 0, or
 * -1 for a kind it does not know. */
int caf_convert(void *dst, int dst_type, int dst_kind, size_t dst_len, const void *src,
                int src_type, int src_kind, size_t src_len);
/* True when a right side of @p src_n elements can be assigned to a left side of @p dst_n: the
 * same count, a scalar (repeated), or more elements than the left side needs. The last is not
 * conforming Fortran, but the reference runtime (OpenCoarrays) assigns the leading elements and
 * programs written against it rely on that, so the leading elements are taken here too. */
int caf_section_fits(size_t dst_n, size_t src_n);
/* True when elements of the two sides are the same bytes (no conversion needed). */
int caf_same_repr(const caf_section_t *a, const caf_section_t *b);

/* Copy between a section of local memory and a packed buffer of @p n elements of the other
 * side's representation, converting. A one-element @p packed is repeated over the section
 * (scalar to array assignment). Returns 0 or -1 (conversion). */
int caf_unpack(void *base, const caf_section_t *s, const void *packed, const caf_section_t *ps,
               size_t npacked);
int caf_pack(void *packed, const caf_section_t *ps, const void *base, const caf_section_t *s);

/* Moves remote section @p r at @p raddr of world rank @p w to (@p put) or from a packed buffer
 * of its elements (caf_transfer.c). */
#include "arbor.h"
arbor_status_t caf_remote_move(int put, int w, char *raddr, const caf_section_t *r, char *packed);

#endif /* CAF_SECTION_H */
