/*
 * A small Global Arrays program (Debian's libga, unmodified) linked once against
 * libarmci_arbor and once against ARMCI-MPI: create a distributed 2-D array, put / get /
 * accumulate patches, dot product, transpose, read-and-increment, select, GA_Sync, and the
 * paths that depend on ARMCI's SMP domains and messages: the cluster queries (armci_domain_*)
 * and ghost-cell updates (armci_write_strided / read_strided and tagged armci_msg_snd / rcv
 * between neighbours). GA itself uses MPI for its own bookkeeping, so MPI is initialised first
 * in both builds.
 */
#include <armci.h>
#include <ga.h>
#include <macdecls.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "../launched_check.h"

#define NR 40
#define NC 30

static double value(int i, int j)
{
    return i * 100.0 + j;
}

/* GA_Cluster_*: every process on exactly one node, the nodes' counts adding up to the job. */
static void check_cluster(void)
{
    int nodes = GA_Cluster_nnodes(), mine = GA_Cluster_nodeid(), total = 0, found = 0;
    CHECK(nodes >= 1 && nodes <= size, "GA_Cluster_nnodes = %d", nodes);
    CHECK(mine >= 0 && mine < nodes, "GA_Cluster_nodeid = %d", mine);
    CHECK(GA_Cluster_proc_nodeid(rank) == mine, "GA_Cluster_proc_nodeid(me) differs");
    for (int n = 0; n < nodes; n++) {
        total += GA_Cluster_nprocs(n);
        for (int k = 0; k < GA_Cluster_nprocs(n); k++) {
            int p = GA_Cluster_procid(n, k);
            CHECK(GA_Cluster_proc_nodeid(p) == n, "GA_Cluster_procid(%d,%d) = %d is elsewhere", n,
                  k, p);
            found += p == rank;
        }
    }
    CHECK(total == size && found == 1, "nodes hold %d processes, this one %d times", total, found);
}

/* A periodic array with one ghost cell around each block: GA_Update_ghosts fills the ghosts with
 * the neighbours' values (message passing between them). Corners are not checked. */
static void check_ghosts(void)
{
    enum { GR = 12, GC = 10 };
    int dims[2] = {GR, GC}, width[2] = {1, 1};
    int g = NGA_Create_ghosts(C_DBL, 2, dims, width, "ghosts", NULL);
    CHECK(g != 0, "NGA_Create_ghosts");
    int lo[2], hi[2];
    NGA_Distribution(g, rank, lo, hi);
    if (lo[0] <= hi[0] && lo[1] <= hi[1]) {
        static double block[GR * GC];
        int ld[1] = {hi[1] - lo[1] + 1};
        for (int i = lo[0]; i <= hi[0]; i++)
            for (int j = lo[1]; j <= hi[1]; j++)
                block[(i - lo[0]) * ld[0] + (j - lo[1])] = value(i, j);
        NGA_Put(g, lo, hi, block, ld);
    }
    GA_Sync();
    GA_Update_ghosts(g);
    if (lo[0] <= hi[0] && lo[1] <= hi[1]) {
        double *p;
        int gdims[2], gld[1];
        NGA_Access_ghosts(g, gdims, &p, gld);
        for (int i = lo[0] - 1; i <= hi[0] + 1; i++)
            for (int j = lo[1] - 1; j <= hi[1] + 1; j++) {
                int corner = (i < lo[0] || i > hi[0]) && (j < lo[1] || j > hi[1]);
                if (corner) continue;
                double got = p[(i - lo[0] + 1) * gld[0] + (j - lo[1] + 1)];
                double want = value((i + GR) % GR, (j + GC) % GC);
                CHECK(got == want, "ghost (%d,%d) = %g, want %g", i, j, got, want);
            }
        NGA_Release_ghosts(g);
    }
    GA_Destroy(g);
}

/* A 16 MiB array (the arbor build also runs with ARBOR_SEGMENT_SIZE=4M, where ARMCI_Malloc's
 * heap has no room for it: memory of each rank's own then, arbor_mem_alloc_any): every rank
 * puts its rows, gets the whole array back through a window of rows, and accumulates. */
