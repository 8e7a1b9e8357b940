/*
 * The one-sided layer's internal interface (rma/): the symmetric heap and its collective
 * allocations, address translation, completion of one-sided operations, and the per-poll hook
 * of the progress engine. Other core modules (teams, active messages) build on these; nothing
 * here is public API.
 *
 * Locking: every function expects the caller to hold arb_lock() (entry points take it), as the
 * rest of core does.
 */
#ifndef ARB_CORE_RMA_RMA_H
#define ARB_CORE_RMA_RMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arbor.h"
#include "util/heap.h"
#include "transports/transport.h"
#include "runtime/segment.h"

struct arbor_team;

/* ---- init / finalize (api/init.c) ---------------------------------------------------- */

/* After the transport is wired (seg_bases known): the heap over the whole segment. No
 * communication. */
arbor_status_t arb_rma_init(void);
/* After the world team exists: the notification area (the same block of every heap). */
arbor_status_t arb_rma_init_world(void);
/* Whether this rank maps every rank's segment; init agrees on it over the world and stores the
 * answer in arb_ctx.mapped_everywhere. */
bool arb_rma_mapped_here(void);
/* The one-sided state that follows from arb_ctx.mapped_everywhere (atomics, target progress). */
void arb_rma_set_mapping(void);
/* arbor_quiet without the lock (finalize): every one-sided operation complete at its target. */
arbor_status_t arb_rma_quiet(void);
/* Finalize, before the transport closes: frees every allocation and request. */
void arb_rma_fini(void);

/* ---- symmetric allocations ------------------------------------------------------------ */

/* An allocation outside the heap (arbor_mem_alloc_any where the heap had no room; made and
 * freed over the team by group/outside.c): each member maps its part and registers it, and
 * attaches the others'. */
struct arb_mem_outside {
    void *map; /* this rank's part (NULL for 0 bytes) */
    size_t map_len;
    arbor_reg_h reg;     /* its registration (NULL for 0 bytes) */
    uint64_t *addr;      /* [n] every member's address, team rank order (0 for 0 bytes) */
    arbor_attach_h *att; /* [n] the others' registrations attached here */
};

/* One collective allocation: the same offset in the segment of every member of its team (or,
 * with outside set, memory of each member's own). */
struct arbor_mem {
    struct arbor_team *team;
    arbor_team_h team_h; /* the team's handle when allocated (freed team: lookup fails) */
    uint64_t off;        /* segment offset on every member */
    size_t mine;         /* bytes this rank asked for */
    int n;               /* team size */
    size_t *size;        /* [n] bytes each member asked for (team rank order) */
    int *world;          /* [n] world rank of each member (the team may go first) */
    int *by_world;       /* [n] team ranks sorted by world rank (lookup by world rank) */
    arbor_mem_h handle;  /* public handle (NULL for internal allocations) */
    bool internal;       /* core's own (team regions, mailboxes): no public handle, and user
                          * one-sided calls may not address it */
    bool passive;        /* targets must serve one-sided traffic aimed here without calling
                          * arbor (user allocations; set it on internal ones that need it) */
    bool cpu_atomics;    /* every member maps every other: atomics on it are CPU atomics even
                          * where the job's rule is the transport's (docs/ONESIDED.md) */
    struct arb_mem_outside *outside; /* memory of each member's own where the heap had no room
                                      * (arbor_mem_alloc_any, group/outside.h), else NULL */
};

/* The table of live allocations (address checks) and the public handles; allocating over a
 * team, which runs collectives, is group/symmetric.h. */
/* Lists m as live (remote addresses are checked against it); ARBOR_ERR_NO_MEMORY. */
arbor_status_t arb_mem_live_add(struct arbor_mem *m);
/* Unlists m (and forgets it in the translation cache). */
void arb_mem_live_remove(struct arbor_mem *m);
/* Frees m's bookkeeping (not its space in the heap); unmaps an outside allocation's part
 * (whose registration and attachments are gone by then). */
void arb_mem_destroy(struct arbor_mem *m);
/* Gives m a public handle (m->handle); ARBOR_ERR_NO_MEMORY. */
arbor_status_t arb_mem_handle_new(struct arbor_mem *m);
/* The allocation of a live handle, or NULL (unknown, forged or freed). */
struct arbor_mem *arb_mem_of_handle(arbor_mem_h h);
/* Retires a handle: later lookups of it fail. */
void arb_mem_handle_drop(arbor_mem_h h);
/* Finalize: forgets every allocation. */
void arb_mem_cleanup(void);
/* After an allocation, outside the lock: starts the passive-target progress thread when the
 * transport needs one and it is not running yet. */
