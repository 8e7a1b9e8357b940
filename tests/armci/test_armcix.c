/*
 * The parts of ARMCI-MPI's API beyond plain ARMCI: the ARMCIX extensions (group split / dup,
 * mutex handles, progress), the PARMCI profiling names (this program wraps ARMCI_Put as a tool
 * would), tagged messages (armci_msg_snd / rcv / rcvany), the scoped armci_msg calls and the SMP
 * domains. Linked once against libarmci_arbor (ARMCI_TEST_ARBOR, which adds the checks of what
 * ARMCI-MPI does not do: armci_msg_reduce, which it aborts in, and the node layout against
 * arbor's) and once against ARMCI-MPI (ARMCI_TEST_WITH_MPI), which proves the expectations.
 */
#include <armci.h>
#include <armcix.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef ARMCI_TEST_ARBOR
#include <arbor.h>
#endif

#include "../launched_check.h"

/* The tool's wrapper: the program's calls to ARMCI_Put land here (the library's ARMCI_Put is a
 * weak alias of PARMCI_Put), the library's own calls do not. */
static int wrapped_puts;
int ARMCI_Put(void *src, void *dst, int bytes, int proc)
{
    wrapped_puts++;
    return PARMCI_Put(src, dst, bytes, proc);
}

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

static void test_profiling(void)
{
    void **ptr = alloc(2 * sizeof(long));
    int next = (rank + 1) % size;
    long v = 1000 + rank;
    CHECK(ARMCI_Put(&v, ptr[next], sizeof v, next) == 0, "ARMCI_Put");
    CHECK(wrapped_puts == 1, "the wrapper saw %d puts, want 1", wrapped_puts);
    CHECK(PARMCI_Put(&v, (long *)ptr[next] + 1, sizeof v, next) == 0, "PARMCI_Put");
    CHECK(wrapped_puts == 1, "PARMCI_Put went through the wrapper");
#ifdef ARMCI_TEST_ARBOR
    /* The library reaches its own put through the profiling name, not through the wrapper. */
    CHECK(ARMCI_PutValueLong(v, (long *)ptr[next] + 1, next) == 0, "ARMCI_PutValueLong");
    CHECK(wrapped_puts == 1, "ARMCI_PutValueLong called the program's ARMCI_Put");
#endif
    /* The names a tool does not wrap are the profiling functions themselves. */
    CHECK(&ARMCI_Get == &PARMCI_Get && &ARMCI_Barrier == &PARMCI_Barrier,
          "ARMCI_Get / ARMCI_Barrier are not aliases of their PARMCI names");
    ARMCI_AllFence();
    parmci_msg_barrier();
    int prev = (rank + size - 1) % size;
    long got[2];
    ARMCI_Access_begin(ptr[rank]);
    memcpy(got, ptr[rank], sizeof got);
    ARMCI_Access_end(ptr[rank]);
    CHECK(got[0] == 1000 + prev && got[1] == 1000 + prev, "puts arrived as %ld %ld, want %d",
          got[0], got[1], 1000 + prev);
    CHECK(PARMCI_GetValueLong(ptr[next], next) == 1000 + rank, "PARMCI_GetValueLong");
    release(ptr);
}

static void fill(unsigned char *buf, int len, int seed)
{
    for (int i = 0; i < len; i++) buf[i] = (unsigned char)(seed * 31 + i * 7);
}

static int same(const unsigned char *buf, int len, int seed)
{
    for (int i = 0; i < len; i++)
        if (buf[i] != (unsigned char)(seed * 31 + i * 7)) return 0;
    return 1;
}

/* Tagged messages: a ring with lengths from 0 to several fragments, tags received out of
 * sending order, two messages of one tag in order, a message to oneself, and rcvany. Only small
 * messages are sent before their receives are posted (MPI sends them eagerly). */
