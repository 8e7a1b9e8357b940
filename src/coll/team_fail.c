/*
 * A failed team (the spirit of ULFM's revoke): after a collective of the team timed out or a
 * member was reported gone, its
 * members can no longer agree on the order of the team's messages, so every collective of the
 * team in flight is cancelled (none touches a user buffer again) and later calls on the team
 * are refused; the other teams keep working.
 */
#include <stdio.h>

#include "util/clock.h"
#include "coll/coll_stray.h"
#include "coll/coll_verdict.h"
#include "coll/executor.h"
#include "util/log.h"
#include "coll/team_fail.h"

uint64_t arb_team_child_id(const struct arbor_team *parent, int color)
{
    /* FNV-1a over (parent id, parent's collective count at the split, colour): two splits of
     * one parent differ by the count, two colours of one split by the colour. 0 is reserved
     * (no team) and the world is 1. */
    uint64_t v[3] = {parent->id, parent->seq, (uint64_t)(uint32_t)color};
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < 3; i++)
        for (int b = 0; b < 64; b += 8) h = (h ^ ((v[i] >> b) & 0xff)) * 1099511628211ull;
    return h > 1 ? h : h + 2;
}

/* Whether the bootstrap (launcher events, the probe of this node's ranks, transport errors
 * reported through arb_boot_peer_lost) knows a member of t gone. */
static bool team_lost_peer(const struct arbor_team *t)
{
    arb_boot_t *b = arb_ctx.boot;
    if (!b || !b->ops->losses(b)) return false;
    for (int r = 0; r < t->size; r++)
        if (b->ops->lost(b, t->world[r])) return true;
    return false;
}

/* Whether inst waits for a member that is in arbor_finalize: it joins no collective any more.
 * Only a member inst still waits for counts: one that did its part of this collective and then
 * stopped is no reason to fail it. */
static arb_team_stalled_fn stalled_probe;
static arb_team_notice_fn stop_notice;

void arb_team_set_departures(arb_team_stalled_fn stalled, arb_team_notice_fn notice)
{
    stalled_probe = stalled;
    stop_notice = notice;
}

/* Whether inst waits for a member that is in arbor_finalize, or for one that gave up this team
 * because of such a member. Only members inst still waits for count: one that did its part of
 * this collective and then stopped is no reason to fail it. */
static bool awaits_stopped(const arb_inst_t *inst)
{
    if (!stalled_probe) return false;
    int awaited[64], n = arb_exec_awaited(inst, awaited, 64);
    for (int i = 0; i < n; i++)
        if (stalled_probe(awaited[i], inst->team->id)) return true;
    return false;
}

static arb_team_stall_fn stall_hook;

void arb_team_fail_reset(void)
{
    stall_hook = NULL;
    stalled_probe = NULL;
    stop_notice = NULL;
}

void arb_team_set_stall_hook(arb_team_stall_fn fn)
{
    stall_hook = fn;
}

/* How often idle points read every member's link lines when no verdict was posted: those lines
 * hold the words members write at every barrier, so reading them at each idle point of a busy
 * oversubscribed node moves them between cores for nothing; a mismatch or a missed post is
 * still found within this. */
#define ARB_MEMBERS_LOOK_US 1000.0

arbor_status_t arb_team_stall_reason(struct arbor_team *t, arb_inst_t *inst)
{
    if (t->failed != ARBOR_OK) return t->failed; /* failed at another collective's completion */
    if (!arb_verdict_news(t) && !t->verdict_todo_n) {
        double now = arb_now_us();
        if (now < t->members_next_us) goto peers;
        t->members_next_us = now + ARB_MEMBERS_LOOK_US;
    }
    arbor_status_t verdict = arb_verdict_check(t, inst->call, inst->coll);
    if (verdict != ARBOR_OK) {
        /* Said (by the check) and passed on here; arb_team_fail then only cancels. Not
         * through the transport to the members this collective still waits for: they make no
         * progress, and an operation in flight to them stalls the transport's fences. */
        int awaited[16], n = arb_exec_awaited(inst, awaited, 16);
        t->failed = verdict;
        arb_verdict_cancelled_except(t, inst->call, inst->coll, verdict, awaited, n);
        return verdict;
    }
    if (arb_stray_check(t, inst) != ARBOR_OK) return t->failed;
peers:
    if (team_lost_peer(t)) return ARBOR_ERR_PEER_LOST;
    if (awaits_stopped(inst)) return ARBOR_ERR_PEER_STOPPED;
    return stall_hook ? stall_hook(t, inst) : ARBOR_OK;
}

