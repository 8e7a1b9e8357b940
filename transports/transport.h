/*
 * The transport contract: one table of function pointers per backend (UCX, libfabric). Nothing
 * above transports/ includes a UCX or libfabric header; addresses and remote keys are opaque
 * blobs that the core moves through the bootstrap.
 *
 * Memory model. Each rank owns one segment that the transport registers at open. The core
 * allocates it in node-shared memory and maps the segments of its node's peers itself
 * (runtime/segment.h), so it passes the memory in (params.segment_base); with ARBOR_DIRECT=n, or
 * where the machine has no shared memory, it passes NULL and the transport allocates (UCX gives
 * true one-sided shared-memory RMA only to memory it allocated itself). Remote memory
 * is addressed as (remote key, byte offset); the segment's key for every peer comes from
 * seg_rkey() after connect(). Local source / destination buffers may be any memory: a backend
 * that needs local registration (FI_MR_LOCAL) handles it inside.
 *
 * Completion. Every non-blocking op takes an arb_tp_comp_t (may be NULL: fire and forget, then
 * flush() completes it). The backend adds 1 to comp->pending when it accepts the op and
 * subtracts 1 once the op is complete locally (source reusable / result written) and, for puts,
 * ordered before any later fenced op to the same peer. An error sets comp->status. An op the
 * backend cannot accept now returns ARB_ERR_AGAIN without touching comp: progress, then retry.
 */
#ifndef ARB_TRANSPORTS_TRANSPORT_H
#define ARB_TRANSPORTS_TRANSPORT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arbor.h"
#include "util/log.h"

/* Internal status: the backend has no resources now; progress and retry. Never reaches users. */
#define ARB_ERR_AGAIN ((arbor_status_t)-1000)
/* Internal status: a stream (below) cannot carry this operation (the target's memory would be
 * reached through emulation in the target's progress, or the peer is unreachable from it):
 * nothing was posted; the caller uses the shared path (tp's own operations). */
#define ARB_ERR_NOT_STREAM ((arbor_status_t)-1001)

typedef struct arb_tp arb_tp_t;
typedef struct arb_tp_rkey arb_tp_rkey_t;     /* unpacked remote key: knows its peer and base */
typedef struct arb_tp_mr arb_tp_mr_t;         /* local registration */
typedef struct arb_tp_flush arb_tp_flush_t;   /* a flush of some peers in progress */
typedef struct arb_tp_stream arb_tp_stream_t; /* per-thread transport resources (below) */

typedef struct {
    _Atomic int64_t pending; /* only through the arb_tp_comp_* helpers below */
    arbor_status_t status;   /* set before the op's arb_tp_comp_end */
} arb_tp_comp_t;

/* The backend accepted an op on c. Relaxed: the count only has to reach the waiter through
 * the completion's release below (and is read by the thread that posted it). */
static inline void arb_tp_comp_begin(arb_tp_comp_t *c)
{
    atomic_fetch_add_explicit(&c->pending, 1, memory_order_relaxed);
}
/* An op on c is complete: release, so a waiter that reads the count (acquire) also sees the
 * fetched data and c->status. An RMW and not a load + store: a backend may complete ops of one
 * comp from its progress while the poster adds more (always under the engine lock today). */
static inline void arb_tp_comp_end(arb_tp_comp_t *c)
{
    atomic_fetch_sub_explicit(&c->pending, 1, memory_order_release);
}
static inline int64_t arb_tp_comp_pending(const arb_tp_comp_t *c)
{
    return atomic_load_explicit(&c->pending, memory_order_acquire);
}

/* Capability bits: the upper layers read these before choosing an algorithm or a path. */
enum {
    ARB_TP_CAP_DIRECT_MAP = 1u << 0,     /* peer_ptr() can map some peers' segments */
    ARB_TP_CAP_FLOAT_ATOMICS = 1u << 1,  /* native float / double atomics */
    ARB_TP_CAP_TRIGGERED = 1u << 2,      /* triggered (counter-threshold) operations */
    ARB_TP_CAP_HW_COLL = 1u << 3,        /* hardware / provider collectives */
    ARB_TP_CAP_WAIT_FD = 1u << 4,        /* wait_fd() gives a pollable descriptor */
    ARB_TP_CAP_REMOTE_CQ_DATA = 1u << 5, /* put_signal uses remote completion data */
    /* Between peers whose segments are mapped, the backend's atomics are CPU atomics (coherent
     * with loads / stores / CPU atomics on the same word) and its one-sided operations complete
     * without the target's progress (UCX over shared memory on a segment it allocated; not
     * libfabric's shm provider, nor UCX on memory the core passed in). */
    ARB_TP_CAP_MAPPED_CPU_AMO = 1u << 6
};

