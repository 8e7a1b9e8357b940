/*
 * Symmetric allocations: the collective common-offset search over a team (heap.h), the table of
 * live allocations that remote addresses are checked against, and the public arbor_mem_* calls.
 *
 * Zero fill. The heap keeps its free space zero-filled: the segment starts zeroed (the
 * transports clear it at open) and a block is cleared when it is returned, after the free's
 * synchronisation. An allocation is then zero without a memset at allocation time, which
 * matters: the first member to finish the search may write into a peer's new block before
 * that peer has finished it, so a clear at allocation would need one more barrier.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "runtime/context.h"
#include "util/log.h"
#include "rma/rma_impl.h"
#include "coll/team.h"
#include "group/team.h"

/* Live allocations (internal and user), for address checks. */
static struct arbor_mem **live;
static size_t nlive, caplive;

/* The translation cache (rma_impl.h), one entry per world rank, allocated with the live table. */
arb_rma_xhit_t *arb_rma_xhits;

/* Public handles: (slot, generation), so a freed handle is recognised. */
typedef struct {
    struct arbor_mem *m;
    uint32_t gen;
} mslot_t;
static mslot_t *mslots;
static uint32_t nmslots;

arbor_status_t arb_mem_take_local(uint64_t nbytes, uint64_t *off_p)
{
    uint64_t off = arb_heap_fit(&arb_ctx.heap, nbytes, 0);
    if (off == ARB_HEAP_NONE) return ARBOR_ERR_NO_MEMORY;
    arbor_status_t status = arb_heap_take(&arb_ctx.heap, off, nbytes);
    if (status == ARBOR_OK) *off_p = off;
    return status;
}

void arb_mem_give_local(uint64_t off, uint64_t nbytes)
{
    uint64_t len = arb_heap_round(nbytes);
    if (len == 0 || len == ARB_HEAP_NONE) return;
    memset(arb_ctx.seg + off, 0, len);
    if (arb_heap_give(&arb_ctx.heap, off, nbytes) != ARBOR_OK)
        arb_error("heap: returning [%llu, +%llu) failed (not taken?)", (unsigned long long)off,
                  (unsigned long long)len);
}

uint64_t arb_mem_largest_free(void)
{
    return arb_heap_largest(&arb_ctx.heap);
}

static void mem_destroy(struct arbor_mem *m)
{
    if (!m) return;
    free(m->size);
    free(m->world);
    free(m->by_world);
    free(m);
}

static arbor_status_t live_add(struct arbor_mem *m)
{
    if (!arb_rma_xhits && !(arb_rma_xhits = calloc((size_t)arb_ctx.size, sizeof(*arb_rma_xhits))))
        return ARBOR_ERR_NO_MEMORY;
    if (nlive == caplive) {
        size_t cap = caplive ? 2 * caplive : 16;
        struct arbor_mem **nl = realloc(live, cap * sizeof(*nl));
        if (!nl) return ARBOR_ERR_NO_MEMORY;
        live = nl;
        caplive = cap;
    }
    live[nlive++] = m;
    return ARBOR_OK;
}

static void live_remove(struct arbor_mem *m)
{
    for (size_t i = 0; i < nlive; i++)
        if (live[i] == m) {
            live[i] = live[--nlive];
            break;
        }
    for (int r = 0; arb_rma_xhits && r < arb_ctx.size; r++)
        if (arb_rma_xhits[r].m == m) arb_rma_xhits[r] = (arb_rma_xhit_t){0};
}

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

