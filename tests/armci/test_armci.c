/*
 * ARMCI conformance test: written against armci.h only, linked once against libarmci_arbor and
 * once against Debian's ARMCI-MPI, run at P = 1..4. Every transfer's data is checked.
 * ARMCI_TEST_ARBOR (arbor build only) adds the error-code checks: ARMCI-MPI aborts on a bad
 * pointer instead of returning an error. ARMCI_TEST_WITH_MPI (ARMCI-MPI build) initialises MPI
 * first, which ARMCI-MPI requires; the arbor build does not use MPI.
 */
#include <armci.h>
#include <complex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../launched_check.h"

#define N 64 /* doubles per rank in the contiguous tests */

/* ARMCI_Malloc memory is not zeroed by ARMCI-MPI, and direct local access to it is bracketed
 * by Access_begin / end (ARMCI-MPI locks its window there). */
static void **alloc(armci_size_t bytes)
{
    void **ptr = malloc(size * sizeof *ptr);
    CHECK(ARMCI_Malloc(ptr, bytes) == 0, "ARMCI_Malloc(%ld)", (long)bytes);
    ARMCI_Access_begin(ptr[rank]);
    memset(ptr[rank], 0, (size_t)bytes);
    ARMCI_Access_end(ptr[rank]);
    ARMCI_Barrier();
    return ptr;
}

static void release(void **ptr)
{
    ARMCI_Barrier();
    CHECK(ARMCI_Free(ptr[rank]) == 0, "ARMCI_Free");
    free(ptr);
}

static void test_contiguous(void)
{
    void **ptr = alloc(N * sizeof(double));
    double *mine = ptr[rank];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double buf[N], back[N];
    for (int i = 0; i < N; i++) buf[i] = rank * 1000 + i;
    CHECK(ARMCI_Put(buf, ptr[right], N * sizeof(double), right) == 0, "ARMCI_Put");
    ARMCI_Barrier();
    for (int i = 0; i < N; i++)
        CHECK(mine[i] == left * 1000 + i, "put: [%d] = %g, want %d", i, mine[i], left * 1000 + i);
    CHECK(ARMCI_Get(ptr[right], back, N * sizeof(double), right) == 0, "ARMCI_Get");
    for (int i = 0; i < N; i++) CHECK(back[i] == rank * 1000 + i, "get: [%d] = %g", i, back[i]);
    ARMCI_Barrier();
    /* Every rank accumulates 2 * (r + 1) into every rank's first 8 doubles. */
    double one[8], two = 2.0;
    for (int i = 0; i < 8; i++) one[i] = rank + 1;
    for (int p = 0; p < size; p++)
        CHECK(ARMCI_Acc(ARMCI_ACC_DBL, &two, one, ptr[p], sizeof one, p) == 0, "ARMCI_Acc");
    ARMCI_Barrier();
    double want = size * (size + 1); /* 2 * sum(r + 1) */
    for (int i = 0; i < 8; i++)
        CHECK(mine[i] == left * 1000 + i + want, "acc: [%d] = %g", i, mine[i]);
    release(ptr);
}

/* A ROWS x COLS matrix of ints per rank; each rank writes a patch of its right neighbour's. */
#define ROWS 12
#define COLS 10
static void test_strided(void)
{
    void **ptr = alloc(ROWS * COLS * sizeof(int));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int patch[5][4]; /* 5 rows x 4 columns at (2, 3) */
    for (int r = 0; r < 5; r++)
        for (int c = 0; c < 4; c++) patch[r][c] = rank * 100 + r * 10 + c;
    int src_stride[1] = {4 * sizeof(int)}, dst_stride[1] = {COLS * sizeof(int)};
    int count[2] = {4 * sizeof(int), 5};
    int *target = (int *)ptr[right] + 2 * COLS + 3;
    CHECK(ARMCI_PutS(patch, src_stride, target, dst_stride, count, 1, right) == 0, "PutS");
    ARMCI_Barrier();
    int *m = ptr[rank];
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++) {
            int in = r >= 2 && r < 7 && c >= 3 && c < 7;
            int want = in ? left * 100 + (r - 2) * 10 + (c - 3) : 0;
            CHECK(m[r * COLS + c] == want, "PutS: (%d,%d) = %d, want %d", r, c, m[r * COLS + c],
                  want);
        }
    ARMCI_Barrier(); /* before the left neighbour's AccS lands here */
    int got[5][4];
    memset(got, 0xff, sizeof got);
    CHECK(ARMCI_GetS(target, dst_stride, got, src_stride, count, 1, right) == 0, "GetS");
    CHECK(memcmp(got, patch, sizeof got) == 0, "GetS data");
    /* AccS with scale 3 on the same patch. */
    int three = 3;
    CHECK(ARMCI_AccS(ARMCI_ACC_INT, &three, patch, src_stride, target, dst_stride, count, 1,
                     right) == 0,
          "AccS");
    ARMCI_Barrier();
    for (int r = 0; r < 5; r++)
        for (int c = 0; c < 4; c++)
            CHECK(m[(r + 2) * COLS + c + 3] == 4 * (left * 100 + r * 10 + c), "AccS (%d,%d)", r, c);
    release(ptr);
}

