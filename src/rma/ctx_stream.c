/*
 * A private communication context's transport stream (docs/ONESIDED.md, "Contexts"). A private
 * context is used by one thread; through the shared path its operations to targets it does not
 * map take the engine lock and share the transport's one worker / endpoint with every other
 * thread. Its stream (transport.h, "Streams") is transport resources of its own, opened on the
 * context's first operation through the transport (creating contexts stays cheap), on which
 * its contiguous puts and gets and its single 64-bit atomics to user allocations of unmapped
 * targets run with no lock: the owner thread alone reads and writes what is here.
 *
 * What goes on the stream. The address must be in the context's own copy of a translation the
 * locked path made (learnt after a call under the lock, as the mapped copies of ctx.c are; an
 * allocation freed anywhere makes every copy stale). The target is not mapped here, so the
 * default context uses the transport's atomics for that word as well (arb_rma_cpu_amo): a
 * stream atomic is a transport atomic, and CPU and transport atomics never meet on one word.
 * Everything else (strided, signals, accumulates, registered memory, atomics the transport
 * builds from loops, calls inside a callback) keeps the locked path.
 *
 * Order within the context. The stream's own operations keep location order as the shared
 * path does (order.c): extents per target, a stream fence before an access that overlaps an
 * earlier one. Between the two paths: the stream is used for a target only while nothing of
 * the context went to it through the shared path since its last quiet (c->dirty), and before
 * an operation on the shared path to a target the stream posted to, the stream is flushed
 * (arb_rma_ctx_stream_settle). Different contexts (the default one included) are ordered by
 * quiet only, as OpenSHMEM has it: the stream is another transport resource.
 *
 * Waits are bounded by ARBOR_TIMEOUT without progress. While one waits, the thread also takes
 * a turn of the engine now and then, when the lock is free: a peer's operation on this rank's
 * memory may need this rank's progress (libfabric, UCX's emulation), and the threads of a rank
 * may all be waiting on their streams.
 */
#include "rma/ctx_stream.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "rma/order.h"
#include "rma/rma_impl.h"
#include "runtime/lock.h"
#include "runtime/progress.h"
#include "runtime/tp_call.h"
#include "util/clock.h"
#include "util/log.h"

/* The context's copy of a translation to an unmapped target's user allocation. */
typedef struct {
    uint64_t lo, hi; /* remote addresses, in the target's address space */
    uint64_t base;   /* the target's segment base: the stream's offsets start there */
    unsigned gen;    /* arb_rma_xgen when it was taken; 0: empty */
} stream_hit_t;

/* Location order on the stream (order.c's extents): written and read since its last fence. */
typedef struct {
    uint64_t wlo, whi, rlo, rhi;
} stream_ext_t;

struct arb_rma_cstream {
    arb_tp_stream_t *s;  /* NULL: not opened (refused, or no translation learnt yet) */
    bool refused;        /* the transport has no streams: the shared path for good */
    bool posted;         /* operations since the last flush */
    arb_tp_comp_t imp;   /* the non-blocking operations */
    arb_tp_comp_t bcomp; /* the blocking operation (one at a time; one that timed out stays) */
    uint64_t word;       /* a blocking atomic's result (stable while it is in flight) */
    uint64_t sink;       /* results nobody reads (SET) */
    stream_hit_t *hits;  /* [world size] */
    stream_ext_t *ext;   /* [world size]; NULL when location order is off */
    bool *sent;          /* [world size] posted to since the last flush */
    int *sent_list;      /* [world size] those targets (a quiet resets only theirs) */
    int nsent;
    bool lock_held; /* this thread holds the engine lock for the span of a wait (complete) */
};

static void cstream_free(struct arb_rma_cstream *cs)
{
    if (!cs) return;
    if (cs->s) arb_ctx.tp_ops->stream_close(arb_ctx.tp, cs->s);
    free(cs->hits);
    free(cs->ext);
    free(cs->sent);
    free(cs->sent_list);
    free(cs);
}

void arb_rma_ctx_stream_free(struct arbor_ctx *c)
{
    cstream_free(c->cs);
    c->cs = NULL;
}

