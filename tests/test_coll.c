/*
 * Launched test of barrier and broadcast: every root, sizes 0, 1, 7, 48, 49 (the inline limit),
 * 4096, 1 MiB + 3, blocking and non-blocking (many in flight at once), every byte checked
 * against a pattern each rank computes itself; the barrier is checked through files each rank
 * creates before entering it; bad arguments must return their specific codes and leave later
 * collectives working. arbor_team_last_collective must name the algorithm each bcast ran (the
 * one ARBOR_BCAST_ALGORITHM forces, when it is set) with a finite prediction.
 * Run under a PMIx launcher at any rank count (or alone as a singleton).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arbor.h"

static int rank, size, failures;

#define CHECK(_cond, ...)                                                                          \
    do {                                                                                           \
        if (!(_cond)) {                                                                            \
            fprintf(stderr, "rank %d: FAIL %s:%d: ", rank, __FILE__, __LINE__);                    \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#define CHECK_OK(_call)                                                                            \
    do {                                                                                           \
        arbor_status_t _s = (_call);                                                               \
        CHECK(_s == ARBOR_OK, "%s returned %s", #_call, arbor_strerror(_s));                       \
    } while (0)

static uint8_t pattern(size_t i, int root, int salt)
{
    return (uint8_t)((i * 131u) ^ (size_t)(root * 17) ^ (size_t)(salt * 7) ^ (i >> 8));
}

static int check_buf(const uint8_t *buf, size_t n, int root, int salt, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        if (buf[i] != pattern(i, root, salt)) {
            CHECK(0, "%s root %d bytes %zu: byte %zu is %u, expected %u", what, root, n, i, buf[i],
                  pattern(i, root, salt));
            return 1;
        }
    }
    return 0;
}

static void fill(uint8_t *buf, size_t n, int root, int salt, int me)
{
    for (size_t i = 0; i < n; i++) buf[i] = me == root ? pattern(i, root, salt) : 0xEE;
}

static void test_bcast_blocking(void)
{
    static const size_t sizes[] = {0, 1, 7, 48, 49, 4096, (1u << 20) + 3};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t n = sizes[s];
        /* +1 and an odd start: unaligned buffers */
        uint8_t *mem = malloc(n + 2), *buf = mem + 1;
        for (int root = 0; root < size; root++) {
            fill(buf, n, root, (int)s, rank);
            CHECK_OK(arbor_bcast(ARBOR_TEAM_WORLD, n ? buf : NULL, n, root));
            check_buf(buf, n, root, (int)s, "bcast");
        }
        free(mem);
    }
}

static void test_bcast_nonblocking(void)
{
    enum { INFLIGHT = 64 };
    static const size_t sizes[] = {1, 100, 70000};
    arbor_request_h req[INFLIGHT];
    uint8_t *bufs[INFLIGHT];
    for (int i = 0; i < INFLIGHT; i++) {
        size_t n = sizes[i % 3];
        int root = i % size;
        bufs[i] = malloc(n);
        fill(bufs[i], n, root, i, rank);
        if (i % 5 == 4)
            CHECK_OK(arbor_barrier_nb(ARBOR_TEAM_WORLD, NULL, &req[i]));
        else
            CHECK_OK(arbor_bcast_nb(ARBOR_TEAM_WORLD, bufs[i], n, root, NULL, &req[i]));
    }
    /* complete in reverse order, mixing test and wait */
    for (int i = INFLIGHT - 1; i >= 0; i--) {
        arbor_status_t st;
        if (i % 2) {
            while ((st = arbor_test(&req[i])) == ARBOR_INPROGRESS) {
            }
            CHECK(st == ARBOR_OK, "test returned %s", arbor_strerror(st));
        } else {
            CHECK_OK(arbor_wait(&req[i]));
        }
        CHECK(req[i] == NULL, "completed handle not cleared");
    }
    for (int i = 0; i < INFLIGHT; i++) {
        if (i % 5 != 4) check_buf(bufs[i], sizes[i % 3], i % size, i, "bcast_nb");
        free(bufs[i]);
    }
}

