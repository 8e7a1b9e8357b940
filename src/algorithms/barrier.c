/*
 * Barrier by dissemination (Hensgen, Finkel, Manber 1988): in round k every rank signals
 * rank + 2^k and waits for rank - 2^k; after ceil(log2 P) rounds everyone has heard, directly
 * or transitively, from everyone. Messages carry no payload, only the landing signal.
 * flat: everyone signals rank 0, which then releases everyone (2 latencies, 2 (P - 1) signals).
 * direct: everyone signals everyone in one round (1 latency, P (P - 1) signals): for few ranks,
 * or where a hop is expensive (a descheduled relay, logp.h).
 */
#include "algorithms/coll.h"

#include <math.h>

static arbor_status_t build_dissemination(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                          const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    uint32_t round = 0;
    for (int dist = 1; dist < a->size; dist *= 2, round++) {
        int to = (a->rank + dist) % a->size;
        int from = (a->rank - dist % a->size + a->size) % a->size;
        arb_sched_send(s, round, to, ARB_BUF_SRC, 0, 0, -1);
        arb_sched_recv(s, round, from, ARB_BUF_DST, 0, 0, 0, -1);
    }
    return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
}

static double cost_dissemination(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                 const arb_logp_t *m)
{
    (void)alg;
    double rounds = a->size > 1 ? ceil(log2((double)a->size)) : 0;
    return rounds * arb_logp_arrival(m, 0);
}

static arbor_status_t build_flat(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                 const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    for (int r = 1; r < a->size; r++) {
        if (a->rank == 0) {
            arb_sched_recv(s, 0, r, ARB_BUF_DST, 0, 0, 0, -1);
        } else if (r == a->rank) {
            arb_sched_send(s, 0, 0, ARB_BUF_SRC, 0, 0, -1);
        }
    }
    for (int r = 1; r < a->size; r++) {
        if (a->rank == 0) {
            arb_sched_send(s, 1, r, ARB_BUF_SRC, 0, 0, -1);
        } else if (r == a->rank) {
            arb_sched_recv(s, 1, 0, ARB_BUF_DST, 0, 0, 0, -1);
        }
    }
    return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
}

static double cost_flat(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)alg;
    if (a->size < 2) return 0;
    return 2 * arb_logp_arrival(m, 0) + 2 * (a->size - 2) * arb_logp_gap(m, 0);
}

/* One round: every rank signals every other and waits for all of them. */
static arbor_status_t build_direct(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                   const arb_logp_t *m, arb_sched_t *s)
{
    (void)alg, (void)m;
    for (int i = 1; i < a->size; i++) {
        arb_sched_send(s, 0, (a->rank + i) % a->size, ARB_BUF_SRC, 0, 0, -1);
        arb_sched_recv(s, 0, (a->rank - i + a->size) % a->size, ARB_BUF_DST, 0, 0, 0, -1);
    }
    return arb_sched_ok(s) ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
}

static double cost_direct(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)alg;
    return arb_logp_direct(m, a->size, 0, 0);
}

static arbor_status_t build_updown(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                   const arb_logp_t *m, arb_sched_t *s)
{
    return arb_updown_build(a, m, alg->variant, s);
}

static double cost_updown(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m)
{
    return arb_updown_cost(a, m, alg->variant);
}

const char *const arb_barrier_alg_names[] = {
    "auto",      "dissemination", "flat",   "direct",    "karp_node",
    "two_level", "leader_dissem", "hwcoll", "triggered", NULL};

const arb_alg_desc_t arb_barrier_algs[] = {
    {"auto", "cheapest predicted by the LogGP model", NULL, NULL, 0, 0, 0, 0},
    {"dissemination", "ceil(log2 P) rounds of signals to rank + 2^k", build_dissemination,
     cost_dissemination, 0, 0, 0, 0},
    {"flat", "every rank signals rank 0, which then releases every rank", build_flat, cost_flat, 0,
     0, 0, 0},
    {"direct", "one round: every rank signals every other (P - 1 signals each)", build_direct,
     cost_direct, 0, 0, 0, 0},
    {"karp_node", "node-aware Karp tree: signal up to rank 0, then down (several nodes)",
     build_updown, cost_updown, ARB_TREE_KARP_NODE, 2, 1, 0},
    {"two_level", "two-level tree (inside nodes, then across leaders), up then down", build_updown,
     cost_updown, ARB_TREE_TWO_LEVEL, 2, 1, 0},
    {"leader_dissem",
     "up each node's tree to its leader, one dissemination among leaders (radix by the model), "
     "down",
     arb_leader_dissem_build, arb_leader_dissem_cost, ARB_NODE_LEADERS, 0, 1, 0},
    {"hwcoll", "the transport's provider collective (libfabric fi_barrier, the team's group)",
     arb_hwcoll_build, arb_hwcoll_cost, 0, 0, 0, ARB_ALG_NEEDS_HWCOLL},
    {"triggered", "libfabric triggered writes: the flat barrier, posted whole at start",
     arb_trig_build, arb_trig_cost, 0, 0, 0, ARB_ALG_NEEDS_TRIGGERED},
};
const int arb_barrier_nalgs = sizeof(arb_barrier_algs) / sizeof(arb_barrier_algs[0]);