static void test_tagged(void)
{
    enum { BIG = 50000 };
    static unsigned char out[BIG], in[BIG];
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    static const int lens[] = {0, 1, 100, 4000, BIG};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        fill(out, lens[k], rank + (int)k);
        int got = -1;
        memset(in, 0, sizeof in);
        /* A send may wait for its receive (MPI_Send does, for large messages): odd ranks
         * receive first. */
        if (rank % 2 == 0) armci_msg_snd(10 + (int)k, out, lens[k], next);
        armci_msg_rcv(10 + (int)k, in, BIG, &got, prev);
        if (rank % 2 == 1) armci_msg_snd(10 + (int)k, out, lens[k], next);
        CHECK(got == lens[k] && same(in, lens[k], prev + (int)k),
              "ring message %zu: %d bytes (want %d), data %s", k, got, lens[k],
              same(in, lens[k], prev + (int)k) ? "right" : "wrong");
    }
    /* Tag 2 is received before tag 1 although sent after; two tag-3 messages keep their
     * order. */
    int a = 100 + rank, b = 200 + rank, c = 300 + rank, d = 400 + rank;
    armci_msg_snd(1, &a, sizeof a, next);
    armci_msg_snd(2, &b, sizeof b, next);
    armci_msg_snd(3, &c, sizeof c, next);
    armci_msg_snd(3, &d, sizeof d, next);
    int x = 0, len = 0;
    armci_msg_rcv(2, &x, sizeof x, &len, prev);
    CHECK(x == 200 + prev && len == (int)sizeof x, "tag 2: %d", x);
    armci_msg_rcv(1, &x, sizeof x, NULL, prev);
    CHECK(x == 100 + prev, "tag 1: %d", x);
    armci_msg_rcv(3, &x, sizeof x, NULL, prev);
    CHECK(x == 300 + prev, "first tag 3: %d", x);
    armci_msg_rcv(3, &x, sizeof x, NULL, prev);
    CHECK(x == 400 + prev, "second tag 3: %d", x);
    int self = 77 + rank;
    armci_msg_snd(4, &self, sizeof self, rank);
    armci_msg_rcv(4, &x, sizeof x, NULL, rank);
    CHECK(x == 77 + rank, "message to oneself: %d", x);
    /* Everyone else reports to rank 0, which takes them in whatever order they come. */
    if (rank != 0) {
        int mine[2] = {rank, rank * rank};
        armci_msg_snd(5, mine, sizeof mine, 0);
    } else {
        int seen = 0;
        for (int k = 1; k < size; k++) {
            int msg[2] = {-1, -1};
            int from = armci_msg_rcvany(5, msg, sizeof msg, &len);
            CHECK(from >= 1 && from < size && msg[0] == from && msg[1] == from * from &&
                      len == (int)sizeof msg,
                  "rcvany: from %d, message %d %d", from, msg[0], msg[1]);
            if (from >= 1 && from < size) seen |= 1 << from;
        }
        CHECK(seen == ((1 << size) - 2), "rcvany heard from %#x", seen);
    }
    armci_msg_barrier();
}

