/*
 * ARBOR_CHECK=1: before a collective moves data, its members agree that they called the same
 * one. Messages match by ticket only, so without this a member that passes another count, root,
 * type, op, kind or sync flag gets garbage or shifts every later collective of the team by one
 * message. Each member contributes a signature v and ~v to one MAX allreduce of the team;
 * max(v) and ~max(~v) = min(v) then differ exactly where two members disagree. A member whose
 * own arguments failed validation takes part too (its "valid" field is 0), so the others learn
 * it instead of waiting for it until the timeout.
 *
 * A team mismatch (some members call on team A, others on team B) cannot show in a signature:
 * the exchange runs on the team's own channels, so the two groups sit in two exchanges that
 * never meet. Each rank therefore posts, for the time of its exchange, a board in its segment:
 * the team's id and the exchange's sequence number. A waiting rank reads the boards of the
 * members it awaits; a member sitting in the exchange of another team of which this rank is a
 * member, at a collective this rank has not started, waits for this rank as this rank waits
 * for it: neither exchange can complete. Seen twice, 50 ms apart with no progress in between
 * (a member that merely finished our exchange first and moved on is past it within
 * microseconds), both teams are failed and every rank of the crossing returns
 * ARBOR_ERR_MISMATCH.
 */
#include "coll/coll_check.h"

#include <inttypes.h>

#include "runtime/dtype.h"
#include "coll/executor.h"
#include "util/log.h"
#include "coll/team.h"
#include "runtime/tp_call.h"
#include "coll/team_fail.h"

enum { SIG_VALID, SIG_KIND, SIG_ROOT, SIG_BYTES, SIG_DTYPE, SIG_OP, SIG_SYNC, SIG_N };

static const char *const field_name[SIG_N] = {
    "argument validity", "collective",   "root",       "byte count (or count array)",
    "datatype",          "reduction op", "sync flags",
};

#define SYNC_FLAGS                                                                                 \
    (ARBOR_IN_NOSYNC | ARBOR_IN_MYSYNC | ARBOR_IN_ALLSYNC | ARBOR_OUT_NOSYNC | ARBOR_OUT_MYSYNC |  \
     ARBOR_OUT_ALLSYNC | ARBOR_SYMMETRIC)

/* By the family's shape (algorithms/coll_list.h), as core/coll_start.c checks a call. */
static bool is_rooted(arb_coll_t c)
{
    c = arb_coll_shape(c);
    return c == ARB_COLL_BCAST || c == ARB_COLL_SCATTER || c == ARB_COLL_SCATTERV ||
           c == ARB_COLL_GATHER || c == ARB_COLL_GATHERV || c == ARB_COLL_REDUCE;
}

static bool is_reduction(arb_coll_t c)
{
    c = arb_coll_shape(c);
    return c == ARB_COLL_REDUCE || c == ARB_COLL_ALLREDUCE || c == ARB_COLL_REDUCE_SCATTER;
}

/* FNV-1a over a single-valued array (NULL hashes as a distinct value). */
static uint64_t hash_array(const size_t *a, int n, uint64_t h)
{
    if (!a) return h ^ 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < n; i++) h = (h ^ (uint64_t)a[i]) * 1099511628211ull;
    return h;
}

/* What every member must pass alike. Per-rank arguments (the counts of scatterv / gatherv on a
 * non-root, alltoallv's arrays, buffers, in place) are left out. Unsigned arithmetic: the
 * fields of an invalid call may hold anything. */
