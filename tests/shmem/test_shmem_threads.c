/* OpenSHMEM at SHMEM_THREAD_MULTIPLE: two threads per PE, each with its own private context,
 * put into their own slots of the right neighbour and complete with ctx_quiet; a barrier, then
 * every slot is checked. Contexts share arbor's one completion stream (README.md, "Contexts"):
 * this checks that they are correct under threads, not that they are independent. Then threads
 * of every PE take the same locks (set_lock and test_lock loops) around a read-modify-write
 * through g / p that only mutual exclusion keeps exact. */
#include <pthread.h>
#include <shmem.h>
#include <stdint.h>

#include "shmem_check.h"

#define THREADS 2
#define ROUNDS  200

static long slots[THREADS][ROUNDS];
static int failures_in_threads;

/* Lock rounds: LOCK_THREADS threads per PE increment every PE's counter under that PE's lock. */
#define LOCK_THREADS 4
#define LOCK_ROUNDS  8
static long counter;
static long *locks;

static void *locker(void *p)
{
    int id = *(int *)p, me = shmem_my_pe(), npes = shmem_n_pes();
    for (int r = 0; r < LOCK_ROUNDS; r++)
        for (int pe = 0; pe < npes; pe++) {
            if ((me + id + r) % 2 == 0)
                shmem_set_lock(&locks[pe]);
            else
                while (shmem_test_lock(&locks[pe])) {
                }
            long seen = shmem_long_g(&counter, pe);
            shmem_long_p(&counter, seen + 1, pe);
            shmem_clear_lock(&locks[pe]);
        }
    return NULL;
}

struct arg {
    int id, right;
};

static void *worker(void *p)
{
    struct arg *a = p;
    shmem_ctx_t ctx;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
        __atomic_add_fetch(&failures_in_threads, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    long base = 1000L * shmem_my_pe() + 100L * a->id;
    for (int r = 0; r < ROUNDS; r++) {
        shmem_ctx_long_p(ctx, &slots[a->id][r], base + r, a->right);
        if (r % 16 == 15) shmem_ctx_quiet(ctx);
    }
    long got = 0;
    shmem_ctx_long_atomic_fetch_add(ctx, &slots[a->id][0], 0, a->right); /* an AMO per context */
    shmem_ctx_quiet(ctx);
    shmem_ctx_long_get(ctx, &got, &slots[a->id][ROUNDS - 1], 1, a->right);
    if (got != base + ROUNDS - 1) __atomic_add_fetch(&failures_in_threads, 1, __ATOMIC_RELAXED);
    shmem_ctx_destroy(ctx);
    return NULL;
}

int main(void)
{
    int provided = -1;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0) return 1;
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "provided %d", provided);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    pthread_t th[THREADS];
    struct arg args[THREADS];
    for (int t = 0; t < THREADS; t++) {
        args[t] = (struct arg){t, (me + 1) % npes};
        pthread_create(&th[t], NULL, worker, &args[t]);
    }
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    CHECK(failures_in_threads == 0, "%d threads saw wrong data", failures_in_threads);
    shmem_barrier_all();
    int left = (me + npes - 1) % npes;
    for (int t = 0; t < THREADS; t++)
        for (int r = 0; r < ROUNDS; r++)
            CHECK(slots[t][r] == 1000L * left + 100L * t + r, "slot %d.%d = %ld", t, r,
                  slots[t][r]);

    locks = shmem_calloc((size_t)npes, sizeof(long));
    shmem_barrier_all();
    pthread_t lt[LOCK_THREADS];
    int ids[LOCK_THREADS];
    for (int t = 0; t < LOCK_THREADS; t++) {
        ids[t] = t;
        pthread_create(&lt[t], NULL, locker, &ids[t]);
    }
    for (int t = 0; t < LOCK_THREADS; t++) pthread_join(lt[t], NULL);
    shmem_barrier_all();
    CHECK(counter == (long)npes * LOCK_THREADS * LOCK_ROUNDS, "locked counter %ld, want %ld",
          counter, (long)npes * LOCK_THREADS * LOCK_ROUNDS);
    shmem_free(locks);
    return shmem_check_finish("shmem_threads");
}
