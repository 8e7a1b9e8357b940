/*
 * Launched test of the atomics rule per allocation (docs/ONESIDED.md, "Atomics: one mechanism
 * per word"): arbor_mem_atomics answers the same on every member, CPU exactly where every member
 * of the allocation maps every other (arbor_mem_ptr gives a pointer to every member on every
 * member), and atomics, accumulates (contiguous and strided) and put-with-signal's signals from
 * every member on the same words add up, on three allocations: over the world, over the ranks
 * of this rank's node, and over ranks of different nodes. On a job that spans nodes the node's
 * allocation must be CPU and the world's the transport's.
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

enum { ITERS = 200, WORDS = 8 };

/* Word layout of each member's block: [0] fetch-adds aimed round the team, [1] a counter
 * raised by compare-and-swap at member 0, [2] accumulates, [3] signals (their data in [4]),
 * [8..15] strided accumulates into every other word. */
static int64_t *word(void *base, int w)
{
    return (int64_t *)base + w;
}

/* Every member maps every member, as every member sees it. */
static bool all_mapped(arbor_team_h team, const int *world, void *const *addr, int n)
{
    int mine = 1, all = 0;
    for (int r = 0; r < n; r++) {
        void *p = NULL;
        if (arbor_mem_ptr(world[r], addr[r], &p) != ARBOR_OK || !p) mine = 0;
    }
    CHECK_OK(arbor_allreduce(team, &mine, &all, 1, ARBOR_INT32, ARBOR_MIN));
    return all == 1;
}

static void hammer(arbor_team_h team, const char *name, int want_cpu /* -1: either */)
{
    int me, n;
    CHECK_OK(arbor_team_rank(team, &me));
    CHECK_OK(arbor_team_size(team, &n));
    arbor_mem_h mem = NULL;
    void *local = NULL;
    CHECK_OK(arbor_mem_alloc(team, 16 * sizeof(int64_t), &mem, &local));
    if (!mem || !local) return;

    arbor_atomics_t kind = ARBOR_ATOMICS_TRANSPORT;
    CHECK_OK(arbor_mem_atomics(mem, &kind));
    int k = (int)kind, kmin = 0, kmax = 0;
    CHECK_OK(arbor_allreduce(team, &k, &kmin, 1, ARBOR_INT32, ARBOR_MIN));
    CHECK_OK(arbor_allreduce(team, &k, &kmax, 1, ARBOR_INT32, ARBOR_MAX));
    CHECK(kmin == kmax, "%s: members disagree on the atomics (%d .. %d)", name, kmin, kmax);
    int *world = malloc(sizeof(int) * (size_t)n);
    void **addr = malloc(sizeof(void *) * (size_t)n);
    for (int r = 0; r < n; r++) {
        CHECK_OK(arbor_team_world_rank(team, r, &world[r]));
        CHECK_OK(arbor_mem_addr(mem, r, &addr[r], NULL)); /* member r's block, in its space */
    }
    bool mapped = all_mapped(team, world, addr, n);
    /* CPU atomics need the mapping; the mapping gives them wherever arbor owns the segment
     * (not with ARBOR_DIRECT=n on OFI, whose segment is the provider's) */
    const char *direct = getenv("ARBOR_DIRECT");
    bool owned = !(direct && direct[0] == 'n');
    CHECK(kind != ARBOR_ATOMICS_CPU || mapped, "%s: CPU atomics but not every member is mapped",
          name);
    CHECK(!mapped || !owned || kind == ARBOR_ATOMICS_CPU,
          "%s: every member maps every other, but transport atomics", name);
    if (want_cpu >= 0)
        CHECK((kind == ARBOR_ATOMICS_CPU) == (want_cpu == 1), "%s: atomics %s, want %s", name,
              kind == ARBOR_ATOMICS_CPU ? "CPU" : "transport", want_cpu ? "CPU" : "transport");

    int64_t one = 1, old = 0;
    ptrdiff_t stride[1] = {2 * (ptrdiff_t)sizeof(int64_t)};
    ptrdiff_t lstride[1] = {(ptrdiff_t)sizeof(int64_t)};
    size_t count[2] = {sizeof(int64_t), 4};
    int64_t ones[4] = {1, 1, 1, 1};
    for (int it = 0; it < ITERS; it++) {
        int t = (me + it) % n;
        CHECK_OK(arbor_atomic(world[t], word(addr[t], 0), ARBOR_AMO_FADD, ARBOR_INT64, &one, NULL,
                              &old));
        /* compare-and-swap increments of member 0's word 1 */
        int64_t seen = 0, next;
        CHECK_OK(arbor_atomic(world[0], word(addr[0], 1), ARBOR_AMO_FETCH, ARBOR_INT64, NULL, NULL,
                              &seen));
        for (int tries = 0; tries < 1000000; tries++) {
            next = seen + 1;
            int64_t got = 0;
            if (arbor_atomic(world[0], word(addr[0], 1), ARBOR_AMO_CSWAP, ARBOR_INT64, &next, &seen,
                             &got) != ARBOR_OK)
                break;
            if (got == seen) break;
            seen = got;
        }
        CHECK_OK(arbor_acc(world[t], word(addr[t], 2), &one, 1, ARBOR_INT64, ARBOR_SUM, NULL));
        CHECK_OK(arbor_put_signal(world[t], word(addr[t], 4), &one, sizeof(one),
                                  (uint64_t *)word(addr[t], 3), 1, ARBOR_SIGNAL_ADD));
        CHECK_OK(arbor_acc_strided(world[t], word(addr[t], 8), stride, ones, lstride, count, 1,
                                   ARBOR_INT64, ARBOR_SUM, NULL));
    }
    CHECK_OK(arbor_quiet());
    CHECK_OK(arbor_barrier(team));

    /* This member got the fetch-adds, accumulates and signals of the iterations it of every
     * member r with (r + it) % n == me. */
    int64_t want = 0;
    for (int r = 0; r < n; r++)
        for (int it = 0; it < ITERS; it++) want += (r + it) % n == me;
    CHECK(*word(local, 0) == want, "%s: fetch-adds %lld, want %lld", name,
          (long long)*word(local, 0), (long long)want);
    CHECK(*word(local, 2) == want, "%s: accumulates %lld, want %lld", name,
          (long long)*word(local, 2), (long long)want);
    CHECK(*word(local, 3) == want, "%s: signals %lld, want %lld", name, (long long)*word(local, 3),
          (long long)want);
    for (int e = 0; e < 4; e++)
        CHECK(*word(local, 8 + 2 * e) == want && *word(local, 9 + 2 * e) == 0,
              "%s: strided accumulate element %d: %lld (gap %lld), want %lld", name, e,
              (long long)*word(local, 8 + 2 * e), (long long)*word(local, 9 + 2 * e),
              (long long)want);
    if (me == 0)
        CHECK(*word(local, 1) == (int64_t)n * ITERS, "%s: compare-and-swap counter %lld, want %lld",
              name, (long long)*word(local, 1), (long long)n * ITERS);
    if (rank == 0)
        printf("mem_atomics %s (%d members): %s atomics\n", name, n,
               kind == ARBOR_ATOMICS_CPU ? "CPU" : "transport");
    free(world);
    free(addr);
    CHECK_OK(arbor_mem_free(&mem));
}

