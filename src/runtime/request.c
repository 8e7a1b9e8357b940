/*
 * The public test / wait calls on handles of non-blocking calls, of any kind: each kind (the
 * collectives' instances, coll/coll_req.c; one-sided operations, rma/transfer.c) is registered by
 * its layer with its operations (request.h), and encodes its handles so that a completed,
 * freed or forged one is recognised (ARBOR_ERR_HANDLE) instead of dereferenced.
 */
#include <stdint.h>
#include <stdlib.h>

#include "runtime/context.h"
#include "runtime/lock.h"
#include "runtime/progress.h"
#include "runtime/request.h"

/* The kinds, in registration order: a handle belongs to the first that owns it. */
enum { ARB_REQ_KINDS_MAX = 4 };
static const arb_req_kind_t *kinds[ARB_REQ_KINDS_MAX];
static int nkinds;

arbor_status_t arb_req_kind_add(const arb_req_kind_t *kind)
{
    if (!kind || !kind->owns || !kind->complete || !kind->wait || !kind->test_idle ||
        !kind->release)
        return ARBOR_ERR_INVALID_ARG;
    for (int i = 0; i < nkinds; i++)
        if (kinds[i] == kind) return ARBOR_OK; /* a second init registers nothing new */
    if (nkinds == ARB_REQ_KINDS_MAX) return ARBOR_ERR_NO_MEMORY;
    kinds[nkinds++] = kind;
    return ARBOR_OK;
}

static const arb_req_kind_t *kind_of(arbor_request_h h)
{
    for (int i = 0; i < nkinds; i++)
        if (kinds[i]->owns(h)) return kinds[i];
    return NULL;
}

/* Any kind of handle: valid, complete, wait, release (the kind's operations). */
static bool h_valid(arbor_request_h h)
{
    const arb_req_kind_t *k = kind_of(h);
    return k && (!k->valid || k->valid(h));
}

static bool h_complete(arbor_request_h h)
{
    return kind_of(h)->complete(h);
}

static arbor_status_t h_wait(arbor_request_h h)
{
    return kind_of(h)->wait(h);
}

/* A test call's idle point (runtime/progress.h): a collective that a lost member or ARBOR_TIMEOUT
 * ends comes back complete with that status; a one-sided handle stays incomplete and its
 * ARBOR_ERR_TIMEOUT is returned. */
static arbor_status_t h_test_idle(arbor_request_h h, bool moved)
{
    return kind_of(h)->test_idle(h, moved);
}

/* Runs the idle point of every listed handle still incomplete after the turn; a verdict that
 * leaves its handle incomplete (one-sided) is returned at once, the handle kept. */
static arbor_status_t test_idle_all(size_t n, arbor_request_h *reqs, bool moved)
{
    for (size_t i = 0; i < n; i++) {
        if (!reqs[i] || h_complete(reqs[i])) continue;
        arbor_status_t why = h_test_idle(reqs[i], moved);
        if (why != ARBOR_OK && !h_complete(reqs[i])) return why;
    }
    return ARBOR_OK;
}

static arbor_status_t h_release(arbor_request_h *h)
{
    return kind_of(*h)->release(h);
}

static arbor_status_t arbor_test_unlocked(arbor_request_h *req)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (!req) return ARBOR_ERR_INVALID_ARG;
    if (!h_valid(*req)) return ARBOR_ERR_HANDLE;
    if (!h_complete(*req)) {
        bool moved = arb_progress_turn() > 0;
        /* The turn may have let go of the lock: a handle another thread released meanwhile
         * (two threads on one handle, against the rules) is reported, not followed. */
        if (!h_valid(*req)) return ARBOR_ERR_HANDLE;
        /* A caller that only tests must learn of a lost peer or a timeout as a waiter does. */
        arbor_status_t why = test_idle_all(1, req, moved);
        if (why != ARBOR_OK) return why;
    }
    return h_complete(*req) ? h_release(req) : ARBOR_INPROGRESS;
}

static arbor_status_t arbor_wait_unlocked(arbor_request_h *req)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (!req) return ARBOR_ERR_INVALID_ARG;
    if (!h_valid(*req)) return ARBOR_ERR_HANDLE;
    arbor_status_t status = h_wait(*req);
    if (status == ARBOR_ERR_TIMEOUT) return status;
    return h_release(req);
}

/* Every non-NULL handle must be valid, and listed once (the first release would leave the
 * second entry pointing at a freed slot), before anything happens. */
static arbor_status_t check_all(size_t n, arbor_request_h *reqs, size_t *live_p)
{
    size_t live = 0;
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (!reqs && n) return ARBOR_ERR_INVALID_ARG;
    if (++arb_ctx.stream.check_pass == 0) { /* wrapped: forget every old mark */
        for (int k = 0; k < nkinds; k++)
            if (kinds[k]->forget_marks) kinds[k]->forget_marks();
        arb_ctx.stream.check_pass = 1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!reqs[i]) continue;
        if (!h_valid(reqs[i])) return ARBOR_ERR_HANDLE;
        const arb_req_kind_t *k = kind_of(reqs[i]);
        if (k->mark) {
            if (k->mark(reqs[i], arb_ctx.stream.check_pass)) return ARBOR_ERR_HANDLE;
        } else { /* a kind without marks: compare with the earlier entries */
            for (size_t j = 0; j < i; j++)
                if (reqs[j] == reqs[i]) return ARBOR_ERR_HANDLE;
        }
        live++;
    }
    *live_p = live;
    return ARBOR_OK;
}