/* Seven stride levels: 2 pieces of 8 bytes per level, every level twice as far apart. */
static void test_seven_levels(void)
{
    enum { L = 7, PIECES = 1 << L };
    size_t span = (size_t)16 << L; /* level i stride 16 << i bytes, pieces of 8 */
    void **ptr = alloc((armci_size_t)span);
    int right = (rank + 1) % size;
    int64_t src[PIECES];
    for (int i = 0; i < PIECES; i++) src[i] = rank * 1000 + i;
    int src_stride[L], dst_stride[L], count[L + 1];
    count[0] = 8;
    for (int i = 0; i < L; i++) {
        src_stride[i] = 8 << i; /* packed source */
        dst_stride[i] = 16 << i;
        count[i + 1] = 2;
    }
    CHECK(ARMCI_PutS(src, src_stride, ptr[right], dst_stride, count, L, right) == 0, "PutS L7");
    ARMCI_Barrier();
    int64_t back[PIECES];
    CHECK(ARMCI_GetS(ptr[right], dst_stride, back, src_stride, count, L, right) == 0, "GetS L7");
    CHECK(memcmp(back, src, sizeof back) == 0, "7-level round trip");
    int left = (rank + size - 1) % size;
    char *m = ptr[rank];
    for (int i = 0; i < PIECES; i++) {
        size_t off = 0; /* bit j of i picks the second piece of level j + 1 */
        for (int j = 0; j < L; j++) off += ((i >> j) & 1) ? (size_t)(16 << j) : 0;
        int64_t v;
        memcpy(&v, m + off, 8);
        CHECK(v == left * 1000 + i, "7-level piece %d = %lld", i, (long long)v);
        memcpy(&v, m + off + 8, 8);
        CHECK(v == 0, "7-level gap after piece %d written", i);
    }
    release(ptr);
}

