/*
 * Teams: membership, the link lines taken from every member's symmetric heap, the channel blocks
 * opened on first use (team.h), and the per-peer paths (mapped pointer or remote key). The
 * world's link region is the first block of every heap (same offset everywhere without
 * communication); a split team's is a collective heap allocation over the parent
 * (rma/mem.c). Both, and every channel block, return to the heap when the team is freed.
 */
#include "group/team.h"
#include "group/share.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "runtime/flush.h"
#include "util/log.h"
#include "coll/offload.h"
#include "coll/coll_req.h"
#include "group/symmetric.h"
#include "rma/rma.h"
#include "coll/channel.h"
#include "coll/team_fail.h"
#include "coll/coll_verdict.h"
#include "runtime/lock.h"

/* The worst case of one rank's landing memory: a channel from every other member (alltoall). */
static size_t worst_bytes(int size, int depth, size_t chunk)
{
    return arb_team_region_bytes(size) +
           (size_t)(size > 1 ? size - 1 : 0) * arb_chan_bytes(depth, chunk);
}

/* The members' nodes, renumbered in order of first appearance in the team. */
static arbor_status_t team_topology(struct arbor_team *t, const int *world)
{
    int P = t->size, nn = arb_ctx.nnodes > 0 ? arb_ctx.nnodes : 1;
    int *map = malloc((size_t)nn * sizeof(int));
    t->node = calloc((size_t)P, sizeof(int));
    if (!map || !t->node) {
        free(map);
        return ARBOR_ERR_NO_MEMORY;
    }
    for (int n = 0; n < nn; n++) map[n] = -1;
    t->topo.nnodes = 0;
    for (int r = 0; r < P; r++) {
        int wn = arb_ctx.node_of ? arb_ctx.node_of[world[r]] : 0;
        if (map[wn] < 0) map[wn] = t->topo.nnodes++;
        t->node[r] = map[wn];
    }
    free(map);
    t->topo.node = t->node;
    t->topo.inter = arb_ctx.model_inter;
    return arb_share_team(t, world);
}

/* A team of P members (world ranks, in team order) at region, with this rank at index me. */
static arbor_status_t team_new(const int *world, int P, int me, uint64_t region, size_t chunk,
                               int depth, struct arbor_team **team_p)
{
    struct arbor_team *t = calloc(1, sizeof(*t));
    if (!t) return ARBOR_ERR_NO_MEMORY;
    t->rank = me;
    t->size = P;
    t->chunk = chunk;
    t->depth = depth;
    t->region = region;
    t->world = calloc((size_t)P, sizeof(*t->world));
    t->peer_seg = calloc((size_t)P, sizeof(*t->peer_seg));
    t->rkey = calloc((size_t)P, sizeof(*t->rkey));
    t->out = calloc((size_t)P, sizeof(*t->out));
    t->in = calloc((size_t)P, sizeof(*t->in));
    if (!t->world || !t->peer_seg || !t->rkey || !t->out || !t->in ||
        arb_sched_cache_init(&t->cache, (size_t)arb_ctx.cfg.tree_cache_entries)) {
        arb_team_destroy(t);
        return ARBOR_ERR_NO_MEMORY;
    }
    /* No memset: the heap keeps free space zero-filled (the segment starts zeroed and freed
     * blocks are cleared), and a member that got here first may already have written into
     * ours. */
    t->local = arb_ctx.seg + t->region;
    if (team_topology(t, world) != ARBOR_OK) {
        arb_team_destroy(t);
        return ARBOR_ERR_NO_MEMORY;
    }
    for (int r = 0; r < P; r++) {
        t->world[r] = world[r];
        t->rkey[r] = arb_ctx.tp_ops->seg_rkey(arb_ctx.tp, world[r]);
        t->peer_seg[r] = arb_peer_map(world[r]);
    }
    *team_p = t;
    return ARBOR_OK;
}

/* Slot size for P members when the largest free block is avail bytes; 0 when not even the link
 * lines and one channel fit. Channels open on first use, so only the worst case (a channel from
 * every member, as alltoall needs) is sized for: the slots shrink, never below 1 KiB, until it
 * fits in half of what is left; past that a rank that cannot open a channel fails that
 * collective with ARBOR_ERR_NO_MEMORY. */
