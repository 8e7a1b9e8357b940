/* shmem_global_exit ends every PE: the last PE calls it with status 7 while the others wait in
 * a barrier it never enters; the job must end (not hang) with a failure status. The wrapper
 * (ctest WILL_FAIL with a timeout) sees a hang as a failure of its own. Output says which PE
 * reached which point. */
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_barrier_all();
    if (me == npes - 1) {
        printf("PE %d: calling shmem_global_exit(7)\n", me);
        fflush(stdout);
        shmem_global_exit(7);
    }
    shmem_barrier_all(); /* never completes: the last PE is gone */
    printf("PE %d: passed a barrier it should not have\n", me);
    shmem_finalize();
    return 0;
}
