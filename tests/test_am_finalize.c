/*
 * arbor_finalize runs every active message sent before it: every rank but 0 sends requests to
 * rank 0 and finalizes at once; rank 0 never polls before its own finalize, then checks that its
 * handler ran for every one of them.
 */
#include <stdio.h>

#include "arbor.h"

enum { PER_RANK = 200 };

static volatile long ran;

static void count(arbor_am_token_h token, int src, void *payload, size_t nbytes, void *arg)
{
    (void)token, (void)src, (void)payload, (void)nbytes, (void)arg;
    ran++;
}

int main(void)
{
    int rank, size;
    if (arbor_init() != ARBOR_OK) return 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    if (arbor_am_register(0, count, NULL) != ARBOR_OK) return 1;
    if (arbor_barrier(ARBOR_TEAM_WORLD) != ARBOR_OK) return 1;
    for (int i = 0; rank != 0 && i < PER_RANK; i++) {
        long v = i;
        arbor_status_t st = arbor_am_request(0, 0, &v, sizeof(v));
        if (st != ARBOR_OK) {
            fprintf(stderr, "rank %d: request %d: %s\n", rank, i, arbor_strerror(st));
            return 1;
        }
    }
    if (arbor_finalize() != ARBOR_OK) return 1;
    long want = (long)(size - 1) * PER_RANK;
    if (rank == 0) {
        printf("rank 0 of %d: %ld of %ld requests ran by the end of finalize: %s\n", size, ran,
               want, ran == want ? "passed" : "FAILED");
        return ran == want ? 0 : 1;
    }
    return 0;
}
