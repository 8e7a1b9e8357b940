/*
 * A rank that never joins: with ARBOR_TIMEOUT=T the others must get an error
 * from a bounded wait, not hang in the bootstrap. Launched at P = 3; the last rank is late.
 *   init:     the late rank sleeps before arbor_init; the others' arbor_init must return
 *             ARBOR_ERR_TIMEOUT before it comes (a fence with no bound would wait for it, or
 *             forever if it never came). The late rank, finding nobody, fails too (bounded).
 *   finalize: every rank initialises and runs an allreduce; then the late rank sleeps before
 *             arbor_finalize; the others' finalize must return (an error) before it arrives.
 * The late rank's identity comes from PMIX_RANK, set by every PMIx launcher (the test cannot
 * ask arbor before arbor_init). LATE_S is the late rank's sleep; a returning rank must be back
 * well before it, which is a bound on the logic (bounded vs unbounded), not a timing figure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arbor.h"
#include "launched_check.h"

enum { LATE_S = 12, JOB_SIZE = 3 };

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int late_init(int me)
{
    rank = me;
    if (me == JOB_SIZE - 1) {
        /* Open MPI ends the job if a rank exits without PMIx's init, so it comes late. */
        sleep(LATE_S);
        double t0 = now_s();
        arbor_status_t st = arbor_init();
        CHECK(st == ARBOR_ERR_TIMEOUT || st == ARBOR_ERR_PEER_LOST,
              "the late rank's arbor_init without the others: %s (want a timeout, or the others "
              "gone)",
              arbor_strerror(st));
        if (st == ARBOR_OK) arbor_finalize();
        printf("late_rank init rank %d (late): arbor_init returned %s after %.2f s\n", me,
               arbor_strerror(st), now_s() - t0);
        printf("late_rank rank %d: %d checks, %d failures\n", me, checks, failures);
        return failures ? 1 : 0;
    }
    double t0 = now_s();
    arbor_status_t st = arbor_init();
    double took = now_s() - t0;
    CHECK(st == ARBOR_ERR_TIMEOUT, "arbor_init without rank %d: %s (want a timeout)", JOB_SIZE - 1,
          arbor_strerror(st));
    CHECK(took < LATE_S - 1, "arbor_init returned after %.1f s, not before the late rank left",
          took);
    if (st == ARBOR_OK) arbor_finalize();
    printf("late_rank init rank %d: arbor_init returned %s after %.2f s\n", me, arbor_strerror(st),
           took);
    printf("late_rank rank %d: %d checks, %d failures\n", me, checks, failures);
    return failures ? 1 : 0;
}

static int late_finalize(void)
{
    if (arbor_init() != ARBOR_OK) return 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    int64_t in = rank + 1, out = 0;
    arbor_status_t st = arbor_allreduce(ARBOR_TEAM_WORLD, &in, &out, 1, ARBOR_INT64, ARBOR_SUM);
    CHECK(st == ARBOR_OK && out == (int64_t)size * (size + 1) / 2, "allreduce: %s, %lld",
          arbor_strerror(st), (long long)out);
    if (rank == size - 1) sleep(LATE_S);
    double t0 = now_s();
    st = arbor_finalize();
    double took = now_s() - t0;
    if (rank != size - 1) {
        CHECK(st != ARBOR_OK, "finalize without rank %d returned ARBOR_OK", size - 1);
        CHECK(took < LATE_S - 1, "finalize returned after %.1f s, not before the late rank came",
              took);
    }
    printf("late_rank finalize rank %d: arbor_finalize returned %s after %.2f s\n", rank,
           arbor_strerror(st), took);
    printf("late_rank rank %d: %d checks, %d failures\n", rank, checks, failures);
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    const char *r = getenv("PMIX_RANK");
    if (argc < 2 || !r) {
        fprintf(stderr, "usage: PMIX_RANK=.. %s init|finalize (under a PMIx launcher)\n", argv[0]);
        return 77;
    }
    if (!strcmp(argv[1], "init")) return late_init(atoi(r));
    return late_finalize();
}
