/*
 * Tiny calls (coll/executor.h, arb_exec_tiny; docs/PROTOCOL.md, "Tiny calls").
 *
 * A stream of one-element broadcasts (a coarray program's co_broadcast of a flag or a count)
 * is bounded by the work of each call, not by the data: the general path numbers the call,
 * finds the schedule, binds an instance, takes tickets, advances it step by step, finishes and
 * frees it, over a thousand instructions for a message of a few bytes. Where the message is
 * already in its cell and every send has its credit, nothing of that is needed beyond the
 * tickets, the cells and the credits themselves, which this path takes exactly as the executor
 * would: the same ticket on every channel (the call is the only one in flight), the same cell
 * with the same tag, the same credit store. So the two paths mix freely, call by call, on either
 * end of a channel. It never waits: whatever is not ready sends the call down the general path,
 * which waits with every check (timeouts, verdicts, lost members, stray messages).
 */
#include "coll/executor.h"

#include "coll/coll_verdict.h"
#include "coll/team.h"
#include "runtime/doorbell.h"
#include "util/clock.h"

/* Looks at a cell not yet written before the general path takes over: a few hundred
 * nanoseconds, a small part of what that path then costs the call. */
enum { TINY_LOOKS = 512 };

void arb_exec_tiny_plan(struct arbor_team *t, const arb_cached_sched_t *cs, size_t count, int root,
                        int alg, double predicted_us)
{
    const arb_sched_t *s = &cs->sched;
    t->tiny.valid = false;
    if (cs->one_copy || count == 0 || count > ARB_CELL_MAX || s->scratch_blocks || s->nsteps < 1 ||
        s->nsteps > (int)(sizeof(t->tiny.steps) / sizeof(t->tiny.steps[0])))
        return;
    for (int i = 0; i < s->nsteps; i++) {
        const arb_step_t *st = &s->steps[i];
        /* The whole buffer (one block) to or from a mapped member; a receive only first. */
        bool recv = st->kind == ARB_STEP_RECV && i == 0;
        if ((!recv && st->kind != ARB_STEP_SEND) || st->combine || st->off || st->bytes != 1 ||
            st->peer < 0 || st->peer >= t->size || !t->peer_seg[st->peer] ||
            (st->space != ARB_BUF_SRC && st->space != ARB_BUF_DST))
            return;
        t->tiny.steps[i].kind = st->kind;
        t->tiny.steps[i].peer = st->peer;
    }
    t->tiny.nsteps = s->nsteps;
    t->tiny.count = count;
    t->tiny.root = root;
    t->tiny.alg = alg;
    t->tiny.predicted_us = predicted_us;
    t->tiny.valid = true;
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

bool arb_exec_tiny(struct arbor_team *t, uint8_t *buf, size_t len, uint64_t sig)
{
    /* Another call in flight holds tickets past ours, or a verdict came: the general path. */
    if (arb_ctx.stream.active_head || t->closing || arb_verdict_news(t)) return false;
    const uint8_t *payload = NULL;
    for (int i = 0; i < t->tiny.nsteps; i++) {
        int p = t->tiny.steps[i].peer;
        if (t->tiny.steps[i].kind == ARB_STEP_RECV) {
            arb_chan_t *in = &t->in[p];
            if (in->state != ARB_CHAN_OPEN || in->publish || in->next_done != in->next_ticket)
                return false;
            /* Not there yet, void or of another call: the general path waits or says why. A
             * receiver that keeps pace with its sender finds the message a moment late: it
             * looks again for a while (not where ranks share cores or threads share the
             * engine) rather than pay the general path's work on every call of the stream. */
            unsigned looks = arb_ctx.yield || arb_ctx.locking ? 1 : TINY_LOOKS;
            while (!(payload = arb_cell_get(t, in->block, in->next_ticket, sig)) && --looks)
                ;
            if (!payload) return false;
        } else if (!can_send(t, p)) {
            return false;
        }
    }
    double t0 = arb_ctx.cfg.stats ? arb_now_us() : 0;
    for (int i = 0; i < t->tiny.nsteps; i++) {
        int p = t->tiny.steps[i].peer;
        if (t->tiny.steps[i].kind == ARB_STEP_RECV) {
            arb_chan_t *in = &t->in[p];
            uint64_t ticket = in->next_ticket++;
            memcpy(buf, payload, len);
            in->next_done++;
            /* The credit, as the executor returns it to a mapped sender. */
            __atomic_store_n((uint64_t *)(void *)(t->peer_seg[p] + t->region +
                                                  arb_team_link_off(t->rank) + ARB_LINK_CONSUMED),
                             ticket + 1, __ATOMIC_RELEASE);
            arb_bell_ring(t->world[p]);
        } else {
            arb_chan_t *ch = &t->out[p];
            uint64_t ticket = ch->next_ticket++;
            arb_cell_put(t, p, ticket, sig, buf, len);
            arb_bell_ring(t->world[p]);
            /* The line of cells two lines ahead, once a line, as the executor's broadcast
             * sends take it (coll/executor.c, send_chunk). */
            if ((ticket & 3) == 0)
                __builtin_prefetch(t->peer_seg[p] + ch->block + arb_chan_cell_of(t, ticket + 8), 1);
            ch->next_done++;
        }
    }
    t->seq++;
    t->cache.hits++;
    arb_ctx.stream.epoch++;
    if (t->tiny.alg < 16) {
        arb_alg_stats_t *s = &arb_ctx.stats[ARB_COLL_BCAST][t->tiny.alg];
        s->calls++;
        if (arb_ctx.cfg.stats) s->total_us += arb_now_us() - t0;
    }
    return true;
}
