/*
 * Launched test of the one-sided fast path (docs/ONESIDED.md, "Performance"): the translation
 * cache (one entry per target rank) and the lock-free entry points for mapped targets, against
 * what they must not change. Every byte checked:
 *  - a driver cycling through every target and two allocations of per-member sizes (each call
 *    replaces a cache entry), puts and gets in the blocking and implicit forms;
 *  - bounds right after a cache hit: the exact end of a member's part (its own size, not the
 *    caller's), one byte over, an atomic past the end; nothing written by a refused call;
 *  - a freed allocation is no target even while cached, and a smaller one at the same offset
 *    answers for its own size only;
 *  - fetch-add tickets under contention from every rank to one word (64-bit and both 32-bit
 *    halves of a word), each rank mixing the lock-free blocking call, the implicit form and
 *    explicit handles (the normal path, under the engine lock where there is one): every
 *    ticket exactly once;
 *  - fence then flag: the consumer never sees the flag before the data, with the fence's
 *    store-fence path (nothing in flight) and its full path (a handle outstanding).
 * Runs on every transport (where peers are not mapped the fast path is never taken and the
 * results must be the same), and with ARBOR_THREADS=multiple (no fast path either).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbor.h"
#include "launched_check.h"

#define CHECK_OK(_call)                                                                            \
    do {                                                                                           \
        arbor_status_t _s = (_call);                                                               \
        CHECK(_s == ARBOR_OK, "%s returned %s", #_call, arbor_strerror(_s));                       \
    } while (0)
#define CHECK_IS(_call, _want)                                                                     \
    do {                                                                                           \
        arbor_status_t _s = (_call);                                                               \
        CHECK(_s == (_want), "%s returned %s, expected %s", #_call, arbor_strerror(_s),            \
              arbor_strerror(_want));                                                              \
    } while (0)

static uint8_t pattern(size_t i, int src, int salt)
{
    return (uint8_t)(1 + ((i * 131u) ^ (size_t)(src * 29) ^ (size_t)(salt * 7)) % 251);
}

static void *addr_of(arbor_mem_h m, int r)
{
    void *a = NULL;
    CHECK_OK(arbor_mem_addr(m, r, &a, NULL));
    return a;
}

/* Bytes member r holds in the allocations of test_cycle: differ per member, and are never a
 * multiple of the heap's 64-byte unit, so the bytes just past a part lie in no allocation. */
static size_t part_size(int r, int which)
{
    return 64 * (size_t)size + 8 + 8 * (size_t)(r % 7) + (which ? 64 : 0);
}

/* Every rank writes its own 16 bytes (slot rank) of every target's part of A and of B, in
 * turn, and reads them back: the cache entry of each target changes at every call. */
