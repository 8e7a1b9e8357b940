/*
 * Verdicts (coll/coll_verdict.h, docs/PROTOCOL.md "Verdicts"). A verdict is one word in the
 * poster's link line at every other member (so each word has one writer), followed by an add to
 * the receiver's count of posts; where the receiver's segment is not mapped, both go as one
 * put-with-signal, which orders the count after the word. Posting happens on refusals, failures
 * and finalize only: the collectives that succeed never write one.
 *
 * A word: bits 0-7 the status (negated), 8-12 the collective kind, 13-14 the verdict kind,
 * 15-23 a refusal run (the poster refused calls call - run + 1 .. call, capped), 24-63 the call
 * number + 1 (0: nothing posted).
 */
#include "coll/coll_verdict.h"

#include <stdio.h>
#include <stdlib.h>

#include "util/clock.h"
#include "runtime/doorbell.h"
#include "util/log.h"
#include "runtime/tp_call.h"

enum { RUN_MAX = 511 };

typedef struct {
    int type, kind, run;
    uint64_t call;
    arbor_status_t status;
} verdict_t;

static uint64_t encode(int type, uint64_t call, int kind, arbor_status_t status, int run)
{
    uint64_t code = (uint64_t)(uint8_t)(-(int)status);
    return code | (uint64_t)(kind & 31) << 8 | (uint64_t)(type & 3) << 13 |
           (uint64_t)(run & RUN_MAX) << 15 | (call + 1) << 24;
}

static bool decode(uint64_t w, verdict_t *v)
{
    if (w >> 24 == 0) return false;
    v->status = (arbor_status_t)(-(int)(w & 0xff));
    v->kind = (int)(w >> 8) & 31;
    v->type = (int)(w >> 13) & 3;
    v->run = (int)(w >> 15) & RUN_MAX;
    v->call = (w >> 24) - 1;
    return true;
}

static const char *kind_name(int kind)
{
    return kind < ARB_COLL_KINDS ? arb_coll_name((arb_coll_t)kind) : "an internal collective";
}

static uint64_t word_of(const struct arbor_team *t, int p)
{
    const uint64_t *w =
        (const uint64_t *)(const void *)(t->local + arb_team_link_off(p) + ARB_LINK_VERDICT);
    return __atomic_load_n(w, __ATOMIC_ACQUIRE);
}

/* A put through the transport reads its source and reports into its completion until it
 * completes locally, which a peer that makes no progress can delay past any bound: one pair per
 * world rank for the life of the process (a larger world after a new arbor_init takes a new
 * array; the old one stays, in case a put still reports into it). */
typedef struct {
    uint64_t src;
    arb_tp_comp_t comp;
} post_slot_t;
static post_slot_t *post_slots;
static int post_nslots;

static post_slot_t *post_slot(int world_rank)
{
    if (world_rank >= post_nslots) {
        int n = arb_ctx.size > world_rank ? arb_ctx.size : world_rank + 1;
        post_slot_t *s = calloc((size_t)n, sizeof(*s));
        if (!s) return NULL;
        post_slots = s, post_nslots = n;
    }
    return &post_slots[world_rank];
}

/* Puts word into world rank w's line at off, then adds one to its count of posts at count_off,
 * through the transport; false when it cannot go now (the transport's queue to w is full, or
 * our previous put to w has not completed locally: a rank that makes no progress holds it). */
static bool send_word(int w, arb_tp_rkey_t *rkey, uint64_t word, uint64_t off, uint64_t count_off)
{
    post_slot_t *slot = post_slot(w);
    if (!slot || slot->comp.pending) return false;
    slot->src = word;
    slot->comp.status = ARBOR_OK;
    arbor_status_t status;
    if (arb_tp_has(ARB_TP_CAP_REMOTE_CQ_DATA)) {
        /* There the signal of a put_signal counts only when w reads its completion queue, later
         * than a collective's signals (plain atomics) that follow it: w could finish that
         * collective without news. A put, a fence and an atomic add keep the order w sees them
         * in. */
        status = arb_tp_put(&slot->src, sizeof(slot->src), rkey, off, &slot->comp);
        if (status == ARBOR_OK) status = arb_tp_fence(w);
        if (status == ARBOR_OK) {
            double until = arb_now_us() + 1e6; /* accepted, as a put_signal's signal */
            while ((status = arb_tp_amo(ARB_TP_AMO_ADD, rkey, count_off, 1, 0, NULL, NULL)) ==
                       ARB_ERR_AGAIN &&
                   arb_now_us() < until)
                ;
            /* Nor does a provider keep an atomic ahead of a later signal carried as remote CQ
             * data: the count lands first, or w may complete the collective without it. */
            if (status == ARBOR_OK) status = arb_tp_fence(w);
        }
    } else {
        status = arb_tp_put_signal(&slot->src, sizeof(slot->src), rkey, off, rkey, count_off, 1,
                                   &slot->comp);
    }
    if (status == ARB_ERR_AGAIN) return false;
    if (status != ARBOR_OK)
        arb_warn("could not tell world rank %d of a verdict: %s", w, arbor_strerror(status));
    return true;
}

