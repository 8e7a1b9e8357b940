/*
 * Point-to-point synchronisation: notify / notify_wait (the CAF paper's guarantee), put with
 * signal (OpenSHMEM 1.5) and wait_until / test_until on a local heap word.
 *
 * Notification counters: every rank owns one 64-bit counter per source rank in its segment,
 * at the same offset everywhere (taken at init). notify(r) completes everything this rank
 * issued to r at r (fence: local completion of every operation, then a transport flush), then
 * adds 1 to r's counter for us with the atomics mechanism of the job. The consumer counts what
 * it consumed in private memory; arrived - consumed is what is pending.
 */
#include <sched.h>
#include <string.h>

#include "runtime/doorbell.h"
#include "util/log.h"
#include "rma/depart.h"
#include "rma/ctx_stream.h"
#include "rma/rma_impl.h"
#include "runtime/tp_call.h"
#include "runtime/lock.h"

static arbor_status_t notify_unlocked(int rank)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    arbor_status_t status = arb_rma_check_rank(rank);
    if (status != ARBOR_OK) return status;
    if ((status = arb_rma_complete_to(rank)) != ARBOR_OK) return status;
    uint64_t off = arb_rma.notify_off + (uint64_t)arb_ctx.rank * sizeof(uint64_t);
    return arb_rma_amo64(rank, NULL, off, ARB_TP_AMO_ADD, 1, 0, NULL);
}

static uint64_t arrived(int rank)
{
    return __atomic_load_n(&arb_rma.notify[rank], __ATOMIC_ACQUIRE);
}

typedef struct {
    int rank;
    uint64_t n;
} nw_arg_t;

/* Also ends the wait when the source departed. Its state is read first: a departing rank
 * announces itself after its last notification landed, so what arrived is then final. */
static bool notified(void *arg)
{
    nw_arg_t *a = arg;
    bool departed = arb_depart_state(a->rank) != ARBOR_PEER_RUNNING;
    return arrived(a->rank) - arb_rma.consumed[a->rank] >= a->n || departed;
}

/* Waits for cond; nothing local moves while we wait for a peer, so a stalled wait also yields
 * a core the peer may need. The acquire fence orders what we read next after the word seen. */
static arbor_status_t wait_cond(bool (*cond)(void *), void *arg, const char *what)
{
    arbor_status_t status = arb_rma_wait_until_pred(cond, arg, true, what);
    if (status == ARBOR_OK) __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return status;
}

static arbor_status_t notify_wait_unlocked(int rank, uint64_t n)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    arbor_status_t status = arb_rma_check_rank(rank);
    if (status != ARBOR_OK || n == 0) return status;
    nw_arg_t a = {rank, n};
    if ((status = wait_cond(notified, &a, "arbor_notify_wait")) != ARBOR_OK) return status;
    if (arrived(rank) - arb_rma.consumed[rank] < n) return arb_depart_verdict(rank);
    arb_rma.consumed[rank] += n;
    return ARBOR_OK;
}

arbor_status_t arbor_notify(int rank)
{
    ARB_ENTER();
    arbor_status_t s = notify_unlocked(rank);
    arb_unlock();
    return s;
}

arbor_status_t arbor_notify_wait(int rank, uint64_t n)
{
    ARB_ENTER();
    arbor_status_t s = notify_wait_unlocked(rank, n);
    arb_unlock();
    return s;
}

arbor_status_t arbor_notify_count(int rank, uint64_t *count_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    ARB_ENTER();
    arbor_status_t s = arb_rma_check_rank(rank);
    if (s == ARBOR_OK && !count_p) s = ARBOR_ERR_INVALID_ARG;
    if (s == ARBOR_OK) {
        arb_rma_progress_once();
        *count_p = arrived(rank) - arb_rma.consumed[rank];
    }
    arb_unlock();
    return s;
}

/* ---- put with signal --------------------------------------------------------------------- */

