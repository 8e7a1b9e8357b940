/*
 * Accumulate: remote x = x op (scale * y), elementwise, atomic per element with respect to
 * other accumulates on the same location. The mechanism depends only on (type, op), never on
 * the count, so that accumulates of any length to one location are atomic with each other
 * (mixing two mechanisms for one pair would let a CAS land between a locked get and put):
 *   - integers (4 and 8 bytes): SUM, BAND, BOR, BXOR, REPLACE as single atomics (CPU
 *     fetch-and-op; over the transport: 8-byte SUM = ADD, 8-byte REPLACE = SWAP, pipelined),
 *     everything else (MIN / MAX, 4-byte over the transport) as compare-and-swap on the
 *     aligned 64-bit word holding the element. Integers keep atomics because every integer op
 *     may hit the same word as another (a locked MIN beside an atomic ADD would lose updates);
 *   - FLOAT, DOUBLE, CPLX and DBLCPLX (SUM only): the target's lock word, taken for the whole
 *     piece. A mapped target is combined in place by a vectorized loop, an unmapped one in
 *     256 KiB chunks (get, combine, put, the next get overlapping), flushed before the unlock.
 *     Per-element CAS was ~50x slower than this at 1 MiB; a small locked accumulate costs two
 *     atomics (lock, unlock) plus the data movement, about what one CAS round costs over the
 *     transport, so the lock is used for every count.
 * Compare-and-swap over the transport is batched: one get of the words, then one CSWAP per
 * word in flight at once; the words whose CSWAP lost a race retry with the value it returned.
 */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/doorbell.h"
#include "runtime/dtype.h"
#include "runtime/flush.h"
#include "util/log.h"
#include "rma/rma_impl.h"
#include "runtime/tp_call.h"
#include "runtime/lock.h"

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

arbor_status_t arb_rma_begin(int rank, arbor_request_h *req_p, arbor_dtype_t dtype, arbor_op_t op,
                             acc_t *acc)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    arbor_status_t status = arb_rma_check_rank(rank);
    if (status != ARBOR_OK) return status;
    if (req_p) *req_p = NULL;
    return acc ? arb_acc_check(dtype, op, acc) : ARBOR_OK;
}

