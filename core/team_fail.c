/*
 * A failed team (the spirit of ULFM's revoke): after a collective of the team timed out or a
 * member was reported gone, its
 * members can no longer agree on the order of the team's messages, so every collective of the
 * team in flight is cancelled (none touches a user buffer again) and later calls on the team
 * are refused; the other teams keep working.
 */
#include <stdio.h>
#include <string.h>

#include "core/executor.h"
#include "core/log.h"
#include "core/team.h"
#include "core/tp_call.h"

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

/*
 * A transport sees a dead peer on its error path only when something goes to it; a rank that
 * only waits for data sends it nothing, and one that waits for a survivor (which waits for the
 * dead one) would never learn. So a wait stalled for PROBE_AFTER_US reads 8 bytes of the
 * segment of one member that is not mapped here (off this node; those on it are probed by PID
 * in the bootstrap), at most one read every PROBE_EVERY_US, round robin over the awaited
 * members and the whole team in turn: a read to a gone process fails (connection reset or
 * refused) and the transport's error path reports the peer (arb_boot_peer_lost), or the read's
 * own error status does. A read that does not complete (a transport that needs the target's
 * progress, a target busy elsewhere) is left in its slot and the next slot is used; no slot
 * free, no probe. Nothing at all while collectives make progress.
 */
enum { PROBE_AFTER_US = 1000000, PROBE_EVERY_US = 200000, PROBE_SLOTS = 8 };

typedef struct {
    int peer;           /* world rank of the read in flight, or -1 */
    arb_tp_comp_t comp; /* static: a read may outlive the wait that posted it */
    uint64_t word;
} probe_slot_t;

static struct {
    const arb_inst_t *inst; /* the stalled wait being probed */
    double since_us;        /* first idle point of that wait */
    double posted_us;       /* when the last read was posted */
    unsigned turn;          /* even: an awaited member, odd: any member */
    int next_awaited, next_member;
    probe_slot_t slot[PROBE_SLOTS];
    bool ready;
} probe;

/* Collects the verdicts of completed reads; returns a free slot or NULL. */
static probe_slot_t *probe_reap(void)
{
    probe_slot_t *free_slot = NULL;
    if (!probe.ready) {
        for (int i = 0; i < PROBE_SLOTS; i++) probe.slot[i].peer = -1;
        probe.ready = true;
    }
    for (int i = 0; i < PROBE_SLOTS; i++) {
        probe_slot_t *s = &probe.slot[i];
        if (s->peer >= 0 && !s->comp.pending) {
            arb_debug("probe of world rank %d: %s", s->peer, arbor_strerror(s->comp.status));
            if (s->comp.status != ARBOR_OK) {
                arb_warn("a read of world rank %d's segment failed (%s): reported lost", s->peer,
                         arbor_strerror(s->comp.status));
                arb_boot_peer_lost(s->peer);
            }
            s->peer = -1;
        }
        if (s->peer < 0 && !free_slot) free_slot = s;
    }
    return free_slot;
}

static int probe_target(const struct arbor_team *t, const arb_inst_t *inst)
{
    int awaited[16], n = arb_exec_awaited(inst, awaited, 16);
    bool members = probe.turn++ & 1 || n == 0;
    int count = members ? t->size : n;
    int *next = members ? &probe.next_member : &probe.next_awaited;
    for (int k = 0; k < count; k++) {
        int i = (*next + k) % count, r = members ? t->world[i] : awaited[i];
        if (r == arb_ctx.rank || arb_peer_map(r)) continue;
        *next = (i + 1) % count;
        return r;
    }
    return -1;
}

static void probe_peers(const struct arbor_team *t, const arb_inst_t *inst)
{
    double now = arb_now_us();
    probe_slot_t *s = probe_reap();
    if (probe.inst != inst) {
        probe.inst = inst;
        probe.since_us = now;
        return;
    }
    if (!s || now - probe.since_us < PROBE_AFTER_US || now - probe.posted_us < PROBE_EVERY_US)
        return;
    int r = probe_target(t, inst);
    arb_tp_rkey_t *key = r >= 0 ? arb_tp_seg_rkey(r) : NULL;
    if (!key) return;
    s->comp = (arb_tp_comp_t){0, ARBOR_OK};
    arbor_status_t st = arb_tp_get(&s->word, sizeof(s->word), key, 0, &s->comp);
    if (st == ARB_ERR_AGAIN) return; /* the transport is busy: next idle point */
    if (st != ARBOR_OK) s->comp.status = st, s->comp.pending = 0;
    s->peer = r;
    probe.posted_us = now;
    arb_debug("probe of world rank %d posted (%s)", r, arbor_strerror(st));
}

static arb_team_stall_fn stall_hook;

void arb_team_fail_reset(void)
{
    memset(&probe, 0, sizeof(probe)); /* a read of the closed transport never completes */
    stall_hook = NULL;
}

void arb_team_set_stall_hook(arb_team_stall_fn fn)
{
    stall_hook = fn;
}

arbor_status_t arb_team_stall_reason(struct arbor_team *t, arb_inst_t *inst)
{
    if (arb_ctx.size > 1) probe_peers(t, inst);
    if (team_lost_peer(t)) return ARBOR_ERR_PEER_LOST;
    return stall_hook ? stall_hook(t, inst) : ARBOR_OK;
}

void arb_team_fail_all(struct arbor_team *t, arbor_status_t why)
{
    t->failed = why;
    for (arb_inst_t *i = arb_ctx.active_head, *next; i; i = next) {
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
    if (why == ARBOR_ERR_TIMEOUT)
        snprintf(after, sizeof(after), " after %g s of no progress", arb_ctx.cfg.timeout_s);
    arb_error("%s #%llu on team %p (%d members, this rank %d): %s%s; still waiting for world "
              "rank(s) %s%s. The team's collectives in flight are cancelled and the team is "
              "failed: later calls on it return ARBOR_ERR_TEAM",
              inst->coll < ARB_COLL_KINDS ? arb_coll_name(inst->coll) : "internal collective",
              (unsigned long long)inst->seq, (void *)t->handle, t->size, t->rank,
              why == ARBOR_ERR_TIMEOUT ? "timed out" : arbor_strerror(why), after, ranks, lost);
    t->failed = why;
    for (arb_inst_t *i = arb_ctx.active_head, *next; i; i = next) {
        next = i->next;
        if (i->team == t) arb_exec_cancel(i, why);
    }
    arb_exec_cancel(inst, why); /* not active: an instance that never started moving */
}
