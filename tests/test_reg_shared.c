/*
 * Launched test of node-shared registrations (arbor_mem_register with ARBOR_MEM_NODE_SHARED,
 * src/rma/reg.c, src/runtime/shared_pages.c), on a static array as an OpenSHMEM runtime
 * registers a program's global data:
 *   - the static words keep their values across the registration (the pages moved in place);
 *   - arbor_mem_ptr gives a pointer to a peer's words exactly where the peer's segment is mapped
 *     here and the ranks may read each other (cross-memory attach permitted), NULL elsewhere;
 *     a store through it is seen by the owner;
 *   - puts and gets of every rank to every rank, with the data checked;
 *   - atomics on one word from every rank by every path that acts on it: fetch-add, compare-and-
 *     swap increments, contiguous, strided and vector accumulates, the owner's own included;
 *     the total must be exact (two mechanisms on one word would lose increments);
 *   - where every rank is on one node, the segments mapped, and the registration could be
 *     shared, no progress thread runs (peers need none of the owner); with ARBOR_DIRECT=n it
 *     runs (peers go through the transport);
 *   - after deregistration the owner still reads and writes its words;
 *   - a fresh anonymous mapping registered node-shared keeps the pages written before and
 *     reads zeros elsewhere, and its memory file holds only the pages written (a large fresh
 *     mapping does not take its whole size in memory).
 * EXPECT_SHARED=1 asserts the pages were shared and mapped by the node peers (the default
 * launch on one node), EXPECT_SHARED=0 that nothing is mapped (ARBOR_DIRECT=n).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arbor.h"
#include "launched_check.h"

enum { WORDS = 3000, ROUNDS = 200, COUNTER = WORDS - 1 };

/* Static data, as a program's globals: the first word holds a value set before registration. */
static uint64_t words[WORDS] = {0x5eed};

static void info(const char *key, char *buf, size_t len)
{
    if (arbor_info_get(key, buf, len) != ARBOR_OK) snprintf(buf, len, "?");
}

/* Bytes allocated to this process's node-shared memory file of @p size bytes (the newest such
 * file when there are several), or -1 when there is none. */
static long long memory_file_bytes(off_t size)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    long long got = -1;
    int newest = -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[300], target[128];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n <= 0) continue;
        target[n] = 0;
        struct stat st;
        int fd = atoi(e->d_name);
        if (strstr(target, "memfd:arbor-registered") && stat(path, &st) == 0 &&
            st.st_size == size && fd > newest) {
            newest = fd;
            got = (long long)st.st_blocks * 512;
        }
    }
    closedir(d);
    return got;
}

/* A fresh mapping of 16 MiB with two pages written, registered node-shared. */
static void fresh_mapping(bool shared)
{
    const size_t len = 16u << 20, pg = (size_t)sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED, "mmap");
    if (m == MAP_FAILED) return;
    memset(m + pg, 0x11, 64);
    memset(m + len / 2, 0x22, 64);
    arbor_reg_h r = NULL;
    CHECK(arbor_mem_register(m, len, ARBOR_MEM_NODE_SHARED, &r) == ARBOR_OK, "register fresh");
    CHECK(m[pg] == 0x11 && m[pg + 63] == 0x11 && m[len / 2] == 0x22 && m[pg + 64] == 0 &&
              m[0] == 0 && m[len - 1] == 0,
          "a fresh mapping's contents changed at registration");
    long long bytes = memory_file_bytes((off_t)len);
    if (shared)
        CHECK(bytes >= 0 && bytes <= (long long)(16 * pg),
              "the memory file of a fresh 16 MiB mapping holds %lld bytes", bytes);
    CHECK(arbor_mem_deregister(&r) == ARBOR_OK, "deregister fresh");
    munmap(m, len);
}