static struct arb_rma_cstream *cstream_new(void)
{
    struct arb_rma_cstream *cs = calloc(1, sizeof(*cs));
    if (!cs) return NULL;
    size_t P = (size_t)arb_ctx.size;
    cs->hits = calloc(P, sizeof(*cs->hits));
    cs->sent = calloc(P, sizeof(*cs->sent));
    cs->sent_list = calloc(P, sizeof(*cs->sent_list));
    if (arb_rma_order_on()) cs->ext = calloc(P, sizeof(*cs->ext));
    if (!cs->hits || !cs->sent || !cs->sent_list || (arb_rma_order_on() && !cs->ext)) {
        cstream_free(cs);
        return NULL;
    }
    return cs;
}

void arb_rma_ctx_stream_learn(struct arbor_ctx *c, int w)
{
    if (!c || !c->pxhits || !arb_ctx.tp_ops->stream_open || w == arb_ctx.rank) return;
    const arb_rma_xhit_t *h = arb_rma_xhits ? &arb_rma_xhits[w] : NULL;
    if (!h || !h->m || h->m->internal || h->seg || h->rkey != arb_tp_seg_rkey(w)) return;
    if (!c->cs && !(c->cs = cstream_new())) return; /* no memory: the shared path serves */
    struct arb_rma_cstream *cs = c->cs;
    if (cs->refused) return;
    if (!cs->s) {
        arbor_status_t st = arb_ctx.tp_ops->stream_open(arb_ctx.tp, &cs->s);
        if (st != ARBOR_OK) {
            cs->s = NULL;
            cs->refused = true;
            arb_debug("private context: no transport stream (%s): its operations through the "
                      "transport take the engine lock",
                      arbor_strerror(st));
            return;
        }
        arb_debug("private context: transport stream opened (first target world rank %d)", w);
    }
    cs->hits[w] = (stream_hit_t){h->lo, h->hi, arb_ctx.seg_bases[w],
                                 __atomic_load_n(&arb_rma_xgen, __ATOMIC_RELAXED)};
}

/* The segment offset of [addr, addr + len) at w from the context's copy, or false. */
static inline bool stream_hit(const struct arb_rma_cstream *cs, int w, const void *addr, size_t len,
                              uint64_t *off_p)
{
    const stream_hit_t *h = &cs->hits[w];
    uint64_t a = (uint64_t)(uintptr_t)addr;
    if (h->gen != __atomic_load_n(&arb_rma_xgen, __ATOMIC_ACQUIRE) || a < h->lo || a > h->hi ||
        len > h->hi - a)
        return false;
    *off_p = a - h->base;
    return true;
}

/* Whether the stream may carry an operation of c to w now (the paths' order: file comment). */
static inline struct arb_rma_cstream *usable(const struct arbor_ctx *c, int w)
{
    struct arb_rma_cstream *cs = c->cs;
    if (!cs || !cs->s || arb_in_callback != ARB_CB_NONE || c->dirty[w] || c->strided) return NULL;
    return cs;
}

/* A turn of the engine (the transport, then everything else it drives) for what peers need of
 * this rank: when this thread holds the lock (a wait inside arb_rma_ctx_complete), or nobody
 * does. What it issues belongs to the default context (arb_rma_progress_once's reason). */
static void engine_turn(const struct arb_rma_cstream *cs)
{
    bool take = arb_ctx.locking && !cs->lock_held;
    if (take && pthread_mutex_trylock(&arb_ctx.lock) != 0) return; /* its holder drives it */
    struct arbor_ctx *cur = arb_rma_cur;
    arb_rma_cur = NULL;
    arb_tp_progress();
    arb_progress_all();
    arb_rma_cur = cur;
    if (take) pthread_mutex_unlock(&arb_ctx.lock);
}

/* Drives the stream until step() is done (ARB_ERR_AGAIN: not yet), bounded by ARBOR_TIMEOUT
 * without progress. */
