/*
 * A rank that only tests (never waits) learns of a failed collective as a waiter does.
 * argv[1] picks the failure:
 *   timeout:  rank 1 sleeps past ARBOR_TIMEOUT (run with ARBOR_TIMEOUT=2) before rooting a bcast;
 *             the others start it non-blocking and spin on a test call: ARBOR_ERR_TIMEOUT.
 *   peerlost: the last rank SIGKILLs itself (Open MPI must keep the job alive, as for
 *             test_peerlost.c); the others spin on a bcast it roots: ARBOR_ERR_PEER_LOST.
 * The spinners take turns over arbor_test, arbor_test_all and arbor_test_some (by their index
 * among the spinners and the mode), so each call is covered at P = 3 and one of them at P = 2.
 * Each checks the verdict, that the handle was released, that the receive buffer was not
 * touched and can be freed at once (ASan), that the world is failed (ARBOR_ERR_TEAM) and that a
 * team without the missing rank still computes and frees with ARBOR_OK. The spin is bounded by
 * a guard well inside the ctest timeout; no time is asserted.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arbor.h"
#include "launched_check.h"

enum { BYTES = 4096 };
static const double GUARD_S = 40; /* the ctest timeout is 60 s */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *const variant_name[3] = {"arbor_test", "arbor_test_all", "arbor_test_some"};

/* Spins on *req with the given test call until it reports something other than in progress
 * (or the guard runs out); returns that status, *calls the number of calls. */
static arbor_status_t spin(arbor_request_h *req, int variant, long *calls)
{
    double t0 = now_s();
    arbor_status_t st = ARBOR_INPROGRESS;
    *calls = 0;
    while (st == ARBOR_INPROGRESS && now_s() - t0 < GUARD_S) {
        ++*calls;
        if (variant == 0) {
            st = arbor_test(req);
        } else if (variant == 1) {
            arbor_request_h list[2] = {NULL, *req}; /* a NULL entry is skipped */
            st = arbor_test_all(2, list);
            *req = list[1];
        } else {
            size_t done = 0, index = 99;
            st = arbor_test_some(1, req, &done, &index);
            CHECK(st == ARBOR_INPROGRESS ? done == 0 : done == 1 && index == 0,
                  "test_some: %s with %zu done (index %zu)", arbor_strerror(st), done, index);
        }
    }
    return st;
}

