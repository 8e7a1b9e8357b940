/*
 * Symmetric allocation over a team: the collective common-offset search (util/heap.h) and the
 * synchronised free. The public arbor_mem_alloc / arbor_mem_free resolve their handles in
 * api/mem_api.c; the table of live allocations and the handles are the one-sided layer's
 * (rma/mem.c).
 *
 * Zero fill. The heap keeps its free space zero-filled: the segment starts zeroed (the
 * transports clear it at open) and a block is cleared when it is returned, after the free's
 * synchronisation. An allocation is then zero without a memset at allocation time, which
 * matters: the first member to finish the search may write into a peer's new block before
 * that peer has finished it, so a clear at allocation would need one more barrier.
 */
#include "group/symmetric.h"
#include "group/outside.h"

#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "rma/rma.h"
#include "runtime/context.h"
#include "util/log.h"

static const int *sort_world;
static int by_world_rank(const void *a, const void *b)
{
    int x = sort_world[*(const int *)a], y = sort_world[*(const int *)b];
    return (x > y) - (x < y);
}

static arbor_status_t alloc_team(struct arbor_team *t, size_t nbytes, bool internal,
                                 struct arbor_mem **mem_p);

/* Symmetric allocations agree on an offset of this rank's one heap in rounds of collectives,
 * which let go of the engine lock while they wait: two threads allocating at once would
 * interleave their searches differently on different ranks. The second is refused. */
arbor_status_t arb_mem_alloc_team(struct arbor_team *t, size_t nbytes, bool internal,
                                  struct arbor_mem **mem_p)
{
    if (arb_ctx.heap_busy) {
        arb_error("a symmetric allocation (arbor_mem_alloc or arbor_team_split) while another "
                  "thread's runs: the application must order them (docs/THREADS.md)");
        return ARBOR_ERR_BUSY;
    }
    arb_ctx.heap_busy = true;
    arbor_status_t status = alloc_team(t, nbytes, internal, mem_p);
    arb_ctx.heap_busy = false;
    return status;
}

/* The search (heap.h): the first round rides on the allgather of every member's size, and so
 * does the atomics rule of a user allocation: CPU atomics when every member maps every other
 * member (arb_rma_maps_all; each says so, and all must). */
static arbor_status_t alloc_team(struct arbor_team *t, size_t nbytes, bool internal,
                                 struct arbor_mem **mem_p)
{
    enum { W = 4 }; /* words per member: size, the search's first round (2), CPU atomics */
    int n = t->size;
    struct arbor_mem *m = calloc(1, sizeof(*m));
    uint64_t *all = malloc(sizeof(uint64_t) * W * (size_t)n);
    if (m) {
        m->size = calloc((size_t)n, sizeof(*m->size));
        m->world = calloc((size_t)n, sizeof(*m->world));
        m->by_world = calloc((size_t)n, sizeof(*m->by_world));
    }
    bool ok = m && all && m->size && m->world && m->by_world;
    /* A rank that cannot even hold the bookkeeping asks for the impossible, so that every
     * member fails alike. */
    uint64_t want = ok ? (uint64_t)nbytes : UINT64_MAX, c = 0, v[W];
    v[0] = want;
    arb_heap_search_round(&arb_ctx.heap, want, 0, v + 1);
    v[3] = !internal && arb_rma_maps_all(t->world, n);
    arbor_status_t status = ARBOR_ERR_NO_MEMORY;
    arbor_status_t cs =
        all ? arb_coll_allgather_internal(t, v, all, W, ARBOR_UINT64) : ARBOR_ERR_NO_MEMORY;
    if (cs != ARBOR_OK) {
        free(all);
        arb_mem_destroy(m);
        return cs;
    }
    uint64_t r[2] = {0, 0};
    bool cpu_atomics = true;
    for (int i = 0; i < n; i++) {
        if (all[W * i + 1] > r[0]) r[0] = all[W * i + 1];
        if (all[W * i + 2] > r[1]) r[1] = all[W * i + 2];
        cpu_atomics &= all[W * i + 3] == 1;
    }
    int rounds = 1;
    for (;;) {
        while (!arb_heap_search_done(r, &c, &status)) {
            uint64_t w[2];
            arb_heap_search_round(&arb_ctx.heap, want, c, w);
            if ((cs = arb_coll_allreduce_internal(t, w, r, 2, ARBOR_UINT64, ARBOR_MAX)) !=
                ARBOR_OK) {
                status = cs;
                break;
            }
            rounds++;
        }
        if (status != ARBOR_OK) break;
        /* Landing channels open on first use and take blocks of this rank's heap (coll/team.h):
         * the search's own collectives may have taken the agreed offset here after it was
         * computed. So every member takes, then all confirm; after a miss the search runs
         * again (the channels of its collectives are open by then, so it converges). */
        uint64_t took = arb_heap_take(&arb_ctx.heap, c, want) == ARBOR_OK, all_took = 0;
        cs = arb_coll_allreduce_internal(t, &took, &all_took, 1, ARBOR_UINT64, ARBOR_MIN);
        if (cs == ARBOR_OK && all_took) break;
        if (took) arb_heap_give(&arb_ctx.heap, c, want); /* untouched: still zero */
        if ((status = cs) != ARBOR_OK) break;
        arb_debug("heap: offset %llu taken meanwhile on some member (a landing channel): "
                  "searching again",
                  (unsigned long long)c);
        uint64_t w[2];
        arb_heap_search_round(&arb_ctx.heap, want, 0, w);
        if ((cs = arb_coll_allreduce_internal(t, w, r, 2, ARBOR_UINT64, ARBOR_MAX)) != ARBOR_OK) {
            status = cs;
            break;
        }
        rounds++;
    }
    if (status != ARBOR_OK) {
        if (status == ARBOR_ERR_NO_MEMORY && ok && arb_heap_round(want) != ARB_HEAP_NONE &&
            arb_heap_fit(&arb_ctx.heap, want, 0) == ARB_HEAP_NONE)
            arb_debug("heap: no room for %zu bytes here (largest free block %llu)", nbytes,
                      (unsigned long long)arb_heap_largest(&arb_ctx.heap));
        free(all);
        arb_mem_destroy(m);
        return status;
    }
    arb_debug("heap: %zu bytes at offset %llu after %d round(s)", nbytes, (unsigned long long)c,
              rounds);
    m->team = t;
    m->team_h = t->handle;
    m->off = c;
    m->mine = nbytes;
    m->n = n;
    m->internal = internal;
    m->passive = !internal;
    m->cpu_atomics = cpu_atomics;
    for (int i = 0; i < n; i++) {
        m->size[i] = (size_t)all[W * i];
        m->world[i] = t->world[i];
        m->by_world[i] = i;
    }
    sort_world = m->world;
    qsort(m->by_world, (size_t)n, sizeof(int), by_world_rank);
    free(all);
    if ((status = arb_mem_live_add(m)) != ARBOR_OK) {
        arb_heap_give(&arb_ctx.heap, c, want);
        arb_mem_destroy(m);
        return status;
    }
    *mem_p = m;
    return ARBOR_OK;
}

arbor_status_t arb_mem_free_team(struct arbor_mem *m, bool barrier)
{
    if (barrier) {
        arbor_status_t status = arb_coll_barrier_internal(m->team);
        if (status != ARBOR_OK) return status;
    }
    if (m->outside) {
        arb_mem_outside_free(m);
        return ARBOR_OK;
    }
    arb_mem_live_remove(m);
    arb_mem_give_local(m->off, m->mine);
    arb_mem_destroy(m);
    return ARBOR_OK;
}
