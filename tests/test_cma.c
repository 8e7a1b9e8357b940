/*
 * Launched test of one copy on malloc'd buffers through cross-memory attach (runtime/cma.h):
 * bcast, scatter and gather from / to every root, allgather and alltoall, plain and in place
 * (ARBOR_IN_PLACE), at odd sizes (1, 48, 49 bytes, 64 KiB + 3, and 1 MiB + 7 up to P = 4,
 * 256 KiB + 5 above), on ordinary malloc'd buffers; allreduce, reduce and reduce_scatter (uint32
 * sums) at 1, 12, 13, 16385 and about a quarter of the largest size in elements, plain and in
 * place; then calls in flight together, completed in reverse order. Every byte is checked
 * against a pattern the checker computes itself.
 *
 * CMA_EXPECT=1 (ARBOR_CMA=always, or the model priced to choose it): each rank also checks,
 * through arbor_team_last_collective, that the calls it received with blocks of at least CMA_MIN
 * bytes (default: above the inline size) went through cross-memory attach and that their bytes
 * were read straight from the sender's buffer.
 * CMA_EXPECT=0 (ARBOR_CMA=never, or =refuse: the probe refused, the real fallback): that the
 * path was never taken. Unset: nothing checked about the path (the model decides).
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

enum { INLINE_MAX = 48, CHUNK = 65536 };
static size_t sizes[5] = {1, 48, 49, 65536 + 3, 1048576 + 7};
static const int nsizes = 5;
static int expect = -1;
static size_t min_piece = INLINE_MAX + 1; /* CMA_MIN: blocks the expectation covers */

/* Bytes of a block of n that move as descriptors at least: all but a last chunk small enough
 * to travel inline (a descriptor covers what its sender holds, so it may take that tail too). */
static size_t described(size_t n)
{
    size_t tail = n % CHUNK;
    return tail && tail <= INLINE_MAX ? n - tail : n;
}

/* After a call in which this rank received `got` bytes in blocks of `piece`. */
static void check_path(const char *what, uint64_t before, size_t got, size_t piece)
{
    arbor_coll_info_t info;
    CHECK_OK(arbor_team_last_collective(ARBOR_TEAM_WORLD, &info));
    uint64_t read = info.one_copy_bytes - before;
    if (expect == 0) {
        CHECK(!info.one_copy && !info.cma && read == 0,
              "%s: cross-memory attach taken where it must not be (%llu B)", what,
              (unsigned long long)read);
    } else if (expect == 1 && piece >= min_piece && size > 1) {
        size_t least = got / piece * described(piece);
        CHECK(info.one_copy && info.cma, "%s: %zu bytes did not go through cross-memory attach",
              what, piece);
        CHECK(read >= least && read <= got, "%s: %llu bytes read from peers, expected %zu to %zu",
              what, (unsigned long long)read, least, got);
    }
}

/* Whether every block of the last call came straight from its origin (a flat tree, or P = 2):
 * through a binomial tree an inner rank forwards from its scratch, through the slots. */
static bool direct_tree(void)
{
    arbor_coll_info_t info;
    if (arbor_team_last_collective(ARBOR_TEAM_WORLD, &info) != ARBOR_OK) return false;
    return size == 2 || !strcmp(info.algorithm, "flat");
}

static void test_bcast(uint8_t *buf)
{
    for (int s = 0; s < nsizes; s++)
        for (int root = 0; root < size; root++) {
            size_t n = sizes[s];
            int salt = s * 16 + root;
            if (rank == root)
                fill(buf, n, root, 0, salt);
            else
                memset(buf, 0xA5, n);
            uint64_t before = one_copy_bytes();
            CHECK_OK(arbor_bcast(ARBOR_TEAM_WORLD, buf, n, root));
            check_block(buf, n, root, 0, salt, "bcast");
            /* A relay of a deeper tree reads what has landed at its parent: still one copy. */
            if (rank != root) check_path("bcast", before, n, n);
        }
}

