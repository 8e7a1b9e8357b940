/*
 * Reference chains (the *_by_ref entry points). gfortran uses them for components of
 * derived-type coarrays and also for a plain array coarray when the result is an allocatable
 * that the assignment (re)allocates. Supported: a chain that is one array reference on an
 * array coarray; anything else (components, allocatable components, sendget_by_ref,
 * is_present), and the other parts of the ABI libcaf_arbor does not provide, report a clear
 * error (stat set, else error termination) instead of silently doing nothing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "caf_api.h"
#include "caf_section.h"
#include "caf_state.h"

#define UNSUPPORTED(what) "libcaf_arbor: " what " is not supported by libcaf_arbor"

/* Reads element @p k of a vector subscript of integer kind @p kind. */
static ptrdiff_t vector_index(const void *v, int kind, size_t k)
{
    switch (kind) {
    case 1:
        return ((const int8_t *)v)[k];
    case 2:
        return ((const int16_t *)v)[k];
    case 4:
        return ((const int32_t *)v)[k];
    default:
        return (ptrdiff_t)((const int64_t *)v)[k];
    }
}

/*
 * The remote section named by a chain that is one array reference on an array coarray (the
 * only chain supported), with *first_p the byte offset of its first element. Bounds come from
 * the program's descriptor saved at registration (they are the same on every image). Returns
 * 0, or -1 for any other chain.
 */
static int ref_section(const caf_coarray_t *c, const caf_ref_t *ref, int type, int kind,
                       caf_section_t *s, ptrdiff_t *first_p)
{
    if (!c || !c->desc || !ref || ref->next || ref->type != CAF_REF_ARRAY) return -1;
    const caf_desc_t *d = c->desc;
    memset(s, 0, sizeof *s);
    s->rank = d->dtype.rank;
    s->elem = ref->item_size;
    s->type = type;
    s->kind = kind;
    s->n = 1;
    *first_p = 0;
    for (int i = 0; i < s->rank; i++) {
        ptrdiff_t lb = d->dim[i].lbound, step = d->dim[i].stride * (ptrdiff_t)s->elem;
        ptrdiff_t start = ref->u.a.dim[i].s.start, end = ref->u.a.dim[i].s.end;
        ptrdiff_t stride = ref->u.a.dim[i].s.stride;
        switch (ref->u.a.mode[i]) {
        case CAF_ARR_VECTOR: {
            size_t nvec = ref->u.a.dim[i].v.nvec;
            s->list[i] = malloc((nvec ? nvec : 1) * sizeof(ptrdiff_t));
            if (!s->list[i]) return -1;
            for (size_t k = 0; k < nvec; k++)
                s->list[i][k] =
                    (vector_index(ref->u.a.dim[i].v.vector, ref->u.a.dim[i].v.kind, k) - lb) * step;
            s->extent[i] = nvec;
            s->n *= nvec;
            continue;
        }
        case CAF_ARR_FULL:
            start = lb;
            end = d->dim[i].ubound;
            stride = 1;
            break;
        case CAF_ARR_SINGLE:
            end = start;
            stride = 1;
            break;
        case CAF_ARR_OPEN_END:
            end = d->dim[i].ubound;
            break;
        case CAF_ARR_OPEN_START:
            start = lb;
            break;
        case CAF_ARR_RANGE:
            break;
        default:
            return -1;
        }
        if (stride == 0) return -1;
        ptrdiff_t extent = (end - start) / stride + 1;
        s->extent[i] = extent > 0 ? (size_t)extent : 0;
        s->stride[i] = stride * step;
        s->n *= s->extent[i];
        *first_p += (start - lb) * step;
    }
    return 0;
}

/* Gives an unallocated (or differently sized) reallocatable result the shape of the section:
 * bounds 1..extent of each dimension not selected by a single subscript. */
static int shape_result(caf_desc_t *dst, const caf_section_t *r, const caf_ref_t *ref)
{
    size_t want = r->n, have = 1;
    int rank = 0;
    for (int i = 0; i < r->rank; i++) rank += ref->u.a.mode[i] != CAF_ARR_SINGLE;
    if (rank != dst->dtype.rank) return -1;
    for (int i = 0; i < rank; i++) {
        ptrdiff_t e = dst->dim[i].ubound - dst->dim[i].lbound + 1;
        have *= e > 0 ? (size_t)e : 0;
    }
    if (dst->base_addr && have == want) return 0;
    free(dst->base_addr); /* gfortran's allocatables are malloc'd */
    dst->base_addr = malloc(want * dst->dtype.elem_len + 1);
    if (!dst->base_addr) return -1;
    ptrdiff_t stride = 1, offset = 0;
    for (int i = 0, k = 0; i < r->rank; i++) {
        if (ref->u.a.mode[i] == CAF_ARR_SINGLE) continue;
        dst->dim[k].lbound = 1;
        dst->dim[k].ubound = (ptrdiff_t)r->extent[i];
        dst->dim[k].stride = stride;
        offset -= stride;
        stride *= (ptrdiff_t)r->extent[i];
        k++;
    }
    dst->offset = (size_t)offset;
    dst->span = (ptrdiff_t)dst->dtype.elem_len;
    return 0;
}