/* Split by parity with the order reversed (key = -rank), then duplicate the world. */
static void test_groups(void)
{
    ARMCI_Group world, half, dup;
    ARMCI_Group_get_world(&world);
    CHECK(ARMCIX_Group_split(&world, rank % 2, -rank, &half) == 0, "ARMCIX_Group_split");
    int members = (size - rank % 2 + 1) / 2, gsize = -1, grank = -1;
    ARMCI_Group_size(&half, &gsize);
    ARMCI_Group_rank(&half, &grank);
    /* Members of this parity in decreasing world rank: the highest is group rank 0. */
    int above = 0;
    for (int r = rank + 1; r < size; r++) above += r % 2 == rank % 2;
    CHECK(gsize == members && grank == above, "split: size %d rank %d, want %d %d", gsize, grank,
          members, above);
    for (int g = 0; g < gsize; g++) {
        int want = -1;
        for (int r = size - 1, i = 0; r >= 0; r--)
            if (r % 2 == rank % 2 && i++ == g) want = r;
        CHECK(ARMCI_Absolute_id(&half, g) == want, "split: member %d is %d, want %d", g,
              ARMCI_Absolute_id(&half, g), want);
    }
    int sum = rank;
    armci_msg_group_igop(&sum, 1, "+", &half);
    int want = 0;
    for (int r = rank % 2; r < size; r += 2) want += r;
    CHECK(sum == want, "group_igop over the split group = %d, want %d", sum, want);
    /* The root of a group broadcast is an absolute rank: the group's first member. */
    int root_abs = ARMCI_Absolute_id(&half, 0);
    long bval = rank == root_abs ? 900 + rank : -1;
    armci_msg_group_bcast_scope(SCOPE_ALL, &bval, sizeof bval, root_abs, &half);
    CHECK(bval == 900 + root_abs, "group bcast from %d gave %ld", root_abs, bval);
    /* The msg calls without a group span the world even when another group is the default. */
    ARMCI_Group_set_default(&half);
    int everyone = 1;
    armci_msg_igop(&everyone, 1, "+");
    CHECK(everyone == size, "armci_msg_igop under a default group = %d, want %d", everyone, size);
    ARMCI_Group_set_default(&world);
    parmci_msg_group_barrier(&half);

    CHECK(ARMCIX_Group_dup(&world, &dup) == 0, "ARMCIX_Group_dup");
    ARMCI_Group_size(&dup, &gsize);
    ARMCI_Group_rank(&dup, &grank);
    CHECK(gsize == size && grank == rank, "dup: size %d rank %d", gsize, grank);
    void **ptr = malloc(size * sizeof *ptr);
    CHECK(ARMCI_Malloc_group(ptr, sizeof(int), &dup) == 0, "ARMCI_Malloc_group on the dup");
    int v = 5 * rank, got = -1;
    armci_msg_group_barrier(&dup);
    CHECK(ARMCI_Put(&v, ptr[(rank + 1) % size], sizeof v, (rank + 1) % size) == 0, "put");
    ARMCI_AllFence();
    armci_msg_group_barrier(&dup);
    CHECK(ARMCI_Get(ptr[rank], &got, sizeof got, rank) == 0 &&
              got == 5 * ((rank + size - 1) % size),
          "put into the dup's allocation: %d", got);
    armci_msg_group_barrier(&dup);
    CHECK(ARMCI_Free_group(ptr[rank], &dup) == 0, "ARMCI_Free_group");
    free(ptr);
    ARMCI_Group_free(&dup);
    ARMCI_Group_free(&half);
    wrapped_puts = 0;
}

/* Mutex handles: a counter on the last rank incremented non-atomically under mutex 1 of the last
 * rank; a trylock of a held mutex fails, of a free one succeeds. */