/* Accumulate with a scale on every ARMCI type into rank 0's buffer. */
static void test_acc_types(void)
{
    enum { K = 6 };
    void **ptr = alloc(6 * K * 16);
    char *base = ptr[0];
    int iv[K], is = 2;
    long lv[K], ls = 3;
    float fv[K], fs = 0.5f;
    double dv[K], ds = 1.5;
    float complex cv[K], cs = 1.0f + 1.0f * I;
    double complex zv[K], zs = 2.0 - 1.0 * I;
    for (int i = 0; i < K; i++) {
        iv[i] = rank + i;
        lv[i] = (long)rank * 100000 + i;
        fv[i] = (float)(rank + i);
        dv[i] = rank + 0.25 * i;
        cv[i] = (float)rank + (float)i * I;
        zv[i] = rank - (double)i * I;
    }
    CHECK(ARMCI_Acc(ARMCI_ACC_INT, &is, iv, base, sizeof iv, 0) == 0, "Acc INT");
    CHECK(ARMCI_Acc(ARMCI_ACC_LNG, &ls, lv, base + K * 16, sizeof lv, 0) == 0, "Acc LNG");
    CHECK(ARMCI_Acc(ARMCI_ACC_FLT, &fs, fv, base + 2 * K * 16, sizeof fv, 0) == 0, "Acc FLT");
    CHECK(ARMCI_Acc(ARMCI_ACC_DBL, &ds, dv, base + 3 * K * 16, sizeof dv, 0) == 0, "Acc DBL");
    CHECK(ARMCI_Acc(ARMCI_ACC_CPL, &cs, cv, base + 4 * K * 16, sizeof cv, 0) == 0, "Acc CPL");
    CHECK(ARMCI_Acc(ARMCI_ACC_DCP, &zs, zv, base + 5 * K * 16, sizeof zv, 0) == 0, "Acc DCP");
    ARMCI_Barrier();
    if (rank == 0) {
        char *m = ptr[0];
        double rs = size * (size - 1) / 2.0; /* sum of ranks */
        for (int i = 0; i < K; i++) {
            CHECK(((int *)m)[i] == 2 * (int)(rs + size * i), "INT[%d] = %d", i, ((int *)m)[i]);
            CHECK(((long *)(m + K * 16))[i] == 3 * ((long)rs * 100000 + (long)size * i), "LNG[%d]",
                  i);
            CHECK(((float *)(m + 2 * K * 16))[i] == 0.5f * (float)(rs + size * i), "FLT[%d]", i);
            CHECK(((double *)(m + 3 * K * 16))[i] == 1.5 * (rs + 0.25 * size * i), "DBL[%d]", i);
            float complex cw = cs * ((float)rs + (float)(size * i) * I);
            CHECK(((float complex *)(m + 4 * K * 16))[i] == cw, "CPL[%d]", i);
            double complex zw = zs * (rs - (double)(size * i) * I);
            CHECK(((double complex *)(m + 5 * K * 16))[i] == zw, "DCP[%d]", i);
        }
    }
    release(ptr);
}

/* Vector: every rank writes its value to the even doubles of its right neighbour (two iov
 * entries of different segment sizes), gets them back, and accumulates into the odd ones. */
static void test_vector(void)
{
    enum { M = 16 };
    void **ptr = alloc(2 * M * sizeof(double));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double *dst = ptr[right];
    double vals[M];
    void *src_a[M], *dst_a[M], *src_b[M / 2], *dst_b[M / 2];
    for (int i = 0; i < M; i++) {
        vals[i] = rank * 100 + i;
        src_a[i] = &vals[i];
        dst_a[i] = &dst[2 * i];
    }
    double pair[M / 2][2];
    for (int i = 0; i < M / 2; i++) { /* 16-byte segments at doubles 2M/2.. (second half) */
        pair[i][0] = -rank - i;
        pair[i][1] = rank + i;
        src_b[i] = pair[i];
        dst_b[i] = &dst[M + 2 * i];
    }
    /* doubles 0, 2, .., 14 (8-byte segments) and 16..31 (16-byte segments) */
    armci_giov_t iov[2] = {{src_a, dst_a, sizeof(double), M / 2}, {src_b, dst_b, 16, M / 2}};
    CHECK(ARMCI_PutV(iov, 2, right) == 0, "PutV");
    ARMCI_Barrier();
    double *m = ptr[rank];
    for (int i = 0; i < M / 2; i++) {
        CHECK(m[2 * i] == left * 100 + i, "PutV seg a %d = %g", i, m[2 * i]);
        CHECK(m[M + 2 * i] == -left - i && m[M + 2 * i + 1] == left + i, "PutV seg b %d", i);
    }
    double got[M / 2];
    void *gsrc[M / 2], *gdst[M / 2];
    for (int i = 0; i < M / 2; i++) {
        gsrc[i] = &dst[2 * i];
        gdst[i] = &got[i];
    }
    armci_giov_t giov = {gsrc, gdst, sizeof(double), M / 2};
    CHECK(ARMCI_GetV(&giov, 1, right) == 0, "GetV");
    for (int i = 0; i < M / 2; i++) CHECK(got[i] == rank * 100 + i, "GetV %d = %g", i, got[i]);
    ARMCI_Barrier();
    /* AccV: every rank adds 2 * (rank + 1) to the odd doubles 1, 3, .., 15 of rank 0. */
    double add = rank + 1, two = 2.0;
    void *asrc[M / 2], *adst[M / 2];
    for (int i = 0; i < M / 2; i++) {
        asrc[i] = &add;
        adst[i] = (double *)ptr[0] + 2 * i + 1;
    }
    armci_giov_t aiov = {asrc, adst, sizeof(double), M / 2};
    CHECK(ARMCI_AccV(ARMCI_ACC_DBL, &two, &aiov, 1, 0) == 0, "AccV");
    ARMCI_Barrier();
    if (rank == 0)
        for (int i = 0; i < M / 2; i++)
            CHECK(m[2 * i + 1] == size * (size + 1), "AccV %d = %g", i, m[2 * i + 1]);
    release(ptr);
}

