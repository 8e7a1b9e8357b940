/*
 * Cancellation after a timeout. Rank 1 sleeps past ARBOR_TIMEOUT (run with
 * ARBOR_TIMEOUT=1) and only then roots a 1 MiB bcast of the world. Every other rank's bcast
 * into a malloc'd buffer must return ARBOR_ERR_TIMEOUT; the rank frees the buffer at once and
 * keeps working on a team without rank 1 while rank 1's late data arrives: under ASan any write
 * into the freed buffer is a heap-use-after-free. The world is then failed: a later call on it
 * returns ARBOR_ERR_TEAM at once on those ranks, and the other team still works.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arbor.h"
#include "launched_check.h"

enum { BYTES = 1 << 20 };

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A few allreduces on team t (no rank 1), each checked. */
static void work_on(arbor_team_h t, int n)
{
    int tr, ts;
    arbor_team_rank(t, &tr);
    arbor_team_size(t, &ts);
    for (int i = 0; i < n; i++) {
        int64_t in = tr + 1 + i, out = 0;
        arbor_status_t st = arbor_allreduce(t, &in, &out, 1, ARBOR_INT64, ARBOR_SUM);
        CHECK(st == ARBOR_OK && out == (int64_t)ts * (ts + 1) / 2 + (int64_t)i * ts,
              "allreduce %d on the team without rank 1: %s, got %lld", i, arbor_strerror(st),
              (long long)out);
    }
}

int main(void)
{
    if (arbor_init() != ARBOR_OK) return 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    const char *to = getenv("ARBOR_TIMEOUT");
    double timeout = to ? atof(to) : 0;
    if (size < 2 || timeout <= 0 || timeout > 5) {
        if (rank == 0) printf("cancel: needs 2+ ranks and 0 < ARBOR_TIMEOUT <= 5: skipped\n");
        arbor_finalize();
        return 77;
    }
    arbor_team_h others;
    CHECK(arbor_team_split(ARBOR_TEAM_WORLD, rank == 1 ? -1 : 0, 0, &others) == ARBOR_OK, "split");
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "barrier");

    if (rank == 1) {
        /* Late: the others have given up. The bcast finds no credits once the landing slots
         * are full, so it times out here too (or completes, if everything fitted). */
        usleep((useconds_t)(timeout * 2.5e6));
        uint8_t *buf = malloc(BYTES);
        memset(buf, 0xab, BYTES);
        arbor_status_t st = arbor_bcast(ARBOR_TEAM_WORLD, buf, BYTES, 1);
        /* The others may be in arbor_finalize by now (stopped: the bcast that waits for their
         * credits ends at once) or have left (the peer is lost). */
        CHECK(st == ARBOR_OK || st == ARBOR_ERR_TIMEOUT || st == ARBOR_ERR_PEER_LOST ||
                  st == ARBOR_ERR_PEER_STOPPED,
              "late root: %s", arbor_strerror(st));
        free(buf);
    } else {
        uint8_t *buf = malloc(BYTES);
        memset(buf, 0, BYTES);
        double t0 = now_s();
        arbor_status_t st = arbor_bcast(ARBOR_TEAM_WORLD, buf, BYTES, 1);
        double took = now_s() - t0;
        CHECK(st == ARBOR_ERR_TIMEOUT, "bcast without its root: %s", arbor_strerror(st));
        CHECK(took >= timeout * 0.9 && took < timeout + 2, "timeout after %.2f s", took);
        free(buf); /* cancelled: nothing may write here any more */
        t0 = now_s();
        st = arbor_barrier(ARBOR_TEAM_WORLD);
        CHECK(st == ARBOR_ERR_TEAM && now_s() - t0 < 0.5, "failed world: %s after %.2f s",
              arbor_strerror(st), now_s() - t0);
        /* Keep the progress engine busy on the other team while rank 1's data comes in
         * (the same number of collectives on every member, so no time-based loop). */
        int rounds = (int)(timeout * 2.5 / 0.05) + 1;
        for (int r = 0; r < rounds; r++) {
            work_on(others, 10);
            usleep(50000);
        }
        CHECK(arbor_team_free(&others) == ARBOR_OK, "free the other team");
    }
    /* The world failed on the ranks that gave up: finalize must still end, not hang. */
    arbor_status_t fin = arbor_finalize();
    if (rank == 0)
        printf("cancel: timeout %.1f s, buffer freed after the timeout, finalize: %s\n", timeout,
               arbor_strerror(fin));
    printf("cancel rank %d: %d checks, %d failures\n", rank, checks, failures);
    return failures ? 1 : 0;
}
