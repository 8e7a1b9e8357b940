/*
 * Remote atomics on 32- and 64-bit words. The transport has 64-bit ADD / FADD / SWAP / CSWAP
 * only; the rest is built from them:
 *   FETCH = FADD 0, SET = SWAP (result dropped), AND / OR / XOR and their fetching forms =
 *   compare-and-swap loops; 32-bit operations = a compare-and-swap loop on the aligned 64-bit
 *   word holding them (the other half is compared too, so nothing next to it is lost).
 * Mechanism (docs/ONESIDED.md): CPU atomics (__atomic builtins) on mapped memory when
 * arb_rma.cpu_atomics, else the transport for every target, this rank included. One rule per
 * job, so every atomic on a word uses one mechanism.
 * Single transport operations (64-bit FETCH, SET, ADD, SWAP, CSWAP, FADD) are truly
 * non-blocking in the _nb form; loops complete inside the call (the handle comes back done).
 */
#include <string.h>

#include "runtime/doorbell.h"
#include "rma/ctx_stream.h"
#include "rma/rma_impl.h"
#include "runtime/tp_call.h"
#include "runtime/lock.h"

/* Bytes of an integer dtype usable in atomics, 0 for any other type. C's own sizes, which
 * are what runtime/dtype.c records for these types: no table lookup on the hot path. */
static inline unsigned amo_size(arbor_dtype_t dtype)
{
    switch (dtype) {
    case ARBOR_INT32:
    case ARBOR_UINT32:
        return 4;
    case ARBOR_INT64:
    case ARBOR_UINT64:
        return 8;
    case ARBOR_LONGLONG:
    case ARBOR_ULONGLONG:
        return sizeof(long long);
    case ARBOR_INT:
    case ARBOR_UINT:
        return sizeof(int);
    case ARBOR_LONG:
    case ARBOR_ULONG:
        return sizeof(long);
    default:
        return 0;
    }
}

/* An operand of size bytes (4 or 8), zero-extended: the value, not the sign. */
static inline uint64_t load_operand(const void *p, unsigned size)
{
    if (size == 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline void store_result(void *p, uint64_t v, unsigned size)
{
    if (size == 8) {
        memcpy(p, &v, 8);
    } else {
        uint32_t v32 = (uint32_t)v;
        memcpy(p, &v32, 4);
    }
}

static bool fetching(arbor_amo_t op)
{
    return op == ARBOR_AMO_FETCH || op == ARBOR_AMO_SWAP || op == ARBOR_AMO_CSWAP ||
           op == ARBOR_AMO_FADD || op == ARBOR_AMO_FAND || op == ARBOR_AMO_FOR ||
           op == ARBOR_AMO_FXOR;
}

/* new value of x under op (the non-fetching names) */
static uint64_t apply(arbor_amo_t op, uint64_t x, uint64_t v, uint64_t cmp)
{
    switch (op) {
    case ARBOR_AMO_FETCH:
        return x;
    case ARBOR_AMO_SET:
    case ARBOR_AMO_SWAP:
        return v;
    case ARBOR_AMO_ADD:
    case ARBOR_AMO_FADD:
        return x + v;
    case ARBOR_AMO_AND:
    case ARBOR_AMO_FAND:
        return x & v;
    case ARBOR_AMO_OR:
    case ARBOR_AMO_FOR:
        return x | v;
    case ARBOR_AMO_XOR:
    case ARBOR_AMO_FXOR:
        return x ^ v;
    case ARBOR_AMO_CSWAP:
        return x == cmp ? v : x;
    default:
        return x;
    }
}

/* CPU atomics on a mapped word: return the old value. The __atomic builtins are type-generic,
 * so one body serves both widths. */
#define DEFINE_CPU_AMO(name, T)                                                                    \
    static T name(T *p, arbor_amo_t op, T v, T cmp)                                                \
    {                                                                                              \
        switch (op) {                                                                              \
        case ARBOR_AMO_FETCH:                                                                      \
            return __atomic_load_n(p, __ATOMIC_SEQ_CST);                                           \
        case ARBOR_AMO_SET:                                                                        \
        case ARBOR_AMO_SWAP:                                                                       \
            return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);                                    \
        case ARBOR_AMO_ADD:                                                                        \
        case ARBOR_AMO_FADD:                                                                       \
            return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);                                     \
        case ARBOR_AMO_AND:                                                                        \
        case ARBOR_AMO_FAND:                                                                       \
            return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);                                     \
        case ARBOR_AMO_OR:                                                                         \
        case ARBOR_AMO_FOR:                                                                        \
            return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);                                      \
        case ARBOR_AMO_XOR:                                                                        \
        case ARBOR_AMO_FXOR:                                                                       \
            return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);                                     \
        case ARBOR_AMO_CSWAP:                                                                      \
            __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);    \
            return cmp; /* the old value either way */                                             \
        default:                                                                                   \
            return 0;                                                                              \
        }                                                                                          \
    }