static size_t fit_chunk(int P, uint64_t avail)
{
    size_t chunk = arb_ctx.cfg.chunk_size;
    int depth = arb_ctx.cfg.channel_depth;
    while (worst_bytes(P, depth, chunk) > avail / 2 && chunk > 1024) chunk /= 2;
    chunk &= ~(size_t)63;
    if (arb_team_region_bytes(P) + arb_chan_bytes(depth, chunk) > avail) {
        arb_error("segment of %zu bytes (largest free block %llu) too small for the link lines "
                  "of %d ranks and one channel of %d slots: raise ARBOR_SEGMENT_SIZE or lower "
                  "ARBOR_CHANNEL_DEPTH",
                  arb_ctx.seg_size, (unsigned long long)avail, P, depth);
        return 0;
    }
    if (chunk != arb_ctx.cfg.chunk_size)
        arb_info("landing slots shrunk to %zu bytes so that channels from all %d ranks fit in "
                 "the segment",
                 chunk, P);
    if (worst_bytes(P, depth, chunk) > avail)
        arb_info("channels from all %d ranks would not fit in the segment (%llu bytes free): a "
                 "collective that needs more fails with ARBOR_ERR_NO_MEMORY",
                 P, (unsigned long long)avail);
    return chunk;
}

/* Slots per channel for P members with slots of chunk bytes when the largest free block is avail
 * bytes: ARBOR_CHANNEL_DEPTH, doubled while the slots span less than ARBOR_CHANNEL_BYTES and
 * channels from every member still fit in a quarter of what is free. Why: a slot is reused every
 * depth chunks, and with 4 x 64 KiB its lines are still in the receiver's cache from the last
 * time it copied them out, so plain stores into it cross between the cores line by line (a 1 MiB
 * two-copy pipeline 5-20x one memcpy, bench/copybound) and only streaming stores (through DRAM,
 * 2.5x) avoid that; with 2 MiB of slots they have left that cache and plain stores run at 1.5x
 * (docs/PERFORMANCE.md, "The two-copy bound"). Every member computes the same from the same
 * avail, P and any_oversubscribed. */
static int fit_depth(int P, uint64_t avail, size_t chunk)
{
    int depth = arb_ctx.cfg.channel_depth;
    /* Where some node has more ranks than cores, to half as far: nothing streams there, and the
     * receiver, often next on the writer's core, finds a short channel's lines in that core's
     * cache (2 MiB of slots measured several times slower for large payloads there, 1 MiB
     * alike), while a sender that may run ahead of descheduled receivers by more calls sends
     * small messages back to back at 2-3x the rate of 4 slots (docs/PERFORMANCE.md, "The
     * two-copy bound"). Agreed by every rank (every rank saw every header). */
    size_t want =
        arb_ctx.any_oversubscribed ? arb_ctx.cfg.channel_bytes / 2 : arb_ctx.cfg.channel_bytes;
    while (want && chunk && (size_t)depth * chunk < want && depth <= 512 &&
           worst_bytes(P, depth * 2, chunk) <= avail / 4)
        depth *= 2;
    return depth;
}

arbor_status_t arb_team_create_world(struct arbor_team **team_p)
{
    int P = arb_ctx.size;
    uint64_t avail = arb_mem_largest_free();
    size_t chunk = fit_chunk(P, avail);
    int *world = malloc(sizeof(int) * (size_t)P);
    uint64_t region = 0;
    arbor_status_t status = chunk && world ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
    for (int r = 0; world && r < P; r++) world[r] = r;
    if (status == ARBOR_OK) status = arb_mem_take_local(arb_team_region_bytes(P), &region);
    if (status == ARBOR_OK)
        status =
            team_new(world, P, arb_ctx.rank, region, chunk, fit_depth(P, avail, chunk), team_p);
    free(world);
    if (status != ARBOR_OK) return status;
    (*team_p)->handle = ARBOR_TEAM_WORLD;
    (*team_p)->id = 1;
    arb_ctx.all_mapped = true;
    for (int r = 0; r < P; r++) arb_ctx.all_mapped &= (*team_p)->peer_seg[r] != NULL;
    return ARBOR_OK;
}

