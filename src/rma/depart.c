/*
 * Departures (rma/depart.h): how a rank that stopped or failed on purpose tells its peers.
 *
 * The board: 3 size + 1 64-bit words at the same offset of every segment (taken at init). A
 * departing rank r adds its stage bits (STOPPED, FAILED) to word r of every peer's board, then 1
 * to word size (the count of announcements that arrived), each with a remote atomic that
 * completes before the next is issued. A reader loads the count (acquire) at every check and
 * scans the words only when it moved, so an idle wait costs one load. The stages come after the
 * rank's last one-sided operation and notification completed at their targets, so a reader that
 * sees a stage and then looks for a notification from that rank sees every one it will ever get.
 *
 * A rank that gives up a collective for a stopped member writes the team's id into word
 * 2 size + 1 + r of the other members' boards (8-byte puts), so that the members waiting for it
 * rather than for the stopped rank give up too, instead of waiting for ARBOR_TIMEOUT.
 *
 * The last stage, CLOSED, is word size + 1 + r, written by a put of 8 bytes that goes out
 * copied (done for the sender at once): a rank that saw every peer's CLOSED word leaves the
 * stage at once, so a word of its own it waited for could be held by a peer that already left
 * (an atomic's result comes back through the target's progress). Finalize flushes these puts
 * afterwards and fences with progress (api/init.c), so every word reaches its target even
 * where the provider sends only when progressed.
 */
#include "rma/depart.h"

#include <stdlib.h>

#include "runtime/doorbell.h"
#include "util/log.h"
#include "rma/rma_impl.h"
#include "runtime/tp_call.h"

enum {
    DEPART_STOPPED = 1, /* entered arbor_finalize */
    DEPART_CLOSED = 2,  /* flushed everything it sent (its own word, not a board bit) */
    DEPART_FAILED = 4   /* arbor_fail_self */
};

static struct {
    uint64_t off;         /* the board's segment offset (the same on every rank) */
    uint64_t *board;      /* [3 size + 1] in this rank's segment */
    uint64_t seen;        /* the announcement count at the last scan */
    unsigned losses;      /* the bootstrap's loss count at the last scan */
    unsigned checks;      /* refreshes since init (the loss probe runs every 64th) */
    unsigned polls;       /* progress turns since init (the hook refreshes every 16th) */
    uint8_t *state;       /* [size] arbor_peer_state_t of every rank at the last scan */
    int running, stopped; /* other ranks running, stopped (not failed) at the last scan */
    bool ready;
    arb_tp_comp_t comp; /* the announcements posted through the transport */
} dep;

static int poll_hook(void *arg);

arbor_status_t arb_depart_init(void)
{
    int P = arb_ctx.size;
    arbor_status_t status = arb_mem_take_local((uint64_t)(3 * P + 1) * sizeof(uint64_t), &dep.off);
    if (status != ARBOR_OK) {
        arb_error("no room in the segment for the departure board of %d ranks", P);
        return status;
    }
    dep.board = (uint64_t *)(arb_ctx.seg + dep.off);
    dep.seen = 0;
    dep.losses = 0;
    dep.checks = dep.polls = 0;
    free(dep.state);
    dep.state = calloc((size_t)P, 1);
    if (!dep.state) return ARBOR_ERR_NO_MEMORY;
    dep.running = P - 1;
    dep.stopped = 0;
    dep.comp = (arb_tp_comp_t){0, ARBOR_OK};
    dep.ready = true;
    /* The poll hook makes an announced failure a loss the bootstrap knows at once, so every
     * lost-peer check of the engine (teams, flushes, finalize) applies to it. */
    return arb_rma_poll_register(poll_hook, NULL);
}

static arbor_peer_state_t word_state(int r, uint64_t w)
{
    arb_boot_t *b = arb_ctx.boot;
    if ((w & DEPART_FAILED) || (b && b->ops->lost(b, r))) return ARBOR_PEER_FAILED;
    return (w & DEPART_STOPPED) ? ARBOR_PEER_STOPPED : ARBOR_PEER_RUNNING;
}

static void rescan(void)
{
    int running = 0, stopped = 0;
    for (int r = 0; r < arb_ctx.size; r++) {
        if (r == arb_ctx.rank) continue;
        uint64_t w = __atomic_load_n(&dep.board[r], __ATOMIC_ACQUIRE);
        arb_boot_t *b = arb_ctx.boot;
        if ((w & DEPART_FAILED) && b && !b->ops->lost(b, r))
            arb_boot_peer_gone(r, "it announced its failure (arbor_fail_self)");
        arbor_peer_state_t s = word_state(r, w);
        dep.state[r] = (uint8_t)s;
        running += s == ARBOR_PEER_RUNNING;
        stopped += s == ARBOR_PEER_STOPPED;
    }
    dep.running = running;
    dep.stopped = stopped;
}

