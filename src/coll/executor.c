/*
 * Executor: SEND is a put-with-signal into the receiver's landing slot (or, when the peer's
 * segment is mapped here, a memcpy and a release store of the signal); RECV waits until the
 * signal passes its ticket, copies (or combines) the slot out and returns the credit. Rounds
 * order steps; per-step dependencies pipeline chunks (algorithms/sched.h).
 */
#include "coll/executor.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cma.h"
#include "coll/coll_direct.h"
#include "coll/coll_verdict.h"
#include "runtime/doorbell.h"
#include "util/log.h"
#include "util/zero.h"
#include "coll/offload.h"
#include "runtime/peer_copy.h"
#include "coll/channel.h"

static inline uint64_t load_acq(const uint8_t *p)
{
    return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
}

static inline void store_rel(uint8_t *p, uint64_t v)
{
    __atomic_store_n((uint64_t *)p, v, __ATOMIC_RELEASE);
}

static uint32_t nchunks_of(uint64_t bytes, size_t chunk)
{
    return bytes == 0 ? 1 : (uint32_t)((bytes + chunk - 1) / chunk);
}

/* A SEND or RECV step of no payload is a signal (docs/PROTOCOL.md, "Signals"): it counts in the
 * signal word of the sender's link line at the receiver instead of landing in the channel, so it
 * needs no slot and no credit. Both ends decide from their own copy of the schedule, whose send
 * and receive of one message have the same size. */
static inline bool is_signal(const arb_step_t *s)
{
    return s->bytes == 0 && (s->kind == ARB_STEP_SEND || s->kind == ARB_STEP_RECV);
}

static size_t chunk_len(const arb_inst_t *inst, const arb_step_t *s, uint32_t c, size_t chunk)
{
    uint64_t left = s->bytes * inst->block - (uint64_t)c * chunk;
    return left < chunk ? (size_t)left : chunk;
}

static uint8_t *chunk_ptr(const arb_inst_t *inst, int space, uint64_t off, uint32_t c)
{
    return inst->buf[space] + off * inst->block + (uint64_t)c * inst->team->chunk;
}

/* Finished instances are kept (with their step-state and scratch arrays) for the next
 * collective, so a small collective allocates nothing in steady state. */
enum { MAX_SPARE = 64 };

static arb_inst_t *take_instance(size_t nsteps, size_t scratch)
{
    arb_inst_t *inst = arb_ctx.stream.spare;
    if (inst) {
        arb_ctx.stream.spare = inst->next;
        arb_ctx.stream.nspare--;
    } else if (!(inst = calloc(1, sizeof(*inst)))) {
        return NULL;
    }
    arb_step_state_t *st = inst->st;
    uint8_t *scr = inst->buf[ARB_BUF_SCRATCH];
    size_t st_cap = inst->st_cap, scr_cap = inst->scratch_cap;
    if (st_cap < nsteps || !st) {
        size_t cap = nsteps > 8 ? nsteps : 8;
        arb_step_state_t *n = realloc(st, cap * sizeof(*st));
        if (!n) goto fail;
        st = n, st_cap = cap;
    }
    if (scr_cap < scratch) {
        uint8_t *n = realloc(scr, scratch);
        if (!n) goto fail;
        scr = n, scr_cap = scratch;
    }
    arb_zero(inst, sizeof(*inst));
    memset(st, 0, nsteps * sizeof(*st));
    inst->st = st, inst->st_cap = st_cap;
    inst->buf[ARB_BUF_SCRATCH] = scr, inst->scratch_cap = scr_cap;
    return inst;
fail:
    free(st);
    free(scr);
    free(inst);
    return NULL;
}

