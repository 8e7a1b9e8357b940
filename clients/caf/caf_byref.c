/*
 * Reference chains (the *_by_ref entry points): components and array references applied in turn
 * to a coarray of another image. gfortran uses them for components of derived-type coarrays,
 * and for a plain array coarray when the result is an allocatable that the assignment
 * (re)allocates.
 *
 * A chain is resolved on the target image into one section: a base address and the strides (or
 * subscript lists) of its dimensions. Embedded components and single subscripts move the base;
 * an allocatable or pointer component is an indirection: its descriptor (or pointer) is read
 * from the target, and the section goes on in the memory it names, memory that image allocated
 * alone (caf_component.c makes it reachable). Fortran allows at most one part of nonzero rank,
 * and no allocatable or pointer component to the right of it, so indirections happen while the
 * reference is still one element and every chain is one section.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "caf_api.h"
#include "caf_section.h"
#include "caf_state.h"

/* A chain resolved on one image. */
typedef struct {
    int w;           /* world rank of the image */
    char *base;      /* its address of the first element */
    int component;   /* base lies in memory that image allocated alone */
    caf_section_t s; /* rank: the result's (single subscripts left out) */
} target_t;

enum { RESOLVED = 0, NOT_ALLOCATED, BAD_CHAIN, MOVE_FAILED };

typedef struct {
    int code;          /* one of the above */
    arbor_status_t st; /* MOVE_FAILED: arbor's status */
    const char *why;   /* BAD_CHAIN: what is wrong */
} outcome_t;

/* A descriptor as read from another image (its dimensions follow the header). */
typedef struct {
    caf_desc_t d;
    caf_dim_t dim[CAF_MAX_DIMS];
} remote_desc_t;

/* Dimensions an array reference names (its modes end at CAF_ARR_NONE). */
static int ref_rank(const caf_ref_t *ref)
{
    int n = 0;
    while (n < CAF_MAX_DIMS && ref->u.a.mode[n] != CAF_ARR_NONE) n++;
    return n;
}

/* Reads @p len bytes at @p raddr of world rank @p w (memory that image allocated alone when
 * @p component). */
static arbor_status_t fetch(caf_reach_t *rc, int w, int component, const char *raddr, void *buf,
                            size_t len)
{
    if (w == caf_state.world_rank) {
        memcpy(buf, raddr, len);
        return ARBOR_OK;
    }
    if (component) {
        arbor_status_t s = caf_reach(rc, w, raddr, len);
        if (s != ARBOR_OK) return s;
    }
    return arbor_get(w, buf, (void *)raddr, len);
}

/* Adds a dimension to the section; the base offset of its first element is the caller's. */
static int add_dim(target_t *t, size_t extent, ptrdiff_t stride, ptrdiff_t *list)
{
    if (t->s.rank == CAF_MAX_DIMS) {
        free(list);
        return -1;
    }
    t->s.extent[t->s.rank] = extent;
    t->s.stride[t->s.rank] = stride;
    t->s.list[t->s.rank] = list;
    t->s.rank++;
    t->s.n *= extent;
    return 0;
}

/* Elements from @p start to @p end by @p stride (Fortran's count, 0 when empty). */
static size_t count_of(ptrdiff_t start, ptrdiff_t end, ptrdiff_t stride)
{
    ptrdiff_t n = (end - start) / stride + 1;
    return n > 0 ? (size_t)n : 0;
}

