/*
 * libfabric (OFI) backend: private state shared by the files of transports/ofi/. One RDM
 * endpoint with FI_RMA | FI_ATOMIC, an AV_TABLE filled from the peers' blobs and one CQ, which
 * also carries the remote-CQ-data signals peers send us (ofi_progress.c).
 *
 * Every user-level operation is a request (arb_ofi_req_t). It is posted in chunks of at most the
 * provider's maximum message size, each chunk with a context of its own (arb_ofi_ctx_t, which
 * starts with struct fi_context2 as FI_CONTEXT / FI_CONTEXT2 demand). Writes are posted with
 * FI_DELIVERY_COMPLETE and atomics always fetch, so a completion means "visible at the target";
 * fence and put_signal then only need the per-peer count of operations in flight. A request that
 * cannot be posted now (ordering, -FI_EAGAIN after part of it went out, no free context) waits in
 * its peer's FIFO queue, which progress() drains.
 */
#ifndef ARB_TRANSPORTS_OFI_OFI_H
#define ARB_TRANSPORTS_OFI_OFI_H

#include "transports/transport.h"

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_trigger.h>
#include <stdbool.h>

#define ARB_OFI_API_VERSION FI_VERSION(1, 10)
#define ARB_OFI_NCTX        1024         /* contexts: operations in flight at once */
#define ARB_OFI_NSTAGE      16           /* staging slots (FI_MR_LOCAL with unregistered buffers) */
#define ARB_OFI_STAGE_SIZE  (64u << 10)  /* bytes per staging slot */
#define ARB_OFI_RC_ENTRIES  32           /* registration cache: entries at most */
#define ARB_OFI_RC_MIN      (256u << 10) /* registration cache: smallest transfer it takes */

/* A registration cache entry (ofi_rcache.c): a page-rounded span of a user buffer. */
typedef struct arb_ofi_rc_entry {
    struct arb_tp_mr *mr; /* NULL: free entry */
    uint32_t busy;        /* chunks in flight that use it */
    bool dead;            /* invalidated while busy: unregistered once busy drops to 0 */
    uint64_t used;        /* LRU clock */
} arb_ofi_rc_entry_t;

typedef enum { ARB_OFI_PUT = 0, ARB_OFI_GET, ARB_OFI_AMO } arb_ofi_kind_t;

/* One user-level operation. */
typedef struct arb_ofi_req {
    struct arb_ofi_req *next; /* peer queue or free list */
    struct arb_ofi_req *all;  /* every request tp allocated (freed at close) */
    /* the peer's accepted and unfinished requests, in acceptance order (flush of some peers) */
    struct arb_ofi_req *live_prev, *live_next;
    uint64_t seq; /* acceptance number among the peer's requests */
    arb_ofi_kind_t kind;
    int peer;
    bool fenced;  /* may start only after every earlier operation to peer completed */
    bool started; /* a first chunk went out */
    bool counted; /* comp->pending holds 1 for this request */
    bool copied;  /* every chunk so far was injected or staged: the source is free */
    arb_tp_comp_t *comp;
    char *buf; /* put source / get destination */
    size_t len;
    size_t done;    /* bytes posted */
    int chunks;     /* posted chunks not yet complete */
    uint64_t raddr; /* target address of byte 0 */
    uint64_t key;
    bool cq_data; /* the last chunk carries data as remote CQ data (a put_signal's signal) */
    uint64_t data;
    arbor_status_t status;
    /* atomics */
    arb_tp_amo_t amo;
    uint64_t operand;
    uint64_t compare;
    uint64_t *result;
} arb_ofi_req_t;

/* One posted libfabric operation; lives in registered memory (atomic operands and results). */
typedef struct arb_ofi_ctx {
    struct fi_context2 fi; /* first: libfabric's scratch space (FI_CONTEXT / FI_CONTEXT2) */
    struct arb_ofi_ctx *next;
    arb_ofi_req_t *req;
    char *copy_to; /* get through a staging slot: copy here on completion */
    size_t len;
    int slot;               /* staging slot or -1 */
    arb_ofi_rc_entry_t *rc; /* registration cache entry in use, or NULL */
    uint64_t operand;
    uint64_t compare;
    uint64_t result;
} arb_ofi_ctx_t;