/* Brings the scan up to date when an announcement arrived or the bootstrap saw a loss. */
static void refresh(void)
{
    if (!dep.ready) return;
    uint64_t count = __atomic_load_n(&dep.board[arb_ctx.size], __ATOMIC_ACQUIRE);
    arb_boot_t *b = arb_ctx.boot;
    /* losses() probes this node's processes (rate-limited inside, but it reads the clock) */
    unsigned losses = b && (dep.checks++ & 63) == 0 ? b->ops->losses(b) : dep.losses;
    if (count == dep.seen && losses == dep.losses) return;
    dep.seen = count;
    dep.losses = losses;
    rescan();
}

static int poll_hook(void *arg)
{
    (void)arg;
    /* Every 16th turn: a departure is not waited for by the turn that sees it (the calls that
     * care refresh themselves), and this hook runs in every wait's spin. */
    if ((dep.polls++ & 15) == 0) refresh();
    return 0; /* what moved is the peers' business: a wait that cares re-checks its condition */
}

arbor_peer_state_t arb_depart_state(int rank)
{
    if (!dep.ready || rank == arb_ctx.rank || rank < 0 || rank >= arb_ctx.size)
        return ARBOR_PEER_RUNNING;
    refresh();
    return (arbor_peer_state_t)dep.state[rank];
}

int arb_depart_count(void)
{
    if (!dep.ready) return 0;
    refresh();
    return arb_ctx.size - 1 - dep.running;
}

arbor_status_t arb_depart_verdict(int rank)
{
    switch (arb_depart_state(rank)) {
    case ARBOR_PEER_STOPPED:
        return ARBOR_ERR_PEER_STOPPED;
    case ARBOR_PEER_FAILED:
        return ARBOR_ERR_PEER_LOST;
    default:
        return ARBOR_OK;
    }
}

arbor_status_t arb_depart_all_verdict(void)
{
    if (!dep.ready || arb_ctx.size == 1) return ARBOR_OK;
    refresh();
    if (dep.running > 0) return ARBOR_OK;
    return dep.stopped > 0 ? ARBOR_ERR_PEER_STOPPED : ARBOR_ERR_PEER_LOST;
}

/* Adds @p bits to this rank's word of every peer's board that is not known gone, then 1 to its
 * count. Where the transport carries the atomics they are posted, not awaited: a peer that
 * does not drive arbor yet (late, or computing) must not hold the announcements to the others;
 * the wait for the stage waits for their completion too (dep.comp). */
static arbor_status_t announce(uint64_t bits)
{
    arbor_status_t first = ARBOR_OK;
    uint64_t mine = dep.off + (uint64_t)arb_ctx.rank * sizeof(uint64_t);
    uint64_t count = dep.off + (uint64_t)arb_ctx.size * sizeof(uint64_t);
    for (int r = 0; r < arb_ctx.size; r++) {
        /* a rank that announced its failure still runs and waits for our CLOSED; one the
         * bootstrap saw go cannot take an atomic */
        uint64_t w = __atomic_load_n(&dep.board[r], __ATOMIC_ACQUIRE);
        if (r == arb_ctx.rank || (arb_depart_state(r) == ARBOR_PEER_FAILED && !(w & DEPART_FAILED)))
            continue;
        arbor_status_t s;
        if (arb_rma.cpu_atomics && arb_rma.peer_seg[r]) {
            s = arb_rma_amo64(r, NULL, mine, ARB_TP_AMO_ADD, bits, 0, NULL);
            if (s == ARBOR_OK) s = arb_rma_amo64(r, NULL, count, ARB_TP_AMO_ADD, 1, 0, NULL);
        } else {
            /* the count must not arrive before the word it announces: fenced */
            s = arb_rma_tp_amo(r, NULL, mine, ARB_TP_AMO_ADD, bits, 0, NULL, &dep.comp);
            if (s == ARBOR_OK) s = arb_tp_fence(r);
            if (s == ARBOR_OK)
                s = arb_rma_tp_amo(r, NULL, count, ARB_TP_AMO_ADD, 1, 0, NULL, &dep.comp);
        }
        if (s != ARBOR_OK && first == ARBOR_OK) first = s;
    }
    return first;
}

/* Stores *value into word @p word (a board index) of rank r's board: mapped, or by an 8-byte
 * put that goes out copied (done for us at once; *value must outlive the call anyway, in case
 * the transport queues it). what NULL: not awaited even when the transport queued it (a peer
 * that may be gone unseen). */
static arbor_status_t put_word(int r, uint64_t word, const uint64_t *value, const char *what)
{
    uint64_t off = dep.off + word * sizeof(uint64_t);
    uint8_t *seg = arb_rma_peer_seg(r);
    if (seg) {
        __atomic_store_n((uint64_t *)(seg + off), *value, __ATOMIC_RELEASE);
        arb_bell_ring(r);
        return ARBOR_OK;
    }
    if (!what) return arb_rma_tp_put(r, NULL, off, value, sizeof(*value), &dep.comp);
    arb_tp_comp_t comp = {0, ARBOR_OK};
    arbor_status_t s = arb_rma_tp_put(r, NULL, off, value, sizeof(*value), &comp);
    return s == ARBOR_OK ? arb_rma_wait_comp(&comp, what) : s;
}

