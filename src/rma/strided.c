/*
 * Strided (ARMCI PutS / GetS / AccS) and generalized I/O vector (armci_giov_t) transfers.
 *
 * Every count and stride is validated before anything moves, overflow-safe (128-bit
 * arithmetic): the remote extent of the whole pattern must lie in one live allocation, and the
 * local one must not wrap the address space. Then the levels whose pieces are adjacent on both
 * sides are merged into longer pieces, and the pattern runs one operation per piece (memcpy for
 * a mapped target), all in flight at once on one completion counter.
 *
 * Path choice (arb_rma_strided_choose): one operation per piece, or pack (local pack, one
 * transfer, unpack at the target) as the LogGP model predicts cheaper. Packing needs a
 * handler at the target (active messages): until one is registered through
 * arb_rma_strided_pack_register, every pattern goes by pieces. ARBOR_PRINT_ALGORITHM prints
 * each distinct choice with both predictions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/doorbell.h"
#include "util/log.h"
#include "rma/ctx_stream.h"
#include "rma/rma_impl.h"

/* A validated pattern after merging: piece bytes, levels, counts, strides per side. */
typedef struct {
    size_t piece;
    int levels;
    size_t count[ARBOR_MAX_STRIDE_LEVELS];      /* repetitions of each level */
    ptrdiff_t rstride[ARBOR_MAX_STRIDE_LEVELS]; /* remote side */
    ptrdiff_t lstride[ARBOR_MAX_STRIDE_LEVELS]; /* local side */
    size_t npieces;
    size_t total;
    int64_t rlo; /* lowest remote byte relative to the remote base address */
} pattern_t;

static arb_rma_pack_fn pack_fn;

void arb_rma_strided_pack_register(arb_rma_pack_fn fn)
{
    pack_fn = fn;
}

/* Extent of one side: [lo, hi) relative to its base, in 128 bits. */
static void extent(const ptrdiff_t *stride, const size_t *count, int levels, __int128 *lo,
                   __int128 *hi)
{
    __int128 l = 0, h = (__int128)count[0];
    for (int i = 0; i < levels; i++) {
        __int128 span = (__int128)(count[i + 1] - 1) * (__int128)stride[i];
        if (span < 0)
            l += span;
        else
            h += span;
    }
    *lo = l;
    *hi = h;
}

static bool fits_address(const void *base, __int128 lo, __int128 hi)
{
    __int128 b = (__int128)(uintptr_t)base;
    return b + lo >= 0 && b + hi <= (__int128)UINTPTR_MAX;
}

/* Validation and merging. remote: the remote base, rstride its strides; local likewise.
 * dst_is_remote says which side is written (its stride may not be 0 with a count > 1). */
static arbor_status_t pattern_of(const void *remote, const ptrdiff_t *rstride, const void *local,
                                 const ptrdiff_t *lstride, const size_t *count, int levels,
                                 bool dst_remote, pattern_t *p, __int128 *rhi)
{
    if (levels < 0 || levels > ARBOR_MAX_STRIDE_LEVELS) return ARBOR_ERR_COUNT;
    if (!count || (levels > 0 && (!rstride || !lstride))) return ARBOR_ERR_INVALID_ARG;
    size_t total = count[0];
    for (int i = 1; i <= levels; i++)
        if (__builtin_mul_overflow(total, count[i], &total)) return ARBOR_ERR_COUNT;
    for (int i = 0; i < levels; i++) {
        const ptrdiff_t *ds = dst_remote ? rstride : lstride;
        if (count[i + 1] > 1 && count[0] > 0 && ds[i] == 0) return ARBOR_ERR_COUNT;
    }
    p->total = total;
    p->piece = count[0];
    p->levels = 0;
    p->npieces = 0;
    if (total == 0) return ARBOR_OK;
    __int128 llo, lhi, rlo;
    extent(lstride, count, levels, &llo, &lhi);
    extent(rstride, count, levels, &rlo, rhi);
    if (!fits_address(local, llo, lhi) || !fits_address(remote, rlo, *rhi)) return ARBOR_ERR_COUNT;
    p->rlo = (int64_t)rlo;
    /* merge levels adjacent on both sides (only while everything below is one piece) */
    bool flat = true;
    for (int i = 0; i < levels; i++) {
        if (count[i + 1] == 1) continue;
        if (flat && rstride[i] == (ptrdiff_t)p->piece && lstride[i] == (ptrdiff_t)p->piece) {
            p->piece *= count[i + 1];
            continue;
        }
        flat = false;
        p->count[p->levels] = count[i + 1];
        p->rstride[p->levels] = rstride[i];
        p->lstride[p->levels] = lstride[i];
        p->levels++;
    }
    p->npieces = total / p->piece;
    return ARBOR_OK;
}