void arb_rma_passive_check(void);
/* Whether user allocations on team t are still live (team free then answers ARBOR_ERR_BUSY). */
bool arb_mem_team_busy(const struct arbor_team *t);
/* Whether any user-visible or internal allocation beyond init's own exists (the progress
 * thread serves passive targets only then). */
bool arb_mem_any_live(void);

/* ---- communication contexts (ctx.c) ---------------------------------------------------- */

/* A context's state for flags, not yet attached to members; NULL: no memory. */
struct arbor_ctx *arb_rma_ctx_alloc(unsigned flags);
/* Gives c its members (world ranks of team ranks 0..n, this rank me) and makes it live; the
 * caller holds the lock. ARBOR_ERR_NO_MEMORY leaves c as it was. */
arbor_status_t arb_rma_ctx_attach(struct arbor_ctx *c, const int *world, int n, int me);
/* Frees a context that never became live. */
void arb_rma_ctx_discard(struct arbor_ctx *c);

/* ---- addressing ------------------------------------------------------------------------ */

/* Where a remote range lives: mapped pointer (loads / stores / CPU atomics reach it) or the
 * transport's key of the peer's segment at a byte offset. */
typedef struct {
    int rank;            /* world rank */
    uint8_t *ptr;        /* mapped address of the first byte, or NULL: use rkey + off */
    arb_tp_rkey_t *rkey; /* the peer's segment key, or the key of its registration (set) */
    uint64_t off;        /* segment offset of the first byte (registered: from its base) */
    struct arbor_mem *mem;
    /* Registered user memory (rma/reg.c): never mapped (ptr NULL), reached only through
     * the transport with rkey, atomics included (docs/ONESIDED.md, "Registered memory"). */
    bool reg;
} arb_rma_target_t;

/* Translates (world rank, remote address, length) with bounds checks: the range must lie in one
 * live allocation of that rank (internal ones only when @p internal_ok) or in one registration
 * of that rank attached here (tgt->reg). ARBOR_ERR_RANK, ARBOR_ERR_ADDRESS. len 0 is checked
 * like len 1 unless addr is exactly the end of an allocation. */
arbor_status_t arb_rma_translate(int rank, const void *addr, size_t len, bool internal_ok,
                                 arb_rma_target_t *tgt);
/* The same for a known allocation and segment offset (no search): mapped pointer and key. */
void arb_rma_target_at(int rank, uint64_t off, arb_rma_target_t *tgt);
/* Whether CPU atomics may serve words that only these n world ranks reach: the core can use
 * them here and this rank maps every one of their segments (an allocation's members agree on
 * it before it is used: group/symmetric.c). */
bool arb_rma_maps_all(const int *world, int n);
/* Segment base address of world rank r in its own address space. */
uint64_t arb_rma_seg_base(int rank);
/* Mapped pointer to byte 0 of rank r's segment (self included), or NULL (transport path). */
uint8_t *arb_rma_peer_seg(int rank);

/* ---- registered user memory (rma/reg.c) -------------------------------------------- */

/* The attached registration of world rank @p rank holding [addr, addr + len), or
 * ARBOR_ERR_ADDRESS; fills tgt (ptr NULL, rkey of the registration, off from its base). */
arbor_status_t arb_reg_translate(int rank, uint64_t addr, size_t len, arb_rma_target_t *tgt);
/* Registrations of this rank's memory exist (its peers' operations on them need this rank's
 * progress on every transport: docs/ONESIDED.md). */
bool arb_reg_any_local(void);
/* arbor_mem_register's work, the lock held (the public entry: api/mem_api.c). */
arbor_status_t arb_reg_register(void *base, size_t nbytes, unsigned flags, arbor_reg_h *reg_p);
/* The work of arbor_mem_deregister, arbor_mem_pack, arbor_mem_attach and arbor_mem_detach, the
 * lock held (a collective allocation outside the heap, group/outside.c, runs them). */
arbor_status_t arb_reg_deregister(arbor_reg_h *reg_p);
arbor_status_t arb_reg_pack(arbor_reg_h reg, void *blob, size_t *len_p);
arbor_status_t arb_reg_attach(const void *blob, size_t len, arbor_attach_h *att_p);
arbor_status_t arb_reg_detach(arbor_attach_h *att_p);
/* Whether a registration of this rank moved into node-shared pages; whether an attachment is
 * mapped here (loads, stores and CPU atomics reach it). */
bool arb_reg_shared(arbor_reg_h reg);
bool arb_reg_attach_mapped(arbor_attach_h att);
/* Finalize, before the transport closes: every attachment and registration released. */
void arb_reg_cleanup(void);

/* ---- completion ---------------------------------------------------------------------- */

/* Waits (making progress, yielding on oversubscribed nodes, bounded by ARBOR_TIMEOUT without
 * progress) until comp->pending is 0; returns comp->status. @p what names it in the timeout
 * message. */
