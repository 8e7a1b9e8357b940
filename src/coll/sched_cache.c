/* LRU + hash cache of schedules (see sched_cache.h). */
#include "coll/sched_cache.h"

#include <stdlib.h>
#include <string.h>

static size_t hash_key(const arb_sched_key_t *k, size_t n)
{
    uint64_t h = (uint64_t)k->coll * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t)(unsigned)k->alg + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
    h ^= (uint64_t)(unsigned)k->root + 0x85EBCA77C2B2AE63ull + (h << 6) + (h >> 2);
    h ^= k->bytes * 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
    h ^= (uint64_t)k->variant * 0x165667B19E3779F9ull + (h << 6) + (h >> 2);
    /* n is a power of two: a mask, not a division (this runs at every collective call) */
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    return (size_t)(h >> 32) & (n - 1);
}

static int same_key(const arb_sched_key_t *a, const arb_sched_key_t *b)
{
    return a->coll == b->coll && a->alg == b->alg && a->root == b->root && a->bytes == b->bytes &&
           a->variant == b->variant;
}

int arb_sched_cache_init(arb_sched_cache_t *c, size_t cap)
{
    memset(c, 0, sizeof(*c));
    c->cap = cap;
    c->nbuckets = 2;
    while (c->nbuckets < 2 * cap) c->nbuckets *= 2;
    c->buckets = calloc(c->nbuckets, sizeof(*c->buckets));
    return c->buckets ? 0 : -1;
}

static void lru_unlink(arb_sched_cache_t *c, arb_cached_sched_t *e)
{
    if (e->lru_prev)
        e->lru_prev->lru_next = e->lru_next;
    else
        c->lru_head = e->lru_next;
    if (e->lru_next)
        e->lru_next->lru_prev = e->lru_prev;
    else
        c->lru_tail = e->lru_prev;
    e->lru_prev = e->lru_next = NULL;
}

static void lru_push_front(arb_sched_cache_t *c, arb_cached_sched_t *e)
{
    e->lru_prev = NULL;
    e->lru_next = c->lru_head;
    if (c->lru_head) c->lru_head->lru_prev = e;
    c->lru_head = e;
    if (!c->lru_tail) c->lru_tail = e;
}

void arb_sched_release(arb_cached_sched_t *e)
{
    if (e && --e->refs == 0) {
        arb_sched_free(&e->sched);
        free(e);
    }
}

static void evict(arb_sched_cache_t *c, arb_cached_sched_t *e)
{
    arb_cached_sched_t **pp = &c->buckets[hash_key(&e->key, c->nbuckets)];
    while (*pp != e) pp = &(*pp)->hnext;
    *pp = e->hnext;
    lru_unlink(c, e);
    c->count--;
    arb_sched_release(e);
}

void arb_sched_cache_destroy(arb_sched_cache_t *c)
{
    while (c->lru_tail) evict(c, c->lru_tail);
    free(c->buckets);
    memset(c, 0, sizeof(*c));
}

arb_cached_sched_t *arb_sched_cache_get(arb_sched_cache_t *c, const arb_sched_key_t *key)
{
    arb_cached_sched_t *head = c->lru_head;
    if (head && same_key(&head->key, key)) { /* the same call again: no hash, no reorder */
        c->hits++;
        head->refs++;
        return head;
    }
    for (arb_cached_sched_t *e = c->buckets[hash_key(key, c->nbuckets)]; e; e = e->hnext) {
        if (same_key(&e->key, key)) {
            if (c->lru_head != e) {
                lru_unlink(c, e);
                lru_push_front(c, e);
            }
            c->hits++;
            e->refs++;
            return e;
        }
    }
    c->misses++;
    return NULL;
}

arb_cached_sched_t *arb_sched_wrap(arb_sched_t *sched)
{
    arb_cached_sched_t *e = calloc(1, sizeof(*e));
    if (!e) return NULL;
    e->sched = *sched;
    e->refs = 1;
    return e;
}

arb_cached_sched_t *arb_sched_cache_put(arb_sched_cache_t *c, const arb_sched_key_t *key,
                                        arb_sched_t *sched)
{
    arb_cached_sched_t *e = calloc(1, sizeof(*e));
    if (!e) return NULL;
    e->sched = *sched;
    e->key = *key;
    e->refs = 2; /* the cache's and the caller's */
    if (c->count == c->cap) evict(c, c->lru_tail);
    size_t b = hash_key(key, c->nbuckets);
    e->hnext = c->buckets[b];
    c->buckets[b] = e;
    lru_push_front(c, e);
    c->count++;
    return e;
}