static arbor_status_t put_signal_any(int rank, void *dst, const void *src, size_t nbytes,
                                     uint64_t *sig, uint64_t value, arbor_signal_op_t sig_op,
                                     arbor_request_h *req_p, bool blocking)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    arbor_status_t status = arb_rma_check_rank(rank);
    if (status != ARBOR_OK) return status;
    if (req_p) *req_p = NULL;
    if (sig_op != ARBOR_SIGNAL_SET && sig_op != ARBOR_SIGNAL_ADD) return ARBOR_ERR_INVALID_ARG;
    if (nbytes && !src) return ARBOR_ERR_BUFFER;
    arb_rma_target_t data = {0}, st;
    if (nbytes && (status = arb_rma_translate(rank, dst, nbytes, false, &data)) != ARBOR_OK)
        return status;
    if ((status = arb_rma_translate(rank, sig, sizeof(uint64_t), false, &st)) != ARBOR_OK)
        return status;
    if (st.reg) return ARBOR_ERR_ADDRESS; /* the signal word lives in the heap (arbor.h) */
    if (st.off % sizeof(uint64_t)) return ARBOR_ERR_ALIGNMENT;
    arb_tp_amo_t sop = sig_op == ARBOR_SIGNAL_ADD ? ARB_TP_AMO_ADD : ARB_TP_AMO_SWAP;

    /* Data by mapping: it is in place before the signal is issued. */
    if (!nbytes || data.ptr) {
        if (nbytes) memmove(data.ptr, src, nbytes);
        __atomic_thread_fence(__ATOMIC_RELEASE);
        if (arb_rma_cpu_amo(&st)) {
            if (sig_op == ARBOR_SIGNAL_ADD)
                __atomic_fetch_add((uint64_t *)st.ptr, value, __ATOMIC_SEQ_CST);
            else
                __atomic_exchange_n((uint64_t *)st.ptr, value, __ATOMIC_SEQ_CST);
            arb_bell_ring(rank);
            return req_p ? arb_rma_req_done_handle(rank, req_p) : ARBOR_OK;
        }
        arb_rma_req_t *req = arb_rma_req_get(rank);
        if (!req) return ARBOR_ERR_NO_MEMORY;
        status = arb_rma_tp_amo(rank, NULL, st.off, sop, value, 0, &req->word, &req->comp);
        if (status != ARBOR_OK) {
            arb_rma_req_commit(req, NULL, true);
            return status;
        }
        return arb_rma_req_commit(req, req_p, blocking);
    }

    arb_rma_req_t *req = arb_rma_req_get(rank);
    if (!req) return ARBOR_ERR_NO_MEMORY;
    arb_tp_rkey_t *key = arb_tp_seg_rkey(rank);
    if (sig_op == ARBOR_SIGNAL_ADD) {
        /* the transport orders the signal after the data (transport.h); the data may lie in
         * a registration (its own key), the signal is in the segment */
        status = arb_rma_order_access(rank, data.off, nbytes, true);
        if (status == ARBOR_OK) status = arb_rma_order_access(rank, st.off, sizeof(uint64_t), true);
        if (status == ARBOR_OK)
            ARB_RMA_POST(status, arb_tp_put_signal(src, nbytes, data.rkey, data.off, key, st.off,
                                                   value, &req->comp));
        if (status == ARBOR_OK) arb_rma_after_post(rank);
    } else {
        /* put, fence, swap: the swap may not overtake the put */
        status = arb_rma_tp_put(rank, data.rkey, data.off, src, nbytes, &req->comp);
        if (status == ARBOR_OK) status = arb_tp_fence(rank);
        if (status == ARBOR_OK)
            status = arb_rma_tp_amo(rank, NULL, st.off, sop, value, 0, &req->word, &req->comp);
    }
    if (status != ARBOR_OK) {
        req->status = status;
        arb_rma_req_commit(req, NULL, true);
        return status;
    }
    return arb_rma_req_commit(req, req_p, blocking);
}

arbor_status_t arbor_put_signal(int rank, void *dst, const void *src, size_t nbytes, uint64_t *sig,
                                uint64_t value, arbor_signal_op_t sig_op)
{
    ARB_ENTER();
    arbor_status_t s = put_signal_any(rank, dst, src, nbytes, sig, value, sig_op, NULL, true);
    arb_unlock();
    return s;
}

