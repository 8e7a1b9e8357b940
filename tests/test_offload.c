/*
 * Launched test of the hwcoll offload hook (docs/OFFLOAD.md). Run with ARBOR_OFFLOAD=hwcoll.
 *
 * On a transport with provider collectives (ofi:tcp;ofi_rxm): barriers, allreduces (int32,
 * int64, uint64, double; sum, min, max, bor, land; in place too) and broadcasts from every root
 * must give the right result, every element checked, and arbor_team_last_collective must name
 * "hwcoll" wherever the provider runs the call (broadcasts the group size does not divide go
 * padded); a call it cannot run (a user op, a broadcast whose per-member piece exceeds the
 * provider's 16288-byte message) must still be right, through software. Many
 * in flight at once, and a split team, too. The test fails if no call ran through the hook.
 *
 * With argument "refused": ARBOR_OFFLOAD=hwcoll (or triggered) on a transport without the hook
 * (ofi:shm, ucx) must fail arbor_init with ARBOR_ERR_UNSUPPORTED on every rank.
 *
 * With argument "triggered" (ARBOR_OFFLOAD=triggered on ofi:sockets): broadcasts from every
 * root and barriers through triggered writes, while the ranks that forward sit in a compute loop
 * that never calls arbor. Proof without timing: the forwarders compute until a file appears
 * that the receiving rank creates only once its data arrived and was checked (bounded by
 * ARBOR_TIMEOUT: past it the test fails). Every byte checked; every call must report
 * "triggered".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arbor.h"

#include "launched_check.h"

static int offloaded;

#define CHECK_OK(_call)                                                                            \
    do {                                                                                           \
        arbor_status_t _s = (_call);                                                               \
        CHECK(_s == ARBOR_OK, "%s returned %s", #_call, arbor_strerror(_s));                       \
    } while (0)

/* Whether the last collective on team ran through the hook; expect: 1 must, 0 must not, -1 must
 * have run through triggered writes. */
static void check_path(arbor_team_h team, int expect, const char *what)
{
    arbor_coll_info_t info;
    CHECK_OK(arbor_team_last_collective(team, &info));
    if (expect < 0) {
        int trig = strcmp(info.algorithm, "triggered") == 0;
        CHECK(trig, "%s ran %s, expected triggered", what, info.algorithm);
        offloaded += trig;
        return;
    }
    int hw = strcmp(info.algorithm, "hwcoll") == 0;
    CHECK(hw == expect, "%s ran %s, expected %s", what, info.algorithm,
          expect ? "hwcoll" : "a software algorithm");
    offloaded += hw;
}

static void test_barrier(arbor_team_h team)
{
    for (int i = 0; i < 20; i++) {
        CHECK_OK(arbor_barrier(team));
        check_path(team, 1, "barrier");
    }
}

/* Rank r's element i: small integers, so every op's result is exact in every type. */
static int64_t value(int r, size_t i)
{
    return (int64_t)((r * 7 + (int)(i % 13)) % 11) + 1;
}

static void test_allreduce_int64(arbor_team_h team, int tsize, int trank)
{
    static const size_t counts[] = {1, 7, 1000};
    static const arbor_op_t ops[] = {ARBOR_SUM, ARBOR_MIN, ARBOR_MAX, ARBOR_BOR, ARBOR_LAND};
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
        size_t n = counts[c];
        int64_t *in = malloc(n * 8), *out = malloc(n * 8);
        for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
            for (size_t i = 0; i < n; i++) in[i] = value(trank, i), out[i] = -1;
            int inplace = o == 1;
            if (inplace) memcpy(out, in, n * 8);
            CHECK_OK(
                arbor_allreduce(team, inplace ? ARBOR_IN_PLACE : in, out, n, ARBOR_INT64, ops[o]));
            check_path(team, 1, "allreduce int64");
            for (size_t i = 0; i < n; i++) {
                int64_t want = ops[o] == ARBOR_SUM ? 0 : ops[o] == ARBOR_MIN ? INT64_MAX : 0;
                if (ops[o] == ARBOR_LAND) want = 1;
                for (int r = 0; r < tsize; r++) {
                    int64_t v = value(r, i);
                    if (ops[o] == ARBOR_SUM) want += v;
                    if (ops[o] == ARBOR_MIN && v < want) want = v;
                    if (ops[o] == ARBOR_MAX && v > want) want = v;
                    if (ops[o] == ARBOR_BOR) want |= v;
                    if (ops[o] == ARBOR_LAND) want = want && v;
                }
                if (out[i] != want) {
                    CHECK(0, "allreduce int64 op %d count %zu: [%zu] = %lld, want %lld", ops[o], n,
                          i, (long long)out[i], (long long)want);
                    break;
                }
            }
        }
        free(in);
        free(out);
    }
}

