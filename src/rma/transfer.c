/*
 * The one-sided transfers: their state, completion (requests, the implicit counters, fence,
 * quiet, order) and the per-poll hook, which every other file of the layer calls. Init and
 * finalize: rma_init.c; the contiguous put / get entries: contig.c.
 *
 * Paths. A target whose segment is mapped here (the core's mapping of this node's peers,
 * runtime/segment.h, on every transport; self always) is reached with memcpy; any other through the
 * transport's put / get on its segment key at the allocation's offset. Operations on the mapped
 * path are complete when the call returns.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/doorbell.h"
#include "runtime/flush.h"
#include "runtime/progress.h"
#include "runtime/request.h"
#include "util/log.h"
#include "rma/ctx_stream.h"
#include "rma/rma_impl.h"
#include "runtime/tp_call.h"
#include "runtime/lock.h"

arb_rma_state_t arb_rma;
_Thread_local struct arbor_ctx *arb_rma_cur __attribute__((tls_model("initial-exec")));

static struct {
    arb_rma_poll_fn fn;
    void *arg;
} hooks[8];
static int nhooks;

static arb_rma_fence_fn fence_fn; /* AM-carried operations (the active-message layer) */

void arb_rma_fence_register(arb_rma_fence_fn fn)
{
    fence_fn = fn;
    arb_rma_order_packed_register(fn);
}

static arb_rma_req_t *free_reqs;
static arb_rma_req_t **rslots;
static uint32_t *rgens, nrslots, rfree_hint;

arbor_status_t arb_rma_state_init(void)
{
    int P = arb_ctx.size;
    arb_rma.peer_seg = calloc((size_t)P, sizeof(*arb_rma.peer_seg));
    arb_rma.imp = calloc((size_t)P, sizeof(*arb_rma.imp));
    arb_rma.consumed = calloc((size_t)P, sizeof(*arb_rma.consumed));
    if (!arb_rma.peer_seg || !arb_rma.imp || !arb_rma.consumed) return ARBOR_ERR_NO_MEMORY;
    for (int r = 0; r < P; r++) {
        if (r == arb_ctx.rank)
            arb_rma.peer_seg[r] = arb_ctx.seg;
        else
            arb_rma.peer_seg[r] = arb_peer_map(r);
    }
    return ARBOR_OK;
}

/* The transfers' request table (finalize). */
void arb_rma_req_table_fini(void)
{
    for (uint32_t i = 0; i < nrslots; i++) free(rslots[i]);
    free(rslots);
    free(rgens);
    rslots = NULL;
    rgens = NULL;
    nrslots = rfree_hint = 0;
}

/* The transfers' state (finalize, after the request table and the contexts). */
void arb_rma_state_fini(void)
{
    while (arb_rma.implicit) {
        arb_rma_req_t *n = arb_rma.implicit->next;
        free(arb_rma.implicit);
        arb_rma.implicit = n;
    }
    while (free_reqs) {
        arb_rma_req_t *n = free_reqs->next;
        free(free_reqs);
        free_reqs = n;
    }
    free(arb_rma.peer_seg);
    free(arb_rma.imp);
    free(arb_rma.consumed);
    memset(&arb_rma, 0, sizeof(arb_rma));
    nhooks = 0;
}

uint64_t arb_rma_seg_base(int rank)
{
    return arb_ctx.seg_bases[rank];
}

uint8_t *arb_rma_peer_seg(int rank)
{
    return arb_rma.peer_seg[rank];
}

void arb_rma_target_at(int rank, uint64_t off, arb_rma_target_t *tgt)
{
    tgt->rank = rank;
    tgt->ptr = arb_rma.peer_seg[rank] ? arb_rma.peer_seg[rank] + off : NULL;
    tgt->rkey = arb_tp_seg_rkey(rank);
    tgt->off = off;
    tgt->mem = NULL;
    tgt->reg = false;
}

/* ---- progress ---------------------------------------------------------------------------- */

arbor_status_t arb_rma_poll_register(arb_rma_poll_fn fn, void *arg)
{
    if (!fn) return ARBOR_ERR_INVALID_ARG;
    if (nhooks == (int)(sizeof(hooks) / sizeof(hooks[0]))) return ARBOR_ERR_NO_MEMORY;
    hooks[nhooks].fn = fn;
    hooks[nhooks].arg = arg;
    nhooks++;
    return ARBOR_OK;
}

