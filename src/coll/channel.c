/*
 * Landing channels opened on first use (coll/team.h, docs/PROTOCOL.md "Sparse channels"): the
 * receiver's block, taken from the top of its own heap, its publication to the sender, refusal
 * when the heap is full, and the return of every block with the team. A leaf of core: it calls
 * only the heap's bookkeeping, the doorbell and the log, so the executor can open channels
 * without depending on the team module.
 */
#include <stdio.h>
#include <string.h>

#include "util/clock.h"
#include "runtime/context.h"
#include "runtime/doorbell.h"
#include "util/log.h"
#include "util/heap.h"
#include "coll/channel.h"

/* Returns a block to the heap, cleared first (the heap keeps free space zero-filled). */
static void give_back(uint64_t off, size_t bytes)
{
    memset(arb_ctx.seg + off, 0, arb_heap_round(bytes));
    if (arb_heap_give(&arb_ctx.heap, off, bytes) != ARBOR_OK)
        arb_error("heap: returning channel block [%llu, +%zu) failed (not taken?)",
                  (unsigned long long)off, bytes);
}

/* Writes v into word ARB_LINK_DIR of our link line at team rank p; false on ARB_ERR_AGAIN. */
static bool write_dir(struct arbor_team *t, int p, uint64_t v, arbor_status_t *status)
{
    uint64_t off = t->region + arb_team_link_off(t->rank) + ARB_LINK_DIR;
    *status = ARBOR_OK;
    if (t->peer_seg[p]) {
        __atomic_store_n((uint64_t *)(t->peer_seg[p] + off), v, __ATOMIC_RELEASE);
        arb_bell_ring(t->world[p]); /* the sender may sleep waiting for this word */
        return true;
    }
    /* The word is 0 until now, and we are its only writer: an add sets it. */
    *status = arb_ctx.tp_ops->amo(arb_ctx.tp, ARB_TP_AMO_ADD, t->rkey[p], off, v, 0, NULL, NULL);
    if (*status == ARB_ERR_AGAIN) return false;
    if (*status != ARBOR_OK)
        arb_error("publishing the channel from rank %d failed: %s", t->world[p],
                  arbor_strerror(*status));
    else
        arb_bell_ring(t->world[p]); /* a peer of this node: the atomic raised no event there */
    return true;
}

bool arb_team_publish(struct arbor_team *t, int p)
{
    arb_chan_t *in = &t->in[p];
    if (!in->publish) return true;
    arbor_status_t status;
    if (!write_dir(t, p, in->block | 1, &status)) return false;
    in->publish = false;
    return true;
}

/* Marks the channel from p refused and tells p, so that it fails rather than waits (bounded like
 * a cancel: the transport may ask us to try again while its queue is full). */
static void refuse(struct arbor_team *t, int p)
{
    arbor_status_t status;
    double until = arb_now_us() + 1e6;
    t->in[p].state = ARB_CHAN_FAILED;
    while (!write_dir(t, p, ARB_CHAN_REFUSED, &status) && arb_now_us() < until)
        arb_ctx.tp_ops->progress(arb_ctx.tp);
}

arbor_status_t arb_team_open_in(struct arbor_team *t, int p)
{
    arb_chan_t *in = &t->in[p];
    if (in->state == ARB_CHAN_OPEN) return ARBOR_OK;
    if (in->state == ARB_CHAN_FAILED) return ARBOR_ERR_NO_MEMORY;
    if (t->failed == ARBOR_ERR_NO_MEMORY) {
        /* A channel of this collective could not be opened: the others are refused too, so
         * that every sender of it learns (nothing more is allocated for a failed team). */
        refuse(t, p);
        return ARBOR_ERR_NO_MEMORY;
    }
    size_t bytes = arb_chan_bytes(t->depth, t->chunk);
    uint64_t block = 0;
    /* From the top of the heap (heap.h: init's blocks stay where every rank expects them). The
     * heap keeps free space zero-filled: posted and the lines' words start at 0. */
    block = arb_heap_fit_top(&arb_ctx.heap, bytes);
    if (block == ARB_HEAP_NONE || arb_heap_take(&arb_ctx.heap, block, bytes) != ARBOR_OK) {
        arb_error("team %p: no room in the segment for the channel from rank %d (%zu bytes; "
                  "largest free block %llu): the collective fails with ARBOR_ERR_NO_MEMORY and "
                  "the team is failed. Raise ARBOR_SEGMENT_SIZE or lower ARBOR_CHANNEL_DEPTH / "
                  "ARBOR_CHUNK_SIZE",
                  (void *)t->handle, t->world[p], bytes,
                  (unsigned long long)arb_heap_largest(&arb_ctx.heap));
        if (t->failed == ARBOR_OK) t->failed = ARBOR_ERR_NO_MEMORY;
        refuse(t, p);
        return ARBOR_ERR_NO_MEMORY;
    }
    in->block = block + arb_chan_skew(t);
    in->state = ARB_CHAN_OPEN;
    in->publish = true;
    t->open_in++;
    arb_debug(
        "team %p: channel from rank %d opened (%zu bytes at %llu; %d open, %zu landing bytes)",
        (void *)t->handle, t->world[p], bytes, (unsigned long long)block, t->open_in,
        arb_team_landing_bytes(t));
    if (arb_ctx.cfg.print_algorithm && t->rank == 0)
        fprintf(stderr,
                "arbor: team %p (%d members), rank 0: channel from rank %d opened; landing memory "
                "%zu bytes, %d channels\n",
                (void *)t->handle, t->size, t->world[p], arb_team_landing_bytes(t), t->open_in);
    arb_team_publish(t, p); /* else the receive retries it */
    return ARBOR_OK;
}

size_t arb_team_landing_bytes(const struct arbor_team *t)
{
    return arb_team_region_bytes(t->size) + (size_t)t->open_in * arb_chan_bytes(t->depth, t->chunk);
}

void arb_team_close_channels(struct arbor_team *t)
{
    size_t bytes = arb_chan_bytes(t->depth, t->chunk);
    for (int p = 0; t->in && p < t->size; p++) {
        if (t->in[p].state != ARB_CHAN_OPEN) continue;
        give_back(t->in[p].block - arb_chan_skew(t), bytes);
        t->in[p].state = ARB_CHAN_CLOSED;
    }
    t->open_in = 0;
}
