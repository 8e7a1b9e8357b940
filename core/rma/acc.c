/*
 * Accumulate: remote x = x op (scale * y), elementwise, atomic per element with respect to
 * other accumulates on the same location. The mechanism depends only on (type, op), never on
 * the count, so that accumulates of any length to one location are atomic with each other:
 *   - integers (4 and 8 bytes): SUM, BAND, BOR, BXOR, REPLACE as single atomics (CPU
 *     fetch-and-op; over the transport: 8-byte SUM = ADD, 8-byte REPLACE = SWAP, pipelined),
 *     everything else (MIN / MAX, 4-byte over the transport) as compare-and-swap on the
 *     aligned 64-bit word holding the element;
 *   - FLOAT, DOUBLE and CPLX (float complex, one 64-bit word): compare-and-swap;
 *   - DBLCPLX (16 bytes, no 128-bit atomic in the transports): a lock word per target
 *     (compare-and-swap spin with progress), held for get, compute, put; released once the put
 *     is complete at the target.
 * Compare-and-swap over the transport is batched: one get of the words, then one CSWAP per
 * word in flight at once; the words whose CSWAP lost a race retry with the value it returned.
 */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "core/log.h"
#include "core/rma/rma_impl.h"

static int kind_of(arbor_dtype_t dt)
{
    size_t s = arb_dtype_size(dt);
    switch (dt) {
    case ARBOR_INT32:
    case ARBOR_INT64:
    case ARBOR_INT:
    case ARBOR_LONG:
    case ARBOR_LONGLONG:
        return s == 4 ? K_I32 : s == 8 ? K_I64 : K_NONE;
    case ARBOR_UINT32:
    case ARBOR_UINT64:
    case ARBOR_UINT:
    case ARBOR_ULONG:
    case ARBOR_ULONGLONG:
        return s == 4 ? K_U32 : s == 8 ? K_U64 : K_NONE;
    case ARBOR_FLOAT:
        return K_F32;
    case ARBOR_DOUBLE:
        return K_F64;
    case ARBOR_CPLX:
        return K_C32;
    case ARBOR_DBLCPLX:
        return K_C64;
    default:
        return K_NONE;
    }
}

static bool is_int(int k)
{
    return k <= K_U64;
}

arbor_status_t arb_acc_check(arbor_dtype_t dtype, arbor_op_t op, acc_t *a)
{
    if ((unsigned)dtype >= ARBOR_DTYPE_COUNT) return ARBOR_ERR_DATATYPE;
    int k = kind_of(dtype);
    if (k == K_NONE) return ARBOR_ERR_OP;
    bool ok = op == ARBOR_SUM ||
              (is_int(k) && (op == ARBOR_MIN || op == ARBOR_MAX || op == ARBOR_BAND ||
                             op == ARBOR_BOR || op == ARBOR_BXOR || op == ARBOR_REPLACE));
    if (!ok) return ARBOR_ERR_OP;
    a->kind = k;
    a->esz = (unsigned)arb_dtype_size(dtype);
    a->op = op;
    return ARBOR_OK;
}

/* y' = scale * y (SUM with a scale), element bits in yb[i] (4-byte kinds in the low half). */
static void scaled(const acc_t *a, const void *src, size_t n, const void *scale, uint64_t *yb)
{
    const uint8_t *s = src;
    for (size_t i = 0; i < n; i++) {
        uint64_t y = 0;
        memcpy(&y, s + i * a->esz, a->esz); /* 4 or 8 bytes (16-byte kinds take the lock) */
        if (scale && a->op == ARBOR_SUM) {
            switch (a->kind) {
            case K_I32:
            case K_U32: {
                uint32_t f, v = (uint32_t)y;
                memcpy(&f, scale, 4);
                y = (uint32_t)(v * f);
                break;
            }
            case K_I64:
            case K_U64: {
                uint64_t f;
                memcpy(&f, scale, 8);
                y *= f;
                break;
            }
            case K_F32: {
                float f, v;
                memcpy(&f, scale, 4);
                memcpy(&v, &y, 4);
                v *= f;
                y = 0;
                memcpy(&y, &v, 4);
                break;
            }
            case K_F64: {
                double f, v;
                memcpy(&f, scale, 8);
                memcpy(&v, &y, 8);
                v *= f;
                memcpy(&y, &v, 8);
                break;
            }
            case K_C32: {
                float _Complex f, v;
                memcpy(&f, scale, 8);
                memcpy(&v, &y, 8);
                v *= f;
                memcpy(&y, &v, 8);
                break;
            }
            }
        }
        yb[i] = y;
    }
}

