/*
 * Ranks that leave a collective and stop calling arbor (blocked in MPI, computing) must not
 * stall the ranks still working (seen as a Global Arrays hang in ARMCI_Group_create on ofi:shm).
 * Each iteration splits the world into the "busy" ranks (one late rank and its neighbour) and
 * the rest; the rest then sleep without calling arbor while the busy ranks run allreduces on
 * their new team, which must finish long before the sleepers come back. On shm a rank's
 * completions come in posting order, so one credit still unread by a sleeper would hold back
 * every later completion of the busy rank: the sleepers' progress thread must read it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "arbor.h"
#include "launched_check.h"

enum { NALLREDUCE = 40, COUNT = 1024 }; /* 8 KiB: above every provider's inject size */
#define SLEEP_S    1.2
#define BUSY_MAX_S 0.8

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Away from arbor: no call into it, only its progress thread runs. */
static void away(double seconds)
{
    struct timespec ts = {0, 10 * 1000 * 1000};
    double until = now_s() + seconds;
    while (now_s() < until) nanosleep(&ts, NULL);
}

static void busy_work(arbor_team_h team, int iter)
{
    int trank = -1, tsize = 0;
    arbor_team_rank(team, &trank);
    arbor_team_size(team, &tsize);
    static int64_t in[COUNT], out[COUNT];
    double t0 = now_s();
    for (int k = 0; k < NALLREDUCE; k++) {
        for (int i = 0; i < COUNT; i++) in[i] = (int64_t)(trank + 1) * (i + k + 1);
        arbor_status_t st = arbor_allreduce(team, in, out, COUNT, ARBOR_INT64, ARBOR_SUM);
        int64_t want = (int64_t)tsize * (tsize + 1) / 2;
        CHECK(st == ARBOR_OK && out[0] == want * (k + 1) && out[COUNT - 1] == want * (COUNT + k),
              "iteration %d allreduce %d: %s", iter, k, arbor_strerror(st));
        if (st != ARBOR_OK) break;
    }
    double dt = now_s() - t0;
    CHECK(dt < BUSY_MAX_S,
          "iteration %d: %d allreduces on the busy team took %.2f s while the other ranks were "
          "away (stalled until they came back?)",
          iter, NALLREDUCE, dt);
}

int main(void)
{
    setenv("ARBOR_PROGRESS", "thread", 0); /* as ARMCI_Init does */
    arbor_status_t st = arbor_init();
    if (st != ARBOR_OK) {
        fprintf(stderr, "arbor_init: %s\n", arbor_strerror(st));
        return 1;
    }
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    int iters = size < 4 ? size : 4;
    for (int it = 0; it < iters; it++) {
        int late = it % size, next = (late + 1) % size;
        bool busy = rank == late || (size > 2 && rank == next);
        /* The late rank enters last, so the others finish the split right after it arrives. */
        if (rank == late) away(0.02);
        arbor_team_h team = ARBOR_TEAM_NULL;
        st = arbor_team_split(ARBOR_TEAM_WORLD, busy ? 1 : 0, rank, &team);
        CHECK(st == ARBOR_OK && team != ARBOR_TEAM_NULL, "iteration %d: split: %s", it,
              arbor_strerror(st));
        if (st != ARBOR_OK) break;
        if (busy)
            busy_work(team, it);
        else
            away(SLEEP_S);
        st = arbor_barrier(ARBOR_TEAM_WORLD);
        CHECK(st == ARBOR_OK, "iteration %d: barrier: %s", it, arbor_strerror(st));
        st = arbor_team_free(&team);
        CHECK(st == ARBOR_OK, "iteration %d: team free: %s", it, arbor_strerror(st));
    }
    st = arbor_finalize();
    CHECK(st == ARBOR_OK, "finalize: %s", arbor_strerror(st));
    printf("split_leave rank %d: %d iterations, %d checks, %d failures\n", rank, iters, checks,
           failures);
    return failures ? 1 : 0;
}
