/*
 * Launched test of one-copy collectives on symmetric buffers (ARBOR_SYMMETRIC,
 * coll/coll_direct.h): bcast, scatter and gather from / to every root, allgather and alltoall,
 * on buffers from
 * arbor_mem_alloc, at odd sizes (1, 48, 49 bytes, 64 KiB + 3, 1 MiB + 7); the flag on buffers
 * that are not in the heap (the promise broken: still correct, through landing slots); and
 * symmetric and plain calls in flight together. Every byte is checked against a pattern the
 * checker computes itself.
 *
 * ONECOPY_EXPECT=1 (set for ucx entries, where every rank maps every other): each rank also
 * checks, through arbor_team_last_collective, that the large calls it received chose one copy
 * and that their bytes were read in place (all, or all but a last chunk small enough to travel
 * inline).
 * ONECOPY_EXPECT=0 (ofi, nothing mapped): that the one-copy path was never taken.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbor.h"
#include "launched_check.h"
#include "block_check.h"

#define CHECK_OK(_call)                                                                            \
    do {                                                                                           \
        arbor_status_t _s = (_call);                                                               \
        CHECK(_s == ARBOR_OK, "%s returned %s", #_call, arbor_strerror(_s));                       \
    } while (0)

static const size_t sizes[] = {1, 48, 49, 65536 + 3, 1048576 + 7};
enum { NSIZES = sizeof(sizes) / sizeof(sizes[0]), INLINE_MAX = 48 };
static int expect = -1; /* ONECOPY_EXPECT: 1 one copy must happen, 0 must not, -1 unchecked */
static const arbor_op_params_t symmetric = {.field_mask = ARBOR_OP_PARAM_FLAGS,
                                            .flags = ARBOR_SYMMETRIC};

/* Bytes of n that move as descriptors at least: all but a last chunk that travels inline. */
static size_t described(size_t n, size_t chunk)
{
    size_t tail = n % chunk;
    return tail && tail <= INLINE_MAX ? n - tail : n;
}

/* After a large symmetric call in which this rank received `got` bytes in `pieces` pieces:
 * with ONECOPY_EXPECT=1 the model must have chosen one copy and every described byte must have
 * been read in place; with 0 nothing may have been. */
static void check_path(const char *what, uint64_t before, size_t got, size_t piece)
{
    arbor_coll_info_t info;
    CHECK_OK(arbor_team_last_collective(ARBOR_TEAM_WORLD, &info));
    uint64_t read = info.one_copy_bytes - before;
    if (expect == 0) {
        CHECK(!info.one_copy && read == 0, "%s: one copy taken where nothing is mapped (%llu B)",
              what, (unsigned long long)read);
    } else if (expect == 1 && piece >= 65536 && size > 1) {
        /* A descriptor covers the chunks its sender holds at once, a small tail included; a
         * tail chunk described on its own travels inline instead. */
        size_t least = got / piece * described(piece, 65536);
        CHECK(info.one_copy, "%s: the model did not choose one copy for %zu bytes", what, piece);
        CHECK(read >= least && read <= got, "%s: %llu bytes read in place, expected %zu to %zu",
              what, (unsigned long long)read, least, got);
    }
}

/* Whether every block of the last call came straight from the root's or a leaf's buffer (a
 * flat tree, or P = 2). */
static bool direct_tree(void)
{
    arbor_coll_info_t info;
    if (arbor_team_last_collective(ARBOR_TEAM_WORLD, &info) != ARBOR_OK) return false;
    return size == 2 || !strcmp(info.algorithm, "flat");
}

static void *sym_alloc(size_t n, arbor_mem_h *h)
{
    void *p = NULL;
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, n, h, &p));
    return p;
}

static void test_bcast(uint8_t *buf)
{
    for (int s = 0; s < NSIZES; s++)
        for (int root = 0; root < size; root++) {
            size_t n = sizes[s];
            int salt = s * 16 + root;
            if (rank == root)
                fill(buf, n, root, 0, salt);
            else
                memset(buf, 0xA5, n);
            uint64_t before = one_copy_bytes();
            arbor_request_h req;
            CHECK_OK(arbor_bcast_nb(ARBOR_TEAM_WORLD, buf, n, root, &symmetric, &req));
            CHECK_OK(arbor_wait(&req));
            check_block(buf, n, root, 0, salt, "symmetric bcast");
            if (rank != root) check_path("bcast", before, n, n);
        }
}