typedef struct {
    fi_addr_t addr;
    long inflight;       /* chunks posted to this peer, not complete */
    bool fence_next;     /* fence() was called: the next request is fenced */
    bool active;         /* on tp's list of peers with queued requests */
    int next_active;     /* that list, by rank; -1 ends it */
    arb_ofi_req_t *head; /* requests waiting to be (fully) posted, in submission order */
    arb_ofi_req_t *tail;
    /* Per-peer completion counting for a flush of some peers (ofi_flush.c): the CQ and any
     * counter are per endpoint, so each accepted request is numbered and listed until it
     * finishes; a flush that began when next_seq was s is over once the oldest listed request
     * is numbered s or more (or none is). */
    uint64_t next_seq;
    arb_ofi_req_t *live_head, *live_tail;
    arbor_status_t status; /* first error of a request to this peer nobody waits for */
    /* The peer's endpoint name from its blob, which streams insert into their own address
     * vectors (ofi_stream.c); read-only after connect. */
    void *name;
} arb_ofi_peer_t;

struct arb_tp_rkey {
    int peer;
    uint64_t key;
    uint64_t addr0; /* target address of offset 0: the base (FI_MR_VIRT_ADDR) or its offset */
};

struct arb_tp_mr {
    struct arb_tp_mr *next; /* tp's list: local descriptors for FI_MR_LOCAL */
    struct fid_mr *mr;
    char *addr;
    size_t len;
    void *desc;
    uint64_t packed[2]; /* key, registered address */
};

struct arb_tp {
    int rank;
    int size;
    double timeout_s; /* bound of blocking waits (flush, close); 0 = forever */
    bool yield;
    void (*peer_lost)(int rank); /* reports a peer seen gone on the CQ error path */
    bool all_local;              /* every rank runs on this host (the bootstrap's local peers) */
    uint32_t caps;
    char describe[64];

    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    int wait_fd; /* -1: the CQ has no descriptor */

    /* offload hooks: join events of provider collectives (or NULL), what the core may use
     * (arb_tp_params_t.offload_want), the contexts of provider collectives and triggered writes
     * in flight (ofi_coll.c), the triggered regions and counters (ofi_trigger.c) */
    struct fid_eq *eq;
    uint32_t offload_want;
    struct arb_ofi_coll *colls;
    struct arb_ofi_trig *trig;
    /* Set by ofi_coll.c while it has contexts: takes a CQ completion (ARBOR_OK) or error entry
     * of a provider collective or a triggered write, true when op_context was one of ours. A
     * registration, so that progress, below the collectives, does not call them by name. */
    bool (*coll_done)(struct arb_tp *tp, void *op_context, arbor_status_t status);

    /* what the provider demands or offers */
    bool mr_virt;   /* FI_MR_VIRT_ADDR: remote addresses are virtual addresses */
    bool mr_prov;   /* FI_MR_PROV_KEY: the provider picks keys */
    bool mr_ep;     /* FI_MR_ENDPOINT: bind each region to the endpoint, then enable it */
    bool mr_local;  /* FI_MR_LOCAL: local buffers need descriptors */
    bool cq_signal; /* put_signal sends its signal as remote CQ data (ofi_rma.c) */
    size_t max_msg;
    size_t inject_size;
    uint64_t next_key;

    /* segment */
    char *seg;
    size_t seg_size;
    bool seg_given; /* the core's memory (params.segment_base): registered, never unmapped */
    arb_tp_mr_t seg_mr;
    void *blob;
    size_t blob_len;

    /* registered scratch: contexts and staging slots */
    arb_ofi_ctx_t *ctxs;
    arb_tp_mr_t ctx_mr;
    arb_ofi_ctx_t *free_ctx;
    char *stage;
    arb_tp_mr_t stage_mr;
    unsigned stage_free; /* bit per free slot */

    arb_tp_mr_t *mrs; /* user registrations */
    long user_rkeys;

    /* registration cache (ofi_rcache.c): FI_MR_LOCAL only, limit 0 = off */
    struct {
        arb_ofi_rc_entry_t e[ARB_OFI_RC_ENTRIES];
        size_t bytes, limit;
        uint64_t clock, hits, misses, evictions;
    } rc;

    arb_ofi_peer_t *peers; /* [size] after connect */
    arb_tp_rkey_t *seg_rkeys;
    int active_head; /* peers with queued requests; -1: none */
    long inflight;   /* chunks in flight, all peers */
    long queued;     /* requests waiting in peer queues */
    arb_ofi_req_t *free_req;
    arb_ofi_req_t *all_reqs;
    arbor_status_t async_status;      /* first error of an operation nobody waits for */
    struct arb_tp_flush *spare_flush; /* the last flush object, kept for the next (ofi_flush.c) */
};

/* ofi_coll.c: provider collectives (offload hooks, listed with the triggered ones in
 * arb_ofi_offload_ops, ofi_fabric.c) */
