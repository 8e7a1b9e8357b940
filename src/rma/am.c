/*
 * Active messages (arbor_am_*) over the transport's one-sided operations only: put_signal,
 * 64-bit fetch-add / add and get. Design and its reasons: docs/AM.md.
 *
 * Each rank's mailbox lies at the same segment offset on every rank (taken at init, no
 * communication): a control block, a request ring of AM_REQ_SLOTS slots and a reply ring of
 * AM_REP_SLOTS slots. A sender takes a ticket with a remote fetch-add on the ring's tail,
 * writes slot ticket % K with one put_signal whose signal adds 1 to the slot's sequence word:
 * use n of a slot is ready when its word reads n + 1. The owner's poll hook runs ready slots in
 * ticket order and publishes its head, which senders read (remotely) before reusing a slot.
 *
 * Replies never wait: a request may be sent only while its origin has a free reply credit
 * (fewer than AM_REP_SLOTS requests neither answered nor released), so the reply ring always
 * has room. A target that handles a request without replying returns the credit by adding to
 * the origin's `released` word, batched per origin at the end of each poll.
 */
#include "rma/am.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "runtime/lock.h"
#include "runtime/doorbell.h"
#include "runtime/tp_call.h"
#include "runtime/progress.h"
#include "util/log.h"
#include "rma/rma.h"
#include "rma/rma_impl.h"

#define AM_SLOT_BYTES  4096u
#define AM_META_OFF    64u /* the sequence word has the slot's first cache line to itself */
#define AM_DATA_OFF    (AM_META_OFF + sizeof(am_meta_t))
#define AM_MAX_PAYLOAD ((size_t)(AM_SLOT_BYTES - AM_DATA_OFF))
#define AM_REQ_SLOTS   16u
#define AM_REP_SLOTS   16u
#define AM_RUN_BUDGET  32 /* slots run per poll, so that one storm does not starve the caller */

/* Control block words, one cache line each (segment offsets from the mailbox base). */
enum { CTL_REQ_TAIL = 0, CTL_REQ_HEAD = 64, CTL_REP_TAIL = 128, CTL_RELEASED = 192 };
#define AM_REQ_RING AM_SLOT_BYTES
#define AM_REP_RING (AM_REQ_RING + AM_REQ_SLOTS * AM_SLOT_BYTES)
#define AM_BYTES    (AM_REP_RING + AM_REP_SLOTS * AM_SLOT_BYTES)

typedef struct {
    uint32_t src;    /* world rank of the sender */
    uint32_t index;  /* handler */
    uint32_t nbytes; /* payload */
    uint32_t kind;   /* AM_REQUEST / AM_REPLY */
} am_meta_t;

enum { AM_REQUEST = 1, AM_REPLY = 2 };

struct arbor_am_token {
    int src;
    bool is_request, replied;
};

typedef struct {
    arbor_am_handler_t *fn;
    void *arg;
} am_handler_t;

static struct {
    bool ready;
    uint64_t base;        /* segment offset of every rank's mailbox */
    uint64_t req_head;    /* requests run here (published at CTL_REQ_HEAD) */
    uint64_t rep_head;    /* replies run here */
    uint64_t sent;        /* requests this rank sent */
    uint64_t replies_run; /* replies that came back and ran */
    uint64_t *peer_head;  /* [P] last request-ring head read from each target */
    uint64_t *peer_sent;  /* [P] 1 + the last ticket taken at each target (0: none) */
    uint64_t *rma_sent;   /* [P] 1 + the ticket of the last one-sided operation carried by a
                           * message (a packed put) that arbor_fence has not seen run (0: none) */
    uint32_t *to_release; /* [P] credits owed to each origin (handled without a reply) */
    bool release_due;     /* some to_release entry is nonzero */
    arb_tp_comp_t release_comp;
    struct arbor_am_token *current;             /* the handler running now, or NULL */
    am_handler_t handlers[ARB_AM_ALL_HANDLERS]; /* the users', then core's own */
} am;

static uint8_t *local_word(uint64_t rel)
{
    return arb_ctx.seg + am.base + rel;
}

static uint64_t load_acquire(uint64_t rel)
{
    return __atomic_load_n((uint64_t *)local_word(rel), __ATOMIC_ACQUIRE);
}

/* ---- waiting -------------------------------------------------------------------------- */

