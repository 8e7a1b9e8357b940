/*
 * Collective subroutines over the current team: co_sum / co_min / co_max on numbers are arbor
 * reductions; co_broadcast is arbor_bcast of the packed bytes. Character min / max and
 * co_reduce gather every image's contribution (arbor_allgather / arbor_gather) and combine them
 * here in image order: gfortran's operator is a Fortran function of any type and calling
 * convention, so it runs on this image rather than inside arbor's reduction engine.
 */
#include <complex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "caf_bcast_keep.h"
#include "caf_section.h"
#include "caf_api.h"
#include "caf_state.h"

/* integer(16): no arbor type computes on it, so user operations do. Its 16-byte elements
 * travel as ARBOR_DBLCPLX (16 bytes on every platform: the reduction moves whole elements and
 * never looks inside them). Created at init, in the same order on every image, so the same
 * value names the same operation everywhere. (real(10) and real(16) cannot be told apart: both
 * come as 16-byte reals, and the collectives' descriptor carries no kind.) */
enum { WIDE_INT128, WIDE_TYPES };
enum { WIDE_SUM, WIDE_MIN, WIDE_MAX, WIDE_OPS };
static arbor_op_t wide_op[WIDE_TYPES][WIDE_OPS];
static int wide_ready;

#define WIDE_COMBINE(name, T, combine)                                                             \
    static void name(void *in, void *inout, size_t len, arbor_dtype_t dtype)                       \
    {                                                                                              \
        (void)dtype;                                                                               \
        for (size_t i = 0; i < len; i++) {                                                         \
            T x, y; /* the buffers need not be 16-byte aligned */                                  \
            memcpy(&x, (char *)in + i * sizeof(T), sizeof(T));                                     \
            memcpy(&y, (char *)inout + i * sizeof(T), sizeof(T));                                  \
            y = combine;                                                                           \
            memcpy((char *)inout + i * sizeof(T), &y, sizeof(T));                                  \
        }                                                                                          \
    }
__extension__ typedef __int128 caf_int128;
WIDE_COMBINE(int128_sum, caf_int128, x + y)
WIDE_COMBINE(int128_min, caf_int128, x < y ? x : y)
WIDE_COMBINE(int128_max, caf_int128, x > y ? x : y)

int caf_coll_init(void)
{
    static arbor_user_fn_t *const fns[WIDE_TYPES][WIDE_OPS] = {
        {int128_sum, int128_min, int128_max}};
    size_t carrier = 0;
    if (arbor_dtype_size(ARBOR_DBLCPLX, &carrier) != ARBOR_OK || carrier != 16) return 0;
    for (int t = 0; t < WIDE_TYPES; t++)
        for (int o = 0; o < WIDE_OPS; o++)
            if (arbor_op_create(fns[t][o], 1, &wide_op[t][o]) != ARBOR_OK) return -1;
    wide_ready = 1;
    return 0;
}

/* The user operation for @p op on a 16-byte integer section, or -1. */
static arbor_op_t wide_op_of(const caf_section_t *s, arbor_op_t op)
{
    int t = s->type == CAF_BT_INTEGER && s->elem == 16 ? WIDE_INT128 : -1;
    int o = op == ARBOR_SUM   ? WIDE_SUM
            : op == ARBOR_MIN ? WIDE_MIN
            : op == ARBOR_MAX ? WIDE_MAX
                              : -1;
    return wide_ready && t >= 0 && o >= 0 ? wide_op[t][o] : -1;
}

/* arbor datatype of one element, or -1 (no arbor reduction for it). */
static int arbor_type_of(const caf_section_t *s)
{
    switch (s->type) {
    case CAF_BT_INTEGER:
        switch (s->elem) {
        case 1:
            return ARBOR_INT8;
        case 2:
            return ARBOR_INT16;
        case 4:
            return ARBOR_INT32;
        case 8:
            return ARBOR_INT64;
        }
        return -1;
    case CAF_BT_REAL:
        switch (s->elem) {
        case 4:
            return ARBOR_FLOAT;
        case 8:
            return ARBOR_DOUBLE;
        case sizeof(long double):
            return s->kind == 10 ? ARBOR_LONGDOUBLE : -1;
        }
        return -1;
    case CAF_BT_COMPLEX:
        switch (s->elem) {
        case 8:
            return ARBOR_CPLX;
        case 16:
            return ARBOR_DBLCPLX;
        case 2 * sizeof(long double):
            return s->kind == 10 ? ARBOR_LONGDBLCPLX : -1;
        }
        return -1;
    }
    return -1;
}

