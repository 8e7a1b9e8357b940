/*
 * Unit test of the symmetric heap's free list (util/heap.c), no launcher: first fit,
 * splitting, coalescing on both sides, refusal of bad gives, and the collective common-offset
 * search run over several heaps in one process (the allreduce is a loop here).
 */
#include <stdlib.h>
#include <string.h>

#include "util/heap.h"
#include "unit_check.h"

#define A ARB_HEAP_ALIGN

static void test_basic(void)
{
    arb_heap_t h;
    check(arb_heap_init(&h, 100 * A + 5) == ARBOR_OK, "init");
    check(h.size == 100 * A && h.n == 1, "size rounded down to the granule");
    check(arb_heap_round(1) == A && arb_heap_round(A) == A && arb_heap_round(0) == 0, "round");
    check(arb_heap_round(UINT64_MAX) == ARB_HEAP_NONE, "round overflow");
    check(arb_heap_fit(&h, 10, 0) == 0, "first fit at 0");
    check(arb_heap_take(&h, 0, 10) == ARBOR_OK && h.used == A, "take one granule");
    check(arb_heap_fit(&h, 10, 0) == A, "next fit after it");
    check(arb_heap_take(&h, 2 * A, A) == ARBOR_OK, "take with a hole before");
    check(h.n == 2, "hole at A: %zu extents", h.n);
    check(arb_heap_fit(&h, A, 0) == A, "first fit takes the hole");
    check(arb_heap_fit(&h, 2 * A, 0) == 3 * A, "a bigger block skips the hole");
    check(arb_heap_fit(&h, A, 2 * A) == 3 * A, "fit from an offset");
    check(arb_heap_fit(&h, 0, 5) == A, "zero bytes fit at the rounded offset");
    check(arb_heap_take(&h, 2 * A, A) == ARBOR_ERR_INVALID_ARG, "taking taken space fails");
    check(arb_heap_take(&h, A + 1, 1) == ARBOR_ERR_INVALID_ARG, "misaligned take fails");
    check(arb_heap_take(&h, A, 2 * A) == ARBOR_ERR_INVALID_ARG, "take across extents fails");
    check(arb_heap_fit(&h, 101 * A, 0) == ARB_HEAP_NONE, "too big: no fit");
    check(arb_heap_fit(&h, A, 100 * A) == ARB_HEAP_NONE, "nothing at the end");
    /* middle split: take [10A, 12A) out of [3A, 100A) */
    check(arb_heap_take(&h, 10 * A, 2 * A) == ARBOR_OK && h.n == 3, "split in the middle");
    check(arb_heap_largest(&h) == 88 * A, "largest after split: %llu",
          (unsigned long long)arb_heap_largest(&h));
    /* give back in an order that exercises left, right and both-side merges */
    check(arb_heap_give(&h, 2 * A, A) == ARBOR_OK, "give merging both sides (hole + tail)");
    check(h.n == 2, "coalesced into [A, 10A) and [12A, 100A): %zu", h.n);
    check(arb_heap_give(&h, 2 * A, A) == ARBOR_ERR_INVALID_ARG, "double give refused");
    check(arb_heap_give(&h, 11 * A, 2 * A) == ARBOR_ERR_INVALID_ARG, "overlapping give refused");
    check(arb_heap_give(&h, 10 * A, 2 * A) == ARBOR_OK && h.n == 1, "merge both sides");
    check(arb_heap_give(&h, 0, 10) == ARBOR_OK && h.n == 1 && h.used == 0, "all free again");
    check(h.ext[0].off == 0 && h.ext[0].len == 100 * A, "one extent over everything");
    check(arb_heap_give(&h, 99 * A, 2 * A) == ARBOR_ERR_INVALID_ARG, "give past the end");
    arb_heap_fini(&h);
}