static void signature(const struct arbor_team *t, const arb_call_t *c, size_t elem, uint64_t flags,
                      bool valid, uint64_t *v)
{
    arb_coll_t k = c->coll;
    v[SIG_VALID] = valid;
    v[SIG_KIND] = (uint64_t)k;
    v[SIG_ROOT] = is_rooted(k) ? (uint64_t)(int64_t)c->root : 0;
    v[SIG_DTYPE] = arb_coll_shape(k) > ARB_COLL_BCAST ? (uint64_t)c->dtype : 0;
    v[SIG_OP] = is_reduction(k) ? (uint64_t)(int64_t)c->op : 0;
    v[SIG_SYNC] = flags & SYNC_FLAGS;
    switch (arb_coll_shape(k)) {
    case ARB_COLL_BARRIER:
    case ARB_COLL_SCATTERV:
    case ARB_COLL_GATHERV:
    case ARB_COLL_ALLTOALLV:
        v[SIG_BYTES] = 0;
        break;
    case ARB_COLL_BCAST:
        v[SIG_BYTES] = (uint64_t)c->count;
        break;
    case ARB_COLL_REDUCE_SCATTER:
        v[SIG_BYTES] = hash_array(c->counts, t->size, (uint64_t)elem);
        break;
    case ARB_COLL_ALLGATHERV:
        v[SIG_BYTES] = hash_array(c->displs, t->size, hash_array(c->counts, t->size, elem));
        break;
    default:
        v[SIG_BYTES] = (uint64_t)c->count * (uint64_t)elem;
        break;
    }
}

static void report(const struct arbor_team *t, const arb_call_t *c, const uint64_t *lo,
                   const uint64_t *hi)
{
    char what[512];
    size_t n = 0;
    for (int f = 0; f < SIG_N && n < sizeof(what); f++) {
        if (lo[f] == hi[f]) continue;
        if (f == SIG_KIND && lo[f] < ARB_COLL_KINDS && hi[f] < ARB_COLL_KINDS)
            n += (size_t)snprintf(what + n, sizeof(what) - n, "%s%s (%s .. %s)", n ? ", " : "",
                                  field_name[f], arb_coll_name((arb_coll_t)lo[f]),
                                  arb_coll_name((arb_coll_t)hi[f]));
        else if (f == SIG_DTYPE)
            n += (size_t)snprintf(what + n, sizeof(what) - n, "%s%s (%s .. %s)", n ? ", " : "",
                                  field_name[f], arb_dtype_name((arbor_dtype_t)lo[f]),
                                  arb_dtype_name((arbor_dtype_t)hi[f]));
        else
            n += (size_t)snprintf(what + n, sizeof(what) - n, "%s%s (%" PRId64 " .. %" PRId64 ")",
                                  n ? ", " : "", field_name[f], (int64_t)lo[f], (int64_t)hi[f]);
    }
    /* Every member sees the same verdict; one line per team is enough. */
    if (t->rank == 0)
        arb_error("ARBOR_CHECK: %s on team %p (collective #%" PRIu64 " of %d members): members "
                  "disagree on %s",
                  arb_coll_name(c->coll), (void *)t->handle, t->seq, t->size, what);
}

/* ---- the board: {team id, sequence number} of the exchange this rank sits in -------------- */

enum { BOARD_ID, BOARD_SEQ, BOARD_GONE0, BOARD_GONE1, BOARD_WORDS };
static uint64_t board_off; /* 0: no board (ARBOR_CHECK off, or init has not run) */
static struct arbor_team *(*team_by_id)(uint64_t id);

static arbor_status_t crossing(struct arbor_team *t, struct arb_inst *inst);

void arb_coll_check_board_init(uint64_t off, struct arbor_team *(*by_id)(uint64_t id))
{
    board_off = off;
    team_by_id = by_id;
    if (off) {
        uint64_t *b = (uint64_t *)(void *)(arb_ctx.seg + off);
        for (int i = 0; i < BOARD_WORDS; i++) b[i] = 0;
    }
    arb_team_set_stall_hook(off ? crossing : NULL);
}

static void board_post(uint64_t id, uint64_t seq)
{
    if (!board_off) return;
    uint64_t *b = (uint64_t *)(void *)(arb_ctx.seg + board_off);
    __atomic_store_n(&b[BOARD_SEQ], seq, __ATOMIC_RELAXED);
    __atomic_store_n(&b[BOARD_ID], id, __ATOMIC_RELEASE);
}

