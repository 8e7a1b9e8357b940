/*
 * Private to rma/: the one-sided state, requests and the helpers the operation files
 * (transfer.c, atomic.c, acc.c, notify.c, strided.c) share. Other modules use rma.h.
 */
#ifndef ARB_CORE_RMA_RMA_IMPL_H
#define ARB_CORE_RMA_RMA_IMPL_H

#include "runtime/context.h"
#include "runtime/lock.h"
#include "rma/order.h"
#include "rma/rma.h"

/* A one-sided operation in flight: completes when comp.pending drops to 0, then finish (if
 * any) runs once (copies a fetched word out, ...). Explicit ones have a handle; implicit ones
 * with a finish step wait on the implicit list until a fence / quiet or a poll reaps them. */
typedef struct arb_rma_req arb_rma_req_t;
struct arb_rma_req {
    arb_tp_comp_t comp;
    int rank;                           /* target (world rank) */
    bool explicit_h;                    /* has a public handle */
    bool finished;                      /* finish ran */
    arbor_status_t status;              /* an error met while issuing */
    void (*finish)(arb_rma_req_t *req); /* NULL: nothing to do */
    uint64_t word;                      /* fetched 64-bit word / scratch */
    void *result;                       /* where finish writes */
    unsigned rsize, shift;              /* result bytes and bit position in word */
    uint32_t slot;                      /* handle slot + 1 (0: none) */
    arb_rma_req_t *next;                /* implicit list / free list */
    uint64_t test_epoch;                /* a spinning arbor_test's idle watch (transfer.c) */
    double test_idle_since;
};

typedef struct {
    uint8_t **peer_seg;      /* [size] mapped segment of each rank (self: ours), or NULL */
    arb_tp_comp_t *imp;      /* [size] implicit operations without a finish step, per target */
    bool cpu_atomics;        /* atomics use CPU instructions on mapped memory (docs/ONESIDED.md) */
    bool cpu_amo_capable;    /* CPU atomics could serve mapped words (the core's segment, or a
                              * transport that allows them beside its own) */
    bool all_mapped;         /* every rank maps every other's segment (agreed by all at init) */
    bool target_progress;    /* targets need their own progress (OFI, unmapped UCX peers) */
    bool posted;             /* a transport operation was posted since the last flush */
    uint32_t handles;        /* explicit handles not yet released (any target) */
    uint64_t *notify;        /* [size] this rank's notification counters (in the segment) */
    uint64_t notify_off;     /* their segment offset (the same on every rank) */
    uint64_t *consumed;      /* [size] notifications consumed, per source (private memory) */
    uint64_t lock_off;       /* the accumulate lock word of every rank (segment offset) */
    arb_rma_req_t *implicit; /* implicit requests with a finish step */
} arb_rma_state_t;

extern arb_rma_state_t arb_rma;

/* A communication context (arbor_ctx_create; ctx.c): the operations issued on it count on its
 * own implicit counters and finish on its own list, so its quiet waits for them only. The
 * context calls set arb_rma_cur for the span of the call (under the engine lock), and the
 * helpers below send the implicit accounting there; NULL is the default context. */
#define ARB_RMA_CTX_MAGIC 0x61637478u
struct arbor_ctx {
    uint32_t magic;          /* ARB_RMA_CTX_MAGIC while live */
    unsigned flags;          /* ARBOR_CTX_* */
    int n, me;               /* team size, this rank's team rank */
    int *world;              /* [n] world rank of each team rank */
    arb_tp_comp_t *imp;      /* [world size] implicit operations without a finish step */
    bool *dirty;             /* [world size] posted to through the transport since the quiet */
    bool posted;             /* some dirty[] entry is set */
    bool strided;            /* strided calls since the quiet (maybe packed: the AM fence) */
    arb_rma_req_t *implicit; /* implicit requests with a finish step */
    struct arbor_ctx *next;  /* the live contexts (finalize completes them) */
    /* A private context's own translations of mapped user allocations, per world rank: its one
     * thread fills them under the lock and reads them without it, so that at THREAD_MULTIPLE
     * its mapped puts and gets take no lock shared with other contexts (arb_rma_ctx_fast_mapped).
     */
    struct arb_rma_pxhit *pxhits; /* [world size]; NULL for shared contexts */
    /* A private context's transport stream (ctx_stream.c): NULL until its first operation
     * through the transport learns a target the stream can reach. */
    struct arb_rma_cstream *cs;
};
extern _Thread_local struct arbor_ctx *arb_rma_cur __attribute__((tls_model("initial-exec")));
static inline arb_tp_comp_t *arb_rma_imp(int rank)
{
    return arb_rma_cur ? &arb_rma_cur->imp[rank] : &arb_rma.imp[rank];
}
static inline arb_rma_req_t **arb_rma_implicit_head(void)
{
    return arb_rma_cur ? &arb_rma_cur->implicit : &arb_rma.implicit;
}
/* A context call's target: the context valid, rank a rank of its team; *world_p its world
 * rank. ARBOR_CTX_DEFAULT is not handled here (callers take the default path first). */
