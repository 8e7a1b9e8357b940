/*
 * Array sections and element conversion of the libcaf ABI.
 */
#include "caf_section.h"

#include <complex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int caf_vector_index(const void *v, int kind, size_t k, ptrdiff_t *out)
{
    switch (kind) {
    case 1:
        *out = ((const int8_t *)v)[k];
        return 0;
    case 2:
        *out = ((const int16_t *)v)[k];
        return 0;
    case 4:
        *out = ((const int32_t *)v)[k];
        return 0;
    case 8:
        *out = (ptrdiff_t)((const int64_t *)v)[k];
        return 0;
    default:
        return -1;
    }
}

int caf_section_init(caf_section_t *s, const caf_desc_t *desc, const caf_vector_t *vec, int kind)
{
    /* Only the descriptor's dimensions are set: nothing reads past the rank, and zeroing all
     * CAF_MAX_DIMS of them was a fair part of a scalar collective's time. */
    s->rank = 0;
    s->elem = desc->dtype.elem_len;
    s->type = desc->dtype.type;
    s->kind = kind ? kind : (int)s->elem;
    if (s->type == CAF_BT_CHARACTER && kind == 0) s->kind = 1;
    s->n = 1;
    if (desc->dtype.rank < 0 || desc->dtype.rank > CAF_MAX_DIMS) return -1;
    s->rank = desc->dtype.rank;
    memset(s->list, 0, (size_t)s->rank * sizeof s->list[0]); /* what caf_section_free frees */
    for (int i = 0; i < s->rank; i++) {
        const caf_dim_t *d = &desc->dim[i];
        if (vec && vec[i].nvec > 0) {
            s->extent[i] = vec[i].nvec;
            s->stride[i] = 0;
            s->list[i] = malloc(vec[i].nvec * sizeof(ptrdiff_t));
            if (!s->list[i]) return -1;
            for (size_t k = 0; k < vec[i].nvec; k++) {
                ptrdiff_t idx;
                if (caf_vector_index(vec[i].u.v.vector, vec[i].u.v.kind, k, &idx) != 0) return -1;
                s->list[i][k] = (idx - d->lbound) * d->stride * (ptrdiff_t)s->elem;
            }
        } else {
            ptrdiff_t extent = d->ubound - d->lbound + 1;
            s->extent[i] = extent > 0 ? (size_t)extent : 0;
            s->stride[i] = d->stride * (ptrdiff_t)s->elem;
        }
        s->n *= s->extent[i];
    }
    return 0;
}

void caf_section_free(caf_section_t *s)
{
    for (int i = 0; i < s->rank; i++) {
        free(s->list[i]);
        s->list[i] = NULL;
    }
}

ptrdiff_t caf_section_offset(const caf_section_t *s, size_t j)
{
    ptrdiff_t off = 0;
    for (int i = 0; i < s->rank; i++) {
        size_t k = j % s->extent[i];
        j /= s->extent[i];
        off += s->list[i] ? s->list[i][k] : (ptrdiff_t)k * s->stride[i];
    }
    return off;
}

size_t caf_section_run(const caf_section_t *s)
{
    size_t run = 1;
    ptrdiff_t expect = (ptrdiff_t)s->elem;
    for (int i = 0; i < s->rank; i++) {
        if (s->list[i] || (s->extent[i] > 1 && s->stride[i] != expect)) break;
        run *= s->extent[i];
        expect *= (ptrdiff_t)s->extent[i];
    }
    return run ? run : 1;
}

int caf_section_strided(const caf_section_t *s)
{
    for (int i = 0; i < s->rank; i++)
        if (s->list[i]) return 0;
    return 1;
}

int caf_section_contiguous(const caf_section_t *s)
{
    ptrdiff_t expect = (ptrdiff_t)s->elem;
    for (int i = 0; i < s->rank; i++) {
        if (s->list[i] || (s->extent[i] > 1 && s->stride[i] != expect)) return 0;
        expect *= (ptrdiff_t)s->extent[i];
    }
    return 1;
}

int caf_section_fits(size_t dst_n, size_t src_n)
{
    return src_n >= dst_n || src_n == 1;
}

int caf_same_repr(const caf_section_t *a, const caf_section_t *b)
{
    return a->type == b->type && a->kind == b->kind && a->elem == b->elem;
}

/* Numbers travel through the widest type of their class. */
typedef struct {
    int is_int;
    __int128 i;
    long double complex z;
} number_t;

static int load_number(number_t *v, int type, int kind, const void *p)
{
    v->is_int = type == CAF_BT_INTEGER || type == CAF_BT_LOGICAL;
    if (v->is_int) {
        switch (kind) {
        case 1:
            v->i = *(const int8_t *)p;
            break;
        case 2:
            v->i = *(const int16_t *)p;
            break;
        case 4:
            v->i = *(const int32_t *)p;
            break;
        case 8:
            v->i = *(const int64_t *)p;
            break;
        case 16:
            v->i = *(const __int128 *)p;
            break;
        default:
            return -1;
        }
        v->z = (long double)v->i;
        return 0;
    }
    if (type == CAF_BT_REAL) {
        switch (kind) {
        case 4:
            v->z = *(const float *)p;
            break;
        case 8:
            v->z = *(const double *)p;
            break;
        case 10:
            v->z = *(const long double *)p;
            break;
        case 16:
            v->z = (long double)*(const _Float128 *)p;
            break;
        default:
            return -1;
        }
    } else if (type == CAF_BT_COMPLEX) {
        switch (kind) {
        case 4:
            v->z = *(const float complex *)p;
            break;
        case 8:
            v->z = *(const double complex *)p;
            break;
        case 10:
            v->z = *(const long double complex *)p;
            break;
        default:
            return -1;
        }
    } else {
        return -1;
    }
    v->i = (__int128)creall(v->z);
    return 0;
}