static void test_cycle(void)
{
    arbor_mem_h m[2];
    uint8_t *local[2];
    for (int w = 0; w < 2; w++)
        CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, part_size(rank, w), &m[w], (void **)&local[w]));
    uint8_t src[16], back[16];
    for (int round = 0; round < 4; round++) {
        for (int t = 0; t < size; t++)
            for (int w = 0; w < 2; w++) {
                uint8_t *ra = (uint8_t *)addr_of(m[w], t) + 16 * rank;
                for (int i = 0; i < 16; i++) src[i] = pattern((size_t)i, rank, round * 2 + w);
                if (round % 2)
                    CHECK_OK(arbor_put_nb(t, ra, src, 16, NULL));
                else
                    CHECK_OK(arbor_put(t, ra, src, 16));
                CHECK_OK(arbor_fence(t));
                memset(back, 0, sizeof(back));
                CHECK_OK(arbor_get(t, back, ra, 16));
                CHECK(!memcmp(back, src, 16), "round %d: get from %d (allocation %d) differs",
                      round, t, w);
            }
        CHECK_OK(arbor_quiet());
        CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
        for (int w = 0; w < 2; w++)
            for (int s = 0; s < size; s++)
                for (int i = 0; i < 16; i++)
                    CHECK(local[w][16 * s + i] == pattern((size_t)i, s, round * 2 + w),
                          "round %d: byte %d of slot %d in allocation %d", round, i, s, w);
        CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    }

    /* Bounds right after a hit: right's part of A ends at part_size(right, 0). */
    int right = (rank + 1) % size;
    size_t end = part_size(right, 0);
    uint8_t *ra = addr_of(m[0], right), buf[32];
    memset(buf, 0x33, sizeof(buf));
    uint64_t one = 1, old = 0;
    CHECK_OK(arbor_get(right, back, ra, 8)); /* the hit */
    CHECK_OK(arbor_put(right, ra + end, buf, 0));
    CHECK_IS(arbor_put(right, ra + end, buf, 1), ARBOR_ERR_ADDRESS);
    CHECK_IS(arbor_put(right, ra + end - 8, buf, 9), ARBOR_ERR_ADDRESS);
    CHECK_IS(arbor_put_nb(right, ra + end - 8, buf, 9, NULL), ARBOR_ERR_ADDRESS);
    CHECK_IS(arbor_get(right, buf, ra + end - 4, 8), ARBOR_ERR_ADDRESS);
    CHECK_IS(arbor_atomic(right, ra + end, ARBOR_AMO_FADD, ARBOR_INT64, &one, NULL, &old),
             ARBOR_ERR_ADDRESS);
    CHECK_IS(arbor_atomic(right, ra + 4, ARBOR_AMO_FADD, ARBOR_INT64, &one, NULL, &old),
             ARBOR_ERR_ALIGNMENT);
    CHECK_IS(arbor_atomic(right, ra + 16 * size, ARBOR_AMO_FADD, ARBOR_INT64, &one, NULL, NULL),
             ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_put(right, ra, NULL, 8), ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_get(right, NULL, ra, 8), ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_put(size, ra, buf, 8), ARBOR_ERR_RANK);
    CHECK_IS(arbor_put(-1, ra, buf, 8), ARBOR_ERR_RANK);
    CHECK_OK(arbor_quiet());
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    /* nothing the refused calls aimed at my part moved: the unused tail is still zero */
    size_t bad = 0;
    for (size_t i = 16 * (size_t)size; i < part_size(rank, 0); i++) bad += local[0][i] != 0;
    CHECK(bad == 0, "refused calls wrote %zu bytes", bad);

    /* Free A while every rank's cache holds it: its addresses are no target any more. */
    uint8_t *stale = addr_of(m[0], right);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_OK(arbor_mem_free(&m[0]));
    CHECK_IS(arbor_put(right, stale, buf, 8), ARBOR_ERR_ADDRESS);
    CHECK_IS(arbor_get(right, buf, stale, 8), ARBOR_ERR_ADDRESS);
    CHECK_IS(arbor_atomic(right, stale, ARBOR_AMO_FADD, ARBOR_INT64, &one, NULL, &old),
             ARBOR_ERR_ADDRESS);
    /* A smaller allocation (first fit: A's offset again) answers for its own size only. */
    arbor_mem_h c;
    uint8_t *lc;
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, 8, &c, (void **)&lc));
    uint8_t *rc = addr_of(c, right);
    uint64_t word = 0x0102030405060708ull;
    CHECK_OK(arbor_put(right, rc, &word, 8));
    CHECK_IS(arbor_put(right, rc + 8, &word, 8), ARBOR_ERR_ADDRESS);
    CHECK_IS(arbor_put(right, rc, buf, 9), ARBOR_ERR_ADDRESS);
    CHECK_OK(arbor_quiet());
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    uint64_t got;
    memcpy(&got, lc, 8);
    CHECK(got == word, "word in the smaller allocation: %llx", (unsigned long long)got);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_OK(arbor_mem_free(&c));
    CHECK_OK(arbor_mem_free(&m[1]));
}

/* Tickets from one 64-bit counter and from the two 32-bit halves of the next word of target's
 * block, every rank mixing the three forms of the call. */
