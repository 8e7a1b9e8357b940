/*
 * One-copy collectives on symmetric buffers: eligibility, the model's choice and the
 * executor's descriptor hooks (coll_direct.h says how the path works).
 */
#include "core/coll_direct.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "core/rma/rma_impl.h"

static inline uint64_t load_acq(const uint8_t *p)
{
    return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
}

static inline void store_rel(uint8_t *p, uint64_t v)
{
    __atomic_store_n((uint64_t *)p, v, __ATOMIC_RELEASE);
}

bool arb_direct_eligible(const struct arbor_team *t, int coll, uint64_t flags)
{
    if (!(flags & ARBOR_SYMMETRIC) || arb_ctx.cfg.onecopy == ARB_ONECOPY_NEVER) return false;
    /* Schedules of these never write a region after sending from it (coll_direct.h). */
    if (coll != ARB_COLL_BCAST && coll != ARB_COLL_ALLGATHER && coll != ARB_COLL_ALLTOALL)
        return false;
    return t->size > 1 && arb_rma.all_mapped;
}

bool arb_direct_choose(const arb_coll_args_t *a, int forced, const arb_logp_t *m, arb_logp_t *m1)
{
    int n;
    arb_alg_table(a->coll, &n);
    *m1 = arb_logp_one_copy(m);
    double p2[32] = {0}, p1[32] = {0};
    if (n > 32) return false;
    int a2 = arb_select(a, m, forced, p2), a1 = arb_select(a, m1, forced, p1);
    /* The one-copy sender completes once its last reader signals back. */
    double t2 = p2[a2], t1 = p1[a1] + arb_logp_one_copy_settle(m);
    bool one = arb_ctx.cfg.onecopy == ARB_ONECOPY_ALWAYS || (isfinite(t1) && t1 < t2);
    if (arb_ctx.cfg.print_algorithm && a->rank == 0) {
        const char *const *names = arb_alg_names(a->coll);
        fprintf(stderr,
                "arbor: %s bytes=%zu ranks=%d symmetric buffers: one copy %s=%.3gus, two copies "
                "%s=%.3gus -> %s%s\n",
                arb_coll_name(a->coll), a->bytes, a->size, names[a1], t1, names[a2], t2,
                one ? "one copy" : "two copies",
                arb_ctx.cfg.onecopy == ARB_ONECOPY_ALWAYS ? " (ARBOR_ONECOPY=always)" : "");
    }
    return one;
}

bool arb_direct_send(const arb_inst_t *inst, int p, uint64_t ticket, const uint8_t *src, size_t len)
{
    const struct arbor_team *t = inst->team;
    if (len <= ARB_INLINE_MAX || !t->peer_region[p]) return false;
    uintptr_t a = (uintptr_t)src, base = (uintptr_t)arb_ctx.seg;
    if (a < base || len > arb_ctx.seg_size || a - base > arb_ctx.seg_size - len) return false;
    uint64_t off = (uint64_t)(a - base);
    uint8_t *line = t->peer_region[p] + arb_team_line_off(t, t->rank, ticket % (uint64_t)t->depth);
    memcpy(line + ARB_INLINE_HDR, &off, sizeof(off));
    store_rel(line, ticket + 1);
    return true;
}

bool arb_direct_source(arb_inst_t *inst, int p, uint64_t ticket, size_t len, const uint8_t **src_p)
{
    const struct arbor_team *t = inst->team;
    /* The line's ticket tells a descriptor; rechecked after posted[p] (as for inline chunks) so
     * a descriptor stored before a later slot chunk's signal is not missed. */
    const uint8_t *line = t->local + arb_team_line_off(t, p, ticket % (uint64_t)t->depth);
    if (load_acq(line) != ticket + 1) {
        if (load_acq(t->local + arb_team_posted_off(t, p)) <= ticket) return false;
        if (load_acq(line) != ticket + 1) {
            *src_p = NULL; /* in the landing slot */
            return true;
        }
    }
    uint64_t off;
    memcpy(&off, line + ARB_INLINE_HDR, sizeof(off));
    const uint8_t *base = arb_peer_map(t->world[p]);
    if (!base || len > arb_ctx.seg_size || off > arb_ctx.seg_size - len) {
        /* Cannot happen while mapping is agreed (arb_direct_eligible): fail, never read wild. */
        arb_error("one copy: rank %d described %zu bytes at segment offset %llu that this rank "
                  "cannot read (%s)",
                  t->world[p], len, (unsigned long long)off, base ? "out of range" : "not mapped");
        inst->status = ARBOR_ERR_TRANSPORT;
        return false;
    }
    *src_p = base + off;
    return true;
}

bool arb_direct_settled(arb_inst_t *inst)
{
    struct arbor_team *t = inst->team;
    const arb_sched_t *s = &inst->cs->sched;
    for (int i = 0; i < s->nsteps; i++) {
        uint64_t want = inst->st[i].settle;
        if (!want) continue;
        int p = s->steps[i].peer;
        arb_chan_t *ch = &t->out[p];
        if (ch->credit >= want) continue;
        ch->credit = load_acq(t->local + arb_team_consumed_off(t, p));
        if (ch->credit < want) return false;
    }
    return true;
}