/* Moves the remote and local offsets r, l to the next piece (an odometer over the levels). */
static inline void next_piece(const pattern_t *p, size_t *idx, int64_t *r, int64_t *l)
{
    for (int i = 0; i < p->levels; i++) {
        if (++idx[i] < p->count[i]) {
            *r += p->rstride[i];
            *l += p->lstride[i];
            return;
        }
        *r -= (int64_t)(idx[i] - 1) * p->rstride[i];
        *l -= (int64_t)(idx[i] - 1) * p->lstride[i];
        idx[i] = 0;
    }
}

/* Calls fn for every piece: remote offset from the remote base, local pointer. */
typedef arbor_status_t (*piece_fn)(void *arg, int64_t roff, uint8_t *lptr, size_t len);

static arbor_status_t for_pieces(const pattern_t *p, uint8_t *local, piece_fn fn, void *arg)
{
    size_t idx[ARBOR_MAX_STRIDE_LEVELS] = {0};
    int64_t r = 0;
    int64_t l = 0;
    for (size_t k = 0; k < p->npieces; k++) {
        arbor_status_t status = fn(arg, r, local + l, p->piece);
        if (status != ARBOR_OK) return status;
        next_piece(p, idx, &r, &l);
    }
    return ARBOR_OK;
}

/* ---- the path choice --------------------------------------------------------------------- */

int arb_rma_strided_choose(size_t piece, size_t npieces, bool mapped)
{
    const arb_logp_t *m = &arb_ctx.model;
    size_t total = piece * npieces;
    double copy_G = 1e-4; /* us per byte of a local copy (~10 GB/s) */
    double t_pieces = m->L + (double)npieces * (m->os + m->g) + (double)total * m->G;
    double t_pack = 2 * (double)total * copy_G + m->os + m->L + (double)total * m->G + m->orecv;
    int choice = !mapped && pack_fn && npieces > 1 && t_pack < t_pieces ? ARB_STRIDED_PACK
                                                                        : ARB_STRIDED_PIECES;
    if (arb_ctx.cfg.print_algorithm) {
        /* once per (pieces, piece size) class and choice */
        static uint64_t seen[64];
        unsigned a = 0, b = 0;
        while ((npieces >> a) > 1 && a < 31) a++;
        while ((piece >> b) > 1 && b < 31) b++;
        uint64_t key = (uint64_t)a << 8 | b << 1 | (unsigned)choice;
        bool fresh = true;
        for (int i = 0; i < 64 && seen[i]; i++) fresh &= seen[i] != key + 1;
        if (fresh) {
            for (int i = 0; i < 64; i++)
                if (!seen[i]) {
                    seen[i] = key + 1;
                    break;
                }
            fprintf(stderr,
                    "arbor: strided pieces=%zu piece_bytes=%zu %s-> %s; predicted: pieces=%.3gus "
                    "pack=%.3gus%s\n",
                    npieces, piece, mapped ? "(mapped) " : "",
                    choice == ARB_STRIDED_PACK ? "pack" : "pieces", t_pieces, t_pack,
                    mapped    ? " (mapped target: pieces are copied in place)"
                    : pack_fn ? ""
                              : " (pack unavailable: needs the target-side unpack handler)");
        }
    }
    return choice;
}

/* ---- running a pattern ------------------------------------------------------------------- */

