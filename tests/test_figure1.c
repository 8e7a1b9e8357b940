/*
 * Figure 1 of "UPC Collectives Library 2.0": neither code sequence may deadlock, even with the
 * ALLSYNC flags. EX1 holds a lock (here a file lock shared by every process of the node)
 * across the start of a collective: starts must not block. EX2 holds it across the wait:
 * one rank at a time waits while the others sit blocked in the lock, outside arbor, so their
 * part must progress without them; that takes ARBOR_PROGRESS=thread, which this test runs with.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "arbor.h"

int main(void)
{
    int rank, size, failures = 0;
    char path[128] = "";
    if (arbor_init() != ARBOR_OK) return 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    if (rank == 0) snprintf(path, sizeof(path), "/tmp/arbor-fig1-%d", (int)getpid());
    arbor_bcast(ARBOR_TEAM_WORLD, path, sizeof(path), 0);
    int fd = open(path, O_CREAT | O_RDWR, 0600);
    arbor_op_params_t p = {.field_mask = ARBOR_OP_PARAM_FLAGS,
                           .flags = ARBOR_IN_ALLSYNC | ARBOR_OUT_ALLSYNC};
    for (int ex = 1; ex <= 2; ex++) {
        for (int round = 0; round < 10; round++) {
            int64_t v = rank + round, s = -1;
            arbor_request_h h;
            arbor_status_t st1, st2;
            if (ex == 1) {
                flock(fd, LOCK_EX);
                st1 =
                    arbor_allreduce_nb(ARBOR_TEAM_WORLD, &v, &s, 1, ARBOR_INT64, ARBOR_SUM, &p, &h);
                flock(fd, LOCK_UN);
                st2 = arbor_wait(&h);
            } else {
                st1 =
                    arbor_allreduce_nb(ARBOR_TEAM_WORLD, &v, &s, 1, ARBOR_INT64, ARBOR_SUM, &p, &h);
                flock(fd, LOCK_EX);
                st2 = arbor_wait(&h);
                flock(fd, LOCK_UN);
                /* Without this the next round would deadlock by construction: a rank waiting
                 * (holding the lock) for round r + 1 needs every other rank to have started
                 * it, and they start it only after their round-r turn at the lock. */
                arbor_barrier(ARBOR_TEAM_WORLD);
            }
            int64_t want = (int64_t)size * (size - 1) / 2 + (int64_t)size * round;
            if (st1 != ARBOR_OK || st2 != ARBOR_OK || s != want) {
                fprintf(stderr, "rank %d: EX%d round %d: %s / %s, sum %lld (want %lld)\n", rank, ex,
                        round, arbor_strerror(st1), arbor_strerror(st2), (long long)s,
                        (long long)want);
                failures++;
            }
        }
    }
    close(fd);
    arbor_barrier(ARBOR_TEAM_WORLD);
    if (rank == 0) unlink(path);
    if (arbor_finalize() != ARBOR_OK) failures++;
    if (rank == 0 || failures)
        printf("rank %d: figure 1 %s\n", rank, failures ? "FAILED" : "passed");
    return failures != 0;
}
