/*
 * Teams: membership, the channel region carved from every member's segment, and the per-peer
 * paths (mapped pointer or remote key). Regions are carved by a bump allocator that advances
 * identically on every rank, so a team's region has the same offset everywhere.
 */
#include "core/team.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"

static size_t region_bytes(int size, int depth, size_t chunk)
{
    return (size_t)size * 128 + (size_t)size * (size_t)depth * chunk;
}

arbor_status_t arb_team_create_world(struct arbor_team **team_p)
{
    int P = arb_ctx.size;
    size_t chunk = arb_ctx.cfg.chunk_size, avail = arb_ctx.seg_size - arb_ctx.seg_used;
    int depth = arb_ctx.cfg.channel_depth;
    struct arbor_team *t;

    /* Fit the landing space in half of what is left: shrink the slots, never below 1 KiB. */
    while (region_bytes(P, depth, chunk) > avail / 2 && chunk > 1024) chunk /= 2;
    chunk &= ~(size_t)63;
    if (region_bytes(P, depth, chunk) > avail) {
        arb_error("segment of %zu bytes too small for %d ranks x %d slots: raise "
                  "ARBOR_SEGMENT_SIZE or lower ARBOR_CHANNEL_DEPTH", arb_ctx.seg_size, P, depth);
        return ARBOR_ERR_NO_MEMORY;
    }
    if (chunk != arb_ctx.cfg.chunk_size)
        arb_info("landing slots shrunk to %zu bytes to fit %d ranks in the segment", chunk, P);

    t = calloc(1, sizeof(*t));
    if (!t) return ARBOR_ERR_NO_MEMORY;
    t->rank = arb_ctx.rank;
    t->size = P;
    t->chunk = chunk;
    t->depth = depth;
    t->region = arb_ctx.seg_used;
    t->world = calloc((size_t)P, sizeof(*t->world));
    t->peer_region = calloc((size_t)P, sizeof(*t->peer_region));
    t->rkey = calloc((size_t)P, sizeof(*t->rkey));
    t->out = calloc((size_t)P, sizeof(*t->out));
    t->in = calloc((size_t)P, sizeof(*t->in));
    if (!t->world || !t->peer_region || !t->rkey || !t->out || !t->in ||
        arb_sched_cache_init(&t->cache, (size_t)arb_ctx.cfg.tree_cache_entries)) {
        arb_team_destroy(t);
        return ARBOR_ERR_NO_MEMORY;
    }
    arb_ctx.seg_used += (region_bytes(P, depth, chunk) + 4095) & ~(size_t)4095;
    /* No memset: the transport zero-fills the segment at open, and a peer that finished init
     * first may already have written into our region. */
    t->local = arb_ctx.seg + t->region;
    for (int r = 0; r < P; r++) {
        t->world[r] = r;
        t->rkey[r] = arb_ctx.tp_ops->seg_rkey(arb_ctx.tp, r);
        uint8_t *base = arb_ctx.cfg.direct ? arb_ctx.tp_ops->peer_ptr(arb_ctx.tp, r) : NULL;
        t->peer_region[r] = base ? base + t->region : NULL;
    }
    *team_p = t;
    return ARBOR_OK;
}

void arb_team_destroy(struct arbor_team *t)
{
    if (!t) return;
    if (t->cache.buckets) arb_sched_cache_destroy(&t->cache);
    free(t->world);
    free(t->peer_region);
    free(t->rkey);
    free(t->out);
    free(t->in);
    free(t);
}

struct arbor_team *arb_team_lookup(arbor_team_h h)
{
    if (!arb_initialized()) return NULL;
    return h == ARBOR_TEAM_WORLD ? arb_ctx.world : NULL;
}

arbor_status_t arbor_team_rank(arbor_team_h team, int *rank_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    struct arbor_team *t = arb_team_lookup(team);
    if (!t) return ARBOR_ERR_TEAM;
    if (!rank_p) return ARBOR_ERR_INVALID_ARG;
    *rank_p = t->rank;
    return ARBOR_OK;
}

arbor_status_t arbor_team_size(arbor_team_h team, int *size_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    struct arbor_team *t = arb_team_lookup(team);
    if (!t) return ARBOR_ERR_TEAM;
    if (!size_p) return ARBOR_ERR_INVALID_ARG;
    *size_p = t->size;
    return ARBOR_OK;
}
