/*
 * A stalled active-message credit wait sleeps in interrupt mode (docs/PROGRESS.md). Run with
 * ARBOR_PROGRESS=interrupt, 2+ ranks: after a barrier rank 0 sleeps SLEEP_S without calling
 * arbor; every other rank sends it REQUESTS requests without replies, more than its reply
 * credits, so the send past the credits waits until rank 0 runs the handlers and returns them.
 * The senders measure their CPU time (getrusage: every thread of the process) against the wall
 * time of the sends; it must stay under MAX_CPU of it (a spinning wait uses about 100%). Rank 0
 * then checks that every request ran once, in issue order per origin, with its payload.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "arbor.h"
#include "cpu_time.h"
#include "launched_check.h"

enum { REQUESTS = 40, H_COUNT = 1, MAX_RANKS = 64 };
static const double SLEEP_S = 2, MAX_CPU = 0.10, GUARD_S = 30;

static uint64_t next_seq[MAX_RANKS];
static int handled, out_of_order;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void on_count(arbor_am_token_h token, int src, void *payload, size_t nbytes, void *arg)
{
    (void)token;
    (void)arg;
    uint64_t seq = 0;
    if (nbytes == sizeof(seq) && src >= 0 && src < MAX_RANKS) {
        seq = *(uint64_t *)payload;
        if (seq != next_seq[src]) out_of_order++;
        next_seq[src] = seq + 1;
    } else {
        out_of_order++;
    }
    handled++;
}

int main(void)
{
    if (arbor_init() != ARBOR_OK) return 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    const char *mode = getenv("ARBOR_PROGRESS");
    if (size < 2 || size > MAX_RANKS || !mode || strcmp(mode, "interrupt") != 0) {
        if (rank == 0)
            printf("am_stall: needs 2-%d ranks and ARBOR_PROGRESS=interrupt\n", MAX_RANKS);
        arbor_finalize();
        return 77;
    }
    CHECK(arbor_am_register(H_COUNT, on_count, NULL) == ARBOR_OK, "register");
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "barrier");
    if (rank == 0) {
        usleep((useconds_t)(SLEEP_S * 1e6)); /* computing: no arbor call, no progress */
        int want = (size - 1) * REQUESTS;
        double t0 = now_s();
        while (handled < want && now_s() - t0 < GUARD_S) arbor_poll();
        CHECK(handled == want, "%d requests ran, %d sent", handled, want);
        CHECK(out_of_order == 0, "%d requests out of order or with a wrong payload", out_of_order);
        for (int r = 1; r < size; r++)
            CHECK(next_seq[r] == REQUESTS, "rank %d: %llu requests ran", r,
                  (unsigned long long)next_seq[r]);
    } else {
        double w0 = now_s(), c0 = cpu_s();
        for (uint64_t i = 0; i < REQUESTS; i++) {
            arbor_status_t st = arbor_am_request(0, H_COUNT, &i, sizeof(i));
            CHECK(st == ARBOR_OK, "request %llu: %s", (unsigned long long)i, arbor_strerror(st));
        }
        double wall = now_s() - w0, cpu = cpu_s() - c0;
        CHECK(wall > SLEEP_S / 2, "the sends took %.2f s: they never waited for a credit", wall);
        CHECK(cpu < MAX_CPU * wall, "the credit wait used %.3f s of CPU in %.2f s (%.1f%%)", cpu,
              wall, 100 * cpu / wall);
        printf("am_stall rank %d: %d requests in %.2f s, %.3f s of CPU (%.1f%%)\n", rank, REQUESTS,
               wall, cpu, 100 * cpu / wall);
    }
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "closing barrier");
    arbor_finalize();
    printf("am_stall rank %d: %d checks, %d failures\n", rank, checks, failures);
    return failures ? 1 : 0;
}