static inline arbor_status_t arb_rma_ctx_target(const struct arbor_ctx *c, int rank, int *world_p)
{
    if (!c || c->magic != ARB_RMA_CTX_MAGIC) return ARBOR_ERR_HANDLE;
    if (rank < 0 || rank >= c->n) return ARBOR_ERR_RANK;
    *world_p = c->world[rank];
    return ARBOR_OK;
}
/* The world rank of a context call's target: rank itself on the default context (NULL). */
static inline arbor_status_t arb_rma_ctx_world(const struct arbor_ctx *c, int rank, int *world_p)
{
    *world_p = rank;
    return c ? arb_rma_ctx_target(c, rank, world_p) : ARBOR_OK;
}
/* Runs stmt with the engine lock held and c as the calling thread's context (its counters and
 * lists take the operations stmt issues); returns from the caller when arbor is not usable. */
#define ARB_RMA_ON_CTX(c, stmt)                                                                    \
    do {                                                                                           \
        ARB_ENTER();                                                                               \
        arb_rma_cur = (c);                                                                         \
        stmt;                                                                                      \
        arb_rma_cur = NULL;                                                                        \
        arb_unlock();                                                                              \
    } while (0)
/* Completes every operation of context c (the lock held): its counters, its implicit list,
 * then a transport flush of the targets it posted to. */
arbor_status_t arb_rma_ctx_complete(struct arbor_ctx *c);
/* Frees what the requests of c's implicit list hold (finalize). */
void arb_rma_ctx_drop(struct arbor_ctx *c);
/* The live contexts: finalize completes them (arb_rma_quiet) and frees them (arb_rma_fini). */
extern struct arbor_ctx *arb_rma_ctx_live;
void arb_rma_ctx_fini(void);
/* Waits for every packed strided put to have run at its target (the lock held). */
arbor_status_t arb_rma_ctx_fence_packed(void);
/* arbor_order's body (the lock held). */
arbor_status_t arb_rma_order_to(int rank);

/* The translation cache of mem.c: per target world rank, the remote address range [lo, hi)
 * that its part of the allocation last hit there covers. A repeated access to one allocation
 * of a target (the common case: one window or coarray per runtime) is then two compares, not
 * a scan of the live allocations and a binary search of the member sizes; one entry per rank
 * because a driver cycles through its targets. An allocation's entries go when it is freed. */
typedef struct {
    uint64_t lo, hi;     /* remote addresses, in the target's address space */
    uint64_t delta;      /* mapped: the address here of remote address a is a + delta */
    struct arbor_mem *m; /* NULL: empty */
    uint8_t *seg;        /* the target's segment mapped here, or NULL */
    arb_tp_rkey_t *rkey; /* the target's segment key */
    bool mapped_user;    /* seg != NULL and m a user allocation: the entry points' fast path */
} arb_rma_xhit_t;
extern arb_rma_xhit_t *arb_rma_xhits; /* [arb_ctx.size] or NULL */

/* A private context's copy of a mapped entry of the cache, valid while arb_rma_xgen still has
 * the value it was taken under: every allocation freed bumps it (under the lock), so an entry
 * never outlives its allocation, and the owner thread reads it without the lock. */
struct arb_rma_pxhit {
    uint64_t lo, hi, delta;
    unsigned gen;     /* 0: empty (arb_rma_xgen starts at 1) */
    bool cpu_atomics; /* the entry's allocation takes CPU atomics (arb_rma_cpu_amo) */
};
extern unsigned arb_rma_xgen; /* atomic: bumped (release) when an allocation is freed */
/* After a context call under the lock: keeps the cache's entry for world rank w in private
 * context c's own copy when it is a mapped user allocation. */