typedef struct {
    bool (*done)(void *);
    void *arg;
} am_wait_t;

/* The re-check of interrupt mode's waiting step (runtime/doorbell.h). */
static bool wait_recheck(void *arg)
{
    am_wait_t *w = arg;
    return arb_progress_all() > 0 || w->done(w->arg);
}

/* Waits until *done holds. Inside a handler only the transport is driven (no hook, so no
 * handler runs inside another); elsewhere full progress, which also runs this rank's replies
 * (the credits a blocked sender waits for). Bounded by ARBOR_TIMEOUT. In interrupt mode a wait
 * outside a handler naps as the other waits do (docs/PROGRESS.md): the replies and credit
 * returns it waits for ring its doorbell; a queue head it re-reads does not, so a wait for room
 * wakes at the end of its slice. A handler's wait never sleeps (it holds up the engine). */
static arbor_status_t wait_for(bool (*done)(void *), void *arg, const char *what)
{
    double since = 0;
    unsigned idle = 0;
    arb_nap_t nap = {0};
    am_wait_t w = {done, arg};
    while (!done(arg)) {
        int moved = am.current ? arb_tp_progress() : arb_progress_all();
        if (moved > 0) {
            since = 0;
            nap.idle_since = 0;
            arb_wait_pause(false); /* keeps the lock inside a handler (a progress turn) */
            continue;
        }
        arb_wait_pause(true);
        bool slept = !am.current && arb_bell_nap(&nap, wait_recheck, &w);
        if (!slept && ++idle % 256) continue;
        double now = arb_now_us();
        if (since == 0) since = now;
        if (arb_ctx.cfg.timeout_s > 0 && now - since > arb_ctx.cfg.timeout_s * 1e6) {
            arb_error("active message: %s made no progress for %g s (ARBOR_TIMEOUT)", what,
                      arb_ctx.cfg.timeout_s);
            return ARBOR_ERR_TIMEOUT;
        }
    }
    return ARBOR_OK;
}

static bool comp_done(void *arg)
{
    return arb_tp_comp_pending(arg) == 0;
}

static arbor_status_t wait_comp(arb_tp_comp_t *comp, const char *what)
{
    arbor_status_t st = wait_for(comp_done, comp, what);
    return st != ARBOR_OK ? st : comp->status;
}

/* Posts while the transport answers ARB_ERR_AGAIN, driving it in between. */
#define AM_POST(_st, _call)                                                                        \
    do {                                                                                           \
        while (((_st) = (_call)) == ARB_ERR_AGAIN) arb_tp_progress();                              \
    } while (0)

/* ---- remote words --------------------------------------------------------------------- */

/* The one-sided layer's atomics rule (docs/ONESIDED.md): CPU atomics on mapped memory when
 * every rank maps every other (then every rank uses them), else the transport's. */
static bool cpu_path(const arb_rma_target_t *t)
{
    return arb_rma_cpu_amo(t);
}

static arbor_status_t fetch_add(int rank, uint64_t rel, uint64_t *old)
{
    arb_rma_target_t t;
    arb_tp_comp_t comp = {0, ARBOR_OK};
    arbor_status_t st;
    arb_rma_target_at(rank, am.base + rel, &t);
    if (cpu_path(&t)) {
        *old = __atomic_fetch_add((uint64_t *)t.ptr, 1, __ATOMIC_ACQ_REL);
        return ARBOR_OK;
    }
    AM_POST(st, arb_tp_amo(ARB_TP_AMO_FADD, t.rkey, t.off, 1, 0, old, &comp));
    return st != ARBOR_OK ? st : wait_comp(&comp, "ticket fetch-add");
}

static arbor_status_t read_word(int rank, uint64_t rel, uint64_t *val)
{
    arb_rma_target_t t;
    arb_tp_comp_t comp = {0, ARBOR_OK};
    arbor_status_t st;
    arb_rma_target_at(rank, am.base + rel, &t);
    if (t.ptr) {
        *val = __atomic_load_n((uint64_t *)t.ptr, __ATOMIC_ACQUIRE);
        return ARBOR_OK;
    }
    AM_POST(st, arb_tp_get(val, sizeof(*val), t.rkey, t.off, &comp));
    return st != ARBOR_OK ? st : wait_comp(&comp, "head read");
}