static void test_allreduce_types(arbor_team_h team, int tsize, int trank)
{
    enum { N = 33 };
    int32_t i32[N], o32[N];
    uint64_t u64[N], ou64[N];
    double d[N], od[N];
    for (int i = 0; i < N; i++) {
        i32[i] = (int32_t)value(trank, (size_t)i) - 5;
        u64[i] = (uint64_t)value(trank, (size_t)i) << 40;
        d[i] = (double)value(trank, (size_t)i) * 0.5;
    }
    CHECK_OK(arbor_allreduce(team, i32, o32, N, ARBOR_INT32, ARBOR_SUM));
    check_path(team, 1, "allreduce int32");
    CHECK_OK(arbor_allreduce(team, u64, ou64, N, ARBOR_UINT64, ARBOR_MAX));
    check_path(team, 1, "allreduce uint64");
    CHECK_OK(arbor_allreduce(team, d, od, N, ARBOR_DOUBLE, ARBOR_SUM));
    check_path(team, 1, "allreduce double");
    for (int i = 0; i < N; i++) {
        int32_t s32 = 0;
        uint64_t m64 = 0;
        double sd = 0;
        for (int r = 0; r < tsize; r++) {
            s32 += (int32_t)value(r, (size_t)i) - 5;
            if ((uint64_t)value(r, (size_t)i) << 40 > m64)
                m64 = (uint64_t)value(r, (size_t)i) << 40;
            sd += (double)value(r, (size_t)i) * 0.5; /* halves of small integers: exact */
        }
        CHECK(o32[i] == s32, "int32 sum [%d] = %d, want %d", i, o32[i], s32);
        CHECK(ou64[i] == m64, "uint64 max [%d] wrong", i);
        CHECK(od[i] == sd, "double sum [%d] = %g, want %g", i, od[i], sd);
    }
}

static void user_max(void *in, void *inout, size_t len, arbor_dtype_t dtype)
{
    (void)dtype;
    int64_t *a = in, *b = inout;
    for (size_t i = 0; i < len; i++)
        if (a[i] > b[i]) b[i] = a[i];
}

/* Calls the provider cannot run go through software, still right. */
static void test_fallback(arbor_team_h team, int tsize, int trank)
{
    arbor_op_t op;
    int64_t in[5], out[5];
    CHECK_OK(arbor_op_create(user_max, 1, &op));
    for (int i = 0; i < 5; i++) in[i] = value(trank, (size_t)i);
    CHECK_OK(arbor_allreduce(team, in, out, 5, ARBOR_INT64, op));
    check_path(team, 0, "allreduce with a user op");
    for (int i = 0; i < 5; i++) {
        int64_t want = 0;
        for (int r = 0; r < tsize; r++)
            if (value(r, (size_t)i) > want) want = value(r, (size_t)i);
        CHECK(out[i] == want, "user-op allreduce [%d] = %lld, want %lld", i, (long long)out[i],
              (long long)want);
    }
    CHECK_OK(arbor_op_free(op));
}

static uint8_t pattern(size_t i, int root, int salt)
{
    return (uint8_t)(i * 131 + (size_t)root * 29 + (size_t)salt * 7 + 3);
}

static void test_bcast(arbor_team_h team, int tsize, int trank)
{
    /* Multiples of the team size and 13 (prime, above every P here: padded) run through the
     * hook; pieces above tcp;ofi_rxm's 16288-byte message limit do not. */
    size_t big = (size_t)tsize * 16288 + (size_t)tsize * 100;
    size_t sizes[] = {(size_t)tsize, (size_t)tsize * 100, (size_t)tsize * 1024, 13, big};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t n = sizes[s];
        uint8_t *buf = malloc(n);
        for (int root = 0; root < tsize; root++) {
            for (size_t i = 0; i < n; i++) buf[i] = trank == root ? pattern(i, root, (int)s) : 0;
            CHECK_OK(arbor_bcast(team, buf, n, root));
            check_path(team, n != big, "bcast");
            for (size_t i = 0; i < n; i++)
                if (buf[i] != pattern(i, root, (int)s)) {
                    CHECK(0, "bcast %zu bytes from %d: byte %zu = %u", n, root, i, buf[i]);
                    break;
                }
        }
        free(buf);
    }
}

