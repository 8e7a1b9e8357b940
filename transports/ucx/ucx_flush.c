/*
 * UCX backend: the flush of some peers (transport.h), non-blocking. Per covered peer: a ping
 * when put_signal messages went to it since the last one (ucx_am.c: the pong says their
 * handlers ran), then ucp_ep_flush_nbx on its endpoint, posted without a callback so that a
 * flush the caller gives up on is simply released (ucp_request_free) and nothing refers to it
 * afterwards. A put_signal chain (put, endpoint flush, signal: ucx_rma.c) may post its signal
 * after our endpoint flush started, which that flush need not cover: the peer's flush is then
 * posted again until no chain to it waits and none posted its signal during the last round.
 * With every peer covered (peers NULL) one worker flush replaces the endpoint flushes.
 */
#include "transports/ucx/ucx.h"

#include "util/log.h"

#include <stdlib.h>

struct arb_tp_flush {
    int cap;    /* slots the arrays below hold (the object is reused: tp->spare_flush) */
    bool all;   /* every peer covered: one worker flush */
    int n;      /* covered peers (all: 0) */
    int *peers; /* [n] */
    ucs_status_ptr_t *reqs; /* [n] (or [1]: the worker flush) in flight, NULL once done */
    unsigned long *chained; /* [n] the peer's chained count when its flush was posted */
    unsigned long all_chained;
    arbor_status_t status; /* first failure seen */
};

static ucs_status_ptr_t post_one(arb_tp_t *tp, arb_tp_flush_t *f, int i)
{
    ucp_request_param_t param = {0};

    if (f->all) {
        f->all_chained = tp->chained;
        return ucp_worker_flush_nbx(tp->worker, &param);
    }
    f->chained[i] = tp->peers[f->peers[i]].chained;
    return ucp_ep_flush_nbx(tp->eps[f->peers[i]], &param);
}

/* Accounts for what a flush request returned or ended with: true once it is over. */
static bool settle(arb_tp_flush_t *f, int i, ucs_status_t status)
{
    if (status == UCS_INPROGRESS) return false;
    if (status != UCS_OK && f->status == ARBOR_OK) {
        arb_error("flush of peer %d failed: %s", f->all ? -1 : f->peers[i],
                  ucs_status_string(status));
        f->status = arb_ucx_status(status);
    }
    return true;
}

static void post(arb_tp_t *tp, arb_tp_flush_t *f, int i)
{
    ucs_status_ptr_t req = post_one(tp, f, i);

    f->reqs[i] = NULL;
    if (UCS_PTR_IS_PTR(req))
        f->reqs[i] = req;
    else
        settle(f, i, UCS_PTR_STATUS(req));
}

arbor_status_t arb_ucx_flush_start(arb_tp_t *tp, const int *peers, int n, arb_tp_flush_t **f_p)
{
    arb_tp_flush_t *f;
    arbor_status_t status = ARBOR_OK;
    int slots;

    if (tp->peers == NULL || (peers != NULL && n < 0) || f_p == NULL) {
        arb_error("flush_start: not connected, or bad arguments");
        return ARBOR_ERR_INVALID_ARG;
    }
    for (int i = 0; peers != NULL && i < n; i++)
        if (peers[i] < 0 || peers[i] >= tp->size) {
            arb_error("flush_start: peer %d out of range", peers[i]);
            return ARBOR_ERR_INVALID_ARG;
        }
    slots = peers == NULL ? 1 : n;
    /* One object, kept for the next flush (fence after every put is a common pattern). */
    f = tp->spare_flush;
    if (f != NULL && f->cap >= slots) {
        tp->spare_flush = NULL;
    } else {
        size_t cap = (size_t)slots + 1;
        f = calloc(1, sizeof(*f) +
                          cap * (sizeof(int) + sizeof(ucs_status_ptr_t) + sizeof(unsigned long)));
        if (f == NULL) return ARBOR_ERR_NO_MEMORY;
        f->cap = (int)cap;
        f->reqs = (ucs_status_ptr_t *)(f + 1);
        f->chained = (unsigned long *)(f->reqs + cap);
        f->peers = (int *)(f->chained + cap);
    }
    f->all = peers == NULL;
    f->n = f->all ? 0 : n;
    f->status = ARBOR_OK;
    for (int i = 0; i < slots; i++) f->reqs[i] = NULL;
    for (int i = 0; i < f->n; i++) f->peers[i] = peers[i];
    /* Pings first: the endpoint flush does not wait for a message's handler. */
    for (int peer = 0; peer < tp->size && status == ARBOR_OK; peer++) {
        bool covered = f->all;
        for (int i = 0; i < f->n && !covered; i++) covered = f->peers[i] == peer;
        if (covered) status = arb_ucx_am_ping(tp, peer);
    }
    if (status != ARBOR_OK) {
        arb_ucx_flush_end(tp, f);
        return status;
    }
    for (int i = 0; i < slots; i++) post(tp, f, i);
    *f_p = f;
    return ARBOR_OK;
}

/* Whether peer still owes us a pong or a chain's signal (then its flush is posted again). */
static bool peer_waits(const arb_tp_t *tp, int peer)
{
    const arb_ucx_peer_t *p = &tp->peers[peer];

    return (p->pings > 0 && !p->lost) || p->chains > 0;
}

arbor_status_t arb_ucx_flush_test(arb_tp_t *tp, arb_tp_flush_t *f)
{
    bool done = true, idle = true;
    int slots = f->all ? 1 : f->n;

    /* Progress only when something is outstanding: a fence after an operation that completed
     * inline (most of them within a node) then costs no worker progress. */
    for (int i = 0; i < slots && idle; i++)
        idle = f->reqs[i] == NULL && (f->all ? tp->pings_waiting == 0 && tp->chains_waiting == 0
                                             : !peer_waits(tp, f->peers[i]));
    if (!idle) ucp_worker_progress(tp->worker);
    for (int i = 0; i < slots; i++) {
        if (f->reqs[i] != NULL) {
            if (!settle(f, i, ucp_request_check_status(f->reqs[i]))) {
                done = false;
                continue;
            }
            ucp_request_free(f->reqs[i]);
            f->reqs[i] = NULL;
        }
        if (f->status != ARBOR_OK) continue;
        if (f->all) {
            if (tp->pings_waiting > 0) {
                done = false;
            } else if (tp->chains_waiting > 0 || tp->chained != f->all_chained) {
                post(tp, f, i);
                done = false;
            }
        } else if (peer_waits(tp, f->peers[i])) {
            done = false;
            if (tp->peers[f->peers[i]].chains > 0) post(tp, f, i);
        } else if (tp->peers[f->peers[i]].chained != f->chained[i]) {
            post(tp, f, i); /* a chain posted its signal after this flush began */
            done = false;
        }
    }
    if (f->status != ARBOR_OK) return f->status;
    return done ? ARBOR_OK : ARB_ERR_AGAIN;
}

void arb_ucx_flush_end(arb_tp_t *tp, arb_tp_flush_t *f)
{
    int slots = f->all ? 1 : f->n;

    for (int i = 0; i < slots; i++)
        if (f->reqs[i] != NULL) ucp_request_free(f->reqs[i]); /* it goes on; no callback */
    if (tp->spare_flush == NULL) {
        tp->spare_flush = f;
        return;
    }
    free(f);
}