/* Non-blocking: explicit handles (Wait, Test), an aggregate handle, implicit (NULL) + WaitAll,
 * and WaitProc. */
static void test_nonblocking(void)
{
    void **ptr = alloc(4 * N * sizeof(int));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *r = ptr[right], *m = ptr[rank];
    int a[N], b[N], c[N], d[N];
    for (int i = 0; i < N; i++) {
        a[i] = rank + i;
        b[i] = rank * 2 + i;
        c[i] = rank * 3 + i;
        d[i] = rank * 4 + i;
    }
    armci_hdl_t h1, h2;
    ARMCI_INIT_HANDLE(&h1);
    ARMCI_INIT_HANDLE(&h2);
    CHECK(ARMCI_NbPut(a, r, sizeof a, right, &h1) == 0, "NbPut");
    CHECK(ARMCI_Wait(&h1) == 0, "Wait");
    ARMCI_SET_AGGREGATE_HANDLE(&h2);
    CHECK(ARMCI_NbPut(b, r + N, sizeof b, right, &h2) == 0, "NbPut agg 1");
    int cs[1] = {sizeof(int)}, cnt[2] = {sizeof(int), N};
    CHECK(ARMCI_NbPutS(c, cs, r + 2 * N, cs, cnt, 1, right, &h2) == 0, "NbPutS agg 2");
    CHECK(ARMCI_Wait(&h2) == 0, "Wait aggregate");
    ARMCI_UNSET_AGGREGATE_HANDLE(&h2);
    CHECK(ARMCI_NbPut(d, r + 3 * N, sizeof d, right, NULL) == 0, "NbPut implicit");
    CHECK(ARMCI_WaitAll() == 0, "WaitAll");
    ARMCI_Barrier();
    for (int i = 0; i < N; i++) {
        CHECK(m[i] == left + i, "NbPut [%d]", i);
        CHECK(m[N + i] == left * 2 + i, "aggregate NbPut [%d]", i);
        CHECK(m[2 * N + i] == left * 3 + i, "aggregate NbPutS [%d]", i);
        CHECK(m[3 * N + i] == left * 4 + i, "implicit NbPut [%d]", i);
    }
    ARMCI_Barrier(); /* before the left neighbour's NbAcc lands here */
    int g[N];
    memset(g, 0, sizeof g);
    CHECK(ARMCI_NbGet(r + N, g, sizeof g, right, &h1) == 0, "NbGet");
    int t, spins = 0;
    while ((t = ARMCI_Test(&h1)) > 0 && spins < 100000000) spins++;
    CHECK(t == 0, "Test never completed (%d)", t);
    for (int i = 0; i < N; i++) CHECK(g[i] == rank * 2 + i, "NbGet [%d] = %d", i, g[i]);
    CHECK(ARMCI_Wait(&h1) == 0, "Wait on a completed handle");
    memset(g, 0, sizeof g);
    int one = 1;
    CHECK(ARMCI_NbGetS(r, cs, g, cs, cnt, 1, right, NULL) == 0, "NbGetS implicit");
    CHECK(ARMCI_NbAcc(ARMCI_ACC_INT, &one, a, r + 3 * N, sizeof a, right, NULL) == 0, "NbAcc");
    CHECK(ARMCI_WaitProc(right) == 0, "WaitProc");
    for (int i = 0; i < N; i++) CHECK(g[i] == rank + i, "NbGetS [%d] = %d", i, g[i]);
    ARMCI_Barrier();
    for (int i = 0; i < N; i++)
        CHECK(m[3 * N + i] == left * 5 + 2 * i, "NbAcc [%d] = %d", i, m[3 * N + i]);
    release(ptr);
}