/* Many in flight: offloaded and software collectives of the same team mixed. */
static void test_inflight(arbor_team_h team, int tsize, int trank)
{
    enum { K = 24 };
    arbor_request_h req[K];
    int64_t in[K][3], out[K][3];
    uint8_t bc[K][64];
    for (int k = 0; k < K; k++) {
        for (int i = 0; i < 3; i++) in[k][i] = value(trank, (size_t)(i + k));
        if (k % 3 == 0) {
            CHECK_OK(arbor_barrier_nb(team, NULL, &req[k]));
        } else if (k % 3 == 1) {
            CHECK_OK(
                arbor_allreduce_nb(team, in[k], out[k], 3, ARBOR_INT64, ARBOR_SUM, NULL, &req[k]));
        } else {
            int root = k % tsize;
            size_t n = k % 2 ? 13 : (size_t)tsize * 4; /* padded and not */
            for (size_t i = 0; i < n; i++) bc[k][i] = trank == root ? pattern(i, root, k) : 0;
            CHECK_OK(arbor_bcast_nb(team, bc[k], n, root, NULL, &req[k]));
        }
    }
    for (int k = K - 1; k >= 0; k--) CHECK_OK(arbor_wait(&req[k]));
    for (int k = 0; k < K; k++) {
        if (k % 3 == 1) {
            for (int i = 0; i < 3; i++) {
                int64_t want = 0;
                for (int r = 0; r < tsize; r++) want += value(r, (size_t)(i + k));
                CHECK(out[k][i] == want, "in-flight allreduce %d [%d] wrong", k, i);
            }
        } else if (k % 3 == 2) {
            int root = k % tsize;
            size_t n = k % 2 ? 13 : (size_t)tsize * 4;
            for (size_t i = 0; i < n; i++)
                if (bc[k][i] != pattern(i, root, k)) {
                    CHECK(0, "in-flight bcast %d byte %zu wrong", k, i);
                    break;
                }
        }
    }
}

static void run_all(arbor_team_h team)
{
    int tsize, trank;
    CHECK_OK(arbor_team_size(team, &tsize));
    CHECK_OK(arbor_team_rank(team, &trank));
    if (tsize < 2) return; /* a team of one has no provider group (nothing to offload) */
    test_barrier(team);
    test_allreduce_int64(team, tsize, trank);
    test_allreduce_types(team, tsize, trank);
    test_fallback(team, tsize, trank);
    test_bcast(team, tsize, trank);
    test_inflight(team, tsize, trank);
}

static char dir[128];

static void touch(const char *name)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot create %s", path);
    if (f) fclose(f);
}

static int exists(const char *name)
{
    char path[256];
    struct stat sb;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return stat(path, &sb) == 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Computes (no arbor call) until name exists; false when the bound passes first. */
static int compute_until(const char *name, double bound_s)
{
    volatile double x = 0;
    double until = now_s() + bound_s;
    while (!exists(name)) {
        for (int i = 0; i < 100000; i++) x += i * 1e-9;
        if (now_s() > until) return 0;
    }
    return 1;
}

static void test_triggered(double bound_s)
{
    size_t sizes[] = {1, 1000, 65536};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t n = sizes[s];
        uint8_t *buf = malloc(n);
        for (int root = 0; root < size; root++) {
            int v = (rank - root + size) % size;
            char name[64];
            snprintf(name, sizeof(name), "bcast.%zu.%d", s, root);
            for (size_t i = 0; i < n; i++) buf[i] = rank == root ? pattern(i, root, (int)s) : 0;
            arbor_request_h req;
            CHECK_OK(arbor_bcast_nb(ARBOR_TEAM_WORLD, buf, n, root, NULL, &req));
            if (v != size - 1) {
                /* Every rank but the last (root included) computes: the last rank's data must
                 * come down the tree (through forwarding ranks from P = 4 on) meanwhile. */
                CHECK(compute_until(name, bound_s),
                      "bcast %zu bytes from %d: the last rank got no data while rank %d "
                      "computed",
                      n, root, rank);
                CHECK_OK(arbor_wait(&req));
            } else {
                CHECK_OK(arbor_wait(&req));
                for (size_t i = 0; i < n; i++)
                    if (buf[i] != pattern(i, root, (int)s)) {
                        CHECK(0, "triggered bcast %zu bytes from %d: byte %zu = %u", n, root, i,
                              buf[i]);
                        break;
                    }
                touch(name);
            }
            check_path(ARBOR_TEAM_WORLD, -1, "bcast");
            for (size_t i = 0; i < n; i++)
                if (buf[i] != pattern(i, root, (int)s)) {
                    CHECK(0, "triggered bcast %zu bytes from %d: byte %zu = %u", n, root, i,
                          buf[i]);
                    break;
                }
            CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD)); /* everyone done before the next root */
        }
        free(buf);
    }
    /* Barriers: rank 0 releases everyone (the flat barrier) while it computes; each rank marks
     * its entry first and, once out, must see every rank's mark. */
    for (int k = 0; k < 5; k++) {
        char name[64], done[64];
        snprintf(name, sizeof(name), "enter.%d.%d", k, rank);
        snprintf(done, sizeof(done), "left.%d", k);
        touch(name);
        if (rank == 0) {
            arbor_request_h req;
            CHECK_OK(arbor_barrier_nb(ARBOR_TEAM_WORLD, NULL, &req));
            CHECK(compute_until(done, bound_s),
                  "barrier %d: rank %d was not released while rank 0 computed", k, size - 1);
            CHECK_OK(arbor_wait(&req));
        } else {
            CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
            if (rank == size - 1) touch(done);
        }
        check_path(ARBOR_TEAM_WORLD, -1, "barrier");
        for (int r = 0; r < size; r++) {
            snprintf(name, sizeof(name), "enter.%d.%d", k, r);
            CHECK(exists(name), "left barrier %d before rank %d entered it", k, r);
        }
    }
}