static void test_allgather(uint8_t *send, uint8_t *recv, bool in_place)
{
    for (int s = 0; s < nsizes; s++) {
        size_t n = sizes[s];
        int salt = 100 + s + (in_place ? 50 : 0);
        memset(recv, 0x5A, n * (size_t)size);
        if (in_place)
            fill(recv + (size_t)rank * n, n, rank, 0, salt);
        else
            fill(send, n, rank, 0, salt);
        uint64_t before = one_copy_bytes();
        CHECK_OK(arbor_allgather(ARBOR_TEAM_WORLD, in_place ? ARBOR_IN_PLACE : send, recv, n,
                                 ARBOR_UINT8));
        for (int r = 0; r < size; r++)
            check_block(recv + (size_t)r * n, n, r, 0, salt,
                        in_place ? "allgather in place" : "allgather");
        check_path("allgather", before, n * (size_t)(size - 1), n);
    }
}

static void test_alltoall(uint8_t *send, uint8_t *recv, bool in_place)
{
    for (int s = 0; s < nsizes; s++) {
        size_t n = sizes[s];
        int salt = 200 + s + (in_place ? 50 : 0);
        uint8_t *in = in_place ? recv : send;
        for (int r = 0; r < size; r++) fill(in + (size_t)r * n, n, rank, r, salt);
        if (!in_place) memset(recv, 0x3C, n * (size_t)size);
        uint64_t before = one_copy_bytes();
        CHECK_OK(arbor_alltoall(ARBOR_TEAM_WORLD, in_place ? ARBOR_IN_PLACE : send, recv, n,
                                ARBOR_UINT8));
        for (int r = 0; r < size; r++)
            check_block(recv + (size_t)r * n, n, r, rank, salt,
                        in_place ? "alltoall in place" : "alltoall");
        /* In place, the input is copied aside first and sent from that copy: still malloc'd. */
        check_path("alltoall", before, n * (size_t)(size - 1), n);
    }
}

/* Scatter from and gather to every root, the root in place on every other round. */
static void test_rooted(uint8_t *big, uint8_t *one)
{
    for (int s = 0; s < nsizes; s++)
        for (int root = 0; root < size; root++) {
            size_t n = sizes[s];
            int salt = 500 + s * 16 + root;
            bool in_place = (s + root) % 2 == 1;
            if (rank == root)
                for (int r = 0; r < size; r++) fill(big + (size_t)r * n, n, root, r, salt);
            memset(one, 0x77, n);
            uint64_t before = one_copy_bytes();
            void *recv = rank == root && in_place ? ARBOR_IN_PLACE : one;
            CHECK_OK(arbor_scatter(ARBOR_TEAM_WORLD, big, recv, n, ARBOR_UINT8, root));
            if (recv == one) check_block(one, n, root, rank, salt, "scatter");
            if (rank == root && in_place)
                check_block(big + (size_t)rank * n, n, root, rank, salt, "scatter in place");
            if (rank != root && direct_tree()) check_path("scatter", before, n, n);

            memset(big, 0x66, n * (size_t)size);
            if (rank == root && in_place)
                fill(big + (size_t)rank * n, n, rank, root, salt + 8);
            else
                fill(one, n, rank, root, salt + 8);
            before = one_copy_bytes();
            const void *send = rank == root && in_place ? ARBOR_IN_PLACE : one;
            CHECK_OK(arbor_gather(ARBOR_TEAM_WORLD, send, big, n, ARBOR_UINT8, root));
            if (rank == root) {
                for (int r = 0; r < size; r++)
                    check_block(big + (size_t)r * n, n, r, root, salt + 8,
                                in_place ? "gather in place" : "gather");
                if (direct_tree()) check_path("gather", before, n * (size_t)(size - 1), n);
            }
        }
}

/* Reductions (uint32 sum, so every element's expected value is exact): element i of rank r's
 * input, and the sum over the ranks. */
static uint32_t elem(size_t i, int r, int salt)
{
    return (uint32_t)(i * 2654435761u) ^ (uint32_t)(r * 40503 + 1) ^ (uint32_t)(salt * 977);
}

static uint32_t elem_sum(size_t i, int salt)
{
    uint32_t v = 0;
    for (int r = 0; r < size; r++) v += elem(i, r, salt);
    return v;
}

static void check_sum(const uint32_t *buf, size_t from, size_t n, int salt, const char *what,
                      size_t count)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != elem_sum(from + i, salt)) {
            CHECK(0, "%s of %zu elements: element %zu is %u, expected %u", what, count, from + i,
                  buf[i], elem_sum(from + i, salt));
            return;
        }
    CHECK(1, "%s", what);
}

