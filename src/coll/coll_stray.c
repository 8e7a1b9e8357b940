/*
 * Stray messages and waits (coll/coll_stray.h).
 *
 * A message is present at the head of the channel from p when its line holds ticket + 1 (inline
 * or one-copy descriptor) or posted has passed the ticket (a slot); a mapped sender stores the
 * signature in the line before either, so the signature read after them is that message's.
 * Through the transport only a step's first message that fits the line carries one (put_line in
 * coll/executor.c: ticket + 1 and the signature in the same put as the data), and it is whole once
 * posted passed its ticket. Two more words of p's link line here tell what p waits for: want,
 * the call whose first message to us waits for our channel block; await, the call that waits
 * (at an idle point) for a message or signal from us. A want or a head message of a call this
 * rank finished, or of a call in flight here that never receives from p or has another
 * signature, is stray; an await of a call in flight here that never sends to p, or has another
 * signature, waits for nothing (signals carry no signature, so a barrier against another
 * collective shows here). Signature 0: an exchange outside the numbered calls (init's
 * measurements run schedules of their own), never judged.
 *
 * A mapped member writes want and await with a store as soon as it waits. An unmapped one (another
 * node, ARBOR_DIRECT=n) writes them only once its wait has seen nothing move for a grace: each
 * is a transport operation, which a call that is merely waiting for a slower member must not
 * pay. The write is an atomic swap, one in flight per member at a time: a fetching atomic
 * completes only once applied, so two writes of one word never land out of order, and the
 * reader never sees a word half written.
 */
#include "coll/coll_stray.h"

#include <stdint.h>
#include <stdlib.h>

#include "algorithms/coll.h"
#include "runtime/context.h"
#include "coll/coll_verdict.h"
#include "coll/executor.h"
#include "runtime/doorbell.h"
#include "util/clock.h"
#include "util/log.h"
#include "runtime/tp_call.h"
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
static bool head_sig(const struct arbor_team *t, int p, bool full, uint64_t *sig, bool *cell)
{
    *cell = false;
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
    const uint8_t *line = chan + arb_chan_line_of(t, ticket);
    /* A cell message (from a member that maps us, whether or not we map it) carries the call's
     * short signature: its call number, the rest folded. */
    const uint8_t *cell_at = chan + arb_chan_cell_of(t, ticket);
    uint64_t tag = load_acq(cell_at);
    if ((uint32_t)tag != arb_cell_ticket(ticket)) {
        if (t->peer_seg[p]) {
            if (load_acq(line) != ticket + 1 && load_acq(chan + ARB_CHAN_POSTED) <= ticket)
                return false;
        } else if (load_acq(chan + ARB_CHAN_POSTED) <= ticket || load_acq(line) != ticket + 1) {
            return false; /* nothing there yet, or a longer message: no signature to read */
        }
        /* Read again: a cell stored before the line or the later posted just seen is visible
         * now. */
        tag = load_acq(cell_at);
    }
    if ((uint32_t)tag == arb_cell_ticket(ticket)) {
        *sig = tag >> 32;
        *cell = true;
        return true;
    }
    *sig = __atomic_load_n((const uint64_t *)(const void *)(line + ARB_LINE_SIG), __ATOMIC_RELAXED);
    return true;
}

/* The call number a signature's low bits name, within 2^15 calls of ours (a sender may be many
 * calls ahead, a root that only sends, never that far); false for a call not numbered here yet
 * (early, not stray). */
