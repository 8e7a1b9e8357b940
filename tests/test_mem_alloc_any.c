/*
 * Launched test of arbor_mem_alloc_any (group/outside.c), run with ARBOR_SEGMENT_SIZE=1M so that
 * its allocations do not fit the heap:
 *   - arbor_mem_alloc refuses 4 MiB (ARBOR_ERR_NO_MEMORY), arbor_mem_alloc_any gives it:
 *     zero-filled, each member's address from arbor_mem_addr (sizes that differ per member, one
 *     member with 0 bytes and no address), the heap's use unchanged;
 *   - puts and gets of every rank to every rank's part, strided ones too, with the data checked;
 *   - atomic adds of every rank on one word of rank 0's part: the total is exact, and
 *     arbor_mem_atomics agrees with arbor_mem_ptr (CPU where every part is mapped here);
 *   - a small allocation still comes from the heap (the heap's use grows);
 *   - after arbor_mem_free an access to the old address fails with ARBOR_ERR_ADDRESS; five
 *     rounds of allocation and free (the sanitizer builds see any leak);
 *   - bad arguments: a NULL handle pointer, an unknown team;
 *   - finalize releases an allocation of each kind left live.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbor.h"
#include "launched_check.h"

enum { MIB = 1 << 20, ROUNDS = 100 };

/* Member r's bytes: 4 MiB, plus r MiB; the last of three or more asks for none. */
static size_t bytes_of(int r)
{
    return size >= 3 && r == size - 1 ? 0 : (size_t)(4 + r) * MIB;
}

static void one_round(int round)
{
    arbor_mem_h mem = NULL;
    void *local = NULL;
    size_t used0 = 0, used1 = 0;
    arbor_mem_usage(&used0, NULL, NULL);
    arbor_status_t st = arbor_mem_alloc_any(ARBOR_TEAM_WORLD, bytes_of(rank), &mem, &local);
    CHECK(st == ARBOR_OK, "round %d: arbor_mem_alloc_any: %s", round, arbor_strerror(st));
    if (st != ARBOR_OK) return;
    arbor_mem_usage(&used1, NULL, NULL);
    CHECK(used1 == used0, "round %d: the heap's use moved (%zu -> %zu)", round, used0, used1);
    CHECK((local != NULL) == (bytes_of(rank) > 0), "round %d: local %p for %zu bytes", round, local,
          bytes_of(rank));
    uint64_t *mine = local;
    size_t words = bytes_of(rank) / 8;
    size_t nonzero = 0;
    for (size_t i = 0; i < words; i += 512) nonzero += mine[i] != 0;
    CHECK(nonzero == 0, "round %d: %zu sampled words not zero", round, nonzero);
    /* A member that returned first may write into the others' parts at once. */
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "barrier");

    uint64_t **base = calloc((size_t)size, sizeof(*base));
    for (int r = 0; base && r < size; r++) {
        size_t n = 0;
        CHECK(arbor_mem_addr(mem, r, (void **)&base[r], &n) == ARBOR_OK, "arbor_mem_addr %d", r);
        CHECK(n == bytes_of(r) && (base[r] != NULL) == (n > 0), "rank %d: %zu bytes at %p", r, n,
              (void *)base[r]);
    }
    if (!base) return;
    /* Word rank + 1 of every part (and word 1000 + rank, strided by 2 from 4096) from us. */
    for (int r = 0; r < size; r++) {
        if (!bytes_of(r)) continue;
        uint64_t v = 1000u * (uint64_t)rank + (uint64_t)round;
        CHECK(arbor_put(r, base[r] + 1 + rank, &v, sizeof v) == ARBOR_OK, "put to %d", r);
        uint64_t src[4] = {v, v + 1, v + 2, v + 3};
        ptrdiff_t dst_stride[1] = {16}, src_stride[1] = {8};
        size_t count[2] = {8, 4};
        CHECK(arbor_put_strided(r, base[r] + 4096 + 8 * rank, dst_stride, src, src_stride, count,
                                1) == ARBOR_OK,
              "strided put to %d", r);
    }
    CHECK(arbor_quiet() == ARBOR_OK, "quiet");
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "barrier");
    for (int p = 0; words && p < size; p++) {
        uint64_t want = 1000u * (uint64_t)p + (uint64_t)round;
        CHECK(mine[1 + p] == want, "word %d: %llu, want %llu", 1 + p,
              (unsigned long long)mine[1 + p], (unsigned long long)want);
        for (int k = 0; k < 4; k++)
            CHECK(mine[4096 + 8 * p + 2 * k] == want + (uint64_t)k, "strided word from %d", p);
    }
    for (int r = 0; r < size; r++) {
        if (!bytes_of(r)) continue;
        uint64_t got[3] = {0, 0, 0};
        CHECK(arbor_get(r, got, base[r] + 1, sizeof got) == ARBOR_OK, "get from %d", r);
        for (int p = 0; p < 3 && p < size; p++)
            CHECK(got[p] == 1000u * (uint64_t)p + (uint64_t)round, "rank %d's word %d: %llu", r,
                  1 + p, (unsigned long long)got[p]);
    }
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "barrier");

    /* Atomics on word 0 of rank 0's part from every rank. */
    uint64_t one = 1;
    for (int i = 0; i < ROUNDS; i++)
        CHECK(arbor_atomic(0, base[0], ARBOR_AMO_ADD, ARBOR_UINT64, &one, NULL, NULL) == ARBOR_OK,
              "atomic add");
    CHECK(arbor_quiet() == ARBOR_OK, "quiet");
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "barrier");
    uint64_t total = 0;
    CHECK(arbor_atomic(0, base[0], ARBOR_AMO_FETCH, ARBOR_UINT64, NULL, NULL, &total) == ARBOR_OK,
          "fetch");
    CHECK(total == (uint64_t)size * ROUNDS, "counter %llu, want %d", (unsigned long long)total,
          size * ROUNDS);
    arbor_atomics_t kind;
    CHECK(arbor_mem_atomics(mem, &kind) == ARBOR_OK, "arbor_mem_atomics");
    int mapped = 0;
    for (int r = 0; r < size; r++) {
        void *p = NULL;
        if (bytes_of(r) && arbor_mem_ptr(r, base[r], &p) == ARBOR_OK && p) mapped++;
    }
    int parts = 0;
    for (int r = 0; r < size; r++) parts += bytes_of(r) > 0;
    if (kind == ARBOR_ATOMICS_CPU)
        CHECK(mapped == parts, "CPU atomics, %d of %d parts mapped here", mapped, parts);

    /* A small allocation still comes from the heap. */
    arbor_mem_h small = NULL;
    void *slocal = NULL;
    CHECK(arbor_mem_alloc_any(ARBOR_TEAM_WORLD, 64, &small, &slocal) == ARBOR_OK, "small");
    size_t used2 = 0;
    arbor_mem_usage(&used2, NULL, NULL);
    CHECK(used2 > used1, "a small allocation did not come from the heap");
    CHECK(arbor_mem_free(&small) == ARBOR_OK, "free small");

    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "barrier");
    CHECK(arbor_mem_free(&mem) == ARBOR_OK && mem == NULL, "free");
    uint64_t v = 0;
    int peer = (rank + 1) % size;
    if (bytes_of(peer) && peer != rank)
        CHECK(arbor_get(peer, &v, base[peer], sizeof v) == ARBOR_ERR_ADDRESS,
              "a get from freed memory did not fail with ARBOR_ERR_ADDRESS");
    free(base);
}