static void test_allgather(uint8_t *send, uint8_t *recv)
{
    for (int s = 0; s < NSIZES; s++) {
        size_t n = sizes[s];
        fill(send, n, rank, 0, 100 + s);
        memset(recv, 0x5A, n * (size_t)size);
        uint64_t before = one_copy_bytes();
        arbor_request_h req;
        CHECK_OK(
            arbor_allgather_nb(ARBOR_TEAM_WORLD, send, recv, n, ARBOR_UINT8, &symmetric, &req));
        CHECK_OK(arbor_wait(&req));
        for (int r = 0; r < size; r++)
            check_block(recv + (size_t)r * n, n, r, 0, 100 + s, "symmetric allgather");
        check_path("allgather", before, n * (size_t)(size - 1), n);
    }
}

static void test_alltoall(uint8_t *send, uint8_t *recv)
{
    for (int s = 0; s < NSIZES; s++) {
        size_t n = sizes[s];
        for (int r = 0; r < size; r++) fill(send + (size_t)r * n, n, rank, r, 200 + s);
        memset(recv, 0x3C, n * (size_t)size);
        uint64_t before = one_copy_bytes();
        arbor_request_h req;
        CHECK_OK(arbor_alltoall_nb(ARBOR_TEAM_WORLD, send, recv, n, ARBOR_UINT8, &symmetric, &req));
        CHECK_OK(arbor_wait(&req));
        for (int r = 0; r < size; r++)
            check_block(recv + (size_t)r * n, n, r, rank, 200 + s, "symmetric alltoall");
        check_path("alltoall", before, n * (size_t)(size - 1), n);
    }
}

/* Scatter from and gather to every root. Through a binomial tree the blocks an inner rank
 * forwards travel from its private scratch, through the slots: the in-place bytes are checked
 * exactly where every block comes straight from the root's or a leaf's buffer (direct_tree). */
static void test_rooted(uint8_t *big, uint8_t *one)
{
    for (int s = 0; s < NSIZES; s++)
        for (int root = 0; root < size; root++) {
            size_t n = sizes[s];
            int salt = 500 + s * 16 + root;
            arbor_request_h req;
            if (rank == root)
                for (int r = 0; r < size; r++) fill(big + (size_t)r * n, n, root, r, salt);
            memset(one, 0x77, n);
            uint64_t before = one_copy_bytes();
            CHECK_OK(arbor_scatter_nb(ARBOR_TEAM_WORLD, big, one, n, ARBOR_UINT8, root, &symmetric,
                                      &req));
            CHECK_OK(arbor_wait(&req));
            check_block(one, n, root, rank, salt, "symmetric scatter");
            if (rank != root && direct_tree()) check_path("scatter", before, n, n);

            fill(one, n, rank, root, salt + 8);
            memset(big, 0x66, n * (size_t)size);
            before = one_copy_bytes();
            CHECK_OK(arbor_gather_nb(ARBOR_TEAM_WORLD, one, big, n, ARBOR_UINT8, root, &symmetric,
                                     &req));
            CHECK_OK(arbor_wait(&req));
            if (rank == root) {
                for (int r = 0; r < size; r++)
                    check_block(big + (size_t)r * n, n, r, root, salt + 8, "symmetric gather");
                if (direct_tree()) check_path("gather", before, n * (size_t)(size - 1), n);
            }
        }
}

/* The flag on malloc'd buffers: the promise is broken, the data still arrives (slots). */
static void test_flag_on_heap_memory(void)
{
    size_t n = 65536 + 3;
    uint8_t *send = malloc(n * (size_t)size), *recv = malloc(n * (size_t)size);
    CHECK(send && recv, "malloc");
    if (!send || !recv) return;
    fill(send, n, rank, 0, 300);
    arbor_request_h req;
    uint64_t before = one_copy_bytes();
    CHECK_OK(arbor_allgather_nb(ARBOR_TEAM_WORLD, send, recv, n, ARBOR_UINT8, &symmetric, &req));
    CHECK_OK(arbor_wait(&req));
    for (int r = 0; r < size; r++)
        check_block(recv + (size_t)r * n, n, r, 0, 300, "allgather flagged, malloc'd buffers");
    CHECK(one_copy_bytes() == before, "read in place from a buffer outside the heap");
    free(send);
    free(recv);
}

/* Symmetric and plain calls in flight together, completed in reverse order: a bcast from the
 * heap, a bcast from malloc'd memory, an allgather from the heap into malloc'd memory, an
 * alltoall from the heap, and a small symmetric bcast. */