typedef enum {
    ARB_TP_AMO_ADD = 0, /* *remote += operand, no result */
    ARB_TP_AMO_FADD,    /* result = *remote; *remote += operand */
    ARB_TP_AMO_SWAP,    /* result = *remote; *remote = operand */
    ARB_TP_AMO_CSWAP    /* result = *remote; if (result == compare) *remote = operand */
} arb_tp_amo_t;

/* Everything a backend is told at open. The core fills it from the configuration and the
 * bootstrap: a backend reads neither ARBOR_* settings nor the launcher's environment. */
typedef struct {
    int rank;            /* this process in the job */
    int size;            /* processes in the job */
    size_t segment_size; /* bytes to allocate and register */
    /* The segment, zero-filled and page-aligned, segment_size bytes rounded up to pages, that
     * the core allocated in node-shared memory and maps for node peers itself: register it,
     * never free it, and map no peer's (peer_ptr gives only our own). NULL: allocate it. */
    void *segment_base;
    int nlocal;           /* processes of the job on this node (from the bootstrap) */
    const char *provider; /* backend's provider choice (ARBOR_OFI_PROVIDER); NULL or "" = best */
    double timeout_s;     /* bound of blocking waits (flush, close); 0 = forever */
    bool yield;           /* waiting loops may yield the CPU (ARBOR_POLL_YIELD is not never) */
    const int *local;     /* the nlocal ranks of this node (NULL: unknown) */
    /* Reports a peer whose process is gone, seen on the backend's error path (an endpoint
     * error, a failed completion); any thread. NULL: nobody listens. */
    void (*peer_lost)(int rank);
    /* ARB_TP_CAP_HW_COLL / _TRIGGERED the core may use: a backend asks its provider for them
     * only then (coll/offload.h). */
    uint32_t offload_want;
    /* Bytes of unregistered user buffers a backend that needs local registration may keep
     * registered for large transfers (a registration cache); 0: none (ARBOR_REG_CACHE). */
    size_t reg_cache_bytes;
} arb_tp_params_t;

/* The check every backend's open() starts with: a rank inside the job and a segment. */
static inline arbor_status_t arb_tp_params_check(const arb_tp_params_t *p)
{
    if (p->segment_size == 0 || p->size < 1 || p->rank < 0 || p->rank >= p->size) {
        arb_error("open: bad parameters (rank %d, size %d, segment %zu bytes)", p->rank, p->size,
                  p->segment_size);
        return ARBOR_ERR_INVALID_ARG;
    }
    return ARBOR_OK;
}

/*
 * Offload hooks (coll/offload.h, docs/OFFLOAD.md). Provider collectives run on a group: the
 * world ranks of a team, joined once (collectively, in the same order on every member). A
 * collective is posted whole and completes through comp like any other operation; the
 * transport's progress() drives it. A backend without hooks leaves arb_tp_ops_t.offload NULL.
 */
typedef struct arb_tp_group arb_tp_group_t;

typedef enum { ARB_TP_HW_BARRIER = 0, ARB_TP_HW_BCAST, ARB_TP_HW_ALLREDUCE } arb_tp_hwcoll_t;

typedef struct {
    arb_tp_hwcoll_t kind;
    const void *src;     /* allreduce: the input (may equal dst) */
    void *dst;           /* bcast: the buffer (the root's is the source); allreduce: result */
    size_t count;        /* elements of dtype */
    arbor_dtype_t dtype; /* bcast: ARBOR_BYTE */
    arbor_op_t op;       /* allreduce */
    int root;            /* bcast: index in the group */
} arb_tp_hwcoll_args_t;

/* Triggered programs (ARB_TP_CAP_TRIGGERED): ARB_TP_TRIG_REGIONS regions of registered memory,
 * the same size on every rank, each with a counter of the writes peers made into it. A
 * triggered write copies len bytes at off of one of our regions to the same place of the
 * peer's, once the counter of region `gate` reaches threshold (0: at once), with no call of
 * ours: the provider's own progress fires it. */