void arb_team_destroy(struct arbor_team *t)
{
    if (!t) return;
    arb_offload_team_fini(t);
    /* A failed team keeps its landing memory out of the heap: a late message may land there. */
    if (t->failed == ARBOR_OK) arb_team_close_channels(t);
    if (t->region_mem) arb_mem_free_team(t->region_mem, false); /* the caller synchronised */
    if (t->cache.buckets) arb_sched_cache_destroy(&t->cache);
    if (t->verdict_todo_n) arb_verdict_keep_unsent(t);
    free(t->world);
    free(t->node);
    free(t->shared);
    free(t->peer_seg);
    free(t->rkey);
    free(t->out);
    free(t->in);
    free(t->verdict_todo);
    free(t);
}

/* Teams other than the world live in a table; a handle encodes (slot, generation) so a freed
 * team's handle is recognised rather than followed. */
struct arb_team_slot {
    struct arbor_team *t;
    uint32_t gen;
};

static arbor_status_t register_team(struct arbor_team *t)
{
    uint32_t i = 0;
    while (i < arb_ctx.nteam_slots && arb_ctx.team_slots[i].t) i++;
    if (i == arb_ctx.nteam_slots) {
        uint32_t n = arb_ctx.nteam_slots ? 2 * arb_ctx.nteam_slots : 16;
        arb_team_slot_t *ns = realloc(arb_ctx.team_slots, n * sizeof(*ns));
        if (!ns) return ARBOR_ERR_NO_MEMORY;
        for (uint32_t j = arb_ctx.nteam_slots; j < n; j++) ns[j] = (arb_team_slot_t){NULL, 0};
        arb_ctx.team_slots = ns;
        arb_ctx.nteam_slots = n;
    }
    arb_ctx.team_slots[i].t = t;
    /* Generation 0 is skipped: slot 0 at generation 0 would encode as 1, ARBOR_TEAM_WORLD. */
    if (++arb_ctx.team_slots[i].gen == 0) arb_ctx.team_slots[i].gen = 1;
    t->handle =
        (arbor_team_h)(uintptr_t)(((uint64_t)arb_ctx.team_slots[i].gen << 32) | (uint64_t)(i + 1));
    return ARBOR_OK;
}

static arb_team_slot_t *team_slot(arbor_team_h h)
{
    uint64_t v = (uint64_t)(uintptr_t)h;
    uint32_t idx = (uint32_t)(v & 0xffffffffu), gen = (uint32_t)(v >> 32);
    if (idx == 0 || idx > arb_ctx.nteam_slots) return NULL;
    return arb_ctx.team_slots[idx - 1].t && arb_ctx.team_slots[idx - 1].gen == gen
               ? &arb_ctx.team_slots[idx - 1]
               : NULL;
}

void arb_team_destroy_all(void)
{
    for (uint32_t i = 0; i < arb_ctx.nteam_slots; i++) arb_team_destroy(arb_ctx.team_slots[i].t);
    free(arb_ctx.team_slots);
    arb_ctx.team_slots = NULL;
    arb_ctx.nteam_slots = 0;
}

typedef struct {
    int32_t color, key;
    uint64_t largest; /* largest free block of the member's heap */
} split_info_t;

static int by_key(const void *a, const void *b, void *arg)
{
    const split_info_t *info = arg;
    int x = *(const int *)a, y = *(const int *)b;
    if (info[x].key != info[y].key) return info[x].key < info[y].key ? -1 : 1;
    return x < y ? -1 : x > y;
}

