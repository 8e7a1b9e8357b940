/*
 * Collective families: each has a table of algorithms {name, description, schedule builder,
 * cost model}; the selector (select.c) prices every candidate with the LogGP model and the
 * core runs the cheapest unless ARBOR_<COLL>_ALGORITHM forces one. Entry 0 of every table is
 * "auto". The names arrays are what the configuration parser accepts.
 */
#ifndef ARB_ALGORITHMS_COLL_H
#define ARB_ALGORITHMS_COLL_H

#include <stddef.h>

#include "algorithms/coll_list.h"
#include "algorithms/logp.h"
#include "algorithms/sched.h"
#include "algorithms/topo.h"
#include "arbor.h"

typedef enum {
#define ARB_COLL_ENUM(_NAME, _name, _SHAPE) ARB_COLL_##_NAME,
    ARB_COLL_LIST(ARB_COLL_ENUM)
#undef ARB_COLL_ENUM
        ARB_COLL_KINDS
} arb_coll_t;

/* The family whose buffers and arguments coll has (coll_list.h); any other value (an internal
 * schedule's ARB_COLL_KINDS) is its own. */
static inline arb_coll_t arb_coll_shape(arb_coll_t coll)
{
    switch (coll) {
#define ARB_COLL_SHAPE(_NAME, _name, _SHAPE)                                                       \
    case ARB_COLL_##_NAME:                                                                         \
        return ARB_COLL_##_SHAPE;
        ARB_COLL_LIST(ARB_COLL_SHAPE)
#undef ARB_COLL_SHAPE
    default:
        return coll;
    }
}

/*
 * What a builder is told. Schedules address buffers in blocks (sched.h); the core binds the
 * block size when an instance starts. Per family:
 *   barrier                 no data
 *   bcast                   block = the payload: SRC (root) / DST (others) offset 0, 1 block
 *   scatter, gather,        block = one rank's piece (count * type size): the root's buffer
 *   allgather, alltoall     holds P blocks in rank order, each rank's own buffer one block
 *   reduce, allreduce,      block = one element (type size), count elements; combining RECV /
 *   scan, exscan            COPY steps apply the collective's op (sched.h, combine order)
 *   reduce_scatter          block = one element; counts[r] elements land on rank r
 *   v-variants              block = 1 byte; counts / displs in bytes
 * SRC is the send buffer, DST the receive buffer (the core makes SRC == DST for in-place
 * calls, so builders must tolerate the alias), SCRATCH is instance-private (scratch_blocks).
 */
typedef struct {
    arb_coll_t coll;
    int rank, size; /* in the team */
    int root;
    size_t bytes; /* the block size this schedule is chosen for (selection and chunking) */
    size_t chunk; /* landing slot size: payloads above it are pipelined */
    size_t count; /* reductions: elements */
    const size_t *counts, *displs;   /* v-variants (bytes), reduce_scatter (elements) */
    const size_t *rcounts, *rdispls; /* alltoallv: the receive side (bytes) */
    int commutative;                 /* reductions: 0 = combine strictly in rank order */
    const arb_topo_t *topo;          /* nodes of the team (NULL: one node) */
    unsigned caps;                   /* ARB_ALG_NEEDS_* this call can have (coll/offload.c) */
    /* The fixed cost of one provider collective call (posting, the provider's bookkeeping,
     * the completion): the transport's hint, ARBOR_HWCOLL_COST or ARB_LOGP_HWCOLL_CALL_US; the
     * hook's LogGP entry. A software provider (hwcoll_software: libfabric's util collectives) sends
     * point-to-point messages, priced with L, o, g, G on top; a switch-offload provider
     * crosses the fabric once. */
    double hwcoll_us;
    int hwcoll_software;
    /* Priced for the one-copy path of symmetric buffers (coll/coll_direct.c): the algorithms
     * written for it (allreduce reduce_scatter_allgather, reduce direct) are candidates only
     * there until measured against the two-copy choices on a machine with a core per rank;
     * forced, they run either way. */
    int one_copy;
    /* The team's landing slots span ARBOR_CHANNEL_BYTES (group/team.c, fit_depth), so a mapped
     * peer's chunks may go with plain stores (runtime/peer_copy.h): a copy through the slots then
     * costs about one memcpy per byte (G1) instead of a streamed one (G). Equal on every rank. */
    int plain_slots;
} arb_coll_args_t;

/* What an algorithm needs beyond landing channels: an offload hook of the transport that can
 * run this very call (its kind, type, op and size). The selector skips a candidate whose needs
 * the call's caps lack. */
enum { ARB_ALG_NEEDS_HWCOLL = 1u << 0, ARB_ALG_NEEDS_TRIGGERED = 1u << 1 };

typedef struct arb_alg_desc arb_alg_desc_t;
struct arb_alg_desc {
    const char *name;
    const char *desc;
    arbor_status_t (*build)(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                            const arb_logp_t *m, arb_sched_t *s);
    /* predicted completion in microseconds */
    double (*cost)(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m);
    int variant; /* family-specific: the tree kind of a tree algorithm */
    int radix;
    /* The cost function prices a multi-node team itself (per-link costs, topo.h); the selector
     * prices every other candidate there with the inter-node model, since a node-unaware
     * schedule crosses nodes on most of its rounds. */
    int topo_aware;
    unsigned needs; /* ARB_ALG_NEEDS_*: 0 for schedules over the landing channels */
};