/* The search (heap.h): the first round rides on the allgather of every member's size. */
static arbor_status_t alloc_team(struct arbor_team *t, size_t nbytes, bool internal,
                                 struct arbor_mem **mem_p)
{
    int n = t->size;
    struct arbor_mem *m = calloc(1, sizeof(*m));
    uint64_t *all = malloc(sizeof(uint64_t) * 3 * (size_t)n);
    if (m) {
        m->size = calloc((size_t)n, sizeof(*m->size));
        m->world = calloc((size_t)n, sizeof(*m->world));
        m->by_world = calloc((size_t)n, sizeof(*m->by_world));
    }
    bool ok = m && all && m->size && m->world && m->by_world;
    /* A rank that cannot even hold the bookkeeping asks for the impossible, so that every
     * member fails alike. */
    uint64_t want = ok ? (uint64_t)nbytes : UINT64_MAX, c = 0, v[3];
    v[0] = want;
    arb_heap_search_round(&arb_ctx.heap, want, 0, v + 1);
    arbor_status_t status = ARBOR_ERR_NO_MEMORY;
    uint64_t mine_v[3] = {v[0], v[1], v[2]};
    arbor_status_t cs =
        all ? arb_coll_allgather_internal(t, mine_v, all, 3, ARBOR_UINT64) : ARBOR_ERR_NO_MEMORY;
    if (cs != ARBOR_OK) {
        free(all);
        mem_destroy(m);
        return cs;
    }
    uint64_t r[2] = {0, 0};
    for (int i = 0; i < n; i++) {
        if (all[3 * i + 1] > r[0]) r[0] = all[3 * i + 1];
        if (all[3 * i + 2] > r[1]) r[1] = all[3 * i + 2];
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
        mem_destroy(m);
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
    for (int i = 0; i < n; i++) {
        m->size[i] = (size_t)all[3 * i];
        m->world[i] = t->world[i];
        m->by_world[i] = i;
    }
    sort_world = m->world;
    qsort(m->by_world, (size_t)n, sizeof(int), by_world_rank);
    free(all);
    if ((status = live_add(m)) != ARBOR_OK) {
        arb_heap_give(&arb_ctx.heap, c, want);
        mem_destroy(m);
        return status;
    }
    *mem_p = m;
    return ARBOR_OK;
}

arbor_status_t arb_mem_free_team(struct arbor_mem *m, bool barrier)
{
    if (barrier) {
        struct arbor_team *t = arb_team_lookup(m->team_h);
        if (t != m->team) return ARBOR_ERR_TEAM;
        arbor_status_t status = arb_coll_barrier_internal(t);
        if (status != ARBOR_OK) return status;
    }
    live_remove(m);
    arb_mem_give_local(m->off, m->mine);
    mem_destroy(m);
    return ARBOR_OK;
}

bool arb_mem_team_busy(const struct arbor_team *t)
{
    for (size_t i = 0; i < nlive; i++)
        if (!live[i]->internal && live[i]->team == t) return true;
    return false;
}

bool arb_mem_any_live(void)
{
    if (arb_reg_any_local()) return true; /* peers reach registered memory through us */
    for (size_t i = 0; i < nlive; i++)
        if (live[i]->passive) return true;
    return false;
}

/* Bytes world rank r holds in m (0: not a member or nothing allocated there). */
static size_t size_at(const struct arbor_mem *m, int r)
{
    int lo = 0, hi = m->n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2, w = m->world[m->by_world[mid]];
        if (w == r) return m->size[m->by_world[mid]];
        if (w < r)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return 0;
}

static bool holds(const struct arbor_mem *m, int r, uint64_t off, size_t len, bool internal_ok)
{
    if (m->internal && !internal_ok) return false;
    if (off < m->off) return false;
    size_t s = size_at(m, r);
    uint64_t rel = off - m->off;
    return s > 0 && rel <= s && len <= s - rel;
}

arbor_status_t arb_rma_translate(int rank, const void *addr, size_t len, bool internal_ok,
                                 arb_rma_target_t *tgt)
{
    if (rank < 0 || rank >= arb_ctx.size) return ARBOR_ERR_RANK;
    uint64_t a = (uint64_t)(uintptr_t)addr, base = arb_ctx.seg_bases[rank];
    arb_rma_xhit_t *h = arb_rma_xhits ? &arb_rma_xhits[rank] : NULL;
    /* The cache (symmetric allocations only: their ranges lie in the segment). a <= hi and
     * len <= hi - a is holds() on the same range, without overflow. */
    if (h && h->m && (internal_ok || !h->m->internal) && a >= h->lo && a <= h->hi &&
        len <= h->hi - a) {
        uint64_t off = a - base;
        *tgt = (arb_rma_target_t){.rank = rank,
                                  .ptr = h->seg ? h->seg + off : NULL,
                                  .rkey = h->rkey,
                                  .off = off,
                                  .mem = h->m};
        return ARBOR_OK;
    }
    if (a < base || a - base >= arb_ctx.seg_size) /* outside the segment: a registration? */
        return arb_reg_translate(rank, a, len, tgt);
    uint64_t off = a - base;
    struct arbor_mem *m = NULL;
    for (size_t i = 0; i < nlive; i++)
        if (holds(live[i], rank, off, len, internal_ok)) {
            m = live[i];
            break;
        }
    if (!m) return ARBOR_ERR_ADDRESS;
    arb_rma_target_at(rank, off, tgt);
    tgt->mem = m;
    if (h) {
        uint8_t *seg = arb_rma_peer_seg(rank);
        h->m = m;
        h->lo = base + m->off;
        h->hi = h->lo + size_at(m, rank);
        h->rkey = tgt->rkey;
        h->seg = seg;
        h->mapped_user = seg && !m->internal;
        h->delta = (uint64_t)(uintptr_t)seg - base; /* wraps: a + delta = seg + (a - base) */
    }
    return ARBOR_OK;
}

/* ---- public calls ---------------------------------------------------------------------- */

static arbor_status_t handle_new(struct arbor_mem *m)
{
    uint32_t i = 0;
    while (i < nmslots && mslots[i].m) i++;
    if (i == nmslots) {
        uint32_t n = nmslots ? 2 * nmslots : 16;
        mslot_t *ns = realloc(mslots, n * sizeof(*ns));
        if (!ns) return ARBOR_ERR_NO_MEMORY;
        for (uint32_t j = nmslots; j < n; j++) ns[j] = (mslot_t){NULL, 0};
        mslots = ns;
        nmslots = n;
    }
    mslots[i].m = m;
    mslots[i].gen++;
    m->handle = (arbor_mem_h)(uintptr_t)(((uint64_t)mslots[i].gen << 32) | (uint64_t)(i + 1));
    return ARBOR_OK;
}

static mslot_t *handle_slot(arbor_mem_h h)
{
    uint64_t v = (uint64_t)(uintptr_t)h;
    uint32_t idx = (uint32_t)(v & 0xffffffffu), gen = (uint32_t)(v >> 32);
    if (idx == 0 || idx > nmslots) return NULL;
    return mslots[idx - 1].m && mslots[idx - 1].gen == gen ? &mslots[idx - 1] : NULL;
}

static arbor_status_t mem_alloc_unlocked(arbor_team_h team, size_t nbytes, arbor_mem_h *mem_p,
                                         void **local_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    struct arbor_team *t = arb_team_lookup(team);
    if (!t) return ARBOR_ERR_TEAM;
    if (!mem_p) return ARBOR_ERR_INVALID_ARG;
    struct arbor_mem *m;
    arbor_status_t status = arb_mem_alloc_team(t, nbytes, false, &m);
    if (status != ARBOR_OK) return status;
    if ((status = handle_new(m)) != ARBOR_OK) {
        /* Only this rank failed: keep the collective shape (the others hold it) and report. */
        arb_mem_free_team(m, false);
        return status;
    }
    *mem_p = m->handle;
    if (local_p) *local_p = nbytes ? arb_ctx.seg + m->off : NULL;
    return ARBOR_OK;
}

static arbor_status_t mem_free_unlocked(arbor_mem_h *mem_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (!mem_p) return ARBOR_ERR_INVALID_ARG;
    mslot_t *s = handle_slot(*mem_p);
    if (!s) return ARBOR_ERR_HANDLE;
    arbor_status_t status = arb_mem_free_team(s->m, true);
    if (status != ARBOR_OK) return status;
    s = handle_slot(*mem_p); /* the barrier let go of the lock: the table may have moved */
    s->m = NULL;
    *mem_p = NULL;
    return ARBOR_OK;
}

arbor_status_t arbor_mem_alloc(arbor_team_h team, size_t nbytes, arbor_mem_h *mem_p, void **local_p)
{
    ARB_ENTER();
    arbor_status_t status = mem_alloc_unlocked(team, nbytes, mem_p, local_p);
    arb_unlock();
    if (status == ARBOR_OK) arb_rma_passive_check();
    return status;
}

arbor_status_t arbor_mem_free(arbor_mem_h *mem_p)
{
    ARB_ENTER();
    arbor_status_t status = mem_free_unlocked(mem_p);
    arb_unlock();
    return status;
}

arbor_status_t arbor_mem_addr(arbor_mem_h mem, int rank, void **addr_p, size_t *nbytes_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    ARB_ENTER();
    mslot_t *s = handle_slot(mem);
    arbor_status_t status = !s                            ? ARBOR_ERR_HANDLE
                            : rank < 0 || rank >= s->m->n ? ARBOR_ERR_RANK
                                                          : ARBOR_OK;
    if (status == ARBOR_OK) {
        struct arbor_mem *m = s->m;
        size_t n = m->size[rank];
        if (addr_p)
            *addr_p = n ? (void *)(uintptr_t)(arb_ctx.seg_bases[m->world[rank]] + m->off) : NULL;
        if (nbytes_p) *nbytes_p = n;
    }
    arb_unlock();
    return status;
}

arbor_status_t arbor_mem_usage(size_t *used_p, size_t *free_p, size_t *largest_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    ARB_ENTER();
    if (used_p) *used_p = (size_t)arb_ctx.heap.used;
    if (free_p) *free_p = (size_t)(arb_ctx.heap.size - arb_ctx.heap.used);
    if (largest_p) *largest_p = (size_t)arb_heap_largest(&arb_ctx.heap);
    arb_unlock();
    return ARBOR_OK;
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

/* Finalize: every allocation left goes (the heap goes with it). */
void arb_mem_cleanup(void)
{
    for (size_t i = 0; i < nlive; i++) mem_destroy(live[i]);
    free(live);
    live = NULL;
    nlive = caplive = 0;
    free(arb_rma_xhits);
    arb_rma_xhits = NULL;
    free(mslots);
    mslots = NULL;
    nmslots = 0;
}