typedef struct {
    int kind; /* 0 put, 1 get, 2 accumulate */
    int rank;
    uint8_t *rptr;         /* mapped remote byte at base, or NULL */
    int64_t base;          /* segment offset of the remote base address (may be "negative"); in a
                            * registration: the offset from its base */
    arb_tp_rkey_t *key;    /* the remote key (segment or registration) */
    bool reg;              /* the remote range is registered user memory */
    uint8_t *regmap;       /* a registration mapped here (node-shared): its key offset 0 */
    struct arbor_mem *mem; /* the allocation it lies in (its atomics rule), or NULL */
    arb_tp_comp_t *comp;   /* NULL: the implicit counter / complete each piece */
    const acc_t *acc;
    const void *scale;
    bool pending; /* accumulate atomics left in flight on comp */
} run_arg_t;

static arbor_status_t run_piece(void *arg, int64_t r, uint8_t *l, size_t len)
{
    run_arg_t *a = arg;
    uint64_t off = (uint64_t)(a->base + r);
    if (a->kind == 2) {
        arb_rma_target_t t;
        bool pend = false;
        if (a->reg) /* mapped or not, as the contiguous calls find it (the atomics rule) */
            t = (arb_rma_target_t){.rank = a->rank,
                                   .ptr = a->regmap ? a->regmap + off : NULL,
                                   .rkey = a->key,
                                   .off = off,
                                   .reg = true};
        else
            arb_rma_target_at(a->rank, off, &t);
        t.mem = a->mem;
        arbor_status_t status =
            arb_acc_piece(a->acc, a->rank, &t, l, len / a->acc->esz, a->scale, a->comp, &pend);
        a->pending |= pend;
        return status;
    }
    if (a->rptr) {
        if (a->kind == 0)
            memmove(a->rptr + r, l, len);
        else
            memmove(l, a->rptr + r, len);
        return ARBOR_OK;
    }
    return a->kind == 0 ? arb_rma_tp_put(a->rank, a->key, off, l, len, a->comp)
                        : arb_rma_tp_get(a->rank, a->key, off, l, len, a->comp);
}

/* Issues the pieces of an operation whose remote side is already validated, on one request
 * (blocking / explicit) or the implicit counter; then hands the request over. */
typedef arbor_status_t (*issue_fn)(void *ctx, run_arg_t *a);

static arbor_status_t run_op(int kind, int rank, const arb_rma_target_t *t, int64_t base_off,
                             const acc_t *acc, const void *scale, issue_fn issue, void *ctx,
                             arbor_request_h *req_p, bool blocking)
{
    run_arg_t a = {.kind = kind,
                   .rank = rank,
                   .rptr = NULL,
                   .base = base_off,
                   .key = t->rkey,
                   .reg = t->reg,
                   .regmap = t->reg && t->ptr ? t->ptr - t->off : NULL,
                   .mem = t->mem,
                   .acc = acc,
                   .scale = scale};
    if (t->ptr && kind != 2) {
        a.rptr = t->ptr - (int64_t)t->off + base_off; /* byte at the remote base address */
        arbor_status_t status = issue(ctx, &a);
        if (kind == 0) arb_bell_ring(rank); /* after the last piece */
        if (status != ARBOR_OK) return status;
        return req_p ? arb_rma_req_done_handle(rank, req_p) : ARBOR_OK;
    }
    if (!blocking && !req_p && kind != 2) return issue(ctx, &a); /* implicit counter */
    arb_rma_req_t *req = arb_rma_req_get(rank);
    if (!req) return ARBOR_ERR_NO_MEMORY;
    a.comp = &req->comp;
    req->status = issue(ctx, &a);
    if (req->status != ARBOR_OK) {
        arbor_status_t status = req->status;
        arb_rma_req_commit(req, NULL, true); /* what was issued completes; then report */
        return status;
    }
    return arb_rma_req_commit(req, req_p, blocking);
}

/* ---- strided ------------------------------------------------------------------------------- */

typedef struct {
    pattern_t p;
    uint8_t *local;
} strided_ctx_t;