/* Each rank creates its file, then enters the barrier: after it every file must exist. */
static void test_barrier(void)
{
    char dir[256] = {0}, path[300];
    if (rank == 0) {
        snprintf(dir, sizeof(dir), "/tmp/arbor-barrier-XXXXXX");
        CHECK(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
    }
    CHECK_OK(arbor_bcast(ARBOR_TEAM_WORLD, dir, sizeof(dir), 0));
    for (int round = 0; round < 20; round++) {
        snprintf(path, sizeof(path), "%s/%d.%d", dir, round, rank);
        FILE *f = fopen(path, "w");
        CHECK(f != NULL, "cannot create %s", path);
        if (f) fclose(f);
        CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
        for (int r = 0; r < size; r++) {
            struct stat sb;
            snprintf(path, sizeof(path), "%s/%d.%d", dir, round, r);
            CHECK(stat(path, &sb) == 0, "after barrier %d the file of rank %d is missing", round,
                  r);
        }
    }
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    for (int round = 0; round < 20; round++) {
        snprintf(path, sizeof(path), "%s/%d.%d", dir, round, rank);
        unlink(path);
    }
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    if (rank == 0) rmdir(dir);
}

static int is_bcast_algorithm(const char *name)
{
    const char *const *names;
    int n = 0;
    CHECK_OK(arbor_algorithm_names("bcast", &names, &n));
    for (int i = 0; name && i < n; i++)
        if (!strcmp(names[i], name)) return 1;
    return 0;
}

/* Local calls, before arbor_init. */
static void test_algorithm_names(void)
{
    const char *const *names = NULL;
    int n = -1;
    CHECK_OK(arbor_algorithm_names("bcast", &names, &n));
    CHECK(n > 1 && names != NULL, "bcast has %d algorithm names", n);
    CHECK(is_bcast_algorithm("binomial"), "binomial is not a bcast algorithm");
    CHECK(!is_bcast_algorithm("auto"), "auto listed as an algorithm");
    CHECK(arbor_algorithm_names("reduce_scatter", &names, &n) == ARBOR_OK && n > 0,
          "reduce_scatter has no algorithm names");
    names = NULL, n = -1;
    CHECK(arbor_algorithm_names("bcast_typo", &names, &n) == ARBOR_ERR_INVALID_ARG,
          "unknown collective accepted");
    CHECK(names == NULL && n == -1, "a rejected call wrote its outputs");
    CHECK(arbor_algorithm_names(NULL, &names, &n) == ARBOR_ERR_INVALID_ARG, "NULL collective");
    CHECK(arbor_algorithm_names("bcast", NULL, &n) == ARBOR_ERR_INVALID_ARG, "NULL names_p");
    CHECK(arbor_algorithm_names("bcast", &names, NULL) == ARBOR_ERR_INVALID_ARG, "NULL count_p");
}

static void test_last_collective(void)
{
    arbor_coll_info_t info, before;
    arbor_team_h half = ARBOR_TEAM_NULL;
    uint8_t b[64];
    const char *tp = NULL, *forced = getenv("ARBOR_BCAST_ALGORITHM");
    CHECK_OK(arbor_transport_name(&tp));
    CHECK_OK(arbor_team_split(ARBOR_TEAM_WORLD, rank % 2, rank, &half));
    memset(&info, 0x5A, sizeof(info));
    before = info;
    CHECK(arbor_team_last_collective(half, &info) == ARBOR_ERR_HANDLE,
          "a new team reports a last collective");
    CHECK(!memcmp(&info, &before, sizeof(info)), "a rejected call wrote info");
    CHECK(arbor_team_last_collective(half, NULL) == ARBOR_ERR_INVALID_ARG, "NULL info");
    CHECK(arbor_team_last_collective((arbor_team_h)(uintptr_t)0x42, &info) == ARBOR_ERR_TEAM,
          "bad team");
    uint64_t seq = 0;
    int half_rank = -1;
    CHECK_OK(arbor_team_rank(half, &half_rank));
    for (int i = 0; i < 2; i++) {
        fill(b, sizeof(b), 0, 99, half_rank);
        CHECK_OK(arbor_bcast(half, b, sizeof(b), 0));
        check_buf(b, sizeof(b), 0, 99, "bcast on half");
        arbor_status_t lst = arbor_team_last_collective(half, &info);
        /* A failed call leaves info as it was (0x5A bytes before the first bcast): no reads. */
        CHECK(lst == ARBOR_OK, "arbor_team_last_collective(half) returned %s", arbor_strerror(lst));
        if (lst != ARBOR_OK) break;
        CHECK(info.collective && !strcmp(info.collective, "bcast"), "collective %s",
              info.collective ? info.collective : "(null)");
        CHECK(is_bcast_algorithm(info.algorithm), "algorithm %s is not a bcast algorithm",
              info.algorithm ? info.algorithm : "(null)");
        if (forced && strcmp(forced, "auto"))
            CHECK(info.algorithm && !strcmp(info.algorithm, forced),
                  "ARBOR_BCAST_ALGORITHM=%s but %s ran", forced,
                  info.algorithm ? info.algorithm : "(null)");
        CHECK(isfinite(info.predicted_us) && info.predicted_us >= 0, "predicted %g us",
              info.predicted_us);
        CHECK(info.transport && tp && !strcmp(info.transport, tp), "transport %s, expected %s",
              info.transport ? info.transport : "(null)", tp ? tp : "(null)");
        /* The second bcast is a cache hit: it must report the same choice, one later. */
        if (i == 1)
            CHECK(info.seq == seq + 1 && !strcmp(info.algorithm, before.algorithm) &&
                      info.predicted_us == before.predicted_us,
                  "cache hit reports seq %llu / %s / %g after %llu / %s / %g",
                  (unsigned long long)info.seq, info.algorithm, info.predicted_us,
                  (unsigned long long)seq, before.algorithm, before.predicted_us);
        seq = info.seq;
        before = info;
    }
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    arbor_status_t wst = arbor_team_last_collective(ARBOR_TEAM_WORLD, &info);
    CHECK(wst == ARBOR_OK, "arbor_team_last_collective(world) returned %s", arbor_strerror(wst));
    if (wst == ARBOR_OK)
        CHECK(info.collective && !strcmp(info.collective, "barrier"),
              "world's last collective is %s", info.collective ? info.collective : "(null)");
    CHECK_OK(arbor_team_free(&half));
}

static void test_bad_input(void)
{
    uint8_t b[8];
    arbor_request_h req = NULL, bogus = (arbor_request_h)(uintptr_t)0x123456789ull;
    CHECK(arbor_bcast(ARBOR_TEAM_WORLD, b, 8, size) == ARBOR_ERR_ROOT, "root == size accepted");
    CHECK(arbor_bcast(ARBOR_TEAM_WORLD, b, 8, -1) == ARBOR_ERR_ROOT, "root -1 accepted");
    CHECK(arbor_bcast(ARBOR_TEAM_WORLD, NULL, 8, 0) == ARBOR_ERR_BUFFER, "NULL buffer accepted");
    CHECK(arbor_bcast((arbor_team_h)(uintptr_t)0x42, b, 8, 0) == ARBOR_ERR_TEAM, "bad team");
    CHECK(arbor_bcast_nb(ARBOR_TEAM_WORLD, b, 8, 0, NULL, NULL) == ARBOR_ERR_INVALID_ARG,
          "NULL handle pointer accepted");
    arbor_op_params_t p = {.field_mask = ARBOR_OP_PARAM_FLAGS, .flags = 1u << 30};
    CHECK(arbor_barrier_nb(ARBOR_TEAM_WORLD, &p, &req) == ARBOR_ERR_FLAGS, "bad flags accepted");
    CHECK(arbor_wait(&bogus) == ARBOR_ERR_HANDLE, "forged handle accepted");
    CHECK(arbor_test(NULL) == ARBOR_ERR_INVALID_ARG, "NULL handle accepted");
    CHECK_OK(arbor_barrier_nb(ARBOR_TEAM_WORLD, NULL, &req));
    arbor_request_h copy = req;
    CHECK_OK(arbor_wait(&req));
    CHECK(arbor_wait(&copy) == ARBOR_ERR_HANDLE, "completed handle accepted twice");
    int r;
    CHECK(arbor_team_rank(ARBOR_TEAM_WORLD, NULL) == ARBOR_ERR_INVALID_ARG, "NULL rank_p");
    CHECK(arbor_team_rank((arbor_team_h)(uintptr_t)0x42, &r) == ARBOR_ERR_TEAM, "bad team rank");
    /* everything still works after the rejected calls */
    memset(b, rank == 0 ? 0x5A : 0, sizeof(b));
    CHECK_OK(arbor_bcast(ARBOR_TEAM_WORLD, b, sizeof(b), 0));
    CHECK(b[7] == 0x5A, "bcast after bad calls broken");
}

int main(void)
{
    test_algorithm_names();
    arbor_status_t st = arbor_init();
    if (st != ARBOR_OK) {
        fprintf(stderr, "arbor_init: %s\n", arbor_strerror(st));
        return st == ARBOR_ERR_UNSUPPORTED ? 77 : 1;
    }
    CHECK_OK(arbor_team_rank(ARBOR_TEAM_WORLD, &rank));
    CHECK_OK(arbor_team_size(ARBOR_TEAM_WORLD, &size));
    test_barrier();
    test_bcast_blocking();
    test_bcast_nonblocking();
    test_bad_input();
    test_last_collective();
    CHECK_OK(arbor_finalize());
    CHECK(arbor_finalize() == ARBOR_ERR_NOT_INITIALIZED, "double finalize accepted");
    if (rank == 0 || failures)
        printf("rank %d of %d: %s (%d failures)\n", rank, size, failures ? "FAILED" : "passed",
               failures);
    return failures ? 1 : 0;
}
