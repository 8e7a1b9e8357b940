/*
 * Coindexed reads and writes: get, send and sendget on contiguous, strided and
 * vector-subscripted sections, with kind conversion done on this image. A contiguous remote
 * section is one arbor_put / arbor_get, a strided one one arbor strided transfer, a
 * vector-subscripted one an arbor vector transfer.
 */
#include <stdlib.h>
#include <string.h>

#include "caf_section.h"
#include "caf_api.h"
#include "caf_state.h"

/* Strided shape of a remote section against a packed local buffer. */
typedef struct {
    size_t count[ARBOR_MAX_STRIDE_LEVELS + 1];
    ptrdiff_t remote[ARBOR_MAX_STRIDE_LEVELS], local[ARBOR_MAX_STRIDE_LEVELS];
    int levels;
} strided_t;

/* Returns 0, or -1 when the section needs more levels than arbor takes. */
static int strided_shape(const caf_section_t *r, strided_t *st)
{
    size_t run = r->elem, packed = r->elem;
    int i = 0;
    /* Leading dimensions that continue the contiguous run merge into count[0]. */
    while (i < r->rank && (r->extent[i] == 1 || r->stride[i] == (ptrdiff_t)run)) {
        run *= r->extent[i];
        packed *= r->extent[i];
        i++;
    }
    st->count[0] = run;
    st->levels = 0;
    for (; i < r->rank; i++) {
        if (r->extent[i] != 1) {
            if (st->levels == ARBOR_MAX_STRIDE_LEVELS) return -1;
            st->count[st->levels + 1] = r->extent[i];
            st->remote[st->levels] = r->stride[i];
            st->local[st->levels] = (ptrdiff_t)packed;
            st->levels++;
        }
        packed *= r->extent[i];
    }
    return 0;
}

/* Moves the remote section @p r at @p raddr of world rank @p w to or from @p packed. */
arbor_status_t caf_remote_move(int put, int w, char *raddr, const caf_section_t *r, char *packed)
{
    if (r->n == 0) return ARBOR_OK;
    if (w == caf_state.world_rank) {
        /* Our own image: a plain copy per run of adjacent elements (memmove: the two may
         * overlap). */
        size_t run = caf_section_run(r);
        for (size_t j = 0; j < r->n; j += run) {
            char *remote = raddr + caf_section_offset(r, j), *local = packed + j * r->elem;
            if (put)
                memmove(remote, local, run * r->elem);
            else
                memmove(local, remote, run * r->elem);
        }
        return ARBOR_OK;
    }
    if (caf_section_contiguous(r))
        return put ? arbor_put(w, raddr, packed, r->n * r->elem)
                   : arbor_get(w, packed, raddr, r->n * r->elem);
    strided_t st;
    arbor_status_t s;
    if (caf_section_strided(r) && strided_shape(r, &st) == 0) {
        s = put ? arbor_put_strided(w, raddr, st.remote, packed, st.local, st.count, st.levels)
                : arbor_get_strided(w, packed, st.local, raddr, st.remote, st.count, st.levels);
        return s;
    }
    void **rptr = malloc(r->n * sizeof(void *)), **lptr = malloc(r->n * sizeof(void *));
    if (!rptr || !lptr) {
        free(rptr);
        free(lptr);
        return ARBOR_ERR_NO_MEMORY;
    }
    for (size_t j = 0; j < r->n; j++) {
        rptr[j] = raddr + caf_section_offset(r, j);
        lptr[j] = packed + j * r->elem;
    }
    arbor_iov_t iov = {
        .src = put ? lptr : rptr, .dst = put ? rptr : lptr, .count = r->n, .nbytes = r->elem};
    s = put ? arbor_put_vector(w, &iov, 1) : arbor_get_vector(w, &iov, 1);
    free(rptr);
    free(lptr);
    return s;
}

/* The remote base address of a coindexed reference, or NULL (error reported). */
static char *remote_base(caf_coarray_t *c, size_t offset, int image, int *w_p, int *stat)
{
    int w = caf_image_rank(image);
    if (!c || w < 0 || !c->addr[w]) {
        caf_report(stat, NULL, 0, CAF_STAT_ERROR,
                   "libcaf_arbor: image %d is not an image of the coarray's team", image);
        return NULL;
    }
    if (caf_failed_check(w, image, stat, "coindexed access")) return NULL;
    *w_p = w;
    return c->addr[w] + offset;
}