static arbor_status_t arbor_team_split_unlocked(arbor_team_h parent, int color, int key,
                                                arbor_team_h *team_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    struct arbor_team *p = arb_team_lookup(parent);
    if (!p) return ARBOR_ERR_TEAM;
    if (!team_p) return ARBOR_ERR_INVALID_ARG;

    int P = p->size, n = 0, me = -1;
    split_info_t mine = {
        .color = color < 0 ? -1 : color, .key = key, .largest = arb_mem_largest_free()};
    split_info_t *all = malloc(sizeof(*all) * (size_t)P);
    int *members = malloc(sizeof(int) * (size_t)P), *world = malloc(sizeof(int) * (size_t)P);
    arbor_status_t status = all && members && world ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
    /* Every member learns every (color, key) and how much room everyone has; the exchange is a
     * collective of the parent, so the split synchronises. (A failed malloc on one rank would
     * leave the others waiting: the same as every collective's bookkeeping today.) */
    if (status == ARBOR_OK)
        status = arb_coll_allgather_internal(p, &mine, all, sizeof(mine), ARBOR_BYTE);
    if (status != ARBOR_OK) goto out;
    size_t chunk = 0;
    uint64_t avail = UINT64_MAX;
    if (color >= 0) {
        for (int r = 0; r < P; r++) {
            if (all[r].color != mine.color) continue;
            members[n++] = r;
            if (all[r].largest < avail) avail = all[r].largest;
        }
        qsort_r(members, (size_t)n, sizeof(int), by_key, all);
        for (int i = 0; i < n; i++) {
            world[i] = p->world[members[i]];
            if (members[i] == p->rank) me = i;
        }
        /* Every member of the new team computes the same slot size. */
        chunk = fit_chunk(n, avail);
    }
    /* The region: one allocation over the parent (members of other colors take their own
     * teams' regions in the same call, non-members nothing), so every member of the new team
     * finds it at the same offset. A member without room (chunk 0) asks for the impossible:
     * every rank of the parent then gets ARBOR_ERR_NO_MEMORY. */
    size_t need = color < 0 ? 0 : chunk ? arb_team_region_bytes(n) : SIZE_MAX;
    struct arbor_mem *m = NULL;
    status = arb_mem_alloc_team(p, need, true, &m);
    if (status == ARBOR_OK && color >= 0) {
        struct arbor_team *t = NULL;
        status = team_new(world, n, me, m->off, chunk, fit_depth(n, avail, chunk), &t);
        if (status == ARBOR_OK) {
            t->id = arb_team_child_id(p, color);
            t->region_mem = m;
            m = NULL;
            /* The members create the team in the same order: its provider group joins here
             * (every member of the new team takes part, or none on this transport). */
            if ((status = arb_offload_team_init(t)) != ARBOR_OK ||
                (status = register_team(t)) != ARBOR_OK)
                arb_team_destroy(t);
        }
        if (status == ARBOR_OK) *team_p = t->handle;
    } else if (status == ARBOR_OK) {
        *team_p = ARBOR_TEAM_NULL;
    }
    if (m) arb_mem_free_team(m, false); /* nobody else can have touched it yet */
out:
    free(all);
    free(members);
    free(world);
    return status;
}

static arbor_status_t arbor_team_free_unlocked(arbor_team_h *team_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (!team_p) return ARBOR_ERR_INVALID_ARG;
    arb_team_slot_t *s = *team_p == ARBOR_TEAM_WORLD ? NULL : team_slot(*team_p);
    if (!s) return ARBOR_ERR_TEAM;
    /* The barriers below let go of the engine lock while they wait: another thread may grow
     * the slot table meanwhile, so s is looked up again afterwards. */
    struct arbor_team *t = s->t;
    if (arb_coll_team_busy(t) || arb_mem_team_busy(t)) return ARBOR_ERR_BUSY;
    if (t->failed != ARBOR_OK) {
        /* A failed team frees locally: its members may be gone or out of step. Its region and
         * channel blocks stay out of the heap, since a late message may still land there. */
        t->region_mem = NULL;
    } else {
        /* The region goes back to the heap, so nothing may land in it afterwards: a barrier
         * (every member is done with the team's collectives), a flush of the members (the
         * credits we returned, and any write still in flight to them, have landed; what is in
         * flight to other ranks cannot land in this team's region, and a rank outside the team
         * that is gone or idle must not hold the free), and a closing barrier that returns no
         * credits; every message of that one was observed by its receiver before the receiver
         * left it. */
        arbor_status_t status = arb_coll_barrier_internal(t);
        if (status == ARBOR_OK) status = arb_flush_peers(t->world, t->size, "team free");
        if (status != ARBOR_OK && t->failed != ARBOR_OK) {
            /* The barrier learnt that the team failed (a member refused or cancelled an
             * earlier call): freed locally as above. */
            s = team_slot(*team_p);
            t->region_mem = NULL;
            arb_team_destroy(t);
            s->t = NULL;
            *team_p = ARBOR_TEAM_NULL;
            return ARBOR_OK;
        }
        if (status != ARBOR_OK) return status;
        t->closing = true;
        status = arb_coll_barrier_internal(t);
        if (status != ARBOR_OK) {
            t->closing = false;
            return status;
        }
        s = team_slot(*team_p);
    }
    arb_team_destroy(t);
    s->t = NULL;
    *team_p = ARBOR_TEAM_NULL;
    return ARBOR_OK;
}