DEFINE_CPU_AMO(cpu64, uint64_t)
DEFINE_CPU_AMO(cpu32, uint32_t)

/* A whole atomic on a mapped word by CPU instructions (arb_rma.cpu_atomics). */
static inline void cpu_amo(int rank, uint8_t *p, unsigned size, arbor_amo_t op, uint64_t v,
                           uint64_t cmp, void *result)
{
    uint64_t old = size == 8 ? cpu64((uint64_t *)p, op, v, cmp)
                             : cpu32((uint32_t *)p, op, (uint32_t)v, (uint32_t)cmp);
    arb_bell_ring(rank); /* the target may wait_until on this word */
    if (result && fetching(op)) store_result(result, old, size);
}

arbor_status_t arb_rma_amo64(int rank, arb_tp_rkey_t *key, uint64_t off, arb_tp_amo_t op,
                             uint64_t operand, uint64_t compare, uint64_t *result)
{
    uint64_t old = 0;
    /* registered memory (a key other than the segment's): always the transport */
    if (arb_rma.cpu_atomics && arb_rma.peer_seg[rank] && (!key || key == arb_tp_seg_rkey(rank))) {
        uint64_t *p = (uint64_t *)(arb_rma.peer_seg[rank] + off);
        static const arbor_amo_t map[] = {ARBOR_AMO_ADD, ARBOR_AMO_FADD, ARBOR_AMO_SWAP,
                                          ARBOR_AMO_CSWAP};
        old = cpu64(p, map[op], operand, compare);
        arb_bell_ring(rank); /* notifications and lock releases end peers' waits */
        if (result) *result = old;
        return ARBOR_OK;
    }
    arb_tp_comp_t comp = {0, ARBOR_OK};
    arbor_status_t status = arb_rma_tp_amo(rank, key, off, op, operand, compare, &old, &comp);
    if (status == ARBOR_OK) status = arb_rma_wait_comp(&comp, "a remote atomic");
    if (status == ARBOR_OK && result) *result = old;
    return status;
}

/* The whole operation by compare-and-swap on the 64-bit word at off (transport path): x64 is
 * the word, the operand lives in bits [shift, shift + 8 * size). Returns the old element. */
static arbor_status_t cas_loop(int rank, arb_tp_rkey_t *key, uint64_t off, unsigned size,
                               unsigned shift, arbor_amo_t op, uint64_t v, uint64_t cmp,
                               uint64_t *old_p)
{
    uint64_t mask = size == 8 ? ~(uint64_t)0 : ((uint64_t)0xffffffffu << shift);
    uint64_t cur;
    arbor_status_t status = arb_rma_amo64(rank, key, off, ARB_TP_AMO_FADD, 0, 0, &cur);
    for (unsigned tries = 0; status == ARBOR_OK; tries++) {
        uint64_t x = (cur & mask) >> shift;
        uint64_t nx = apply(op, x, v, cmp);
        if (size == 4) nx &= 0xffffffffu;
        *old_p = x;
        if (nx == x) return ARBOR_OK; /* nothing to write (FETCH, failed CSWAP, ...) */
        uint64_t want = (cur & ~mask) | (nx << shift), seen;
        status = arb_rma_amo64(rank, key, off, ARB_TP_AMO_CSWAP, want, cur, &seen);
        if (status != ARBOR_OK || seen == cur) return status;
        cur = seen;
        if (tries > 8) arb_rma_backoff(&tries);
    }
    return status;
}

/* The one transport operation that does op on a 64-bit word (*v_p adjusted), or false: a
 * compare-and-swap loop does it. */