void _gfortran_caf_get_by_ref(caf_token_t token, int image_index, caf_desc_t *dst, void *refs,
                              int dst_kind, int src_kind, bool may_require_tmp,
                              bool dst_reallocatable, int *stat, int src_type)
{
    (void)may_require_tmp; /* the data always lands in a buffer of this image first */
    caf_coarray_t *c = token;
    caf_section_t rs, ls;
    ptrdiff_t first;
    int w = caf_image_rank(image_index);
    if (w >= 0 && caf_failed_check(w, image_index, stat, "coindexed access")) return;
    memset(&rs, 0, sizeof rs);
    memset(&ls, 0, sizeof ls);
    if (ref_section(c, refs, src_type, src_kind, &rs, &first) != 0 || w < 0 || !c->addr[w]) {
        caf_section_free(&rs);
        caf_report(stat, NULL, 0, CAF_STAT_ERROR,
                   UNSUPPORTED("coindexed access through a component (get_by_ref)"));
        return;
    }
    char *packed = NULL;
    if ((dst_reallocatable && shape_result(dst, &rs, refs) != 0) ||
        caf_section_init(&ls, dst, NULL, dst_kind) != 0 || (ls.n != rs.n && rs.n != 1) ||
        !(packed = malloc(rs.n * rs.elem + 1))) {
        caf_report(stat, NULL, 0, CAF_STAT_ERROR, "libcaf_arbor: get_by_ref: shapes differ");
    } else {
        arbor_status_t s = caf_remote_move(0, w, c->addr[w] + first, &rs, packed);
        if (s == ARBOR_OK && caf_unpack(dst->base_addr, &ls, packed, &rs, rs.n) != 0)
            caf_report(stat, NULL, 0, CAF_STAT_ERROR, "libcaf_arbor: unsupported conversion");
        else
            caf_check(stat, NULL, 0, s, "coindexed read");
    }
    free(packed);
    caf_section_free(&rs);
    caf_section_free(&ls);
}

void _gfortran_caf_send_by_ref(caf_token_t token, int image_index, caf_desc_t *src, void *refs,
                               int dst_kind, int src_kind, bool may_require_tmp,
                               bool dst_reallocatable, int *stat, int dst_type)
{
    (void)may_require_tmp, (void)dst_reallocatable;
    caf_coarray_t *c = token;
    caf_section_t rs, ls;
    ptrdiff_t first;
    int w = caf_image_rank(image_index);
    if (w >= 0 && caf_failed_check(w, image_index, stat, "coindexed access")) return;
    memset(&rs, 0, sizeof rs);
    memset(&ls, 0, sizeof ls);
    if (ref_section(c, refs, dst_type, dst_kind, &rs, &first) != 0 || w < 0 || !c->addr[w]) {
        caf_section_free(&rs);
        caf_report(stat, NULL, 0, CAF_STAT_ERROR,
                   UNSUPPORTED("coindexed access through a component (send_by_ref)"));
        return;
    }
    char *packed = NULL;
    if (caf_section_init(&ls, src, NULL, src_kind) != 0 || (ls.n != rs.n && ls.n != 1) ||
        !(packed = malloc(rs.n * rs.elem + 1)) || caf_pack(packed, &rs, src->base_addr, &ls)) {
        caf_report(stat, NULL, 0, CAF_STAT_ERROR, "libcaf_arbor: send_by_ref: shapes differ");
    } else {
        arbor_status_t s = caf_remote_move(1, w, c->addr[w] + first, &rs, packed);
        if (s == ARBOR_OK && w != caf_state.world_rank) s = arbor_order(w);
        caf_check(stat, NULL, 0, s, "coindexed write");
    }
    free(packed);
    caf_section_free(&rs);
    caf_section_free(&ls);
}

void _gfortran_caf_sendget_by_ref(caf_token_t dst_token, int dst_image_index, void *dst_refs,
                                  caf_token_t src_token, int src_image_index, void *src_refs,
                                  int dst_kind, int src_kind, bool may_require_tmp, int *dst_stat,
                                  int *src_stat, int dst_type, int src_type)
{
    (void)dst_token, (void)dst_image_index, (void)dst_refs, (void)src_token;
    (void)src_image_index, (void)src_refs, (void)dst_kind, (void)src_kind;
    (void)may_require_tmp, (void)dst_type, (void)src_type;
    if (src_stat) *src_stat = CAF_STAT_ERROR;
    caf_report(dst_stat, NULL, 0, CAF_STAT_ERROR,
               UNSUPPORTED("coindexed access to a component (sendget_by_ref)"));
}

int _gfortran_caf_is_present(caf_token_t token, int image_index, void *refs)
{
    (void)token, (void)image_index, (void)refs;
    caf_fatal(1, UNSUPPORTED("allocated() of a coindexed component (is_present)"));
}