/* Where a transfer on a character coarray starts inside one of its strings (in bytes; 0 at a
 * string's start and for other coarrays). gfortran 12 describes a substring c[i](m:n) by its
 * start and the length of the whole string (inside an expression, with a result length of 0):
 * its end is lost. A transfer that starts inside a string is such a substring. */
static size_t string_offset(const caf_coarray_t *c, size_t offset)
{
    return c->str_len ? offset % c->str_len : 0;
}

/* Refuses a substring transfer whose result cannot be right (see string_offset), with stat or
 * as an error termination; returns nonzero then. Reads into a result no longer than the rest of
 * the string take its first characters, which is the substring's value whenever the result is
 * no longer than the substring. Writes are refused: the substring's end, where padding with
 * blanks stops, is unknown. */
static int substring_refused(const caf_coarray_t *c, size_t offset, int write, size_t result,
                             int *stat)
{
    size_t at = string_offset(c, offset);
    if (!at || (!write && result > 0 && result <= c->str_len - at)) return 0;
    caf_report(stat, NULL, 0, CAF_STAT_ERROR,
               "libcaf_arbor: %s a substring of a coindexed string from its character %zu: "
               "gfortran 12 passes the substring's start but not its end, so the %s cannot be "
               "done right; %s the whole string instead",
               write ? "write to" : "read of", at + 1,
               write ? "write" : "read of a result of this length", write ? "write" : "read");
    return 1;
}

void _gfortran_caf_get(caf_token_t token, size_t offset, int image_index, caf_desc_t *src,
                       caf_vector_t *src_vector, caf_desc_t *dest, int src_kind, int dst_kind,
                       bool may_require_tmp, int *stat)
{
    int w;
    char *raddr = remote_base(token, offset, image_index, &w, stat);
    if (!raddr) return;
    caf_section_t rs, ls;
    int bad = caf_section_init(&rs, src, src_vector, src_kind) |
              caf_section_init(&ls, dest, NULL, dst_kind);
    if (bad || !caf_section_fits(ls.n, rs.n)) {
        caf_report(stat, NULL, 0, CAF_STAT_ERROR, "libcaf_arbor: get: unsupported section");
        goto out;
    }
    if (ls.type == CAF_BT_CHARACTER && substring_refused(token, offset, 0, ls.elem, stat)) goto out;
    /* A character result shorter than the source takes the source's first characters: read
     * only those (a substring's range as gfortran 12 passes it may run past the coarray). */
    if (rs.type == CAF_BT_CHARACTER && ls.type == CAF_BT_CHARACTER && rs.kind == ls.kind &&
        ls.elem > 0 && ls.elem < rs.elem)
        rs.elem = ls.elem;
    int direct =
        !may_require_tmp && rs.n == ls.n && caf_same_repr(&rs, &ls) && caf_section_contiguous(&ls);
    char *packed = direct ? dest->base_addr : malloc(rs.n * rs.elem + 1);
    if (!packed) {
        caf_report(stat, NULL, 0, CAF_STAT_ERROR, "libcaf_arbor: out of memory");
        goto out;
    }
    arbor_status_t s = caf_remote_move(0, w, raddr, &rs, packed);
    if (s == ARBOR_OK && !direct && caf_unpack(dest->base_addr, &ls, packed, &rs, rs.n) != 0)
        caf_report(stat, NULL, 0, CAF_STAT_ERROR, "libcaf_arbor: get: unsupported conversion");
    else
        caf_check(stat, NULL, 0, s, "coindexed read");
    if (!direct) free(packed);
out:
    caf_section_free(&rs);
    caf_section_free(&ls);
}