/* After a reduction that reads from peers whatever its algorithm: through cross-memory attach
 * when expected (every rank reads something where it receives at all: read_any), never when
 * not. */
static void check_reduction_path(const char *what, uint64_t before, size_t bytes, bool read_any)
{
    arbor_coll_info_t info;
    CHECK_OK(arbor_team_last_collective(ARBOR_TEAM_WORLD, &info));
    uint64_t read = info.one_copy_bytes - before;
    if (expect == 0)
        CHECK(!info.cma && read == 0, "%s: cross-memory attach taken where it must not be", what);
    else if (expect == 1 && size > 1 && bytes / (size_t)size >= CHUNK)
        CHECK(info.one_copy && info.cma && (!read_any || read > 0),
              "%s of %zu bytes did not go through cross-memory attach (%llu B read, alg %s)", what,
              bytes, (unsigned long long)read, info.algorithm);
}

/* allreduce (plain and in place), reduce to every root (the root in place on every other
 * round) and reduce_scatter with near-equal blocks, at odd element counts. */
static void test_reductions(uint32_t *in, uint32_t *out)
{
    size_t counts[5] = {1, 12, 13, (65536 + 4) / 4, sizes[nsizes - 1] / 4 + 1};
    size_t *rc = malloc(sizeof(size_t) * (size_t)size);
    CHECK(rc != NULL, "malloc");
    for (int s = 0; rc && s < 5; s++) {
        size_t n = counts[s];
        for (int in_place = 0; in_place < 2; in_place++) {
            int salt = 600 + s * 4 + in_place;
            uint32_t *src = in_place ? out : in;
            for (size_t i = 0; i < n; i++) src[i] = elem(i, rank, salt);
            if (!in_place) memset(out, 0x42, n * 4);
            uint64_t before = one_copy_bytes();
            CHECK_OK(arbor_allreduce(ARBOR_TEAM_WORLD, in_place ? ARBOR_IN_PLACE : in, out, n,
                                     ARBOR_UINT32, ARBOR_SUM));
            check_sum(out, 0, n, salt, in_place ? "allreduce in place" : "allreduce", n);
            check_reduction_path("allreduce", before, n * 4, true);
        }
        for (int root = 0; root < size; root++) {
            int salt = 700 + s * 16 + root;
            bool in_place = rank == root && (s + root) % 2 == 1;
            uint32_t *src = in_place ? out : in;
            for (size_t i = 0; i < n; i++) src[i] = elem(i, rank, salt);
            if (!in_place) memset(out, 0x24, n * 4);
            uint64_t before = one_copy_bytes();
            CHECK_OK(arbor_reduce(ARBOR_TEAM_WORLD, in_place ? ARBOR_IN_PLACE : in, out, n,
                                  ARBOR_UINT32, ARBOR_SUM, root));
            if (rank == root)
                check_sum(out, 0, n, salt, in_place ? "reduce in place" : "reduce", n);
            check_reduction_path("reduce", before, n * 4, false);
        }
        size_t at = 0, mine_at = 0;
        for (int r = 0; r < size; r++) {
            rc[r] = n / (size_t)size + ((size_t)r < n % (size_t)size);
            if (r < rank) mine_at += rc[r];
            at += rc[r];
        }
        int salt = 800 + s;
        for (size_t i = 0; i < n; i++) in[i] = elem(i, rank, salt);
        memset(out, 0x33, rc[rank] * 4 + 4);
        uint64_t before = one_copy_bytes();
        CHECK_OK(arbor_reduce_scatter(ARBOR_TEAM_WORLD, in, out, rc, ARBOR_UINT32, ARBOR_SUM));
        check_sum(out, mine_at, rc[rank], salt, "reduce_scatter", n);
        CHECK(((uint8_t *)out)[rc[rank] * 4] == 0x33, "reduce_scatter wrote past its block");
        check_reduction_path("reduce_scatter", before, n * 4, false);
    }
    free(rc);
}

/* Calls in flight together, completed in reverse order: two large bcasts from different roots,
 * an allgather, an alltoall and a small bcast, all on malloc'd memory. */