/* One piece between mapped memory and ours, of a size known here so that the copy is a load
 * and a store; through a temporary, so that a piece overlapping itself (a rank's own segment on
 * both sides) reads before it writes, as memmove does. */
#define COPY_PIECE(n)                                                                              \
    do {                                                                                           \
        uint8_t tmp[n];                                                                            \
        memcpy(tmp, from, n);                                                                      \
        memcpy(to, tmp, n);                                                                        \
    } while (0)

/* The pieces of a strided put or get to a mapped target: copies in a loop, where an indirect
 * call per piece (for_pieces) cost a fair part of a pattern of small pieces, and its speed
 * moved with the code's placement in the library. */
static void copy_mapped(const pattern_t *p, uint8_t *local, uint8_t *rbase, bool put)
{
    size_t idx[ARBOR_MAX_STRIDE_LEVELS] = {0};
    int64_t r = 0, l = 0;
    for (size_t k = 0; k < p->npieces; k++) {
        uint8_t *to = put ? rbase + r : local + l;
        const uint8_t *from = put ? local + l : rbase + r;
        switch (p->piece) {
        case 4:
            COPY_PIECE(4);
            break;
        case 8:
            COPY_PIECE(8);
            break;
        case 16:
            COPY_PIECE(16);
            break;
        default:
            memmove(to, from, p->piece);
        }
        next_piece(p, idx, &r, &l);
    }
}

static arbor_status_t issue_strided(void *ctx, run_arg_t *a)
{
    strided_ctx_t *c = ctx;
    if (a->rptr && a->kind != 2) {
        copy_mapped(&c->p, c->local, a->rptr, a->kind == 0);
        return ARBOR_OK;
    }
    return for_pieces(&c->p, c->local, run_piece, a);
}

static arbor_status_t strided_any(int kind, int rank, void *dst, const ptrdiff_t *dst_stride,
                                  const void *src, const ptrdiff_t *src_stride, const size_t *count,
                                  int levels, arbor_dtype_t dtype, arbor_op_t op, const void *scale,
                                  arbor_request_h *req_p, bool blocking)
{
    acc_t acc = {0};
    arbor_status_t status = arb_rma_begin(rank, req_p, dtype, op, kind == 2 ? &acc : NULL);
    if (status != ARBOR_OK) return status;
    bool remote_dst = kind != 1;
    const void *remote = remote_dst ? dst : src;
    const ptrdiff_t *rs = remote_dst ? dst_stride : src_stride;
    strided_ctx_t c;
    c.local = (uint8_t *)(uintptr_t)(remote_dst ? src : dst);
    const ptrdiff_t *ls = remote_dst ? src_stride : dst_stride;
    __int128 rhi = 0;
    status = pattern_of(remote, rs, c.local, ls, count, levels, remote_dst, &c.p, &rhi);
    if (status != ARBOR_OK) return status;
    if (kind == 2 && count[0] % acc.esz) return ARBOR_ERR_COUNT;
    if (c.p.total == 0) return req_p ? arb_rma_req_done_handle(rank, req_p) : ARBOR_OK;
    if (!remote || !c.local) return ARBOR_ERR_BUFFER;
    arb_rma_target_t t;
    const uint8_t *lo = (const uint8_t *)(uintptr_t)((__int128)(uintptr_t)remote + c.p.rlo);
    if ((status = arb_rma_translate(rank, lo, (size_t)(rhi - c.p.rlo), false, &t)) != ARBOR_OK)
        return status;
    int64_t base_off = (int64_t)t.off - c.p.rlo; /* segment offset of the remote base */
    if (kind == 2) {
        bool aligned = (uint64_t)base_off % acc.esz == 0;
        for (int i = 0; i < c.p.levels; i++) aligned &= c.p.rstride[i] % (ptrdiff_t)acc.esz == 0;
        if (!aligned) return ARBOR_ERR_ALIGNMENT;
    }
    if (arb_rma_strided_choose(c.p.piece, c.p.npieces, t.ptr != NULL) == ARB_STRIDED_PACK) {
        /* the pack path belongs to the active-message layer; it falls back on failure */
        arb_rma_strided_desc_t d = {.kind = kind,
                                    .rank = rank,
                                    .base_off = base_off,
                                    .remote = (uint64_t)(uintptr_t)remote,
                                    .piece = c.p.piece,
                                    .npieces = c.p.npieces,
                                    .levels = c.p.levels,
                                    .count = c.p.count,
                                    .rstride = c.p.rstride,
                                    .lstride = c.p.lstride,
                                    .local = c.local,
                                    .dtype = dtype,
                                    .op = op,
                                    .scale = scale};
        status = pack_fn(&d, req_p, blocking);
        if (status != ARBOR_ERR_UNSUPPORTED) return status;
    }
    return run_op(kind, rank, &t, base_off, &acc, scale, issue_strided, &c, req_p, blocking);
}