void arb_rma_poll_unregister(arb_rma_poll_fn fn, void *arg)
{
    for (int i = 0; i < nhooks; i++)
        if (hooks[i].fn == fn && hooks[i].arg == arg) {
            hooks[i] = hooks[--nhooks];
            return;
        }
}

static void req_free(arb_rma_req_t *req);

/* Implicit requests with a finish step: reap the completed ones. */
static int reap_implicit(void)
{
    int n = 0;
    for (arb_rma_req_t **pp = &arb_rma.implicit; *pp;) {
        arb_rma_req_t *r = *pp;
        if (!arb_rma_req_test(r)) {
            pp = &r->next;
            continue;
        }
        if (r->status != ARBOR_OK || r->comp.status != ARBOR_OK)
            arb_warn("an implicit one-sided operation to rank %d failed: %s", r->rank,
                     arbor_strerror(r->status != ARBOR_OK ? r->status : r->comp.status));
        *pp = r->next;
        req_free(r);
        n++;
    }
    return n;
}

int arb_rma_poll(void)
{
    int moved = 0;
    for (int i = 0; i < nhooks; i++) moved += hooks[i].fn(hooks[i].arg);
    if (arb_rma.implicit) moved += reap_implicit();
    return moved;
}

int arb_rma_progress_once(void)
{
    /* What the engine issues from here (an active-message handler's implicit put) belongs to
     * the default context, not to the context whose call waits. */
    struct arbor_ctx *cur = arb_rma_cur;
    arb_rma_cur = NULL;
    int moved = arb_tp_progress();
    if (moved < 0) moved = 0;
    moved += arb_progress_all();
    arb_rma_cur = cur;
    return moved;
}

void arb_rma_backoff(unsigned *tries)
{
    bool idle = arb_rma_progress_once() == 0;
    if (arb_ctx.locking)
        arb_wait_pause(idle); /* another thread may hold what we retry for */
    else if (idle && (arb_ctx.yield || ++*tries > 64))
        sched_yield();
}

typedef struct {
    bool (*done)(void *);
    void *arg;
} wait_arg_t;

/* The re-check of interrupt mode's waiting step (runtime/doorbell.h). */
static bool wait_recheck(void *arg)
{
    wait_arg_t *w = arg;
    return arb_rma_progress_once() > 0 || w->done(w->arg);
}

arbor_status_t arb_rma_wait_until_pred(bool (*done)(void *), void *arg, bool yield_when_stalled,
                                       const char *what)
{
    uint64_t seen = arb_ctx.stream.epoch;
    double since = 0;
    unsigned idle = 0;
    arb_nap_t nap = {0};
    wait_arg_t w = {done, arg};
    while (!done(arg)) {
        if (arb_rma_progress_once() || arb_ctx.stream.epoch != seen) {
            seen = arb_ctx.stream.epoch;
            idle = 0;
            since = 0;
            nap.idle_since = 0;
            arb_wait_pause(false);
            continue;
        }
        arb_wait_pause(true);
        if (!arb_bell_nap(&nap, wait_recheck, &w) && ++idle % 256) continue;
        double now = arb_now_us();
        if (since == 0) since = now;
        if (yield_when_stalled && now - since > 1000) sched_yield();
        if (arb_ctx.cfg.timeout_s > 0 && now - since > arb_ctx.cfg.timeout_s * 1e6) {
            arb_error("%s made no progress for %g s (ARBOR_TIMEOUT)", what, arb_ctx.cfg.timeout_s);
            return ARBOR_ERR_TIMEOUT;
        }
    }
    return ARBOR_OK;
}

static arbor_status_t wait_for(bool (*done)(void *), void *arg, const char *what)
{
    return arb_rma_wait_until_pred(done, arg, false, what);
}

static bool comp_done(void *arg)
{
    return arb_tp_comp_pending(arg) <= 0;
}

arbor_status_t arb_rma_wait_comp(arb_tp_comp_t *comp, const char *what)
{
    arbor_status_t status = wait_for(comp_done, comp, what);
    return status != ARBOR_OK ? status : comp->status;
}

