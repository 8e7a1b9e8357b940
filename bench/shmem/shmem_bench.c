/*
 * shmem-bench: OpenSHMEM micro-benchmarks written against the 1.4 API, so that the same source
 * builds against libshmem_arbor and against Open MPI's OSHMEM (which implements 1.4).
 *   put / get / fetch_add latency (PE 0 -> PE npes-1), put bandwidth 8 B .. 1 MiB (put_nbi in
 *   a window, then quiet), barrier_all, broadcast64, long sum_to_all, alltoall64 (world sets).
 * Each measurement is the median over rounds of the mean time per operation; PE 0 prints one
 * line per measurement as soon as it is done ("RESULT op bytes npes us MB/s"), so what
 * completed is on record even if the library fails at exit.
 *   shmem-bench [rounds]
 */
#include <shmem.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_BYTES  (1 << 20)
#define MAX_ROUNDS 15

static long
    pSync[SHMEM_BCAST_SYNC_SIZE > SHMEM_REDUCE_SYNC_SIZE
              ? (SHMEM_BCAST_SYNC_SIZE > SHMEM_ALLTOALL_SYNC_SIZE ? SHMEM_BCAST_SYNC_SIZE
                                                                  : SHMEM_ALLTOALL_SYNC_SIZE)
              : (SHMEM_REDUCE_SYNC_SIZE > SHMEM_ALLTOALL_SYNC_SIZE ? SHMEM_REDUCE_SYNC_SIZE
                                                                   : SHMEM_ALLTOALL_SYNC_SIZE)];
static long pWrk[1024 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int me, npes, rounds = 7;
static char *buf, *src;
static long *counter, *lsrc, *ldst;

enum op { PUT, GET, FADD, PUTBW, BARRIER, BCAST, SUM, ALLTOALL };
static const char *names[] = {"put",     "get",       "fetch_add", "put_bw",
                              "barrier", "broadcast", "sum",       "alltoall"};

/* One round: iters operations; returns the mean microseconds per operation on this PE. */
static double round_of(enum op op, size_t bytes, int iters)
{
    int target = npes - 1;
    bool origin = me == 0;
    shmem_barrier_all();
    double t0 = now_us();
    switch (op) {
    case PUT: /* blocking put, completed at the target by one quiet per operation */
        if (origin)
            for (int i = 0; i < iters; i++) {
                shmem_putmem(buf, src, bytes, target);
                shmem_quiet();
            }
        break;
    case GET:
        if (origin)
            for (int i = 0; i < iters; i++) shmem_getmem(src, buf, bytes, target);
        break;
    case FADD:
        if (origin)
            for (int i = 0; i < iters; i++) (void)shmem_long_atomic_fetch_add(counter, 1, target);
        break;
    case PUTBW: /* a window of non-blocking puts, then quiet */
        if (origin) {
            for (int i = 0; i < iters; i++) shmem_putmem_nbi(buf, src, bytes, target);
            shmem_quiet();
        }
        break;
    case BARRIER:
        for (int i = 0; i < iters; i++) shmem_barrier_all();
        break;
    case BCAST:
        for (int i = 0; i < iters; i++) {
            shmem_broadcast64(buf, src, bytes / 8, 0, 0, 0, npes, pSync);
            shmem_barrier_all(); /* pSync reuse */
        }
        break;
    case SUM:
        for (int i = 0; i < iters; i++) {
            shmem_long_sum_to_all(ldst, lsrc, (int)(bytes / 8), 0, 0, npes, pWrk, pSync);
            shmem_barrier_all();
        }
        break;
    case ALLTOALL:
        for (int i = 0; i < iters; i++) {
            shmem_alltoall64(buf, src, bytes / 8, 0, 0, npes, pSync);
            shmem_barrier_all();
        }
        break;
    }
    double t = (now_us() - t0) / iters;
    shmem_barrier_all();
    return t;
}

static void measure(enum op op, size_t bytes, int iters)
{
    double t[MAX_ROUNDS];
    (void)round_of(op, bytes, iters > 10 ? 10 : iters); /* warm-up */
    for (int r = 0; r < rounds; r++) t[r] = round_of(op, bytes, iters);
    qsort(t, (size_t)rounds, sizeof(double), cmp_double);
    double med = t[rounds / 2];
    if (me == 0) {
        double mbps = op == PUTBW || op == PUT || op == GET ? bytes / med : 0;
        printf("RESULT %s %zu %d %.4f %.1f\n", names[op], bytes, npes, med, mbps);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1) rounds = atoi(argv[1]);
    if (rounds < 1 || rounds > MAX_ROUNDS) rounds = 7;
    for (size_t i = 0; i < sizeof pSync / sizeof pSync[0]; i++) pSync[i] = SHMEM_SYNC_VALUE;
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    buf = shmem_malloc(MAX_BYTES * (size_t)npes);
    src = shmem_malloc(MAX_BYTES * (size_t)npes);
    counter = shmem_malloc(sizeof(long));
    lsrc = shmem_malloc(1024 * sizeof(long));
    ldst = shmem_malloc(1024 * sizeof(long));
    memset(src, me, MAX_BYTES * (size_t)npes);
    for (int i = 0; i < 1024; i++) lsrc[i] = me + i;
    *counter = 0;
    shmem_barrier_all();

    measure(PUT, 8, 2000);
    measure(GET, 8, 2000);
    measure(FADD, 8, 2000);
    for (size_t b = 8; b <= MAX_BYTES; b *= 8) measure(PUTBW, b, b >= 65536 ? 20 : 200);
    measure(PUTBW, MAX_BYTES, 20);
    measure(BARRIER, 0, 500);
    measure(BCAST, 8, 300);
    measure(BCAST, 65536, 50);
    measure(SUM, 8, 300);
    measure(SUM, 8192, 100);
    measure(ALLTOALL, 8, 300);
    measure(ALLTOALL, 8192, 50);

    /* Sanity: the sum of (PE + 0) over PEs, so that the table is of correct operations. */
    shmem_long_sum_to_all(ldst, lsrc, 1, 0, 0, npes, pWrk, pSync);
    shmem_barrier_all();
    int bad = ldst[0] != (long)npes * (npes - 1) / 2;
    if (me == 0) printf("CHECK sum %s\n", bad ? "WRONG" : "ok");
    fflush(stdout);
    shmem_free(ldst);
    shmem_free(lsrc);
    shmem_free(counter);
    shmem_free(src);
    shmem_free(buf);
    shmem_finalize();
    return bad;
}
