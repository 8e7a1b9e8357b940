/*
 * Symmetric allocations as the one-sided layer sees them: the table of live allocations that
 * remote addresses are checked against, the public handles, and the calls that need no team
 * (arbor_mem_addr, arbor_mem_usage). Allocating and freeing over a team, which run
 * collectives, are group/symmetric.c.
 *
 * Zero fill. The heap keeps its free space zero-filled: the segment starts zeroed (the
 * transports clear it at open) and a block is cleared when it is returned, after the free's
 * synchronisation. An allocation is then zero without a memset at allocation time, which
 * matters: the first member to finish the search may write into a peer's new block before
 * that peer has finished it, so a clear at allocation would need one more barrier.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime/context.h"
#include "runtime/lock.h"
#include "util/log.h"
#include "runtime/progress.h"
#include "rma/ctx_stream.h"
#include "rma/rma_impl.h"

/* Live allocations (internal and user), for address checks. */
static struct arbor_mem **live;
static size_t nlive, caplive;

/* The translation cache (rma_impl.h), one entry per world rank, allocated with the live table. */
arb_rma_xhit_t *arb_rma_xhits;
unsigned arb_rma_xgen = 1;

/* Public handles: (slot, generation), so a freed handle is recognised. */
typedef struct {
    struct arbor_mem *m;
    uint32_t gen;
} mslot_t;
static mslot_t *mslots;
static uint32_t nmslots;

void arb_mem_destroy(struct arbor_mem *m)
{
    if (!m) return;
    if (m->outside) {
        if (m->outside->map) munmap(m->outside->map, m->outside->map_len);
        free(m->outside->addr);
        free(m->outside->att);
        free(m->outside);
    }
    free(m->size);
    free(m->world);
    free(m->by_world);
    free(m);
}

arbor_status_t arb_mem_live_add(struct arbor_mem *m)
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

void arb_mem_live_remove(struct arbor_mem *m)
{
    for (size_t i = 0; i < nlive; i++)
        if (live[i] == m) {
            live[i] = live[--nlive];
            break;
        }
    for (int r = 0; arb_rma_xhits && r < arb_ctx.size; r++)
        if (arb_rma_xhits[r].m == m) arb_rma_xhits[r] = (arb_rma_xhit_t){0};
    /* Private contexts' copies (any allocation's: they do not record which) go stale; 0 is
     * skipped, it marks an empty copy. */
    if (__atomic_add_fetch(&arb_rma_xgen, 1, __ATOMIC_RELEASE) == 0)
        __atomic_store_n(&arb_rma_xgen, 1, __ATOMIC_RELEASE);
}

void arb_rma_ctx_learn(struct arbor_ctx *c, int w)
{
    const arb_rma_xhit_t *h = arb_rma_xhits ? &arb_rma_xhits[w] : NULL;
    if (!c || !c->pxhits || !h || !h->m) return;
    if (!h->mapped_user) { /* an unmapped target: the context's stream may reach it */
        arb_rma_ctx_stream_learn(c, w);
        return;
    }
    c->pxhits[w] = (struct arb_rma_pxhit){h->lo, h->hi, h->delta,
                                          __atomic_load_n(&arb_rma_xgen, __ATOMIC_RELAXED),
                                          arb_rma.cpu_atomics || h->m->cpu_atomics};
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

arbor_status_t arb_mem_handle_new(struct arbor_mem *m)
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

struct arbor_mem *arb_mem_of_handle(arbor_mem_h h)
{
    mslot_t *s = handle_slot(h);
    return s ? s->m : NULL;
}

void arb_mem_handle_drop(arbor_mem_h h)
{
    mslot_t *s = handle_slot(h);
    if (s) s->m = NULL;
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
        uint64_t at =
            m->outside ? m->outside->addr[rank] : arb_ctx.seg_bases[m->world[rank]] + m->off;
        if (addr_p) *addr_p = n ? (void *)(uintptr_t)at : NULL;
        if (nbytes_p) *nbytes_p = n;
    }
    arb_unlock();
    return status;
}

arbor_status_t arbor_mem_atomics(arbor_mem_h mem, arbor_atomics_t *kind_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (!kind_p) return ARBOR_ERR_INVALID_ARG;
    ARB_ENTER();
    mslot_t *s = handle_slot(mem);
    arbor_status_t status = s ? ARBOR_OK : ARBOR_ERR_HANDLE;
    /* Outside the heap, the registrations' mechanism: CPU only where every part is mapped by
     * every member (group/outside.c says so in cpu_atomics). */
    if (s)
        *kind_p = s->m->cpu_atomics || (arb_rma.cpu_atomics && !s->m->outside)
                      ? ARBOR_ATOMICS_CPU
                      : ARBOR_ATOMICS_TRANSPORT;
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

/* Registered user memory needs its owner's progress on every transport (UCX emulates RMA on
 * memory it did not allocate; OFI progress is manual): docs/ONESIDED.md. */
bool arb_rma_target_progress_needed(void)
{
    return arb_rma.target_progress || arb_reg_any_local();
}

void arb_rma_passive_check(void)
{
    if (!arb_rma_target_progress_needed() || arb_enter() != ARBOR_OK) return;
    bool start = !arb_ctx.threaded && arb_mem_any_live();
    arb_unlock();
    if (start && arb_progress_thread_start() == ARBOR_OK)
        arb_debug("progress thread started: this transport needs target-side progress for "
                  "one-sided operations");
}

/* Finalize: every allocation left goes (the heap goes with it). */
void arb_mem_cleanup(void)
{
    /* Outside allocations are not in the live table (their addresses are registrations'):
     * through the handles, before the live ones (handles of those) are freed. */
    for (uint32_t i = 0; i < nmslots; i++)
        if (mslots[i].m && mslots[i].m->outside) arb_mem_destroy(mslots[i].m);
    for (size_t i = 0; i < nlive; i++) arb_mem_destroy(live[i]);
    free(live);
    live = NULL;
    nlive = caplive = 0;
    free(arb_rma_xhits);
    arb_rma_xhits = NULL;
    free(mslots);
    mslots = NULL;
    nmslots = 0;
}