/* ---- requests ---------------------------------------------------------------------------- */

arb_rma_req_t *arb_rma_req_get(int rank)
{
    arb_rma_req_t *r = free_reqs;
    if (r)
        free_reqs = r->next;
    else if (!(r = malloc(sizeof(*r))))
        return NULL;
    memset(r, 0, sizeof(*r));
    r->rank = rank;
    return r;
}

static void req_free(arb_rma_req_t *req)
{
    req->next = free_reqs;
    free_reqs = req;
}

bool arb_rma_req_test(arb_rma_req_t *req)
{
    if (req->finished) return true;
    if (arb_tp_comp_pending(&req->comp) > 0) return false;
    if (req->finish && req->status == ARBOR_OK && req->comp.status == ARBOR_OK) req->finish(req);
    req->finished = true;
    return true;
}

static bool req_cond(void *arg)
{
    return arb_rma_req_test(arg);
}

arbor_status_t arb_rma_req_wait_one(arb_rma_req_t *req)
{
    arbor_status_t status = wait_for(req_cond, req, "a one-sided operation");
    if (status != ARBOR_OK) return status;
    return req->status != ARBOR_OK ? req->status : req->comp.status;
}

static arbor_request_h encode(uint32_t idx, uint32_t gen)
{
    return (arbor_request_h)(uintptr_t)(((uint64_t)gen << 32) | ARB_RMA_REQ_TAG |
                                        (uint64_t)(idx + 1));
}

static arb_rma_req_t *decode(arbor_request_h h)
{
    uint64_t v = (uint64_t)(uintptr_t)h;
    if (!(v & ARB_RMA_REQ_TAG)) return NULL;
    uint32_t idx = (uint32_t)(v & (ARB_RMA_REQ_TAG - 1)), gen = (uint32_t)(v >> 32);
    if (idx == 0 || idx > nrslots) return NULL;
    return rslots[idx - 1] && rgens[idx - 1] == gen ? rslots[idx - 1] : NULL;
}

static arbor_status_t slot_new(arb_rma_req_t *req, arbor_request_h *req_p)
{
    uint32_t i = rfree_hint;
    while (i < nrslots && rslots[i]) i++;
    if (i == nrslots)
        for (i = 0; i < nrslots && rslots[i]; i++) {
        }
    if (i == nrslots) {
        uint32_t n = nrslots ? 2 * nrslots : 64;
        if (n >= ARB_RMA_REQ_TAG) return ARBOR_ERR_NO_MEMORY;
        arb_rma_req_t **ns = realloc(rslots, n * sizeof(*ns));
        if (!ns) return ARBOR_ERR_NO_MEMORY;
        rslots = ns;
        uint32_t *ng = realloc(rgens, n * sizeof(*ng));
        if (!ng) return ARBOR_ERR_NO_MEMORY;
        rgens = ng;
        for (uint32_t j = nrslots; j < n; j++) {
            rslots[j] = NULL;
            rgens[j] = 0;
        }
        nrslots = n;
    }
    rslots[i] = req;
    rgens[i]++;
    arb_rma.handles++;
    rfree_hint = i + 1;
    req->slot = i + 1;
    req->explicit_h = true;
    *req_p = encode(i, rgens[i]);
    return ARBOR_OK;
}

arbor_status_t arb_rma_req_commit(arb_rma_req_t *req, arbor_request_h *req_p, bool blocking)
{
    arbor_status_t status;
    if (blocking) {
        status = arb_rma_req_wait_one(req);
        if (status == ARBOR_ERR_TIMEOUT && !arb_rma_req_test(req)) {
            arb_rma_req_t **head = arb_rma_implicit_head();
            req->next = *head; /* leave it for a later fence / finalize */
            *head = req;
            return status;
        }
        req_free(req);
        return status;
    }
    if (req_p) {
        if ((status = slot_new(req, req_p)) != ARBOR_OK) {
            arb_rma_req_wait_one(req); /* no handle to give: complete it here */
            req_free(req);
        }
        return status;
    }
    if (arb_rma_req_test(req)) {
        status = req->status != ARBOR_OK ? req->status : req->comp.status;
        req_free(req);
        return status;
    }
    arb_rma_req_t **head = arb_rma_implicit_head();
    req->next = *head;
    *head = req;
    return ARBOR_OK;
}

