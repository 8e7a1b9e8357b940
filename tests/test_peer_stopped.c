/*
 * A peer that finalizes while the others go on (a Fortran image that reached END PROGRAM): the
 * last rank calls arbor_finalize right after setup. The others must see it STOPPED
 * (arbor_peer_state, arbor_peer_departures), get ARBOR_ERR_PEER_STOPPED at once from the waits
 * only it could end (arbor_notify_wait on it, a barrier of a team holding it), still read its
 * heap (a stopped rank serves its memory until everyone has finalized), and go on among
 * themselves on a team without it. The public calls' argument checks come first.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "arbor.h"
#include "launched_check.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    arbor_peer_state_t state;
    int departed = -1;
    CHECK(arbor_peer_state(0, &state) == ARBOR_ERR_NOT_INITIALIZED, "peer_state before init");
    if (arbor_init() != ARBOR_OK) return 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    CHECK(arbor_peer_state(-1, &state) == ARBOR_ERR_RANK, "peer_state of rank -1");
    CHECK(arbor_peer_state(size, &state) == ARBOR_ERR_RANK, "peer_state of rank size");
    CHECK(arbor_peer_state(0, NULL) == ARBOR_ERR_INVALID_ARG, "peer_state without output");
    CHECK(arbor_peer_departures(NULL) == ARBOR_ERR_INVALID_ARG, "departures without output");
    CHECK(arbor_peer_state(rank, &state) == ARBOR_OK && state == ARBOR_PEER_RUNNING, "self");
    CHECK(arbor_peer_departures(&departed) == ARBOR_OK && departed == 0, "none departed yet");

    int last = size - 1;
    arbor_mem_h mem;
    uint64_t *word = NULL;
    arbor_team_h others;
    CHECK(arbor_mem_alloc(ARBOR_TEAM_WORLD, sizeof(uint64_t), &mem, (void **)&word) == ARBOR_OK,
          "alloc");
    *word = 1000 + (uint64_t)rank;
    CHECK(arbor_team_split(ARBOR_TEAM_WORLD, rank == last ? -1 : 0, rank, &others) == ARBOR_OK,
          "split");
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "barrier before the stop");

    if (rank == last) {
        arbor_status_t st = arbor_finalize(); /* returns once the others have finalized */
        CHECK(st == ARBOR_OK, "the stopped rank's finalize: %s", arbor_strerror(st));
        printf("peer_stopped rank %d: %d checks, %d failures\n", rank, checks, failures);
        return failures ? 1 : 0;
    }

    double t0 = now_s();
    arbor_status_t st = arbor_notify_wait(last, 1);
    CHECK(st == ARBOR_ERR_PEER_STOPPED, "notify_wait on the stopped rank: %s", arbor_strerror(st));
    CHECK(now_s() - t0 < 10, "notify_wait took %.1f s", now_s() - t0);
    CHECK(arbor_peer_state(last, &state) == ARBOR_OK && state == ARBOR_PEER_STOPPED,
          "peer_state of the stopped rank: %d", (int)state);
    CHECK(arbor_peer_departures(&departed) == ARBOR_OK && departed == 1, "departures: %d",
          departed);
    void *remote = NULL;
    uint64_t v = 0;
    CHECK(arbor_mem_addr(mem, last, &remote, NULL) == ARBOR_OK, "addr");
    st = arbor_get(last, &v, remote, sizeof v);
    CHECK(st == ARBOR_OK && v == 1000 + (uint64_t)last, "read the stopped rank's heap: %s, %llu",
          arbor_strerror(st), (unsigned long long)v);
    t0 = now_s();
    st = arbor_barrier(ARBOR_TEAM_WORLD);
    CHECK(st == ARBOR_ERR_PEER_STOPPED, "barrier with the stopped rank: %s", arbor_strerror(st));
    CHECK(now_s() - t0 < 10, "the barrier took %.1f s", now_s() - t0);
    if (size > 2) {
        int64_t in = rank + 1, out = 0;
        st = arbor_allreduce(others, &in, &out, 1, ARBOR_INT64, ARBOR_SUM);
        CHECK(st == ARBOR_OK && out == (int64_t)last * (last + 1) / 2,
              "allreduce without the stopped rank: %s, %lld", arbor_strerror(st), (long long)out);
    }
    st = arbor_finalize();
    CHECK(st == ARBOR_OK, "finalize: %s", arbor_strerror(st));
    printf("peer_stopped rank %d: %d checks, %d failures\n", rank, checks, failures);
    return failures ? 1 : 0;
}