int main(void)
{
    if (arbor_init() != ARBOR_OK) {
        fprintf(stderr, "test_reg_shared: arbor_init failed\n");
        return 1;
    }
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    const char *want = getenv("EXPECT_SHARED");
    int expect = want ? atoi(want) : -1;
    char nodes[16], cma[256], thread[8];
    info("topology.nodes", nodes, sizeof nodes);
    info("model.cma", cma, sizeof cma);
    bool one_node = !strcmp(nodes, "1");

    words[1] = (uint64_t)rank;
    arbor_reg_h reg = NULL;
    arbor_status_t st = arbor_mem_register(words, sizeof(words), ARBOR_MEM_NODE_SHARED, &reg);
    CHECK(st == ARBOR_OK, "register: %s", arbor_strerror(st));
    if (st != ARBOR_OK) return 1;
    CHECK(words[0] == 0x5eed && words[1] == (uint64_t)rank, "the words changed at registration");
    CHECK(arbor_mem_register(words, sizeof(words), 1u << 7, &(arbor_reg_h){0}) == ARBOR_ERR_FLAGS,
          "an unknown flag is refused");

    size_t len = 0;
    CHECK(arbor_mem_pack(reg, NULL, &len) == ARBOR_OK && len > 0, "pack size");
    uint8_t *mine = calloc(1, len), *all = calloc((size_t)size, len);
    CHECK(mine && all, "no memory");
    if (!mine || !all) return 1;
    CHECK(arbor_mem_pack(reg, mine, &len) == ARBOR_OK, "pack");
    CHECK(arbor_allgather(ARBOR_TEAM_WORLD, mine, all, len, ARBOR_BYTE) == ARBOR_OK, "allgather");
    arbor_attach_h *att = calloc((size_t)size, sizeof(*att));
    uint64_t **base = calloc((size_t)size, sizeof(*base));
    int mapped = 0;
    for (int r = 0; r < size; r++) {
        st = arbor_mem_attach(all + (size_t)r * len, len, &att[r]);
        CHECK(st == ARBOR_OK, "attach rank %d: %s", r, arbor_strerror(st));
        void *b = NULL;
        arbor_mem_attach_info(att[r], NULL, &b, NULL);
        base[r] = b;
        void *p = NULL;
        CHECK(arbor_mem_ptr(r, base[r] + 2, &p) == ARBOR_OK, "arbor_mem_ptr rank %d", r);
        if (r == rank) {
            CHECK(p == &words[2], "arbor_mem_ptr of our own words: %p, not %p", p, &words[2]);
        } else if (p) {
            mapped++;
            *(volatile uint64_t *)p; /* readable */
        }
    }
    if (expect == 1 && one_node && !strstr(cma, "not taken"))
        CHECK(mapped == size - 1, "%d of %d peers' registrations mapped here", mapped, size - 1);
    if (expect == 0)
        CHECK(mapped == 0, "%d peers' registrations mapped with nothing mapped", mapped);
    bool shared = expect == 1 && one_node && mapped == size - 1 && size > 1;

    /* A registration inside the node-shared pages, without the flag, is reached through the
     * same file (one mechanism per word); one that overlaps them in part is refused. */
    arbor_reg_h inner = NULL;
    CHECK(arbor_mem_register(&words[100], 100 * sizeof(uint64_t), 0, &inner) == ARBOR_OK,
          "a registration inside the first");
    size_t ilen = 0;
    arbor_mem_pack(inner, NULL, &ilen);
    uint8_t *imine = calloc(1, ilen), *iall = calloc((size_t)size, ilen);
    CHECK(imine && iall && arbor_mem_pack(inner, imine, &ilen) == ARBOR_OK, "pack the inner one");
    CHECK(arbor_allgather(ARBOR_TEAM_WORLD, imine, iall, ilen, ARBOR_BYTE) == ARBOR_OK,
          "allgather");
    for (int r = 0; r < size; r++) {
        arbor_attach_h a = NULL;
        CHECK(arbor_mem_attach(iall + (size_t)r * ilen, ilen, &a) == ARBOR_OK, "attach inner");
        void *b = NULL, *p = NULL;
        arbor_mem_attach_info(a, NULL, &b, NULL);
        CHECK(arbor_mem_ptr(r, b, &p) == ARBOR_OK, "arbor_mem_ptr inner");
        if (shared && r != rank) CHECK(p != NULL, "rank %d's inner registration not mapped", r);
        arbor_mem_detach(&a);
    }
    /* Every peer attached (and detached) before the owner ends it. */
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "barrier");
    CHECK(arbor_mem_deregister(&inner) == ARBOR_OK, "deregister the inner one");
    free(imine), free(iall);
    if (shared) {
        uintptr_t end = ((uintptr_t)&words[WORDS] + 4095) & ~(uintptr_t)4095;
        arbor_reg_h part = NULL;
        CHECK(arbor_mem_register(&words[WORDS - 8], end + 8 - (uintptr_t)&words[WORDS - 8], 0,
                                 &part) == ARBOR_ERR_ADDRESS &&
                  !part,
              "a registration overlapping the node-shared pages in part was not refused");
    }

    /* Puts: word 2 + rank at every peer; gets back. */
    for (int r = 0; r < size; r++) {
        uint64_t v = 1000u * (uint64_t)rank + (uint64_t)r;
        CHECK(arbor_put(r, base[r] + 2 + rank, &v, sizeof v) == ARBOR_OK, "put to %d", r);
    }
    CHECK(arbor_quiet() == ARBOR_OK, "quiet");
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "barrier");
    for (int r = 0; r < size; r++)
        CHECK(words[2 + r] == 1000u * (uint64_t)r + (uint64_t)rank, "word %d: %llu", 2 + r,
              (unsigned long long)words[2 + r]);
    for (int r = 0; r < size; r++) {
        uint64_t got[2] = {0, 0};
        CHECK(arbor_get(r, got, base[r], sizeof got) == ARBOR_OK, "get from %d", r);
        CHECK(got[0] == 0x5eed && got[1] == (uint64_t)r, "rank %d's words 0, 1: %llx %llu", r,
              (unsigned long long)got[0], (unsigned long long)got[1]);
    }

    /* Every path of atomics on rank 0's counter, from every rank, rank 0's own included. */
    uint64_t *counter = base[0] + COUNTER, one = 1, old = 0;
    ptrdiff_t stride[1] = {sizeof(uint64_t)};
    size_t count[2] = {sizeof(uint64_t), 1};
    void *vsrc[1] = {&one}, *vdst[1] = {counter};
    arbor_iov_t iov = {.src = vsrc, .dst = vdst, .count = 1, .nbytes = sizeof(uint64_t)};
    for (int i = 0; i < ROUNDS; i++) {
        CHECK(arbor_atomic(0, counter, ARBOR_AMO_FADD, ARBOR_UINT64, &one, NULL, &old) == ARBOR_OK,
              "fetch-add");
        uint64_t seen = 0, next;
        do { /* a compare-and-swap increment */
            CHECK(arbor_atomic(0, counter, ARBOR_AMO_FETCH, ARBOR_UINT64, NULL, NULL, &seen) ==
                      ARBOR_OK,
                  "fetch");
            next = seen + 1;
            old = 0;
            CHECK(arbor_atomic(0, counter, ARBOR_AMO_CSWAP, ARBOR_UINT64, &next, &seen, &old) ==
                      ARBOR_OK,
                  "compare-and-swap");
        } while (old != seen && failures == 0);
        CHECK(arbor_acc(0, counter, &one, 1, ARBOR_UINT64, ARBOR_SUM, NULL) == ARBOR_OK, "acc");
        CHECK(arbor_acc_strided(0, counter, stride, &one, stride, count, 1, ARBOR_UINT64, ARBOR_SUM,
                                NULL) == ARBOR_OK,
              "strided acc");
        CHECK(arbor_acc_vector(0, &iov, 1, ARBOR_UINT64, ARBOR_SUM, NULL) == ARBOR_OK,
              "vector acc");
    }
    CHECK(arbor_quiet() == ARBOR_OK, "quiet");
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "barrier");
    if (rank == 0) {
        uint64_t want_total = (uint64_t)size * ROUNDS * 5;
        CHECK(words[COUNTER] == want_total, "counter %llu, want %llu (%d ranks x %d rounds x 5)",
              (unsigned long long)words[COUNTER], (unsigned long long)want_total, size, ROUNDS);
    }

    info("progress.thread", thread, sizeof thread);
    if (shared) CHECK(!strcmp(thread, "n"), "a progress thread runs: %s", thread);
    if (expect == 0 && size > 1) CHECK(!strcmp(thread, "y"), "no progress thread: %s", thread);
    if (rank == 0)
        printf("test_reg_shared: %d ranks, %s node(s), %d of %d peers mapped, progress thread %s\n",
               size, nodes, mapped, size - 1, thread);

    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "barrier");
    for (int r = 0; r < size; r++) CHECK(arbor_mem_detach(&att[r]) == ARBOR_OK, "detach %d", r);
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "barrier");
    CHECK(arbor_mem_deregister(&reg) == ARBOR_OK && !reg, "deregister");
    words[3] = 77;
    CHECK(words[0] == 0x5eed && words[3] == 77, "the words after deregistration");
    fresh_mapping(shared);
    free(mine), free(all), free(att), free(base);
    CHECK(arbor_finalize() == ARBOR_OK, "finalize");
    printf("test_reg_shared rank %d: %d checks, %d failures\n", rank, checks, failures);
    return failures ? 1 : 0;
}