arbor_status_t arb_exec_start(struct arbor_team *team, arb_cached_sched_t *cs, void *src, void *dst,
                              size_t block, int coll, int alg, arb_inst_t **inst_p)
{
    const arb_sched_t *s = &cs->sched;
    /* Channels open on first use: the receiving end allocates its block now, before any
     * ticket is taken. A rank without room fails here, after telling every sender of the
     * collective whose channel is not open (so none of them waits). */
    if (__builtin_expect(!cs->channels_open, 0)) {
        arbor_status_t open = ARBOR_OK;
        for (int i = 0; i < s->nsteps; i++) {
            const arb_step_t *step = &s->steps[i];
            if (step->kind != ARB_STEP_RECV || is_signal(step) ||
                team->in[step->peer].state == ARB_CHAN_OPEN)
                continue;
            arbor_status_t status = arb_team_open_in(team, step->peer);
            if (open == ARBOR_OK) open = status;
        }
        if (open != ARBOR_OK) return open; /* the caller releases cs */
        cs->channels_open = true;
    }
    arb_inst_t *inst = take_instance((size_t)s->nsteps, s->scratch_blocks * block);
    if (!inst) return ARBOR_ERR_NO_MEMORY;
    inst->team = team;
    inst->cs = cs;
    inst->buf[ARB_BUF_SRC] = src;
    inst->buf[ARB_BUF_DST] = dst;
    inst->block = block;
    inst->coll = coll;
    inst->alg = alg;
    inst->t_start = arb_ctx.cfg.stats ? arb_now_us() : 0; /* clock reads cost on tiny calls */
    for (int i = 0; i < s->nsteps; i++) {
        const arb_step_t *step = &s->steps[i];
        arb_step_state_t *st = &inst->st[i];
        st->nchunks = step->kind == ARB_STEP_COPY || step->kind == ARB_STEP_OFFLOAD
                          ? 1
                          : nchunks_of(step->bytes * block, team->chunk);
        if (step->kind == ARB_STEP_OFFLOAD) {
            st->ticket = arb_offload_ticket(team);
        } else if (is_signal(step)) {
            arb_chan_t *ch =
                step->kind == ARB_STEP_SEND ? &team->out[step->peer] : &team->in[step->peer];
            st->ticket = ch->next_signal++;
        } else if (step->kind == ARB_STEP_SEND) {
            st->ticket = team->out[step->peer].next_ticket;
            team->out[step->peer].next_ticket += st->nchunks;
        } else if (step->kind == ARB_STEP_RECV) {
            st->ticket = team->in[step->peer].next_ticket;
            team->in[step->peer].next_ticket += st->nchunks;
        }
    }
    inst->seq = team->seq++;
    inst->active = true;
    inst->prev = arb_ctx.stream.active_tail;
    if (arb_ctx.stream.active_tail)
        arb_ctx.stream.active_tail->next = inst;
    else
        arb_ctx.stream.active_head = inst;
    arb_ctx.stream.active_tail = inst;
    *inst_p = inst;
    return ARBOR_OK;
}

static void deactivate(arb_inst_t *inst)
{
    if (!inst->active) return;
    if (inst->prev)
        inst->prev->next = inst->next;
    else
        arb_ctx.stream.active_head = inst->next;
    if (inst->next)
        inst->next->prev = inst->prev;
    else
        arb_ctx.stream.active_tail = inst->prev;
    inst->prev = inst->next = NULL;
    inst->active = false;
}

static void run_done(arb_inst_t *inst, arbor_status_t status)
{
    arb_done_fn_t fn = inst->done;
    if (!fn) return;
    inst->done = NULL;
    fn(inst->done_arg, status);
    inst->done_arg = NULL;
}

static bool sends_pending(const arb_inst_t *inst)
{
    for (int i = 0; inst->cs && i < inst->cs->sched.nsteps; i++)
        if (arb_tp_comp_pending(&inst->st[i].comp)) return true;
    return false;
}

/* Instances freed while the transport still held completions of theirs (arb_ctx.stream.kept, see
 * arb_exec_free) are released once the transport is closed. */

void arb_exec_free(arb_inst_t *inst)
{
    run_done(inst, ARBOR_ERR_BUSY); /* never finished: release only */
    deactivate(inst);
    bool pending = sends_pending(inst); /* reads the schedule: before its release */
    arb_sched_release(inst->cs);
    inst->cs = NULL;
    if (inst->owned) free(inst->owned), inst->owned = NULL;
    if (pending) {
        /* The transport still holds &inst->st[i].comp: recycling the instance would let a
         * late completion write into another one. Kept until the transport is closed. */
        arb_warn("%s instance freed with sends still in flight: kept until finalize",
                 inst->coll < ARB_COLL_KINDS ? arb_coll_name(inst->coll) : "internal");
        inst->buf[ARB_BUF_SRC] = inst->buf[ARB_BUF_DST] = NULL;
        inst->next = arb_ctx.stream.kept;
        arb_ctx.stream.kept = inst;
        return;
    }
    if (arb_ctx.stream.nspare < MAX_SPARE) {
        inst->next = arb_ctx.stream.spare;
        arb_ctx.stream.spare = inst;
        arb_ctx.stream.nspare++;
        return;
    }
    free(inst->buf[ARB_BUF_SCRATCH]);
    free(inst->st);
    free(inst);
}

void arb_exec_release_kept(void)
{
    while (arb_ctx.stream.kept) {
        arb_inst_t *next = arb_ctx.stream.kept->next;
        free(arb_ctx.stream.kept->buf[ARB_BUF_SCRATCH]);
        free(arb_ctx.stream.kept->st);
        free(arb_ctx.stream.kept);
        arb_ctx.stream.kept = next;
    }
}

void arb_exec_cleanup(void)
{
    while (arb_ctx.stream.spare) {
        arb_inst_t *next = arb_ctx.stream.spare->next;
        free(arb_ctx.stream.spare->buf[ARB_BUF_SCRATCH]);
        free(arb_ctx.stream.spare->st);
        free(arb_ctx.stream.spare);
        arb_ctx.stream.spare = next;
    }
    arb_ctx.stream.nspare = 0;
}

/* The first message to team rank p: whether p has published the channel block (the directory
 * word in our link line for p). Until then the send waits like one without credit, bounded by
 * ARBOR_TIMEOUT through the instance's wait; a refusal fails the instance. */