arbor_status_t arb_rma_req_done_handle(int rank, arbor_request_h *req_p)
{
    arb_rma_req_t *req = arb_rma_req_get(rank);
    if (!req) return ARBOR_ERR_NO_MEMORY;
    return arb_rma_req_commit(req, req_p, false);
}

bool arb_rma_req_valid(arbor_request_h h)
{
    return decode(h) != NULL;
}

bool arb_rma_req_done(arbor_request_h h)
{
    arb_rma_req_t *r = decode(h);
    return !r || arb_rma_req_test(r);
}

arbor_status_t arb_rma_req_wait(arbor_request_h h)
{
    arb_rma_req_t *r = decode(h);
    if (!r) return ARBOR_ERR_HANDLE;
    return arb_rma_req_wait_one(r);
}

/* arbor_test's counterpart of arb_rma_req_wait's bound (the chain version in runtime/progress.c
 * says why a clock read per call): ARBOR_ERR_TIMEOUT, the handle kept, once nothing moved for
 * ARBOR_TIMEOUT seconds of testing; the count then starts again. */
arbor_status_t arb_rma_req_test_idle(arbor_request_h h, bool moved)
{
    arb_rma_req_t *r = decode(h);
    if (!r || arb_rma_req_test(r)) return ARBOR_OK;
    double now = arb_now_us();
    if (moved || r->test_epoch != arb_ctx.stream.epoch || r->test_idle_since == 0) {
        r->test_epoch = arb_ctx.stream.epoch;
        r->test_idle_since = now;
        return ARBOR_OK;
    }
    if (arb_ctx.cfg.timeout_s <= 0 || now - r->test_idle_since <= arb_ctx.cfg.timeout_s * 1e6)
        return ARBOR_OK;
    arb_error("a one-sided operation made no progress for %g s of arbor_test (ARBOR_TIMEOUT)",
              arb_ctx.cfg.timeout_s);
    r->test_idle_since = 0;
    return ARBOR_ERR_TIMEOUT;
}

arbor_status_t arb_rma_req_release(arbor_request_h *h)
{
    arb_rma_req_t *r = decode(*h);
    if (!r) return ARBOR_ERR_HANDLE;
    arbor_status_t status = r->status != ARBOR_OK ? r->status : r->comp.status;
    rslots[r->slot - 1] = NULL;
    rfree_hint = r->slot - 1;
    arb_rma.handles--;
    req_free(r);
    *h = NULL;
    return status;
}

int arb_rma_req_live(void)
{
    int n = 0;
    for (uint32_t i = 0; i < nrslots; i++) n += rslots[i] != NULL;
    return n;
}

/* ---- transport operations ------------------------------------------------------------------ */

void arb_rma_after_post(int rank)
{
    arb_rma.posted = true;
    if (arb_rma_cur) {
        arb_rma_cur->dirty[rank] = true;
        arb_rma_cur->posted = true;
    }
    arb_bell_ring(rank); /* a transport operation within a node raises no event at its target */
    if (arb_ctx.cfg.rma_ordered) arb_tp_fence(rank);
}

typedef struct {
    arb_tp_comp_t *comp;
    int rank;
    unsigned polls;
    bool lost;
} comp_to_t;

/* Done, or its target gone: an operation the transport emulates at a target that died (UCX on
 * memory it did not allocate) never completes, and finalize after a loss must not wait for it. */
static bool comp_or_lost(void *arg)
{
    comp_to_t *c = arg;
    if (arb_tp_comp_pending(c->comp) <= 0) return true;
    if (++c->polls % 64 || !arb_ctx.boot) return false;
    c->lost =
        arb_ctx.boot->ops->losses(arb_ctx.boot) && arb_ctx.boot->ops->lost(arb_ctx.boot, c->rank);
    return c->lost;
}

/* After a transport operation was accepted. A heap word of a mapped target reached through the
 * transport (its atomics, where CPU atomics are off because some rank is not mapped) must be
 * done before a later mapped load or store to it, which no transport fence orders: under
 * location order the call completes it here. Registered memory is never reached by mapping. */