arbor_status_t arbor_put_signal_nb(int rank, void *dst, const void *src, size_t nbytes,
                                   uint64_t *sig, uint64_t value, arbor_signal_op_t sig_op,
                                   arbor_request_h *req_p)
{
    ARB_RMA_LOCKED_NB(req_p,
                      put_signal_any(rank, dst, src, nbytes, sig, value, sig_op, req_p, false));
}

static arbor_status_t ctx_put_signal(arbor_ctx_h ctx, int rank, void *dst, const void *src,
                                     size_t nbytes, uint64_t *sig, uint64_t value,
                                     arbor_signal_op_t sig_op, bool blocking)
{
    int w;
    arbor_status_t s = arb_rma_ctx_world(ctx, rank, &w);
    if (s != ARBOR_OK) return s;
    /* After what the context's stream posted to the target (ctx_stream.c): location order. */
    if (ctx && (s = arb_rma_ctx_stream_settle(ctx, w)) != ARBOR_OK) return s;
    ARB_RMA_ON_CTX(ctx,
                   s = put_signal_any(w, dst, src, nbytes, sig, value, sig_op, NULL, blocking));
    return s;
}

arbor_status_t arbor_ctx_put_signal(arbor_ctx_h ctx, int rank, void *dst, const void *src,
                                    size_t nbytes, uint64_t *sig, uint64_t value,
                                    arbor_signal_op_t sig_op)
{
    return ctx_put_signal(ctx, rank, dst, src, nbytes, sig, value, sig_op, true);
}

arbor_status_t arbor_ctx_put_signal_nbi(arbor_ctx_h ctx, int rank, void *dst, const void *src,
                                        size_t nbytes, uint64_t *sig, uint64_t value,
                                        arbor_signal_op_t sig_op)
{
    return ctx_put_signal(ctx, rank, dst, src, nbytes, sig, value, sig_op, false);
}

/* ---- wait_until ------------------------------------------------------------------------------ */

typedef struct {
    uint64_t *addr;
    arbor_cmp_t cmp;
    uint64_t value, seen;
} wu_arg_t;

static bool holds(void *arg)
{
    wu_arg_t *a = arg;
    uint64_t x = a->seen = __atomic_load_n(a->addr, __ATOMIC_ACQUIRE);
    switch (a->cmp) {
    case ARBOR_CMP_EQ:
        return x == a->value;
    case ARBOR_CMP_NE:
        return x != a->value;
    case ARBOR_CMP_GT:
        return x > a->value;
    case ARBOR_CMP_GE:
        return x >= a->value;
    case ARBOR_CMP_LT:
        return x < a->value;
    case ARBOR_CMP_LE:
        return x <= a->value;
    }
    return false;
}

/* A word no other rank runs to change any more will not change: every other rank departed. */
static bool holds_or_deserted(void *arg)
{
    return arb_depart_all_verdict() != ARBOR_OK || holds(arg);
}

static arbor_status_t until_check(uint64_t *addr, arbor_cmp_t cmp)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if ((unsigned)cmp > ARBOR_CMP_LE) return ARBOR_ERR_INVALID_ARG;
    arb_rma_target_t t;
    arbor_status_t status = arb_rma_translate(arb_ctx.rank, addr, sizeof(uint64_t), false, &t);
    if (status != ARBOR_OK) return status;
    if (t.reg) return ARBOR_ERR_ADDRESS; /* a heap word only (arbor.h) */
    return t.off % sizeof(uint64_t) ? ARBOR_ERR_ALIGNMENT : ARBOR_OK;
}

arbor_status_t arbor_wait_until(uint64_t *addr, arbor_cmp_t cmp, uint64_t value,
                                uint64_t *observed_p)
{
    ARB_ENTER();
    arbor_status_t status = until_check(addr, cmp);
    wu_arg_t a = {addr, cmp, value, 0};
    if (status == ARBOR_OK) status = wait_cond(holds_or_deserted, &a, "arbor_wait_until");
    if (status == ARBOR_OK && !holds(&a)) status = arb_depart_all_verdict();
    if (status == ARBOR_OK && observed_p) *observed_p = a.seen;
    arb_unlock();
    return status;
}