__attribute__((noinline, cold)) static bool out_channel_ready(arb_inst_t *inst, int p)
{
    struct arbor_team *t = inst->team;
    arb_chan_t *ch = &t->out[p];
    if (ch->state == ARB_CHAN_FAILED) {
        inst->status = ARBOR_ERR_NO_MEMORY;
        return false;
    }
    uint64_t dir = load_acq(t->local + arb_team_link_off(p) + ARB_LINK_DIR);
    if (dir == ARB_CHAN_NONE) {
        /* Say which call waits: a p whose own call never receives from us (another root, another
         * collective) finds it stray instead of both sides waiting out ARBOR_TIMEOUT. */
        if (t->peer_seg[p] && ch->want != inst->sig) {
            ch->want = inst->sig;
            __atomic_store_n((uint64_t *)(void *)(t->peer_seg[p] + t->region +
                                                  arb_team_link_off(t->rank) + ARB_LINK_WANT),
                             inst->sig, __ATOMIC_RELEASE);
            arb_bell_ring(t->world[p]);
        }
        return false;
    }
    if (dir == ARB_CHAN_REFUSED) {
        arb_error("rank %d had no room for our channel: the collective fails with "
                  "ARBOR_ERR_NO_MEMORY and the team is failed",
                  t->world[p]);
        ch->state = ARB_CHAN_FAILED;
        inst->status = ARBOR_ERR_NO_MEMORY;
        if (t->failed == ARBOR_OK) t->failed = ARBOR_ERR_NO_MEMORY;
        return false;
    }
    ch->block = dir & ~(uint64_t)1;
    ch->state = ARB_CHAN_OPEN;
    return true;
}

/* Sends a signal (a step of no payload) to p; false when it cannot go yet. It adds 1 to the
 * signal word of our link line at p: a release store of the count where p's segment is mapped
 * (we are that word's only writer), else one transport message. Signals go in ticket order, so
 * the word passing n means signals 0..n-1 were sent. Over the transport, put_signal without data
 * is one message where it is one (UCX: an active message over TCP, an atomic otherwise), but on
 * OFI with remote-CQ-data signals it would wait for every earlier write to p to complete (its
 * ordering promise, which a signal does not need, below): there a plain atomic add is one
 * message. */
static bool send_signal(arb_inst_t *inst, const arb_step_t *step, arb_step_state_t *st)
{
    struct arbor_team *t = inst->team;
    int p = step->peer;
    arb_chan_t *ch = &t->out[p];
    if (ch->signal_done != st->ticket || !arb_verdict_before(t, p)) return false;
    uint64_t off = t->region + arb_team_link_off(t->rank) + ARB_LINK_SIGNAL;
    if (t->peer_seg[p]) {
        store_rel(t->peer_seg[p] + off, st->ticket + 1);
    } else {
        arbor_status_t status;
        if (arb_ctx.tp_ops->caps(arb_ctx.tp) & ARB_TP_CAP_REMOTE_CQ_DATA)
            status = arb_ctx.tp_ops->amo(arb_ctx.tp, ARB_TP_AMO_ADD, t->rkey[p], off, 1, 0, NULL,
                                         &st->comp);
        else
            status = arb_ctx.tp_ops->put_signal(arb_ctx.tp, NULL, 0, t->rkey[p], off, t->rkey[p],
                                                off, 1, &st->comp);
        if (status == ARB_ERR_AGAIN) return false;
        if (status != ARBOR_OK) {
            arb_error("signal to rank %d failed: %s", t->world[p], arbor_strerror(status));
            inst->status = status;
            return false;
        }
    }
    arb_bell_ring(t->world[p]); /* p may sleep on it (a peer of another node: a no-op) */
    ch->signal_done++;
    st->issued++;
    return true;
}

/* Whether the signal of a RECV step of no payload from p has arrived. Signals from one peer are
 * counted, not ordered against its data messages: nothing waits on a signal for data sent on
 * the channel before it (every such message has a RECV step of its own), and no credit is
 * returned (none was taken). */
static bool recv_signal(arb_inst_t *inst, const arb_step_t *step, arb_step_state_t *st)
{
    const struct arbor_team *t = inst->team;
    if (load_acq(t->local + arb_team_link_off(step->peer) + ARB_LINK_SIGNAL) <= st->ticket)
        return false;
    st->done++;
    return true;
}

/* Through the transport a step's first message that fits the receiver's line goes into the
 * line with its ticket and the call's signature, as a mapped sender's inline message does: one
 * put_signal, as before, 16 bytes longer. A longer message carries none: a separate put of the
 * line costs a round trip on providers that run one write per peer at a time (tcp;ofi_rxm),
 * and staging header and data together would need a buffer per step. */
static arbor_status_t put_line(arb_inst_t *inst, int p, arb_step_state_t *st, uint64_t ticket,
                               const uint8_t *src, size_t len)
{
    struct arbor_team *t = inst->team;
    st->head[0] = ticket + 1;
    st->head[1] = inst->sig;
    if (len) memcpy((uint8_t *)st->head + ARB_INLINE_HDR, src, len);
    uint64_t line = t->out[p].block + arb_chan_line_of(t, ticket);
    return arb_ctx.tp_ops->put_signal(arb_ctx.tp, st->head, ARB_INLINE_HDR + len, t->rkey[p], line,
                                      t->rkey[p], t->out[p].block + ARB_CHAN_POSTED, 1, &st->comp);
}