/* Sends our last verdict to member p; false when it cannot go now (send_word). */
static bool post_to(struct arbor_team *t, int p)
{
    uint64_t off = t->region + arb_team_link_off(t->rank) + ARB_LINK_VERDICT;
    uint64_t count_off = t->region + arb_team_verdict_off(t);
    if (t->peer_seg[p]) {
        __atomic_store_n((uint64_t *)(void *)(t->peer_seg[p] + off), t->verdict_posted,
                         __ATOMIC_RELEASE);
        __atomic_fetch_add((uint64_t *)(void *)(t->peer_seg[p] + count_off), 1, __ATOMIC_RELEASE);
    } else if (t->rkey[p] &&
               !send_word(t->world[p], t->rkey[p], t->verdict_posted, off, count_off)) {
        return false;
    }
    arb_bell_ring(t->world[p]); /* it may sleep in a wait */
    return true;
}

/* Verdicts of freed teams that could not go yet. The member a word is for may still wait in the
 * team (it learns of the failure from this word, or by its own timeout), so the words go out
 * from the progress of later calls. Landing there is safe: a member where the team failed keeps
 * its region out of the heap, and one where it did not cannot free it without this rank's part
 * in the closing barrier. Bounded: past the cap a member learns by its own timeout. */
enum { UNSENT_MAX = 4096 };
typedef struct {
    uint64_t word, off, count_off;
    arb_tp_rkey_t *rkey;
    int world;
} unsent_t;
static unsent_t *unsent;
static int unsent_cap;
int arb_verdict_unsent_n;

void arb_verdict_keep_unsent(struct arbor_team *t)
{
    for (int p = 0; t->verdict_todo_n && p < t->size; p++) {
        if (!t->verdict_todo[p]) continue;
        t->verdict_todo[p] = 0, t->verdict_todo_n--;
        if (arb_verdict_unsent_n == unsent_cap) {
            int cap = unsent_cap ? 2 * unsent_cap : 16;
            unsent_t *u = cap <= UNSENT_MAX ? realloc(unsent, (size_t)cap * sizeof(*u)) : NULL;
            if (!u) {
                arb_warn("could not keep a verdict of freed team %p for world rank %d: it learns "
                         "of it by its own timeout",
                         (void *)t->handle, t->world[p]);
                continue;
            }
            unsent = u, unsent_cap = cap;
        }
        unsent[arb_verdict_unsent_n++] =
            (unsent_t){t->verdict_posted, t->region + arb_team_link_off(t->rank) + ARB_LINK_VERDICT,
                       t->region + arb_team_verdict_off(t), t->rkey[p], t->world[p]};
    }
}

int arb_verdict_send_unsent(void)
{
    int sent = 0;
    for (int i = 0; i < arb_verdict_unsent_n;) {
        unsent_t *u = &unsent[i];
        if (!send_word(u->world, u->rkey, u->word, u->off, u->count_off)) {
            i++;
            continue;
        }
        arb_bell_ring(u->world);
        *u = unsent[--arb_verdict_unsent_n];
        sent++;
    }
    return sent;
}

bool arb_verdict_sent_to(struct arbor_team *t, int p)
{
    if (!t->verdict_todo || !t->verdict_todo[p]) return true;
    if (!post_to(t, p)) return false;
    t->verdict_todo[p] = 0;
    t->verdict_todo_n--;
    return true;
}

/* Retries what post could not send at once (called from the waits' idle points, every call's
 * start and the settling loop): never waits for a member. */
static void post_rest(struct arbor_team *t)
{
    if (!t->verdict_todo_n) return;
    for (int p = 0; p < t->size; p++)
        if (t->verdict_todo[p] && post_to(t, p)) t->verdict_todo[p] = 0, t->verdict_todo_n--;
}

static bool listed(int world_rank, const int *list, int n)
{
    for (int i = 0; i < n; i++)
        if (list[i] == world_rank) return true;
    return false;
}