/* Writes meta + payload into slot @p slot_rel of @p rank and raises the slot's word by one. */
static arbor_status_t write_slot(int rank, uint64_t slot_rel, const am_meta_t *meta,
                                 const void *payload)
{
    unsigned char buf[AM_SLOT_BYTES - AM_META_OFF];
    arb_rma_target_t data, sig;
    arb_tp_comp_t comp = {0, ARBOR_OK};
    arbor_status_t st;
    arb_rma_target_at(rank, am.base + slot_rel + AM_META_OFF, &data);
    arb_rma_target_at(rank, am.base + slot_rel, &sig);
    /* Mapped: stores, then the word with release order (one writer per use of a slot). */
    unsigned char *to = cpu_path(&sig) ? data.ptr : buf;
    memcpy(to, meta, sizeof(*meta));
    if (meta->nbytes) memcpy(to + sizeof(*meta), payload, meta->nbytes);
    if (to == data.ptr) {
        __atomic_fetch_add((uint64_t *)sig.ptr, 1, __ATOMIC_RELEASE);
        arb_bell_ring(rank);
        return ARBOR_OK;
    }
    /* One contiguous source: the transport moves meta and payload with one put. */
    AM_POST(st, arb_tp_put_signal(buf, sizeof(*meta) + meta->nbytes, data.rkey, data.off, sig.rkey,
                                  sig.off, 1, &comp));
    return st != ARBOR_OK ? st : wait_comp(&comp, "slot write");
}

/* ---- sending -------------------------------------------------------------------------- */

static bool have_credit(void *arg)
{
    (void)arg;
    return am.sent - am.replies_run - load_acquire(CTL_RELEASED) < AM_REP_SLOTS;
}

typedef struct {
    int rank;
    uint64_t ticket;
    arbor_status_t status;
} room_wait_t;

/* Room for ticket in the target's request ring: re-reads its head until ticket - head < K. */
static bool have_room(void *arg)
{
    room_wait_t *w = arg;
    if (w->ticket - am.peer_head[w->rank] < AM_REQ_SLOTS) return true;
    uint64_t head;
    w->status = read_word(w->rank, CTL_REQ_HEAD, &head);
    if (w->status != ARBOR_OK) return true;
    if (head > am.peer_head[w->rank]) am.peer_head[w->rank] = head;
    return w->ticket - am.peer_head[w->rank] < AM_REQ_SLOTS;
}

static arbor_status_t send_request(int rank, int index, const void *payload, size_t nbytes,
                                   uint64_t *ticket_p)
{
    arbor_status_t st = wait_for(have_credit, NULL, "waiting for a reply credit");
    if (st != ARBOR_OK) return st;
    /* The credit is ours from here: the waits below let go of the engine lock, and another
     * thread sending meanwhile must see it taken. */
    am.sent++;
    uint64_t ticket;
    if ((st = fetch_add(rank, CTL_REQ_TAIL, &ticket)) != ARBOR_OK) return st;
    room_wait_t w = {rank, ticket, ARBOR_OK};
    if ((st = wait_for(have_room, &w, "waiting for room in a full request queue")) != ARBOR_OK)
        return st;
    if (w.status != ARBOR_OK) return w.status;
    am_meta_t meta = {(uint32_t)arb_ctx.rank, (uint32_t)index, (uint32_t)nbytes, AM_REQUEST};
    /* Another thread's later ticket to the same rank may have been written first. */
    if (ticket + 1 > am.peer_sent[rank]) am.peer_sent[rank] = ticket + 1;
    if (ticket_p) *ticket_p = ticket;
    /* The ticket is taken: the slot must be written even if that fails half-way, or the
     * target's ring stalls; an error here is a transport failure the caller hears about. */
    return write_slot(rank, AM_REQ_RING + (ticket % AM_REQ_SLOTS) * AM_SLOT_BYTES, &meta, payload);
}

static arbor_status_t send_reply(int rank, int index, const void *payload, size_t nbytes)
{
    uint64_t ticket;
    arbor_status_t st = fetch_add(rank, CTL_REP_TAIL, &ticket);
    if (st != ARBOR_OK) return st;
    /* No room check: the origin's credit for this request guarantees a free slot. */
    am_meta_t meta = {(uint32_t)arb_ctx.rank, (uint32_t)index, (uint32_t)nbytes, AM_REPLY};
    return write_slot(rank, AM_REP_RING + (ticket % AM_REP_SLOTS) * AM_SLOT_BYTES, &meta, payload);
}

