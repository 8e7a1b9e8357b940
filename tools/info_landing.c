/*
 * arbor-info -L: the landing memory of the world team on every rank, through the public API
 * only (arbor_team_landing_bytes). Run it under the launcher (mpirun -np 4 arbor-info -L) or
 * alone; after init, then after one barrier, bcast and allreduce on the world, each rank prints
 * its channels and bytes (docs/PROTOCOL.md, "Landing channels").
 */
#include <stdio.h>

#include "arbor.h"

static void landing_line(int rank, int size, const char *when)
{
    size_t bytes = 0;
    int channels = 0;
    arbor_status_t st = arbor_team_landing_bytes(ARBOR_TEAM_WORLD, &bytes, &channels);
    if (st != ARBOR_OK) {
        printf("landing memory, world team: %s\n", arbor_strerror(st));
        return;
    }
    printf("landing memory, world team of %d, rank %d, %s: %d channels, %zu bytes\n", size, rank,
           when, channels, bytes);
}

int arbor_info_landing(void)
{
    arbor_status_t st = arbor_init();
    if (st != ARBOR_OK) {
        fprintf(stderr, "arbor-info: arbor_init: %s\n", arbor_strerror(st));
        return 1;
    }
    int rank = 0, size = 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    landing_line(rank, size, "after init");
    double x = 1, y = 0;
    st = arbor_barrier(ARBOR_TEAM_WORLD);
    if (st == ARBOR_OK) st = arbor_bcast(ARBOR_TEAM_WORLD, &x, sizeof(x), 0);
    if (st == ARBOR_OK) st = arbor_allreduce(ARBOR_TEAM_WORLD, &x, &y, 1, ARBOR_DOUBLE, ARBOR_SUM);
    if (st != ARBOR_OK) fprintf(stderr, "arbor-info: collectives: %s\n", arbor_strerror(st));
    landing_line(rank, size, "after barrier, bcast, allreduce");
    arbor_finalize();
    return st != ARBOR_OK;
}