static void check_big(void)
{
    enum { BR = 2048, BC = 1024 };
    int dims[2] = {BR, BC}, ld[1] = {BC};
    int g = NGA_Create(C_DBL, 2, dims, "big", NULL);
    CHECK(g != 0, "NGA_Create of a 16 MiB array");
    if (!g) return;
    static double row[BC], got[64][BC];
    for (int i = rank; i < BR; i += size) {
        for (int j = 0; j < BC; j++) row[j] = i * 4096.0 + j;
        int lo[2] = {i, 0}, hi[2] = {i, BC - 1};
        NGA_Put(g, lo, hi, row, ld);
    }
    GA_Sync();
    int bad = 0;
    for (int i0 = 0; i0 < BR; i0 += 64) {
        int lo[2] = {i0, 0}, hi[2] = {i0 + 63, BC - 1};
        NGA_Get(g, lo, hi, got, ld);
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < BC; j += 7) bad += got[i][j] != (i0 + i) * 4096.0 + j;
    }
    CHECK(bad == 0, "%d wrong elements read back from the 16 MiB array", bad);
    GA_Sync();
    double alpha = 1.0;
    for (int j = 0; j < BC; j++) row[j] = 1.0;
    int lo[2] = {BR - 1, 0}, hi[2] = {BR - 1, BC - 1};
    NGA_Acc(g, lo, hi, row, ld, &alpha);
    GA_Sync();
    NGA_Get(g, lo, hi, row, ld);
    CHECK(row[5] == (BR - 1) * 4096.0 + 5 + size, "accumulate on the 16 MiB array: %g", row[5]);
    GA_Destroy(g);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    GA_Initialize();
    if (!MA_init(C_DBL, 1 << 16, 1 << 16)) {
        fprintf(stderr, "MA_init failed\n");
        return 1;
    }
    rank = GA_Nodeid();
    size = GA_Nnodes();

    int dims[2] = {NR, NC}, ld[1] = {NC};
    int g_a = NGA_Create(C_DBL, 2, dims, "a", NULL);
    CHECK(g_a != 0, "NGA_Create");
    GA_Zero(g_a);
    /* Rank r writes the rows i with i % size == r, one NGA_Put per row. */
    double row[NC];
    for (int i = rank; i < NR; i += size) {
        for (int j = 0; j < NC; j++) row[j] = value(i, j);
        int lo[2] = {i, 0}, hi[2] = {i, NC - 1};
        NGA_Put(g_a, lo, hi, row, ld);
    }
    GA_Sync();
    static double all[NR][NC];
    int lo[2] = {0, 0}, hi[2] = {NR - 1, NC - 1};
    NGA_Get(g_a, lo, hi, all, ld);
    double sum = 0;
    for (int i = 0; i < NR; i++)
        for (int j = 0; j < NC; j++) {
            CHECK(all[i][j] == value(i, j), "get (%d,%d) = %g", i, j, all[i][j]);
            sum += value(i, j);
        }

    /* Every rank accumulates (rank + 1) * ones onto rows 5..14, columns 3..12. */
    static double ones[10][10];
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < 10; j++) ones[i][j] = 1.0;
    int alo[2] = {5, 3}, ahi[2] = {14, 12}, ald[1] = {10};
    double alpha = rank + 1;
    GA_Sync();
    NGA_Acc(g_a, alo, ahi, ones, ald, &alpha);
    GA_Sync();
    NGA_Get(g_a, lo, hi, all, ld);
    double added = size * (size + 1) / 2.0;
    for (int i = 0; i < NR; i++)
        for (int j = 0; j < NC; j++) {
            int in = i >= 5 && i <= 14 && j >= 3 && j <= 12;
            double want = value(i, j) + (in ? added : 0);
            CHECK(all[i][j] == want, "acc (%d,%d) = %g, want %g", i, j, all[i][j], want);
        }
    sum += 100 * added;

    /* Dot product with a duplicate filled with 2. */
    int g_b = GA_Duplicate(g_a, "b");
    double two = 2.0;
    GA_Fill(g_b, &two);
    double dot = GA_Ddot(g_a, g_b);
    CHECK(dot == 2 * sum, "GA_Ddot = %.17g, want %.17g", dot, 2 * sum);

    /* Transpose. */
    int tdims[2] = {NC, NR}, tld[1] = {NR};
    int g_t = NGA_Create(C_DBL, 2, tdims, "t", NULL);
    GA_Transpose(g_a, g_t);
    static double t[NC][NR];
    int thi[2] = {NC - 1, NR - 1};
    NGA_Get(g_t, lo, thi, t, tld);
    for (int i = 0; i < NR; i++)
        for (int j = 0; j < NC; j++)
            CHECK(t[j][i] == all[i][j], "transpose (%d,%d) = %g", j, i, t[j][i]);

    /* Shared counter: NGA_Read_inc (ARMCI_Rmw underneath). */
    int one[1] = {1};
    int g_c = NGA_Create(C_LONG, 1, one, "counter", NULL);
    GA_Zero(g_c);
    GA_Sync();
    int sub[1] = {0};
    double fetched = 0;
    for (int k = 0; k < 25; k++) fetched += (double)NGA_Read_inc(g_c, sub, 2);
    GA_Dgop(&fetched, 1, "+");
    double n = 25.0 * size;
    CHECK(fetched == n * (n - 1), "NGA_Read_inc fetched sum %g, want %g", fetched, n * (n - 1));
    GA_Sync();
    long final = 0;
    NGA_Get(g_c, sub, sub, &final, one);
    CHECK(final == 2 * 25L * size, "counter = %ld", final);

    /* Select the largest element: at (NR-1, NC-1) unless the accumulate moved it. */
    double best = 0;
    int idx[2] = {-1, -1};
    NGA_Select_elem(g_a, "max", &best, idx);
    CHECK(best == value(NR - 1, NC - 1) && idx[0] == NR - 1 && idx[1] == NC - 1,
          "Select_elem max = %g at (%d,%d)", best, idx[0], idx[1]);

    /* ARMCI over MPI_COMM_WORLD, with ARMCI already up (GA_Initialize): counted, like a second
     * ARMCI_Init, and undone by one ARMCI_Finalize. */
    CHECK(ARMCI_Init_thread_comm(0, MPI_COMM_WORLD) == 0 && ARMCI_Initialized(),
          "ARMCI_Init_thread_comm(MPI_COMM_WORLD)");
    CHECK(ARMCI_Finalize() == 0 && ARMCI_Initialized(), "the nested ARMCI_Finalize");

    check_cluster();
    check_ghosts();
    check_big();

    GA_Destroy(g_c);
    GA_Destroy(g_t);
    GA_Destroy(g_b);
    GA_Destroy(g_a);
    double totals[2] = {failures, checks};
    GA_Dgop(totals, 2, "+");
    if (rank == 0)
        printf("test_ga: %d ranks, %.0f checks, %.0f failures\n", size, totals[1], totals[0]);
    GA_Terminate();
    MPI_Finalize();
    return totals[0] ? 1 : 0;
}