/* y' = scale * y (SUM with a scale), element bits in yb[i] (4-byte kinds in the low half). */
static void scaled(const acc_t *a, const void *src, size_t n, const void *scale, uint64_t *yb)
{
    const uint8_t *s = src;
    for (size_t i = 0; i < n; i++) {
        uint64_t y = 0;
        memcpy(&y, s + i * a->esz, a->esz); /* integers: 4 or 8 bytes */
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
        return x + y;
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
static arbor_status_t acc_tp(const acc_t *a, int rank, arb_tp_rkey_t *key, const word_t *w,
                             size_t nw, arb_tp_comp_t *comp, bool *pending_p)
{
    arbor_status_t status = ARBOR_OK;
    *pending_p = false;
    if (a->esz == 8 && is_int(a->kind) && (a->op == ARBOR_SUM || a->op == ARBOR_REPLACE)) {
        arb_tp_amo_t op = a->op == ARBOR_SUM ? ARB_TP_AMO_ADD : ARB_TP_AMO_SWAP;
        for (size_t i = 0; i < nw && status == ARBOR_OK; i++)
            status = arb_rma_tp_amo(rank, key, w[i].off, op, w[i].y[0], 0, &sink, comp);
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
    status = arb_rma_tp_get(rank, key, first, cur, (size_t)(last - first), &c);
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
            status =
                arb_rma_tp_amo(rank, key, w[i].off, ARB_TP_AMO_CSWAP, want[i], now[i], &res[i], &c);
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

/* ---- the lock path (FLOAT, DOUBLE, CPLX, DBLCPLX) ---------------------------------------- */

/* Takes rank's accumulate lock word (compare-and-swap 0 -> rank + 1), with backoff that drives
 * progress (the holder may need ours to finish its gets and puts). Bounded by ARBOR_TIMEOUT:
 * a holder that keeps it that long (a dead rank) makes the accumulate fail, not hang. */
static arbor_status_t lock_target(int rank)
{
    uint64_t me = (uint64_t)arb_ctx.rank + 1, old = 0;
    double since = 0;
    unsigned polls = 0;
    for (unsigned tries = 0;; tries++) {
        arbor_status_t status =
            arb_rma_amo64(rank, NULL, arb_rma.lock_off, ARB_TP_AMO_CSWAP, me, 0, &old);
        if (status != ARBOR_OK) return status;
        if (old == 0) return ARBOR_OK;
        arb_rma_backoff(&tries); /* may step tries too: the clock has its own count */
        if (++polls % 256) continue;
        double now = arb_now_us();
        if (since == 0) since = now;
        if (arb_ctx.cfg.timeout_s > 0 && now - since > arb_ctx.cfg.timeout_s * 1e6) {
            arb_error("accumulate: the lock of rank %d stayed held by rank %llu for %g s "
                      "(ARBOR_TIMEOUT)",
                      rank, (unsigned long long)old - 1, arb_ctx.cfg.timeout_s);
            return ARBOR_ERR_TIMEOUT;
        }
    }
}

static arbor_status_t unlock_target(int rank)
{
    uint64_t old;
    return arb_rma_amo64(rank, NULL, arb_rma.lock_off, ARB_TP_AMO_SWAP, 0, 0, &old);
}

/* x[i] += scale * y[i] for n elements of kind k. x is aligned to its element (the target offset
 * is checked); y is the caller's buffer, read through memcpy so that any alignment works. Plain
 * loops over one type, which the compiler vectorizes. */
#define DEFINE_COMBINE(name, T)                                                                    \
    static void name(T *restrict x, const uint8_t *restrict y, size_t n, const void *scale)        \
    {                                                                                              \
        T f, v;                                                                                    \
        if (scale) {                                                                               \
            memcpy(&f, scale, sizeof(T));                                                          \
            for (size_t i = 0; i < n; i++) {                                                       \
                memcpy(&v, y + i * sizeof(T), sizeof(T));                                          \
                x[i] += f * v;                                                                     \
            }                                                                                      \
        } else {                                                                                   \
            for (size_t i = 0; i < n; i++) {                                                       \
                memcpy(&v, y + i * sizeof(T), sizeof(T));                                          \
                x[i] += v;                                                                         \
            }                                                                                      \
        }                                                                                          \
    }

DEFINE_COMBINE(combine_f32, float)
DEFINE_COMBINE(combine_f64, double)
DEFINE_COMBINE(combine_c32, float _Complex)
DEFINE_COMBINE(combine_c64, double _Complex)

static void combine(int kind, void *x, const void *y, size_t n, const void *scale)
{
    switch (kind) {
    case K_F32:
        combine_f32(x, y, n, scale);
        break;
    case K_F64:
        combine_f64(x, y, n, scale);
        break;
    case K_C32:
        combine_c32(x, y, n, scale);
        break;
    default:
        combine_c64(x, y, n, scale);
        break;
    }
}

/* Unmapped target: chunks of CHUNK bytes through two local buffers, the get of chunk i + 1 in
 * flight while chunk i is combined and put back; every put complete at the target (flush)
 * before the caller unlocks. */
static arbor_status_t acc_locked_tp(const acc_t *a, int rank, arb_tp_rkey_t *key, uint64_t off,
                                    const uint8_t *src, size_t n, const void *scale)
{
    /* Each chunk's get and put may wait on the target's progress (OFI shm); bigger chunks mean
     * fewer of those waits (measured: 256 KiB chunks beat 64 KiB ones by about a quarter on a
     * 1 MiB accumulate over OFI shm), at the price of two CHUNK buffers. */
    enum { CHUNK = 256 * 1024 };
    size_t bytes = n * a->esz, per = CHUNK - CHUNK % a->esz;
    size_t len = bytes < per ? bytes : per, nchunks = (bytes + per - 1) / per;
    uint8_t *buf[2] = {malloc(len), nchunks > 1 ? malloc(len) : NULL};
    if (!buf[0] || (nchunks > 1 && !buf[1])) {
        free(buf[0]), free(buf[1]);
        return ARBOR_ERR_NO_MEMORY;
    }
    arb_tp_comp_t got[2] = {{0, ARBOR_OK}, {0, ARBOR_OK}}, put[2] = {{0, ARBOR_OK}, {0, ARBOR_OK}};
    arbor_status_t status = arb_rma_tp_get(rank, key, off, buf[0], len, &got[0]);
    for (size_t i = 0; i < nchunks && status == ARBOR_OK; i++) {
        unsigned b = i % 2, nb = b ^ 1;
        size_t at = i * per, cl = bytes - at < per ? bytes - at : per;
        if (i + 1 < nchunks) { /* the next buffer is free once its previous put completed */
            size_t nat = at + per, ncl = bytes - nat < per ? bytes - nat : per;
            status = arb_rma_wait_comp(&put[nb], "accumulate");
            if (status == ARBOR_OK)
                status = arb_rma_tp_get(rank, key, off + nat, buf[nb], ncl, &got[nb]);
            if (status != ARBOR_OK) break;
        }
        if ((status = arb_rma_wait_comp(&got[b], "accumulate")) != ARBOR_OK) break;
        combine(a->kind, buf[b], src + at, cl / a->esz, scale);
        status = arb_rma_tp_put(rank, key, off + at, buf[b], cl, &put[b]);
    }
    /* Whatever happened, nothing may still read or write the buffers once they are freed. */
    for (unsigned b = 0; b < 2; b++) {
        arbor_status_t ws = arb_rma_wait_comp(&got[b], "accumulate");
        if (status == ARBOR_OK) status = ws;
        ws = arb_rma_wait_comp(&put[b], "accumulate");
        if (status == ARBOR_OK) status = ws;
    }
    if (status == ARBOR_OK) status = arb_flush_peers(&rank, 1, "accumulate"); /* at target */
    free(buf[0]), free(buf[1]);
    return status;
}

/* The whole piece under rank's lock: mapped targets are combined in place, the others through
 * acc_locked_tp. The lock is released on every path once the piece is complete at the target. */
static arbor_status_t acc_locked(const acc_t *a, int rank, const arb_rma_target_t *t,
                                 const void *src, size_t n, const void *scale)
{
    arbor_status_t status = lock_target(rank);
    if (status != ARBOR_OK) return status;
    if (t->ptr) {
        /* Under the CPU rule the lock's compare-and-swap and swap are sequentially consistent
         * CPU atomics: they order the combine between them already. A lock taken through the
         * transport orders nothing in this core's view of the mapped memory: fences. */
        bool fences = !arb_rma.cpu_atomics;
        if (fences) __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the previous holder's writes */
        combine(a->kind, t->ptr, src, n, scale);
        if (fences) __atomic_thread_fence(__ATOMIC_SEQ_CST); /* ours before the lock is free */
    } else {
        status = acc_locked_tp(a, rank, t->rkey, t->off, src, n, scale);
    }
    arbor_status_t us = unlock_target(rank);
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
    if (!is_int(a->kind)) return acc_locked(a, rank, tgt, src, n, scale);
    enum { BATCH = 1024 };
    uint64_t yb[BATCH];
    word_t w[BATCH];
    arbor_status_t status = ARBOR_OK;
    arb_tp_comp_t own = {0, ARBOR_OK};
    for (size_t done = 0; done < n && status == ARBOR_OK;) {
        size_t k = n - done < BATCH ? n - done : BATCH;
        scaled(a, (const uint8_t *)src + done * a->esz, k, scale, yb);
        size_t nw = words_of(a, tgt->off + done * a->esz, k, yb, w);
        if (arb_rma_cpu_amo(tgt)) {
            acc_cpu(a, tgt->ptr - tgt->off, w, nw); /* the segment's or a registration's */
            arb_bell_ring(rank);
        } else {
            bool pend;
            status = acc_tp(a, rank, tgt->rkey, w, nw, comp ? comp : &own, &pend);
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
    bool pending;
    if (arb_rma_cpu_amo(&t) || (t.ptr && !is_int(a.kind))) {
        /* Mapped: CPU atomics or the locked in-place combine, complete here (nothing is left
         * in flight, so no request to track it). */
        status = arb_acc_piece(&a, rank, &t, src, count, scale, NULL, &pending);
        if (status != ARBOR_OK) return status;
        return req_p ? arb_rma_req_done_handle(rank, req_p) : ARBOR_OK;
    }
    arb_rma_req_t *req = arb_rma_req_get(rank);
    if (!req) return ARBOR_ERR_NO_MEMORY;
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
    ARB_ENTER();
    arbor_status_t s = acc_any(rank, dst, src, count, dtype, op, scale, NULL, true);
    arb_unlock();
    return s;
}

arbor_status_t arbor_acc_nb(int rank, void *dst, const void *src, size_t count, arbor_dtype_t dtype,
                            arbor_op_t op, const void *scale, arbor_request_h *req_p)
{
    ARB_RMA_LOCKED_NB(req_p, acc_any(rank, dst, src, count, dtype, op, scale, req_p, false));
}