/* Rmw counters on rank 0: every rank draws K tickets; the tickets drawn are 0..size*K-1. */
static void test_rmw(void)
{
    enum { K = 50 };
    void **ptr = alloc(64);
    int *ictr = ptr[0];
    long *lctr = (long *)((char *)ptr[0] + 8);
    int *swapcell = (int *)((char *)ptr[0] + 16);
    long isum = 0, lsum = 0;
    for (int k = 0; k < K; k++) {
        int old;
        long lold;
        CHECK(ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, ictr, 1, 0) == 0, "Rmw FETCH_AND_ADD");
        CHECK(ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &lold, lctr, 2, 0) == 0,
              "Rmw FETCH_AND_ADD_LONG");
        isum += old;
        lsum += lold;
    }
    long sums[2] = {isum, lsum};
    armci_msg_lgop(sums, 2, "+");
    long t = (long)size * K;
    CHECK(sums[0] == t * (t - 1) / 2, "fetched ints sum to %ld, want %ld", sums[0],
          t * (t - 1) / 2);
    CHECK(sums[1] == t * (t - 1), "fetched longs sum to %ld", sums[1]);
    /* Swap: each rank swaps rank + 1 in; the values seen, plus the last, are 0..size. */
    int v = rank + 1;
    CHECK(ARMCI_Rmw(ARMCI_SWAP, &v, swapcell, 0, 0) == 0, "Rmw SWAP");
    long lv = (long)rank + 1;
    CHECK(ARMCI_Rmw(ARMCI_SWAP_LONG, &lv, (char *)ptr[0] + 24, 0, 0) == 0, "Rmw SWAP_LONG");
    ARMCI_Barrier();
    long seen[2] = {v, lv};
    armci_msg_lgop(seen, 2, "+");
    int last = ARMCI_GetValueInt(swapcell, 0);
    long llast = ARMCI_GetValueLong((char *)ptr[0] + 24, 0);
    CHECK(seen[0] + last == (long)size * (size + 1) / 2, "SWAP values lost or duplicated");
    CHECK(seen[1] + llast == (long)size * (size + 1) / 2, "SWAP_LONG values lost or duplicated");
    ARMCI_Barrier();
    if (rank == 0) {
        CHECK(*ictr == size * K, "counter = %d, want %d", *ictr, size * K);
        CHECK(*lctr == 2L * size * K, "long counter = %ld", *lctr);
    }
    release(ptr);
}

/* Mutexes: a non-atomic read-modify-write of a counter on the last rank under ARMCI_Lock. */
static void test_mutex(void)
{
    enum { K = 20 };
#ifdef ARMCI_TEST_WITH_MPI
    if (size == 1)
        return; /* Debian's ARMCI-MPI fails in MPI_Win_create for mutexes on one process */
#endif
    void **ptr = alloc(sizeof(long));
    CHECK(ARMCI_Create_mutexes(2) == 0, "Create_mutexes");
    int owner = size - 1;
    for (int k = 0; k < K; k++) {
        ARMCI_Lock(1, owner);
        long v = ARMCI_GetValueLong(ptr[owner], owner);
        v += 1;
        ARMCI_PutValueLong(v, ptr[owner], owner);
        ARMCI_Unlock(1, owner);
    }
    ARMCI_Barrier();
    long final = ARMCI_GetValueLong(ptr[owner], owner);
    CHECK(final == (long)size * K, "locked counter = %ld, want %d", final, size * K);
    ARMCI_Barrier();
    CHECK(ARMCI_Destroy_mutexes() == 0, "Destroy_mutexes");
    release(ptr);
}

/* Put_flag: data then flag to the right neighbour, who waits for the flag, then reads. */
static void test_put_flag(void)
{
    void **ptr = alloc((N + 16) * sizeof(int));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int data[N];
    for (int i = 0; i < N; i++) data[i] = rank * 7 + i;
    int *rflag = (int *)ptr[right] + N;
    CHECK(ARMCI_Put_flag(data, ptr[right], sizeof data, rflag, 42, right) == 0, "Put_flag");
    int *myflag = (int *)ptr[rank] + N;
    long spins = 0;
    while (ARMCI_GetValueInt(myflag, rank) != 42 && spins < 50000000) spins++;
    int got[N];
    CHECK(ARMCI_Get(ptr[rank], got, sizeof got, rank) == 0, "Get own");
    for (int i = 0; i < N; i++)
        CHECK(got[i] == left * 7 + i, "data behind the flag [%d] = %d", i, got[i]);
    release(ptr);
}