int main(int argc, char **argv)
{
    int refused = argc > 1 && strcmp(argv[1], "refused") == 0;
    int triggered = argc > 1 && strcmp(argv[1], "triggered") == 0;
    arbor_status_t st = arbor_init();
    if (refused) {
        if (st == ARBOR_OK) {
            fprintf(stderr, "FAIL: arbor_init accepted ARBOR_OFFLOAD=hwcoll on a transport "
                            "without provider collectives\n");
            arbor_finalize();
            return 1;
        }
        if (st != ARBOR_ERR_UNSUPPORTED) {
            fprintf(stderr, "FAIL: arbor_init returned %s, expected ARBOR_ERR_UNSUPPORTED\n",
                    arbor_strerror(st));
            return 1;
        }
        printf("offload refused: arbor_init returned ARBOR_ERR_UNSUPPORTED as expected\n");
        return 0;
    }
    if (st != ARBOR_OK) {
        fprintf(stderr, "arbor_init: %s\n", arbor_strerror(st));
        return 1;
    }
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    if (size < 2) {
        if (rank == 0) printf("test_offload: needs 2 or more ranks; skipped\n");
        arbor_finalize();
        return 77;
    }
    if (triggered) {
        /* A directory every rank names alike: rank 0's pid, broadcast. */
        int pid = (int)getpid();
        CHECK_OK(arbor_bcast(ARBOR_TEAM_WORLD, &pid, sizeof(pid), 0));
        snprintf(dir, sizeof(dir), "/tmp/arbor-offload-%d", pid);
        if (rank == 0) mkdir(dir, 0700);
        CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
        const char *t = getenv("ARBOR_TIMEOUT");
        test_triggered(t && atof(t) > 0 ? atof(t) : 60);
        CHECK(offloaded > 0, "no collective ran through the triggered hook");
        CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
        if (rank == 0) {
            char cmd[200];
            snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
            if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
        }
        CHECK_OK(arbor_finalize());
        printf("rank %d of %d: %s (%d failures, %d collectives through triggered writes)\n", rank,
               size, failures ? "FAILED" : "passed", failures, offloaded);
        return failures ? 1 : 0;
    }
    run_all(ARBOR_TEAM_WORLD);
    if (size >= 3) {
        /* A split team: its own group, joined at creation (ranks in reverse order). */
        arbor_team_h sub;
        CHECK_OK(arbor_team_split(ARBOR_TEAM_WORLD, rank % 2, -rank, &sub));
        run_all(sub);
        CHECK_OK(arbor_team_free(&sub));
    }
    CHECK(offloaded > 0, "no collective ran through the hwcoll hook");
    CHECK_OK(arbor_finalize());
    printf("rank %d of %d: %s (%d failures, %d collectives through hwcoll)\n", rank, size,
           failures ? "FAILED" : "passed", failures, offloaded);
    return failures ? 1 : 0;
}