/* Writes 1 to this rank's CLOSED word of every peer that is not known gone; awaited: see
 * put_word. */
static arbor_status_t announce_closed(bool awaited)
{
    static const uint64_t one = 1;
    arbor_status_t first = ARBOR_OK;
    uint64_t mine = (uint64_t)(arb_ctx.size + 1 + arb_ctx.rank);
    for (int r = 0; r < arb_ctx.size; r++) {
        uint64_t w = __atomic_load_n(&dep.board[r], __ATOMIC_ACQUIRE);
        if (r == arb_ctx.rank || (arb_depart_state(r) == ARBOR_PEER_FAILED && !(w & DEPART_FAILED)))
            continue;
        arbor_status_t s =
            put_word(r, mine, &one, awaited ? "finalize's last word to a peer" : NULL);
        if (s != ARBOR_OK && first == ARBOR_OK) first = s;
    }
    return first;
}

void arb_depart_notice(uint64_t team_id, int size, const int *world)
{
    static uint64_t id; /* the put's source must outlive the call */
    if (!dep.ready) return;
    id = team_id;
    uint64_t mine = (uint64_t)(2 * arb_ctx.size + 1 + arb_ctx.rank);
    for (int i = 0; i < size; i++) {
        int r = world[i];
        if (r == arb_ctx.rank || arb_depart_state(r) != ARBOR_PEER_RUNNING) continue;
        arbor_status_t s = put_word(r, mine, &id, "a team's failure notice");
        if (s != ARBOR_OK) arb_debug("failure notice to rank %d: %s", r, arbor_strerror(s));
    }
}

bool arb_depart_stalled(int rank, uint64_t team_id)
{
    if (!dep.ready || rank == arb_ctx.rank || rank < 0 || rank >= arb_ctx.size) return false;
    if (arb_depart_state(rank) == ARBOR_PEER_STOPPED) return true;
    uint64_t w = 2 * (uint64_t)arb_ctx.size + 1 + (uint64_t)rank;
    return __atomic_load_n(&dep.board[w], __ATOMIC_ACQUIRE) == team_id;
}

/* Whether every other rank has reached a stage in *arg or failed. */
static bool all_reached(void *arg)
{
    uint64_t bits = *(const uint64_t *)arg;
    refresh();
    if (arb_tp_comp_pending(&dep.comp) > 0) return false; /* our announcements first */
    for (int r = 0; r < arb_ctx.size; r++) {
        if (r == arb_ctx.rank) continue;
        uint64_t w = __atomic_load_n(&dep.board[r], __ATOMIC_ACQUIRE);
        if (bits == DEPART_CLOSED)
            w |= __atomic_load_n(&dep.board[arb_ctx.size + 1 + r], __ATOMIC_ACQUIRE) ? DEPART_CLOSED
                                                                                     : 0;
        if (!(w & bits) && word_state(r, w) != ARBOR_PEER_FAILED) return false;
    }
    return true;
}

static arbor_status_t announce_and_wait(uint64_t announced, uint64_t awaited, const char *what)
{
    if (!dep.ready || arb_ctx.size == 1) return ARBOR_OK;
    arbor_status_t status =
        announced == DEPART_CLOSED ? announce_closed(true) : announce(announced);
    if (status != ARBOR_OK)
        arb_warn("%s: announcing it to a peer failed: %s", what, arbor_strerror(status));
    arbor_status_t waited = arb_rma_wait_until_pred(all_reached, &awaited, true, what);
    return waited != ARBOR_OK ? waited : status;
}

arbor_status_t arb_depart_stopped(void)
{
    return announce_and_wait(DEPART_STOPPED, DEPART_STOPPED,
                             "finalize (waiting for every rank to finalize or fail)");
}

arbor_status_t arb_depart_closed(void)
{
    return announce_and_wait(DEPART_CLOSED, DEPART_CLOSED,
                             "finalize (waiting for every rank to flush)");
}

void arb_depart_leave(void)
{
    if (!dep.ready || arb_ctx.size == 1) return;
    arbor_status_t s = announce(DEPART_STOPPED);
    if (s == ARBOR_OK) s = announce_closed(false);
    if (s != ARBOR_OK) arb_debug("finalize out of step: announcing it: %s", arbor_strerror(s));
}

arbor_status_t arb_depart_fail(void)
{
    return announce_and_wait(DEPART_FAILED, DEPART_CLOSED,
                             "arbor_fail_self (waiting for the other ranks to end)");
}

void arb_depart_fini(void)
{
    free(dep.state);
    dep.state = NULL;
    dep.ready = false;
}