/* Per family (one file each): the names ARBOR_<COLL>_ALGORITHM accepts ("auto" first), the
 * table and its length. */
#define ARB_FAMILY(_NAME, _name, _SHAPE)                                                           \
    extern const char *const arb_##_name##_alg_names[];                                            \
    extern const arb_alg_desc_t arb_##_name##_algs[];                                              \
    extern const int arb_##_name##_nalgs;
ARB_COLL_LIST(ARB_FAMILY)
#undef ARB_FAMILY

/* The algorithm table of coll; *n_p entries, entry 0 is "auto" (no builder). */
const arb_alg_desc_t *arb_alg_table(arb_coll_t coll, int *n_p);
const char *arb_coll_name(arb_coll_t coll);
/* The names ARBOR_<COLL>_ALGORITHM accepts, NULL-terminated, in table order ("auto" first). */
const char *const *arb_alg_names(arb_coll_t coll);

/* Chooses an algorithm: forced (> 0) wins; otherwise the cheapest predicted. predicted_p (may
 * be NULL) receives every entry's predicted time (entry 0 unused), n entries of the table. */
int arb_select(const arb_coll_args_t *a, const arb_logp_t *m, int forced, double *predicted);
/* The least time of alg on a multi-node team whose ranks share too few CPUs (topo.h: shared):
 * the CPU work of every message of the busiest group's ranks divided by its CPUs (oversub.c);
 * 0 when no group is oversubscribed. m is the intra-node model. With @p forwards (may be NULL):
 * the chunks that group's ranks forward, sends that wait for a receive (0 with no bound). */
double arb_oversub_bound(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m,
                         double *forwards);
/* The barrier that IN_ALLSYNC / OUT_ALLSYNC compose around a collective (barrier table index). */
int arb_select_sync_barrier(const arb_coll_args_t *a, const arb_logp_t *m);

/* The LogGP measurement's probe (probe.c): rank a sends `sends` one-block messages to rank b,
 * which answers with one empty message; empty for every other rank. */
arbor_status_t arb_probe_build(int me, int a, int b, int sends, arb_sched_t *s);

/* Builders shared by several families. */
arbor_status_t arb_bcast_tree_build(const arb_coll_args_t *a, const arb_logp_t *m, int kind,
                                    int radix, arb_sched_t *s);
/* The tree of kind for the call: tree.h's kinds, or topo.h's node-aware ones (which need a
 * multi-node a->topo and depend on root). */
arbor_status_t arb_coll_tree_build(const arb_coll_args_t *a, const arb_logp_t *m, int kind,
                                   int radix, int root, size_t bytes, arb_tree_t *tree);
/* Reduce up a tree to rank 0, broadcast down the same tree (updown.c): the allreduce (commutative
 * ops) and barrier of a node-aware tree. */
arbor_status_t arb_updown_build(const arb_coll_args_t *a, const arb_logp_t *m, int kind,
                                arb_sched_t *s);
double arb_updown_cost(const arb_coll_args_t *a, const arb_logp_t *m, int kind);
/* A pipelined tree broadcast's predicted completion (also a reversed-tree reduction's), with
 * per-link costs on a multi-node team; INFINITY for a node-aware kind on one node. */
double arb_bcast_tree_cost(const arb_coll_args_t *a, const arb_logp_t *m, int kind, int radix);

/* The hierarchical allgather of a multi-node team (allgather_node.c); INFINITY / unsupported on
 * one node. */
arbor_status_t arb_allgather_node_build(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                        const arb_logp_t *m, arb_sched_t *s);
double arb_allgather_node_cost(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                               const arb_logp_t *m);
/* Node-aware barrier and allreduce with a one-level exchange among node leaders
 * (node_leaders.c); INFINITY / unsupported on one node. */
arbor_status_t arb_leader_dissem_build(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                       const arb_logp_t *m, arb_sched_t *s);
double arb_leader_dissem_cost(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                              const arb_logp_t *m);
arbor_status_t arb_leader_direct_build(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                       const arb_logp_t *m, arb_sched_t *s);
double arb_leader_direct_cost(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                              const arb_logp_t *m);
/* The offloaded candidates (algorithms/offload.c): one OFFLOAD step; the cost is the hook's
 * per-call entry (arb_coll_args_t.hwcoll_us) plus the messages its provider sends. */
arbor_status_t arb_hwcoll_build(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                const arb_logp_t *m, arb_sched_t *s);
double arb_hwcoll_cost(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m);
arbor_status_t arb_trig_build(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                              const arb_logp_t *m, arb_sched_t *s);
double arb_trig_cost(const arb_alg_desc_t *alg, const arb_coll_args_t *a, const arb_logp_t *m);
/* Table index of the first algorithm of coll that needs `needs`, 0 for none. */
int arb_alg_with_needs(arb_coll_t coll, unsigned needs);

#endif /* ARB_ALGORITHMS_COLL_H */
