/*
 * Teams and their landing channels (docs/PROTOCOL.md, "Landing channels"). Landing memory is
 * sparse: it grows with the peers a rank actually receives from, not with the team size.
 *
 * Fixed part, a region at the same offset of every member's segment: one 64-byte link line per
 * peer p (link[p]), written only by p:
 *   word 0  consumed: our messages p has copied out (credits)
 *   word 1  directory: where p put the channel block for our messages to it, published once
 *           (block offset | 1), or ARB_CHAN_REFUSED when p could not allocate it
 *   word 2  signal: payload-free messages p has sent us (a schedule step of 0 bytes: barrier
 *           signals). They take tickets from out/in[p].next_signal, not from the channel, and
 *           need no slot, so no credit (docs/PROTOCOL.md, "Signals")
 *   word 3  verdict: p's last refusal, cancellation or finalize (coll/coll_verdict.h)
 *   word 4  want: the signature of p's call that waits for our channel block, written by a
 *           mapped p while it waits, by an unmapped one once its wait saw nothing move for a
 *           grace (coll/coll_stray.h)
 *   word 5  await: the signature of p's call that waits for a message or signal from us, written
 *           at p's wait's idle points (through the transport after the same grace)
 * and after them one line, word 0 of which counts the verdicts posted here (any member adds).
 * Channel block of the channel s -> r, allocated by the receiver r from the top of its own heap (a
 * local, not symmetric, allocation) when the first collective whose schedule receives from s
 * starts, and starting arb_chan_skew lines into the allocation:
 *   posted       64-byte line: messages s has put into our slots
 *   lines[k]     arb_chan_lines(depth) 64-byte lines (at least 256) for tiny messages
 *   slots[k]     depth slots of chunk bytes
 * The sender waits, on its first message to r, until r's directory word in its own link[r] is
 * set (bounded by ARBOR_TIMEOUT through the instance's wait, never blocking other progress).
 * Both ends learn that a channel is used from their own copy of the schedule: the publication
 * is the only extra message, once per channel for the team's life; blocks go back with the team.
 *
 * A message on the channel s -> r is the ticket-th put into slot ticket mod depth, signalled by
 * posted > ticket; the sender waits for a credit (ticket - consumed < depth). Tickets are
 * assigned when a collective starts, and collectives start in the same order on every member,
 * so both ends agree on the order of messages without headers or matching.
 *
 * A message of at most ARB_INLINE_MAX bytes from a mapped peer travels in line ticket mod
 * lines instead, and needs only ticket - consumed < lines (consumed counts messages in order,
 * so every earlier line and slot is free by then). The payload is at byte 16 and ticket + 1 in
 * the first word, stored last with release. The receiver's one cache miss then brings signal
 * and payload together (a slot and posted are two lines, two misses in a row). Such a message does
 * not touch posted; a later one that does is stored after it, so a receiver that sees posted pass
 * the ticket also sees the line.
 */
#ifndef ARB_CORE_TEAM_H
#define ARB_CORE_TEAM_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "runtime/context.h"
#include "runtime/doorbell.h"
#include "runtime/peer_copy.h"
#include "coll/signature.h"
#include "coll/sched_cache.h"

/* Directory word values besides (offset | 1). */
enum { ARB_CHAN_NONE = 0, ARB_CHAN_REFUSED = 2 };

/* State of one end of a channel. */
enum { ARB_CHAN_CLOSED, ARB_CHAN_OPEN, ARB_CHAN_FAILED };

typedef struct {
    uint64_t next_ticket; /* assigned at collective start */
    uint64_t next_done;   /* sent (out) or received (in) so far */
    uint64_t next_signal; /* signals (payload-free messages, no slot) assigned at start */
    uint64_t signal_done; /* out: signals sent so far (in ticket order) */
    uint64_t credit;      /* out: the peer's consumed count as last read (it only grows) */
    uint32_t unreturned;  /* in, through the transport: consumed, credit not yet sent */
    uint64_t block;       /* offset of the channel block in the receiver's segment, once OPEN */
    uint8_t state;        /* ARB_CHAN_*: in: block allocated here; out: directory word seen */
    bool publish;         /* in: the directory word is still to be written at the sender */
    uint64_t want;        /* out: the signature last written to the peer's want word */
    uint64_t await;       /* out, unmapped peer: the signature last written to its await word */
    /* out, to a mapped peer: plain or streaming stores (runtime/peer_copy.h) */
    arb_store_pick_t pick;
} arb_chan_t;

