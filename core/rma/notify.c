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

#include "core/doorbell.h"
#include "core/log.h"
#include "core/rma/depart.h"
#include "core/rma/rma_impl.h"
#include "core/tp_call.h"

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
        if (arb_rma.cpu_atomics && st.ptr) {
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