static arbor_status_t arbor_wait_all_unlocked(size_t n, arbor_request_h *reqs)
{
    size_t live;
    arbor_status_t status = check_all(n, reqs, &live), first = ARBOR_OK;
    if (status != ARBOR_OK) return status;
    for (size_t i = 0; i < n; i++) {
        if (!reqs[i]) continue;
        status = arbor_wait_unlocked(&reqs[i]);
        if (status == ARBOR_ERR_TIMEOUT) return status;
        if (status != ARBOR_OK && first == ARBOR_OK) first = status;
    }
    return first;
}

static arbor_status_t arbor_test_all_unlocked(size_t n, arbor_request_h *reqs)
{
    size_t live;
    arbor_status_t status = check_all(n, reqs, &live), first = ARBOR_OK;
    if (status != ARBOR_OK) return status;
    bool moved = arb_progress_turn() > 0;
    for (size_t i = 0; i < n; i++)
        if (reqs[i] && !h_valid(reqs[i])) return ARBOR_ERR_HANDLE;
    if ((status = test_idle_all(n, reqs, moved)) != ARBOR_OK) return status;
    for (size_t i = 0; i < n; i++)
        if (reqs[i] && !h_complete(reqs[i])) return ARBOR_INPROGRESS;
    for (size_t i = 0; i < n; i++) {
        if (!reqs[i]) continue;
        status = h_release(&reqs[i]);
        if (status != ARBOR_OK && first == ARBOR_OK) first = status;
    }
    return first;
}

static arbor_status_t collect(size_t n, arbor_request_h *reqs, size_t *done_p, size_t *indices)
{
    arbor_status_t first = ARBOR_OK;
    size_t done = 0;
    for (size_t i = 0; i < n; i++) {
        if (!reqs[i] || !h_valid(reqs[i]) || !h_complete(reqs[i])) continue;
        arbor_status_t status = h_release(&reqs[i]);
        if (status != ARBOR_OK && first == ARBOR_OK) first = status;
        indices[done++] = i;
    }
    *done_p = done;
    return first;
}

static arbor_status_t arbor_test_some_unlocked(size_t n, arbor_request_h *reqs, size_t *done_p,
                                               size_t *indices)
{
    size_t live;
    arbor_status_t status = check_all(n, reqs, &live);
    if (status != ARBOR_OK) return status;
    if (!done_p || (!indices && n)) return ARBOR_ERR_INVALID_ARG;
    if (!live) return ARBOR_ERR_INVALID_ARG;
    bool moved = arb_progress_turn() > 0;
    for (size_t i = 0; i < n; i++)
        if (reqs[i] && !h_valid(reqs[i])) return ARBOR_ERR_HANDLE;
    if ((status = test_idle_all(n, reqs, moved)) != ARBOR_OK) return status;
    status = collect(n, reqs, done_p, indices);
    return status == ARBOR_OK && *done_p == 0 ? ARBOR_INPROGRESS : status;
}

static arbor_status_t arbor_wait_some_unlocked(size_t n, arbor_request_h *reqs, size_t *done_p,
                                               size_t *indices)
{
    size_t live;
    arbor_status_t status = check_all(n, reqs, &live);
    if (status != ARBOR_OK) return status;
    if (!done_p || (!indices && n)) return ARBOR_ERR_INVALID_ARG;
    if (!live) return ARBOR_ERR_INVALID_ARG;
    for (size_t i = 0; i < n; i++) {
        if (!reqs[i]) continue;
        /* waiting on the first live one bounds the wait by ARBOR_TIMEOUT and completes at
         * least one; the others are collected if they are done too */
        status = h_wait(reqs[i]);
        if (status == ARBOR_ERR_TIMEOUT) return status;
        break;
    }
    return collect(n, reqs, done_p, indices);
}

int arb_req_live(void)
{
    int n = 0;
    for (int k = 0; k < nkinds; k++)
        if (kinds[k]->live) n += kinds[k]->live();
    return n;
}

void arb_req_cleanup(void)
{
    for (int k = 0; k < nkinds; k++)
        if (kinds[k]->cleanup) kinds[k]->cleanup();
}

/* Entry points: with the engine lock on (docs/THREADS.md), one caller at a time. */
arbor_status_t arbor_test(arbor_request_h *req)
{
    ARB_ENTER();
    arbor_status_t status = arbor_test_unlocked(req);
    arb_unlock();
    return status;
}

arbor_status_t arbor_wait(arbor_request_h *req)
{
    ARB_ENTER();
    arbor_status_t status = arbor_wait_unlocked(req);
    arb_unlock();
    return status;
}

arbor_status_t arbor_wait_all(size_t n, arbor_request_h *reqs)
{
    ARB_ENTER();
    arbor_status_t status = arbor_wait_all_unlocked(n, reqs);
    arb_unlock();
    return status;
}

arbor_status_t arbor_test_all(size_t n, arbor_request_h *reqs)
{
    ARB_ENTER();
    arbor_status_t status = arbor_test_all_unlocked(n, reqs);
    arb_unlock();
    return status;
}

arbor_status_t arbor_test_some(size_t n, arbor_request_h *reqs, size_t *done_p, size_t *indices)
{
    ARB_ENTER();
    arbor_status_t status = arbor_test_some_unlocked(n, reqs, done_p, indices);
    arb_unlock();
    return status;
}

arbor_status_t arbor_wait_some(size_t n, arbor_request_h *reqs, size_t *done_p, size_t *indices)
{
    ARB_ENTER();
    arbor_status_t status = arbor_wait_some_unlocked(n, reqs, done_p, indices);
    arb_unlock();
    return status;
}