/* The section's elements, packed; *owned says whether the buffer must be freed and copied
 * back. NULL on no memory. */
static char *pack_local(const caf_desc_t *a, const caf_section_t *s, int *owned)
{
    *owned = !caf_section_contiguous(s);
    if (!*owned) return a->base_addr;
    char *buf = malloc(s->n * s->elem + 1);
    if (buf) caf_pack(buf, s, a->base_addr, s);
    return buf;
}

static void unpack_local(caf_desc_t *a, const caf_section_t *s, char *buf, int owned)
{
    if (!owned) return;
    caf_unpack(a->base_addr, s, buf, s, s->n);
    free(buf);
}

/* Character kind from the string length the compiler passes (0: not character data). */
static int char_kind(const caf_desc_t *a, int a_len)
{
    if (a->dtype.type != CAF_BT_CHARACTER || a_len <= 0) return 0;
    return (int)(a->dtype.elem_len / (size_t)a_len);
}

static int check_result_image(int result_image, int *stat, char *errmsg, size_t errmsg_len)
{
    if (result_image < 0 || result_image > caf_state.current->size)
        return caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR,
                          "libcaf_arbor: result_image %d is not an image of the team",
                          result_image);
    return 0;
}

static void reduce_numbers(caf_desc_t *a, int result_image, int *stat, char *errmsg,
                           size_t errmsg_len, arbor_op_t op, const char *what)
{
    caf_section_t s;
    if (check_result_image(result_image, stat, errmsg, errmsg_len)) return;
    int type = -1;
    /* caf_section_init sets what the error paths below read (type, elem) before it can fail. */
    if (caf_section_init(&s, a, NULL, 0) == 0) {
        type = arbor_type_of(&s);
        arbor_op_t wide = type < 0 ? wide_op_of(&s, op) : -1;
        if (wide >= 0) {
            op = wide;
            type = ARBOR_DBLCPLX; /* the 16-byte carrier */
        }
    }
    if (type < 0 && s.type == CAF_BT_REAL && s.elem == 16) {
        caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR,
                   "libcaf_arbor: %s on a 16-byte real is not supported: gfortran passes no kind, "
                   "and real(10) and real(16) are both 16 bytes",
                   what);
        return;
    }
    if (type < 0) {
        caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR,
                   "libcaf_arbor: %s: unsupported type (type %d, %zu bytes)", what, s.type, s.elem);
        return;
    }
    int owned;
    char *buf = pack_local(a, &s, &owned);
    arbor_status_t st = ARBOR_ERR_NO_MEMORY;
    arbor_team_h t = caf_state.current->handle;
    arbor_dtype_t dt = (arbor_dtype_t)type;
    if (buf && !result_image) {
        st = arbor_allreduce(t, ARBOR_IN_PLACE, buf, s.n, dt, op);
    } else if (buf) {
        char *res = malloc(s.n * s.elem + 1);
        if (res) st = arbor_reduce(t, buf, res, s.n, dt, op, result_image - 1);
        if (st == ARBOR_OK && result_image == caf_state.current->rank + 1)
            memcpy(buf, res, s.n * s.elem);
        free(res);
    }
    if (buf) unpack_local(a, &s, buf, owned);
    caf_coll_check(stat, errmsg, errmsg_len, st, what);
}

/* Every image's packed contribution, in image order, on every image (result_image 0) or on
 * result_image only. Returns the gathered buffer (NULL on others or on failure, *st says). */
static char *gather_all(const char *mine, size_t bytes, int result_image, arbor_status_t *st)
{
    const caf_team_s *t = caf_state.current;
    char *all = malloc(bytes * (size_t)t->size + 1);
    if (!all) {
        *st = ARBOR_ERR_NO_MEMORY;
        return NULL;
    }
    *st = result_image ? arbor_gather(t->handle, mine, all, bytes, ARBOR_BYTE, result_image - 1)
                       : arbor_allgather(t->handle, mine, all, bytes, ARBOR_BYTE);
    if (*st != ARBOR_OK || (result_image && result_image != t->rank + 1)) {
        free(all);
        return NULL;
    }
    return all;
}

static int compare_chars(const char *x, const char *y, size_t len, int kind)
{
    if (kind == 4) {
        const uint32_t *a = (const uint32_t *)x, *b = (const uint32_t *)y;
        for (size_t i = 0; i < len / 4; i++)
            if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
        return 0;
    }
    return memcmp(x, y, len);
}