int main(void)
{
    if (arbor_init() != ARBOR_OK) {
        fprintf(stderr, "test_mem_alloc_any: arbor_init failed\n");
        return 1;
    }
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);

    arbor_mem_h mem = NULL;
    void *local = NULL;
    CHECK(arbor_mem_alloc(ARBOR_TEAM_WORLD, 4 * MIB, &mem, &local) == ARBOR_ERR_NO_MEMORY,
          "arbor_mem_alloc of 4 MiB in a 1 MiB segment did not fail");
    CHECK(arbor_mem_alloc_any(ARBOR_TEAM_WORLD, 4 * MIB, NULL, &local) == ARBOR_ERR_INVALID_ARG,
          "NULL handle pointer");
    CHECK(arbor_mem_alloc_any((arbor_team_h)(uintptr_t)0x5eed, 4 * MIB, &mem, &local) ==
              ARBOR_ERR_TEAM,
          "unknown team");
    for (int round = 0; round < 5; round++) one_round(round);
    /* Left for finalize to release: one outside the heap and one in it. */
    arbor_mem_h left_outside = NULL, left_heap = NULL;
    CHECK(arbor_mem_alloc_any(ARBOR_TEAM_WORLD, 4 * MIB, &left_outside, &local) == ARBOR_OK,
          "an allocation left to finalize");
    CHECK(arbor_mem_alloc_any(ARBOR_TEAM_WORLD, 64, &left_heap, &local) == ARBOR_OK,
          "a heap allocation left to finalize");

    CHECK(arbor_finalize() == ARBOR_OK, "finalize");
    if (rank == 0) printf("test_mem_alloc_any: %d ranks\n", size);
    printf("test_mem_alloc_any rank %d: %d checks, %d failures\n", rank, checks, failures);
    return failures ? 1 : 0;
}