/* ---- the poll hook --------------------------------------------------------------------- */

static void run_handler(const am_meta_t *meta, void *payload)
{
    struct arbor_am_token tok = {(int)meta->src, meta->kind == AM_REQUEST, false};
    const am_handler_t *h = meta->index < ARB_AM_ALL_HANDLERS ? &am.handlers[meta->index] : NULL;
    if (!h || !h->fn || meta->nbytes > AM_MAX_PAYLOAD || (int)meta->src >= arb_ctx.size) {
        arb_error("active message from rank %u for handler %u (%u bytes) dropped: no such "
                  "handler here (register the same handlers on every rank)",
                  meta->src, meta->index, meta->nbytes);
    } else {
        /* The handler runs with the engine lock held by this thread: arbor_am_reply takes the
         * internal path, any other arbor call is refused (docs/THREADS.md). */
        int outer = arb_in_callback;
        am.current = &tok;
        arb_in_callback = ARB_CB_AM_HANDLER;
        h->fn(&tok, (int)meta->src, meta->nbytes ? payload : NULL, meta->nbytes, h->arg);
        arb_in_callback = outer;
        am.current = NULL;
    }
    if (tok.is_request && !tok.replied && (int)meta->src < arb_ctx.size) {
        am.to_release[meta->src]++;
        am.release_due = true;
    }
}

/* Runs the ready slots of one ring from *head on, in ticket order. */
static int run_ring(uint64_t ring, unsigned slots, uint64_t *head, int budget)
{
    int ran = 0;
    while (ran < budget) {
        uint64_t slot = ring + (*head % slots) * AM_SLOT_BYTES;
        if (load_acquire(slot) < *head / slots + 1) break;
        am_meta_t meta;
        memcpy(&meta, local_word(slot + AM_META_OFF), sizeof(meta));
        run_handler(&meta, local_word(slot + AM_DATA_OFF));
        ++*head;
        if (ring == AM_REQ_RING)
            __atomic_store_n((uint64_t *)local_word(CTL_REQ_HEAD), *head, __ATOMIC_RELEASE);
        else
            am.replies_run++;
        ran++;
    }
    return ran;
}

/* Returns owed credits, one fire-and-forget add per origin; what the transport refuses now
 * stays owed for the next poll. */
static void release_credits(void)
{
    am.release_due = false;
    for (int r = 0; r < arb_ctx.size; r++) {
        if (!am.to_release[r]) continue;
        arb_rma_target_t t;
        arb_rma_target_at(r, am.base + CTL_RELEASED, &t);
        if (cpu_path(&t)) {
            __atomic_fetch_add((uint64_t *)t.ptr, am.to_release[r], __ATOMIC_RELEASE);
            arb_bell_ring(r); /* a sender may wait for this credit */
            am.to_release[r] = 0;
            continue;
        }
        arbor_status_t st =
            arb_tp_amo(ARB_TP_AMO_ADD, t.rkey, t.off, am.to_release[r], 0, NULL, &am.release_comp);
        if (st == ARBOR_OK)
            am.to_release[r] = 0;
        else
            am.release_due = true;
        if (st != ARBOR_OK && st != ARB_ERR_AGAIN)
            arb_error("active message: returning credits to rank %d failed: %s", r,
                      arbor_strerror(st));
    }
}

static int am_poll(void *arg)
{
    (void)arg;
    if (!am.ready || am.current) return 0; /* never a handler inside another */
    int moved = run_ring(AM_REP_RING, AM_REP_SLOTS, &am.rep_head, AM_RUN_BUDGET);
    moved += run_ring(AM_REQ_RING, AM_REQ_SLOTS, &am.req_head, AM_RUN_BUDGET);
    if (am.release_due) release_credits();
    return moved;
}

/* ---- init / fini ------------------------------------------------------------------------ */