void arb_rma_ctx_learn(struct arbor_ctx *c, int w);

/* The entry points' fast path, taken when no lock is needed (arb_ctx.locking off) and the
 * caller is not inside a callback: the mapped address of [addr, addr + len) in a user
 * allocation of rank, from the translation cache; NULL when anything is not so (bad rank,
 * cache miss, unmapped target, not initialised: the cache is NULL then), and the full checks
 * of the normal path decide. */
static inline uint8_t *arb_rma_fast_mapped(int rank, const void *addr, size_t len)
{
    if (arb_ctx.locking || arb_in_callback != ARB_CB_NONE || !arb_rma_xhits ||
        (unsigned)rank >= (unsigned)arb_ctx.size)
        return NULL;
    const arb_rma_xhit_t *h = &arb_rma_xhits[rank];
    uint64_t a = (uint64_t)(uintptr_t)addr;
    if (!h->mapped_user || a < h->lo || a > h->hi || len > h->hi - a) return NULL;
    return (uint8_t *)(uintptr_t)(a + h->delta);
}

/* The atomics rule for one target (docs/ONESIDED.md, "Atomics: one mechanism per word"): CPU
 * instructions where the word is mapped and either every rank maps every other or every member
 * of the word's allocation does; the transport's otherwise. Every path that changes a word
 * atomically decides by this, so the two kinds never meet on one word. */
static inline bool arb_rma_cpu_amo(const arb_rma_target_t *t)
{
    return t->ptr && (arb_rma.cpu_atomics || (t->mem && t->mem->cpu_atomics));
}

/* The lock-free path of a private context at any thread level: the mapped address of
 * [addr, addr + len) at world rank w from c's own copy of the cache, or NULL (then the locked
 * path decides, and learns the entry). Not inside a callback: the handler's thread holds the
 * lock and its calls take the normal path. */
static inline uint8_t *arb_rma_ctx_fast_mapped(const struct arbor_ctx *c, int w, const void *addr,
                                               size_t len)
{
    if (!c->pxhits || arb_in_callback != ARB_CB_NONE) return NULL;
    const struct arb_rma_pxhit *h = &c->pxhits[w];
    uint64_t a = (uint64_t)(uintptr_t)addr;
    if (h->gen != __atomic_load_n(&arb_rma_xgen, __ATOMIC_ACQUIRE) || a < h->lo || a > h->hi ||
        len > h->hi - a)
        return NULL;
    return (uint8_t *)(uintptr_t)(a + h->delta);
}

/* Entry-point prologue checks. */
static inline arbor_status_t arb_rma_check_rank(int rank)
{
    return rank >= 0 && rank < arb_ctx.size ? ARBOR_OK : ARBOR_ERR_RANK;
}

/* One turn of progress for a one-sided wait: the transport (always, even between mapped
 * peers) and everything else the engine drives. Returns what moved. */
int arb_rma_progress_once(void);

/* Waits until done(arg) holds, driving arb_rma_progress_once; the turns yield the CPU when this
 * node has more ranks than cores. ARBOR_ERR_TIMEOUT (logged with what) after ARBOR_TIMEOUT s in
 * which neither this wait nor any collective (arb_ctx.stream.epoch) moved. yield_when_stalled:
 * after 1 ms of nothing moving, also yield on a node with a core to spare (the peer a notification
 * comes from may need ours). */
arbor_status_t arb_rma_wait_until_pred(bool (*done)(void *), void *arg, bool yield_when_stalled,
                                       const char *what);

/* Requests. arb_rma_req_get never fails but may return NULL on malloc failure. */
arb_rma_req_t *arb_rma_req_get(int rank);
/* Hands a started request over: explicit (req_p: a handle), implicit (joins the list when it
 * has a finish step or is not complete yet), or blocking (waits, finishes and frees it;
 * returns its status). */
arbor_status_t arb_rma_req_commit(arb_rma_req_t *req, arbor_request_h *req_p, bool blocking);
/* A handle for an operation that completed at issue (the mapped path). */
arbor_status_t arb_rma_req_done_handle(int rank, arbor_request_h *req_p);
/* Completion of one request, after issue: runs finish once when comp.pending is 0. */
bool arb_rma_req_test(arb_rma_req_t *req);
arbor_status_t arb_rma_req_wait_one(arb_rma_req_t *req);