/* Posts chunk c of a SEND; false when it cannot go yet. */
static bool send_chunk(arb_inst_t *inst, const arb_step_t *step, arb_step_state_t *st, uint32_t c)
{
    struct arbor_team *t = inst->team;
    int p = step->peer;
    uint64_t ticket = st->ticket + c;
    arb_chan_t *ch = &t->out[p];
    if (ch->next_done != ticket || !arb_verdict_before(t, p)) return false;
    if (__builtin_expect(ch->state != ARB_CHAN_OPEN, 0) && !out_channel_ready(inst, p))
        return false;
    const uint8_t *src = chunk_ptr(inst, step->space, step->off, c);
    size_t len = chunk_len(inst, step, c, t->chunk);
    /* A message may go once the one depth slots back (lines back, for a mapped peer's inline
     * message, which takes only its line) has been consumed: credits count every message, in
     * order, so that one frees its slot and every line up to it. Re-read the credit line
     * (written by the peer: a cache miss) only when the credits we already know of are used
     * up. */
    uint64_t room = t->peer_seg[p] && !inst->one_copy && len <= ARB_INLINE_MAX
                        ? arb_chan_lines(t->depth)
                        : (uint64_t)t->depth;
    if (ticket - ch->credit >= room) {
        ch->credit = load_acq(t->local + arb_team_link_off(p) + ARB_LINK_CONSUMED);
        if (ticket - ch->credit >= room) return false;
    }

    uint64_t slot = ch->block + arb_chan_slot_off(t, ticket % (uint64_t)t->depth);
    uint64_t sig = ch->block + ARB_CHAN_POSTED;
    uint32_t span = inst->one_copy ? arb_direct_send(inst, step, c, ticket, src, len) : 0;
    if (span == UINT32_MAX) return false; /* a descriptor put in flight, or failed */
    if (span) { /* described: the receiver reads span chunks at src (coll/coll_direct.h) */
        st->settle = ticket + span;
        t->out[p].next_done += span;
        st->issued += span;
        return true;
    }
    if (t->peer_seg[p] && len <= ARB_CELL_MAX) {
        arb_cell_put(t, p, ticket, inst->sig, src, len);
        arb_bell_ring(t->world[p]);
        /* A stream of tiny messages (a broadcast's, which nothing answers) reaches a new line of
         * cells every fourth ticket, one the receiver read a ring ago: take it two lines early,
         * so the transfer overlaps the messages between instead of stalling the stream. Not
         * for a reduction, whose messages are answered: there the request only delays the
         * peer that is about to answer. */
        if (!inst->combine && (ticket & 3) == 0)
            __builtin_prefetch(t->peer_seg[p] + ch->block + arb_chan_cell_of(t, ticket + 8), 1);
    } else if (t->peer_seg[p] && len <= ARB_INLINE_MAX) {
        arb_cell_void(t, p, ticket, 1);
        uint8_t *line = t->peer_seg[p] + ch->block + arb_chan_line_of(t, ticket);
        if (len) memcpy(line + ARB_INLINE_HDR, src, len);
        memcpy(line + ARB_LINE_SIG, &inst->sig, sizeof(inst->sig));
        store_rel(line, ticket + 1);
        arb_bell_ring(t->world[p]);
        /* The next message's line is still the receiver's (it read it last): ask for it now,
         * so that the transfer overlaps the rest of this call. */
        __builtin_prefetch(t->peer_seg[p] + ch->block + arb_chan_line_of(t, ticket + 1), 1);
    } else if (t->peer_seg[p]) {
        arb_cell_void(t, p, ticket, 1);
        /* Streaming pays from 4 KiB, reductions included (runtime/peer_copy.h); with more ranks
         * than cores the receiver may run on this very core next, where the lines are cached;
         * once the slots this size of chunk cycles through span ARBOR_CHANNEL_BYTES, plain
         * stores usually win, and the sender's timing of its own copies decides
         * (arb_peer_copy_pick). */
        size_t stream_min = arb_ctx.yield ? 0 : arb_ctx.cfg.stream_min;
        if (len && stream_min && len >= stream_min && arb_ctx.cfg.channel_bytes &&
            (uint64_t)len * (uint64_t)t->depth >= arb_ctx.cfg.channel_bytes)
            arb_peer_copy_pick(&ch->pick, t->peer_seg[p] + slot, src, len);
        else if (len)
            arb_peer_copy(t->peer_seg[p] + slot, src, len, stream_min);
        /* The slot has no room: the signature goes in the message's line, which only inline
         * messages use otherwise. */
        memcpy(t->peer_seg[p] + ch->block + arb_chan_line_of(t, ticket) + ARB_LINE_SIG, &inst->sig,
               sizeof(inst->sig));
        store_rel(t->peer_seg[p] + sig, ticket + 1);
        arb_bell_ring(t->world[p]);
    } else {
        arbor_status_t status =
            c == 0 && !inst->one_copy && len <= ARB_INLINE_MAX
                ? put_line(inst, p, st, ticket, src, len)
                : arb_ctx.tp_ops->put_signal(arb_ctx.tp, len ? src : NULL, len, t->rkey[p], slot,
                                             t->rkey[p], sig, 1, &st->comp);
        if (status == ARB_ERR_AGAIN) return false;
        if (status != ARBOR_OK) {
            arb_error("put to rank %d failed: %s", t->world[p], arbor_strerror(status));
            inst->status = status;
            return false;
        }
        arb_bell_ring(t->world[p]); /* a peer of this node: the put raised no event there */
    }
    t->out[p].next_done++;
    st->issued++;
    return true;
}