struct arbor_team {
    arbor_team_h handle;
    int rank, size;
    int *world;                   /* team rank -> world rank */
    uint64_t region;              /* offset of the link lines in every member's segment */
    struct arbor_mem *region_mem; /* the heap allocation holding it (NULL: the world's) */
    size_t chunk;
    int depth;
    uint8_t *local;       /* our link lines */
    uint8_t **peer_seg;   /* peer's segment mapped here, or NULL (then RMA through rkey) */
    arb_tp_rkey_t **rkey; /* peer's segment key */
    arb_chan_t *out, *in;
    int open_in;           /* channel blocks allocated here (in state OPEN) */
    int *node;             /* [size] node index (0..topo.nnodes-1) of each member, in team order */
    arb_topo_t topo;       /* what the selector sees (topo.node = node) */
    int *shared;           /* topo.shared: members on the busiest oversubscribed CPUs */
    uint64_t seq;          /* collectives started */
    uint64_t id;           /* equal on every member, differs between teams (team_fail.c) */
    bool closing;          /* finalize's last barrier: return no credits (no one needs them) */
    arbor_status_t failed; /* ARBOR_OK, or why the team failed (team_fail.c): calls refused */
    /* Verdicts (coll/coll_verdict.h): calls numbered (accepted or refused), which of the last
     * 64 this rank refused (bit i: call calls - 1 - i), the count of posts last seen here, our
     * own last posted verdict, the call of finalize's closing barrier once in it. */
    uint64_t calls, refused_bits, verdicts_seen, verdict_posted, finalize_call;
    uint64_t open_bits; /* as refused_bits: calls not decided yet (one runs ARBOR_CHECK's own) */
    int stray_cursor;   /* the member a call start's stray look begins with (coll_stray.c) */
    bool finalizing;
    uint8_t *verdict_todo; /* [size]: members our last verdict has not reached yet, or NULL */
    int verdict_todo_n;
    double lost_seen_us;    /* when a wait first saw a member lost (progress.c's grace), or 0 */
    double members_next_us; /* idle points read every member's lines again from then on */
    arb_sched_cache_t cache;
    struct arb_offload_team *offload; /* provider group and ordering (coll/offload.c), or NULL */
    /* The plan of the last small blocking bcast or in-place allreduce the general path ran,
     * for the calls that repeat it without an instance (coll/tiny.h). */
    struct {
        bool valid, able; /* a plan is recorded; its call can run tiny */
        int coll, root, alg, nsteps;
        size_t count, len; /* its count, and its message's bytes */
        arbor_dtype_t dtype;
        arbor_op_t op;
        double predicted_us;
        uint64_t sig_base; /* its signature but for the call number (coll_start.c) */
        struct {
            uint8_t kind;    /* ARB_STEP_SEND or ARB_STEP_RECV */
            uint8_t combine; /* a RECV's ARB_COMBINE_* (0: copies) */
            int peer;
        } steps[4];
    } tiny;
    struct {
        bool valid; /* a user collective has started on the team */
        int coll, alg;
        double predicted_us;
        uint64_t seq;
        bool one_copy;           /* chosen for it (coll/coll_direct.h) */
        bool cma;                /* ... through cross-memory attach */
        uint64_t one_copy_bytes; /* read in place from peers' buffers, every collective */
    } last;                      /* what arbor_team_last_collective reports */
};

/* Link line of peer p in the team region (add t->region for a segment offset). */
static inline uint64_t arb_team_link_off(int p)
{
    return (uint64_t)p * 64;
}
enum {
    ARB_LINK_CONSUMED = 0,
    ARB_LINK_DIR = 8,
    ARB_LINK_SIGNAL = 16,
    ARB_LINK_VERDICT = 24,
    ARB_LINK_WANT = 32,
    ARB_LINK_AWAIT = 40
};
/* After the link lines, one line written by every member: word 0 counts the verdicts posted
 * here (coll/coll_verdict.h). An offset from the start of the region. */
static inline uint64_t arb_team_verdict_off(const struct arbor_team *t)
{
    return (uint64_t)t->size * 64;
}
/* Within a channel block: */
enum { ARB_INLINE_HDR = 16, ARB_INLINE_MAX = 64 - ARB_INLINE_HDR, ARB_CHAN_POSTED = 0 };
/* Word 1 of a message's line: its collective call's signature (inline messages and slot
 * messages from a mapped sender; docs/PROTOCOL.md, "Signatures"). */
enum { ARB_LINE_SIG = 8 };
/* Lines of a channel: at least ARB_CHAN_MIN_LINES, and never fewer than its slots. Tiny
 * messages take only a line, so a sender may run that far ahead of its receiver in them (a
 * stream of small collectives, ranks descheduled where they outnumber the cores) for 64 bytes a
 * message; the slots, depth x chunk, stay as the channel's bytes allow. */
enum { ARB_CHAN_MIN_LINES = 256 };
static inline uint64_t arb_chan_lines(int depth)
{
    return depth > ARB_CHAN_MIN_LINES ? (uint64_t)depth : ARB_CHAN_MIN_LINES;
}
/* Cells: as many 16-byte cells as lines, after them. A mapped sender's message of at most
 * ARB_CELL_MAX bytes takes only the cell of its ticket, so four consecutive ones share a line:
 * while the receiver keeps up, each message otherwise costs the sender one line taken back from
 * the receiver's cache, and that line transfer is what bounds a stream of tiny collectives
 * where lines move slowly between cores (docs/PROTOCOL.md, "Cells"). Word 0 of a cell is its
 * tag (coll/signature.h, arb_cell_tag), word 1 the payload. */