/* x op y on element bits. */
static uint64_t comb(const acc_t *a, uint64_t x, uint64_t y)
{
    switch (a->op) {
    case ARBOR_REPLACE:
        return y;
    case ARBOR_BAND:
        return x & y;
    case ARBOR_BOR:
        return x | y;
    case ARBOR_BXOR:
        return x ^ y;
    case ARBOR_MIN:
    case ARBOR_MAX: {
        bool less;
        if (a->kind == K_I32)
            less = (int32_t)(uint32_t)x < (int32_t)(uint32_t)y;
        else if (a->kind == K_I64)
            less = (int64_t)x < (int64_t)y;
        else
            less = x < y;
        return (a->op == ARBOR_MIN) == less ? x : y;
    }
    default: /* SUM */
        switch (a->kind) {
        case K_F32: {
            float fx, fy;
            uint32_t x32 = (uint32_t)x, y32 = (uint32_t)y;
            memcpy(&fx, &x32, 4);
            memcpy(&fy, &y32, 4);
            fx += fy;
            memcpy(&x32, &fx, 4);
            return x32;
        }
        case K_F64: {
            double dx, dy;
            memcpy(&dx, &x, 8);
            memcpy(&dy, &y, 8);
            dx += dy;
            memcpy(&x, &dx, 8);
            return x;
        }
        case K_C32: {
            float _Complex cx, cy;
            memcpy(&cx, &x, 8);
            memcpy(&cy, &y, 8);
            cx += cy;
            memcpy(&x, &cx, 8);
            return x;
        }
        default:
            return x + y;
        }
    }
}

/* A word of the target range: which 4-byte lanes are ours and their operands. */
typedef struct {
    uint64_t off;   /* segment offset of the 8-byte word */
    unsigned lanes; /* bit 0: low half (or the whole word for 8-byte kinds), bit 1: high half */
    uint64_t y[2];
} word_t;

static uint64_t word_apply(const acc_t *a, const word_t *w, uint64_t cur)
{
    if (a->esz == 8) return comb(a, cur, w->y[0]);
    uint64_t out = cur;
    for (unsigned l = 0; l < 2; l++) {
        if (!(w->lanes & (1u << l))) continue;
        uint64_t x = (cur >> (32 * l)) & 0xffffffffu;
        uint64_t nx = comb(a, x, w->y[l]) & 0xffffffffu;
        out = (out & ~((uint64_t)0xffffffffu << (32 * l))) | (nx << (32 * l));
    }
    return out;
}

/* The words covering n elements at off. */
static size_t words_of(const acc_t *a, uint64_t off, size_t n, const uint64_t *yb, word_t *w)
{
    size_t nw = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t b = off + i * a->esz, wo = b & ~(uint64_t)7;
        if (nw == 0 || w[nw - 1].off != wo) w[nw++] = (word_t){wo, 0, {0, 0}};
        unsigned l = a->esz == 8 ? 0 : (unsigned)(b & 7) / 4;
        w[nw - 1].lanes |= 1u << l;
        w[nw - 1].y[l] = yb[i];
    }
    return nw;
}

/* One CPU atomic applying op to a lane. The __atomic builtins are type-generic, so one body
 * serves both lane widths. */