/* Returns a credit to p. Inside a progress turn, so it keeps the engine lock while the
 * transport pushes back (the peer's queue drains by its progress and ours, never by another
 * thread of this process); bounded by ARBOR_TIMEOUT like every wait: a peer that never drains
 * it fails the collective.
 * Through the transport a credit is a message of its own (an atomic add that the peer's
 * progress applies, over TCP a packet and a wake-up), as many as the data messages. So those
 * credits go back in batches of half the channel depth: a sender then always has at least
 * depth / 2 slots, and it can only be short of credits while messages it posted wait here
 * unconsumed, whose consumption sends the batch (docs/PROTOCOL.md, "Credits"). A mapped peer's
 * credit is a store, returned at once. n: the chunks consumed (a one-copy descriptor spans
 * several); now: return every held credit at once, for a one-copy instance, whose sender
 * completes only once the credits of all it described are back (coll/coll_direct.h). */
static arbor_status_t return_credit(struct arbor_team *t, int p, uint64_t consumed, uint32_t n,
                                    bool now)
{
    uint64_t off = t->region + arb_team_link_off(t->rank) + ARB_LINK_CONSUMED;
    if (t->peer_seg[p]) {
        arb_credit_mapped(t, p, consumed);
        return ARBOR_OK;
    }
    uint32_t batch = t->depth > 1 ? (uint32_t)t->depth / 2 : 1;
    t->in[p].unreturned += n;
    if (!now && t->in[p].unreturned < batch) return ARBOR_OK;
    uint64_t add = t->in[p].unreturned;
    t->in[p].unreturned = 0;
    arbor_status_t status;
    double since = 0;
    unsigned spins = 0;
    while ((status = arb_ctx.tp_ops->amo(arb_ctx.tp, ARB_TP_AMO_ADD, t->rkey[p], off, add, 0, NULL,
                                         NULL)) == ARB_ERR_AGAIN) {
        /* The peer's queue is full: it must run to drain it, so give it the core. */
        if (!arb_ctx.tp_ops->progress(arb_ctx.tp) && arb_ctx.yield) sched_yield();
        if (++spins % 256) continue;
        double now = arb_now_us();
        if (since == 0) since = now;
        if (arb_ctx.cfg.timeout_s > 0 && now - since > arb_ctx.cfg.timeout_s * 1e6) {
            status = ARBOR_ERR_TIMEOUT;
            break;
        }
    }
    if (status != ARBOR_OK)
        arb_error("credit to rank %d failed: %s", t->world[p], arbor_strerror(status));
    else
        arb_bell_ring(t->world[p]);
    return status;
}

/* A reduction's span read by cross-memory attach: it lands in a bounce buffer a piece at a
 * time, where it is still in this core's cache when it combines into dst; the sender copies
 * nothing (no landing slot). Pieces are whole chunks, so they hold whole elements, and several
 * of them, since each process_vm_readv call costs about 1.5 us besides its pages. */
static int cma_read_combine(arb_inst_t *inst, int world, uint8_t *dst, uintptr_t addr, size_t len,
                            int order)
{
    size_t piece = ARB_CMA_COMBINE_CHUNKS * inst->team->chunk;
    uint8_t *bounce = arb_cma_bounce(piece);
    if (!bounce) return ENOMEM;
    for (size_t at = 0; at < len; at += piece) {
        size_t n = len - at < piece ? len - at : piece;
        int err = arb_cma_read(world, bounce, addr + at, n);
        if (err) return err;
        inst->combine(dst + at, bounce, n, order, inst->combine_arg);
    }
    return 0;
}

/* Whether the message in (or signalled through) line comes from the same collective call as
 * inst: the sender's signature (coll/coll_check.h) against ours. A difference fails inst with
 * ARBOR_ERR_MISMATCH before its data is used; the team is failed when it finishes. */
static bool signature_ok(arb_inst_t *inst, int p, const uint8_t *line)
{
    uint64_t theirs;
    memcpy(&theirs, line + ARB_LINE_SIG, sizeof(theirs));
    if (__builtin_expect(theirs == inst->sig, 1)) return true;
    arb_error("%s (call #%llu of team %p): the message from world rank %d belongs to another "
              "collective call (its signature of collective, root, count, type, op, sync flags "
              "and call number differs): members called mismatched collectives. ARBOR_CHECK=1 "
              "says which argument differs",
              inst->coll < ARB_COLL_KINDS ? arb_coll_name(inst->coll) : "internal collective",
              (unsigned long long)inst->call, (void *)inst->team->handle, inst->team->world[p]);
    inst->status = ARBOR_ERR_MISMATCH;
    return false;
}

