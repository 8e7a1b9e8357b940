/*
 * shmem-ctx-bench: puts + quiet on private contexts, one thread per context, at
 * SHMEM_THREAD_MULTIPLE. Each thread puts 8 bytes to its own slot on the target PE and quiets its
 * context, for a fixed number of operations; PE 0 prints, for each thread count, the rate per
 * thread (the slowest thread's, millions per second of wall time) and the rate per second of
 * the threads' own CPU time, with the share of the wall time they were on a CPU:
 *   RESULT ctx_put_quiet threads T per_thread_Mops W per_cpu_s_Mops C on_cpu F
 * The scaling from 1 to T threads reads off directly (the target in clients/shmem/README.md:
 * each of 2 threads at least 0.8 of one thread alone). On a node with fewer free cores than
 * threads the wall rate measures the scheduler: the CPU-time rate is then what each thread
 * would reach on a core of its own, and the on-CPU share says how far the node let it run.
 *   shmem-ctx-bench [max threads] [operations per thread] [all|origin]
 * all (default): every PE's threads put to the next PE. origin: only PE 0's threads put (to the
 * last PE; at 1 PE to itself) while the other PEs sleep between polls of a flag, so that 2
 * threads of one PE fit on 2 cores.
 */
#include <pthread.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long *slots, *done_flag;
static long ops = 200000;
static int target;

static double seconds_of(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct worker {
    int id;
    double seconds, cpu_seconds;
};

static void *run(void *p)
{
    struct worker *w = p;
    shmem_ctx_t ctx;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
        w->seconds = -1;
        return NULL;
    }
    long value = w->id;
    double t0 = seconds_of(CLOCK_MONOTONIC), c0 = seconds_of(CLOCK_THREAD_CPUTIME_ID);
    for (long i = 0; i < ops; i++) {
        shmem_ctx_long_put(ctx, &slots[w->id * 16], &value, 1, target);
        shmem_ctx_quiet(ctx);
    }
    w->cpu_seconds = seconds_of(CLOCK_THREAD_CPUTIME_ID) - c0;
    w->seconds = seconds_of(CLOCK_MONOTONIC) - t0;
    shmem_ctx_destroy(ctx);
    return NULL;
}

/* A PE that only serves: sleeps between polls of the flag PE 0 sets, leaving the cores to PE 0's
 * threads (shmem_long_test drives this PE's progress where its transport needs it). */
static void serve_until_done(long round)
{
    const struct timespec nap = {0, 200000};
    while (!shmem_long_test(done_flag, SHMEM_CMP_GE, round)) nanosleep(&nap, NULL);
}

int main(int argc, char **argv)
{
    int max_threads = argc > 1 ? atoi(argv[1]) : 2;
    if (argc > 2) ops = atol(argv[2]);
    int origin_only = argc > 3 && strcmp(argv[3], "origin") == 0;
    if (max_threads < 1 || max_threads > 16) max_threads = 2;
    if (ops < 1) ops = 200000;
    int provided;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0 ||
        provided != SHMEM_THREAD_MULTIPLE) {
        fprintf(stderr, "SHMEM_THREAD_MULTIPLE not provided\n");
        return 1;
    }
    int me = shmem_my_pe(), npes = shmem_n_pes();
    target = origin_only ? npes - 1 : (me + 1) % npes;
    slots = shmem_calloc(16 * 16, sizeof(long));
    done_flag = shmem_calloc(1, sizeof(long));
    int bad = 0;
    for (int threads = 1; threads <= max_threads; threads++) {
        pthread_t th[16];
        struct worker w[16];
        shmem_barrier_all();
        if (origin_only && me != 0) {
            serve_until_done(threads);
            shmem_barrier_all();
            continue;
        }
        for (int t = 0; t < threads; t++) {
            w[t] = (struct worker){t, 0, 0};
            pthread_create(&th[t], NULL, run, &w[t]);
        }
        double slowest = 0, cpu = 0, wall = 0;
        for (int t = 0; t < threads; t++) {
            pthread_join(th[t], NULL);
            if (w[t].seconds < 0) bad = 1;
            if (w[t].seconds > slowest) slowest = w[t].seconds;
            cpu += w[t].cpu_seconds;
            wall += w[t].seconds;
        }
        if (origin_only)
            for (int pe = 1; pe < npes; pe++) shmem_long_atomic_set(done_flag, threads, pe);
        shmem_barrier_all();
        if (me == 0)
            printf("RESULT ctx_put_quiet threads %d per_thread_Mops %.4f per_cpu_s_Mops %.4f "
                   "on_cpu %.2f\n",
                   threads, ops / slowest / 1e6, ops * threads / cpu / 1e6, cpu / wall);
        fflush(stdout);
    }
    /* Every thread's last value landed in its slot of the target. */
    shmem_barrier_all();
    if (!origin_only || me == npes - 1)
        for (int t = 0; t < max_threads; t++) bad |= slots[t * 16] != t;
    if (bad) fprintf(stderr, "PE %d: wrong slot values or a context not created\n", me);
    shmem_free(done_flag);
    shmem_free(slots);
    shmem_finalize();
    return bad;
}
