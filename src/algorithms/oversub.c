/*
 * The CPU bound of a multi-node team whose ranks share too few CPUs (topo.h: shared,
 * shared_cpus, wake). LogGP prices a message by its latency and its sender's gap, as if every
 * rank had a core of its own. Where ranks outnumber the CPUs they run on (simulated hosts of one
 * kernel, an oversubscribed node), every message's CPU work queues behind every other rank's:
 * its sender's overhead (o_s, and G per byte for the copy), its receiver's (o_r) and the
 * context switch that gives the CPU back to a receiver that yielded while it waited (wake). A
 * collective then cannot finish before the shared CPUs have done all the work of the messages
 * their ranks send and receive, whatever its critical path: an all-to-all round that LogGP
 * prices at one latency costs P - 1 messages' work per rank. The bound is that work divided by
 * the CPUs, over the busiest group; the selector takes the larger of it and the LogGP time.
 *
 * On one oversubscribed node (more ranks than CPUs, the same on every rank) the bound applies as
 * well, with two differences: the wake-up is left out (arb_model_oversubscribed has put it in
 * every hop's L already), and every combine and local copy counts as CPU work (the byte costs a
 * rank's CPU spends that its peers' cannot overlap). There it moved allreduce 16 KiB at P = 4
 * on 2 cores from direct to recursive doubling, measured right in every bench/fidelity run
 * (docs/PERFORMANCE.md); the multi-node bound is unchanged.
 *
 * The work is counted on the schedules themselves: the candidate's builder runs for every rank
 * of the group and each SEND and RECV step is priced per chunk by the level it crosses. So
 * every algorithm is priced by what it sends, with no per-family formula, and every rank counts
 * the same steps (the group and its CPUs are the same table on every rank, api/init.c).
 */
#include "algorithms/coll.h"

#include <math.h>

/* Bytes of one schedule block (coll.h: per family). */
static double block_bytes(const arb_coll_args_t *a)
{
    switch (arb_coll_shape(a->coll)) {
    case ARB_COLL_REDUCE:
    case ARB_COLL_ALLREDUCE:
        return a->count ? (double)a->bytes / (double)a->count : 1;
    case ARB_COLL_REDUCE_SCATTER: {
        double total = 0;
        for (int r = 0; a->counts && r < a->size; r++) total += (double)a->counts[r];
        return total > 0 ? (double)a->bytes / total : 1;
    }
    case ARB_COLL_SCATTERV:
    case ARB_COLL_GATHERV:
    case ARB_COLL_ALLGATHERV:
    case ARB_COLL_ALLTOALLV:
        return 1;
    default:
        return (double)a->bytes;
    }
}

/* Whether step i of s waits, through its chain of dependencies, for something a peer sent. */
static bool waits_for_peer(const arb_sched_t *s, int i)
{
    for (int d = s->steps[i].dep, hops = 0; d >= 0 && d < s->nsteps && hops < s->nsteps; hops++) {
        if (s->steps[d].kind == ARB_STEP_RECV) return true;
        d = s->steps[d].dep;
    }
    return false;
}

/* The CPU work of rank r's messages in its schedule for this call (microseconds); *fwd grows by
 * the chunks rank r forwards (sends that wait for a receive). */
static double rank_work(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m,
                        int r, double blk, double *fwd)
{
    arb_coll_args_t b = *a;
    arb_sched_t s;
    b.rank = r;
    arb_sched_init(&s);
    if (alg->build(alg, &b, m, &s) != ARBOR_OK || !arb_sched_ok(&s)) {
        arb_sched_free(&s);
        return INFINITY;
    }
    const arb_topo_t *t = a->topo;
    bool multi = arb_topo_multi(t);
    /* On one node the wake-up is already in every hop's L (arb_model_oversubscribed). */
    double work = 0, wake = multi ? t->wake : 0;
    for (int i = 0; i < s.nsteps; i++) {
        const arb_step_t *st = &s.steps[i];
        double bytes = (double)st->bytes * blk;
        if (st->kind == ARB_STEP_COPY && !multi) { /* a local copy or combine: CPU work too */
            work +=
                st->combine ? arb_logp_combine(m, (size_t)bytes) : bytes * arb_logp_one_copy(m).G;
            continue;
        }
        if (st->kind != ARB_STEP_SEND && st->kind != ARB_STEP_RECV) continue;
        if (st->peer < 0 || st->peer >= a->size) continue;
        const arb_logp_t *lv = !multi || t->node[st->peer] == t->node[r] ? m : &t->inter;
        double chunks = a->chunk && bytes > (double)a->chunk ? ceil(bytes / (double)a->chunk) : 1;
        if (st->kind == ARB_STEP_SEND) {
            work += chunks * lv->os + bytes * lv->G;
            if (waits_for_peer(&s, i)) *fwd += chunks;
        } else
            work += chunks * (lv->orecv + wake) +
                    (st->combine && !multi ? arb_logp_combine(lv, (size_t)bytes) : 0);
    }
    arb_sched_free(&s);
    return work;
}

/* Ranks of the group whose schedules are built: all of them up to this many, else this many
 * spread evenly and the sum scaled (the selector runs once per cached schedule, but a build is
 * O(P) or more). */
#define OVERSUB_MAX_BUILDS 64

double arb_oversub_bound(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m,
                         double *forwards)
{
    const arb_topo_t *t = a->topo;
    double fwd = 0;
    if (forwards) *forwards = 0;
    /* An offloaded candidate's messages are the provider's, not in its schedule: its own price
     * stands. */
    if (!t || t->nshared < 2 || t->shared_cpus < 1 || !alg->build || alg->needs) return 0;
    /* A rank knows only its own piece of these (the core's layout), so another rank's schedule
     * cannot be built here alike on every rank: no bound, the choice stays uniform. */
    if (a->coll == ARB_COLL_SCATTERV || a->coll == ARB_COLL_GATHERV ||
        a->coll == ARB_COLL_ALLTOALLV)
        return 0;
    if (t->nshared <= t->shared_cpus) return 0;
    double blk = block_bytes(a), work = 0;
    int n = t->nshared < OVERSUB_MAX_BUILDS ? t->nshared : OVERSUB_MAX_BUILDS;
    for (int i = 0; i < n && isfinite(work); i++) {
        int r = t->shared[(int)((long long)i * t->nshared / n)];
        work += rank_work(alg, a, m, r, blk, &fwd);
    }
    if (forwards) *forwards = fwd * ((double)t->nshared / n);
    return work * ((double)t->nshared / n) / t->shared_cpus;
}