static void test_mutex_handles(void)
{
    enum { K = 15 };
#ifdef ARMCI_TEST_WITH_MPI
    if (size == 1) return; /* Debian's ARMCI-MPI fails in MPI_Win_create on one process */
#endif
    ARMCI_Group world;
    ARMCI_Group_get_world(&world);
    armcix_mutex_hdl_t hdl = ARMCIX_Create_mutexes_hdl(2, &world);
    CHECK(hdl != NULL, "ARMCIX_Create_mutexes_hdl");
    if (!hdl) return;
    CHECK(hdl->my_count == 2, "my_count %d", hdl->my_count);
    void **ptr = alloc(sizeof(long));
    int owner = size - 1;
    for (int k = 0; k < K; k++) {
        ARMCIX_Lock_hdl(hdl, 1, owner);
        long c = 0;
        ARMCI_Get(ptr[owner], &c, sizeof c, owner);
        c++;
        PARMCI_Put(&c, ptr[owner], sizeof c, owner);
        ARMCIX_Unlock_hdl(hdl, 1, owner);
    }
    ARMCI_Barrier();
    long total = 0;
    ARMCI_Get(ptr[owner], &total, sizeof total, owner);
    CHECK(total == (long)K * size, "counter under ARMCIX_Lock_hdl = %ld, want %ld", total,
          (long)K * size);
    ARMCI_Barrier(); /* everyone has read it before it moves on */
    /* The same counter under mutex 0 of rank 0, taken by spinning on Trylock (ARMCI-MPI's
     * test_mutex_trylock pattern): every rank contends at once. */
    enum { TRIES = 5 };
    for (int k = 0; k < TRIES; k++) {
        while (ARMCIX_Trylock_hdl(hdl, 0, 0) != 0) sched_yield(); /* ranks share the cores */
        long c = 0;
        ARMCI_Get(ptr[owner], &c, sizeof c, owner);
        c++;
        PARMCI_Put(&c, ptr[owner], sizeof c, owner);
        ARMCIX_Unlock_hdl(hdl, 0, 0);
    }
    ARMCI_Barrier();
    ARMCI_Get(ptr[owner], &total, sizeof total, owner);
    CHECK(total == (long)(K + TRIES) * size, "counter under ARMCIX_Trylock_hdl = %ld, want %ld",
          total, (long)(K + TRIES) * size);
    if (size > 1) {
        if (rank == 0) ARMCIX_Lock_hdl(hdl, 0, 0);
        ARMCI_Barrier();
#ifdef ARMCI_TEST_ARBOR
        /* Debian's ARMCI-MPI 0.3.1 waits here: its Trylock calls Lock. */
        if (rank == 1) CHECK(ARMCIX_Trylock_hdl(hdl, 0, 0) != 0, "trylock of a held mutex took it");
#endif
        ARMCI_Barrier();
        if (rank == 0) ARMCIX_Unlock_hdl(hdl, 0, 0);
        ARMCI_Barrier();
        if (rank == 1) {
            CHECK(ARMCIX_Trylock_hdl(hdl, 0, 0) == 0, "trylock of a free mutex failed");
            ARMCIX_Unlock_hdl(hdl, 0, 0);
        }
    }
    release(ptr);
    CHECK(ARMCIX_Destroy_mutexes_hdl(hdl) == 0, "ARMCIX_Destroy_mutexes_hdl");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A rank waiting on a flag in its own memory drives progress with ARMCIX_Progress: the put
 * that sets it arrives (OFI needs the target's progress). */
static void test_progress(void)
{
    void **ptr = alloc(sizeof(int));
    if (rank == 0) {
        int one = 1;
        for (int r = 1; r < size; r++) PARMCI_Put(&one, ptr[r], sizeof one, r);
        ARMCI_AllFence();
    } else {
        double give_up = now_s() + 60;
        volatile int *flag = ptr[rank];
        while (*flag == 0 && now_s() < give_up) ARMCIX_Progress();
        CHECK(*flag == 1, "the flag never arrived");
    }
    ARMCIX_Progress();
    release(ptr);
}

/* Domains: every process in exactly one, numbered consistently; the scoped calls span them. */
static void test_domains(void)
{
    int count = armci_domain_count(ARMCI_DOMAIN_SMP), mine = armci_domain_my_id(ARMCI_DOMAIN_SMP);
    CHECK(count >= 1 && count <= size && mine >= 0 && mine < count, "%d domains, mine %d", count,
          mine);
    int total = 0, found = 0;
    for (int d = 0; d < count; d++) {
        int n = armci_domain_nprocs(ARMCI_DOMAIN_SMP, d);
        total += n;
        for (int i = 0; i < n; i++) {
            int p = armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, d, i);
            CHECK(armci_domain_id(ARMCI_DOMAIN_SMP, p) == d, "process %d of domain %d is %d", i, d,
                  p);
            found += p == rank;
        }
    }
    CHECK(total == size && found == 1, "domains hold %d processes, this one %d times", total,
          found);
    int local = armci_domain_nprocs(ARMCI_DOMAIN_SMP, mine);
    int master = armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, mine, 0);
    for (int p = 0; p < size; p++) {
        int same_domain = armci_domain_id(ARMCI_DOMAIN_SMP, p) == mine;
        CHECK(ARMCI_Same_node(p) == same_domain &&
                  armci_domain_same_id(ARMCI_DOMAIN_SMP, p) == same_domain,
              "ARMCI_Same_node(%d) = %d", p, ARMCI_Same_node(p));
    }
#ifdef ARMCI_TEST_ARBOR
    /* The domains are arbor's nodes. */
    int nodes = -1, node = -1;
    CHECK(arbor_node_count(&nodes) == ARBOR_OK && nodes == count, "arbor nodes %d", nodes);
    for (int p = 0; p < size; p++)
        CHECK(arbor_rank_node(p, &node) == ARBOR_OK && node == armci_domain_id(ARMCI_DOMAIN_SMP, p),
              "arbor node of %d = %d", p, node);
#endif
    /* SCOPE_NODE spans the domain, SCOPE_MASTERS the domains' first processes (only they call). */
    int one = 1;
    armci_msg_gop_scope(SCOPE_NODE, &one, 1, "+", ARMCI_INT);
    CHECK(one == local, "SCOPE_NODE sum of ones = %d, want %d", one, local);
    long node_value = rank == master ? 4242 + mine : -1;
    armci_msg_bcast_scope(SCOPE_NODE, &node_value, sizeof node_value, master);
    CHECK(node_value == 4242 + mine, "SCOPE_NODE bcast from the domain's first = %ld", node_value);
    if (rank == master) {
        int masters = 1;
        armci_msg_gop_scope(SCOPE_MASTERS, &masters, 1, "+", ARMCI_INT);
        CHECK(masters == count, "SCOPE_MASTERS sum of ones = %d, want %d", masters, count);
    }
    armci_msg_barrier();
#ifdef ARMCI_TEST_ARBOR
    int root, up, left, right;
    armci_msg_bintree(SCOPE_NODE, &root, &up, &left, &right);
    CHECK(root == master && (rank == master) == (up == -1), "node tree: root %d up %d", root, up);
    /* armci_msg_reduce: the result at world rank 0 only (ARMCI-MPI aborts in it). */
    long x[2] = {rank + 1, -rank};
    armci_msg_reduce(x, 2, "absmax", ARMCI_LONG);
    if (rank == 0)
        CHECK(x[0] == size && x[1] == size - 1, "armci_msg_reduce absmax = %ld %ld", x[0], x[1]);
    else
        CHECK(x[0] == rank + 1 && x[1] == rank, "armci_msg_reduce changed rank %d's x", rank);
    double y = rank + 0.5;
    armci_msg_reduce_scope(SCOPE_NODE, &y, 1, "+", ARMCI_DOUBLE);
    double node_sum = 0;
    for (int i = 0; i < local; i++)
        node_sum += armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, mine, i) + 0.5;
    if (rank == master) CHECK(y == node_sum, "node reduce = %g, want %g", y, node_sum);
#endif
}

#define RUN(test)                                                                                  \
    do {                                                                                           \
        if (rank == 0 && getenv("ARMCI_TEST_TRACE")) fprintf(stderr, "test_armcix: %s\n", #test);  \
        test();                                                                                    \
    } while (0)

int main(int argc, char **argv)
{
#ifdef ARMCI_TEST_WITH_MPI
    MPI_Init(&argc, &argv);
#endif
    if (PARMCI_Init_args(&argc, &argv) != 0) {
        fprintf(stderr, "ARMCI_Init failed\n");
        return 1;
    }
    rank = armci_msg_me();
    size = armci_msg_nproc();
    RUN(test_profiling);
    RUN(test_tagged);
    RUN(test_groups);
    RUN(test_mutex_handles);
    RUN(test_progress);
    RUN(test_domains);
    int totals[2] = {failures, checks};
    armci_msg_igop(totals, 2, "+");
    if (rank == 0)
        printf("test_armcix: %d ranks, %d checks, %d failures\n", size, totals[1], totals[0]);
    PARMCI_Finalize();
#ifdef ARMCI_TEST_WITH_MPI
    MPI_Finalize();
#endif
    return totals[0] ? 1 : 0;
}