/* The two teams of the crossing this rank detected last: members still waiting in either learn
 * it here after this rank has moved on. */
static void board_post_gone(uint64_t a, uint64_t b2)
{
    uint64_t *b = (uint64_t *)(void *)(arb_ctx.seg + board_off);
    __atomic_store_n(&b[BOARD_GONE0], a, __ATOMIC_RELEASE);
    __atomic_store_n(&b[BOARD_GONE1], b2, __ATOMIC_RELEASE);
}

/* A member's board: a load where its segment is mapped, else a read through the transport,
 * bounded; the buffer and completion are static, so a read still pending when this rank stops
 * waiting lands there harmlessly (and the next read waits for it). */
static bool board_read(int world_rank, uint64_t *id, uint64_t *seq, uint64_t *gone)
{
    static uint64_t w[BOARD_WORDS];
    static arb_tp_comp_t comp = {0, ARBOR_OK};
    uint8_t *base = world_rank == arb_ctx.rank ? arb_ctx.seg : arb_peer_map(world_rank);
    if (base) {
        const uint64_t *b = (const uint64_t *)(void *)(base + board_off);
        gone[0] = __atomic_load_n(&b[BOARD_GONE0], __ATOMIC_ACQUIRE);
        gone[1] = __atomic_load_n(&b[BOARD_GONE1], __ATOMIC_ACQUIRE);
        *id = __atomic_load_n(&b[BOARD_ID], __ATOMIC_ACQUIRE);
        *seq = __atomic_load_n(&b[BOARD_SEQ], __ATOMIC_RELAXED);
        return true;
    }
    double until = arb_now_us() + 1e5;
    while (comp.pending && arb_now_us() < until) arb_tp_progress();
    if (comp.pending) return false;
    arb_tp_rkey_t *key = arb_tp_seg_rkey(world_rank);
    if (!key) return false;
    comp.status = ARBOR_OK;
    arbor_status_t st;
    while ((st = arb_tp_get(w, sizeof(w), key, board_off, &comp)) == ARB_ERR_AGAIN &&
           arb_now_us() < until)
        arb_tp_progress();
    if (st != ARBOR_OK) return false;
    while (comp.pending && arb_now_us() < until) arb_tp_progress();
    if (comp.pending || comp.status != ARBOR_OK) return false;
    *id = w[BOARD_ID];
    *seq = w[BOARD_SEQ];
    gone[0] = w[BOARD_GONE0];
    gone[1] = w[BOARD_GONE1];
    return true;
}

/* The crossing seen at the previous idle point, confirmed at a later one. */
static struct {
    const void *inst;
    int peer;
    uint64_t id, seq;
    double first_us;
} suspect;

/* The stall hook (arb_team_stall_reason) while ARBOR_CHECK is on: ARBOR_ERR_MISMATCH when t's
 * signature exchange waits for a member that waits, in the exchange of another team this rank
 * belongs to, for this rank (neither can ever complete); the other team is failed too. */