#define DEFINE_ATOMIC_OP(name, T)                                                                  \
    static void name(arbor_op_t op, T *p, T y)                                                     \
    {                                                                                              \
        switch (op) {                                                                              \
        case ARBOR_SUM:                                                                            \
            __atomic_fetch_add(p, y, __ATOMIC_SEQ_CST);                                            \
            break;                                                                                 \
        case ARBOR_BAND:                                                                           \
            __atomic_fetch_and(p, y, __ATOMIC_SEQ_CST);                                            \
            break;                                                                                 \
        case ARBOR_BOR:                                                                            \
            __atomic_fetch_or(p, y, __ATOMIC_SEQ_CST);                                             \
            break;                                                                                 \
        case ARBOR_BXOR:                                                                           \
            __atomic_fetch_xor(p, y, __ATOMIC_SEQ_CST);                                            \
            break;                                                                                 \
        default:                                                                                   \
            __atomic_exchange_n(p, y, __ATOMIC_SEQ_CST);                                           \
            break;                                                                                 \
        }                                                                                          \
    }

DEFINE_ATOMIC_OP(atomic_op64, uint64_t)
DEFINE_ATOMIC_OP(atomic_op32, uint32_t)

/* CPU path: one atomic per element where the CPU has it, else a CAS loop on the word. */
static void acc_cpu(const acc_t *a, uint8_t *seg, const word_t *w, size_t nw)
{
    bool direct = is_int(a->kind) && a->op != ARBOR_MIN && a->op != ARBOR_MAX;
    for (size_t i = 0; i < nw; i++) {
        if (direct) {
            for (unsigned l = 0; l < (a->esz == 8 ? 1u : 2u); l++) {
                if (!(w[i].lanes & (1u << l))) continue;
                if (a->esz == 8)
                    atomic_op64(a->op, (uint64_t *)(seg + w[i].off), w[i].y[0]);
                else
                    atomic_op32(a->op, (uint32_t *)(seg + w[i].off) + l, (uint32_t)w[i].y[l]);
            }
            continue;
        }
        uint64_t *p = (uint64_t *)(seg + w[i].off), cur = __atomic_load_n(p, __ATOMIC_RELAXED);
        for (;;) {
            uint64_t want = word_apply(a, &w[i], cur);
            if (want == cur || __atomic_compare_exchange_n(p, &cur, want, false, __ATOMIC_SEQ_CST,
                                                           __ATOMIC_RELAXED))
                break;
        }
    }
}

static uint64_t sink; /* results nobody reads (SWAP of REPLACE) */