struct arbor_team *arb_team_lookup(arbor_team_h h)
{
    if (!arb_initialized()) return NULL;
    if (h == ARBOR_TEAM_WORLD) return arb_ctx.world;
    arb_team_slot_t *s = team_slot(h);
    return s ? s->t : NULL;
}

struct arbor_team *arb_team_by_id(uint64_t id)
{
    if (!arb_initialized()) return NULL;
    if (arb_ctx.world && arb_ctx.world->id == id) return arb_ctx.world;
    for (uint32_t i = 0; i < arb_ctx.nteam_slots; i++)
        if (arb_ctx.team_slots[i].t && arb_ctx.team_slots[i].t->id == id)
            return arb_ctx.team_slots[i].t;
    return NULL;
}

arbor_status_t arbor_team_rank(arbor_team_h team, int *rank_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    ARB_ENTER(); /* another thread may be growing the team table */
    struct arbor_team *t = arb_team_lookup(team);
    arbor_status_t status = !t ? ARBOR_ERR_TEAM : !rank_p ? ARBOR_ERR_INVALID_ARG : ARBOR_OK;
    if (status == ARBOR_OK) *rank_p = t->rank;
    arb_unlock();
    return status;
}

arbor_status_t arbor_team_size(arbor_team_h team, int *size_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    ARB_ENTER(); /* another thread may be growing the team table */
    struct arbor_team *t = arb_team_lookup(team);
    arbor_status_t status = !t ? ARBOR_ERR_TEAM : !size_p ? ARBOR_ERR_INVALID_ARG : ARBOR_OK;
    if (status == ARBOR_OK) *size_p = t->size;
    arb_unlock();
    return status;
}

arbor_status_t arbor_team_landing_bytes(arbor_team_h team, size_t *bytes_p, int *channels_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    ARB_ENTER();
    struct arbor_team *t = arb_team_lookup(team);
    arbor_status_t status = !t                        ? ARBOR_ERR_TEAM
                            : !bytes_p || !channels_p ? ARBOR_ERR_INVALID_ARG
                                                      : ARBOR_OK;
    if (status == ARBOR_OK) {
        *bytes_p = arb_team_landing_bytes(t);
        *channels_p = t->open_in;
    }
    arb_unlock();
    return status;
}

arbor_status_t arb_team_split_internal(arbor_team_h parent, int color, int key,
                                       arbor_team_h *team_p)
{
    return arbor_team_split_unlocked(parent, color, key, team_p);
}

arbor_status_t arb_team_free_internal(arbor_team_h *team_p)
{
    return arbor_team_free_unlocked(team_p);
}

/* Entry points: with the engine lock on (docs/THREADS.md), one caller at a time. */
arbor_status_t arbor_team_split(arbor_team_h parent, int color, int key, arbor_team_h *team_p)
{
    ARB_ENTER();
    arbor_status_t status = arbor_team_split_unlocked(parent, color, key, team_p);
    arb_unlock();
    return status;
}

arbor_status_t arbor_team_free(arbor_team_h *team_p)
{
    ARB_ENTER();
    arbor_status_t status = arbor_team_free_unlocked(team_p);
    arb_unlock();
    return status;
}

/* ---- layouts: strided, explicit list, 2-D; translation -------------------------------------- */

/* The layouts are splits of the parent with a colour and key computed from the common
 * arguments, so a bad argument fails on every member alike and nobody waits alone. */
arbor_status_t arbor_team_split_strided(arbor_team_h parent, int start, int stride, int size,
                                        arbor_team_h *team_p)
{
    if (!team_p) return ARBOR_ERR_INVALID_ARG;
    *team_p = ARBOR_TEAM_NULL;
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    ARB_ENTER();
    struct arbor_team *p = arb_team_lookup(parent);
    arbor_status_t status = !p ? ARBOR_ERR_TEAM : size < 1 ? ARBOR_ERR_COUNT : ARBOR_OK;
    int64_t last = (int64_t)start + (int64_t)(size - 1) * stride;
    if (status == ARBOR_OK &&
        (start < 0 || start >= p->size || last < 0 || last >= p->size || (stride == 0 && size > 1)))
        status = ARBOR_ERR_RANK;
    if (status == ARBOR_OK) {
        int64_t d = (int64_t)p->rank - start;
        int key = -1;
        if (stride == 0)
            key = d == 0 ? 0 : -1;
        else if (d % stride == 0 && d / stride >= 0 && d / stride < size)
            key = (int)(d / stride);
        status = arbor_team_split_unlocked(parent, key >= 0 ? 0 : -1, key, team_p);
    }
    arb_unlock();
    return status;
}