arbor_status_t arbor_put_strided(int rank, void *dst, const ptrdiff_t dst_stride[], const void *src,
                                 const ptrdiff_t src_stride[], const size_t count[],
                                 int stride_levels)
{
    ARB_RMA_LOCKED(strided_any(0, rank, dst, dst_stride, src, src_stride, count, stride_levels, 0,
                               0, NULL, NULL, true));
}

arbor_status_t arbor_get_strided(int rank, void *dst, const ptrdiff_t dst_stride[], const void *src,
                                 const ptrdiff_t src_stride[], const size_t count[],
                                 int stride_levels)
{
    ARB_RMA_LOCKED(strided_any(1, rank, dst, dst_stride, src, src_stride, count, stride_levels, 0,
                               0, NULL, NULL, true));
}

static arbor_status_t ctx_strided(arbor_ctx_h ctx, int kind, int rank, void *dst,
                                  const ptrdiff_t dst_stride[], const void *src,
                                  const ptrdiff_t src_stride[], const size_t count[],
                                  int stride_levels)
{
    int w;
    arbor_status_t s = arb_rma_ctx_world(ctx, rank, &w);
    if (s != ARBOR_OK) return s;
    /* After what the context's stream posted to the target (ctx_stream.c): location order. */
    if (ctx && (s = arb_rma_ctx_stream_settle(ctx, w)) != ARBOR_OK) return s;
    /* A packed put completes at the target through the active-message layer's fence (transfer.c):
     * the context's quiet and fence run it when the context issued strided operations. */
    ARB_RMA_ON_CTX(ctx, if (ctx) ctx->strided = true;
                   s = strided_any(kind, w, dst, dst_stride, src, src_stride, count, stride_levels,
                                   0, 0, NULL, NULL, true));
    return s;
}

arbor_status_t arbor_ctx_put_strided(arbor_ctx_h ctx, int rank, void *dst,
                                     const ptrdiff_t dst_stride[], const void *src,
                                     const ptrdiff_t src_stride[], const size_t count[],
                                     int stride_levels)
{
    return ctx_strided(ctx, 0, rank, dst, dst_stride, src, src_stride, count, stride_levels);
}

arbor_status_t arbor_ctx_get_strided(arbor_ctx_h ctx, int rank, void *dst,
                                     const ptrdiff_t dst_stride[], const void *src,
                                     const ptrdiff_t src_stride[], const size_t count[],
                                     int stride_levels)
{
    return ctx_strided(ctx, 1, rank, dst, dst_stride, src, src_stride, count, stride_levels);
}

arbor_status_t arbor_put_strided_nb(int rank, void *dst, const ptrdiff_t dst_stride[],
                                    const void *src, const ptrdiff_t src_stride[],
                                    const size_t count[], int stride_levels, arbor_request_h *req_p)
{
    ARB_RMA_LOCKED_NB(req_p, strided_any(0, rank, dst, dst_stride, src, src_stride, count,
                                         stride_levels, 0, 0, NULL, req_p, false));
}

arbor_status_t arbor_get_strided_nb(int rank, void *dst, const ptrdiff_t dst_stride[],
                                    const void *src, const ptrdiff_t src_stride[],
                                    const size_t count[], int stride_levels, arbor_request_h *req_p)
{
    ARB_RMA_LOCKED_NB(req_p, strided_any(1, rank, dst, dst_stride, src, src_stride, count,
                                         stride_levels, 0, 0, NULL, req_p, false));
}

