/*
 * The process-wide state of an initialised arbor: configuration, bootstrap, transport, the
 * segment and its symmetric heap, the world team, the model, and the list of collectives in
 * flight (in initiation order) that the progress engine advances.
 */
#ifndef ARB_CORE_CONTEXT_H
#define ARB_CORE_CONTEXT_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "algorithms/coll.h"
#include "algorithms/logp.h"
#include "algorithms/logp_file.h"
#include "algorithms/tune.h"
#include "bootstrap/bootstrap.h"
#include "util/clock.h"
#include "runtime/config.h"
#include "util/heap.h"
#include "transports/transport.h"

typedef struct arb_inst arb_inst_t;
typedef struct arb_req_slot arb_req_slot_t;
typedef struct arb_team_slot arb_team_slot_t;

typedef struct {
    uint64_t calls;
    double total_us;
} arb_alg_stats_t;

/* The state of one stream of communication: what the progress engine drives and the waits
 * and tests read. The context below holds one; the resources all streams share (config,
 * bootstrap, transport, segment, heap, models, topology, teams, threads) stay in the context
 * itself, so that communication contexts can each get a stream of their own. */
typedef struct {
    arb_inst_t *active_head, *active_tail; /* collectives in flight, initiation order */
    uint64_t epoch;                        /* bumped whenever anything moves */
    bool in_progress;                      /* re-entrance guard of the progress engine */
    unsigned polls;                        /* engine turns (the transport's turn every 64th) */
    unsigned tp_turns; /* turns that drove the transport (the progress thread skips its own
                        * passive poll when the application drove it since the last one) */
    /* Handles of non-blocking collectives (coll/coll_req.c) and the ASYNC_FENCE list. */
    arb_req_slot_t *slots;
    uint32_t nslots, free_hint, check_pass;
    arb_inst_t *fence_head;
    /* Finished instances kept for reuse, and freed ones the transport may still write to
     * (coll/executor.c). */
    arb_inst_t *spare, *kept;
    int nspare;
} arb_stream_t;

/* The process-wide context: the resources every stream shares, and the stream. */
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
    /* The segment in node-shared memory (runtime/segment.h): arbor allocated it (the transport
     * only registers it), its name while node peers may still open it, the bytes mapped, and
     * the segments of this node's peers mapped here ([size], NULL: another node or not
     * mapped; [rank] = seg). seg_owned false: the transport allocated it (ARBOR_DIRECT=n). */
    bool seg_owned, seg_linked;
    char seg_name[48];
    size_t seg_alloc;
    uint8_t **seg_map;
    uint64_t *seg_bases; /* [size] every rank's segment address in its own process */
    arb_heap_t heap;     /* the symmetric heap over the segment (rma/) */
    struct arbor_team *world;
    size_t *images;         /* arbor_images_init: images of each world rank (NULL until then) */
    arb_logp_t model;       /* between ranks of one node (the only level on one node) */
    arb_logp_t model_inter; /* between nodes */
    int *node_of;           /* [size] node index of every world rank (first appearance order) */
    int nnodes;
    char model_source[160]; /* where the model came from (runtime/model.c composes it) */
    /* ARBOR_LOGP_FILE (runtime/model.c): the parsed file, whether it loaded, its digest */
    arb_calib_t logp_file;
    int logp_file_state; /* ARB_LOGP_FILE_NONE, _LOADED or _FAILED */
    uint64_t logp_file_digest;
    bool intra_mapped;     /* the intra-node level goes through mapped segments (agreed) */
    arb_calib_t measured;  /* what ARBOR_LOGP_MEASURE measured at this init (have = 0: none) */
    bool measured_oversub; /* ... on a node with more ranks than cores */
    /* Cross-memory attach's price (runtime/model.c, arb_model_cma_measured): the ratio of a
     * process_vm_readv to a memcpy of the same span that the ranks agreed at init (0: not
     * measured), and where Gc came from, for arbor_info_get("model.cma"). */
    double cma_ratio;
    char gc_source[128];
    arb_tune_t tune;
    bool yield;
    bool node_oversubscribed; /* this rank's node has more ranks than cores */
    bool any_oversubscribed;  /* some rank's node has more ranks than cores (same on all) */
    /* Ranks that share CPUs (group/share.h): groups of one kernel, same on every rank. */
    int *share_of;    /* [size] group of every world rank */
    int *share_cpus;  /* [nshare] CPUs of each group */
    int *share_ranks; /* [nshare] ranks in each group */
    int nshare;
    /* The wake-up a message to a yielded rank costs on oversubscribed CPUs: ARBOR_OVERSUB_WAKE,
     * or measured (group/measure.c); what teams put in topo.wake. */
    double wake_us;
    bool all_mapped;        /* every peer's segment is mapped here */
    bool mapped_everywhere; /* every rank maps every other's segment (agreed by all at init) */
    /* Threads (docs/THREADS.md). Everything in this struct below init_count is guarded by lock
     * whenever locking is on; locking changes only while no other thread is inside arbor. */
    int thread_level;          /* ARBOR_THREAD_* provided */
    bool locking;              /* entries take lock: MULTIPLE, or the progress thread runs */
    bool threaded;             /* the progress thread runs */
    bool heap_busy;            /* a symmetric allocation (collective over a team) runs */
    pthread_mutex_t lock;      /* the engine lock: error-checking, never recursive */
    atomic_int lock_wanted;    /* threads blocked on lock: waiting loops yield to them */
    atomic_bool progress_stop; /* asks the progress thread to leave */
    pthread_t progress_thread;
    /* Teams other than the world (team.c): handle = (slot, generation). */
    arb_team_slot_t *team_slots;
    uint32_t nteam_slots;
    arb_alg_stats_t stats[ARB_COLL_KINDS][16];
    arb_stream_t stream; /* the one stream of communication there is today */
} arb_ctx_t;

extern arb_ctx_t arb_ctx;

static inline bool arb_initialized(void)
{
    return arb_ctx.init_count > 0;
}

/* A peer's segment mapped here for loads and stores, or NULL (go through the transport). Only
 * peers of this node by the bootstrap's topology: hosts simulated in namespaces of one kernel
 * share its shared memory, and the model prices such peers as remote. The core's own mapping
 * (runtime/segment.h) on every transport; the transport's (UCX's ucp_rkey_ptr) only where the
 * transport allocated the segment, which it does with ARBOR_DIRECT=n, where this is NULL. */
static inline void *arb_peer_map(int world_rank)
{
    if (!arb_ctx.cfg.direct) return NULL;
    if (arb_ctx.node_of && arb_ctx.node_of[world_rank] != arb_ctx.node_of[arb_ctx.rank])
        return NULL;
    if (arb_ctx.seg_owned) return arb_ctx.seg_map ? arb_ctx.seg_map[world_rank] : NULL;
    return arb_ctx.tp_ops->peer_ptr(arb_ctx.tp, world_rank);
}

#endif /* ARB_CORE_CONTEXT_H */
