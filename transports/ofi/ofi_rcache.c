/*
 * libfabric backend: a registration cache for local buffers of large transfers where the
 * provider needs local registration (FI_MR_LOCAL), in the spirit of UCX's rcache. Without it
 * a buffer outside the segment and every mem_reg'd region is copied through 64 KiB staging
 * slots (ofi_post.c); with it, a transfer of ARB_OFI_RC_MIN bytes or more registers the
 * page-rounded span of its buffer once and later transfers from or into it use that
 * registration directly.
 *
 * Bounds: ARB_OFI_RC_ENTRIES entries and arb_tp_params_t.reg_cache_bytes bytes
 * (ARBOR_REG_CACHE, 0 = off, the default). On a miss idle entries are evicted least recently
 * used first; when busy entries hold the room the transfer is staged instead.
 *
 * Invalidation: an entry goes when it is evicted, when a mem_reg'd region overlapping it is
 * deregistered (arbor_mem_deregister), and at close; one in use by chunks in flight is marked
 * dead and unregistered when its last chunk completes. There are no memory hooks: when the
 * user frees a buffer behind an entry and the address range is reused, the entry stays and
 * describes the new memory by its virtual addresses. Providers that resolve addresses at
 * transfer time (shm through CMA, tcp, sockets: every provider here) then move the right
 * bytes; a provider that pins physical pages at registration would move the old pages. UCX
 * catches this with hooks on munmap / free, libfabric's own cache with its memory monitors
 * (FI_MR_CACHE_MONITOR); arbor does neither, which is why the cache is off unless asked for.
 */
#include "transports/ofi/ofi.h"

#include "util/log.h"

#include <stdlib.h>
#include <unistd.h>

static uintptr_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (uintptr_t)p : 4096;
}

static bool entry_covers(const arb_ofi_rc_entry_t *e, const char *addr, size_t n)
{
    return e->mr != NULL && !e->dead && addr >= e->mr->addr && n <= e->mr->len &&
           (size_t)(addr - e->mr->addr) <= e->mr->len - n;
}

static void entry_drop(arb_tp_t *tp, arb_ofi_rc_entry_t *e)
{
    tp->rc.bytes -= e->mr->len;
    arb_ofi_unreg(e->mr);
    free(e->mr);
    e->mr = NULL;
    e->dead = false;
    e->busy = 0;
}

/* Evicts idle entries, oldest first, until len more bytes and one more entry fit. */
static arb_ofi_rc_entry_t *make_room(arb_tp_t *tp, size_t len)
{
    for (;;) {
        arb_ofi_rc_entry_t *free_e = NULL, *oldest = NULL;
        for (int i = 0; i < ARB_OFI_RC_ENTRIES; i++) {
            arb_ofi_rc_entry_t *e = &tp->rc.e[i];
            if (e->mr == NULL) {
                if (free_e == NULL) free_e = e;
            } else if (e->busy == 0 && (oldest == NULL || e->used < oldest->used)) {
                oldest = e;
            }
        }
        if (free_e != NULL && tp->rc.bytes + len <= tp->rc.limit) return free_e;
        if (oldest == NULL) return NULL; /* the rest is in use: stage this one */
        entry_drop(tp, oldest);
        tp->rc.evictions++;
    }
}

bool arb_ofi_rc_desc(arb_tp_t *tp, const char *rbuf, size_t rlen, const char *addr, size_t n,
                     void **desc_p, arb_ofi_rc_entry_t **ent_p)
{
    if (tp->rc.limit == 0 || rlen < ARB_OFI_RC_MIN) return false;
    arb_ofi_rc_entry_t *e = NULL;
    for (int i = 0; i < ARB_OFI_RC_ENTRIES && e == NULL; i++)
        if (entry_covers(&tp->rc.e[i], addr, n)) e = &tp->rc.e[i];
    if (e != NULL) {
        tp->rc.hits++;
    } else {
        uintptr_t pg = page_size(), lo = (uintptr_t)rbuf & ~(pg - 1);
        uintptr_t hi = ((uintptr_t)rbuf + rlen + pg - 1) & ~(pg - 1);
        size_t len = (size_t)(hi - lo);
        if (len > tp->rc.limit || (e = make_room(tp, len)) == NULL) return false;
        arb_tp_mr_t *mr = calloc(1, sizeof(*mr));
        if (mr == NULL) return false;
        if (arb_ofi_reg(tp, (void *)lo, len, FI_READ | FI_WRITE, mr) != ARBOR_OK) {
            free(mr); /* logged; the transfer is staged */
            return false;
        }
        e->mr = mr;
        e->busy = 0;
        e->dead = false;
        tp->rc.bytes += len;
        tp->rc.misses++;
    }
    e->busy++;
    e->used = ++tp->rc.clock;
    *desc_p = e->mr->desc;
    *ent_p = e;
    return true;
}

void arb_ofi_rc_release(arb_tp_t *tp, arb_ofi_rc_entry_t *e)
{
    if (e->busy > 0) e->busy--;
    if (e->busy == 0 && e->dead) entry_drop(tp, e);
}

void arb_ofi_rc_invalidate(arb_tp_t *tp, const char *addr, size_t len)
{
    for (int i = 0; i < ARB_OFI_RC_ENTRIES; i++) {
        arb_ofi_rc_entry_t *e = &tp->rc.e[i];
        if (e->mr == NULL || e->mr->addr >= addr + len || e->mr->addr + e->mr->len <= addr)
            continue;
        if (e->busy)
            e->dead = true;
        else
            entry_drop(tp, e);
    }
}

void arb_ofi_rc_fini(arb_tp_t *tp)
{
    if (tp->rc.hits + tp->rc.misses)
        arb_debug("%s: registration cache: %llu hits, %llu misses, %llu evictions", tp->describe,
                  (unsigned long long)tp->rc.hits, (unsigned long long)tp->rc.misses,
                  (unsigned long long)tp->rc.evictions);
    for (int i = 0; i < ARB_OFI_RC_ENTRIES; i++)
        if (tp->rc.e[i].mr != NULL) entry_drop(tp, &tp->rc.e[i]);
}

void arb_ofi_rc_stats(arb_tp_t *tp, uint64_t out[4])
{
    uint64_t live = 0;
    for (int i = 0; i < ARB_OFI_RC_ENTRIES; i++) live += tp->rc.e[i].mr != NULL;
    out[0] = tp->rc.hits;
    out[1] = tp->rc.misses;
    out[2] = tp->rc.evictions;
    out[3] = live;
}