/* Character min / max: gather, then keep the extreme of each element. */
static void minmax_chars(caf_desc_t *a, int a_len, int result_image, int *stat, char *errmsg,
                         size_t errmsg_len, int sign)
{
    caf_section_t s;
    if (check_result_image(result_image, stat, errmsg, errmsg_len)) return;
    if (caf_section_init(&s, a, NULL, char_kind(a, a_len)) != 0) {
        caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR, "libcaf_arbor: bad descriptor");
        return;
    }
    int owned;
    char *buf = pack_local(a, &s, &owned);
    arbor_status_t st = ARBOR_ERR_NO_MEMORY;
    size_t bytes = s.n * s.elem;
    char *all = buf ? gather_all(buf, bytes, result_image, &st) : NULL;
    if (all) {
        for (int r = 1; r < caf_state.current->size; r++)
            for (size_t j = 0; j < s.n; j++) {
                char *best = all + j * s.elem, *cand = all + (size_t)r * bytes + j * s.elem;
                if (sign * compare_chars(cand, best, s.elem, s.kind) > 0)
                    memcpy(best, cand, s.elem);
            }
        memcpy(buf, all, bytes);
        free(all);
    }
    if (buf) unpack_local(a, &s, buf, owned);
    caf_coll_check(stat, errmsg, errmsg_len, st, sign > 0 ? "co_max" : "co_min");
}

void _gfortran_caf_co_sum(caf_desc_t *a, int result_image, int *stat, char *errmsg,
                          size_t errmsg_len)
{
    if (caf_departed_report(stat, errmsg, errmsg_len, "co_sum")) return;
    reduce_numbers(a, result_image, stat, errmsg, errmsg_len, ARBOR_SUM, "co_sum");
}

void _gfortran_caf_co_min(caf_desc_t *a, int result_image, int *stat, char *errmsg, int a_len,
                          size_t errmsg_len)
{
    if (caf_departed_report(stat, errmsg, errmsg_len, "co_min")) return;
    if (a->dtype.type == CAF_BT_CHARACTER)
        minmax_chars(a, a_len, result_image, stat, errmsg, errmsg_len, -1);
    else
        reduce_numbers(a, result_image, stat, errmsg, errmsg_len, ARBOR_MIN, "co_min");
}

void _gfortran_caf_co_max(caf_desc_t *a, int result_image, int *stat, char *errmsg, int a_len,
                          size_t errmsg_len)
{
    if (caf_departed_report(stat, errmsg, errmsg_len, "co_max")) return;
    if (a->dtype.type == CAF_BT_CHARACTER)
        minmax_chars(a, a_len, result_image, stat, errmsg, errmsg_len, 1);
    else
        reduce_numbers(a, result_image, stat, errmsg, errmsg_len, ARBOR_MAX, "co_max");
}

void _gfortran_caf_co_broadcast(caf_desc_t *a, int source_image, int *stat, char *errmsg,
                                size_t errmsg_len)
{
    caf_section_t s;
    if (caf_departed_report(stat, errmsg, errmsg_len, "co_broadcast")) return;
    if (source_image < 1 || source_image > caf_state.current->size) {
        caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR,
                   "libcaf_arbor: co_broadcast: source_image %d is not an image of the team",
                   source_image);
        return;
    }
    if (caf_section_init(&s, a, NULL, 0) != 0) {
        caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR, "libcaf_arbor: bad descriptor");
        return;
    }
    if (s.n * s.elem == 0) { /* zero-sized everywhere (the shape is the same on every image) */
        caf_coll_check(stat, errmsg, errmsg_len, ARBOR_OK, "co_broadcast");
        return;
    }
    if (!a->base_addr) {
        /* gfortran passes each allocatable component of a derived type on its own: one that is
         * not allocated here cannot receive (nor can this runtime allocate it). */
        caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR,
                   "libcaf_arbor: co_broadcast: the data (or one of its allocatable components) "
                   "is not allocated on image %d",
                   caf_state.current->rank + 1);
        return;
    }
    int owned;
    char *buf = pack_local(a, &s, &owned);
    arbor_status_t st = ARBOR_ERR_NO_MEMORY;
    caf_kept_t kept = {0, NULL};
    int receiver = source_image - 1 != caf_state.current->rank;
    if (buf && receiver && a->dtype.type == CAF_BT_DERIVED)
        (void)caf_bcast_keep(&kept, buf, s.n * s.elem); /* on failure nothing is kept */
    if (buf) st = arbor_bcast(caf_state.current->handle, buf, s.n * s.elem, source_image - 1);
    if (buf && kept.n) caf_bcast_restore(&kept, buf);
    if (buf) unpack_local(a, &s, buf, owned);
    if (st == ARBOR_OK) caf_bcast_note(a->base_addr);
    caf_coll_check(stat, errmsg, errmsg_len, st, "co_broadcast");
}

