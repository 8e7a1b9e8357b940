/*
 * arbor_init after arbor_finalize: several init / allreduce / finalize
 * cycles in one process must each succeed on every rank.
 */
#include <stdint.h>
#include <stdio.h>

#include "arbor.h"
#include "launched_check.h"

enum { CYCLES = 4 };

int main(void)
{
    for (int c = 0; c < CYCLES; c++) {
        arbor_status_t st = arbor_init();
        CHECK(st == ARBOR_OK, "cycle %d: init: %s", c, arbor_strerror(st));
        if (st != ARBOR_OK) break;
        arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
        arbor_team_size(ARBOR_TEAM_WORLD, &size);
        int64_t in = rank + 1 + c, out = 0;
        st = arbor_allreduce(ARBOR_TEAM_WORLD, &in, &out, 1, ARBOR_INT64, ARBOR_SUM);
        CHECK(st == ARBOR_OK && out == (int64_t)size * (size + 1) / 2 + (int64_t)c * size,
              "cycle %d: allreduce: %s, %lld", c, arbor_strerror(st), (long long)out);
        st = arbor_finalize();
        CHECK(st == ARBOR_OK, "cycle %d: finalize: %s", c, arbor_strerror(st));
        CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_ERR_NOT_INITIALIZED, "after finalize");
    }
    printf("reinit rank %d: %d cycles, %d checks, %d failures\n", rank, CYCLES, checks, failures);
    return failures ? 1 : 0;
}