enum { ARB_TP_TRIG_REGIONS = 3 };
typedef struct {
    int peer;           /* world rank */
    int region;         /* source here and destination there */
    uint64_t off;       /* bytes into the region */
    size_t len;         /* at least 1: a write of 0 bytes may count nowhere */
    int gate;           /* region whose counter gates the write */
    uint64_t threshold; /* counter value that fires it; 0: post as a plain write */
} arb_tp_trig_op_t;

typedef struct arb_tp_offload_ops {
    /* Whether the provider runs this collective (kind, type, op, count) on a group of n. */
    bool (*hwcoll_query)(arb_tp_t *tp, const arb_tp_hwcoll_args_t *a, int n);
    /* Starts joining the group of world ranks members[0..n) (this rank among them). */
    arbor_status_t (*group_join)(arb_tp_t *tp, const int *members, int n, arb_tp_group_t **g_p);
    /* ARBOR_OK once joined, ARB_ERR_AGAIN while the join runs (call progress()), or an error. */
    arbor_status_t (*group_test)(arb_tp_t *tp, arb_tp_group_t *g);
    void (*group_free)(arb_tp_t *tp, arb_tp_group_t *g);
    /* Posts one collective on a joined group; ARB_ERR_AGAIN: no resources now, retry. */
    arbor_status_t (*hwcoll_post)(arb_tp_t *tp, arb_tp_group_t *g, const arb_tp_hwcoll_args_t *a,
                                  arb_tp_comp_t *comp);
    /* Triggered programs: region i's memory and size, its counter, one write. */
    void *(*trig_region)(arb_tp_t *tp, int region, size_t *len_p);
    uint64_t (*trig_count)(arb_tp_t *tp, int region);
    arbor_status_t (*trig_post)(arb_tp_t *tp, const arb_tp_trig_op_t *op, arb_tp_comp_t *comp);
} arb_tp_offload_ops_t;

/*
 * Default cost hints: what a backend knows of its own speed before anything is measured, in
 * the LogGP terms of algorithms/logp.h (microseconds; G, G1, Gc per byte). The core turns them
 * into the job's model (core/model.c), so the algorithms see numbers and never a transport's
 * name, and every rank derives the same numbers from the same name.
 */
typedef struct {
    double L, os, orecv, g, G, G1, Gc;
} arb_tp_loggp_t;

typedef struct {
    /* One-sided operations between peers of one node. false: they cost what loads and stores
     * through mapped memory cost (a backend that moves node-local data through shared memory
     * itself, or one without a figure of its own). */
    bool have_intra;
    arb_tp_loggp_t intra;
    /* Between nodes. false: the network default of algorithms/logp.h (TCP). */
    bool have_inter;
    arb_tp_loggp_t inter;
    /* The per-call cost of a provider collective (what posting and completing it costs besides
     * its messages), used where ARBOR_HWCOLL_COST is not set. */
    double hwcoll_us;
    /* The provider's collectives are software ones (point-to-point messages it schedules
     * itself), priced per round; false: switch offload, priced as one call and one latency. */
    bool hwcoll_software;
} arb_tp_hints_t;

