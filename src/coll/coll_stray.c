/*
 * Stray messages and waits (coll/coll_stray.h).
 *
 * A message is present at the head of the channel from p when its line holds ticket + 1 (inline
 * or one-copy descriptor) or posted has passed the ticket (a slot); a mapped sender stores the
 * signature in the line before either, so the signature read after them is that message's.
 * Two more words of p's link line here tell what p waits for: want, the call whose first
 * message to us waits for our channel block; await, the call that waits (at an idle point) for
 * a message or signal from us. A want or a head message of a call this rank finished, or of a
 * call in flight here that never receives from p or has another signature, is stray; an await
 * of a call in flight here that never sends to p, or has another signature, waits for nothing
 * (signals carry no signature, so a barrier against another collective shows here). Signature 0: an
 * exchange outside the numbered calls (init's measurements run schedules of their own), never
 * judged.
 */
#include "coll/coll_stray.h"

#include <stdint.h>

#include "algorithms/coll.h"
#include "runtime/context.h"
#include "coll/coll_verdict.h"
#include "coll/executor.h"
#include "util/log.h"
#include "coll/team.h"

/* Members looked at per call start: every one on the small teams, a few loads on large ones
 * (the idle points look at all of them). */
enum { STARTS_LOOK = 4 };

static inline uint64_t load_acq(const uint8_t *p)
{
    return __atomic_load_n((const uint64_t *)(const void *)p, __ATOMIC_ACQUIRE);
}

/* The signature of the message at the head of the channel from p, if one is there, or of the
 * call of p that waits for the channel to open. */
static bool head_sig(const struct arbor_team *t, int p, bool full, uint64_t *sig)
{
    const arb_chan_t *in = &t->in[p];
    if (in->state == ARB_CHAN_CLOSED) {
        /* The want word shares its line with the signals p writes at every barrier: only the
         * idle points read it (a member whose channel request nobody answers waits there). */
        if (!full) return false;
        *sig = load_acq(t->local + arb_team_link_off(p) + ARB_LINK_WANT);
        return *sig != 0;
    }
    if (in->state != ARB_CHAN_OPEN || in->publish) return false;
    const uint8_t *chan = arb_ctx.seg + in->block;
    uint64_t ticket = in->next_done;
    const uint8_t *line = chan + arb_chan_line_off(ticket % (uint64_t)t->depth);
    if (load_acq(line) != ticket + 1 && load_acq(chan + ARB_CHAN_POSTED) <= ticket) return false;
    *sig = __atomic_load_n((const uint64_t *)(const void *)(line + ARB_LINE_SIG), __ATOMIC_RELAXED);
    return true;
}

/* The call number a signature's low bits name, within 2^15 calls of ours (a sender may be many
 * calls ahead, a root that only sends, never that far); false for a call not numbered here yet
 * (early, not stray). */
static bool call_of(const struct arbor_team *t, uint64_t sig, uint64_t *c)
{
    int16_t ahead = (int16_t)(uint16_t)((sig & 0xffff) - (t->calls & 0xffff));
    if (ahead >= 0 || (uint64_t)-ahead > t->calls) return false;
    *c = t->calls - (uint64_t)-ahead;
    return true;
}

static const arb_inst_t *in_flight(const struct arbor_team *t, uint64_t c)
{
    for (const arb_inst_t *i = arb_ctx.stream.active_head; i; i = i->next)
        if (i->team == t && i->sig && i->call == c) return i;
    return NULL;
}

static bool has_step(const arb_inst_t *inst, arb_step_kind_t kind, int p)
{
    if (!inst->cs) return true; /* nothing to judge by */
    const arb_sched_t *s = &inst->cs->sched;
    for (int i = 0; i < s->nsteps; i++)
        if (s->steps[i].kind == kind && s->steps[i].peer == p) return true;
    return false;
}

static arbor_status_t mismatch(struct arbor_team *t, int p, uint64_t c, const char *what)
{
    arb_error("team %p: world rank %d %s call #%llu that this rank's call #%llu does not match "
              "(members called mismatched collectives: different roots, or a different "
              "collective). ARBOR_CHECK=1 says which argument differs",
              (void *)t->handle, t->world[p], what, (unsigned long long)c, (unsigned long long)c);
    t->failed = ARBOR_ERR_MISMATCH;
    arb_verdict_cancelled(t, c, ARB_VERDICT_INTERNAL, ARBOR_ERR_MISMATCH);
    return ARBOR_ERR_MISMATCH;
}

static arbor_status_t look(struct arbor_team *t, int p, bool full)
{
    uint64_t sig, c;
    if (head_sig(t, p, full, &sig) && sig && call_of(t, sig, &c)) {
        const arb_inst_t *i = in_flight(t, c);
        uint64_t back = t->calls - 1 - c;
        bool refused = back < 64 && (t->refused_bits >> back & 1); /* the verdicts settle it */
        /* A call of the same number with another signature is a mismatch whether or not it
         * receives from p: a barrier counts signals and never reads the channel. */
        if (i ? i->sig != sig || (full && !has_step(i, ARB_STEP_RECV, p)) : !refused)
            return mismatch(t, p, c, "sent us a message of");
    }
    if (!full) return ARBOR_OK;
    sig = load_acq(t->local + arb_team_link_off(p) + ARB_LINK_AWAIT);
    if (sig && call_of(t, sig, &c)) {
        const arb_inst_t *i = in_flight(t, c);
        if (i && (i->sig != sig || !has_step(i, ARB_STEP_SEND, p)))
            return mismatch(t, p, c, "waits for our part in");
    }
    return ARBOR_OK;
}

/* Tells each mapped member inst waits for data from (a receive of its current round not done)
 * which call waits; a wait for credits or a channel says nothing (the member's call receives). */
static void say_awaited(struct arbor_team *t, const arb_inst_t *inst)
{
    if (!inst->cs || !inst->st || !inst->sig) return; /* not a numbered call (init's probes) */
    const arb_sched_t *s = &inst->cs->sched;
    for (int i = inst->first; i < s->nsteps && s->steps[i].round == inst->round; i++) {
        const arb_step_t *step = &s->steps[i];
        int p = step->peer;
        if (step->kind != ARB_STEP_RECV || inst->st[i].done >= inst->st[i].nchunks || p < 0 ||
            p >= t->size || !t->peer_seg[p])
            continue;
        uint64_t *w = (uint64_t *)(void *)(t->peer_seg[p] + t->region + arb_team_link_off(t->rank) +
                                           ARB_LINK_AWAIT);
        if (__atomic_load_n(w, __ATOMIC_RELAXED) != inst->sig)
            __atomic_store_n(w, inst->sig, __ATOMIC_RELEASE);
    }
}

arbor_status_t arb_stray_check(struct arbor_team *t, const struct arb_inst *inst)
{
    if (t->failed != ARBOR_OK) return t->failed;
    bool full = inst != NULL;
    if (full) say_awaited(t, inst);
    /* a call start on a large team: a few members, from where the last one stopped */
    bool few = !full && t->size > STARTS_LOOK;
    int n = few ? STARTS_LOOK : t->size, p = few ? t->stray_cursor : 0;
    for (int k = 0; k < n; k++, p = p + 1 == t->size ? 0 : p + 1) {
        if (p == t->rank || !t->peer_seg[p]) continue;
        arbor_status_t status = look(t, p, full);
        if (status != ARBOR_OK) return status;
    }
    if (few) t->stray_cursor = p;
    return ARBOR_OK;
}