/* The payload of the cell of ticket from mapped p (a message of at most ARB_CELL_MAX bytes),
 * or NULL while the cell does not hold the ticket. A void cell (p's message for the ticket went
 * into a line or a slot: longer than this call's) or another call's short signature fails inst
 * with ARBOR_ERR_MISMATCH and sets *bad. */
static const uint8_t *cell_payload(arb_inst_t *inst, int p, const uint8_t *chan, uint64_t ticket,
                                   bool *bad)
{
    const uint8_t *cell = chan + arb_chan_cell_of(inst->team, ticket);
    uint64_t tag = load_acq(cell);
    uint32_t want = arb_cell_ticket(ticket);
    if ((uint32_t)tag == want && (uint32_t)(tag >> 32) == arb_sig_short(inst->sig)) return cell + 8;
    if ((uint32_t)tag != want && (uint32_t)tag != (want | ARB_CELL_VOID)) return NULL;
    arb_error("%s (call #%llu of team %p): the message from world rank %d %s: members called "
              "mismatched collectives. ARBOR_CHECK=1 says which argument differs",
              inst->coll < ARB_COLL_KINDS ? arb_coll_name(inst->coll) : "internal collective",
              (unsigned long long)inst->call, (void *)inst->team->handle, inst->team->world[p],
              (uint32_t)tag == want ? "belongs to another collective call (its short signature "
                                      "differs)"
                                    : "is longer than this call's");
    inst->status = ARBOR_ERR_MISMATCH;
    *bad = true;
    return NULL;
}

/* The first message of a step from an unmapped p has landed (posted passed it): whether it is
 * of the same call, as far as its line tells (put_line). small: this call expects one that fits
 * the line, which must then hold the ticket and our signature; otherwise a line holding the
 * ticket is a short message of another call. */
static bool head_ok(arb_inst_t *inst, int p, const uint8_t *line, uint64_t ticket, bool small)
{
    if (load_acq(line) == ticket + 1) return signature_ok(inst, p, line);
    if (!small) return true;
    arb_error("%s (call #%llu of team %p): the message from world rank %d is longer than this "
              "call's: members called mismatched collectives (different counts, roots or "
              "kinds). ARBOR_CHECK=1 says which argument differs",
              inst->coll < ARB_COLL_KINDS ? arb_coll_name(inst->coll) : "internal collective",
              (unsigned long long)inst->call, (void *)inst->team->handle, inst->team->world[p]);
    inst->status = ARBOR_ERR_MISMATCH;
    return false;
}