void arb_team_fail_all(struct arbor_team *t, arbor_status_t why)
{
    t->failed = why;
    /* From the oldest call it cancels: the calls before it completed here, and may elsewhere. */
    uint64_t from = t->calls ? t->calls - 1 : 0;
    for (arb_inst_t *i = arb_ctx.stream.active_head; i; i = i->next)
        if (i->team == t && i->call < from) from = i->call;
    arb_verdict_cancelled(t, from, ARB_VERDICT_INTERNAL, why);
    for (arb_inst_t *i = arb_ctx.stream.active_head, *next; i; i = next) {
        next = i->next;
        if (i->team == t) arb_exec_cancel(i, why);
    }
}

void arb_team_fail(struct arbor_team *t, arb_inst_t *inst, arbor_status_t why)
{
    int awaited[16], n = arb_exec_awaited(inst, awaited, 16);
    char ranks[128] = "none in its current round (an earlier collective of the team is stuck)";
    size_t len = 0;
    for (int i = 0; i < n && len < sizeof(ranks); i++)
        len +=
            (size_t)snprintf(ranks + len, sizeof(ranks) - len, "%s%d", i ? ", " : "", awaited[i]);
    char lost[128] = "";
    len = 0;
    for (int r = 0; r < t->size && arb_ctx.boot && len < sizeof(lost); r++)
        if (arb_ctx.boot->ops->lost(arb_ctx.boot, t->world[r]))
            len += (size_t)snprintf(lost + len, sizeof(lost) - len, "%s%d",
                                    len ? ", " : "; gone (no longer running): world rank(s) ",
                                    t->world[r]);
    char after[64] = "";
    if (t->failed != ARBOR_OK) goto cancel; /* the verdict that failed it was said already */
    if (why == ARBOR_ERR_TIMEOUT)
        snprintf(after, sizeof(after), " after %g s of no progress", arb_ctx.cfg.timeout_s);
    /* A stopped member is the program's normal course (a Fortran image ended), not an error of
     * the job: the caller gets the status, the log only says why at info level. */
    arb_log(why == ARBOR_ERR_PEER_STOPPED ? ARB_LOG_INFO : ARB_LOG_ERROR,
            "%s #%llu on team %p (%d members, this rank %d): %s%s; still waiting for world "
            "rank(s) %s%s. The team's collectives in flight are cancelled and the team is "
            "failed: later calls on it return ARBOR_ERR_TEAM",
            inst->coll < ARB_COLL_KINDS ? arb_coll_name(inst->coll) : "internal collective",
            (unsigned long long)inst->seq, (void *)t->handle, t->size, t->rank,
            why == ARBOR_ERR_TIMEOUT ? "timed out" : arbor_strerror(why), after, ranks, lost);
    t->failed = why;
    /* Every member learns it: one that arrives at this collective late fails it too instead
     * of completing it with what was sent before the cancellation (through the transport,
     * not the members it still waited for: coll/coll_verdict.h). */
    arb_verdict_cancelled_except(t, inst->call, inst->coll, why, awaited, n);
cancel:
    for (arb_inst_t *i = arb_ctx.stream.active_head, *next; i; i = next) {
        next = i->next;
        if (i->team == t) arb_exec_cancel(i, why);
    }
    arb_exec_cancel(inst, why); /* not active: an instance that never started moving */
    if (why == ARBOR_ERR_PEER_STOPPED && stop_notice) stop_notice(t->id, t->size, t->world);
}