arbor_status_t arbor_acc_strided(int rank, void *dst, const ptrdiff_t dst_stride[], const void *src,
                                 const ptrdiff_t src_stride[], const size_t count[],
                                 int stride_levels, arbor_dtype_t dtype, arbor_op_t op,
                                 const void *scale)
{
    ARB_RMA_LOCKED(strided_any(2, rank, dst, dst_stride, src, src_stride, count, stride_levels,
                               dtype, op, scale, NULL, true));
}

arbor_status_t arbor_acc_strided_nb(int rank, void *dst, const ptrdiff_t dst_stride[],
                                    const void *src, const ptrdiff_t src_stride[],
                                    const size_t count[], int stride_levels, arbor_dtype_t dtype,
                                    arbor_op_t op, const void *scale, arbor_request_h *req_p)
{
    ARB_RMA_LOCKED_NB(req_p, strided_any(2, rank, dst, dst_stride, src, src_stride, count,
                                         stride_levels, dtype, op, scale, req_p, false));
}

/* ---- I/O vectors ----------------------------------------------------------------------------- */

typedef struct {
    const arbor_iov_t *iov;
    size_t niov;
    bool remote_dst;
    int64_t *roff;          /* validated segment offset of every remote segment */
    arb_tp_rkey_t **rkey;   /* its key (segment, or one registration) */
    bool *reg;              /* whether it lies in registered memory */
    struct arbor_mem **mem; /* the allocation it lies in (NULL: registered) */
    uint8_t **regmap;       /* a registration mapped here: its key offset 0 (else NULL) */
} vec_ctx_t;

static arbor_status_t issue_vector(void *ctx, run_arg_t *a)
{
    vec_ctx_t *c = ctx;
    size_t k = 0;
    for (size_t j = 0; j < c->niov; j++)
        for (size_t i = 0; i < c->iov[j].count; i++, k++) {
            if (!c->iov[j].nbytes) continue;
            uint8_t *l = c->remote_dst ? c->iov[j].src[i] : c->iov[j].dst[i];
            a->key = c->rkey[k];
            a->reg = c->reg[k];
            a->mem = c->mem[k];
            a->regmap = c->regmap[k];
            arbor_status_t status = run_piece(a, c->roff[k], l, c->iov[j].nbytes);
            if (status != ARBOR_OK) return status;
        }
    return ARBOR_OK;
}