arbor_status_t arbor_team_from_ranks(arbor_team_h parent, int n, const int ranks[],
                                     arbor_team_h *team_p)
{
    if (!team_p) return ARBOR_ERR_INVALID_ARG;
    *team_p = ARBOR_TEAM_NULL;
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    ARB_ENTER();
    struct arbor_team *p = arb_team_lookup(parent);
    arbor_status_t status = !p       ? ARBOR_ERR_TEAM
                            : n < 1  ? ARBOR_ERR_COUNT
                            : !ranks ? ARBOR_ERR_BUFFER
                                     : ARBOR_OK;
    uint8_t *seen = status == ARBOR_OK ? calloc((size_t)p->size, 1) : NULL;
    if (status == ARBOR_OK && !seen) status = ARBOR_ERR_NO_MEMORY;
    int key = -1;
    for (int i = 0; status == ARBOR_OK && i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= p->size || seen[ranks[i]]++) status = ARBOR_ERR_RANK;
        if (status == ARBOR_OK && ranks[i] == p->rank) key = i;
    }
    free(seen);
    if (status == ARBOR_OK)
        status = arbor_team_split_unlocked(parent, key >= 0 ? 0 : -1, key, team_p);
    arb_unlock();
    return status;
}

arbor_status_t arbor_team_split_2d(arbor_team_h parent, int xrange, arbor_team_h *xteam_p,
                                   arbor_team_h *yteam_p)
{
    if (xteam_p) *xteam_p = ARBOR_TEAM_NULL;
    if (yteam_p) *yteam_p = ARBOR_TEAM_NULL;
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    ARB_ENTER();
    struct arbor_team *p = arb_team_lookup(parent);
    arbor_status_t status = !p ? ARBOR_ERR_TEAM : xrange < 1 ? ARBOR_ERR_COUNT : ARBOR_OK;
    if (status == ARBOR_OK) {
        int x = xrange < p->size ? xrange : p->size, r = p->rank;
        if (xteam_p) status = arbor_team_split_unlocked(parent, r / x, r % x, xteam_p);
        if (status == ARBOR_OK && yteam_p)
            status = arbor_team_split_unlocked(parent, r % x, r / x, yteam_p);
    }
    arb_unlock();
    return status;
}

arbor_status_t arbor_team_translate(arbor_team_h src_team, int src_rank, arbor_team_h dst_team,
                                    int *dst_rank_p)
{
    if (!dst_rank_p) return ARBOR_ERR_INVALID_ARG;
    *dst_rank_p = -1;
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    ARB_ENTER();
    struct arbor_team *s = arb_team_lookup(src_team), *d = arb_team_lookup(dst_team);
    arbor_status_t status = !s || !d                              ? ARBOR_ERR_TEAM
                            : src_rank < 0 || src_rank >= s->size ? ARBOR_ERR_RANK
                                                                  : ARBOR_OK;
    if (status == ARBOR_OK) {
        int w = s->world[src_rank];
        for (int i = 0; i < d->size; i++)
            if (d->world[i] == w) {
                *dst_rank_p = i;
                break;
            }
    }
    arb_unlock();
    return status;
}

arbor_status_t arbor_team_world_rank(arbor_team_h team, int rank, int *world_rank_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    ARB_ENTER();
    struct arbor_team *t = arb_team_lookup(team);
    arbor_status_t status = !t                            ? ARBOR_ERR_TEAM
                            : !world_rank_p               ? ARBOR_ERR_INVALID_ARG
                            : rank < 0 || rank >= t->size ? ARBOR_ERR_RANK
                                                          : ARBOR_OK;
    if (status == ARBOR_OK) *world_rank_p = t->world[rank];
    arb_unlock();
    return status;
}
