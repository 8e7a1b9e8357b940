/*
 * ARBOR_CHECK=1: before a collective moves data, its members agree that they called the same
 * one. Messages match by ticket only, so without this a member that passes another count, root,
 * type, op, kind or sync flag gets garbage or shifts every later collective of the team by one
 * message. Each member contributes a signature v and ~v to one MAX allreduce of the team;
 * max(v) and ~max(~v) = min(v) then differ exactly where two members disagree. A member whose
 * own arguments failed validation takes part too (its "valid" field is 0), so the others learn
 * it instead of waiting for it until the timeout.
 */
#include "core/coll_check.h"

#include <inttypes.h>

#include "core/dtype.h"
#include "core/log.h"

enum { SIG_VALID, SIG_KIND, SIG_ROOT, SIG_BYTES, SIG_DTYPE, SIG_OP, SIG_SYNC, SIG_N };

static const char *const field_name[SIG_N] = {
    "argument validity", "collective",   "root",       "byte count (or count array)",
    "datatype",          "reduction op", "sync flags",
};

#define SYNC_FLAGS                                                                                 \
    (ARBOR_IN_NOSYNC | ARBOR_IN_MYSYNC | ARBOR_IN_ALLSYNC | ARBOR_OUT_NOSYNC | ARBOR_OUT_MYSYNC |  \
     ARBOR_OUT_ALLSYNC)

static bool is_rooted(arb_coll_t c)
{
    return c == ARB_COLL_BCAST || c == ARB_COLL_SCATTER || c == ARB_COLL_SCATTERV ||
           c == ARB_COLL_GATHER || c == ARB_COLL_GATHERV || c == ARB_COLL_REDUCE;
}

static bool is_reduction(arb_coll_t c)
{
    return c == ARB_COLL_REDUCE || c == ARB_COLL_ALLREDUCE || c == ARB_COLL_REDUCE_SCATTER ||
           c == ARB_COLL_SCAN || c == ARB_COLL_EXSCAN;
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
    v[SIG_DTYPE] = k > ARB_COLL_BCAST ? (uint64_t)c->dtype : 0;
    v[SIG_OP] = is_reduction(k) ? (uint64_t)(int64_t)c->op : 0;
    v[SIG_SYNC] = flags & SYNC_FLAGS;
    switch (k) {
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

_Static_assert(ARB_CHECK_WORDS == 2 * SIG_N, "a signature and its complement");

void arb_coll_check_sign(const struct arbor_team *t, const arb_call_t *c, size_t elem,
                         uint64_t flags, bool valid, uint64_t mine[ARB_CHECK_WORDS])
{
    signature(t, c, elem, flags, valid, mine);
    for (int f = 0; f < SIG_N; f++) mine[SIG_N + f] = ~mine[f];
}

arbor_status_t arb_coll_check_verdict(const struct arbor_team *t, const arb_call_t *c,
                                      const uint64_t all[ARB_CHECK_WORDS], arbor_status_t local,
                                      arbor_status_t exchange)
{
    uint64_t lo[SIG_N];
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