static arbor_status_t vector_any(int kind, int rank, const arbor_iov_t *iov, size_t niov,
                                 arbor_dtype_t dtype, arbor_op_t op, const void *scale,
                                 arbor_request_h *req_p, bool blocking)
{
    acc_t acc = {0};
    arbor_status_t status = arb_rma_begin(rank, req_p, dtype, op, kind == 2 ? &acc : NULL);
    if (status != ARBOR_OK) return status;
    if (niov && !iov) return ARBOR_ERR_INVALID_ARG;
    size_t nseg = 0;
    for (size_t j = 0; j < niov; j++) {
        if (__builtin_add_overflow(nseg, iov[j].count, &nseg)) return ARBOR_ERR_COUNT;
        if (iov[j].count && iov[j].nbytes && (!iov[j].src || !iov[j].dst)) return ARBOR_ERR_BUFFER;
        if (kind == 2 && iov[j].nbytes % acc.esz) return ARBOR_ERR_COUNT;
    }
    if (nseg > SIZE_MAX / sizeof(int64_t)) return ARBOR_ERR_COUNT;
    size_t nalloc = nseg ? nseg : 1;
    vec_ctx_t c = {iov,
                   niov,
                   kind != 1,
                   malloc(sizeof(int64_t) * nalloc),
                   malloc(sizeof(arb_tp_rkey_t *) * nalloc),
                   malloc(sizeof(bool) * nalloc),
                   malloc(sizeof(struct arbor_mem *) * nalloc),
                   malloc(sizeof(uint8_t *) * nalloc)};
    if (!c.roff || !c.rkey || !c.reg || !c.mem || !c.regmap) {
        free(c.roff), free(c.rkey), free(c.reg), free(c.mem), free(c.regmap);
        return ARBOR_ERR_NO_MEMORY;
    }
    /* validate every segment before anything moves */
    size_t k = 0;
    arb_rma_target_t t = {0}, first = {0};
    bool any = false, any_reg = false;
    for (size_t j = 0; j < niov && status == ARBOR_OK; j++)
        for (size_t i = 0; i < iov[j].count && status == ARBOR_OK; i++, k++) {
            if (!iov[j].nbytes) continue;
            const void *r = c.remote_dst ? iov[j].dst[i] : iov[j].src[i];
            const void *l = c.remote_dst ? iov[j].src[i] : iov[j].dst[i];
            if (!r || !l) {
                status = ARBOR_ERR_BUFFER;
                break;
            }
            if ((status = arb_rma_translate(rank, r, iov[j].nbytes, false, &t)) != ARBOR_OK) break;
            if (kind == 2 && t.off % acc.esz) status = ARBOR_ERR_ALIGNMENT;
            c.roff[k] = (int64_t)t.off;
            c.rkey[k] = t.rkey;
            c.reg[k] = t.reg;
            c.mem[k] = t.mem;
            c.regmap[k] = t.reg && t.ptr ? t.ptr - t.off : NULL;
            if (!any) first = t;
            /* mapped copies need every segment mapped: one registered segment sends them all
             * through the transport (segment keys reach mapped peers too) */
            if (t.reg) any_reg = true;
            any = true;
        }
    if (status == ARBOR_OK && !any) {
        free(c.roff), free(c.rkey), free(c.reg), free(c.mem), free(c.regmap);
        return req_p ? arb_rma_req_done_handle(rank, req_p) : ARBOR_OK;
    }
    if (status == ARBOR_OK) {
        /* offsets are absolute: the "base" is segment offset 0 */
        arb_rma_target_t base = first;
        base.off = first.off; /* run_op derives the mapped segment start from ptr - off */
        if (any_reg) base.ptr = NULL;
        status = run_op(kind, rank, &base, 0, &acc, scale, issue_vector, &c, req_p, blocking);
    }
    free(c.roff), free(c.rkey), free(c.reg), free(c.mem), free(c.regmap);
    return status;
}

arbor_status_t arbor_put_vector(int rank, const arbor_iov_t *iov, size_t niov)
{
    ARB_RMA_LOCKED(vector_any(0, rank, iov, niov, 0, 0, NULL, NULL, true));
}

arbor_status_t arbor_get_vector(int rank, const arbor_iov_t *iov, size_t niov)
{
    ARB_RMA_LOCKED(vector_any(1, rank, iov, niov, 0, 0, NULL, NULL, true));
}

arbor_status_t arbor_put_vector_nb(int rank, const arbor_iov_t *iov, size_t niov,
                                   arbor_request_h *req_p)
{
    ARB_RMA_LOCKED_NB(req_p, vector_any(0, rank, iov, niov, 0, 0, NULL, req_p, false));
}

arbor_status_t arbor_get_vector_nb(int rank, const arbor_iov_t *iov, size_t niov,
                                   arbor_request_h *req_p)
{
    ARB_RMA_LOCKED_NB(req_p, vector_any(1, rank, iov, niov, 0, 0, NULL, req_p, false));
}

arbor_status_t arbor_acc_vector(int rank, const arbor_iov_t *iov, size_t niov, arbor_dtype_t dtype,
                                arbor_op_t op, const void *scale)
{
    ARB_RMA_LOCKED(vector_any(2, rank, iov, niov, dtype, op, scale, NULL, true));
}

arbor_status_t arbor_acc_vector_nb(int rank, const arbor_iov_t *iov, size_t niov,
                                   arbor_dtype_t dtype, arbor_op_t op, const void *scale,
                                   arbor_request_h *req_p)
{
    ARB_RMA_LOCKED_NB(req_p, vector_any(2, rank, iov, niov, dtype, op, scale, req_p, false));
}