/* Lands chunk c of a RECV; false when it has not arrived (or it is not its turn). */
static bool recv_chunk(arb_inst_t *inst, const arb_step_t *step, arb_step_state_t *st, uint32_t c)
{
    struct arbor_team *t = inst->team;
    int p = step->peer;
    uint64_t ticket = st->ticket + c;
    arb_chan_t *in = &t->in[p];
    if (in->next_done != ticket) return false;
    /* The sender cannot have sent before the block was published: finish that first. */
    if (__builtin_expect(in->publish, 0) && !arb_team_publish(t, p)) return false;
    const uint8_t *chan = arb_ctx.seg + in->block;
    size_t len = chunk_len(inst, step, c, t->chunk);
    const uint8_t *slot = NULL;
    uint32_t span = 1;
    uintptr_t cma = 0;
    if (inst->one_copy && len > ARB_INLINE_MAX) {
        /* A descriptor: slot is the sender's buffer (or cma its address there), len and span
         * what it describes. */
        if (!arb_direct_source(inst, step, c, ticket, &len, &span, &slot, &cma)) return false;
    } else if (len <= ARB_INLINE_MAX) {
        /* In a cell or a line (a sender that maps us) or in a slot: the cell's or the line's
         * ticket tells, the line's rechecked after posted so a line stored before a later posted
         * is not missed. Mapping need not be mutual (a peer may map us before we map it), so the
         * cell and the line are read whether or not we map p. A cell message never moves
         * posted: past it, a sender that does not map us (its line, as below). */
        if (len <= ARB_CELL_MAX) {
            bool bad = false;
            slot = cell_payload(inst, p, chan, ticket, &bad);
            if (!slot && !bad) {
                if (load_acq(chan + ARB_CHAN_POSTED) <= ticket) return false;
                /* A later message moved posted: a cell stored before it is visible now. */
                slot = cell_payload(inst, p, chan, ticket, &bad);
            }
            if (bad) return false;
        }
        if (!slot) {
            const uint8_t *line = chan + arb_chan_line_of(t, ticket);
            if (load_acq(line) == ticket + 1) {
                slot = line + ARB_INLINE_HDR;
            } else {
                if (load_acq(chan + ARB_CHAN_POSTED) <= ticket) return false;
                if (load_acq(line) == ticket + 1) slot = line + ARB_INLINE_HDR;
            }
            /* A mapped sender's slot message (its signature is in the line too) where this call
             * expects one that fits the line: a longer message of another call. */
            if ((slot || t->peer_seg[p]) && !signature_ok(inst, p, line)) return false;
            if (!slot && !t->peer_seg[p] && c == 0 && !inst->one_copy &&
                !head_ok(inst, p, line, ticket, true))
                return false;
        }
    } else if (load_acq(chan + ARB_CHAN_POSTED) <= ticket) {
        /* Posted stays put for an inline message: a mapped sender's short message where this
         * call expects a longer one is told by the line (its signature differs). */
        const uint8_t *line = chan + arb_chan_line_of(t, ticket);
        if (t->peer_seg[p] && load_acq(line) == ticket + 1) signature_ok(inst, p, line);
        return false;
    } else if (t->peer_seg[p] && !signature_ok(inst, p, chan + arb_chan_line_of(t, ticket))) {
        return false;
    } else if (!t->peer_seg[p] && c == 0 && !inst->one_copy &&
               !head_ok(inst, p, chan + arb_chan_line_of(t, ticket), ticket, false)) {
        return false;
    }
    uint8_t *dst = chunk_ptr(inst, step->space, step->off, c);
    if (cma) {
        int err = step->combine ? cma_read_combine(inst, t->world[p], dst, cma, len, step->combine)
                                : arb_cma_read(t->world[p], dst, cma, len);
        if (err) { /* permitted at init, so the sender's process is gone or the address bad */
            arb_error("one copy: cross-memory read of %zu bytes from rank %d failed: %s", len,
                      t->world[p], strerror(err));
            inst->status = ARBOR_ERR_TRANSPORT;
            return false;
        }
        len = 0; /* landed */
    }
    if (!slot) slot = chan + arb_chan_slot_off(t, ticket % (uint64_t)t->depth);
    if (len && step->combine)
        inst->combine(dst, slot, len, step->combine, inst->combine_arg);
    else if (len)
        memcpy(dst, slot, len);
    /* Likewise the next line from a mapped sender: when the sender runs ahead (a stream of
     * small collectives), the line is there before this rank looks for it. Not the next cell's:
     * that is mostly this line, and a line of cells taken early, before the sender wrote them,
     * costs the sender a transfer for each cell it then writes there. */
    if (t->peer_seg[p] && len <= ARB_INLINE_MAX && len > ARB_CELL_MAX)
        __builtin_prefetch(chan + arb_chan_line_of(t, ticket + span));
    in->next_done += span;
    st->done += span;
    if (!t->closing) {
        arbor_status_t status = return_credit(t, p, ticket + span, span, inst->one_copy);
        if (status != ARBOR_OK && inst->status == ARBOR_OK) inst->status = status;
    }
    return true;
}

/* Moves one step as far as it goes; returns whether it is complete, sets *moved. */
static bool advance_step(arb_inst_t *inst, int i, bool *moved)
{
    const arb_step_t *step = &inst->cs->sched.steps[i];
    arb_step_state_t *st = &inst->st[i];
    /* A dependency gates chunk by chunk while it runs, and not at all once complete (a COPY
     * counts as one chunk whatever its size). */
    uint32_t gate = UINT32_MAX;
    if (step->dep >= 0 && inst->st[step->dep].done < inst->st[step->dep].nchunks)
        gate = inst->st[step->dep].done;

    switch (step->kind) {
    case ARB_STEP_SEND:
        if (is_signal(step)) {
            if (st->issued == 0 && gate > 0 && send_signal(inst, step, st)) *moved = true;
        } else {
            while (st->issued < st->nchunks && st->issued < gate &&
                   send_chunk(inst, step, st, st->issued))
                *moved = true;
        }
        if (st->comp.status != ARBOR_OK && inst->status == ARBOR_OK) inst->status = st->comp.status;
        if (st->issued == st->nchunks && arb_tp_comp_pending(&st->comp) == 0)
            st->done = st->nchunks;
        return st->done == st->nchunks;
    case ARB_STEP_RECV:
        if (is_signal(step)) {
            if (st->done == 0 && gate > 0 && recv_signal(inst, step, st)) *moved = true;
        } else {
            while (st->done < st->nchunks && st->done < gate &&
                   recv_chunk(inst, step, st, st->done))
                *moved = true;
        }
        return st->done == st->nchunks;
    case ARB_STEP_COPY:
        if (st->done == 0 &&
            (step->dep < 0 || inst->st[step->dep].done == inst->st[step->dep].nchunks)) {
            uint8_t *dst = chunk_ptr(inst, step->space, step->off, 0);
            const uint8_t *src = chunk_ptr(inst, step->src_space, step->src_off, 0);
            size_t len = step->bytes * inst->block;
            if (len && step->combine)
                inst->combine(dst, src, len, step->combine, inst->combine_arg);
            else if (len && dst != src)
                memmove(dst, src, len);
            st->done = 1;
            *moved = true;
        }
        return st->done == 1;
    case ARB_STEP_OFFLOAD:
        return arb_offload_advance(inst, step, st, moved);
    }
    return true;
}

