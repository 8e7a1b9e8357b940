/*
 * One verdict per collective (docs/PROTOCOL.md, "Verdicts"): what a member decided about a
 * call of the team that the others must learn, posted in the member's link line at every
 * other member, and the checks that read it.
 *
 * A member posts a verdict when it refused a call (its own arguments failed validation: others
 * may have accepted the same call and wait for it, or have finished without it), when it
 * cancelled a collective and failed the team (timeout, lost peer, mismatch), and when it
 * enters arbor_finalize. Readers look at the verdicts only when the count of posts in their own
 * segment moved (one load of a local line per call and per completion), and at every idle
 * point of a wait.
 *
 * Calls are numbered per team on every member alike: each call that reaches validation on a
 * live team takes the next number, accepted or refused, so that a refusal names a call the
 * others can find among theirs.
 */
#ifndef ARB_CORE_COLL_VERDICT_H
#define ARB_CORE_COLL_VERDICT_H

#include <stdbool.h>
#include <stdint.h>

#include "coll/team.h"

/* Kinds of posted verdict. */
enum { ARB_VERDICT_REFUSED = 1, ARB_VERDICT_CANCELLED = 2, ARB_VERDICT_FINALIZING = 3 };

/* The call kind of a verdict that is no user collective (an internal one, finalize). */
enum { ARB_VERDICT_INTERNAL = 31 };

/* Whether members posted anything since this rank last looked (one load of a local line). */
static inline bool arb_verdict_news(const struct arbor_team *t)
{
    const uint64_t *count = (const uint64_t *)(const void *)(t->local + arb_team_verdict_off(t));
    return __atomic_load_n(count, __ATOMIC_ACQUIRE) != t->verdicts_seen;
}

/* Numbers the call about to be validated (returned) and records whether this rank accepted it
 * once validation is done: arb_verdict_decided. */
static inline uint64_t arb_verdict_number(struct arbor_team *t)
{
    t->refused_bits <<= 1;
    t->open_bits = t->open_bits << 1 | 1;
    return t->calls++;
}
/* This rank accepted call n (inline: every call that starts says so). */
static inline void arb_verdict_accepted(struct arbor_team *t, uint64_t n)
{
    uint64_t back = t->calls - 1 - n;
    if (back < 64) t->open_bits &= ~(1ull << back);
}
/* Whether the start of call n must look at the verdicts (arb_verdict_begin): members posted
 * something, this rank refused the call before, or a verdict of ours is still to be sent.
 * Inline: every call asks. */
static inline bool arb_verdict_pending(const struct arbor_team *t)
{
    return (t->refused_bits & 2) || t->verdict_todo_n || arb_verdict_news(t);
}
/* After finalize's stages: warns when a member finalized after a different number of calls on
 * t (its finalizing verdict says how many). */
void arb_verdict_finalize_apart(struct arbor_team *t);

/* Whether our last verdict has gone to team rank p (tried again here if not): a message of a
 * later collective to p waits until it has, so that p reads the verdict first. Inline: every
 * send asks when a verdict waits. */
bool arb_verdict_sent_to(struct arbor_team *t, int p);
static inline bool arb_verdict_before(struct arbor_team *t, int p)
{
    return __builtin_expect(t->verdict_todo_n == 0, 1) || arb_verdict_sent_to(t, p);
}

/* This rank's decision on call n (the last numbered); a refusal is posted to every member.
 * kind: the collective (ARB_COLL_*). */
void arb_verdict_decided(struct arbor_team *t, uint64_t n, int kind, arbor_status_t status);

/* Before call n (numbered, not yet validated): why it must fail at once, or ARBOR_OK. Reads the
 * verdicts when there is news: a member that cancelled a collective of the team at or before
 * n (the team is failed: its code for call n itself, ARBOR_ERR_TEAM for a later one), or that
 * refused a call this rank accepted (the members are out of step: the refuser's code). Sets
 * *pending when this rank refused the call before n and must first learn that every member
 * refused it too (arb_verdict_settled). */
arbor_status_t arb_verdict_begin(struct arbor_team *t, uint64_t n, int kind, bool *pending);
/* While *pending: ARBOR_OK once every member refused call n - 1 too (*done true), an error
 * when one accepted it or cancelled (the team is out of step: fail it), or ARBOR_OK with *done
 * false (ask again, after some progress). */
arbor_status_t arb_verdict_settled(struct arbor_team *t, uint64_t n, int kind, bool *done);

/* For an instance of call n of kind (ARB_COLL_*) at completion (status ARBOR_OK so far, when
 * arb_verdict_news) or at an idle point of its wait: the error it must end with, or ARBOR_OK.
 * Reads every member's verdict. */
arbor_status_t arb_verdict_check(struct arbor_team *t, uint64_t n, int kind);

/* This rank failed t at call n (kind) with why: every member learns it. Idempotent. */
void arb_verdict_cancelled(struct arbor_team *t, uint64_t n, int kind, arbor_status_t why);
/* The same, except that members the collective still waited for (world ranks in stalled) are
 * told only where their segment is mapped here: through the transport an operation to a member
 * that makes no progress stays in flight and, on some providers, slows this rank's traffic with
 * the others. Such a member, arriving late, is told only between mapped peers. */
void arb_verdict_cancelled_except(struct arbor_team *t, uint64_t n, int kind, arbor_status_t why,
                                  const int *stalled, int nstalled);
/* After a refusal this rank posted, settling found the team out of step: the refusal becomes a
 * cancellation of that call, with its code (the word members still deciding that call read). */
void arb_verdict_refusal_failed(struct arbor_team *t);
/* Team t is being destroyed with verdicts not yet sent to some members: they are kept and go
 * out from later progress (arb_verdict_send_unsent). */
void arb_verdict_keep_unsent(struct arbor_team *t);
/* How many verdicts of freed teams wait; progress sends what it can of them (how many went). */
extern int arb_verdict_unsent_n;
int arb_verdict_send_unsent(void);
/* Finalize, once the transport is closed: forgets the puts it may still have reported into, and
 * the verdicts of freed teams that never went (their members are finalizing too). */
void arb_verdict_release(void);
/* Finalize: this rank's closing barrier on the world is call n. */
void arb_verdict_finalizing(struct arbor_team *t, uint64_t n);

#endif /* ARB_CORE_COLL_VERDICT_H */