/* Groups: the even ranks (in reverse order) form a group, allocate in it and reduce in it. */
static void test_groups(void)
{
    int n = (size + 1) / 2, *pids = malloc(n * sizeof *pids);
    for (int i = 0; i < n; i++) pids[i] = 2 * (n - 1 - i);
    ARMCI_Group world, evens;
    ARMCI_Group_get_world(&world);
    int wr = -1, ws = -1;
    ARMCI_Group_rank(&world, &wr);
    ARMCI_Group_size(&world, &ws);
    CHECK(wr == rank && ws == size, "world group %d/%d", wr, ws);
    ARMCI_Group_create(n, pids, &evens);
    if (rank % 2 == 0) {
        int gr = -1, gs = -1;
        ARMCI_Group_rank(&evens, &gr);
        ARMCI_Group_size(&evens, &gs);
        CHECK(gs == n && gr == n - 1 - rank / 2, "group rank %d size %d", gr, gs);
        for (int i = 0; i < n; i++)
            CHECK(ARMCI_Absolute_id(&evens, i) == pids[i], "Absolute_id(%d)", i);
        void **ptr = malloc(n * sizeof *ptr);
        CHECK(ARMCI_Malloc_group(ptr, sizeof(int) * 4, &evens) == 0, "Malloc_group");
        int next = (gr + 1) % n, nxt_abs = ARMCI_Absolute_id(&evens, next);
        int v[4] = {rank, rank, rank, rank};
        CHECK(ARMCI_Put(v, ptr[next], sizeof v, nxt_abs) == 0, "group Put");
        ARMCI_AllFence();
        armci_msg_group_barrier(&evens);
        int prev_abs = ARMCI_Absolute_id(&evens, (gr + n - 1) % n);
        CHECK(((int *)ptr[gr])[3] == prev_abs, "group put landed %d", ((int *)ptr[gr])[3]);
        long s = rank;
        armci_msg_group_lgop(&s, 1, "+", &evens);
        CHECK(s == (long)n * (n - 1), "group sum %ld", s);
        double dmax = rank;
        armci_msg_group_dgop(&dmax, 1, "max", &evens);
        CHECK(dmax == 2 * (n - 1), "group max %g", dmax);
        armci_msg_group_barrier(&evens);
        CHECK(ARMCI_Free_group(ptr[gr], &evens) == 0, "Free_group");
        free(ptr);
        ARMCI_Group_free(&evens); /* ARMCI-MPI leaves a non-member's group uninitialised */
    }
    free(pids);
    ARMCI_Barrier();
}

static void test_msg(void)
{
    CHECK(armci_msg_me() == rank && armci_msg_nproc() == size, "msg me/nproc");
    int iv[4] = {rank + 1, rank + 1, rank - size, -(rank + 1)};
    armci_msg_igop(iv, 1, "+");
    armci_msg_igop(iv + 1, 1, "*");
    armci_msg_igop(iv + 2, 1, "absmax");
    armci_msg_igop(iv + 3, 1, "absmin");
    int fact = 1;
    for (int r = 1; r <= size; r++) fact *= r;
    CHECK(iv[0] == size * (size + 1) / 2, "igop + %d", iv[0]);
    CHECK(iv[1] == fact, "igop * %d", iv[1]);
    CHECK(iv[2] == size, "igop absmax %d", iv[2]);
    CHECK(iv[3] == 1, "igop absmin %d", iv[3]);
    long lv[2] = {rank * 10L, -rank * 10L};
    armci_msg_lgop(lv, 1, "max");
    armci_msg_lgop(lv + 1, 1, "min");
    CHECK(lv[0] == (size - 1) * 10L && lv[1] == -(size - 1) * 10L, "lgop max/min");
    long long llv = rank;
    armci_msg_llgop(&llv, 1, "+");
    CHECK(llv == (long long)size * (size - 1) / 2, "llgop");
    double dv[3] = {rank + 0.5, rank - 0.5 * size, rank + 1.0};
    armci_msg_dgop(dv, 1, "+");
    armci_msg_dgop(dv + 1, 1, "absmax");
    armci_msg_dgop(dv + 2, 1, "min");
    CHECK(dv[0] == size * (size - 1) / 2.0 + 0.5 * size, "dgop + %g", dv[0]);
    CHECK(dv[1] == 0.5 * size, "dgop absmax %g", dv[1]);
    CHECK(dv[2] == 1.0, "dgop min %g", dv[2]);
    float fv = (float)rank;
    armci_msg_fgop(&fv, 1, "max");
    CHECK(fv == (float)(size - 1), "fgop max %g", fv);
    char buf[32];
    memset(buf, rank == size - 1 ? 'x' : 'o', sizeof buf);
    armci_msg_bcast(buf, sizeof buf, size - 1);
    CHECK(buf[0] == 'x' && buf[31] == 'x', "bcast");
    armci_msg_barrier();
}