static arbor_status_t posted(int rank, const arb_tp_rkey_t *key, arb_tp_comp_t *comp)
{
    arb_rma_after_post(rank);
    if (!arb_rma_order_on() || !arb_rma.peer_seg[rank] || key != arb_tp_seg_rkey(rank))
        return ARBOR_OK;
    comp_to_t c = {comp, rank, 0, false};
    arbor_status_t status = wait_for(comp_or_lost, &c, "a transport operation to a mapped target");
    if (status != ARBOR_OK) return status;
    return c.lost ? ARBOR_ERR_PEER_LOST : comp->status;
}

arbor_status_t arb_rma_tp_put(int rank, arb_tp_rkey_t *key, uint64_t off, const void *src,
                              size_t len, arb_tp_comp_t *comp)
{
    arbor_status_t status;
    if (!key) key = arb_tp_seg_rkey(rank);
    if (!comp) comp = arb_rma_imp(rank);
    if ((status = arb_rma_order_access(rank, off, len, true)) != ARBOR_OK) return status;
    ARB_RMA_POST(status, arb_tp_put(src, len, key, off, comp));
    if (status == ARBOR_OK) status = posted(rank, key, comp);
    return status;
}

arbor_status_t arb_rma_tp_get(int rank, arb_tp_rkey_t *key, uint64_t off, void *dst, size_t len,
                              arb_tp_comp_t *comp)
{
    arbor_status_t status;
    if (!key) key = arb_tp_seg_rkey(rank);
    if (!comp) comp = arb_rma_imp(rank);
    if ((status = arb_rma_order_access(rank, off, len, false)) != ARBOR_OK) return status;
    ARB_RMA_POST(status, arb_tp_get(dst, len, key, off, comp));
    if (status == ARBOR_OK) status = posted(rank, key, comp);
    return status;
}

arbor_status_t arb_rma_tp_amo(int rank, arb_tp_rkey_t *key, uint64_t off, arb_tp_amo_t op,
                              uint64_t operand, uint64_t compare, uint64_t *result,
                              arb_tp_comp_t *comp)
{
    arbor_status_t status;
    if (!key) key = arb_tp_seg_rkey(rank);
    if (!comp) comp = arb_rma_imp(rank);
    if ((status = arb_rma_order_access(rank, off, sizeof(uint64_t), true)) != ARBOR_OK)
        return status;
    ARB_RMA_POST(status, arb_tp_amo(op, key, off, operand, compare, result, comp));
    if (status == ARBOR_OK) status = posted(rank, key, comp);
    return status;
}

/* ---- completion calls ----------------------------------------------------------------------- */

typedef struct {
    int rank;
} to_arg_t;

static bool imp_done(void *arg)
{
    int rank = ((to_arg_t *)arg)->rank;
    if (rank >= 0) return arb_tp_comp_pending(&arb_rma.imp[rank]) <= 0;
    for (int r = 0; r < arb_ctx.size; r++)
        if (arb_tp_comp_pending(&arb_rma.imp[r]) > 0) return false;
    return true;
}

/* Rescans the handle table at every turn: another thread may grow it (or release one of its
 * handles) while we pause. */
static bool explicit_done(void *arg)
{
    int rank = ((to_arg_t *)arg)->rank;
    for (uint32_t i = 0; i < nrslots; i++) {
        arb_rma_req_t *r = rslots[i];
        if (r && (rank < 0 || r->rank == rank) && !arb_rma_req_test(r)) return false;
    }
    return true;
}

static bool implicit_done(void *arg)
{
    int rank = ((to_arg_t *)arg)->rank;
    for (arb_rma_req_t *r = arb_rma.implicit; r; r = r->next)
        if ((rank < 0 || r->rank == rank) && !arb_rma_req_test(r)) return false;
    return true;
}