enum { ARB_CELL_BYTES = 16, ARB_CELL_MAX = 8 };
static inline uint64_t arb_chan_cells_bytes(int depth)
{
    return (arb_chan_lines(depth) * ARB_CELL_BYTES + 63) / 64 * 64;
}
/* Offset in a channel block of the line of message ticket k, of its cell, and of the slot of
 * slot index k (k = ticket mod depth). */
static inline uint64_t arb_chan_line_of(const struct arbor_team *t, uint64_t k)
{
    return 64 + (k % arb_chan_lines(t->depth)) * 64;
}
static inline uint64_t arb_chan_cell_of(const struct arbor_team *t, uint64_t k)
{
    uint64_t lines = arb_chan_lines(t->depth);
    return 64 + lines * 64 + (k % lines) * ARB_CELL_BYTES;
}
static inline uint64_t arb_chan_slot_off(const struct arbor_team *t, uint64_t k)
{
    return 64 + arb_chan_lines(t->depth) * 64 + arb_chan_cells_bytes(t->depth) + k * t->chunk;
}
/* Marks void the cells of the n tickets from ticket on the channel to mapped member p, whose
 * messages go into a line or a slot instead (or are described by a one-copy descriptor), so
 * that cells are rewritten as the ring goes round (at most a ring's worth: the rest lie on the
 * same cells). */
static inline void arb_cell_void(const struct arbor_team *t, int p, uint64_t ticket, uint64_t n)
{
    uint64_t lines = arb_chan_lines(t->depth);
    for (uint64_t k = ticket; k < ticket + (n < lines ? n : lines); k++)
        __atomic_store_n(
            (uint64_t *)(void *)(t->peer_seg[p] + t->out[p].block + arb_chan_cell_of(t, k)),
            (uint64_t)(arb_cell_ticket(k) | ARB_CELL_VOID), __ATOMIC_RELEASE);
}
/* Stores the message of ticket (len <= ARB_CELL_MAX bytes of call sig) in its cell on the
 * channel to mapped member p: the payload, then the tag (release), which the receiver tests. */
static inline void arb_cell_put(const struct arbor_team *t, int p, uint64_t ticket, uint64_t sig,
                                const void *src, size_t len)
{
    uint8_t *cell = t->peer_seg[p] + t->out[p].block + arb_chan_cell_of(t, ticket);
    if (len) memcpy(cell + 8, src, len);
    __atomic_store_n((uint64_t *)(void *)cell, arb_cell_tag(sig, ticket), __ATOMIC_RELEASE);
}
/* Returns consumed as the credit of the channel from mapped member p: a store into our link
 * line in p's segment, and p's doorbell (a sender may sleep waiting for it). */
static inline void arb_credit_mapped(const struct arbor_team *t, int p, uint64_t consumed)
{
    __atomic_store_n((uint64_t *)(void *)(t->peer_seg[p] + t->region + arb_team_link_off(t->rank) +
                                          ARB_LINK_CONSUMED),
                     consumed, __ATOMIC_RELEASE);
    arb_bell_ring(t->world[p]);
}
/* The payload of the cell of ticket on the channel from p (block: its offset in our segment)
 * when the cell holds that ticket's message of call sig, else NULL. */
static inline const uint8_t *arb_cell_get(const struct arbor_team *t, uint64_t block,
                                          uint64_t ticket, uint64_t sig)
{
    const uint8_t *cell = arb_ctx.seg + block + arb_chan_cell_of(t, ticket);
    uint64_t tag = __atomic_load_n((const uint64_t *)(const void *)cell, __ATOMIC_ACQUIRE);
    return tag == arb_cell_tag(sig, ticket) ? cell + 8 : NULL;
}

/* A channel block starts (rank in the team mod ARB_CHAN_SKEW) lines into what the receiver
 * allocated. Heaps of different ranks fill alike, so without it the two blocks of a pair of
 * ranks (r's for s, s's for r) would lie at one offset, and a rank's stores into its peer's lines
 * would alias in the low 12 address bits with its loads of its own (4K aliasing: the load waits
 * for the unrelated store). */
enum { ARB_CHAN_SKEW = 32 };
static inline uint64_t arb_chan_skew(const struct arbor_team *t)
{
    return (uint64_t)(t->rank % ARB_CHAN_SKEW) * 64;
}
/* Bytes of one channel block as allocated (skew room, posted, lines, slots), and of a team's
 * fixed region. */
static inline size_t arb_chan_bytes(int depth, size_t chunk)
{
    return (size_t)ARB_CHAN_SKEW * 64 + (size_t)arb_chan_lines(depth) * 64 +
           (size_t)arb_chan_cells_bytes(depth) + (size_t)depth * chunk;
}
static inline size_t arb_team_region_bytes(int size)
{
    return (size_t)(size + 1) * 64;
}

#endif /* ARB_CORE_TEAM_H */