arbor_status_t arb_am_mailbox_init(void)
{
    arbor_status_t st;
    memset(&am, 0, sizeof(am));
    am.peer_head = calloc((size_t)arb_ctx.size, sizeof(*am.peer_head));
    am.to_release = calloc((size_t)arb_ctx.size, sizeof(*am.to_release));
    am.peer_sent = calloc((size_t)arb_ctx.size, sizeof(*am.peer_sent));
    am.rma_sent = calloc((size_t)arb_ctx.size, sizeof(*am.rma_sent));
    if (!am.peer_head || !am.to_release || !am.peer_sent || !am.rma_sent) {
        arb_am_mailbox_fini();
        return ARBOR_ERR_NO_MEMORY;
    }
    if ((st = arb_mem_take_local(AM_BYTES, &am.base)) != ARBOR_OK) {
        arb_error("no room for the active-message mailbox (%u bytes) in the segment",
                  (unsigned)AM_BYTES);
        arb_am_mailbox_fini();
        return st;
    }
    if ((st = arb_rma_poll_register(am_poll, NULL)) != ARBOR_OK) {
        arb_mem_give_local(am.base, AM_BYTES);
        arb_am_mailbox_fini();
        return st;
    }
    am.ready = true;
    return ARBOR_OK;
}

bool arb_am_ready(void)
{
    return am.ready;
}

void arb_am_mailbox_fini(void)
{
    if (am.ready) {
        arb_rma_poll_unregister(am_poll, NULL);
        arb_mem_give_local(am.base, AM_BYTES);
    }
    free(am.peer_head);
    free(am.to_release);
    free(am.peer_sent);
    free(am.rma_sent);
    memset(&am, 0, sizeof(am));
}

bool arb_am_active(void)
{
    if (!am.ready) return false;
    for (int i = 0; i < ARBOR_AM_MAX_HANDLERS; i++)
        if (am.handlers[i].fn) return true;
    return false;
}

/* ---- core's own messages --------------------------------------------------------------- */

arbor_status_t arb_am_wait(bool (*done)(void *), void *arg, const char *what)
{
    return wait_for(done, arg, what);
}

void arb_am_set_internal(int index, arbor_am_handler_t *fn, void *arg)
{
    am.handlers[index] = (am_handler_t){fn, arg};
}

arbor_status_t arb_am_send_request(int rank, int index, const void *payload, size_t nbytes)
{
    return am.current ? ARBOR_ERR_BUSY : send_request(rank, index, payload, nbytes, NULL);
}

arbor_status_t arb_am_send_onesided(int rank, int index, const void *payload, size_t nbytes)
{
    uint64_t ticket;
    if (am.current) return ARBOR_ERR_BUSY;
    arbor_status_t st = send_request(rank, index, payload, nbytes, &ticket);
    /* A failed send was reported to the caller; a fence waits only for messages that went. */
    if (st == ARBOR_OK && ticket + 1 > am.rma_sent[rank]) am.rma_sent[rank] = ticket + 1;
    return st;
}

arbor_status_t arb_am_send_reply(arbor_am_token_h token, int index, const void *payload,
                                 size_t nbytes)
{
    if (!token || token != am.current || !token->is_request || token->replied)
        return ARBOR_ERR_HANDLE;
    arbor_status_t st = send_reply(token->src, index, payload, nbytes);
    token->replied = st == ARBOR_OK;
    return st;
}

typedef struct {
    int rank;
    arbor_status_t status;
} run_wait_t;

/* Every request sent to w->rank has run there: its head reached our last ticket + 1. */
static bool all_ran(void *arg)
{
    run_wait_t *w = arg;
    if (am.peer_head[w->rank] >= am.peer_sent[w->rank]) return true;
    uint64_t head;
    w->status = read_word(w->rank, CTL_REQ_HEAD, &head);
    if (w->status != ARBOR_OK) return true;
    if (head > am.peer_head[w->rank]) am.peer_head[w->rank] = head;
    return am.peer_head[w->rank] >= am.peer_sent[w->rank];
}

arbor_status_t arb_am_complete_to(int rank)
{
    if (!am.ready) return ARBOR_OK;
    int lo = rank < 0 ? 0 : rank, hi = rank < 0 ? arb_ctx.size : rank + 1;
    for (int r = lo; r < hi; r++) {
        run_wait_t w = {r, ARBOR_OK};
        arbor_status_t st = wait_for(all_ran, &w, "waiting for requests to run");
        if (st == ARBOR_OK) st = w.status;
        if (st != ARBOR_OK) return st;
    }
    return ARBOR_OK;
}

typedef struct {
    int rank;
    uint64_t upto; /* the target's head must reach this */
    arbor_status_t status;
} upto_wait_t;