arbor_status_t arb_rma_complete_to(int rank)
{
    to_arg_t a = {rank};
    arbor_status_t status = wait_for(imp_done, &a, rank >= 0 ? "arbor_fence" : "arbor_quiet");
    if (status != ARBOR_OK) return status;
    if ((status = wait_for(explicit_done, &a, rank >= 0 ? "arbor_fence" : "arbor_quiet")) !=
        ARBOR_OK)
        return status;
    /* Implicit requests: the progress engine reaps completed ones while we wait, so wait on a
     * condition that rescans the list rather than holding a pointer into it. */
    if ((status = wait_for(implicit_done, &a, "arbor_fence")) != ARBOR_OK) return status;
    reap_implicit();
    /* Operations carried by active messages (packed strided puts) have run at the target
     * once its head passed their tickets; what their handlers wrote is then in place. */
    if (fence_fn && (status = fence_fn(rank)) != ARBOR_OK) return status;
    status = ARBOR_OK;
    for (int r = 0; r < arb_ctx.size; r++) {
        if (rank >= 0 && r != rank) continue;
        if (arb_rma.imp[r].status != ARBOR_OK) {
            status = arb_rma.imp[r].status; /* an implicit operation failed: report it once */
            arb_rma.imp[r].status = ARBOR_OK;
        }
    }
    /* A fence to one rank flushes that rank only: one in flight to another (idle, or gone)
     * must not hold it, and what the others still owe keeps posted set for the next quiet. */
    if (arb_rma.posted) {
        arbor_status_t fs = rank >= 0 ? arb_flush_peers(&rank, 1, "arbor_fence")
                                      : arb_flush_peers(NULL, 0, "arbor_quiet");
        if (fs != ARBOR_OK) return fs;
        if (rank < 0) arb_rma.posted = false;
    }
    arb_rma_order_reset(rank); /* everything to rank is complete there */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return status;
}

arbor_status_t arb_rma_order_to(int rank)
{
    arbor_status_t status = arb_rma_check_rank(rank);
    /* A packed put still queued at the target is applied by its handler whenever the target
     * polls: a transport fence cannot order a later operation after it, so wait for it. */
    if (status == ARBOR_OK && fence_fn) status = fence_fn(rank);
    if (status == ARBOR_OK) {
        if (arb_rma.peer_seg[rank] && arb_rma.cpu_atomics)
            __atomic_thread_fence(__ATOMIC_SEQ_CST); /* everything to it is done already */
        else
            status = arb_tp_fence(rank);
        if (status == ARBOR_OK) arb_rma_order_reset(rank);
    }
    return status;
}

arbor_status_t arbor_order(int rank)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    ARB_ENTER();
    arbor_status_t status = arb_rma_order_to(rank);
    arb_unlock();
    return status;
}

/* arbor_fence(rank) is one memory barrier: rank is mapped and nothing to it is in flight or
 * unreported (no transport operation since the last flush, no request, implicit or with a
 * handle, anywhere, no implicit count or error for rank), so every put, get and atomic to rank
 * was done by this core at issue (streaming copies end with their own sfence). The fence hook
 * (fence_fn) has nothing to wait for then: packed strided puts never go to a mapped target
 * (arb_rma_strided_choose). */
static bool fence_is_barrier(int rank)
{
    return (unsigned)rank < (unsigned)arb_ctx.size && arb_rma.peer_seg[rank] && !arb_rma.posted &&
           !arb_rma.implicit && arb_rma.handles == 0 &&
           arb_tp_comp_pending(&arb_rma.imp[rank]) <= 0 && arb_rma.imp[rank].status == ARBOR_OK;
}

/* Why a full barrier and not a store fence, although stores to a mapped peer need no more to
 * be ordered before our later stores: arbor.h promises "visible to any later access by anyone",
 * which must hold when this rank learns what is "later" by a load, e.g. two ranks that each
 * put a flag to the other, fence, then read their own flag (at least one must see the other's);
 * only a barrier keeps the load from passing the stores still in the store buffer. It is what
 * MPI_Win_flush does on a shared-memory window (Open MPI's osc sm: lock orq), so the
 * comparison of bench/compare is like for like. A few ns (docs/ONESIDED.md, "Performance"). */