static bool call_of(const struct arbor_team *t, uint64_t sig, uint64_t *c)
{
    /* Another team's: left in the memory this team now uses (a late store of a member that
     * waited there, a freed team's last line), not a call of this one. */
    if (!arb_sig_of_team(sig, t->id)) return false;
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
    uint64_t sig = 0, c;
    bool cell = false;
    uint32_t short_sig = 0;
    if (!head_sig(t, p, full, &sig, &cell)) {
        sig = 0;
    } else if (cell && sig) {
        /* This team's (its ticket tells), the call number whole. 0, like a line's 0, is a
         * message of no numbered call (init's probes: group/measure.c). */
        short_sig = (uint32_t)sig;
        sig = arb_sig_tag(0, t->id, sig);
    }
    if (sig && call_of(t, sig, &c)) {
        const arb_inst_t *i = in_flight(t, c);
        uint64_t back = t->calls - 1 - c;
        bool refused = back < 64 && (t->refused_bits >> back & 1); /* the verdicts settle it */
        /* Numbered but not started: ARBOR_CHECK's exchange for it runs first (as a call of its
         * own, numbered after it), and a member past that exchange may have sent already. */
        bool open = back < 64 && (t->open_bits >> back & 1);
        /* A call of the same number with another signature is a mismatch whether or not it
         * receives from p: a barrier counts signals and never reads the channel. */
        bool other = i && (cell ? arb_sig_short(i->sig) != short_sig : i->sig != sig);
        if (i ? other || (full && !has_step(i, ARB_STEP_RECV, p)) : !refused && !open)
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

/* Through the transport: one fetching swap in flight per world rank (it completes once
 * applied), kept for the life of the process: a member that makes no progress may hold it past
 * any bound, and its completion must land somewhere (arb_stray_release frees them once the
 * transport is closed). */
typedef struct {
    uint64_t old;
    arb_tp_comp_t comp;
} say_slot_t;
static say_slot_t *say_slots;
static int say_nslots;

static say_slot_t *say_slot(int world_rank)
{
    if (world_rank >= say_nslots) {
        int n = arb_ctx.size > world_rank ? arb_ctx.size : world_rank + 1;
        say_slot_t *s = calloc((size_t)n, sizeof(*s));
        if (!s) return NULL;
        say_slots = s, say_nslots = n; /* an older array stays: a swap may report into it */
    }
    return &say_slots[world_rank];
}

void arb_stray_release(void)
{
    free(say_slots);
    say_slots = NULL;
    say_nslots = 0;
}

/* Writes sig into word (ARB_LINK_WANT / ARB_LINK_AWAIT) of our link line at member p, once per
 * value: *said is what the word holds there as far as this rank knows. */
static void say(struct arbor_team *t, int p, uint64_t word, uint64_t sig, uint64_t *said)
{
    if (*said == sig) return;
    uint64_t off = t->region + arb_team_link_off(t->rank) + word;
    if (t->peer_seg[p]) {
        __atomic_store_n((uint64_t *)(void *)(t->peer_seg[p] + off), sig, __ATOMIC_RELEASE);
        *said = sig;
        arb_bell_ring(t->world[p]);
        return;
    }
    say_slot_t *slot = t->rkey[p] ? say_slot(t->world[p]) : NULL;
    if (!slot || arb_tp_comp_pending(&slot->comp)) return; /* at a later idle point */
    slot->comp.status = ARBOR_OK;
    arbor_status_t status =
        arb_tp_amo(ARB_TP_AMO_SWAP, t->rkey[p], off, sig, 0, &slot->old, &slot->comp);
    if (status == ARB_ERR_AGAIN) return;
    if (status == ARBOR_OK) arb_bell_ring(t->world[p]); /* a node peer may sleep in its wait */
    if (status != ARBOR_OK)
        arb_debug("could not tell world rank %d which call waits on team %p: %s", t->world[p],
                  (void *)t->handle, arbor_strerror(status));
    *said = sig; /* said or failed: not again for this call */
}

/* The oldest numbered call of t in flight here, or NULL: the one every later call of the team
 * waits behind (tickets follow initiation order), so the one whose wait says something. */
static const arb_inst_t *oldest(const struct arbor_team *t)
{
    for (const arb_inst_t *i = arb_ctx.stream.active_head; i; i = i->next)
        if (i->team == t && !arb_inst_complete(i)) return i->sig ? i : NULL;
    return NULL;
}

/* Tells each member that inst waits for data from (a receive of its current round not done)
 * which call waits, in the await word; a wait for credits says nothing (the member's call
 * receives). Through the transport, also each member whose channel block a send of the round
 * waits for (the mapped sender writes want itself, coll/executor.c), and only when far is set
 * (the wait saw nothing move for the grace). */
static void say_waits(struct arbor_team *t, const arb_inst_t *inst, bool near, bool far)
{
    if (!inst || !inst->cs || !inst->st || !near) return;
    const arb_sched_t *s = &inst->cs->sched;
    for (int i = inst->first; i < s->nsteps && s->steps[i].round == inst->round; i++) {
        const arb_step_t *step = &s->steps[i];
        const arb_step_state_t *st = &inst->st[i];
        int p = step->peer;
        if (p < 0 || p >= t->size || p == t->rank || (!t->peer_seg[p] && !far)) continue;
        if (step->kind == ARB_STEP_RECV && st->done < st->nchunks) {
            /* Where mapped, the word itself (a member may have judged it: keep it as is). */
            uint64_t said =
                t->peer_seg[p]
                    ? __atomic_load_n((const uint64_t *)(const void *)(t->peer_seg[p] + t->region +
                                                                       arb_team_link_off(t->rank) +
                                                                       ARB_LINK_AWAIT),
                                      __ATOMIC_RELAXED)
                    : t->out[p].await;
            say(t, p, ARB_LINK_AWAIT, inst->sig, &said);
            if (!t->peer_seg[p]) t->out[p].await = said;
        } else if (step->kind == ARB_STEP_SEND && step->bytes && st->issued < st->nchunks &&
                   !t->peer_seg[p] && t->out[p].state == ARB_CHAN_CLOSED &&
                   load_acq(t->local + arb_team_link_off(p) + ARB_LINK_DIR) == ARB_CHAN_NONE) {
            say(t, p, ARB_LINK_WANT, inst->sig, &t->out[p].want);
        }
    }
}

/* The wait's grace before it tells unmapped members what it waits for: long past a message's
 * flight time between nodes, short against ARBOR_TIMEOUT. Mapped members are told after a
 * shorter one: the await word shares its line with the signals this rank writes there, so a
 * store at every wait would move that line between the cores once more per call while the
 * member polls it (a barrier's whole cost is such moves). */
#define ARB_SAY_GRACE_US        10000.0
#define ARB_SAY_MAPPED_GRACE_US 50.0

static bool waited(const arb_inst_t *inst, double grace, double now)
{
    if (arb_ctx.cfg.timeout_s > 0 && arb_ctx.cfg.timeout_s * 1e6 / 4 < grace)
        grace = arb_ctx.cfg.timeout_s * 1e6 / 4;
    return inst->idle_since > 0 && now - inst->idle_since >= grace;
}

arbor_status_t arb_stray_check(struct arbor_team *t, const struct arb_inst *inst)
{
    if (t->failed != ARBOR_OK) return t->failed;
    bool full = inst != NULL;
    if (full && inst->idle_since > 0) {
        double now = arb_now_us();
        say_waits(t, oldest(t), waited(inst, ARB_SAY_MAPPED_GRACE_US, now),
                  waited(inst, ARB_SAY_GRACE_US, now));
    }
    /* a call start on a large team: a few members, from where the last one stopped */
    bool few = !full && t->size > STARTS_LOOK;
    int n = few ? STARTS_LOOK : t->size, p = few ? t->stray_cursor : 0;
    for (int k = 0; k < n; k++, p = p + 1 == t->size ? 0 : p + 1) {
        if (p == t->rank) continue;
        arbor_status_t status = look(t, p, full);
        if (status != ARBOR_OK) return status;
    }
    if (few) t->stray_cursor = p;
    return ARBOR_OK;
}