/* Makes word our verdict and sends it to every other member (what cannot go now goes later),
 * except, through the transport, to the world ranks in skip that posted no verdict: members that
 * make no progress (the ones a timed-out collective waited for), where an operation that stays in
 * flight to them holds transport resources (ofi shm) and slows this rank's traffic with everyone
 * else. */
static void post_except(struct arbor_team *t, uint64_t word, const int *skip, int nskip)
{
    t->verdict_posted = word;
    if (!t->verdict_todo) t->verdict_todo = calloc((size_t)t->size, 1);
    for (int p = 0; p < t->size; p++) {
        if (p == t->rank) continue;
        /* A member that posted a verdict of its own makes progress (it may wait for ours). */
        if (!t->peer_seg[p] && listed(t->world[p], skip, nskip) && !word_of(t, p)) {
            if (t->verdict_todo && t->verdict_todo[p]) t->verdict_todo[p] = 0, t->verdict_todo_n--;
            continue;
        }
        if (post_to(t, p)) continue;
        if (!t->verdict_todo) {
            arb_warn("could not tell world rank %d of a verdict on team %p (no memory): it "
                     "learns of it by its own timeout",
                     t->world[p], (void *)t->handle);
            continue;
        }
        if (!t->verdict_todo[p]) t->verdict_todo[p] = 1, t->verdict_todo_n++;
    }
}

static void post(struct arbor_team *t, uint64_t word)
{
    post_except(t, word, NULL, 0);
}

/* Whether this rank decided to run call x (not refused, and decided: ARBOR_CHECK's exchange
 * runs inside the call it checks, before that call's decision). */
static bool accepted_here(const struct arbor_team *t, uint64_t x)
{
    uint64_t back = t->calls - 1 - x;
    return back < 64 && !((t->refused_bits | t->open_bits) >> back & 1);
}

void arb_verdict_decided(struct arbor_team *t, uint64_t n, int kind, arbor_status_t status)
{
    uint64_t back = t->calls - 1 - n;
    if (status == ARBOR_OK || back >= 64) return;
    t->refused_bits |= 1ull << back;
    t->open_bits &= ~(1ull << back);
    verdict_t prev;
    int run = 1;
    if (decode(t->verdict_posted, &prev) && prev.type == ARB_VERDICT_REFUSED && prev.call + 1 == n)
        run = prev.run < RUN_MAX ? prev.run + 1 : RUN_MAX;
    /* Once cancelled, the team's word stays: it is the one every member must read. */
    if (decode(t->verdict_posted, &prev) && prev.type == ARB_VERDICT_CANCELLED) return;
    post(t, encode(ARB_VERDICT_REFUSED, n, kind, status, run));
}

void arb_verdict_cancelled(struct arbor_team *t, uint64_t n, int kind, arbor_status_t why)
{
    arb_verdict_cancelled_except(t, n, kind, why, NULL, 0);
}

void arb_verdict_cancelled_except(struct arbor_team *t, uint64_t n, int kind, arbor_status_t why,
                                  const int *stalled, int nstalled)
{
    verdict_t prev;
    if (decode(t->verdict_posted, &prev) && prev.type == ARB_VERDICT_CANCELLED) return;
    post_except(t, encode(ARB_VERDICT_CANCELLED, n, kind, why, 0), stalled, nstalled);
}

void arb_verdict_finalizing(struct arbor_team *t, uint64_t n)
{
    t->finalizing = true;
    t->finalize_call = n;
    verdict_t prev;
    if (decode(t->verdict_posted, &prev) && prev.type == ARB_VERDICT_CANCELLED) return;
    post(t, encode(ARB_VERDICT_FINALIZING, n, ARB_VERDICT_INTERNAL, ARBOR_OK, 0));
}

/* What member p's verdict v means for this rank's call n of kind: an error to end it with
 * (logged), or ARBOR_OK. running: this rank accepted n and runs it (else n is not decided yet,
 * and a refusal of n elsewhere says nothing until it is). */