static arbor_status_t crossing(struct arbor_team *t, struct arb_inst *inst)
{
    if (!board_off) return ARBOR_OK;
    const uint64_t *mine = (const uint64_t *)(void *)(arb_ctx.seg + board_off);
    if (__atomic_load_n(&mine[BOARD_ID], __ATOMIC_RELAXED) != t->id) return ARBOR_OK;
    int awaited[16], n = arb_exec_awaited(inst, awaited, 16);
    double now = arb_now_us();
    for (int i = 0; i < n; i++) {
        uint64_t id, seq, gone[2];
        if (awaited[i] == arb_ctx.rank || !board_read(awaited[i], &id, &seq, gone)) continue;
        if (gone[0] == t->id || gone[1] == t->id) {
            /* The member found the crossing first and failed this team (and the other one). */
            uint64_t other = gone[0] == t->id ? gone[1] : gone[0];
            struct arbor_team *x = team_by_id(other);
            arb_error("ARBOR_CHECK: team mismatch: world rank %d, awaited in a collective on team "
                      "%p (%d members, id %016llx), called one on another team (id %016llx) "
                      "instead. Both teams are failed",
                      awaited[i], (void *)t->handle, t->size, (unsigned long long)t->id,
                      (unsigned long long)other);
            if (x && x != t && x->failed == ARBOR_OK) arb_team_fail_all(x, ARBOR_ERR_MISMATCH);
            board_post_gone(t->id, other);
            return ARBOR_ERR_MISMATCH;
        }
        if (id == 0 || id == t->id) continue;
        struct arbor_team *x = team_by_id(id);
        if (!x || x->seq > seq || x->failed != ARBOR_OK) continue; /* not ours, or we are past it */
        if (suspect.inst != inst || suspect.peer != awaited[i] || suspect.id != id ||
            suspect.seq != seq) {
            suspect.inst = inst, suspect.peer = awaited[i], suspect.id = id, suspect.seq = seq;
            suspect.first_us = now;
            return ARBOR_OK;
        }
        if (now - suspect.first_us < 5e4) return ARBOR_OK;
        arb_error("ARBOR_CHECK: team mismatch: this rank called a collective on team %p (%d "
                  "members, id %016llx) while world rank %d waits in a collective on team %p "
                  "(%d members, id %016llx) that this rank has not called: members called "
                  "collectives on different teams (or on the same teams in different orders). "
                  "Both teams are failed",
                  (void *)t->handle, t->size, (unsigned long long)t->id, awaited[i],
                  (void *)x->handle, x->size, (unsigned long long)id);
        suspect.inst = NULL;
        arb_team_fail_all(x, ARBOR_ERR_MISMATCH);
        board_post_gone(t->id, id);
        return ARBOR_ERR_MISMATCH;
    }
    return ARBOR_OK;
}

_Static_assert(ARB_CHECK_WORDS == 2 * SIG_N, "a signature and its complement");

uint64_t arb_coll_check_hash(const struct arbor_team *t, const arb_call_t *c, size_t elem,
                             uint64_t flags, uint64_t call)
{
    uint64_t v[SIG_N];
    signature(t, c, elem, flags, true, v);
    /* FNV-1a-like over the words, then the team and the call number mixed in: 0 is avoided so
     * that a line never written cannot pass for a signature. */
    uint64_t h = 1469598103934665603ull ^ t->id;
    for (int f = 0; f < SIG_N; f++) h = (h ^ v[f]) * 1099511628211ull;
    h ^= (call + 1) * 0xff51afd7ed558ccdull;
    return h ? h : 1;
}

void arb_coll_check_sign(const struct arbor_team *t, const arb_call_t *c, size_t elem,
                         uint64_t flags, bool valid, uint64_t mine[ARB_CHECK_WORDS])
{
    signature(t, c, elem, flags, valid, mine);
    for (int f = 0; f < SIG_N; f++) mine[SIG_N + f] = ~mine[f];
    board_post(t->id, t->seq); /* the exchange starts: until the verdict */
}

arbor_status_t arb_coll_check_verdict(const struct arbor_team *t, const arb_call_t *c,
                                      const uint64_t all[ARB_CHECK_WORDS], arbor_status_t local,
                                      arbor_status_t exchange)
{
    uint64_t lo[SIG_N];
    board_post(0, 0);
    if (exchange != ARBOR_OK) return local != ARBOR_OK ? local : exchange;
    bool same = true;
    for (int f = 0; f < SIG_N; f++) {
        lo[f] = ~all[SIG_N + f];
        same &= lo[f] == all[f];
    }
    if (!same) report(t, c, lo, all);
    if (local != ARBOR_OK) return local; /* its own code for the member that was wrong */
    return same ? ARBOR_OK : ARBOR_ERR_MISMATCH;
}