/* Every implicit or explicit operation to rank (-1: every rank) locally complete, then the
 * transport flushed: remotely complete. */
arbor_status_t arb_rma_complete_to(int rank);
/* After a transport operation to rank: ordered mode fences it. */
void arb_rma_after_post(int rank);

/* The transport op at off of @p key (NULL: rank's segment; else the key of one of rank's
 * registrations, arb_rma_target_t.rkey), waiting on comp (NULL: the implicit counter of rank).
 * Retries while the transport pushes back. */

arbor_status_t arb_rma_tp_put(int rank, arb_tp_rkey_t *key, uint64_t off, const void *src,
                              size_t len, arb_tp_comp_t *comp);
arbor_status_t arb_rma_tp_get(int rank, arb_tp_rkey_t *key, uint64_t off, void *dst, size_t len,
                              arb_tp_comp_t *comp);
arbor_status_t arb_rma_tp_amo(int rank, arb_tp_rkey_t *key, uint64_t off, arb_tp_amo_t op,
                              uint64_t operand, uint64_t compare, uint64_t *result,
                              arb_tp_comp_t *comp);

/* A blocking 64-bit atomic on (rank, key, off) by whichever mechanism the rule picks: CPU
 * atomics only on a mapped segment (key NULL or rank's segment key), the transport on
 * registered memory. */
arbor_status_t arb_rma_amo64(int rank, arb_tp_rkey_t *key, uint64_t off, arb_tp_amo_t op,
                             uint64_t operand, uint64_t compare, uint64_t *result);

/* Accumulate (acc.c): the element kind of a (type, op) pair, and one contiguous piece. */
enum { K_I32, K_U32, K_I64, K_U64, K_F32, K_F64, K_C32, K_C64, K_NONE };
typedef struct {
    int kind;
    unsigned esz; /* element bytes */
    arbor_op_t op;
} acc_t;
/* ARBOR_ERR_DATATYPE (unknown type) or ARBOR_ERR_OP (not defined on it for accumulate). */
arbor_status_t arb_acc_check(arbor_dtype_t dtype, arbor_op_t op, acc_t *a);

/* The prologue the one-sided entry points share: arbor initialised, rank valid, *req_p (when
 * given) cleared, and with acc non-NULL dtype and op checked for accumulate (filling *acc).
 * In acc.c, with the accumulate check. */
arbor_status_t arb_rma_begin(int rank, arbor_request_h *req_p, arbor_dtype_t dtype, arbor_op_t op,
                             acc_t *acc);

/* Runs an entry point's body under the engine lock and returns its status. */
#define ARB_RMA_LOCKED(_call)                                                                      \
    do {                                                                                           \
        ARB_ENTER();                                                                               \
        arbor_status_t _s = (_call);                                                               \
        arb_unlock();                                                                              \
        return _s;                                                                                 \
    } while (0)
/* The same for a non-blocking call: its implicit form (no handle) is also allowed inside an
 * active-message handler (arbor.h), whose thread already holds the lock. */
#define ARB_RMA_LOCKED_NB(_req_p, _call)                                                           \
    do {                                                                                           \
        if (arb_in_callback == ARB_CB_AM_HANDLER && !(_req_p)) return (_call);                     \
        ARB_RMA_LOCKED(_call);                                                                     \
    } while (0)
/* n elements from src into rank's segment at tgt->off (checked, aligned). With comp non-NULL
 * pipelined atomics may stay in flight on it (*pending_p true); else complete on return. */
arbor_status_t arb_acc_piece(const acc_t *a, int rank, const arb_rma_target_t *tgt, const void *src,
                             size_t n, const void *scale, arb_tp_comp_t *comp, bool *pending_p);

/* The transfers' state (transfer.c), set up and torn down by the layer's lifecycle (rma_init.c):
 * the per-rank arrays and the mapped segments; the request table; the rest, after the
 * contexts. */
arbor_status_t arb_rma_state_init(void);
void arb_rma_req_table_fini(void);
void arb_rma_state_fini(void);

#endif /* ARB_CORE_RMA_RMA_IMPL_H */