static arbor_status_t judge(struct arbor_team *t, int p, const verdict_t *v, uint64_t n, int kind,
                            bool running)
{
    int w = t->world[p];
    switch (v->type) {
    case ARB_VERDICT_CANCELLED:
        if (t->finalizing && v->status == ARBOR_ERR_MISMATCH) {
            arb_error("arbor_finalize: world rank %d was in %s (call #%llu on the world) when "
                      "this rank called arbor_finalize after %llu calls: the ranks are %llu "
                      "collective call(s) apart (one called a collective the other never called)",
                      w, kind_name(v->kind), (unsigned long long)v->call,
                      (unsigned long long)t->finalize_call,
                      (unsigned long long)(v->call + 1 > t->finalize_call
                                               ? v->call + 1 - t->finalize_call
                                               : t->finalize_call - v->call - 1));
            return ARBOR_ERR_MISMATCH;
        }
        /* With ARBOR_CHECK on, its board tells the members of a mismatch (both teams of a
         * crossing fail together there); acting on the word first would let a member leave
         * one team of the crossing with the other not failed, and find a crossing that is not. */
        if (v->status == ARBOR_ERR_MISMATCH && arb_ctx.cfg.check) return ARBOR_OK;
        if (v->kind == ARB_VERDICT_INTERNAL) {
            /* The team as a whole (another team's crossing, an out-of-step team), from call
             * v->call on: its code for a collective caught in it, ARBOR_ERR_TEAM for a call
             * made after; an earlier call completed at the poster and may complete here. */
            if (v->call > n) return ARBOR_OK;
            arb_error("%s (call #%llu of team %p): world rank %d failed the team (%s)",
                      kind_name(kind), (unsigned long long)n, (void *)t->handle, w,
                      arbor_strerror(v->status));
            return running || v->call == n ? v->status : ARBOR_ERR_TEAM;
        }
        /* The poster finished its part of n before it cancelled a later call: n may still
         * complete here; the calls from the cancelled one on fail. */
        if (v->call > n) return ARBOR_OK;
        if (v->call == n) {
            arb_error(
                "%s (call #%llu of team %p): world rank %d cancelled this collective (%s): it "
                "fails here too, and the team is failed",
                kind_name(kind), (unsigned long long)n, (void *)t->handle, w,
                arbor_strerror(v->status));
            return v->status;
        }
        arb_error(
            "%s (call #%llu of team %p): world rank %d cancelled %s #%llu of the team (%s): the "
            "team is failed",
            kind_name(kind), (unsigned long long)n, (void *)t->handle, w, kind_name(v->kind),
            (unsigned long long)v->call, arbor_strerror(v->status));
        return ARBOR_ERR_TEAM;
    case ARB_VERDICT_FINALIZING:
        if (t->finalizing ? v->call == t->finalize_call : v->call > n) return ARBOR_OK;
        if (t->finalizing)
            arb_error("arbor_finalize: world rank %d called arbor_finalize after %llu calls on "
                      "the world, this rank after %llu: the ranks are %llu collective call(s) "
                      "apart (one called a collective the other never called)",
                      w, (unsigned long long)v->call, (unsigned long long)t->finalize_call,
                      (unsigned long long)(v->call > t->finalize_call
                                               ? v->call - t->finalize_call
                                               : t->finalize_call - v->call));
        else
            arb_error(
                "%s (call #%llu of team %p): world rank %d called arbor_finalize instead (after "
                "%llu calls on the world): this collective can never complete",
                kind_name(kind), (unsigned long long)n, (void *)t->handle, w,
                (unsigned long long)v->call);
        /* The member stopped: the code a stopped peer's waits give (a coarray image that ended
         * while others still call collectives is a stopped image, not an error of theirs). */
        return t->finalizing ? ARBOR_ERR_MISMATCH : ARBOR_ERR_PEER_STOPPED;
    case ARB_VERDICT_REFUSED: {
        uint64_t lo = v->call + 1 - (uint64_t)v->run;
        if (running && lo <= n && n <= v->call) {
            arb_error(
                "%s (call #%llu of team %p): world rank %d refused this call (%s): it fails here "
                "too, and since the members are out of step, the team is failed",
                kind_name(kind), (unsigned long long)n, (void *)t->handle, w,
                arbor_strerror(v->status));
            return v->status;
        }
        for (uint64_t x = lo; x <= v->call && x < n; x++) {
            if (!accepted_here(t, x)) continue;
            arb_error(
                "%s (call #%llu of team %p): world rank %d refused call #%llu of the team (%s), "
                "which this rank accepted: the members are out of step, the team is failed",
                kind_name(kind), (unsigned long long)n, (void *)t->handle, w, (unsigned long long)x,
                arbor_strerror(v->status));
            return v->status;
        }
        return ARBOR_OK;
    }
    default:
        return ARBOR_OK;
    }
}

/* Whether verdict v speaks of call n itself (a cancellation of n, or, once this rank runs n, a
 * refusal of it): such a word decides n's code before a word about another call of the team. */
