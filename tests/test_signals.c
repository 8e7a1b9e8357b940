/*
 * Signals (docs/PROTOCOL.md, "Signals"): a schedule step of no payload counts in the sender's
 * signal word at the receiver instead of taking a channel slot and a credit. This test fails if
 * a signal is lost (a barrier never completes: ARBOR_TIMEOUT, an error status) or counted twice
 * (a later barrier completes before a member entered it: the late member's flag is missing).
 *
 * For each barrier algorithm (arbor_init / arbor_finalize around each, ARBOR_BARRIER_ALGORITHM
 * set in the process): ROUNDS rounds in which two non-blocking barriers and two 8-byte
 * allreduces run interleaved between the same pairs (signals and data messages in flight
 * together on every channel), then the "late" member of the round (round mod P) writes the round
 * into its flag word at every member, completes the puts (arbor_quiet), sometimes after a sleep,
 * and enters a blocking barrier; after it every member must see that flag.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arbor.h"
#include "launched_check.h"

enum { ROUNDS = 120 };

static const char *const algs[] = {"auto",      "dissemination", "flat",         "direct",
                                   "karp_node", "two_level",     "leader_dissem"};

static void nap_us(long us)
{
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

/* Runs the rounds with the barrier algorithm alg; false when it cannot run here (every rank
 * agrees: the selector decides from the same inputs). */
static bool run(const char *alg)
{
    setenv("ARBOR_BARRIER_ALGORITHM", alg, 1);
    arbor_status_t st = arbor_init();
    CHECK(st == ARBOR_OK, "%s: init: %s", alg, arbor_strerror(st));
    if (st != ARBOR_OK) return false;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    arbor_mem_h mem = NULL;
    volatile uint64_t *flag = NULL;
    st = arbor_mem_alloc(ARBOR_TEAM_WORLD, (size_t)size * sizeof(uint64_t), &mem, (void **)&flag);
    CHECK(st == ARBOR_OK, "%s: mem_alloc: %s", alg, arbor_strerror(st));
    st = arbor_barrier(ARBOR_TEAM_WORLD);
    bool ran = st != ARBOR_ERR_ALGORITHM;
    CHECK(st == ARBOR_OK || !ran, "%s: first barrier: %s", alg, arbor_strerror(st));
    for (int k = 1; ran && st == ARBOR_OK && k <= ROUNDS; k++) {
        uint64_t in[2] = {(uint64_t)(rank + k), (uint64_t)rank * k}, out[2] = {0, 0};
        arbor_request_h req[4];
        int n = 0;
        st = arbor_barrier_nb(ARBOR_TEAM_WORLD, NULL, &req[n++]);
        if (st == ARBOR_OK)
            st = arbor_allreduce_nb(ARBOR_TEAM_WORLD, &in[0], &out[0], 1, ARBOR_UINT64, ARBOR_SUM,
                                    NULL, &req[n++]);
        if (st == ARBOR_OK) st = arbor_barrier_nb(ARBOR_TEAM_WORLD, NULL, &req[n++]);
        if (st == ARBOR_OK)
            st = arbor_allreduce_nb(ARBOR_TEAM_WORLD, &in[1], &out[1], 1, ARBOR_UINT64, ARBOR_SUM,
                                    NULL, &req[n++]);
        CHECK(st == ARBOR_OK, "%s round %d: start: %s", alg, k, arbor_strerror(st));
        if (st != ARBOR_OK) break;
        st = arbor_wait_all((size_t)n, req);
        CHECK(st == ARBOR_OK, "%s round %d: wait: %s", alg, k, arbor_strerror(st));
        uint64_t sum0 = (uint64_t)size * (size - 1) / 2 + (uint64_t)size * k;
        uint64_t sum1 = (uint64_t)size * (size - 1) / 2 * k;
        CHECK(out[0] == sum0 && out[1] == sum1, "%s round %d: allreduce %llu %llu, want %llu %llu",
              alg, k, (unsigned long long)out[0], (unsigned long long)out[1],
              (unsigned long long)sum0, (unsigned long long)sum1);

        int late = k % size;
        if (rank == late) {
            if (k % 4 == 0) nap_us(2000); /* the others wait in the barrier meanwhile */
            uint64_t v = (uint64_t)k;
            for (int r = 0; r < size && st == ARBOR_OK; r++) {
                void *at = NULL;
                st = arbor_mem_addr(mem, r, &at, NULL);
                if (st == ARBOR_OK) st = arbor_put(r, (uint64_t *)at + late, &v, sizeof(v));
            }
            if (st == ARBOR_OK) st = arbor_quiet();
            CHECK(st == ARBOR_OK, "%s round %d: flag puts: %s", alg, k, arbor_strerror(st));
        }
        if (st == ARBOR_OK) st = arbor_barrier(ARBOR_TEAM_WORLD);
        CHECK(st == ARBOR_OK, "%s round %d: barrier: %s", alg, k, arbor_strerror(st));
        CHECK(flag[late] == (uint64_t)k,
              "%s round %d: past the barrier before rank %d entered it (flag %llu)", alg, k, late,
              (unsigned long long)flag[late]);
    }
    arbor_coll_info_t info;
    memset(&info, 0, sizeof(info));
    if (ran && arbor_team_last_collective(ARBOR_TEAM_WORLD, &info) == ARBOR_OK && rank == 0)
        printf("signals: %s ran as %s\n", alg, info.algorithm ? info.algorithm : "?");
    if (mem) arbor_mem_free(&mem);
    st = arbor_finalize();
    CHECK(st == ARBOR_OK, "%s: finalize: %s", alg, arbor_strerror(st));
    return ran;
}

int main(void)
{
    int ran = 0;
    for (size_t i = 0; i < sizeof(algs) / sizeof(algs[0]); i++) ran += run(algs[i]);
    CHECK(ran >= 4, "only %d barrier algorithms ran", ran);
    printf("signals rank %d: %d algorithms, %d checks, %d failures\n", rank, ran, checks, failures);
    return failures ? 1 : 0;
}