static int store_number(void *p, int type, int kind, const number_t *v)
{
    if (type == CAF_BT_INTEGER || type == CAF_BT_LOGICAL) {
        __int128 i = v->is_int ? v->i : (__int128)creall(v->z);
        if (type == CAF_BT_LOGICAL) i = i != 0;
        switch (kind) {
        case 1:
            *(int8_t *)p = (int8_t)i;
            return 0;
        case 2:
            *(int16_t *)p = (int16_t)i;
            return 0;
        case 4:
            *(int32_t *)p = (int32_t)i;
            return 0;
        case 8:
            *(int64_t *)p = (int64_t)i;
            return 0;
        case 16:
            *(__int128 *)p = i;
            return 0;
        default:
            return -1;
        }
    }
    long double complex z = v->z;
    if (type == CAF_BT_REAL) {
        switch (kind) {
        case 4:
            *(float *)p = (float)creall(z);
            return 0;
        case 8:
            *(double *)p = (double)creall(z);
            return 0;
        case 10:
            *(long double *)p = creall(z);
            return 0;
        case 16:
            *(_Float128 *)p = (_Float128)creall(z);
            return 0;
        default:
            return -1;
        }
    }
    if (type == CAF_BT_COMPLEX) {
        switch (kind) {
        case 4:
            *(float complex *)p = (float complex)z;
            return 0;
        case 8:
            *(double complex *)p = (double complex)z;
            return 0;
        case 10:
            *(long double complex *)p = z;
            return 0;
        default:
            return -1;
        }
    }
    return -1;
}

static int convert_chars(void *dst, int dst_kind, size_t dst_len, const void *src, int src_kind,
                         size_t src_len)
{
    if (dst_kind != 1 && dst_kind != 4) return -1;
    if (src_kind != 1 && src_kind != 4) return -1;
    size_t dn = dst_len / (size_t)dst_kind, sn = src_len / (size_t)src_kind;
    for (size_t c = 0; c < dn; c++) {
        uint32_t ch = ' ';
        if (c < sn)
            ch = src_kind == 1 ? ((const unsigned char *)src)[c] : ((const uint32_t *)src)[c];
        if (dst_kind == 1)
            ((unsigned char *)dst)[c] = (unsigned char)(ch > 255 ? '?' : ch);
        else
            ((uint32_t *)dst)[c] = ch;
    }
    return 0;
}

int caf_convert(void *dst, int dst_type, int dst_kind, size_t dst_len, const void *src,
                int src_type, int src_kind, size_t src_len)
{
    if (dst_type == src_type && dst_kind == src_kind && dst_len == src_len) {
        memcpy(dst, src, dst_len);
        return 0;
    }
    if (dst_type == CAF_BT_CHARACTER || src_type == CAF_BT_CHARACTER) {
        if (dst_type != src_type) return -1;
        return convert_chars(dst, dst_kind, dst_len, src, src_kind, src_len);
    }
    if (dst_type == CAF_BT_DERIVED || src_type == CAF_BT_DERIVED) {
        if (dst_type != src_type) return -1;
        memcpy(dst, src, dst_len < src_len ? dst_len : src_len);
        return 0;
    }
    number_t v;
    if (load_number(&v, src_type, src_kind, src) != 0) return -1;
    return store_number(dst, dst_type, dst_kind, &v);
}

/* Copies @p n elements between @p to (representation @p t) and @p from (@p f), converting
 * element by element only where the two differ; a one-element @p from (@p repeat) is repeated. */
static int copy_run(char *to, const caf_section_t *t, const char *from, const caf_section_t *f,
                    size_t n, int repeat)
{
    if (!repeat && caf_same_repr(t, f)) {
        memmove(to, from, n * t->elem);
        return 0;
    }
    for (size_t e = 0; e < n; e++)
        if (caf_convert(to + e * t->elem, t->type, t->kind, t->elem,
                        from + (repeat ? 0 : e) * f->elem, f->type, f->kind, f->elem) != 0)
            return -1;
    return 0;
}

/* Both walk the section run by run (caf_section_run): one offset computation and, for equal
 * representations, one copy per run of adjacent elements. */
int caf_unpack(void *base, const caf_section_t *s, const void *packed, const caf_section_t *ps,
               size_t npacked)
{
    size_t run = caf_section_run(s);
    for (size_t j = 0; j < s->n; j += run) {
        const char *from = (const char *)packed + (npacked == 1 ? 0 : j) * ps->elem;
        if (copy_run((char *)base + caf_section_offset(s, j), s, from, ps, run, npacked == 1) != 0)
            return -1;
    }
    return 0;
}

int caf_pack(void *packed, const caf_section_t *ps, const void *base, const caf_section_t *s)
{
    if (s->n == 1) return copy_run(packed, ps, base, s, ps->n, 1); /* repeated */
    /* s may hold more elements than ps takes (caf_section_fits). */
    size_t run = caf_section_run(s);
    for (size_t j = 0; j < ps->n; j += run) {
        size_t n = ps->n - j < run ? ps->n - j : run;
        if (copy_run((char *)packed + j * ps->elem, ps,
                     (const char *)base + caf_section_offset(s, j), s, n, 0) != 0)
            return -1;
    }
    return 0;
}