static bool about(const verdict_t *v, uint64_t n, bool running)
{
    if (v->type == ARB_VERDICT_CANCELLED) return v->call == n;
    if (v->type == ARB_VERDICT_REFUSED)
        return running && v->call + 1 - (uint64_t)v->run <= n && n <= v->call;
    return false;
}

/* Judges every member's word for call n; the first error among words about n, else the first
 * error. *judged: every word names a call before n (nothing more to learn from them). */
static arbor_status_t judge_all(struct arbor_team *t, uint64_t n, int kind, bool running,
                                bool *judged)
{
    arbor_status_t first = ARBOR_OK;
    *judged = true;
    for (int pass = 0; pass < 2; pass++) {
        for (int p = 0; p < t->size; p++) {
            verdict_t v;
            if (p == t->rank || !decode(word_of(t, p), &v)) continue;
            if (v.call >= n) *judged = false;
            if (pass == 0 && !about(&v, n, running)) continue;
            if (pass == 1 && about(&v, n, running)) continue;
            arbor_status_t status = judge(t, p, &v, n, kind, running);
            if (status != ARBOR_OK && first == ARBOR_OK) first = status;
            if (first != ARBOR_OK) return first;
        }
    }
    return first;
}

arbor_status_t arb_verdict_begin(struct arbor_team *t, uint64_t n, int kind, bool *pending)
{
    *pending = n > 0 && (t->refused_bits & 2);
    post_rest(t);
    if (!*pending && !arb_verdict_news(t)) return ARBOR_OK;
    const uint64_t *count = (const uint64_t *)(const void *)(t->local + arb_team_verdict_off(t));
    uint64_t seen = __atomic_load_n(count, __ATOMIC_ACQUIRE);
    bool judged;
    arbor_status_t status = judge_all(t, n, kind, false, &judged);
    if (status == ARBOR_OK && judged) t->verdicts_seen = seen;
    return status;
}

arbor_status_t arb_verdict_settled(struct arbor_team *t, uint64_t n, int kind, bool *done)
{
    uint64_t prior = n - 1;
    *done = true;
    post_rest(t);
    for (int p = 0; p < t->size; p++) {
        verdict_t v;
        if (p == t->rank) continue;
        if (!decode(word_of(t, p), &v) || v.call < prior) {
            *done = false; /* it has not decided on the prior call yet */
            continue;
        }
        arbor_status_t status = judge(t, p, &v, n, kind, false);
        if (status != ARBOR_OK) return status;
        if (v.type == ARB_VERDICT_REFUSED && v.call + 1 - (uint64_t)v.run <= prior) continue;
        if (v.type == ARB_VERDICT_FINALIZING) continue;
        arb_error("team %p: world rank %d accepted call #%llu of the team, which this rank "
                  "refused: the members are out of step, the team is failed",
                  (void *)t->handle, t->world[p], (unsigned long long)prior);
        return ARBOR_ERR_TEAM;
    }
    return ARBOR_OK;
}

arbor_status_t arb_verdict_check(struct arbor_team *t, uint64_t n, int kind)
{
    bool judged;
    post_rest(t);
    return judge_all(t, n, kind, true, &judged);
}

void arb_verdict_finalize_apart(struct arbor_team *t)
{
    if (!t->finalizing) return; /* the team failed before: its error was said */
    for (int p = 0; p < t->size; p++) {
        verdict_t v;
        if (p == t->rank || !decode(word_of(t, p), &v) || v.type != ARB_VERDICT_FINALIZING ||
            v.call == t->finalize_call)
            continue;
        arb_warn("arbor_finalize: world rank %d called arbor_finalize after %llu collective calls "
                 "on the world, this rank after %llu: one called collectives the other never "
                 "called (they ended with ARBOR_ERR_PEER_STOPPED there)",
                 t->world[p], (unsigned long long)v.call, (unsigned long long)t->finalize_call);
        return;
    }
}

void arb_verdict_release(void)
{
    free(unsent);
    unsent = NULL;
    unsent_cap = arb_verdict_unsent_n = 0;
    free(post_slots);
    post_slots = NULL;
    post_nslots = 0;
}

void arb_verdict_refusal_failed(struct arbor_team *t)
{
    verdict_t v;
    if (!decode(t->verdict_posted, &v) || v.type != ARB_VERDICT_REFUSED) return;
    post(t, encode(ARB_VERDICT_CANCELLED, v.call, v.kind, v.status, 0));
}