typedef struct arb_tp_ops {
    const char *name; /* "ucx", "ofi": the value of ARBOR_TRANSPORT that names it */

    /* Opens the backend and registers the local segment (params.segment_base, or allocated
     * here and zero-filled).
     * ARBOR_ERR_UNSUPPORTED when the backend cannot run on this machine (no device, no
     * provider): the core then tries the next backend unless the user named this one. */
    arbor_status_t (*open)(const arb_tp_params_t *params, arb_tp_t **tp_p);
    void (*close)(arb_tp_t *tp); /* after flush; frees everything */

    /* This rank's connection blob (endpoint address + segment base and packed key). Valid until
     * close. */
    arbor_status_t (*blob)(arb_tp_t *tp, const void **blob_p, size_t *len_p);
    /* Wires every peer from their blobs (index = rank; blobs[rank] is our own). */
    arbor_status_t (*connect)(arb_tp_t *tp, const void *const *blobs, const size_t *lens);

    void *(*seg_base)(arb_tp_t *tp);                    /* local segment */
    arb_tp_rkey_t *(*seg_rkey)(arb_tp_t *tp, int peer); /* peer's segment key (after connect) */
    /* Local pointer to the peer's segment when the backend can map it (same host, a segment
     * it allocated), else NULL. Loads / stores through it are coherent with the peer's. */
    void *(*peer_ptr)(arb_tp_t *tp, int peer);

    /* Registration of other memory, with a packed key for peers. */
    arbor_status_t (*mem_reg)(arb_tp_t *tp, void *addr, size_t len, arb_tp_mr_t **mr_p,
                              void **packed_p, size_t *packed_len_p);
    void (*mem_dereg)(arb_tp_t *tp, arb_tp_mr_t *mr); /* also frees the packed key */
    /* base = the address the peer registered (offsets into it are used in RMA calls) */
    arbor_status_t (*rkey_unpack)(arb_tp_t *tp, int peer, const void *packed, size_t len,
                                  uint64_t base, arb_tp_rkey_t **rkey_p);
    void (*rkey_release)(arb_tp_t *tp, arb_tp_rkey_t *rkey);

    /* One-sided data movement. Offsets are bytes from the key's base. Any length (0 allowed);
     * backends split what exceeds their maximum message size. */
    arbor_status_t (*put)(arb_tp_t *tp, const void *src, size_t len, arb_tp_rkey_t *rkey,
                          uint64_t off, arb_tp_comp_t *comp);
    arbor_status_t (*get)(arb_tp_t *tp, void *dst, size_t len, arb_tp_rkey_t *rkey, uint64_t off,
                          arb_tp_comp_t *comp);
    /* 64-bit atomics on 8-byte-aligned remote words. result may be NULL for ADD. */
    arbor_status_t (*amo)(arb_tp_t *tp, arb_tp_amo_t op, arb_tp_rkey_t *rkey, uint64_t off,
                          uint64_t operand, uint64_t compare, uint64_t *result,
                          arb_tp_comp_t *comp);
    /* Put, then atomically add sig_add to the 64-bit word at sig_off of the same peer's key
     * sig_rkey, ordered so the target never sees the signal before the data, nor before the
     * data of any earlier put_signal to the same peer (the executor's landing channels count
     * on it: a signal that reads n means messages 0..n-1 have landed). The signal may become
     * visible only when the target drives progress (remote CQ data). */
    arbor_status_t (*put_signal)(arb_tp_t *tp, const void *src, size_t len, arb_tp_rkey_t *rkey,
                                 uint64_t off, arb_tp_rkey_t *sig_rkey, uint64_t sig_off,
                                 uint64_t sig_add, arb_tp_comp_t *comp);

    /* Later ops to peer are ordered after earlier ones (non-blocking). */
    arbor_status_t (*fence)(arb_tp_t *tp, int peer);
    /* Blocks (making progress) until every op posted so far is complete at its target,
     * bounded by params.timeout_s (ARBOR_ERR_TIMEOUT). */
    arbor_status_t (*flush)(arb_tp_t *tp);
    /* A flush of the ops posted so far to some peers only, in three steps, so that a caller
     * waits without blocking inside the backend (interrupt mode sleeps between tests) and an op
     * still in flight to another peer (one that died, or that is alive but not progressing)
     * does not hold it. flush_start covers the world ranks peers[0..n) (peers NULL: every
     * peer); ops posted later are not covered. flush_test drives the backend once and returns
     * ARBOR_OK once every covered op is complete at its target, ARB_ERR_AGAIN while some are
     * not, or the error of a covered op nobody else was told of (ARBOR_ERR_PEER_LOST for a peer
     * whose process is gone). flush_end releases f, complete or not (a caller that gives up:
     * the ops stay in flight). The caller bounds the wait (ARBOR_TIMEOUT). */
    arbor_status_t (*flush_start)(arb_tp_t *tp, const int *peers, int n, arb_tp_flush_t **f_p);
    arbor_status_t (*flush_test)(arb_tp_t *tp, arb_tp_flush_t *f);
    void (*flush_end)(arb_tp_t *tp, arb_tp_flush_t *f);
    /* Drives the backend once; returns the number of completions seen (>= 0) or an error. */
    int (*progress)(arb_tp_t *tp);
    /* Interrupt-mode progress: a descriptor that becomes readable on events, and arm() before
     * sleeping on it (ARB_ERR_AGAIN: events pending, progress instead of sleeping). */
    arbor_status_t (*wait_fd)(arb_tp_t *tp, int *fd_p);
    arbor_status_t (*arm)(arb_tp_t *tp);

    /* Every rank of the job has connected every peer (the core calls it after a fence that
     * follows connect): a backend may remove the names under which peers of its node found its
     * shared memory, so that a killed job leaves nothing behind. NULL: nothing to remove. */
    void (*all_connected)(arb_tp_t *tp);

    uint32_t (*caps)(arb_tp_t *tp);        /* ARB_TP_CAP_* bits */
    const char *(*describe)(arb_tp_t *tp); /* "ucx", "ofi:shm", ... for logs and benchmarks */
    /* The default cost hints of the backend that describe() names (name, or name:variant such
     * as "ofi:tcp;ofi_rxm"): a function of the text alone, so that every rank gets the same
     * numbers and a tool prices a transport it never opened (arb_tp_hints_by_name). */
    void (*hints)(const char *described, arb_tp_hints_t *out);

    const arb_tp_offload_ops_t *offload; /* NULL: no offload hooks */

    /*
     * Streams: an independent set of transport resources (UCX: a worker of its own; libfabric:
     * an endpoint and completion queue of its own) opened from tp, for one thread at a time
     * that uses it WITHOUT the engine lock, while other threads use tp under the lock and
     * other streams at the same time: the backend makes that safe (no state shared with tp but
     * what is read-only after connect). A private communication context opens one (the core's
     * src/rma/ctx_stream.c). stream_open and stream_close run under the engine lock;
     * ARBOR_ERR_UNSUPPORTED from stream_open (or stream_open NULL): this backend has none, the
     * core keeps the shared path.
     *
     * The operations address a peer's segment (peer, byte offset), complete through comp as
     * tp's do, and are ordered and completed by the stream's own fence and flush only: nothing
     * orders them against tp's operations but completion (a flush of both). ARB_ERR_NOT_STREAM:
     * this operation cannot go on the stream (nothing posted: use tp's). ARB_ERR_AGAIN:
     * progress the stream, retry. A stream's completions run in stream_progress only, on its
     * thread; they need no progress of tp here, and at the target only what tp's operations
     * to that peer would need (a target that drives its own tp's progress serves them).
     */
    arbor_status_t (*stream_open)(arb_tp_t *tp, arb_tp_stream_t **s_p);
    /* After the stream's operations completed (or were given up): frees it. */
    void (*stream_close)(arb_tp_t *tp, arb_tp_stream_t *s);
    arbor_status_t (*stream_put)(arb_tp_stream_t *s, int peer, uint64_t off, const void *src,
                                 size_t len, arb_tp_comp_t *comp);
    arbor_status_t (*stream_get)(arb_tp_stream_t *s, int peer, uint64_t off, void *dst, size_t len,
                                 arb_tp_comp_t *comp);
    /* A 64-bit atomic on an 8-byte-aligned word (the contract's amo). */
    arbor_status_t (*stream_amo)(arb_tp_stream_t *s, int peer, uint64_t off, arb_tp_amo_t op,
                                 uint64_t operand, uint64_t compare, uint64_t *result,
                                 arb_tp_comp_t *comp);
    /* Later operations of the stream to peer (-1: every peer) ordered after earlier ones. */
    arbor_status_t (*stream_fence)(arb_tp_stream_t *s, int peer);
    /* Drives the stream once: ARBOR_OK once every operation posted on it before the call is
     * complete at its target, ARB_ERR_AGAIN while some are not (call again; nothing may be
     * posted meanwhile), or an error. The caller bounds the wait (ARBOR_TIMEOUT). */
    arbor_status_t (*stream_flush)(arb_tp_stream_t *s);
    /* Drives the stream once; the number of completions seen. */
    int (*stream_progress)(arb_tp_stream_t *s);
} arb_tp_ops_t;

/* The backends compiled in, in the order "auto" tries them, NULL-terminated
 * (transports/registry.c, the only list of transports). */
extern const arb_tp_ops_t *const arb_tp_registry[];

/* The backend ARBOR_TRANSPORT=name selects (case-insensitive): ARBOR_OK and *ops_p;
 * ARBOR_ERR_UNSUPPORTED for a transport this build left out; ARBOR_ERR_CONFIG for a name no
 * transport has. */
arbor_status_t arb_tp_lookup(const char *name, const arb_tp_ops_t **ops_p);

/* The hints of the transport a describe() text names ("ucx", "ofi:shm", ...): its backend's, or
 * all defaults (zeros, have_* false) when no backend compiled in has that name. */
void arb_tp_hints_by_name(const char *described, arb_tp_hints_t *out);

/* "ucx|ofi": every name the registry knows, for messages and documentation. */
void arb_tp_names(char *buf, size_t len);

#endif /* ARB_TRANSPORTS_TRANSPORT_H */
