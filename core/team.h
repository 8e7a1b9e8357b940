/*
 * Teams and their landing channels. Every team owns a region at the same offset of every
 * member's segment:
 *   posted[s]    (64-byte line per sender s): messages s has put into our slots
 *   consumed[r]  (64-byte line per receiver r): our messages r has copied out (credits)
 *   lines[s][k]  depth 64-byte lines per sender s for tiny messages from mapped peers
 *   slots[s][k]  depth slots of chunk bytes per sender s
 * A message on the channel s -> r is the ticket-th put into slot ticket mod depth, signalled by
 * posted[s] > ticket; the sender waits for a credit (ticket - consumed < depth). Tickets are
 * assigned when a collective starts, and collectives start in the same order on every member,
 * so both ends agree on the order of messages without headers or matching.
 *
 * A message of at most ARB_INLINE_MAX bytes from a mapped peer travels in line k instead: the
 * payload at byte 16 and ticket + 1 in the first word, stored last with release. The receiver's
 * one cache miss then brings signal and payload together (a slot and posted[s] are two lines,
 * two misses in a row). Such a message does not touch posted[s]; a later one that does is
 * stored after it, so a receiver that sees posted[s] pass the ticket also sees the line.
 */
#ifndef ARB_CORE_TEAM_H
#define ARB_CORE_TEAM_H

#include <stdbool.h>
#include <stdint.h>

#include "core/context.h"
#include "core/sched_cache.h"

typedef struct {
    uint64_t next_ticket; /* assigned at collective start */
    uint64_t next_done;   /* sent (out) or received (in) so far */
    uint64_t credit;      /* out: the peer's consumed count as last read (it only grows) */
} arb_chan_t;

struct arbor_team {
    arbor_team_h handle;
    int rank, size;
    int *world;                   /* team rank -> world rank */
    uint64_t region;              /* offset of the channel region in every member's segment */
    struct arbor_mem *region_mem; /* the heap allocation holding it (NULL: the world's) */
    size_t chunk;
    int depth;
    uint8_t *local;        /* our region */
    uint8_t **peer_region; /* peer's region mapped here, or NULL (then RMA through rkey) */
    arb_tp_rkey_t **rkey;  /* peer's segment key */
    arb_chan_t *out, *in;
    int *node;             /* [size] node index (0..topo.nnodes-1) of each member, in team order */
    arb_topo_t topo;       /* what the selector sees (topo.node = node) */
    uint64_t seq;          /* collectives started */
    uint64_t id;           /* equal on every member, differs between teams (team_fail.c) */
    bool closing;          /* finalize's last barrier: return no credits (no one needs them) */
    arbor_status_t failed; /* ARBOR_OK, or why the team failed (team_fail.c): calls refused */
    arb_sched_cache_t cache;
    struct arb_offload_team *offload; /* provider group and ordering (core/offload.c), or NULL */
    struct {
        bool valid; /* a user collective has started on the team */
        int coll, alg;
        double predicted_us;
        uint64_t seq;
    } last; /* what arbor_team_last_collective reports */
};

static inline uint64_t arb_team_posted_off(const struct arbor_team *t, int s)
{
    (void)t;
    return (uint64_t)s * 64;
}
static inline uint64_t arb_team_consumed_off(const struct arbor_team *t, int r)
{
    return (uint64_t)(t->size + r) * 64;
}
enum { ARB_INLINE_HDR = 16, ARB_INLINE_MAX = 64 - ARB_INLINE_HDR };
static inline uint64_t arb_team_line_off(const struct arbor_team *t, int s, uint64_t k)
{
    return (uint64_t)t->size * 128 + ((uint64_t)s * (uint64_t)t->depth + k) * 64;
}
static inline uint64_t arb_team_slot_off(const struct arbor_team *t, int s, uint64_t k)
{
    uint64_t lines = (uint64_t)t->size * (uint64_t)t->depth * 64;
    return (uint64_t)t->size * 128 + lines + ((uint64_t)s * (uint64_t)t->depth + k) * t->chunk;
}

/* Creates the world team (all ranks), taking its region from the heap (the first block of every
 * rank's heap: the same offset everywhere without a search). */
arbor_status_t arb_team_create_world(struct arbor_team **team_p);
void arb_team_destroy(struct arbor_team *team);
/* Finalize: destroys every team but the world. */
void arb_team_destroy_all(void);

/* A collective of t timed out (or lost a peer): log what it waited for, cancel every
 * collective of t in flight and mark t failed. Other teams are untouched. */
struct arb_inst;
void arb_team_fail(struct arbor_team *t, struct arb_inst *inst, arbor_status_t why);

/* Maps a public handle to a live team; NULL for an unknown or freed one. */
struct arbor_team *arb_team_lookup(arbor_team_h h);
/* The live team of this rank with that id (world included), or NULL: this rank is no member. */
struct arbor_team *arb_team_by_id(uint64_t id);

/* The id of a team split from parent with colour (every member computes the same, from the
 * parent's id and collective count at the split). */
uint64_t arb_team_child_id(const struct arbor_team *parent, int color);
/* Called by the waiting loops at their idle points: why a stalled collective of t can never
 * complete, or ARBOR_OK (keep waiting). ARBOR_ERR_PEER_LOST: a member is gone (bootstrap probe,
 * launcher event or transport error); ARBOR_ERR_MISMATCH: ARBOR_CHECK saw members waiting in
 * the signature exchanges of different teams (coll_check.c). Cheap: no work unless reported. */
arbor_status_t arb_team_stall_reason(struct arbor_team *t, struct arb_inst *inst);
/* A further reason asked by arb_team_stall_reason (ARBOR_CHECK's team-mismatch detection,
 * registered from above so that this engine-level file does not call up); NULL: none. */
typedef arbor_status_t (*arb_team_stall_fn)(struct arbor_team *t, struct arb_inst *inst);
void arb_team_set_stall_hook(arb_team_stall_fn fn);
/* Finalize: forgets the hook. */
void arb_team_fail_reset(void);
/* Fails t without an instance of its own (the other team of a crossing): cancels its
 * collectives in flight; later calls on it return ARBOR_ERR_TEAM. */
void arb_team_fail_all(struct arbor_team *t, arbor_status_t why);

#endif /* ARB_CORE_TEAM_H */