int main(void)
{
    if (arbor_init() != ARBOR_OK) return 1;
    CHECK_OK(arbor_team_rank(ARBOR_TEAM_WORLD, &rank));
    CHECK_OK(arbor_team_size(ARBOR_TEAM_WORLD, &size));
    int nodes = 1, node = 0;
    CHECK_OK(arbor_node_count(&nodes));
    CHECK_OK(arbor_rank_node(rank, &node));

    /* bad input changes nothing */
    arbor_atomics_t kind = (arbor_atomics_t)7;
    CHECK(arbor_mem_atomics(NULL, &kind) == ARBOR_ERR_HANDLE && kind == (arbor_atomics_t)7,
          "arbor_mem_atomics(NULL handle)");

    hammer(ARBOR_TEAM_WORLD, "world", nodes > 1 ? 0 : -1);

    arbor_team_h node_team = NULL;
    CHECK_OK(arbor_team_split(ARBOR_TEAM_WORLD, node, rank, &node_team));
    if (node_team) {
        hammer(node_team, "node", nodes > 1 ? 1 : -1);
        CHECK_OK(arbor_team_free(&node_team));
    }
    /* the i-th rank of every node together: members on different nodes where there are several */
    int idx = 0;
    for (int r = 0; r < rank; r++) {
        int nr = 0;
        CHECK_OK(arbor_rank_node(r, &nr));
        idx += nr == node;
    }
    arbor_team_h across = NULL;
    CHECK_OK(arbor_team_split(ARBOR_TEAM_WORLD, idx, rank, &across));
    if (across) {
        int n = 0;
        CHECK_OK(arbor_team_size(across, &n));
        hammer(across, "across nodes", nodes > 1 && n > 1 ? 0 : -1);
        CHECK_OK(arbor_team_free(&across));
    }

    CHECK(arbor_mem_atomics(NULL, NULL) == ARBOR_ERR_INVALID_ARG, "NULL output");
    printf("mem_atomics rank %d: %d checks, %d failures\n", rank, checks, failures);
    arbor_finalize();
    return failures ? 1 : 0;
}