static bool ran_upto(void *arg)
{
    upto_wait_t *w = arg;
    if (am.peer_head[w->rank] >= w->upto) return true;
    uint64_t head;
    w->status = read_word(w->rank, CTL_REQ_HEAD, &head);
    if (w->status != ARBOR_OK) return true;
    if (head > am.peer_head[w->rank]) am.peer_head[w->rank] = head;
    return am.peer_head[w->rank] >= w->upto;
}

/* The one-sided layer's fence hook (arb_rma_fence_register): only ranks with a packed put not
 * yet seen run cost anything (one head read, then polls until it has run). Plain requests are
 * not waited for (docs/AM.md), except those queued before such a put (tickets run in order). */
arbor_status_t arb_am_onesided_complete(int rank)
{
    if (!am.ready || am.current) return ARBOR_OK;
    int lo = rank < 0 ? 0 : rank, hi = rank < 0 ? arb_ctx.size : rank + 1;
    for (int r = lo; r < hi; r++) {
        uint64_t upto = am.rma_sent[r];
        if (upto == 0) continue;
        upto_wait_t w = {r, upto, ARBOR_OK};
        arbor_status_t st = wait_for(ran_upto, &w, "waiting for packed puts to run (fence)");
        if (st == ARBOR_OK) st = w.status;
        if (st != ARBOR_OK) return st;
        if (am.rma_sent[r] <= am.peer_head[r]) am.rma_sent[r] = 0; /* none sent since */
    }
    return ARBOR_OK;
}

/* ---- public entry points ---------------------------------------------------------------- */

arbor_status_t arbor_am_register(int index, arbor_am_handler_t *fn, void *arg)
{
    if (!arb_initialized() || !am.ready) return ARBOR_ERR_NOT_INITIALIZED;
    if (index < 0 || index >= ARBOR_AM_MAX_HANDLERS || !fn) return ARBOR_ERR_INVALID_ARG;
    ARB_ENTER();
    arbor_status_t st = ARBOR_OK;
    if (am.handlers[index].fn)
        st = ARBOR_ERR_BUSY;
    else
        am.handlers[index] = (am_handler_t){fn, arg};
    arb_unlock();
    return st;
}

size_t arb_am_max_payload(void)
{
    return AM_MAX_PAYLOAD;
}

size_t arbor_am_max_payload(void)
{
    return arb_am_max_payload();
}

static arbor_status_t check_message(int index, const void *payload, size_t nbytes)
{
    if (index < 0 || index >= ARBOR_AM_MAX_HANDLERS || !am.handlers[index].fn)
        return ARBOR_ERR_INVALID_ARG;
    if (nbytes > AM_MAX_PAYLOAD) return ARBOR_ERR_COUNT;
    if (nbytes && !payload) return ARBOR_ERR_BUFFER;
    return ARBOR_OK;
}

arbor_status_t arbor_am_request(int rank, int index, const void *payload, size_t nbytes)
{
    if (!arb_initialized() || !am.ready) return ARBOR_ERR_NOT_INITIALIZED;
    if (rank < 0 || rank >= arb_ctx.size) return ARBOR_ERR_RANK;
    ARB_ENTER();
    arbor_status_t st = check_message(index, payload, nbytes);
    if (st == ARBOR_OK && am.current)
        st = ARBOR_ERR_BUSY; /* a request may wait for room; handlers must not wait */
    if (st == ARBOR_OK) st = send_request(rank, index, payload, nbytes, NULL);
    arb_unlock();
    return st;
}

arbor_status_t arbor_am_reply(arbor_am_token_h token, int index, const void *payload, size_t nbytes)
{
    if (!arb_initialized() || !am.ready) return ARBOR_ERR_NOT_INITIALIZED;
    /* From its handler (the only place a reply is valid) this thread already holds the lock. */
    bool in_handler = arb_in_callback == ARB_CB_AM_HANDLER;
    if (!in_handler) ARB_ENTER();
    arbor_status_t st = ARBOR_OK;
    if (!token || token != am.current || !token->is_request || token->replied)
        st = ARBOR_ERR_HANDLE;
    if (st == ARBOR_OK) st = check_message(index, payload, nbytes);
    /* A sent reply carries the origin's credit back; after a failed one the handler's end
     * releases it. */
    if (st == ARBOR_OK) st = arb_am_send_reply(token, index, payload, nbytes);
    if (!in_handler) arb_unlock();
    return st;
}