arbor_status_t arbor_test_until(uint64_t *addr, arbor_cmp_t cmp, uint64_t value,
                                uint64_t *observed_p)
{
    ARB_ENTER();
    arbor_status_t status = until_check(addr, cmp);
    wu_arg_t a = {addr, cmp, value, 0};
    if (status == ARBOR_OK) {
        if (!holds(&a)) {
            arb_rma_progress_once();
            if (!holds(&a)) status = ARBOR_INPROGRESS;
        }
        if (status == ARBOR_INPROGRESS && arb_ctx.yield) sched_yield();
        if (observed_p) *observed_p = a.seen;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
    }
    arb_unlock();
    return status;
}

/* ---- waits on sets of words ------------------------------------------------------------------ */

typedef struct {
    const uint8_t *base;
    size_t n;
    unsigned size;   /* 2, 4 or 8 */
    bool sign;       /* compared as signed */
    const int *mask; /* NULL or [n]: nonzero leaves the word out */
    arbor_cmp_t cmp;
    const uint8_t *values; /* one value, or [n] with vector */
    bool vector;
    unsigned how;
    size_t *indices;
    size_t count;
} ws_arg_t;

/* Word or value i as a signed / unsigned 64-bit quantity (sign-extended for 32-bit signed). */
static inline uint64_t ws_load(const uint8_t *p, unsigned size, bool sign, bool atomic)
{
    if (size == 2) {
        uint16_t v =
            atomic ? __atomic_load_n((const uint16_t *)p, __ATOMIC_ACQUIRE) : *(const uint16_t *)p;
        return sign ? (uint64_t)(int64_t)(int16_t)v : v;
    }
    if (size == 4) {
        uint32_t v =
            atomic ? __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE) : *(const uint32_t *)p;
        return sign ? (uint64_t)(int64_t)(int32_t)v : v;
    }
    return atomic ? __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE) : *(const uint64_t *)p;
}

static bool ws_cmp(uint64_t x, uint64_t v, arbor_cmp_t cmp, bool sign)
{
    int c = sign ? ((int64_t)x > (int64_t)v) - ((int64_t)x < (int64_t)v) : (x > v) - (x < v);
    switch (cmp) {
    case ARBOR_CMP_EQ:
        return c == 0;
    case ARBOR_CMP_NE:
        return c != 0;
    case ARBOR_CMP_GT:
        return c > 0;
    case ARBOR_CMP_GE:
        return c >= 0;
    case ARBOR_CMP_LT:
        return c < 0;
    case ARBOR_CMP_LE:
        return c <= 0;
    }
    return false;
}

static bool ws_holds(void *arg)
{
    ws_arg_t *a = arg;
    unsigned kind = a->how & ~ARBOR_WAIT_VECTOR;
    size_t in_set = 0, found = 0;
    for (size_t i = 0; i < a->n; i++) {
        if (a->mask && a->mask[i]) continue;
        in_set++;
        uint64_t x = ws_load(a->base + i * a->size, a->size, a->sign, true);
        uint64_t v = ws_load(a->values + (a->vector ? i * a->size : 0), a->size, a->sign, false);
        bool ok = ws_cmp(x, v, a->cmp, a->sign);
        if (kind == ARBOR_WAIT_ALL) {
            if (!ok) return false;
        } else if (ok) {
            a->indices[found++] = i;
            if (kind == ARBOR_WAIT_ANY) break;
        }
    }
    if (kind == ARBOR_WAIT_ALL) {
        a->count = in_set;
        return true;
    }
    a->count = found;
    return found > 0 || in_set == 0;
}