/* Transport path. */
static arbor_status_t acc_tp(const acc_t *a, int rank, const word_t *w, size_t nw,
                             arb_tp_comp_t *comp, bool *pending_p)
{
    arbor_status_t status = ARBOR_OK;
    *pending_p = false;
    if (a->esz == 8 && is_int(a->kind) && (a->op == ARBOR_SUM || a->op == ARBOR_REPLACE)) {
        arb_tp_amo_t op = a->op == ARBOR_SUM ? ARB_TP_AMO_ADD : ARB_TP_AMO_SWAP;
        for (size_t i = 0; i < nw && status == ARBOR_OK; i++)
            status = arb_rma_tp_amo(rank, w[i].off, op, w[i].y[0], 0, &sink, comp);
        *pending_p = true; /* the caller waits (or hands comp to a request) */
        return status;
    }
    /* CAS batch: read the words, CSWAP each, retry the losers. */
    uint64_t first = w[0].off, last = w[nw - 1].off + 8;
    uint64_t *cur = malloc(sizeof(uint64_t) * (size_t)((last - first) / 8));
    uint64_t *seen = malloc(sizeof(uint64_t) * nw), *want = malloc(sizeof(uint64_t) * nw);
    bool *todo = malloc(sizeof(bool) * nw);
    if (!cur || !seen || !want || !todo) {
        free(cur), free(seen), free(want), free(todo);
        return ARBOR_ERR_NO_MEMORY;
    }
    arb_tp_comp_t c = {0, ARBOR_OK};
    status = arb_rma_tp_get(rank, first, cur, (size_t)(last - first), &c);
    if (status == ARBOR_OK) status = arb_rma_wait_comp(&c, "accumulate");
    uint64_t *now = seen; /* reuse: the current value of word i */
    for (size_t i = 0; i < nw; i++) {
        now[i] = cur[(w[i].off - first) / 8];
        todo[i] = true;
    }
    free(cur);
    unsigned rounds = 0;
    for (size_t left = nw; status == ARBOR_OK && left > 0; rounds++) {
        uint64_t *res = malloc(sizeof(uint64_t) * nw);
        if (!res) {
            status = ARBOR_ERR_NO_MEMORY;
            break;
        }
        c = (arb_tp_comp_t){0, ARBOR_OK};
        for (size_t i = 0; i < nw && status == ARBOR_OK; i++) {
            if (!todo[i]) continue;
            want[i] = word_apply(a, &w[i], now[i]);
            if (want[i] == now[i]) {
                todo[i] = false;
                left--;
                continue;
            }
            status = arb_rma_tp_amo(rank, w[i].off, ARB_TP_AMO_CSWAP, want[i], now[i], &res[i], &c);
        }
        arbor_status_t ws = arb_rma_wait_comp(&c, "accumulate");
        if (status == ARBOR_OK) status = ws;
        for (size_t i = 0; i < nw && status == ARBOR_OK; i++) {
            if (!todo[i] || want[i] == now[i]) continue;
            if (res[i] == now[i]) {
                todo[i] = false;
                left--;
            } else {
                now[i] = res[i];
            }
        }
        free(res);
        if (rounds > 8) {
            unsigned t = rounds;
            arb_rma_backoff(&t);
        }
    }
    free(seen), free(want), free(todo);
    return status;
}

/* ---- the lock path (DBLCPLX) ------------------------------------------------------------ */

static arbor_status_t lock_target(int rank)
{
    uint64_t me = (uint64_t)arb_ctx.rank + 1, old = 0;
    for (unsigned tries = 0;; tries++) {
        arbor_status_t status =
            arb_rma_amo64(rank, arb_rma.lock_off, ARB_TP_AMO_CSWAP, me, 0, &old);
        if (status != ARBOR_OK) return status;
        if (old == 0) return ARBOR_OK;
        arb_rma_backoff(&tries);
    }
}

static arbor_status_t unlock_target(int rank)
{
    uint64_t old;
    return arb_rma_amo64(rank, arb_rma.lock_off, ARB_TP_AMO_SWAP, 0, 0, &old);
}

static arbor_status_t acc_locked(const acc_t *a, int rank, const arb_rma_target_t *t,
                                 const void *src, size_t n, const void *scale)
{
    size_t bytes = n * a->esz;
    double _Complex *x = malloc(bytes), f = 1;
    if (!x) return ARBOR_ERR_NO_MEMORY;
    if (scale) memcpy(&f, scale, sizeof(f));
    arbor_status_t status = lock_target(rank);
    if (status != ARBOR_OK) {
        free(x);
        return status;
    }
    arb_tp_comp_t c = {0, ARBOR_OK};
    if (t->ptr)
        memcpy(x, t->ptr, bytes);
    else if ((status = arb_rma_tp_get(rank, t->off, x, bytes, &c)) == ARBOR_OK)
        status = arb_rma_wait_comp(&c, "accumulate");
    if (status == ARBOR_OK) {
        const uint8_t *s = src;
        for (size_t i = 0; i < n; i++) {
            double _Complex y;
            memcpy(&y, s + i * sizeof(y), sizeof(y));
            x[i] += f * y;
        }
        if (t->ptr) {
            memcpy(t->ptr, x, bytes);
            __atomic_thread_fence(__ATOMIC_SEQ_CST);
        } else if ((status = arb_rma_tp_put(rank, t->off, x, bytes, &c)) == ARBOR_OK &&
                   (status = arb_rma_wait_comp(&c, "accumulate")) == ARBOR_OK) {
            status = arb_ctx.tp_ops->flush(arb_ctx.tp); /* complete at the target first */
        }
    }
    arbor_status_t us = unlock_target(rank);
    free(x);
    return status != ARBOR_OK ? status : us;
}