/*
 * acc = opr(acc, x) for one element, calling the user's Fortran function as gfortran compiled
 * it: arguments by value or by reference, by type and size. Returns -1 for a combination this
 * runtime cannot call (derived types: their result comes back by value in registers that
 * depend on the type's fields). @p dry: only say whether it could. The
 * operator's real type is known only here, hence the casts through a generic function type.
 */
#define CALL_OPR(T)                                                                                \
    do {                                                                                           \
        if (dry) break;                                                                            \
        T r = by_value ? ((T(*)(T, T))(void (*)(void))opr)(*(T *)acc, *(const T *)x)               \
                       : ((T(*)(const T *, const T *))(void (*)(void))opr)((const T *)acc,         \
                                                                           (const T *)x);          \
        memcpy(acc, &r, sizeof r);                                                                 \
    } while (0)

static int apply_opr(void *(*opr)(void *, void *), int flags, int dry, const caf_section_t *s,
                     void *acc, const void *x)
{
    int by_value = (flags & CAF_OPR_ARG_VALUE) != 0;
    switch (s->type) {
    case CAF_BT_INTEGER:
    case CAF_BT_LOGICAL:
        switch (s->elem) {
        case 1:
            CALL_OPR(int8_t);
            return 0;
        case 2:
            CALL_OPR(int16_t);
            return 0;
        case 4:
            CALL_OPR(int32_t);
            return 0;
        case 8:
            CALL_OPR(int64_t);
            return 0;
        }
        return -1;
    case CAF_BT_REAL:
        switch (s->elem) {
        case 4:
            CALL_OPR(float);
            return 0;
        case 8:
            CALL_OPR(double);
            return 0;
        }
        return -1;
    case CAF_BT_COMPLEX:
        switch (s->elem) {
        case 8:
            CALL_OPR(float complex);
            return 0;
        case 16:
            CALL_OPR(double complex);
            return 0;
        }
        return -1;
    case CAF_BT_CHARACTER: {
        /* A character function: result by reference with its length, then the arguments and
         * their lengths (all in characters). */
        if (!(flags & CAF_OPR_BYREF) || (s->kind != 1 && s->kind != 4)) return -1;
        if (dry) return 0;
        size_t len = s->elem / (size_t)s->kind;
        char *res = malloc(s->elem + 1);
        if (!res) return -1;
        ((void (*)(char *, size_t, const void *, const void *, size_t, size_t))(void (*)(void))opr)(
            res, len, acc, x, len, len);
        memcpy(acc, res, s->elem);
        free(res);
        return 0;
    }
    }
    return -1;
}

void _gfortran_caf_co_reduce(caf_desc_t *a, void *(*opr)(void *, void *), int opr_flags,
                             int result_image, int *stat, char *errmsg, int a_len,
                             size_t errmsg_len)
{
    caf_section_t s;
    if (caf_departed_report(stat, errmsg, errmsg_len, "co_reduce")) return;
    if (check_result_image(result_image, stat, errmsg, errmsg_len)) return;
    if (!opr || caf_section_init(&s, a, NULL, char_kind(a, a_len)) != 0) {
        caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR, "libcaf_arbor: co_reduce: bad call");
        return;
    }
    if ((opr_flags & CAF_OPR_ARG_DESC) || apply_opr(opr, opr_flags, 1, &s, NULL, NULL) != 0) {
        caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR,
                   "libcaf_arbor: co_reduce on this type (type %d, %zu bytes) is not supported "
                   "by libcaf_arbor",
                   s.type, s.elem);
        return;
    }
    int owned;
    char *buf = pack_local(a, &s, &owned);
    arbor_status_t st = ARBOR_ERR_NO_MEMORY;
    size_t bytes = s.n * s.elem;
    char *all = buf ? gather_all(buf, bytes, result_image, &st) : NULL;
    if (all) {
        /* Image order: ((x1 op x2) op x3) ..., the same on every image. */
        for (int r = 1; r < caf_state.current->size; r++)
            for (size_t j = 0; j < s.n; j++)
                apply_opr(opr, opr_flags, 0, &s, all + j * s.elem,
                          all + (size_t)r * bytes + j * s.elem);
        memcpy(buf, all, bytes);
        free(all);
    }
    if (buf) unpack_local(a, &s, buf, owned);
    caf_coll_check(stat, errmsg, errmsg_len, st, "co_reduce");
}