int main(int argc, char **argv)
{
    if (arbor_init() != ARBOR_OK) return 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    int peerlost = argc > 1 && strcmp(argv[1], "peerlost") == 0;
    const char *to = getenv("ARBOR_TIMEOUT");
    double timeout = to ? atof(to) : 0;
    if (size < 2 || (!peerlost && (timeout <= 0 || timeout > 5))) {
        if (rank == 0) printf("spin_fail: needs 2+ ranks (timeout: 0 < ARBOR_TIMEOUT <= 5)\n");
        arbor_finalize();
        return 77;
    }
    int missing = peerlost ? size - 1 : 1;
    /* peerlost: a word on every rank, for a put to the killed rank after the free (not in the
     * timeout mode: an allocation starts the progress thread on OFI, and the late rank would
     * then serve the others while it sleeps). */
    arbor_mem_h mem = NULL;
    void *mine = NULL;
    if (peerlost)
        CHECK(arbor_mem_alloc(ARBOR_TEAM_WORLD, 64, &mem, &mine) == ARBOR_OK, "mem_alloc");
    arbor_team_h others;
    CHECK(arbor_team_split(ARBOR_TEAM_WORLD, rank == missing ? -1 : 0, 0, &others) == ARBOR_OK,
          "split");
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "barrier");

    if (rank == missing) {
        if (peerlost) {
            usleep(500000); /* let the barrier's last messages be answered (test_peerlost.c) */
            raise(SIGKILL);
        }
        /* Late: the others have given up. The bcast may complete (it fits in the landing
         * slots), time out, or find the others gone. */
        usleep((useconds_t)(timeout * 2.5e6));
        uint8_t buf[BYTES];
        memset(buf, 0xab, sizeof(buf));
        arbor_status_t st = arbor_bcast(ARBOR_TEAM_WORLD, buf, sizeof(buf), missing);
        CHECK(st == ARBOR_OK || st == ARBOR_ERR_TIMEOUT || st == ARBOR_ERR_PEER_LOST,
              "late root: %s", arbor_strerror(st));
    } else {
        int spinner = rank < missing ? rank : rank - 1;
        int variant = (spinner + (peerlost ? 2 : 0)) % 3;
        arbor_status_t want = peerlost ? ARBOR_ERR_PEER_LOST : ARBOR_ERR_TIMEOUT;
        uint8_t *buf = malloc(BYTES);
        memset(buf, 0x5a, BYTES);
        arbor_request_h req = NULL;
        arbor_status_t st = arbor_bcast_nb(ARBOR_TEAM_WORLD, buf, BYTES, missing, NULL, &req);
        CHECK(st == ARBOR_OK && req != NULL, "bcast_nb: %s", arbor_strerror(st));
        long calls = 0;
        double t0 = now_s();
        st = spin(&req, variant, &calls);
        double took = now_s() - t0;
        arbor_status_t verdict = st;
        CHECK(st == want, "%s on a bcast whose root %s: %s after %.2f s and %ld calls (want %s)",
              variant_name[variant], peerlost ? "was killed" : "never came", arbor_strerror(st),
              took, calls, arbor_strerror(want));
        CHECK(req == NULL, "%s kept the handle of the failed bcast", variant_name[variant]);
        if (req) arbor_wait(&req);
        int untouched = 1;
        for (int i = 0; i < BYTES; i++) untouched &= buf[i] == 0x5a;
        CHECK(untouched, "the cancelled bcast wrote into the buffer");
        free(buf); /* cancelled: nothing may write here any more */
        st = arbor_barrier(ARBOR_TEAM_WORLD);
        CHECK(st == ARBOR_ERR_TEAM, "the failed world's barrier: %s", arbor_strerror(st));
        int tr, ts;
        arbor_team_rank(others, &tr);
        arbor_team_size(others, &ts);
        int64_t in = tr + 1, out = 0;
        st = arbor_allreduce(others, &in, &out, 1, ARBOR_INT64, ARBOR_SUM);
        CHECK(st == ARBOR_OK && out == (int64_t)ts * (ts + 1) / 2,
              "allreduce on the team without the missing rank: %s, got %lld", arbor_strerror(st),
              (long long)out);
        /* Freeing a team flushes its members only: a write to the late or killed rank still
         * in flight (on OFI shm it completes only when that rank reads it) must not hold it.
         * It held it until ARBOR_TIMEOUT when the flush covered every endpoint
         * (docs/TRANSPORTS.md, "Lost peers"); that would read ARBOR_ERR_TIMEOUT here. */
        double f0 = now_s();
        st = arbor_team_free(&others);
        printf("spin_fail rank %d: free of the other team: %s after %.2f s\n", rank,
               arbor_strerror(st), now_s() - f0);
        CHECK(st == ARBOR_OK, "free the other team: %s", arbor_strerror(st));
        if (peerlost) {
            /* A put to the killed rank, then a fence to it: on OFI shm the put never completes
             * (nobody reads it), and the fence's flush must end with ARBOR_ERR_PEER_LOST (the
             * bootstrap knows the rank gone), not wait out ARBOR_TIMEOUT (30 s here). Elsewhere
             * the put may complete at once (UCX stores into the mapped segment). */
            void *there = NULL;
            uint64_t word = 42;
            CHECK(arbor_mem_addr(mem, missing, &there, NULL) == ARBOR_OK, "mem_addr");
            double p0 = now_s();
            st = arbor_put(missing, there, &word, sizeof(word));
            if (st == ARBOR_OK) st = arbor_fence(missing);
            printf("spin_fail rank %d: put + fence to the killed rank: %s after %.2f s\n", rank,
                   arbor_strerror(st), now_s() - p0);
            CHECK(st == ARBOR_OK || st == ARBOR_ERR_PEER_LOST, "put + fence to the killed rank: %s",
                  arbor_strerror(st));
        }
        printf("spin_fail %s rank %d: %s returned %s after %.2f s (%ld calls)\n",
               peerlost ? "peerlost" : "timeout", rank, variant_name[variant],
               arbor_strerror(verdict), took, calls);
    }
    arbor_status_t fin = arbor_finalize();
    if (rank == 0) printf("spin_fail: finalize %s\n", arbor_strerror(fin));
    printf("spin_fail rank %d: %d checks, %d failures\n", rank, checks, failures);
    return failures ? 1 : 0;
}