static void test_mixed(void)
{
    size_t big = sizes[nsizes - 1], mid = 65536 + 3, small = 49;
    uint8_t *b0 = malloc(big), *b1 = malloc(big), *ag_send = malloc(mid),
            *ag_recv = malloc(mid * (size_t)size), *a2a_send = malloc(mid * (size_t)size),
            *a2a_recv = malloc(mid * (size_t)size), *tiny = malloc(small);
    CHECK(b0 && b1 && ag_send && ag_recv && a2a_send && a2a_recv && tiny, "malloc");
    for (int round = 0; b0 && b1 && ag_send && ag_recv && a2a_send && a2a_recv && tiny && round < 3;
         round++) {
        int r0 = round % size, r1 = (round + 1) % size;
        if (rank == r0)
            fill(b0, big, r0, 0, 400 + round);
        else
            memset(b0, 0, big);
        if (rank == r1)
            fill(b1, big, r1, 0, 410 + round);
        else
            memset(b1, 0, big);
        fill(ag_send, mid, rank, 0, 420 + round);
        for (int r = 0; r < size; r++) fill(a2a_send + (size_t)r * mid, mid, rank, r, 430 + round);
        if (rank == r1)
            fill(tiny, small, r1, 0, 440 + round);
        else
            memset(tiny, 0, small);
        arbor_request_h req[5];
        CHECK_OK(arbor_bcast_nb(ARBOR_TEAM_WORLD, b0, big, r0, NULL, &req[0]));
        CHECK_OK(arbor_bcast_nb(ARBOR_TEAM_WORLD, b1, big, r1, NULL, &req[1]));
        CHECK_OK(arbor_allgather_nb(ARBOR_TEAM_WORLD, ag_send, ag_recv, mid, ARBOR_UINT8, NULL,
                                    &req[2]));
        CHECK_OK(arbor_alltoall_nb(ARBOR_TEAM_WORLD, a2a_send, a2a_recv, mid, ARBOR_UINT8, NULL,
                                   &req[3]));
        CHECK_OK(arbor_bcast_nb(ARBOR_TEAM_WORLD, tiny, small, r1, NULL, &req[4]));
        for (int i = 4; i >= 0; i--) CHECK_OK(arbor_wait(&req[i]));
        check_block(b0, big, r0, 0, 400 + round, "mixed: bcast 0");
        check_block(b1, big, r1, 0, 410 + round, "mixed: bcast 1");
        for (int r = 0; r < size; r++) {
            check_block(ag_recv + (size_t)r * mid, mid, r, 0, 420 + round, "mixed: allgather");
            check_block(a2a_recv + (size_t)r * mid, mid, r, rank, 430 + round, "mixed: alltoall");
        }
        check_block(tiny, small, r1, 0, 440 + round, "mixed: small bcast");
    }
    free(b0), free(b1), free(ag_send), free(ag_recv), free(a2a_send), free(a2a_recv), free(tiny);
}

int main(void)
{
    const char *e = getenv("CMA_EXPECT");
    if (e) expect = atoi(e);
    if ((e = getenv("CMA_MIN"))) min_piece = (size_t)atol(e);
    arbor_status_t status = arbor_init();
    if (status != ARBOR_OK) {
        fprintf(stderr, "arbor_init: %s\n", arbor_strerror(status));
        return 1;
    }
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    if (size > 4) sizes[nsizes - 1] = 262144 + 5; /* CI cost: P x P blocks on 2 cores */
    size_t most = (sizes[nsizes - 1] + 8) * (size_t)size;
    uint8_t *a = malloc(most), *b = malloc(most);
    CHECK(a && b, "malloc");
    if (a && b) {
        test_bcast(a);
        test_allgather(a, b, false);
        test_allgather(a, b, true);
        test_alltoall(a, b, false);
        test_alltoall(a, b, true);
        test_rooted(a, b);
        test_reductions((uint32_t *)a, (uint32_t *)b);
        test_mixed();
    }
    free(a);
    free(b);
    status = arbor_finalize();
    CHECK(status == ARBOR_OK, "arbor_finalize: %s", arbor_strerror(status));
    if (failures) fprintf(stderr, "rank %d: %d of %d checks failed\n", rank, failures, checks);
    if (rank == 0 && !failures)
        printf("test_cma: %d checks passed on rank 0 (P=%d)\n", checks, size);
    return failures ? 1 : 0;
}
