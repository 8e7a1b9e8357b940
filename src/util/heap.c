/*
 * First-fit free list with coalescing (heap.h). Extents live in a sorted array: the heap holds
 * few of them (team regions and the allocations a runtime keeps), and a scan of an array is as
 * fast as any tree at that size.
 */
#include "util/heap.h"

#include <stdlib.h>
#include <string.h>

uint64_t arb_heap_round(uint64_t len)
{
    if (len > UINT64_MAX - (ARB_HEAP_ALIGN - 1)) return ARB_HEAP_NONE;
    return (len + ARB_HEAP_ALIGN - 1) & ~(uint64_t)(ARB_HEAP_ALIGN - 1);
}

arbor_status_t arb_heap_init(arb_heap_t *h, uint64_t size)
{
    memset(h, 0, sizeof(*h));
    h->size = size & ~(uint64_t)(ARB_HEAP_ALIGN - 1);
    h->cap = 16;
    if (!(h->ext = malloc(h->cap * sizeof(*h->ext)))) return ARBOR_ERR_NO_MEMORY;
    if (h->size) h->ext[h->n++] = (arb_heap_ext_t){0, h->size};
    return ARBOR_OK;
}

void arb_heap_fini(arb_heap_t *h)
{
    free(h->ext);
    memset(h, 0, sizeof(*h));
}

uint64_t arb_heap_fit(const arb_heap_t *h, uint64_t len, uint64_t from)
{
    uint64_t need = arb_heap_round(len), start = arb_heap_round(from);
    if (need == ARB_HEAP_NONE || start == ARB_HEAP_NONE) return ARB_HEAP_NONE;
    if (need == 0) return start <= h->size ? start : ARB_HEAP_NONE;
    for (size_t i = 0; i < h->n; i++) {
        uint64_t end = h->ext[i].off + h->ext[i].len;
        uint64_t c = h->ext[i].off > start ? h->ext[i].off : start;
        if (c < end && end - c >= need) return c;
    }
    return ARB_HEAP_NONE;
}

uint64_t arb_heap_fit_top(const arb_heap_t *h, uint64_t len)
{
    uint64_t need = arb_heap_round(len);
    if (need == ARB_HEAP_NONE) return ARB_HEAP_NONE;
    for (size_t i = h->n; i-- > 0;) {
        const arb_heap_ext_t *e = &h->ext[i];
        if (e->len >= need) return e->off + e->len - need; /* ends are aligned, so is this */
    }
    return need == 0 ? h->size : ARB_HEAP_NONE;
}

static arbor_status_t reserve(arb_heap_t *h, size_t n)
{
    if (n <= h->cap) return ARBOR_OK;
    size_t cap = h->cap * 2 > n ? h->cap * 2 : n;
    arb_heap_ext_t *e = realloc(h->ext, cap * sizeof(*e));
    if (!e) return ARBOR_ERR_NO_MEMORY;
    h->ext = e;
    h->cap = cap;
    return ARBOR_OK;
}

arbor_status_t arb_heap_take(arb_heap_t *h, uint64_t off, uint64_t len)
{
    uint64_t need = arb_heap_round(len);
    if (need == ARB_HEAP_NONE || off % ARB_HEAP_ALIGN) return ARBOR_ERR_INVALID_ARG;
    if (need == 0) return ARBOR_OK;
    for (size_t i = 0; i < h->n; i++) {
        arb_heap_ext_t *e = &h->ext[i];
        uint64_t end = e->off + e->len;
        if (off < e->off || off >= end) continue;
        if (end - off < need) return ARBOR_ERR_INVALID_ARG;
        bool head = off > e->off, tail = off + need < end;
        if (head && tail) { /* split in two */
            if (reserve(h, h->n + 1) != ARBOR_OK) return ARBOR_ERR_NO_MEMORY;
            e = &h->ext[i];
            memmove(&h->ext[i + 2], &h->ext[i + 1], (h->n - i - 1) * sizeof(*e));
            h->ext[i + 1] = (arb_heap_ext_t){off + need, end - off - need};
            e->len = off - e->off;
            h->n++;
        } else if (head) {
            e->len = off - e->off;
        } else if (tail) {
            e->off = off + need;
            e->len = end - e->off;
        } else {
            memmove(&h->ext[i], &h->ext[i + 1], (h->n - i - 1) * sizeof(*e));
            h->n--;
        }
        h->used += need;
        return ARBOR_OK;
    }
    return ARBOR_ERR_INVALID_ARG;
}

arbor_status_t arb_heap_give(arb_heap_t *h, uint64_t off, uint64_t len)
{
    uint64_t need = arb_heap_round(len);
    if (need == ARB_HEAP_NONE || off % ARB_HEAP_ALIGN || off > h->size || h->size - off < need)
        return ARBOR_ERR_INVALID_ARG;
    if (need == 0) return ARBOR_OK;
    size_t i = 0; /* first extent after off */
    while (i < h->n && h->ext[i].off <= off) i++;
    if (i > 0 && h->ext[i - 1].off + h->ext[i - 1].len > off) return ARBOR_ERR_INVALID_ARG;
    if (i < h->n && off + need > h->ext[i].off) return ARBOR_ERR_INVALID_ARG;
    bool left = i > 0 && h->ext[i - 1].off + h->ext[i - 1].len == off;
    bool right = i < h->n && off + need == h->ext[i].off;
    if (left && right) {
        h->ext[i - 1].len += need + h->ext[i].len;
        memmove(&h->ext[i], &h->ext[i + 1], (h->n - i - 1) * sizeof(h->ext[0]));
        h->n--;
    } else if (left) {
        h->ext[i - 1].len += need;
    } else if (right) {
        h->ext[i].off = off;
        h->ext[i].len += need;
    } else {
        if (reserve(h, h->n + 1) != ARBOR_OK) return ARBOR_ERR_NO_MEMORY;
        memmove(&h->ext[i + 1], &h->ext[i], (h->n - i) * sizeof(h->ext[0]));
        h->ext[i] = (arb_heap_ext_t){off, need};
        h->n++;
    }
    h->used -= need;
    return ARBOR_OK;
}

uint64_t arb_heap_largest(const arb_heap_t *h)
{
    uint64_t m = 0;
    for (size_t i = 0; i < h->n; i++)
        if (h->ext[i].len > m) m = h->ext[i].len;
    return m;
}

void arb_heap_search_round(const arb_heap_t *h, uint64_t len, uint64_t c, uint64_t v[2])
{
    v[0] = arb_heap_fit(h, len, c);
    v[1] = ~v[0];
}

bool arb_heap_search_done(const uint64_t v[2], uint64_t *c, arbor_status_t *status)
{
    uint64_t hi = v[0], lo = ~v[1];
    if (hi == ARB_HEAP_NONE) { /* some member has no room at or above c: none ever will */
        *status = ARBOR_ERR_NO_MEMORY;
        return true;
    }
    *c = hi;
    *status = ARBOR_OK;
    return lo == hi;
}