static bool single_op(arbor_amo_t op, arb_tp_amo_t *tp_op_p, uint64_t *v_p)
{
    switch (op) {
    case ARBOR_AMO_FETCH:
        *tp_op_p = ARB_TP_AMO_FADD;
        *v_p = 0;
        return true;
    case ARBOR_AMO_SET:
    case ARBOR_AMO_SWAP:
        *tp_op_p = ARB_TP_AMO_SWAP;
        return true;
    case ARBOR_AMO_ADD:
        *tp_op_p = ARB_TP_AMO_ADD;
        return true;
    case ARBOR_AMO_FADD:
        *tp_op_p = ARB_TP_AMO_FADD;
        return true;
    case ARBOR_AMO_CSWAP:
        *tp_op_p = ARB_TP_AMO_CSWAP;
        return true;
    default:
        return false;
    }
}

static void finish_word(arb_rma_req_t *req)
{
    if (req->result) memcpy(req->result, &req->word, req->rsize);
}

static arbor_status_t atomic_any(int rank, void *dst, arbor_amo_t op, arbor_dtype_t dtype,
                                 const void *operand, const void *compare, void *result,
                                 arbor_request_h *req_p, bool blocking)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    arbor_status_t status = arb_rma_check_rank(rank);
    if (status != ARBOR_OK) return status;
    if (req_p) *req_p = NULL;
    if ((unsigned)op >= ARBOR_AMO_COUNT) return ARBOR_ERR_OP;
    unsigned size = amo_size(dtype);
    if (!size) return ARBOR_ERR_DATATYPE;
    if ((op != ARBOR_AMO_FETCH && !operand) || (op == ARBOR_AMO_CSWAP && !compare) ||
        (fetching(op) && !result))
        return ARBOR_ERR_BUFFER;
    arb_rma_target_t tgt;
    if ((status = arb_rma_translate(rank, dst, size, false, &tgt)) != ARBOR_OK) return status;
    if (tgt.off % size) return ARBOR_ERR_ALIGNMENT;
    uint64_t v = operand ? load_operand(operand, size) : 0;
    uint64_t cmp = compare ? load_operand(compare, size) : 0;

    /* CPU path: complete here. */
    if (arb_rma_cpu_amo(&tgt)) {
        cpu_amo(rank, tgt.ptr, size, op, v, cmp, result);
        return req_p ? arb_rma_req_done_handle(rank, req_p) : ARBOR_OK;
    }

    /* Transport: one operation where the transport has it, else a loop (done here). */
    arb_tp_amo_t tp_op = ARB_TP_AMO_ADD;
    bool single = size == 8 && single_op(op, &tp_op, &v);
    if (!single) {
        uint64_t word_off = tgt.off & ~(uint64_t)7, old = 0;
        unsigned shift = (unsigned)(tgt.off & 7) * 8; /* little endian */
        status = cas_loop(rank, tgt.rkey, word_off, size, shift, op, v, cmp, &old);
        if (status != ARBOR_OK) return status;
        if (result && fetching(op)) store_result(result, old, size);
        return req_p ? arb_rma_req_done_handle(rank, req_p) : ARBOR_OK;
    }
    arb_rma_req_t *req = arb_rma_req_get(rank);
    if (!req) return ARBOR_ERR_NO_MEMORY;
    if (fetching(op)) {
        req->result = result;
        req->rsize = size;
        req->finish = finish_word;
    }
    status = arb_rma_tp_amo(rank, tgt.rkey, tgt.off, tp_op, v, cmp, &req->word, &req->comp);
    if (status != ARBOR_OK) {
        req->finish = NULL;
        arb_rma_req_commit(req, NULL, true);
        return status;
    }
    return arb_rma_req_commit(req, req_p, blocking);
}

/* The fast path of a blocking atomic on a mapped user word found in the translation cache
 * (or, on private context c, in the context's own copy of it) under the CPU-atomics rule, its
 * arguments valid and the word aligned (else the normal path decides, errors included): the
 * instruction, nothing else. */
static inline bool fast_atomic(const struct arbor_ctx *c, int rank, void *dst, arbor_amo_t op,
                               arbor_dtype_t dtype, const void *operand, const void *compare,
                               void *result)
{
    unsigned size = amo_size(dtype);
    if (!size || (unsigned)op >= ARBOR_AMO_COUNT || (op != ARBOR_AMO_FETCH && !operand) ||
        (op == ARBOR_AMO_CSWAP && !compare) || (fetching(op) && !result) ||
        ((uintptr_t)dst & (size - 1)))
        return false;
    uint8_t *p = arb_rma_fast_mapped(rank, dst, size);
    bool cpu = p && (arb_rma.cpu_atomics || arb_rma_xhits[rank].m->cpu_atomics);
    if (!p && c) {
        p = arb_rma_ctx_fast_mapped(c, rank, dst, size);
        cpu = p && (arb_rma.cpu_atomics || c->pxhits[rank].cpu_atomics);
    }
    if (!cpu) return false;
    cpu_amo(rank, p, size, op, operand ? load_operand(operand, size) : 0,
            compare ? load_operand(compare, size) : 0, result);
    return true;
}