static arbor_status_t drive(struct arb_rma_cstream *cs, arbor_status_t (*step)(void *), void *arg,
                            const char *what)
{
    double since = 0;
    unsigned idle = 0;
    arbor_status_t st;
    while ((st = step(arg)) == ARB_ERR_AGAIN) {
        if (arb_ctx.tp_ops->stream_progress(cs->s) > 0) {
            idle = 0;
            since = 0;
            continue;
        }
        if (++idle % 64 == 0) engine_turn(cs);
        if (idle % 256) continue;
        if (arb_ctx.yield) sched_yield();
        double now = arb_now_us();
        if (since == 0) since = now;
        if (arb_ctx.cfg.timeout_s > 0 && now - since > arb_ctx.cfg.timeout_s * 1e6) {
            arb_error("%s made no progress for %g s (ARBOR_TIMEOUT)", what, arb_ctx.cfg.timeout_s);
            return ARBOR_ERR_TIMEOUT;
        }
    }
    return st;
}

static arbor_status_t comp_step(void *arg)
{
    return arb_tp_comp_pending(arg) > 0 ? ARB_ERR_AGAIN : ARBOR_OK;
}

/* The comp's error, reported once. */
static arbor_status_t comp_take(arb_tp_comp_t *comp)
{
    arbor_status_t st = comp->status;
    comp->status = ARBOR_OK;
    return st;
}

static arbor_status_t flush_step(void *arg)
{
    return arb_ctx.tp_ops->stream_flush(arg);
}

/* Location order starts again for every target posted to (after a fence or a flush). */
static void ext_reset(struct arb_rma_cstream *cs)
{
    for (int i = 0; cs->ext && i < cs->nsent; i++) cs->ext[cs->sent_list[i]] = (stream_ext_t){0};
}

arbor_status_t arb_rma_ctx_stream_quiet(struct arbor_ctx *c)
{
    struct arb_rma_cstream *cs = c->cs;
    if (!cs || !cs->posted) return ARBOR_OK;
    arbor_status_t st = drive(cs, comp_step, &cs->imp, "arbor_ctx_quiet (stream)");
    if (st == ARBOR_OK) st = drive(cs, flush_step, cs->s, "arbor_ctx_quiet (stream flush)");
    if (st != ARBOR_OK) return st;
    cs->posted = false;
    ext_reset(cs);
    for (int i = 0; i < cs->nsent; i++) cs->sent[cs->sent_list[i]] = false;
    cs->nsent = 0;
    return comp_take(&cs->imp); /* the callers end with arbor_fence's barrier */
}

arbor_status_t arb_rma_ctx_stream_quiet_locked(struct arbor_ctx *c)
{
    if (!c->cs) return ARBOR_OK;
    c->cs->lock_held = true;
    arbor_status_t st = arb_rma_ctx_stream_quiet(c);
    c->cs->lock_held = false;
    return st;
}

arbor_status_t arb_rma_ctx_stream_fence(struct arbor_ctx *c)
{
    struct arb_rma_cstream *cs = c->cs;
    if (!cs || !cs->posted) return ARBOR_OK;
    ext_reset(cs);
    return arb_ctx.tp_ops->stream_fence(cs->s, -1);
}

arbor_status_t arb_rma_ctx_stream_settle(struct arbor_ctx *c, int w)
{
    struct arb_rma_cstream *cs = c->cs;
    if (!cs || !cs->posted || (w >= 0 && !cs->sent[w])) return ARBOR_OK;
    return arb_rma_ctx_stream_quiet(c);
}

/* Location order before an access to [off, off + len) of w (order.c's rule). */
static arbor_status_t order_access(struct arb_rma_cstream *cs, int w, uint64_t off, size_t len,
                                   bool write)
{
    if (!cs->ext) return ARBOR_OK;
    stream_ext_t *e = &cs->ext[w];
    const uint64_t end = off + len;
    if (arb_rma_extent_meets(e->wlo, e->whi, off, end) ||
        (write && arb_rma_extent_meets(e->rlo, e->rhi, off, end))) {
        arbor_status_t st = arb_ctx.tp_ops->stream_fence(cs->s, w);
        if (st != ARBOR_OK) return st;
        *e = (stream_ext_t){0, 0, 0, 0};
    }
    if (write)
        arb_rma_extent_widen(&e->wlo, &e->whi, off, end);
    else
        arb_rma_extent_widen(&e->rlo, &e->rhi, off, end);
    return ARBOR_OK;
}