/* ---- entry ------------------------------------------------------------------------------ */

/* One contiguous piece of n elements at segment offset tgt->off of rank. With comp non-NULL,
 * pipelined atomics may stay in flight on it (*pending_p); else the piece is complete. */
arbor_status_t arb_acc_piece(const acc_t *a, int rank, const arb_rma_target_t *tgt, const void *src,
                             size_t n, const void *scale, arb_tp_comp_t *comp, bool *pending_p)
{
    *pending_p = false;
    if (n == 0) return ARBOR_OK;
    if (a->kind == K_C64) return acc_locked(a, rank, tgt, src, n, scale);
    enum { BATCH = 1024 };
    uint64_t yb[BATCH];
    word_t w[BATCH];
    arbor_status_t status = ARBOR_OK;
    arb_tp_comp_t own = {0, ARBOR_OK};
    for (size_t done = 0; done < n && status == ARBOR_OK;) {
        size_t k = n - done < BATCH ? n - done : BATCH;
        scaled(a, (const uint8_t *)src + done * a->esz, k, scale, yb);
        size_t nw = words_of(a, tgt->off + done * a->esz, k, yb, w);
        if (arb_rma.cpu_atomics && tgt->ptr) {
            acc_cpu(a, arb_rma.peer_seg[rank], w, nw);
        } else {
            bool pend;
            status = acc_tp(a, rank, w, nw, comp ? comp : &own, &pend);
            if (pend) *pending_p = true;
        }
        done += k;
    }
    if (!comp && *pending_p) {
        arbor_status_t ws = arb_rma_wait_comp(&own, "accumulate");
        if (status == ARBOR_OK) status = ws;
        *pending_p = false;
    }
    return status;
}

static arbor_status_t acc_any(int rank, void *dst, const void *src, size_t count,
                              arbor_dtype_t dtype, arbor_op_t op, const void *scale,
                              arbor_request_h *req_p, bool blocking)
{
    acc_t a;
    arbor_status_t status = arb_rma_begin(rank, req_p, dtype, op, &a);
    if (status != ARBOR_OK) return status;
    if (count > SIZE_MAX / a.esz) return ARBOR_ERR_COUNT;
    if (count == 0) return req_p ? arb_rma_req_done_handle(rank, req_p) : ARBOR_OK;
    if (!src) return ARBOR_ERR_BUFFER;
    arb_rma_target_t t;
    if ((status = arb_rma_translate(rank, dst, count * a.esz, false, &t)) != ARBOR_OK)
        return status;
    if (t.off % a.esz) return ARBOR_ERR_ALIGNMENT;
    arb_rma_req_t *req = arb_rma_req_get(rank);
    if (!req) return ARBOR_ERR_NO_MEMORY;
    bool pending;
    status = arb_acc_piece(&a, rank, &t, src, count, scale, &req->comp, &pending);
    req->status = status;
    if (status != ARBOR_OK) {
        arb_rma_req_commit(req, NULL, true);
        return status;
    }
    return arb_rma_req_commit(req, req_p, blocking);
}

arbor_status_t arbor_acc(int rank, void *dst, const void *src, size_t count, arbor_dtype_t dtype,
                         arbor_op_t op, const void *scale)
{
    arb_lock();
    arbor_status_t s = acc_any(rank, dst, src, count, dtype, op, scale, NULL, true);
    arb_unlock();
    return s;
}

arbor_status_t arbor_acc_nb(int rank, void *dst, const void *src, size_t count, arbor_dtype_t dtype,
                            arbor_op_t op, const void *scale, arbor_request_h *req_p)
{
    arb_lock();
    arbor_status_t s = acc_any(rank, dst, src, count, dtype, op, scale, req_p, false);
    arb_unlock();
    return s;
}
