/*
 * shmem-ctx-bench: puts + quiet on private contexts, one thread per context, at
 * SHMEM_THREAD_MULTIPLE. Each thread puts 8 bytes to its own slot on the next PE and quiets its
 * context, for a fixed number of operations; PE 0 prints each thread count's rate per thread
 * ("RESULT ctx_put_quiet threads T per_thread_Mops"), so the scaling from 1 to T threads reads
 * off directly (the target in clients/shmem/README.md: each of 2 threads at least 0.8 of one thread
 * alone). shmem-ctx-bench [max threads] [operations per thread]
 */
#include <pthread.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long *slots;
static long ops = 200000;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct worker {
    int id;
    double seconds;
};

static void *run(void *p)
{
    struct worker *w = p;
    shmem_ctx_t ctx;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
        w->seconds = -1;
        return NULL;
    }
    int target = (shmem_my_pe() + 1) % shmem_n_pes();
    long value = w->id;
    double t0 = now_s();
    for (long i = 0; i < ops; i++) {
        shmem_ctx_long_put(ctx, &slots[w->id * 16], &value, 1, target);
        shmem_ctx_quiet(ctx);
    }
    w->seconds = now_s() - t0;
    shmem_ctx_destroy(ctx);
    return NULL;
}

int main(int argc, char **argv)
{
    int max_threads = argc > 1 ? atoi(argv[1]) : 2;
    if (argc > 2) ops = atol(argv[2]);
    if (max_threads < 1 || max_threads > 16) max_threads = 2;
    int provided;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0 ||
        provided != SHMEM_THREAD_MULTIPLE) {
        fprintf(stderr, "SHMEM_THREAD_MULTIPLE not provided\n");
        return 1;
    }
    slots = shmem_calloc(16 * 16, sizeof(long));
    for (int threads = 1; threads <= max_threads; threads++) {
        pthread_t th[16];
        struct worker w[16];
        shmem_barrier_all();
        for (int t = 0; t < threads; t++) {
            w[t] = (struct worker){t, 0};
            pthread_create(&th[t], NULL, run, &w[t]);
        }
        double slowest = 0;
        for (int t = 0; t < threads; t++) {
            pthread_join(th[t], NULL);
            if (w[t].seconds > slowest) slowest = w[t].seconds;
        }
        shmem_barrier_all();
        if (shmem_my_pe() == 0)
            printf("RESULT ctx_put_quiet threads %d per_thread_Mops %.2f\n", threads,
                   ops / slowest / 1e6);
        fflush(stdout);
    }
    shmem_free(slots);
    shmem_finalize();
    return 0;
}