static arbor_status_t ws_setup(ws_arg_t *a, void *ivars, size_t n, arbor_dtype_t dtype,
                               const int *mask, arbor_cmp_t cmp, const void *values, unsigned how,
                               size_t *indices)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    unsigned kind = how & ~ARBOR_WAIT_VECTOR;
    if (kind > ARBOR_WAIT_SOME || (unsigned)cmp > ARBOR_CMP_LE) return ARBOR_ERR_INVALID_ARG;
    if (kind != ARBOR_WAIT_ALL && !indices) return ARBOR_ERR_INVALID_ARG;
    bool sign;
    unsigned size;
    switch (dtype) {
    case ARBOR_INT16:
    case ARBOR_SHORT:
    case ARBOR_INT32:
    case ARBOR_INT64:
    case ARBOR_INT:
    case ARBOR_LONG:
    case ARBOR_LONGLONG:
        sign = true;
        break;
    case ARBOR_UINT16:
    case ARBOR_USHORT:
    case ARBOR_UINT32:
    case ARBOR_UINT64:
    case ARBOR_UINT:
    case ARBOR_ULONG:
    case ARBOR_ULONGLONG:
        sign = false;
        break;
    default:
        return ARBOR_ERR_DATATYPE;
    }
    switch (dtype) {
    case ARBOR_INT16:
    case ARBOR_UINT16:
        size = 2;
        break;
    case ARBOR_SHORT:
    case ARBOR_USHORT:
        size = sizeof(short);
        break;
    case ARBOR_INT32:
    case ARBOR_UINT32:
        size = 4;
        break;
    case ARBOR_INT:
    case ARBOR_UINT:
        size = sizeof(int);
        break;
    case ARBOR_LONG:
    case ARBOR_ULONG:
        size = sizeof(long);
        break;
    case ARBOR_LONGLONG:
    case ARBOR_ULONGLONG:
        size = sizeof(long long);
        break;
    default:
        size = 8;
    }
    if (size != 2 && size != 4 && size != 8) return ARBOR_ERR_DATATYPE;
    *a = (ws_arg_t){ivars, n,       size, sign, mask, cmp, values, (how & ARBOR_WAIT_VECTOR) != 0,
                    how,   indices, 0};
    if (n == 0) return ARBOR_OK;
    if (!ivars || !values) return ARBOR_ERR_BUFFER;
    if (n > SIZE_MAX / size) return ARBOR_ERR_COUNT;
    if ((uintptr_t)ivars % size) return ARBOR_ERR_ALIGNMENT;
    arb_rma_target_t t;
    return arb_rma_translate(arb_ctx.rank, ivars, n * size, false, &t);
}

static arbor_status_t wait_set_any(bool wait, void *ivars, size_t n, arbor_dtype_t dtype,
                                   const int *mask, arbor_cmp_t cmp, const void *values,
                                   unsigned how, size_t *indices, size_t *count_p)
{
    if (count_p) *count_p = 0;
    ws_arg_t a;
    ARB_ENTER();
    arbor_status_t status = ws_setup(&a, ivars, n, dtype, mask, cmp, values, how, indices);
    if (status == ARBOR_OK) {
        if (wait)
            status = wait_cond(ws_holds, &a, "arbor_wait_set");
        else if (!ws_holds(&a)) {
            arb_rma_progress_once();
            if (!ws_holds(&a)) status = ARBOR_INPROGRESS;
            if (status == ARBOR_INPROGRESS && arb_ctx.yield) sched_yield();
        }
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (status == ARBOR_OK && count_p) *count_p = a.count;
    }
    arb_unlock();
    return status;
}

arbor_status_t arbor_wait_set(void *ivars, size_t n, arbor_dtype_t dtype, const int *mask,
                              arbor_cmp_t cmp, const void *values, unsigned how, size_t *indices,
                              size_t *count_p)
{
    return wait_set_any(true, ivars, n, dtype, mask, cmp, values, how, indices, count_p);
}

arbor_status_t arbor_test_set(void *ivars, size_t n, arbor_dtype_t dtype, const int *mask,
                              arbor_cmp_t cmp, const void *values, unsigned how, size_t *indices,
                              size_t *count_p)
{
    return wait_set_any(false, ivars, n, dtype, mask, cmp, values, how, indices, count_p);
}

arbor_status_t arbor_signal_fetch(const uint64_t *sig, uint64_t *value_p)
{
    if (!value_p) return ARBOR_ERR_INVALID_ARG;
    ARB_ENTER();
    arb_rma_target_t t;
    arbor_status_t status = !arb_initialized() ? ARBOR_ERR_NOT_INITIALIZED
                            : (uintptr_t)sig % sizeof(uint64_t)
                                ? ARBOR_ERR_ALIGNMENT
                                : arb_rma_translate(arb_ctx.rank, sig, sizeof(uint64_t), false, &t);
    if (status == ARBOR_OK) {
        arb_rma_progress_once();
        *value_p = __atomic_load_n(sig, __ATOMIC_ACQUIRE);
    }
    arb_unlock();
    return status;
}
