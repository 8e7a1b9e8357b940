/*
 * Tiny calls (coll/tiny.h; docs/PROTOCOL.md, "Tiny calls").
 *
 * A stream of one-element broadcasts or sums (a coarray program's co_broadcast of a flag,
 * co_sum of a residual) is bounded by the work of each call, not by the data: the general path
 * numbers the call, finds the schedule, binds an instance, takes tickets, advances it step by
 * step, finishes and frees it, over a thousand instructions for a message of a few bytes. Where
 * the messages are in their cells and every send has its credit, nothing of that is needed
 * beyond the tickets, the cells and the credits themselves, which this path takes exactly as the
 * executor would: the same ticket on every channel (the call is the only one in flight), the
 * same cell with the same tag, the same credit store. So the two paths mix freely, call by
 * call, on either end of a channel. It never waits: whatever is not ready sends the call down
 * the general path, which waits with every check (timeouts, verdicts, lost members, strays).
 *
 * Two shapes: a broadcast's (a receive first, if any, then sends of the same bytes), and an
 * exchange at 2 members (an in-place allreduce: send ours, combine the peer's). The exchange
 * writes its cell before it knows whether the peer's is there, but takes no ticket until it
 * is: if the general path runs the call after all, its send writes the same bytes and tag into
 * the same cell again, which the receiver cannot tell from one write.
 */
#include "coll/tiny.h"

#include "coll/coll_verdict.h"
#include "coll/team.h"
#include "runtime/doorbell.h"
#include "runtime/dtype.h"
#include "util/clock.h"

/* Looks at a cell not yet written before the general path takes over: a few hundred
 * nanoseconds, a small part of what that path then costs the call. */
enum { TINY_LOOKS = 512 };

/* Whether step st of a call of len bytes (blocks of block bytes) is the whole buffer to or from
 * a mapped member. */
static bool whole(const struct arbor_team *t, const arb_step_t *st, size_t len, size_t block)
{
    return !st->off && st->bytes * block == len && st->peer >= 0 && st->peer < t->size &&
           t->peer_seg[st->peer] && (st->space == ARB_BUF_SRC || st->space == ARB_BUF_DST);
}

/* The steps of the plan of a broadcast (a receive first if any, copied, then sends) or of an
 * in-place exchange (its copy from SRC to DST does nothing in place; a send, then a receive
 * from the same member that combines), or false. */
static bool shape(struct arbor_team *t, const arb_sched_t *s, bool bcast, size_t len, size_t block)
{
    int max = (int)(sizeof(t->tiny.steps) / sizeof(t->tiny.steps[0])), n = 0, i = 0;
    if (!bcast && s->nsteps == 3 && s->steps[0].kind == ARB_STEP_COPY &&
        s->steps[0].space == ARB_BUF_DST && s->steps[0].src_space == ARB_BUF_SRC &&
        !s->steps[0].off && !s->steps[0].src_off && !s->steps[0].combine)
        i = 1;
    if (s->nsteps - i < 1 || s->nsteps - i > max || (!bcast && s->nsteps - i != 2)) return false;
    for (; i < s->nsteps; i++, n++) {
        const arb_step_t *st = &s->steps[i];
        bool fits = bcast ? (st->kind == ARB_STEP_SEND || (st->kind == ARB_STEP_RECV && n == 0)) &&
                                !st->combine
                          : st->kind == (n == 0 ? ARB_STEP_SEND : ARB_STEP_RECV) &&
                                (n == 0 || (st->combine && st->peer == t->tiny.steps[0].peer));
        if (!fits || !whole(t, st, len, block)) return false;
        t->tiny.steps[n].kind = st->kind;
        t->tiny.steps[n].combine = st->combine;
        t->tiny.steps[n].peer = st->peer;
    }
    t->tiny.nsteps = n;
    return true;
}

void arb_exec_tiny_plan(struct arbor_team *t, const arb_cached_sched_t *cs, const arb_call_t *c,
                        size_t len, size_t block, int alg, double predicted_us)
{
    bool bcast = c->coll == ARB_COLL_BCAST;
    /* The call it is for, runnable or not (a call that cannot run tiny is not planned again
     * until the arguments change). */
    t->tiny.valid = true;
    t->tiny.coll = c->coll;
    t->tiny.count = c->count;
    t->tiny.len = len;
    t->tiny.root = bcast ? c->root : 0;
    t->tiny.dtype = bcast ? ARBOR_BYTE : c->dtype;
    t->tiny.op = bcast ? 0 : c->op;
    t->tiny.alg = alg;
    t->tiny.predicted_us = predicted_us;
    t->tiny.able = !cs->one_copy && len > 0 && len <= ARB_CELL_MAX && !cs->sched.scratch_blocks &&
                   (bcast || (c->op >= 0 && c->op < ARBOR_OP_PREDEFINED)) &&
                   shape(t, &cs->sched, bcast, len, block);
}

/* Whether the send to p can go now: its channel open and idle, our verdict delivered to p, a
 * credit for the cell (as the executor's send_chunk counts them). */
