/*
 * UCX (ucp) backend: private state shared by the files of transports/ucx/. The segment is the
 * core's node-shared memory, registered; or, when the core passes none (ARBOR_DIRECT=n),
 * allocated by ucp_mem_map(ALLOCATE), the only memory UCX gives true one-sided shared-memory RMA
 * and a ucp_rkey_ptr mapping (docs/TRANSPORTS.md, "UCX").
 */
#ifndef ARB_TRANSPORTS_UCX_UCX_H
#define ARB_TRANSPORTS_UCX_UCX_H

#include "transports/transport.h"

#include <stdbool.h>
#include <ucp/api/ucp.h>

struct arb_tp_rkey {
    ucp_ep_h ep;     /* the peer's endpoint: the key is valid on it only */
    ucp_rkey_h rkey; /* NULL for a key of zero bytes */
    uint64_t base;   /* the address the peer registered; offsets start here */
    int peer;
    bool emulated; /* user memory: RMA is software-emulated through the target's progress */
};

struct arb_tp_mr {
    struct arb_tp_mr *next; /* tp->mrs: the regions an active-message put_signal may write */
    void *addr;
    size_t len;
    ucp_mem_h memh;
    void *packed; /* from ucp_rkey_pack */
    size_t packed_len;
};

/* Stable storage for an atomic's operand (UCX reads it until completion) and its completion;
 * for a signal that waits for a flush, also its target. */
typedef struct arb_ucx_amo_ctx {
    struct arb_ucx_amo_ctx *next; /* free list */
    arb_tp_t *tp;
    arb_tp_comp_t *comp;
    uint64_t operand;
    arb_tp_rkey_t *sig_rkey;
    uint64_t sig_off;
    uint64_t am_hdr[4]; /* a put_signal message's header (ucx_am.c), read until completion */
} arb_ucx_amo_ctx_t;

/* ucp_worker_fence orders operations per transport lane only (UCX 1.13): an emulated put (an
 * active message applied at the target's progress) and a direct atomic can still be reordered.
 * After emulated operations a fence therefore flushes the endpoint, and the peer refuses new
 * operations (ARB_ERR_AGAIN) until that flush completes. */
typedef struct {
    void *ptr;            /* ucp_rkey_ptr of the peer's segment, or NULL */
    bool dirty;           /* emulated operations posted since the last fence */
    volatile int fencing; /* parts of a fence in flight: an endpoint flush, a ping (ucx_am.c) */
    /* The endpoint has no atomic lane (UCX over TCP): every put_signal to this peer is one
     * active message (ucx_am.c) instead of put, fence and a software-emulated atomic. */
    bool am_signal;
    bool am_dirty;         /* put_signal messages sent since the last ping was answered or sent */
    int pings;             /* of fencing: pings not yet answered */
    bool lost;             /* the endpoint failed: no pong will come */
    int chains;            /* put_signal chains to this peer whose signal waits for a flush */
    unsigned long chained; /* signals those chains posted so far */
    /* A copy of the peer's worker address and packed segment key (from its blob), for the
     * endpoints and keys of streams (ucx_stream.c); read-only after connect. */
    void *wire;            /* the allocation holding both */
    const void *wire_rkey; /* packed segment key, inside wire after the address */
} arb_ucx_peer_t;

struct arb_tp {
    int rank;
    int size;
    double timeout_s; /* bound of blocking waits (flush, close); 0 = forever */
    bool yield;       /* sched_yield while a blocking wait sees no progress */
    ucp_context_h context;
    ucp_worker_h worker;
    bool wakeup; /* UCP_FEATURE_WAKEUP was granted */
    int efd;     /* -1 without wakeup */
    uint32_t caps;

    ucp_mem_h seg_memh;
    bool seg_given; /* the core's memory (params.segment_base), registered and not ours */
    void *seg;
    size_t seg_size;
    void *blob; /* header, worker address, packed segment key */
    size_t blob_len;

    ucp_ep_h *eps;            /* [size] after connect */
    arb_tp_rkey_t *seg_rkeys; /* [size] */
    arb_ucx_peer_t *peers;    /* [size] */
    long user_rkeys;          /* unpacked by rkey_unpack and not yet released */

    /* Lost peers: endpoints to peers off this node use UCP_ERR_HANDLING_MODE_PEER, whose
     * error callback reports the peer through peer_lost (ucx_context.c). */
    bool *off_node; /* [size], NULL when the bootstrap gave no locality */
    void (*peer_lost)(int rank);

    arb_tp_mr_t *mrs;   /* registered regions (ucx_mem.c) */
    long pings_waiting; /* pings of fences and flushes not yet answered (ucx_am.c) */
    arb_ucx_amo_ctx_t *free_amo;
    long chains_waiting;   /* put_signal chains whose signal waits for an endpoint flush */
    unsigned long chained; /* signals posted by chains so far (flush repeats if it changed) */
    struct arb_tp_flush *spare_flush; /* the last flush object, kept for the next (ucx_flush.c) */
};

/* ucx_stream.c: streams (transport.h), a worker of their own on the same context. */
arbor_status_t arb_ucx_stream_open(arb_tp_t *tp, arb_tp_stream_t **s_p);
void arb_ucx_stream_close(arb_tp_t *tp, arb_tp_stream_t *s);
arbor_status_t arb_ucx_stream_put(arb_tp_stream_t *s, int peer, uint64_t off, const void *src,
                                  size_t len, arb_tp_comp_t *comp);