#ifdef ARMCI_TEST_ARBOR
/* Errors: nonzero return and nothing written. */
static void test_errors(void)
{
    void **ptr = alloc(16 * sizeof(int));
    int right = (rank + 1) % size;
    int v[32] = {1, 2, 3}, stack_target[4] = {0};
    CHECK(ARMCI_Put(v, stack_target, sizeof stack_target, right) != 0, "Put to a non-heap address");
    CHECK(ARMCI_Put(v, ptr[right], 8, size) != 0, "Put to rank size");
    CHECK(ARMCI_Put(v, ptr[right], 8, -1) != 0, "Put to rank -1");
    CHECK(ARMCI_Put(v, ptr[right], 32 * sizeof(int), right) != 0, "Put past the allocation");
    CHECK(ARMCI_Get(ptr[right], v, -4, right) != 0, "Get with a negative size");
    int st[8] = {4, 4, 4, 4, 4, 4, 4, 4}, cnt[9] = {4, 1, 1, 1, 1, 1, 1, 1, 1};
    CHECK(ARMCI_PutS(v, st, ptr[right], st, cnt, 8, right) != 0, "PutS with 8 stride levels");
    CHECK(ARMCI_PutS(v, st, ptr[right], st, cnt, -1, right) != 0, "PutS with -1 stride levels");
    int bad[2] = {4, -2};
    CHECK(ARMCI_PutS(v, st, ptr[right], st, bad, 1, right) != 0, "PutS with a negative count");
    int one = 1;
    CHECK(ARMCI_Acc(99, &one, v, ptr[right], 4, right) != 0, "Acc with an unknown type");
    CHECK(ARMCI_Rmw(77, v, ptr[right], 1, right) != 0, "Rmw with an unknown op");
    CHECK(ARMCI_Rmw(ARMCI_FETCH_AND_ADD, v, stack_target, 1, right) != 0, "Rmw off the heap");
    ARMCI_Barrier();
    int *m = ptr[rank];
    for (int i = 0; i < 16; i++) CHECK(m[i] == 0, "a failed call wrote [%d] = %d", i, m[i]);
    release(ptr);
}
#endif

/* ARMCI_TEST_TRACE=1 names each test as it starts (rank 0). */
#define RUN(test)                                                                                  \
    do {                                                                                           \
        if (rank == 0 && getenv("ARMCI_TEST_TRACE")) fprintf(stderr, "test_armci: %s\n", #test);   \
        test();                                                                                    \
    } while (0)

int main(int argc, char **argv)
{
#ifdef ARMCI_TEST_WITH_MPI
    MPI_Init(&argc, &argv);
#endif
    if (ARMCI_Init_args(&argc, &argv) != 0) {
        fprintf(stderr, "ARMCI_Init failed\n");
        return 1;
    }
    rank = armci_msg_me();
    size = armci_msg_nproc();
    RUN(test_contiguous);
    RUN(test_strided);
    RUN(test_seven_levels);
    RUN(test_acc_types);
    RUN(test_vector);
    RUN(test_nonblocking);
    RUN(test_rmw);
    RUN(test_mutex);
    RUN(test_put_flag);
    RUN(test_groups);
    RUN(test_msg);
#ifdef ARMCI_TEST_ARBOR
    RUN(test_errors);
#endif
    int totals[2] = {failures, checks};
    armci_msg_igop(totals, 2, "+");
    if (rank == 0)
        printf("test_armci: %d ranks, %d checks, %d failures\n", size, totals[1], totals[0]);
    ARMCI_Finalize();
#ifdef ARMCI_TEST_WITH_MPI
    MPI_Finalize();
#endif
    return totals[0] ? 1 : 0;
}