typedef struct {
    struct arb_rma_cstream *cs;
    int kind; /* 0 put, 1 get, 2 atomic */
    int w;
    uint64_t off;
    const void *src;
    void *dst;
    size_t len;
    arb_tp_amo_t op;
    uint64_t operand, compare;
    uint64_t *result;
    arb_tp_comp_t *comp;
} post_t;

static arbor_status_t post_step(void *arg)
{
    post_t *p = arg;
    const arb_tp_ops_t *o = arb_ctx.tp_ops;
    switch (p->kind) {
    case 0:
        return o->stream_put(p->cs->s, p->w, p->off, p->src, p->len, p->comp);
    case 1:
        return o->stream_get(p->cs->s, p->w, p->off, p->dst, p->len, p->comp);
    default:
        return o->stream_amo(p->cs->s, p->w, p->off, p->op, p->operand, p->compare, p->result,
                             p->comp);
    }
}

/* Posts p (retrying while the stream pushes back), then, blocking, waits for it. */
static arbor_status_t post(post_t *p, bool blocking)
{
    struct arb_rma_cstream *cs = p->cs;
    arbor_status_t st = order_access(cs, p->w, p->off, p->len, p->kind != 1);
    if (st != ARBOR_OK) return st;
    p->comp = blocking ? &cs->bcomp : &cs->imp;
    st = drive(cs, post_step, p, "a one-sided operation on a context's stream");
    if (st != ARBOR_OK) return st; /* ARB_ERR_NOT_STREAM included: nothing was posted */
    cs->posted = true;
    if (!cs->sent[p->w]) {
        cs->sent[p->w] = true;
        cs->sent_list[cs->nsent++] = p->w;
    }
    if (arb_ctx.cfg.rma_ordered && (st = arb_ctx.tp_ops->stream_fence(cs->s, p->w)) != ARBOR_OK)
        return st;
    if (!blocking) return ARBOR_OK;
    st = drive(cs, comp_step, &cs->bcomp, "a one-sided operation on a context's stream");
    return st != ARBOR_OK ? st : comp_take(&cs->bcomp);
}

arbor_status_t arb_rma_ctx_stream_xfer(struct arbor_ctx *c, bool put, int w, void *dst,
                                       const void *src, size_t nbytes, bool blocking)
{
    struct arb_rma_cstream *cs = usable(c, w);
    uint64_t off;
    if (!cs || nbytes == 0 || !dst || !src || !stream_hit(cs, w, put ? dst : src, nbytes, &off))
        return ARB_ERR_NOT_STREAM;
    post_t p = {.cs = cs, .kind = put ? 0 : 1, .w = w, .off = off, .len = nbytes};
    p.src = src;
    p.dst = dst;
    return post(&p, blocking);
}

arbor_status_t arb_rma_ctx_stream_amo(struct arbor_ctx *c, int w, void *dst, arb_tp_amo_t op,
                                      uint64_t operand, uint64_t compare, void *result,
                                      bool blocking)
{
    struct arb_rma_cstream *cs = usable(c, w);
    uint64_t off;
    if (!cs || !stream_hit(cs, w, dst, sizeof(uint64_t), &off) || off % sizeof(uint64_t) ||
        (!blocking && result && (uintptr_t)result % sizeof(uint64_t)))
        return ARB_ERR_NOT_STREAM;
    post_t p = {.cs = cs, .kind = 2, .w = w, .off = off, .len = sizeof(uint64_t), .op = op};
    p.operand = operand;
    p.compare = compare;
    p.result = blocking ? &cs->word : result ? (uint64_t *)result : &cs->sink;
    arbor_status_t st = post(&p, blocking);
    if (st == ARBOR_OK && blocking && result) memcpy(result, &cs->word, sizeof(uint64_t));
    return st;
}