/* A collective that some member refused or cancelled fails here too, even where every message
 * it waited for had come: one load of the count of posted verdicts when nobody posted. */
static void judge_at_finish(arb_inst_t *inst)
{
    struct arbor_team *t = inst->team;
    if (inst->status == ARBOR_ERR_MISMATCH && t->failed == ARBOR_OK) {
        /* Found here (a message's signature): every member must learn it. */
        t->failed = ARBOR_ERR_MISMATCH;
        arb_verdict_cancelled(t, inst->call, inst->coll, ARBOR_ERR_MISMATCH);
        return;
    }
    if (inst->status != ARBOR_OK || !arb_verdict_news(t)) return;
    arbor_status_t why =
        t->failed != ARBOR_OK ? t->failed : arb_verdict_check(t, inst->call, inst->coll);
    if (why == ARBOR_OK) return;
    inst->status = why;
    /* The other collectives of the team in flight fail at their next idle point (the waits
     * ask t->failed); this one is finishing, with the data it has, under the verdict. */
    if (t->failed == ARBOR_OK) {
        t->failed = why;
        arb_verdict_cancelled(t, inst->call, inst->coll, why);
    }
}

static void finish(arb_inst_t *inst)
{
    judge_at_finish(inst);
    run_done(inst, inst->status);
    atomic_store_explicit(&inst->complete, true, memory_order_release);
    deactivate(inst);
    if (inst->coll < ARB_COLL_KINDS && inst->alg < 16) {
        arb_alg_stats_t *s = &arb_ctx.stats[inst->coll][inst->alg];
        s->calls++;
        if (arb_ctx.cfg.stats) s->total_us += arb_now_us() - inst->t_start;
    }
}

bool arb_exec_advance(arb_inst_t *inst)
{
    const arb_sched_t *s = &inst->cs->sched;
    bool moved = false;

    while (!arb_inst_complete(inst)) {
        if (inst->first == s->nsteps) {
            /* Every step is done; a one-copy sender's readers may still read its buffer. */
            if (inst->one_copy && !arb_direct_settled(inst)) break;
            finish(inst);
            moved = true;
            break;
        }
        bool round_done = true;
        int i = inst->first;
        for (; i < s->nsteps && s->steps[i].round == inst->round; i++)
            if (!advance_step(inst, i, &moved)) round_done = false;
        if (inst->status != ARBOR_OK) {
            finish(inst);
            return true;
        }
        if (!round_done) break;
        inst->first = i;
        inst->round++;
        moved = true;
    }
    if (moved) arb_ctx.stream.epoch++;
    return moved;
}

bool arb_exec_chain_complete(const arb_inst_t *inst)
{
    for (; inst; inst = inst->agg_next)
        if (!arb_inst_complete(inst)) return false;
    return true;
}

arbor_status_t arb_exec_chain_status(const arb_inst_t *inst)
{
    for (; inst; inst = inst->agg_next)
        if (inst->status != ARBOR_OK) return inst->status;
    return ARBOR_OK;
}

void arb_exec_cancel(arb_inst_t *inst, arbor_status_t why)
{
    if (arb_inst_complete(inst)) return;
    /* A posted put may still read the user's send buffer: the caller frees it once we return,
     * so wait for local completion, bounded (a dead peer may never complete it). */
    double until = arb_now_us() + 1e6;
    while (sends_pending(inst) && arb_now_us() < until) arb_ctx.tp_ops->progress(arb_ctx.tp);
    inst->buf[ARB_BUF_SRC] = inst->buf[ARB_BUF_DST] = NULL;
    inst->status = why;
    finish(inst);
}

int arb_exec_awaited(const arb_inst_t *inst, int *world, int max)
{
    const arb_sched_t *s = &inst->cs->sched;
    const struct arbor_team *t = inst->team;
    int n = 0;
    for (int i = inst->first; i < s->nsteps && s->steps[i].round == inst->round; i++) {
        const arb_step_t *step = &s->steps[i];
        const arb_step_state_t *st = &inst->st[i];
        bool waits = (step->kind == ARB_STEP_RECV && st->done < st->nchunks) ||
                     (step->kind == ARB_STEP_SEND && st->issued < st->nchunks);
        if (!waits || step->peer < 0 || step->peer >= t->size) continue;
        int w = t->world[step->peer], j = n;
        bool seen = false;
        for (int k = 0; k < n; k++) seen |= world[k] == w;
        if (seen || n == max) continue;
        while (j > 0 && world[j - 1] > w) world[j] = world[j - 1], j--; /* keep them sorted */
        world[j] = w;
        n++;
    }
    if (inst->one_copy && inst->first == s->nsteps) n = arb_direct_awaited(inst, world, n, max);
    return n;
}

bool arb_exec_op_in_use(arbor_op_t op)
{
    for (const arb_inst_t *i = arb_ctx.stream.active_head; i; i = i->next)
        if (!arb_inst_complete(i) && i->op == op) return true;
    return false;
}

void arb_exec_chain_free(arb_inst_t *inst)
{
    while (inst) {
        arb_inst_t *next = inst->agg_next;
        arb_exec_free(inst);
        inst = next;
    }
}
