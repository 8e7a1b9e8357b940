/*
 * libfabric backend: flush. The flush of every peer waits until nothing is in flight; the flush
 * of some peers (transport.h) works by per-peer completion counting.
 * libfabric reports completions per endpoint (one CQ, counters per endpoint too), never per
 * peer, so the backend numbers each peer's accepted requests and lists the unfinished ones in
 * acceptance order (ofi_post.c). A flush notes each covered peer's next number when it starts
 * and is over once every covered peer's oldest unfinished request has a number at least that
 * (writes carry FI_DELIVERY_COMPLETE and atomics fetch, so finished means at the target).
 * A request queued in the peer's software queue is unfinished too.
 *
 * What this cannot lift: on the shm provider completions leave the sender in posting order
 * (one response queue per endpoint), so an operation to a peer that never reads it holds the
 * completions of every later operation, to any peer. A flush of some peers is then still held
 * by an operation to an idle peer posted before the covered ones; one posted after them no
 * longer is (docs/TRANSPORTS.md).
 */
#include "transports/ofi/ofi.h"

#include "util/log.h"

#include <sched.h>
#include <stdlib.h>
#include <time.h>

#define CLOCK_CHECK_EVERY 256

struct arb_tp_flush {
    int cap;          /* entries the arrays hold (the object is reused: tp->spare_flush) */
    int n;            /* covered peers */
    int *peers;       /* [n] */
    uint64_t *target; /* [n] the peer's next_seq at the start */
};

arbor_status_t arb_ofi_async_take(arb_tp_t *tp)
{
    arbor_status_t status = tp->async_status;

    tp->async_status = ARBOR_OK;
    for (int p = 0; tp->peers != NULL && p < tp->size; p++) tp->peers[p].status = ARBOR_OK;
    return status;
}

/* The flush of every peer: progress until nothing is in flight or queued. */
static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

arbor_status_t arb_ofi_flush(arb_tp_t *tp)
{
    double deadline = tp->timeout_s > 0 ? now_s() + tp->timeout_s : 0;
    unsigned polls = 0;

    if (tp->peers == NULL) return ARBOR_OK;
    while (tp->inflight > 0 || tp->queued > 0) {
        int n = arb_ofi_progress(tp);
        if (n < 0) return (arbor_status_t)n;
        if (n == 0 && tp->yield) sched_yield();
        if (deadline > 0 && ++polls % CLOCK_CHECK_EVERY == 0 && now_s() > deadline) {
            arb_error("flush: %ld operations in flight and %ld queued after %.1f s", tp->inflight,
                      tp->queued, tp->timeout_s);
            return ARBOR_ERR_TIMEOUT;
        }
    }
    return arb_ofi_async_take(tp);
}

arbor_status_t arb_ofi_flush_start(arb_tp_t *tp, const int *peers, int n, arb_tp_flush_t **f_p)
{
    arb_tp_flush_t *f;

    if (tp->peers == NULL || (peers != NULL && n < 0) || f_p == NULL) {
        arb_error("flush_start: not connected, or bad arguments");
        return ARBOR_ERR_INVALID_ARG;
    }
    if (peers == NULL) n = tp->size;
    for (int i = 0; peers != NULL && i < n; i++)
        if (peers[i] < 0 || peers[i] >= tp->size) {
            arb_error("flush_start: peer %d out of range", peers[i]);
            return ARBOR_ERR_INVALID_ARG;
        }
    /* One object, kept for the next flush (fence after every put is a common pattern). */
    f = tp->spare_flush;
    if (f != NULL && f->cap >= n) {
        tp->spare_flush = NULL;
    } else {
        size_t cap = (size_t)n + 1;
        if ((f = calloc(1, sizeof(*f) + cap * (sizeof(uint64_t) + sizeof(int)))) == NULL)
            return ARBOR_ERR_NO_MEMORY;
        f->cap = (int)cap;
        f->target = (uint64_t *)(f + 1);
        f->peers = (int *)(f->target + cap);
    }
    f->n = n;
    for (int i = 0; i < n; i++) {
        f->peers[i] = peers != NULL ? peers[i] : i;
        f->target[i] = tp->peers[f->peers[i]].next_seq;
    }
    *f_p = f;
    return ARBOR_OK;
}

static bool covered_done(const arb_tp_t *tp, const arb_tp_flush_t *f)
{
    for (int i = 0; i < f->n; i++) {
        const arb_ofi_req_t *oldest = tp->peers[f->peers[i]].live_head;
        if (oldest != NULL && oldest->seq < f->target[i]) return false;
    }
    return true;
}

arbor_status_t arb_ofi_flush_test(arb_tp_t *tp, arb_tp_flush_t *f)
{
    arbor_status_t status = ARBOR_OK;

    /* Progress only while something covered is outstanding. */
    if (!covered_done(tp, f)) {
        int n = arb_ofi_progress(tp);
        if (n < 0) return (arbor_status_t)n;
        if (!covered_done(tp, f)) return ARB_ERR_AGAIN;
    }
    /* Complete: report (once) what failed among the covered peers' unwatched requests. */
    for (int i = 0; i < f->n; i++) {
        arb_ofi_peer_t *p = &tp->peers[f->peers[i]];
        if (status == ARBOR_OK) status = p->status;
        p->status = ARBOR_OK;
    }
    if (status != ARBOR_OK) { /* what is left for the next whole flush */
        tp->async_status = ARBOR_OK;
        for (int p = 0; p < tp->size && tp->async_status == ARBOR_OK; p++)
            tp->async_status = tp->peers[p].status;
    }
    return status;
}

void arb_ofi_flush_end(arb_tp_t *tp, arb_tp_flush_t *f)
{
    if (tp->spare_flush == NULL) {
        tp->spare_flush = f;
        return;
    }
    free(f);
}