arbor_status_t arb_rma_wait_comp(arb_tp_comp_t *comp, const char *what);
/* Posts a transport operation, retrying (with progress) while it answers ARB_ERR_AGAIN. The
 * macro form evaluates the call expression each retry. */
#define ARB_RMA_POST(_status, _call)                                                               \
    do {                                                                                           \
        unsigned _tries = 0;                                                                       \
        while (((_status) = (_call)) == ARB_ERR_AGAIN) arb_rma_backoff(&_tries);                   \
    } while (0)
void arb_rma_backoff(unsigned *tries);

/* ---- progress hook ------------------------------------------------------------------------ */

/* Per-poll one-sided work: called by every turn of the progress engine (arb_progress_all) and
 * by the progress thread's idle polls. A hook returns how many things it moved (>= 0). Hooks
 * run with the arbor lock held and must not block. */
typedef int (*arb_rma_poll_fn)(void *arg);
arbor_status_t arb_rma_poll_register(arb_rma_poll_fn fn, void *arg);
void arb_rma_poll_unregister(arb_rma_poll_fn fn, void *arg);
int arb_rma_poll(void);
/* True when targets need their own progress for one-sided operations aimed at them (OFI:
 * manual progress; UCX with unmapped peers: emulated RMA / atomics). */
bool arb_rma_target_progress_needed(void);

/* ---- strided path choice (rma/strided.c) ------------------------------------------------ */

/* A validated strided pattern, after merging the levels adjacent on both sides. */
typedef struct {
    int kind;         /* 0 put, 1 get, 2 accumulate */
    int rank;         /* target (world rank) */
    int64_t base_off; /* segment offset of the remote base address (pieces add strides) */
    uint64_t remote;  /* the remote base address in the target's address space */
    size_t piece;     /* bytes of one contiguous piece */
    size_t npieces;
    int levels;               /* remaining levels (after merging) */
    const size_t *count;      /* [levels] repetitions */
    const ptrdiff_t *rstride; /* [levels] remote byte strides */
    const ptrdiff_t *lstride; /* [levels] local byte strides */
    uint8_t *local;           /* local base address */
    arbor_dtype_t dtype;      /* accumulate only */
    arbor_op_t op;
    const void *scale;
} arb_rma_strided_desc_t;
enum { ARB_STRIDED_PIECES = 0, ARB_STRIDED_PACK = 1 };
/* The pack path (local pack, one transfer, unpack at the target): provided by the active-
 * message layer. It returns ARBOR_ERR_UNSUPPORTED to fall back to pieces (nothing moved). */
typedef arbor_status_t (*arb_rma_pack_fn)(const arb_rma_strided_desc_t *d, arbor_request_h *req_p,
                                          bool blocking);
void arb_rma_strided_pack_register(arb_rma_pack_fn fn);
/* Pieces or pack, by the LogGP model (pack only once a pack function is registered and the
 * target is not mapped); prints the choice under ARBOR_PRINT_ALGORITHM. */
int arb_rma_strided_choose(size_t piece, size_t npieces, bool mapped);

/* Completion of operations that travel as active messages (the packed strided put): called
 * by arbor_fence / arbor_quiet (rank -1: every rank) and arbor_order before the transport
 * flush; waits until every such operation to rank has run at the target. Registered by the
 * active-message layer (NULL: none). */
typedef arbor_status_t (*arb_rma_fence_fn)(int rank);
void arb_rma_fence_register(arb_rma_fence_fn fn);

/* ---- handles (runtime/request.c dispatches here for tagged handles) -------------------------- */

#define ARB_RMA_REQ_TAG 0x80000000u /* set in the slot word of one-sided handles */
static inline bool arb_rma_req_is(arbor_request_h h)
{
    return ((uint64_t)(uintptr_t)h & ARB_RMA_REQ_TAG) != 0;
}
bool arb_rma_req_valid(arbor_request_h h);
/* Complete now (no progress made here)? */
bool arb_rma_req_done(arbor_request_h h);
/* Waits for it; ARBOR_ERR_TIMEOUT keeps the handle. */
arbor_status_t arb_rma_req_wait(arbor_request_h h);
/* After a test call's turn left h incomplete: ARBOR_ERR_TIMEOUT (handle kept) once nothing
 * moved for ARBOR_TIMEOUT seconds of testing, else ARBOR_OK. moved: whether the turn moved. */
arbor_status_t arb_rma_req_test_idle(arbor_request_h h, bool moved);
/* Releases a complete handle, returning the operation's status; *h = NULL. */
arbor_status_t arb_rma_req_release(arbor_request_h *h);
int arb_rma_req_live(void);

#endif /* ARB_CORE_RMA_RMA_H */