static void test_mixed(uint8_t *a, uint8_t *b, uint8_t *c)
{
    size_t big = 1048576 + 7, mid = 65536 + 3, small = 49;
    uint8_t *plain = malloc(big), *gathered = malloc(mid * (size_t)size);
    CHECK(plain && gathered, "malloc");
    if (!plain || !gathered) return;
    for (int round = 0; round < 3; round++) {
        int r0 = round % size, r1 = (round + 1) % size;
        uint8_t *bc = a, *ag_send = a + big, *tiny = a + big + mid;
        uint8_t *a2a_send = b, *a2a_recv = c;
        if (rank == r0)
            fill(bc, big, r0, 0, 400 + round);
        else
            memset(bc, 0, big);
        if (rank == r1)
            fill(plain, big, r1, 0, 410 + round);
        else
            memset(plain, 0, big);
        fill(ag_send, mid, rank, 0, 420 + round);
        for (int r = 0; r < size; r++) fill(a2a_send + (size_t)r * mid, mid, rank, r, 430 + round);
        if (rank == r1)
            fill(tiny, small, r1, 0, 440 + round);
        else
            memset(tiny, 0, small);
        arbor_request_h req[5];
        CHECK_OK(arbor_bcast_nb(ARBOR_TEAM_WORLD, bc, big, r0, &symmetric, &req[0]));
        CHECK_OK(arbor_bcast_nb(ARBOR_TEAM_WORLD, plain, big, r1, NULL, &req[1]));
        CHECK_OK(arbor_allgather_nb(ARBOR_TEAM_WORLD, ag_send, gathered, mid, ARBOR_UINT8,
                                    &symmetric, &req[2]));
        CHECK_OK(arbor_alltoall_nb(ARBOR_TEAM_WORLD, a2a_send, a2a_recv, mid, ARBOR_UINT8,
                                   &symmetric, &req[3]));
        CHECK_OK(arbor_bcast_nb(ARBOR_TEAM_WORLD, tiny, small, r1, &symmetric, &req[4]));
        for (int i = 4; i >= 0; i--) CHECK_OK(arbor_wait(&req[i]));
        check_block(bc, big, r0, 0, 400 + round, "mixed: symmetric bcast");
        check_block(plain, big, r1, 0, 410 + round, "mixed: plain bcast");
        for (int r = 0; r < size; r++) {
            check_block(gathered + (size_t)r * mid, mid, r, 0, 420 + round, "mixed: allgather");
            check_block(a2a_recv + (size_t)r * mid, mid, r, rank, 430 + round, "mixed: alltoall");
        }
        check_block(tiny, small, r1, 0, 440 + round, "mixed: small symmetric bcast");
    }
    free(plain);
    free(gathered);
}

/* ARBOR_CHECK=1: a call flagged on some members only is a mismatch on every member (the
 * members would otherwise pick different algorithms), and nothing is written. */
static void test_flag_mismatch(uint8_t *buf)
{
    size_t n = 65536 + 3;
    memset(buf, rank == 0 ? 0x11 : 0x22, n);
    arbor_request_h req;
    const arbor_op_params_t *params = rank == 0 ? &symmetric : NULL;
    arbor_status_t st = arbor_bcast_nb(ARBOR_TEAM_WORLD, buf, n, 0, params, &req);
    if (st == ARBOR_OK) st = arbor_wait(&req);
    CHECK(st == ARBOR_ERR_MISMATCH, "bcast flagged on rank 0 only: %s, expected a mismatch",
          arbor_strerror(st));
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += buf[i] != (rank == 0 ? 0x11 : 0x22);
    CHECK(bad == 0, "a mismatched bcast wrote %zu bytes", bad);
}

int main(void)
{
    const char *e = getenv("ONECOPY_EXPECT");
    if (e) expect = atoi(e);
    arbor_status_t status = arbor_init();
    if (status != ARBOR_OK) {
        fprintf(stderr, "arbor_init: %s\n", arbor_strerror(status));
        return 1;
    }
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    size_t most = sizes[NSIZES - 1] * (size_t)size;
    arbor_mem_h ha, hb, hc;
    uint8_t *a = sym_alloc(most + 2 * 65536, &ha), *b = sym_alloc(most, &hb),
            *c = sym_alloc(most, &hc);
    if (a && b && c) {
        test_bcast(a);
        test_allgather(a, b);
        test_alltoall(b, c);
        test_rooted(b, c);
        test_flag_on_heap_memory();
        test_mixed(a, b, c);
        const char *check = getenv("ARBOR_CHECK");
        if (check && !strcmp(check, "1") && size > 1) test_flag_mismatch(a);
    }
    CHECK_OK(arbor_mem_free(&hc));
    CHECK_OK(arbor_mem_free(&hb));
    CHECK_OK(arbor_mem_free(&ha));
    status = arbor_finalize();
    CHECK(status == ARBOR_OK, "arbor_finalize: %s", arbor_strerror(status));
    if (failures) fprintf(stderr, "rank %d: %d of %d checks failed\n", rank, failures, checks);
    if (rank == 0 && !failures)
        printf("test_onecopy: %d checks passed on rank 0 (P=%d)\n", checks, size);
    return failures ? 1 : 0;
}