static void test_tickets(int target)
{
    enum { K = 300 };
    arbor_mem_h m;
    uint64_t *local;
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, 2 * sizeof(uint64_t), &m, (void **)&local));
    uint64_t *ra = addr_of(m, target);
    uint64_t *t64 = calloc(K, sizeof(uint64_t)), *all64 = calloc((size_t)K * size, 8);
    uint32_t *t32 = calloc(2 * K, sizeof(uint32_t)), *all32 = calloc((size_t)2 * K * size, 4);
    uint64_t one = 1;
    uint32_t one32 = 1;
    for (int i = 0; i < K; i++) {
        uint32_t *half = (uint32_t *)&ra[1] + (i % 2);
        arbor_request_h req[2];
        switch ((i + rank) % 3) {
        case 0: /* blocking: the lock-free path where the word is mapped */
            CHECK_OK(
                arbor_atomic(target, &ra[0], ARBOR_AMO_FADD, ARBOR_UINT64, &one, NULL, &t64[i]));
            CHECK_OK(
                arbor_atomic(target, half, ARBOR_AMO_FADD, ARBOR_UINT32, &one32, NULL, &t32[i]));
            break;
        case 1: /* implicit: results written by the next quiet at the latest */
            CHECK_OK(arbor_atomic_nb(target, &ra[0], ARBOR_AMO_FADD, ARBOR_UINT64, &one, NULL,
                                     &t64[i], NULL));
            CHECK_OK(arbor_atomic_nb(target, half, ARBOR_AMO_FADD, ARBOR_UINT32, &one32, NULL,
                                     &t32[i], NULL));
            break;
        default: /* explicit handles: always the locked path */
            CHECK_OK(arbor_atomic_nb(target, &ra[0], ARBOR_AMO_FADD, ARBOR_UINT64, &one, NULL,
                                     &t64[i], &req[0]));
            CHECK_OK(arbor_atomic_nb(target, half, ARBOR_AMO_FADD, ARBOR_UINT32, &one32, NULL,
                                     &t32[i], &req[1]));
            CHECK_OK(arbor_wait_all(2, req));
            break;
        }
    }
    CHECK_OK(arbor_quiet());
    /* the other half of t32 stays 0: the halves are counted apart below */
    CHECK_OK(arbor_allgather(ARBOR_TEAM_WORLD, t64, all64, K, ARBOR_UINT64));
    CHECK_OK(arbor_allgather(ARBOR_TEAM_WORLD, t32, all32, K, ARBOR_UINT32));
    size_t n = (size_t)K * size, nhalf[2] = {0, 0}, bad = 0;
    char *seen = calloc(n, 1), *seen32[2] = {calloc(n, 1), calloc(n, 1)};
    for (size_t j = 0; j < n; j++) {
        if (all64[j] >= n || seen[all64[j]]++) bad++;
        int h = (int)((j % K) % 2); /* iteration i = j % K used half i % 2 */
        if (all32[j] >= n || seen32[h][all32[j]]++) bad++;
        nhalf[h]++;
    }
    CHECK(bad == 0, "target %d: %zu tickets duplicated or out of range (of %zu)", target, bad, n);
    for (int h = 0; h < 2; h++)
        for (size_t v = 0; v < nhalf[h]; v++)
            if (!seen32[h][v]) bad++;
    CHECK(bad == 0, "target %d: %zu 32-bit tickets missing", target, bad);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    if (rank == target) {
        CHECK(local[0] == n, "64-bit counter %llu, expected %zu", (unsigned long long)local[0], n);
        uint64_t want = (uint64_t)nhalf[1] << 32 | nhalf[0];
        CHECK(local[1] == want, "32-bit counters %llx, expected %llx", (unsigned long long)local[1],
              (unsigned long long)want);
    }
    free(t64);
    free(all64);
    free(t32);
    free(all32);
    free(seen);
    free(seen32[0]);
    free(seen32[1]);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_OK(arbor_mem_free(&m));
}

/* Producer puts 64 KiB to right, fences, sets a flag there; the consumer waits for its flag and
 * checks the data. held: a handle to another operation is outstanding across the fence (the
 * fence's full path); else nothing is in flight (its store-fence path where right is mapped). */
static void test_fence_flag(bool held)
{
    enum { N = 65536, ITERS = 20 };
    arbor_mem_h m;
    uint8_t *local;
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, N + 64, &m, (void **)&local));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    uint8_t *ra = addr_of(m, right), *src = malloc(N), extra[8];
    uint64_t *flag = (uint64_t *)(local + N), *rflag = (uint64_t *)(ra + N);
    for (int it = 1; it <= ITERS; it++) {
        for (size_t i = 0; i < N; i++) src[i] = pattern(i, rank, it);
        arbor_request_h req = NULL;
        if (held) CHECK_OK(arbor_get_nb(right, extra, ra + N + 8, 8, &req));
        CHECK_OK(arbor_put(right, ra, src, N));
        CHECK_OK(arbor_fence(right));
        uint64_t v = (uint64_t)it;
        CHECK_OK(arbor_atomic(right, rflag, ARBOR_AMO_SET, ARBOR_UINT64, &v, NULL, NULL));
        if (held) CHECK_OK(arbor_wait(&req));
        CHECK_OK(arbor_wait_until(flag, ARBOR_CMP_GE, (uint64_t)it, NULL));
        size_t bad = 0;
        for (size_t i = 0; i < N; i++) bad += local[i] != pattern(i, left, it);
        CHECK(bad == 0, "iteration %d (%s): %zu bytes not there when the flag was", it,
              held ? "handle held" : "nothing in flight", bad);
        /* nobody overwrites a buffer its consumer may still read */
        CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    }
    free(src);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_OK(arbor_mem_free(&m));
}

int main(void)
{
    /* ARBOR_THREADS=multiple (the rma_fast_mt run): every call under the engine lock, no fast
     * path; the results must be the same. */
    if (arbor_init() != ARBOR_OK) return 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    test_cycle();
    test_tickets(0);
    test_tickets(size - 1);
    test_fence_flag(false);
    test_fence_flag(true);
    int total = 0;
    CHECK_OK(arbor_allreduce(ARBOR_TEAM_WORLD, &failures, &total, 1, ARBOR_INT, ARBOR_SUM));
    if (rank == 0) printf("test_rma_fast: %d ranks, %d checks, %d failures\n", size, checks, total);
    CHECK_OK(arbor_finalize());
    return total ? 1 : 0;
}