static bool can_send(struct arbor_team *t, int p)
{
    arb_chan_t *ch = &t->out[p];
    if (ch->state != ARB_CHAN_OPEN || ch->next_done != ch->next_ticket || !t->peer_seg[p] ||
        !arb_verdict_before(t, p))
        return false;
    uint64_t room = arb_chan_lines(t->depth);
    if (ch->next_ticket - ch->credit < room) return true;
    ch->credit = __atomic_load_n(
        (const uint64_t *)(const void *)(t->local + arb_team_link_off(p) + ARB_LINK_CONSUMED),
        __ATOMIC_ACQUIRE);
    return ch->next_ticket - ch->credit < room;
}

static bool can_receive(const struct arbor_team *t, int p)
{
    const arb_chan_t *in = &t->in[p];
    return in->state == ARB_CHAN_OPEN && !in->publish && in->next_done == in->next_ticket;
}

/* The message of the receive from p, looked at for a while (not where ranks share cores or
 * threads share the engine): a receiver that keeps pace with its sender finds it a moment
 * late, and the general path would cost several times the wait. NULL: not there (yet), void
 * or of another call: the general path waits, or says why. */
static const uint8_t *look_for(const struct arbor_team *t, int p, uint64_t sig)
{
    const arb_chan_t *in = &t->in[p];
    unsigned looks = arb_ctx.yield || arb_ctx.locking ? 1 : TINY_LOOKS;
    const uint8_t *payload;
    while (!(payload = arb_cell_get(t, in->block, in->next_ticket, sig)) && --looks)
        ;
    return payload;
}

static void put(struct arbor_team *t, int p, uint64_t sig, const uint8_t *buf, size_t len)
{
    arb_cell_put(t, p, t->out[p].next_ticket, sig, buf, len);
    arb_bell_ring(t->world[p]);
}

/* The receive's ticket taken and its credit returned, as the executor returns it to a mapped
 * sender. */
static void took(struct arbor_team *t, int p)
{
    arb_chan_t *in = &t->in[p];
    uint64_t ticket = in->next_ticket++;
    in->next_done++;
    arb_credit_mapped(t, p, ticket + 1);
}

/* The send's ticket taken. A broadcast's stream takes the line of cells two lines ahead once a
 * line, as the executor's send_chunk does (not an exchange: there the request only delays the
 * peer about to answer). */
static void sent(struct arbor_team *t, int p, bool stream)
{
    arb_chan_t *ch = &t->out[p];
    uint64_t ticket = ch->next_ticket++;
    ch->next_done++;
    if (stream && (ticket & 3) == 0)
        __builtin_prefetch(t->peer_seg[p] + ch->block + arb_chan_cell_of(t, ticket + 8), 1);
}

static bool bcast(struct arbor_team *t, uint8_t *buf, size_t len, uint64_t sig)
{
    const uint8_t *payload = NULL;
    for (int i = 0; i < t->tiny.nsteps; i++) {
        int p = t->tiny.steps[i].peer;
        if (t->tiny.steps[i].kind == ARB_STEP_RECV) {
            if (!can_receive(t, p) || !(payload = look_for(t, p, sig))) return false;
        } else if (!can_send(t, p)) {
            return false;
        }
    }
    for (int i = 0; i < t->tiny.nsteps; i++) {
        int p = t->tiny.steps[i].peer;
        if (t->tiny.steps[i].kind == ARB_STEP_RECV) {
            memcpy(buf, payload, len);
            took(t, p);
        } else {
            put(t, p, sig, buf, len);
            sent(t, p, true);
        }
    }
    return true;
}

static bool exchange(struct arbor_team *t, uint8_t *buf, size_t len, uint64_t sig)
{
    int p = t->tiny.steps[0].peer;
    if (!can_send(t, p) || !can_receive(t, p)) return false;
    put(t, p, sig, buf, len);
    const uint8_t *payload = look_for(t, p, sig);
    if (!payload) return false; /* the general path sends the same cell again, and waits */
    arb_reduce(t->tiny.op, t->tiny.dtype, buf, payload, t->tiny.count, t->tiny.steps[1].combine);
    sent(t, p, false);
    took(t, p);
    return true;
}

bool arb_exec_tiny(struct arbor_team *t, uint8_t *buf, uint64_t sig)
{
    /* Another call in flight holds tickets past ours, or a verdict came: the general path. */
    if (!t->tiny.able || arb_ctx.stream.active_head || t->closing || arb_verdict_news(t))
        return false;
    double t0 = arb_ctx.cfg.stats ? arb_now_us() : 0;
    size_t len = t->tiny.len;
    if (!(t->tiny.coll == ARB_COLL_BCAST ? bcast(t, buf, len, sig) : exchange(t, buf, len, sig)))
        return false;
    t->seq++;
    t->cache.hits++;
    arb_ctx.stream.epoch++;
    if (t->tiny.alg < 16) {
        arb_alg_stats_t *s = &arb_ctx.stats[t->tiny.coll][t->tiny.alg];
        s->calls++;
        if (arb_ctx.cfg.stats) s->total_us += arb_now_us() - t0;
    }
    return true;
}
