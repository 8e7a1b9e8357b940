/*
 * Per-team cache of built schedules, keyed by (collective, algorithm, root, size class), bounded by
 * ARBOR_TREE_CACHE_ENTRIES with LRU eviction. A hit is a hash probe and a list splice: O(1)
 * and no allocation. Schedules are reference counted so an evicted one lives on until the
 * collectives running it complete.
 */
#ifndef ARB_CORE_SCHED_CACHE_H
#define ARB_CORE_SCHED_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "algorithms/sched.h"

typedef struct {
    int coll, alg, root;
    uint64_t bytes;   /* size class (or element count, for reductions) */
    uint32_t variant; /* sync flags, commutativity, element size */
} arb_sched_key_t;

typedef struct arb_cached_sched {
    arb_sched_t sched;
    arb_sched_key_t key;
    int alg; /* the algorithm the selector chose (the key's alg is 0: "whatever it picks") */
    double predicted_us; /* the model's time for alg, kept so a cache hit can still report it */
    bool one_copy;       /* the model chose one copy (coll/coll_direct.h) */
    bool cma;            /* ... through cross-memory attach (malloc'd buffers, runtime/cma.h) */
    int refs;            /* the cache's own + one per running instance */
    bool channels_open;  /* every channel its RECV steps use is open (coll/team.h): a cached
                          * schedule serves one team, whose channels stay open while it lives */
    struct arb_cached_sched *lru_prev, *lru_next, *hnext;
} arb_cached_sched_t;

typedef struct {
    arb_cached_sched_t **buckets;
    size_t nbuckets, count, cap;
    arb_cached_sched_t *lru_head, *lru_tail; /* head = most recent */
    uint64_t hits, misses;
    double build_us;
} arb_sched_cache_t;

int arb_sched_cache_init(arb_sched_cache_t *c, size_t cap);
void arb_sched_cache_destroy(arb_sched_cache_t *c);
/* Returns the entry with a reference taken, or NULL on a miss. */
arb_cached_sched_t *arb_sched_cache_get(arb_sched_cache_t *c, const arb_sched_key_t *key);
/* Inserts a freshly built schedule (takes ownership); returns it with a reference taken. */
arb_cached_sched_t *arb_sched_cache_put(arb_sched_cache_t *c, const arb_sched_key_t *key,
                                        arb_sched_t *sched);
/* Wraps a schedule that is not cached (one reference, the caller's). */
arb_cached_sched_t *arb_sched_wrap(arb_sched_t *sched);
void arb_sched_release(arb_cached_sched_t *e);

#endif /* ARB_CORE_SCHED_CACHE_H */