arbor_status_t arbor_atomic(int rank, void *dst, arbor_amo_t op, arbor_dtype_t dtype,
                            const void *operand, const void *compare, void *result)
{
    if (fast_atomic(NULL, rank, dst, op, dtype, operand, compare, result)) return ARBOR_OK;
    ARB_ENTER();
    arbor_status_t s = atomic_any(rank, dst, op, dtype, operand, compare, result, NULL, true);
    arb_unlock();
    return s;
}

arbor_status_t arbor_atomic_nb(int rank, void *dst, arbor_amo_t op, arbor_dtype_t dtype,
                               const void *operand, const void *compare, void *result,
                               arbor_request_h *req_p)
{
    if (!req_p && fast_atomic(NULL, rank, dst, op, dtype, operand, compare, result))
        return ARBOR_OK;
    ARB_RMA_LOCKED_NB(req_p,
                      atomic_any(rank, dst, op, dtype, operand, compare, result, req_p, false));
}

/* A private context's atomic on its stream (ctx_stream.c): 64-bit single operations with valid
 * arguments; ARB_ERR_NOT_STREAM for the rest (the locked path runs them, and reports errors).
 * The stream reaches only unmapped targets, whose words take the transport's atomics. */
static arbor_status_t stream_atomic(struct arbor_ctx *c, int w, void *dst, arbor_amo_t op,
                                    arbor_dtype_t dtype, const void *operand, const void *compare,
                                    void *result, bool blocking)
{
    arb_tp_amo_t tp_op;
    if (amo_size(dtype) != 8 || (unsigned)op >= ARBOR_AMO_COUNT ||
        (op != ARBOR_AMO_FETCH && !operand) || (op == ARBOR_AMO_CSWAP && !compare) ||
        (fetching(op) && !result))
        return ARB_ERR_NOT_STREAM;
    uint64_t v = operand ? load_operand(operand, 8) : 0; /* 8 bytes: checked above */
    if (!single_op(op, &tp_op, &v)) return ARB_ERR_NOT_STREAM;
    return arb_rma_ctx_stream_amo(c, w, dst, tp_op, v, compare ? load_operand(compare, 8) : 0,
                                  fetching(op) ? result : NULL, blocking);
}

static arbor_status_t ctx_atomic(arbor_ctx_h ctx, int rank, void *dst, arbor_amo_t op,
                                 arbor_dtype_t dtype, const void *operand, const void *compare,
                                 void *result, bool blocking)
{
    int w;
    arbor_status_t s = arb_rma_ctx_world(ctx, rank, &w);
    if (s != ARBOR_OK) return s;
    if (fast_atomic(ctx, w, dst, op, dtype, operand, compare, result)) return ARBOR_OK;
    if (ctx && ctx->cs) {
        s = stream_atomic(ctx, w, dst, op, dtype, operand, compare, result, blocking);
        if (s != ARB_ERR_NOT_STREAM) return s;
        if ((s = arb_rma_ctx_stream_settle(ctx, w)) != ARBOR_OK) return s;
    }
    ARB_RMA_ON_CTX(ctx, s = atomic_any(w, dst, op, dtype, operand, compare, result, NULL, blocking);
                   if (s == ARBOR_OK) arb_rma_ctx_learn(ctx, w));
    return s;
}

arbor_status_t arbor_ctx_atomic(arbor_ctx_h ctx, int rank, void *dst, arbor_amo_t op,
                                arbor_dtype_t dtype, const void *operand, const void *compare,
                                void *result)
{
    return ctx_atomic(ctx, rank, dst, op, dtype, operand, compare, result, true);
}

arbor_status_t arbor_ctx_atomic_nbi(arbor_ctx_h ctx, int rank, void *dst, arbor_amo_t op,
                                    arbor_dtype_t dtype, const void *operand, const void *compare,
                                    void *result)
{
    return ctx_atomic(ctx, rank, dst, op, dtype, operand, compare, result, false);
}