arbor_status_t arb_ucx_stream_get(arb_tp_stream_t *s, int peer, uint64_t off, void *dst, size_t len,
                                  arb_tp_comp_t *comp);
arbor_status_t arb_ucx_stream_amo(arb_tp_stream_t *s, int peer, uint64_t off, arb_tp_amo_t op,
                                  uint64_t operand, uint64_t compare, uint64_t *result,
                                  arb_tp_comp_t *comp);
arbor_status_t arb_ucx_stream_fence(arb_tp_stream_t *s, int peer);
arbor_status_t arb_ucx_stream_flush(arb_tp_stream_t *s);
int arb_ucx_stream_progress(arb_tp_stream_t *s);

arbor_status_t arb_ucx_status(ucs_status_t status);
/* Progresses until req completes (NULL: already done), bounded by tp->timeout_s; frees it. */
arbor_status_t arb_ucx_wait(arb_tp_t *tp, ucs_status_ptr_t req, const char *what);

arbor_status_t arb_ucx_mem_reg(arb_tp_t *tp, void *addr, size_t len, arb_tp_mr_t **mr_p,
                               void **packed_p, size_t *packed_len_p);
void arb_ucx_mem_dereg(arb_tp_t *tp, arb_tp_mr_t *mr);
arbor_status_t arb_ucx_rkey_unpack(arb_tp_t *tp, int peer, const void *packed, size_t len,
                                   uint64_t base, arb_tp_rkey_t **rkey_p);
void arb_ucx_rkey_release(arb_tp_t *tp, arb_tp_rkey_t *rkey);

/* The request parameters of a put or get: comp counts it until UCX completes it (comp NULL:
 * fire and forget). ucx_rma.c; the streams (ucx_stream.c) post with them too. */
void arb_ucx_rma_param(ucp_request_param_t *param, arb_tp_comp_t *comp);
arbor_status_t arb_ucx_put(arb_tp_t *tp, const void *src, size_t len, arb_tp_rkey_t *rkey,
                           uint64_t off, arb_tp_comp_t *comp);
arbor_status_t arb_ucx_get(arb_tp_t *tp, void *dst, size_t len, arb_tp_rkey_t *rkey, uint64_t off,
                           arb_tp_comp_t *comp);
arbor_status_t arb_ucx_amo(arb_tp_t *tp, arb_tp_amo_t op, arb_tp_rkey_t *rkey, uint64_t off,
                           uint64_t operand, uint64_t compare, uint64_t *result,
                           arb_tp_comp_t *comp);
arbor_status_t arb_ucx_put_signal(arb_tp_t *tp, const void *src, size_t len, arb_tp_rkey_t *rkey,
                                  uint64_t off, arb_tp_rkey_t *sig_rkey, uint64_t sig_off,
                                  uint64_t sig_add, arb_tp_comp_t *comp);
arbor_status_t arb_ucx_fence(arb_tp_t *tp, int peer);
arbor_status_t arb_ucx_flush(arb_tp_t *tp);
/* The flush of some peers (transport.h): ucx_flush.c. */
arbor_status_t arb_ucx_flush_start(arb_tp_t *tp, const int *peers, int n, arb_tp_flush_t **f_p);
arbor_status_t arb_ucx_flush_test(arb_tp_t *tp, arb_tp_flush_t *f);
void arb_ucx_flush_end(arb_tp_t *tp, arb_tp_flush_t *f);
/* Local completion only, no pings: close, when peers may have closed already. */
arbor_status_t arb_ucx_flush_sends(arb_tp_t *tp);
int arb_ucx_progress(arb_tp_t *tp);
arbor_status_t arb_ucx_wait_fd(arb_tp_t *tp, int *fd_p);
arbor_status_t arb_ucx_arm(arb_tp_t *tp);
void arb_ucx_amo_ctx_free_all(arb_tp_t *tp);
arb_ucx_amo_ctx_t *arb_ucx_amo_ctx_get(arb_tp_t *tp);
void arb_ucx_amo_ctx_put(arb_ucx_amo_ctx_t *ctx, ucs_status_t status);
/* Accounts for what a *_nbx call returned (ucx_req.c, with the status mapping and the pool of
 * atomic contexts). */
arbor_status_t arb_ucx_posted(ucs_status_ptr_t req, arb_tp_comp_t *comp, const char *what,
                              int peer);

/* ucx_am.c: put_signal as one active message, and the ping that tells a fence or a flush that
 * the peer has applied every earlier one. */
extern bool arb_ucx_am_signal_enabled; /* tests switch it off to run the old path */
arbor_status_t arb_ucx_am_init(arb_tp_t *tp);
bool arb_ucx_am_signal_wanted(arb_tp_t *tp, ucp_ep_h ep);
arbor_status_t arb_ucx_am_put_signal(arb_tp_t *tp, const void *src, size_t len, arb_tp_rkey_t *rkey,
                                     uint64_t off, arb_tp_rkey_t *sig_rkey, uint64_t sig_off,
                                     uint64_t sig_add, arb_tp_comp_t *comp);
arbor_status_t arb_ucx_am_ping(arb_tp_t *tp, int peer);
void arb_ucx_am_peer_lost(arb_tp_t *tp, int peer); /* forgets its pings */

#endif /* ARB_TRANSPORTS_UCX_UCX_H */
