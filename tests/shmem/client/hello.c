/* The installed OpenSHMEM: every PE puts its number into its right neighbour's symmetric
 * static variable, and checks what its left neighbour put. */
#include <shmem.h>
#include <stdio.h>

static int from_left = -1;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_int_p(&from_left, me, (me + 1) % npes);
    shmem_barrier_all();
    int ok = from_left == (me + npes - 1) % npes;
    printf("shmem-hello: PE %d of %d %s\n", me, npes, ok ? "ok" : "WRONG");
    shmem_finalize();
    return ok ? 0 : 1;
}