extern const arb_tp_offload_ops_t arb_ofi_offload_ops;
bool arb_ofi_hwcoll_query(arb_tp_t *tp, const arb_tp_hwcoll_args_t *a, int n);
arbor_status_t arb_ofi_group_join(arb_tp_t *tp, const int *members, int n, arb_tp_group_t **g_p);
arbor_status_t arb_ofi_group_test(arb_tp_t *tp, arb_tp_group_t *g);
void arb_ofi_group_free(arb_tp_t *tp, arb_tp_group_t *g);
arbor_status_t arb_ofi_hwcoll_post(arb_tp_t *tp, arb_tp_group_t *g, const arb_tp_hwcoll_args_t *a,
                                   arb_tp_comp_t *comp);
/* After the domain opened: the EQ a join reports on, and ARB_TP_CAP_HW_COLL where the
 * provider runs at least a barrier. Before fi_enable (the EQ is bound to the endpoint). */
arbor_status_t arb_ofi_coll_open(arb_tp_t *tp);
void arb_ofi_coll_close(arb_tp_t *tp);
/* Contexts for both (ofi_coll.c): a free one charged to comp, or NULL; its release on failure. */
struct fi_triggered_context *arb_ofi_coll_ctx(arb_tp_t *tp, arb_tp_comp_t *comp);
void arb_ofi_coll_ctx_drop(arb_tp_t *tp, struct fi_triggered_context *ctx);

/* ofi_trigger.c: regions, counters and triggered writes (ARB_TP_CAP_TRIGGERED), after the
 * endpoint is enabled; the ops are part of arb_ofi_offload_ops. */
arbor_status_t arb_ofi_trig_open(arb_tp_t *tp);
void arb_ofi_trig_close(arb_tp_t *tp);
void *arb_ofi_trig_region(arb_tp_t *tp, int region, size_t *len_p);
uint64_t arb_ofi_trig_count(arb_tp_t *tp, int region);
arbor_status_t arb_ofi_trig_post(arb_tp_t *tp, const arb_tp_trig_op_t *op, arb_tp_comp_t *comp);

/* ofi_stream.c: streams (transport.h), an endpoint in a domain of their own. */
arbor_status_t arb_ofi_stream_open(arb_tp_t *tp, arb_tp_stream_t **s_p);
void arb_ofi_stream_close(arb_tp_t *tp, arb_tp_stream_t *s);
arbor_status_t arb_ofi_stream_put(arb_tp_stream_t *s, int peer, uint64_t off, const void *src,
                                  size_t len, arb_tp_comp_t *comp);
arbor_status_t arb_ofi_stream_get(arb_tp_stream_t *s, int peer, uint64_t off, void *dst, size_t len,
                                  arb_tp_comp_t *comp);
arbor_status_t arb_ofi_stream_amo(arb_tp_stream_t *s, int peer, uint64_t off, arb_tp_amo_t op,
                                  uint64_t operand, uint64_t compare, uint64_t *result,
                                  arb_tp_comp_t *comp);
arbor_status_t arb_ofi_stream_fence(arb_tp_stream_t *s, int peer);
arbor_status_t arb_ofi_stream_flush(arb_tp_stream_t *s);
int arb_ofi_stream_progress(arb_tp_stream_t *s);
/* ofi_fabric.c: a fresh shm region name for an endpoint opened from info (other providers:
 * nothing to do). */
void arb_ofi_unique_shm_name(struct fi_info *info);

/* ofi_select.c: environment, fi_getinfo and the provider choice */
arbor_status_t arb_ofi_select(arb_tp_t *tp, const char *want, struct fi_info **info_p);

/* ofi_rcache.c: a descriptor for [addr, addr + n), a chunk of the request buffer [rbuf, rbuf +
 * rlen), from a cached registration (registering the request's page span on a miss, evicting
 * idle entries, least recently used first): false when the cache is off, the request is small,
 * or no room (stage instead). On true *ent_p is held until arb_ofi_rc_release. */
bool arb_ofi_rc_desc(arb_tp_t *tp, const char *rbuf, size_t rlen, const char *addr, size_t n,
                     void **desc_p, arb_ofi_rc_entry_t **ent_p);
void arb_ofi_rc_release(arb_tp_t *tp, arb_ofi_rc_entry_t *ent);
/* Drops entries overlapping [addr, addr + len) (busy ones once idle). */
void arb_ofi_rc_invalidate(arb_tp_t *tp, const char *addr, size_t len);
void arb_ofi_rc_fini(arb_tp_t *tp);
/* Counters for tests: hits, misses, evictions and live entries. */
void arb_ofi_rc_stats(arb_tp_t *tp, uint64_t out[4]);

/* ofi_reg.c: one region registered with the provider (packed key filled in); its release. */
arbor_status_t arb_ofi_reg(arb_tp_t *tp, void *addr, size_t len, uint64_t access, arb_tp_mr_t *mr);
void arb_ofi_unreg(arb_tp_mr_t *mr);

