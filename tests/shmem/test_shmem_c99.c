/* shmem.h in a C99 program (no generic selections): the typed calls and the pre-C11 long
 * forms of shmem_wait_until / shmem_wait link and work. */
#include <shmem.h>
#include <stdio.h>

static long flag, second;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_long_p(&flag, 5, (me + 1) % n);
    shmem_wait_until(&flag, SHMEM_CMP_EQ, 5);
    shmem_long_p(&second, 9, (me + 1) % n);
    shmem_wait(&second, 0);
    shmem_barrier_all();
    int ok = flag == 5 && second == 9;
    static long mine, total;
    mine = !ok;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &total, &mine, 1);
    if (me == 0) printf("shmem_c99: %s\n", total ? "FAILED" : "passed");
    shmem_finalize();
    return total ? 1 : 0;
}