/* An array reference through descriptor @p d (its bounds; element addresses from @p *addr on). */
static int array_ref(target_t *t, const caf_ref_t *ref, const caf_desc_t *d, char **addr)
{
    int rank = ref_rank(ref);
    if (!d || rank > d->dtype.rank) return -1;
    ptrdiff_t span = d->span > 0 ? d->span : (ptrdiff_t)ref->item_size;
    for (int i = 0; i < rank; i++) {
        const caf_dim_t *dim = &d->dim[i];
        ptrdiff_t step = dim->stride * span, lb = dim->lbound;
        ptrdiff_t start = ref->u.a.dim[i].s.start, end = ref->u.a.dim[i].s.end;
        ptrdiff_t stride = ref->u.a.dim[i].s.stride;
        switch (ref->u.a.mode[i]) {
        case CAF_ARR_VECTOR: {
            size_t nvec = ref->u.a.dim[i].v.nvec;
            ptrdiff_t *list = malloc((nvec ? nvec : 1) * sizeof *list);
            if (!list) return -1;
            for (size_t k = 0; k < nvec; k++) {
                ptrdiff_t v;
                if (caf_vector_index(ref->u.a.dim[i].v.vector, ref->u.a.dim[i].v.kind, k, &v)) {
                    free(list);
                    return -1;
                }
                list[k] = (v - lb) * step;
            }
            if (add_dim(t, nvec, 0, list) != 0) return -1;
            continue;
        }
        case CAF_ARR_SINGLE:
            *addr += (start - lb) * step;
            continue;
        case CAF_ARR_FULL:
            start = lb;
            end = dim->ubound;
            if (stride == 0) stride = 1;
            break;
        case CAF_ARR_OPEN_END:
            end = dim->ubound;
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
        size_t n = count_of(start, end, stride);
        if (n > 0) *addr += (start - lb) * step;
        if (add_dim(t, n, stride * step, NULL) != 0) return -1;
    }
    return 0;
}

/* An array reference to an array stored in place (no descriptor): gfortran gives zero-based
 * positions already multiplied by each dimension's stride, in elements. */
static int static_ref(target_t *t, const caf_ref_t *ref, char **addr)
{
    int rank = ref_rank(ref);
    ptrdiff_t item = (ptrdiff_t)ref->item_size;
    for (int i = 0; i < rank; i++) {
        ptrdiff_t start = ref->u.a.dim[i].s.start, end = ref->u.a.dim[i].s.end;
        ptrdiff_t stride = ref->u.a.dim[i].s.stride;
        switch (ref->u.a.mode[i]) {
        case CAF_ARR_VECTOR: {
            size_t nvec = ref->u.a.dim[i].v.nvec;
            ptrdiff_t *list = malloc((nvec ? nvec : 1) * sizeof *list);
            if (!list) return -1;
            for (size_t k = 0; k < nvec; k++) {
                ptrdiff_t v;
                if (caf_vector_index(ref->u.a.dim[i].v.vector, ref->u.a.dim[i].v.kind, k, &v)) {
                    free(list);
                    return -1;
                }
                list[k] = v * item;
            }
            if (add_dim(t, nvec, 0, list) != 0) return -1;
            continue;
        }
        case CAF_ARR_SINGLE:
            *addr += start * item;
            continue;
        case CAF_ARR_FULL:
            start = 0;
            break;
        case CAF_ARR_RANGE:
            break;
        default: /* gfortran makes open ranges of a static array RANGE */
            return -1;
        }
        if (stride == 0) return -1;
        size_t n = count_of(start, end, stride);
        if (n > 0) *addr += start * item;
        if (add_dim(t, n, stride * item, NULL) != 0) return -1;
    }
    return 0;
}

/* True when a component reference follows @p ref in the chain. */
static int component_follows(const caf_ref_t *ref)
{
    for (ref = ref->next; ref; ref = ref->next)
        if (ref->type == CAF_REF_COMPONENT) return 1;
    return 0;
}

/*
 * Resolves chain @p ref on image @p image of coarray @p c into @p t (elements of @p type /
 * @p kind). With @p presence, stops after the last allocatable component (is_present): RESOLVED
 * then means allocated. The caller frees t->s with caf_section_free in every case.
 */
static outcome_t resolve(caf_coarray_t *c, int image, const caf_ref_t *ref, int type, int kind,
                         int presence, caf_reach_t *rc, target_t *t)
{
    outcome_t o = {BAD_CHAIN, ARBOR_OK, "the image is not an image of the coarray's team"};
    memset(t, 0, sizeof *t);
    t->s.n = 1;
    int w = caf_image_rank(image);
    if (!c || c->tag != CAF_TOKEN_COARRAY || w < 0 || !c->addr[w] || !ref) return o;
    t->w = w;
    char *addr = c->addr[w];
    int component = 0, section_done = 0;
    const caf_desc_t *desc = c->desc; /* bounds for an array reference to come */
    remote_desc_t rd;
    o.why = "unsupported reference chain";
    for (; ref; ref = ref->next) {
        t->s.elem = ref->item_size;
        int had = t->s.rank;
        switch (ref->type) {
        case CAF_REF_COMPONENT: {
            const caf_ref_t *next = ref->next;
            int to_array = next && next->type == CAF_REF_ARRAY;
            if (ref->u.c.caf_token_offset <= 0 && !to_array) {
                addr += ref->u.c.offset;
                desc = NULL;
                break;
            }
            if (t->s.rank > 0) {
                o.why = "an allocatable or pointer component of an array section";
                return o;
            }
            const char *at = addr + ref->u.c.offset;
            caf_reach_start(rc, w); /* overlaps the reads of the descriptors */
            if (to_array) {
                size_t len = sizeof(caf_desc_t) + (size_t)ref_rank(next) * sizeof(caf_dim_t);
                o.st = fetch(rc, w, component, at, &rd, len);
                addr = rd.d.base_addr;
                desc = &rd.d;
            } else {
                void *p = NULL;
                o.st = fetch(rc, w, component, at, &p, sizeof p);
                addr = p;
                desc = NULL;
            }
            if (o.st != ARBOR_OK) {
                o.code = MOVE_FAILED;
                return o;
            }
            if (!addr) {
                o.code = NOT_ALLOCATED;
                return o;
            }
            component = 1;
            if (presence && !component_follows(ref)) {
                o.code = RESOLVED;
                return o;
            }
            break;
        }
        case CAF_REF_ARRAY:
            if (ref->u.a.mode[0] == CAF_ARR_NONE) break;
            if (array_ref(t, ref, desc, &addr) != 0) return o;
            desc = NULL;
            break;
        case CAF_REF_STATIC_ARRAY:
            if (ref->u.a.mode[0] == CAF_ARR_NONE) break;
            if (static_ref(t, ref, &addr) != 0) return o;
            desc = NULL;
            break;
        default:
            return o;
        }
        /* One part of nonzero rank at most (Fortran's rule). */
        if (t->s.rank > had) {
            if (section_done) return o;
            section_done = 1;
        }
    }
    if (presence) return o; /* no allocatable component in the chain */
    t->base = addr;
    t->component = component;
    t->s.type = type;
    t->s.kind = kind ? kind : (int)t->s.elem;
    if (type == CAF_BT_CHARACTER && kind == 0) t->s.kind = 1;
    o.code = RESOLVED;
    return o;
}

/* Moves the resolved section to (@p put) or from a packed buffer. */
static arbor_status_t move(int put, caf_reach_t *rc, const target_t *t, char *packed)
{
    if (t->s.n == 0) return ARBOR_OK;
    if (t->component && t->w != caf_state.world_rank) {
        /* The bytes the section spans, to attach them. */
        ptrdiff_t lo = 0, hi = 0;
        for (int i = 0; i < t->s.rank; i++) {
            ptrdiff_t a = 0, b = 0;
            if (t->s.list[i]) {
                a = b = t->s.list[i][0];
                for (size_t k = 1; k < t->s.extent[i]; k++) {
                    if (t->s.list[i][k] < a) a = t->s.list[i][k];
                    if (t->s.list[i][k] > b) b = t->s.list[i][k];
                }
            } else {
                ptrdiff_t e = (ptrdiff_t)(t->s.extent[i] - 1) * t->s.stride[i];
                a = e < 0 ? e : 0;
                b = e > 0 ? e : 0;
            }
            lo += a;
            hi += b;
        }
        arbor_status_t s = caf_reach(rc, t->w, t->base + lo, (size_t)(hi - lo) + t->s.elem);
        if (s != ARBOR_OK) return s;
    }
    return caf_remote_move(put, t->w, t->base, &t->s, packed);
}

/* Reports an outcome that is not RESOLVED (stat set, else error termination). */
static void report(int *stat, outcome_t o, int image, const char *what)
{
    if (o.code == NOT_ALLOCATED)
        caf_report(stat, NULL, 0, CAF_STAT_ERROR,
                   "libcaf_arbor: %s: a component is not allocated on image %d", what, image);
    else if (o.code == MOVE_FAILED)
        caf_check(stat, NULL, 0, o.st, what);
    else
        caf_report(stat, NULL, 0, CAF_STAT_ERROR, "libcaf_arbor: %s: %s", what, o.why);
}

/* Gives an unallocated (or differently shaped) reallocatable result the section's shape:
 * bounds 1..extent of each of its dimensions. */
static int shape_result(caf_desc_t *dst, const caf_section_t *r)
{
    if (r->rank == 0 && dst->dtype.rank > 0 && dst->base_addr) return 0; /* scalar to array */
    if (r->rank != dst->dtype.rank) return -1;
    int same = dst->base_addr != NULL;
    for (int i = 0; same && i < r->rank; i++) {
        ptrdiff_t e = dst->dim[i].ubound - dst->dim[i].lbound + 1;
        same = (size_t)(e > 0 ? e : 0) == r->extent[i];
    }
    if (same) return 0;
    free(dst->base_addr); /* gfortran's allocatables are malloc'd */
    dst->base_addr = malloc(r->n * dst->dtype.elem_len + 1);
    if (!dst->base_addr) return -1;
    ptrdiff_t stride = 1, offset = 0;
    for (int i = 0; i < r->rank; i++) {
        dst->dim[i].lbound = 1;
        dst->dim[i].ubound = (ptrdiff_t)r->extent[i];
        dst->dim[i].stride = stride;
        offset -= stride;
        stride *= (ptrdiff_t)r->extent[i];
    }
    dst->offset = (size_t)offset;
    dst->span = (ptrdiff_t)dst->dtype.elem_len;
    return 0;
}

/* A coindexed access to a failed image, or to none: reported, and true. */
static int unreachable(int image, int *stat)
{
    int w = caf_image_rank(image);
    return w >= 0 && caf_failed_check(w, image, stat, "coindexed access") != 0;
}

void _gfortran_caf_get_by_ref(caf_token_t token, int image_index, caf_desc_t *dst, void *refs,
                              int dst_kind, int src_kind, bool may_require_tmp,
                              bool dst_reallocatable, int *stat, int src_type)
{
    (void)may_require_tmp; /* the data always lands in a buffer of this image first */
    if (unreachable(image_index, stat)) return;
    caf_reach_t rc = CAF_REACH_INIT;
    target_t t;
    caf_section_t ls;
    memset(&ls, 0, sizeof ls);
    outcome_t o = resolve(token, image_index, refs, src_type, src_kind, 0, &rc, &t);
    char *packed = NULL;
    if (o.code != RESOLVED) {
        report(stat, o, image_index, "coindexed read");
    } else if ((dst_reallocatable && shape_result(dst, &t.s) != 0) ||
               caf_section_init(&ls, dst, NULL, dst_kind) != 0 || !caf_section_fits(ls.n, t.s.n) ||
               !(packed = malloc(t.s.n * t.s.elem + 1))) {
        caf_report(stat, NULL, 0, CAF_STAT_ERROR, "libcaf_arbor: get_by_ref: shapes differ");
    } else {
        arbor_status_t s = move(0, &rc, &t, packed);
        if (s == ARBOR_OK && caf_unpack(dst->base_addr, &ls, packed, &t.s, t.s.n) != 0)
            caf_report(stat, NULL, 0, CAF_STAT_ERROR, "libcaf_arbor: unsupported conversion");
        else
            caf_check(stat, NULL, 0, s, "coindexed read");
    }
    caf_reach_end(&rc);
    free(packed);
    caf_section_free(&t.s);
    caf_section_free(&ls);
}

void _gfortran_caf_send_by_ref(caf_token_t token, int image_index, caf_desc_t *src, void *refs,
                               int dst_kind, int src_kind, bool may_require_tmp,
                               bool dst_reallocatable, int *stat, int dst_type)
{
    /* The left side is never reallocated: Fortran requires a coindexed allocatable to have the
     * shape of the right side already (and nobody may allocate another image's memory). */
    (void)may_require_tmp, (void)dst_reallocatable;
    if (unreachable(image_index, stat)) return;
    caf_reach_t rc = CAF_REACH_INIT;
    target_t t;
    caf_section_t ls;
    memset(&ls, 0, sizeof ls);
    outcome_t o = resolve(token, image_index, refs, dst_type, dst_kind, 0, &rc, &t);
    char *packed = NULL;
    if (o.code != RESOLVED) {
        report(stat, o, image_index, "coindexed write");
    } else if (caf_section_init(&ls, src, NULL, src_kind) != 0 || !caf_section_fits(t.s.n, ls.n) ||
               !(packed = malloc(t.s.n * t.s.elem + 1)) ||
               caf_pack(packed, &t.s, src->base_addr, &ls) != 0) {
        caf_report(stat, NULL, 0, CAF_STAT_ERROR, "libcaf_arbor: send_by_ref: shapes differ");
    } else {
        arbor_status_t s = move(1, &rc, &t, packed);
        /* Later accesses of this image to that image must see this write. */
        if (s == ARBOR_OK && t.w != caf_state.world_rank) s = arbor_order(t.w);
        caf_check(stat, NULL, 0, s, "coindexed write");
    }
    caf_reach_end(&rc);
    free(packed);
    caf_section_free(&t.s);
    caf_section_free(&ls);
}

void _gfortran_caf_sendget_by_ref(caf_token_t dst_token, int dst_image_index, void *dst_refs,
                                  caf_token_t src_token, int src_image_index, void *src_refs,
                                  int dst_kind, int src_kind, bool may_require_tmp, int *dst_stat,
                                  int *src_stat, int dst_type, int src_type)
{
    (void)may_require_tmp; /* the data always passes through this image's buffers */
    if (src_stat) *src_stat = 0;
    if (unreachable(src_image_index, src_stat ? src_stat : dst_stat) ||
        unreachable(dst_image_index, dst_stat))
        return;
    caf_reach_t src_rc = CAF_REACH_INIT, dst_rc = CAF_REACH_INIT;
    target_t st, dt;
    char *in = NULL, *out = NULL;
    outcome_t o =
        resolve(src_token, src_image_index, src_refs, src_type, src_kind, 0, &src_rc, &st);
    memset(&dt, 0, sizeof dt);
    if (o.code != RESOLVED) {
        report(src_stat ? src_stat : dst_stat, o, src_image_index, "coindexed copy (source)");
        goto out;
    }
    o = resolve(dst_token, dst_image_index, dst_refs, dst_type, dst_kind, 0, &dst_rc, &dt);
    if (o.code != RESOLVED) {
        report(dst_stat, o, dst_image_index, "coindexed copy");
        goto out;
    }
    if (!caf_section_fits(dt.s.n, st.s.n) || !(in = malloc(st.s.n * st.s.elem + 1)) ||
        !(out = malloc(dt.s.n * dt.s.elem + 1))) {
        caf_report(dst_stat, NULL, 0, CAF_STAT_ERROR,
                   "libcaf_arbor: sendget_by_ref: shapes differ");
        goto out;
    }
    arbor_status_t s = move(0, &src_rc, &st, in);
    if (s != ARBOR_OK) {
        caf_check(src_stat ? src_stat : dst_stat, NULL, 0, s, "coindexed copy (source)");
        goto out;
    }
    for (size_t j = 0; j < dt.s.n; j++)
        if (caf_convert(out + j * dt.s.elem, dt.s.type, dt.s.kind, dt.s.elem,
                        in + (st.s.n == 1 ? 0 : j) * st.s.elem, st.s.type, st.s.kind,
                        st.s.elem) != 0) {
            caf_report(dst_stat, NULL, 0, CAF_STAT_ERROR,
                       "libcaf_arbor: sendget_by_ref: unsupported conversion");
            goto out;
        }
    s = move(1, &dst_rc, &dt, out);
    if (s == ARBOR_OK && dt.w != caf_state.world_rank) s = arbor_order(dt.w);
    caf_check(dst_stat, NULL, 0, s, "coindexed copy");
out:
    caf_reach_end(&src_rc);
    caf_reach_end(&dst_rc);
    free(in);
    free(out);
    caf_section_free(&st.s);
    caf_section_free(&dt.s);
}

int _gfortran_caf_is_present(caf_token_t token, int image_index, void *refs)
{
    caf_reach_t rc = CAF_REACH_INIT;
    target_t t;
    if (unreachable(image_index, NULL)) return 0;
    outcome_t o = resolve(token, image_index, refs, 0, 0, 1, &rc, &t);
    caf_reach_end(&rc);
    caf_section_free(&t.s);
    if (o.code == RESOLVED) return 1;
    if (o.code == NOT_ALLOCATED) return 0;
    report(NULL, o, image_index, "allocated() of a coindexed component");
    return 0;
}
