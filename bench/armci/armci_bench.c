/*
 * ARMCI benchmark (the ARMCI paper's figures 4 and 5: strided get / put / accumulate bandwidth
 * and latency, fetch-and-add rate), written against armci.h only and built twice: over
 * libarmci_arbor and over ARMCI-MPI (ARMCI_BENCH_WITH_MPI initialises MPI first). Every rank
 * works on its right neighbour at once; the figures are averages over ranks.
 * Output, one line per measurement: "<name> <bytes> <microseconds per operation>", where a put
 * or accumulate is timed up to its completion at the target (ARMCI_Fence). Checks the data of
 * the strided gets and every call's return code, and exits 1 when one is wrong.
 *   armci-bench [max_bytes (default 1 MiB)]
 */
#include <armci.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int me, nproc;
static size_t span; /* bytes of each rank's matrix allocation */

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

/* Average of every rank's time per operation. */
static double average(double us)
{
    armci_msg_dgop(&us, 1, "+");
    return us / nproc;
}

/* Each measurement stops after its iterations or BUDGET_US, whichever comes first (at least 3
 * iterations), so a slow path cannot stretch the run. */
#define BUDGET_US 300000.0
static int more(int i, int iters, double t0)
{
    return i < iters && (i < 3 || now_us() - t0 < BUDGET_US);
}

static int iterations(size_t bytes)
{
    size_t it = ((size_t)32 << 20) / (bytes ? bytes : 1); /* about 32 MiB per measurement */
    return it < 20 ? 20 : it > 2000 ? 2000 : (int)it;
}

enum { GET, PUT, ACC };
static const char *const kind_name[] = {"strided_get", "strided_put", "strided_acc"};

/* A square patch of doubles, rows x rows, out of a matrix twice as wide on both sides. */
static double strided(int kind, void **remote, double *local, size_t bytes, int *ok)
{
    int peer = (me + 1) % nproc;
    int cols = 1;
    while ((size_t)(cols + 1) * (cols + 1) * sizeof(double) <= bytes) cols++;
    int ld = 2 * cols * (int)sizeof(double);
    int stride[1] = {ld}, count[2] = {cols * (int)sizeof(double), cols};
    double one = 1.0;
    int iters = iterations(bytes);
    ARMCI_Barrier();
    double t0 = now_us();
    int rc = 0;
    int i;
    for (i = 0; more(i, iters, t0); i++) {
        if (kind == GET)
            rc |= ARMCI_GetS(remote[peer], stride, local, stride, count, 1, peer);
        else if (kind == PUT)
            rc |= ARMCI_PutS(local, stride, remote[peer], stride, count, 1, peer);
        else
            rc |= ARMCI_AccS(ARMCI_ACC_DBL, &one, local, stride, remote[peer], stride, count, 1,
                             peer);
        if (kind != GET) ARMCI_Fence(peer);
    }
    *ok &= rc == 0; /* a failing call is fast, not a result */
    double us = (now_us() - t0) / i;
    ARMCI_Barrier();
    if (kind == GET) { /* the neighbour's matrix holds its rank + 1 before any accumulate */
        for (int r = 0; r < cols; r++)
            for (int c = 0; c < cols; c++) *ok &= local[(size_t)r * 2 * cols + c] == peer + 1;
    }
    return average(us);
}

static double latency(int kind, void **remote, int *ok)
{
    int peer = (me + 1) % nproc, iters = 5000;
    double v = me, got = -1;
    ARMCI_Barrier();
    double t0 = now_us();
    int rc = 0;
    int i;
    for (i = 0; more(i, iters, t0); i++) {
        if (kind == GET) {
            rc |= ARMCI_Get(remote[peer], &got, sizeof got, peer);
        } else {
            /* the last double: outside every strided patch */
            rc |= ARMCI_Put(&v, (double *)remote[peer] + span / sizeof(double) - 1, sizeof v, peer);
            ARMCI_Fence(peer);
        }
    }
    *ok &= rc == 0;
    double us = (now_us() - t0) / i;
    ARMCI_Barrier();
    if (kind == GET) *ok &= got == peer + 1;
    return average(us);
}

static double fetch_add(void **counter, int *ok)
{
    int peer = (me + 1) % nproc, iters = 5000, old = 0, last = -1;
    ARMCI_Barrier();
    double t0 = now_us();
    int i;
    for (i = 0; more(i, iters, t0); i++) {
        *ok &= ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, counter[peer], 1, peer) == 0;
        *ok &= old > last; /* only this rank adds to its neighbour's counter */
        last = old;
    }
    double us = (now_us() - t0) / i;
    ARMCI_Barrier();
    return average(us);
}

int main(int argc, char **argv)
{
#ifdef ARMCI_BENCH_WITH_MPI
    MPI_Init(&argc, &argv);
#endif
    if (ARMCI_Init_args(&argc, &argv)) return 1;
    me = armci_msg_me();
    nproc = armci_msg_nproc();
    size_t max = argc > 1 ? strtoul(argv[1], NULL, 0) : (size_t)1 << 20;
    /* The matrices: 4 x max bytes (a square patch of max bytes in a twice-as-wide matrix). */
    void **remote = malloc(nproc * sizeof *remote), **counter = malloc(nproc * sizeof *counter);
    span = 4 * max + 4096;
    if (ARMCI_Malloc(remote, (armci_size_t)span) || ARMCI_Malloc(counter, 64)) return 1;
    double *local = malloc(span);
    ARMCI_Access_begin(remote[me]);
    for (size_t i = 0; i < span / sizeof(double); i++) ((double *)remote[me])[i] = me + 1;
    ARMCI_Access_end(remote[me]);
    ARMCI_Access_begin(counter[me]);
    memset(counter[me], 0, 64);
    ARMCI_Access_end(counter[me]);
    for (size_t i = 0; i < span / sizeof(double); i++) local[i] = 0;
    ARMCI_Barrier();

    int ok = 1;
    double lat_get = latency(GET, remote, &ok), lat_put = latency(PUT, remote, &ok);
    double fadd = fetch_add(counter, &ok);
    if (me == 0) {
        printf("get_latency 8 %.3f\n", lat_get);
        printf("put_latency 8 %.3f\n", lat_put);
        printf("fetch_and_add 4 %.3f\n", fadd);
    }
    for (int kind = GET; kind <= ACC; kind++)
        for (size_t bytes = 1024; bytes <= max; bytes *= 4) {
            double us = strided(kind, remote, local, bytes, &ok);
            if (me == 0) printf("%s %zu %.3f\n", kind_name[kind], bytes, us);
        }
    int bad = !ok;
    armci_msg_igop(&bad, 1, "+");
    if (me == 0 && bad) printf("check FAILED on %d ranks\n", bad);
    ARMCI_Free(counter[me]);
    ARMCI_Free(remote[me]);
    free(local);
    free(remote);
    free(counter);
    ARMCI_Finalize();
#ifdef ARMCI_BENCH_WITH_MPI
    MPI_Finalize();
#endif
    return bad ? 1 : 0;
}
