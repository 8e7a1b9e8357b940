/* Self-checking helpers of the OpenSHMEM test programs: a failed check prints where and what,
 * and the program exits nonzero on every PE when any PE had a failure, so ctest sees it. */
#ifndef SHMEM_CHECK_H
#define SHMEM_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int shmem_check_failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            shmem_check_failures++;                                                                \
            fprintf(stderr, "PE %d: %s:%d: check failed: %s: ", shmem_my_pe(), __FILE__, __LINE__, \
                    #cond);                                                                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* Every PE's verdict: the sum of failures over all PEs, so every PE exits with the same code. */
static inline int shmem_check_finish(const char *name)
{
    static long failures, total;
    failures = shmem_check_failures;
    shmem_barrier_all();
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &total, &failures, 1);
    if (shmem_my_pe() == 0)
        printf("%s: %s (%ld failed checks over %d PEs)\n", name, total ? "FAILED" : "passed", total,
               shmem_n_pes());
    shmem_finalize();
    return total ? 1 : 0;
}

#endif