void _gfortran_caf_send(caf_token_t token, size_t offset, int image_index, caf_desc_t *dest,
                        caf_vector_t *dst_vector, caf_desc_t *src, int dst_kind, int src_kind,
                        bool may_require_tmp, int *stat)
{
    int w;
    char *raddr = remote_base(token, offset, image_index, &w, stat);
    if (!raddr) return;
    caf_section_t rs, ls;
    int bad = caf_section_init(&rs, dest, dst_vector, dst_kind) |
              caf_section_init(&ls, src, NULL, src_kind);
    if (bad || !caf_section_fits(rs.n, ls.n)) {
        caf_report(stat, NULL, 0, CAF_STAT_ERROR, "libcaf_arbor: send: unsupported section");
        goto out;
    }
    if (substring_refused(token, offset, 1, 0, stat)) goto out;
    int direct =
        !may_require_tmp && rs.n == ls.n && caf_same_repr(&rs, &ls) && caf_section_contiguous(&ls);
    char *packed = direct ? src->base_addr : malloc(rs.n * rs.elem + 1);
    if (!packed) {
        caf_report(stat, NULL, 0, CAF_STAT_ERROR, "libcaf_arbor: out of memory");
        goto out;
    }
    if (!direct && caf_pack(packed, &rs, src->base_addr, &ls) != 0) {
        caf_report(stat, NULL, 0, CAF_STAT_ERROR, "libcaf_arbor: send: unsupported conversion");
    } else {
        arbor_status_t s = caf_remote_move(1, w, raddr, &rs, packed);
        /* Later accesses of this image to that image must see this write. */
        if (s == ARBOR_OK && w != caf_state.world_rank) s = arbor_order(w);
        caf_check(stat, NULL, 0, s, "coindexed write");
    }
    if (!direct) free(packed);
out:
    caf_section_free(&rs);
    caf_section_free(&ls);
}

void _gfortran_caf_sendget(caf_token_t dst_token, size_t dst_offset, int dst_image_index,
                           caf_desc_t *dest, caf_vector_t *dst_vector, caf_token_t src_token,
                           size_t src_offset, int src_image_index, caf_desc_t *src,
                           caf_vector_t *src_vector, int dst_kind, int src_kind,
                           bool may_require_tmp, int *stat)
{
    (void)may_require_tmp; /* the data always passes through this image's buffers */
    int wd, ws;
    char *daddr = remote_base(dst_token, dst_offset, dst_image_index, &wd, stat);
    char *saddr = daddr ? remote_base(src_token, src_offset, src_image_index, &ws, stat) : NULL;
    if (!saddr) return;
    caf_section_t ds, ss;
    char *in = NULL, *out = NULL;
    int bad = caf_section_init(&ds, dest, dst_vector, dst_kind) |
              caf_section_init(&ss, src, src_vector, src_kind);
    if (bad || !caf_section_fits(ds.n, ss.n)) {
        caf_report(stat, NULL, 0, CAF_STAT_ERROR, "libcaf_arbor: sendget: unsupported section");
        goto out;
    }
    if (substring_refused(dst_token, dst_offset, 1, 0, stat) ||
        substring_refused(src_token, src_offset, 0, 0, stat))
        goto out;
    in = malloc(ss.n * ss.elem + 1);
    out = malloc(ds.n * ds.elem + 1);
    if (!in || !out) {
        caf_report(stat, NULL, 0, CAF_STAT_ERROR, "libcaf_arbor: out of memory");
        goto out;
    }
    arbor_status_t s = caf_remote_move(0, ws, saddr, &ss, in);
    /* The packed elements in order: a section of ds.n adjacent elements of each representation. */
    caf_section_t dpacked = {.rank = 1,
                             .n = ds.n,
                             .elem = ds.elem,
                             .type = ds.type,
                             .kind = ds.kind,
                             .extent = {ds.n},
                             .stride = {(ptrdiff_t)ds.elem}};
    caf_section_t spacked = {.n = ss.n, .elem = ss.elem, .type = ss.type, .kind = ss.kind};
    if (s == ARBOR_OK && caf_unpack(out, &dpacked, in, &spacked, ss.n) != 0) {
        caf_report(stat, NULL, 0, CAF_STAT_ERROR, "libcaf_arbor: sendget: unsupported conversion");
        goto out;
    }
    if (s == ARBOR_OK) s = caf_remote_move(1, wd, daddr, &ds, out);
    if (s == ARBOR_OK && wd != caf_state.world_rank) s = arbor_order(wd);
    caf_check(stat, NULL, 0, s, "coindexed copy");
out:
    free(in);
    free(out);
    caf_section_free(&ds);
    caf_section_free(&ss);
}