/* ofi_mr.c */
/* A local descriptor for [addr, addr + len): false when FI_MR_LOCAL wants one and the range lies in
 * no registration (stage it instead). */
bool arb_ofi_local_desc(arb_tp_t *tp, const void *addr, size_t len, void **desc_p);
arbor_status_t arb_ofi_scratch_init(arb_tp_t *tp);
void arb_ofi_scratch_fini(arb_tp_t *tp);
arbor_status_t arb_ofi_mem_reg(arb_tp_t *tp, void *addr, size_t len, arb_tp_mr_t **mr_p,
                               void **packed_p, size_t *packed_len_p);
void arb_ofi_mem_dereg(arb_tp_t *tp, arb_tp_mr_t *mr);
void arb_ofi_key_set(arb_tp_t *tp, arb_tp_rkey_t *rkey, int peer, const uint64_t packed[2],
                     uint64_t base);
arbor_status_t arb_ofi_rkey_unpack(arb_tp_t *tp, int peer, const void *packed, size_t len,
                                   uint64_t base, arb_tp_rkey_t **rkey_p);
void arb_ofi_rkey_release(arb_tp_t *tp, arb_tp_rkey_t *rkey);

/* ofi_post.c: requests, chunks, contexts, staging and the peer queues */
arb_ofi_req_t *arb_ofi_req_get(arb_tp_t *tp);
void arb_ofi_req_put(arb_tp_t *tp, arb_ofi_req_t *req);
void arb_ofi_req_free_all(arb_tp_t *tp);
/* Posts req or queues it. ARB_ERR_AGAIN (only without must_accept): nothing was accepted, req
 * went back to the free list. Otherwise req belongs to the transport and comp is accounted. */
arbor_status_t arb_ofi_submit(arb_tp_t *tp, arb_ofi_req_t *req, bool must_accept);
void arb_ofi_ctx_done(arb_tp_t *tp, arb_ofi_ctx_t *ctx, arbor_status_t status);
void arb_ofi_drain(arb_tp_t *tp);

/* ofi_rma.c */
arbor_status_t arb_ofi_put(arb_tp_t *tp, const void *src, size_t len, arb_tp_rkey_t *rkey,
                           uint64_t off, arb_tp_comp_t *comp);
arbor_status_t arb_ofi_get(arb_tp_t *tp, void *dst, size_t len, arb_tp_rkey_t *rkey, uint64_t off,
                           arb_tp_comp_t *comp);
arbor_status_t arb_ofi_amo(arb_tp_t *tp, arb_tp_amo_t op, arb_tp_rkey_t *rkey, uint64_t off,
                           uint64_t operand, uint64_t compare, uint64_t *result,
                           arb_tp_comp_t *comp);
arbor_status_t arb_ofi_put_signal(arb_tp_t *tp, const void *src, size_t len, arb_tp_rkey_t *rkey,
                                  uint64_t off, arb_tp_rkey_t *sig_rkey, uint64_t sig_off,
                                  uint64_t sig_add, arb_tp_comp_t *comp);
arbor_status_t arb_ofi_fence(arb_tp_t *tp, int peer);

/* ofi_progress.c, ofi_flush.c */
/* Remote-CQ-data signals: the word's segment offset / 8 in the low bits, the addend above. */
#define ARB_OFI_SIG_OFF_BITS 40
#define ARB_OFI_SIG_ADD_MAX  ((UINT64_C(1) << (64 - ARB_OFI_SIG_OFF_BITS)) - 1)
int arb_ofi_progress(arb_tp_t *tp);
arbor_status_t arb_ofi_flush(arb_tp_t *tp);
/* The first error of a request nobody waits for, to any peer, cleared (ofi_flush.c). */
arbor_status_t arb_ofi_async_take(arb_tp_t *tp);
arbor_status_t arb_ofi_flush_start(arb_tp_t *tp, const int *peers, int n, arb_tp_flush_t **f_p);
arbor_status_t arb_ofi_flush_test(arb_tp_t *tp, arb_tp_flush_t *f);
void arb_ofi_flush_end(arb_tp_t *tp, arb_tp_flush_t *f);
arbor_status_t arb_ofi_wait_fd(arb_tp_t *tp, int *fd_p);
arbor_status_t arb_ofi_arm(arb_tp_t *tp);
/* Default cost hints by the provider a describe() text names (ofi_hints.c). */
void arb_ofi_hints(const char *described, arb_tp_hints_t *out);

#endif /* ARB_TRANSPORTS_OFI_OFI_H */
