/*
 * Nothing left in /dev/shm (runtime/segment.h): each rank records its pid in SHM_CLEAN_DIR after
 * init and some traffic between every pair (puts and an allreduce, so that every transport
 * connection is in use), then SHM_CLEAN_MODE=normal finalizes, and =kill has the last rank
 * SIGKILL itself while the others wait in a barrier and leave without finalizing once it fails
 * (or are killed by the launcher). tests/shm_clean.sh checks /dev/shm afterwards.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arbor.h"

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "FAIL: " __VA_ARGS__);                                                     \
        fputc('\n', stderr);                                                                       \
        exit(1);                                                                                   \
    } while (0)

int main(void)
{
    const char *dir = getenv("SHM_CLEAN_DIR"), *mode = getenv("SHM_CLEAN_MODE");
    int rank, size;
    if (!dir || !mode) FAIL("SHM_CLEAN_DIR and SHM_CLEAN_MODE must be set");
    if (arbor_init() != ARBOR_OK) FAIL("arbor_init");
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);

    uint64_t *cell = NULL;
    arbor_mem_h mem;
    if (arbor_mem_alloc(ARBOR_TEAM_WORLD, (size_t)size * sizeof(uint64_t), &mem, (void **)&cell) !=
        ARBOR_OK)
        FAIL("arbor_mem_alloc");
    for (int p = 0; p < size; p++) {
        uint64_t v = 100u * (uint64_t)rank + (uint64_t)p;
        void *there = NULL;
        if (arbor_mem_addr(mem, p, &there, NULL) != ARBOR_OK ||
            arbor_put(p, (uint64_t *)there + rank, &v, sizeof(v)) != ARBOR_OK)
            FAIL("put to %d", p);
    }
    arbor_quiet();
    arbor_barrier(ARBOR_TEAM_WORLD);
    for (int p = 0; p < size; p++)
        if (cell[p] != 100u * (uint64_t)p + (uint64_t)rank)
            FAIL("rank %d: cell %d holds %llu", rank, p, (unsigned long long)cell[p]);
    uint64_t one = 1, sum = 0;
    if (arbor_allreduce(ARBOR_TEAM_WORLD, &one, &sum, 1, ARBOR_UINT64, ARBOR_SUM) != ARBOR_OK ||
        sum != (uint64_t)size)
        FAIL("allreduce: %llu", (unsigned long long)sum);

    char path[512];
    snprintf(path, sizeof(path), "%s/pid.%d", dir, rank);
    FILE *f = fopen(path, "w");
    if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0) FAIL("writing %s", path);
    arbor_barrier(ARBOR_TEAM_WORLD);

    if (!strcmp(mode, "kill")) {
        if (rank == size - 1) raise(SIGKILL);
        arbor_barrier(ARBOR_TEAM_WORLD); /* fails once the peer is gone (or we are killed) */
        _exit(3);                        /* a crash: no finalize */
    }
    arbor_mem_free(&mem);
    if (arbor_finalize() != ARBOR_OK) FAIL("arbor_finalize");
    if (rank == 0) printf("shm_clean: %d ranks, normal run\n", size);
    return 0;
}