static inline void fence_barrier(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

arbor_status_t arbor_fence(int rank)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    /* Without a lock to take, the barrier-only case runs before the prologue. */
    if (!arb_ctx.locking && arb_in_callback == ARB_CB_NONE && fence_is_barrier(rank)) {
        fence_barrier();
        return ARBOR_OK;
    }
    ARB_ENTER();
    arbor_status_t status = arb_rma_check_rank(rank);
    if (status == ARBOR_OK && fence_is_barrier(rank))
        fence_barrier();
    else if (status == ARBOR_OK)
        status = arb_rma_complete_to(rank);
    arb_unlock();
    return status;
}

arbor_status_t arb_rma_quiet(void)
{
    if (!arb_rma.imp) return ARBOR_OK;
    arbor_status_t status = ARBOR_OK;
    for (struct arbor_ctx *c = arb_rma_ctx_live; c; c = c->next) {
        arbor_status_t s = arb_rma_ctx_complete(c);
        if (status == ARBOR_OK) status = s;
    }
    arbor_status_t s = arb_rma_complete_to(-1);
    return status != ARBOR_OK ? status : s;
}

/* ---- contexts: completion ------------------------------------------------------------------ */

static bool ctx_imp_done(void *arg)
{
    const struct arbor_ctx *c = arg;
    for (int r = 0; r < arb_ctx.size; r++)
        if (arb_tp_comp_pending(&c->imp[r]) > 0) return false;
    return true;
}

/* Rescans the list each turn: another thread sharing the context may add to it meanwhile. */
static bool ctx_implicit_done(void *arg)
{
    const struct arbor_ctx *c = arg;
    for (arb_rma_req_t *r = c->implicit; r; r = r->next)
        if (!arb_rma_req_test(r)) return false;
    return true;
}

arbor_status_t arb_rma_ctx_complete(struct arbor_ctx *c)
{
    /* The stream's operations first (ctx_stream.c). */
    arbor_status_t status = arb_rma_ctx_stream_quiet_locked(c);
    if (status != ARBOR_OK) return status;
    status = wait_for(ctx_imp_done, c, "arbor_ctx_quiet");
    if (status == ARBOR_OK) status = wait_for(ctx_implicit_done, c, "arbor_ctx_quiet");
    if (status != ARBOR_OK) return status;
    /* Packed strided puts of this context have run at their targets (the hook waits for every
     * rank's: more than this context's, never less). */
    if (c->strided) {
        c->strided = false;
        if (fence_fn && (status = fence_fn(-1)) != ARBOR_OK) return status;
    }
    while (c->implicit) {
        arb_rma_req_t *r = c->implicit;
        c->implicit = r->next;
        if (status == ARBOR_OK) status = r->status != ARBOR_OK ? r->status : r->comp.status;
        req_free(r);
    }
    for (int r = 0; r < arb_ctx.size; r++)
        if (c->imp[r].status != ARBOR_OK) {
            if (status == ARBOR_OK) status = c->imp[r].status; /* reported once */
            c->imp[r].status = ARBOR_OK;
        }
    /* Locally complete; the flush makes them complete at their targets. The marks are cleared
     * before it starts: a thread sharing the context may post (and mark) while the flush
     * waits, and that operation is for the next quiet. */
    if (c->posted) {
        int *peers = malloc((size_t)arb_ctx.size * sizeof(int)), n = 0;
        c->posted = false;
        for (int r = 0; r < arb_ctx.size; r++)
            if (c->dirty[r]) {
                c->dirty[r] = false;
                if (peers) peers[n++] = r;
            }
        arbor_status_t fs = peers ? arb_flush_peers(peers, n, "arbor_ctx_quiet")
                                  : arb_flush_peers(NULL, 0, "arbor_ctx_quiet");
        free(peers);
        if (fs != ARBOR_OK) return fs;
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return status;
}

void arb_rma_ctx_drop(struct arbor_ctx *c)
{
    while (c->implicit) {
        arb_rma_req_t *r = c->implicit;
        c->implicit = r->next;
        req_free(r);
    }
}

arbor_status_t arbor_quiet(void)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    ARB_ENTER();
    arbor_status_t status = arb_rma_complete_to(-1);
    arb_unlock();
    return status;
}

/* The active-message layer's fence over every target (contexts' fences and quiets). */
arbor_status_t arb_rma_ctx_fence_packed(void)
{
    return fence_fn ? fence_fn(-1) : ARBOR_OK;
}