/* Random alloc / free against a byte map: extents always sorted, disjoint, coalesced. */
static void test_random(void)
{
    enum { N = 4096, LIVE = 64 };
    arb_heap_t h;
    arb_heap_init(&h, N * A);
    unsigned char map[N] = {0};
    uint64_t off[LIVE], len[LIVE];
    memset(len, 0, sizeof(len));
    srand(7);
    for (int it = 0; it < 20000; it++) {
        int k = rand() % LIVE;
        if (len[k]) {
            check(arb_heap_give(&h, off[k], len[k]) == ARBOR_OK, "give %d", it);
            for (uint64_t g = off[k] / A; g < (off[k] + arb_heap_round(len[k])) / A; g++)
                map[g] = 0;
            len[k] = 0;
        } else {
            uint64_t n = (uint64_t)(rand() % (8 * A)) + 1;
            uint64_t o = arb_heap_fit(&h, n, 0);
            /* first fit: the lowest run of free granules long enough */
            uint64_t g = arb_heap_round(n) / A, want = ARB_HEAP_NONE, run = 0;
            for (uint64_t i = 0; i < N; i++) {
                run = map[i] ? 0 : run + 1;
                if (run == g) {
                    want = (i + 1 - g) * A;
                    break;
                }
            }
            if (!check(o == want, "first fit %llu, expected %llu", (unsigned long long)o,
                       (unsigned long long)want))
                break;
            if (o == ARB_HEAP_NONE) continue;
            check(arb_heap_take(&h, o, n) == ARBOR_OK, "take");
            for (uint64_t i = o / A; i < o / A + g; i++) map[i] = 1;
            off[k] = o;
            len[k] = n;
        }
        for (size_t i = 0; i + 1 < h.n; i++)
            if (!check(h.ext[i].off + h.ext[i].len < h.ext[i + 1].off, "extents %zu not coalesced",
                       i))
                return;
    }
    uint64_t used = 0;
    for (int i = 0; i < N; i++) used += map[i] ? A : 0;
    check(used == h.used, "used %llu, map says %llu", (unsigned long long)h.used,
          (unsigned long long)used);
    arb_heap_fini(&h);
}

/* The search over M heaps: the loop mem.c runs over a team, with the MAX done here. */
static arbor_status_t search(arb_heap_t *heaps, const uint64_t *lens, int M, uint64_t *off,
                             int *rounds)
{
    uint64_t c = 0;
    arbor_status_t st;
    *rounds = 0;
    for (;;) {
        uint64_t r[2] = {0, 0}, v[2];
        for (int i = 0; i < M; i++) {
            arb_heap_search_round(&heaps[i], lens[i], c, v);
            if (v[0] > r[0]) r[0] = v[0];
            if (v[1] > r[1]) r[1] = v[1];
        }
        ++*rounds;
        if (arb_heap_search_done(r, &c, &st)) break;
        if (*rounds > 1000) return ARBOR_ERR_TIMEOUT;
    }
    *off = c;
    return st;
}

static void test_common_offset(void)
{
    enum { M = 3 };
    arb_heap_t h[M];
    for (int i = 0; i < M; i++) arb_heap_init(&h[i], 64 * A);
    /* member 0: [0,4A) taken; member 1: [4A,8A) taken; member 2: [8A,9A) and [12A,13A) */
    arb_heap_take(&h[0], 0, 4 * A);
    arb_heap_take(&h[1], 4 * A, 4 * A);
    arb_heap_take(&h[2], 8 * A, A);
    arb_heap_take(&h[2], 12 * A, A);
    uint64_t lens[M] = {2 * A, 2 * A, 2 * A}, off;
    int rounds;
    check(search(h, lens, M, &off, &rounds) == ARBOR_OK, "search");
    check(off == 9 * A, "common offset %llu, expected %u", (unsigned long long)off, 9 * A);
    check(rounds >= 2, "took %d rounds", rounds);
    for (int i = 0; i < M; i++)
        check(arb_heap_fit(&h[i], lens[i], off) == off, "member %d: offset not free", i);
    /* sizes differ; a zero-size member constrains nothing */
    uint64_t lens2[M] = {0, 5 * A, 4 * A};
    arbor_status_t st = search(h, lens2, M, &off, &rounds);
    check(st == ARBOR_OK && off == 13 * A, "differing sizes: %llu", (unsigned long long)off);
    /* one member without room: everyone fails */
    uint64_t lens3[M] = {A, 61 * A, A};
    check(search(h, lens3, M, &off, &rounds) == ARBOR_ERR_NO_MEMORY, "no room -> NO_MEMORY");
    uint64_t lens4[M] = {A, UINT64_MAX, A};
    check(search(h, lens4, M, &off, &rounds) == ARBOR_ERR_NO_MEMORY, "huge -> NO_MEMORY");
    for (int i = 0; i < M; i++) arb_heap_fini(&h[i]);
}

int main(void)
{
    test_basic();
    test_random();
    test_common_offset();
    printf("unit_heap: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
