/*
 * The process-wide state of an initialised arbor: configuration, bootstrap, transport, the
 * segment and its symmetric heap, the world team, the model, and the list of collectives in
 * flight (in initiation order) that the progress engine advances.
 */
#ifndef ARB_CORE_CONTEXT_H
#define ARB_CORE_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "algorithms/coll.h"
#include "algorithms/logp.h"
#include "algorithms/tune.h"
#include "bootstrap/bootstrap.h"
#include "core/clock.h"
#include "core/config.h"
#include "core/rma/heap.h"
#include "transports/transport.h"

typedef struct arb_inst arb_inst_t;

typedef struct {
    uint64_t calls;
    double total_us;
} arb_alg_stats_t;

typedef struct {
    int init_count;
    arb_config_t cfg;
    arb_boot_t *boot;
    const arb_tp_ops_t *tp_ops;
    arb_tp_t *tp;
    const char *tp_name;
    int rank, size;
    uint8_t *seg;
    size_t seg_size;
    uint64_t *seg_bases; /* [size] every rank's segment address in its own process */
    arb_heap_t heap;     /* the symmetric heap over the segment (core/rma/) */
    struct arbor_team *world;
    size_t *images;         /* arbor_images_init: images of each world rank (NULL until then) */
    arb_logp_t model;       /* between ranks of one node (the only level on one node) */
    arb_logp_t model_inter; /* between nodes */
    int *node_of;           /* [size] node index of every world rank (first appearance order) */
    int nnodes;
    const char *model_source; /* "ARBOR_LOGP", "measured" or "transport defaults" */
    arb_tune_t tune;
    bool yield;
    bool node_oversubscribed; /* this rank's node has more ranks than cores */
    bool any_oversubscribed;  /* some rank's node has more ranks than cores (same on all) */
    arb_inst_t *active_head, *active_tail; /* collectives in flight, initiation order */
    uint64_t epoch;                        /* bumped whenever anything moves */
    bool in_progress;                      /* re-entrance guard of the progress engine */
    bool threaded;                         /* ARBOR_PROGRESS=thread: calls take the lock */
    bool all_mapped;                       /* every peer's segment is mapped here */
    unsigned polls;
    arb_alg_stats_t stats[ARB_COLL_KINDS][16];
} arb_ctx_t;

extern arb_ctx_t arb_ctx;

static inline bool arb_initialized(void)
{
    return arb_ctx.init_count > 0;
}

/* A peer's segment mapped here for loads and stores, or NULL (go through the transport). Only
 * peers of this node by the bootstrap's topology: a transport may map more (hosts simulated in
 * namespaces of one kernel share its shared memory), and the model prices such peers as remote.
 * Never with ARBOR_DIRECT=n. */
static inline void *arb_peer_map(int world_rank)
{
    if (!arb_ctx.cfg.direct) return NULL;
    if (arb_ctx.node_of && arb_ctx.node_of[world_rank] != arb_ctx.node_of[arb_ctx.rank])
        return NULL;
    return arb_ctx.tp_ops->peer_ptr(arb_ctx.tp, world_rank);
}

/* With a progress thread every entry point holds this (recursive) lock; no-ops otherwise. */
void arb_lock(void);
void arb_unlock(void);
arbor_status_t arb_progress_thread_start(void);
void arb_progress_thread_stop(void);

#endif /* ARB_CORE_CONTEXT_H */
