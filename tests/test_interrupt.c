/*
 * Interrupt-mode progress (ARBOR_PROGRESS=interrupt, docs/PROGRESS.md): a rank that waits for a
 * late peer sleeps instead of spinning.
 *
 * The last rank is late: it sleeps (no arbor call) for LONG_S seconds before it enters an
 * allreduce, and again before it notifies every other rank. Every other rank measures its own
 * CPU time (getrusage RUSAGE_SELF: every thread of the process) and the wall time around its
 * wait; it must use under 5% of the wall time in CPU (a poll-mode waiter uses about 100%). Then
 * SHORT_ROUNDS rounds late by SHORT_MS each measure the wake-up latency: the time from the late
 * rank's call to the waiter's return (CLOCK_MONOTONIC is one clock for every process of a node,
 * so the test runs on one node), printed as medians. Every result is checked.
 *
 * --thread: also a round where the ranks compute while a non-blocking allreduce waits for the
 * late rank: the progress thread (OFI starts it for passive targets) must not spin either.
 *
 * --expect-fallback: the transport gives no wait descriptor. The test then checks that init
 * warned that it falls back to thread mode (stderr captured around arbor_init) and that the
 * results are right; the CPU ratio is printed, not checked.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "arbor.h"
#include "cpu_time.h"
#include "launched_check.h"

enum { SHORT_ROUNDS = 15, SHORT_MS = 20 };
#define LONG_S    2.0
#define MAX_RATIO 0.05
#define FALLBACK  "falling back to thread mode"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* arbor_init with its stderr copied into *log (then replayed to stderr). */
static arbor_status_t init_captured(char *log, size_t len)
{
    log[0] = 0;
    fflush(stderr);
    FILE *tmp = tmpfile();
    int saved = dup(2);
    if (!tmp || saved < 0) return arbor_init();
    dup2(fileno(tmp), 2);
    arbor_status_t st = arbor_init();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(log, 1, len - 1, tmp);
    log[n] = 0;
    fclose(tmp);
    fputs(log, stderr);
    return st;
}

typedef struct {
    double wall, cpu, wake; /* seconds: wait, CPU during it, late call to our return */
} sample_t;

/* Round r of the allreduce: the late rank sleeps late_s first. */
static sample_t allreduce_round(int r, double late_s)
{
    int late = size - 1;
    sample_t s = {0, 0, 0};
    uint64_t in = (uint64_t)rank + 1 + (uint64_t)r, out = 0;
    uint64_t want = (uint64_t)size * (uint64_t)(size + 1) / 2 + (uint64_t)size * (uint64_t)r;
    double t_call = 0;
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "barrier before round %d", r);
    if (rank == late) {
        sleep_s(late_s);
        t_call = now_s();
    }
    double w0 = now_s(), c0 = cpu_s();
    arbor_status_t st = arbor_allreduce(ARBOR_TEAM_WORLD, &in, &out, 1, ARBOR_UINT64, ARBOR_SUM);
    double w1 = now_s(), c1 = cpu_s();
    CHECK(st == ARBOR_OK, "allreduce round %d: %s", r, arbor_strerror(st));
    CHECK(out == want, "allreduce round %d: %llu, expected %llu", r, (unsigned long long)out,
          (unsigned long long)want);
    CHECK(arbor_bcast(ARBOR_TEAM_WORLD, &t_call, sizeof(t_call), late) == ARBOR_OK, "bcast");
    s.wall = w1 - w0;
    s.cpu = c1 - c0;
    s.wake = w1 - t_call;
    return s;
}

/* Round r of notify_wait: the late rank sleeps, then notifies every other rank. */
static sample_t notify_round(int r, double late_s)
{
    int late = size - 1;
    sample_t s = {0, 0, 0};
    double t_call = 0;
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "barrier before notify round %d", r);
    if (rank == late) {
        sleep_s(late_s);
        t_call = now_s();
        for (int p = 0; p < size - 1; p++)
            CHECK(arbor_notify(p) == ARBOR_OK, "notify %d round %d", p, r);
    } else {
        double w0 = now_s(), c0 = cpu_s();
        arbor_status_t st = arbor_notify_wait(late, 1);
        double w1 = now_s(), c1 = cpu_s();
        CHECK(st == ARBOR_OK, "notify_wait round %d: %s", r, arbor_strerror(st));
        uint64_t left = 99;
        CHECK(arbor_notify_count(late, &left) == ARBOR_OK && left == 0,
              "round %d: %llu notifications left", r, (unsigned long long)left);
        s.wall = w1 - w0;
        s.cpu = c1 - c0;
        s.wake = w1;
    }
    CHECK(arbor_bcast(ARBOR_TEAM_WORLD, &t_call, sizeof(t_call), late) == ARBOR_OK, "bcast");
    s.wake -= t_call;
    return s;
}

/* --thread: the rank computes (sleeps, no arbor call) while a non-blocking allreduce is in
 * flight and its peer is late; the progress thread (started by a symmetric allocation on a
 * transport whose targets must progress: OFI) must sleep too, not spin. */
static void thread_round(void)
{
    int late = size - 1;
    arbor_mem_h mem = NULL;
    void *local = NULL;
    CHECK(arbor_mem_alloc(ARBOR_TEAM_WORLD, 64, &mem, &local) == ARBOR_OK, "mem_alloc");
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "barrier before the thread round");
    uint64_t in = (uint64_t)rank + 7, out = 0, want = (uint64_t)size * (uint64_t)(size + 13) / 2;
    double ratio = 0, wall = 0;
    if (rank == late) {
        sleep_s(LONG_S);
        CHECK(arbor_allreduce(ARBOR_TEAM_WORLD, &in, &out, 1, ARBOR_UINT64, ARBOR_SUM) == ARBOR_OK,
              "late allreduce");
    } else {
        arbor_request_h req = NULL;
        CHECK(arbor_allreduce_nb(ARBOR_TEAM_WORLD, &in, &out, 1, ARBOR_UINT64, ARBOR_SUM, NULL,
                                 &req) == ARBOR_OK,
              "allreduce_nb");
        double w0 = now_s(), c0 = cpu_s();
        sleep_s(LONG_S + 0.5); /* "computing" without calling arbor */
        wall = now_s() - w0;
        ratio = (cpu_s() - c0) / wall;
        CHECK(req && arbor_wait(&req) == ARBOR_OK, "allreduce_nb completes");
        CHECK(ratio < MAX_RATIO,
              "thread round: the process used %.1f%% of %.2f s in CPU while a collective waited "
              "for a late peer (limit %.0f%%)",
              100 * ratio, wall, 100 * MAX_RATIO);
    }
    CHECK(out == want, "thread round: %llu, expected %llu", (unsigned long long)out,
          (unsigned long long)want);
    if (rank == 0)
        printf("interrupt progress thread P=%d: computing %.2f s with a collective in flight, "
               "%.2f%% CPU\n",
               size, wall, 100 * ratio);
    CHECK(arbor_mem_free(&mem) == ARBOR_OK, "mem_free");
}

static void report(const char *what, sample_t (*round)(int, double), bool fallback)
{
    sample_t l = round(0, LONG_S);
    double ratio = l.cpu / l.wall;
    if (rank != size - 1) {
        CHECK(l.wall > LONG_S / 2, "%s: waited only %.3f s for a peer %.1f s late", what, l.wall,
              LONG_S);
        if (!fallback)
            CHECK(ratio < MAX_RATIO, "%s: used %.1f%% of its %.2f s wait in CPU (limit %.0f%%)",
                  what, 100 * ratio, l.wall, 100 * MAX_RATIO);
    }
    double wake[SHORT_ROUNDS];
    for (int r = 0; r < SHORT_ROUNDS; r++) wake[r] = round(r + 1, SHORT_MS * 1e-3).wake;
    qsort(wake, SHORT_ROUNDS, sizeof(double), cmp_double);
    if (rank == 0)
        printf("interrupt %s P=%d: waited %.2f s using %.2f%% CPU (%.4f s); wake-up latency "
               "median %.1f us (min %.1f, max %.1f, %d rounds late by %d ms)\n",
               what, size, l.wall, 100 * ratio, l.cpu, 1e6 * wake[SHORT_ROUNDS / 2], 1e6 * wake[0],
               1e6 * wake[SHORT_ROUNDS - 1], SHORT_ROUNDS, SHORT_MS);
}

int main(int argc, char **argv)
{
    bool fallback = argc > 1 && strcmp(argv[1], "--expect-fallback") == 0;
    bool thread = argc > 1 && strcmp(argv[1], "--thread") == 0;
    static char log[65536];
    if (init_captured(log, sizeof(log)) != ARBOR_OK) return 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    const char *mode = getenv("ARBOR_PROGRESS");
    CHECK(mode && strcmp(mode, "interrupt") == 0, "run with ARBOR_PROGRESS=interrupt");
    CHECK((strstr(log, FALLBACK) != NULL) == fallback, "init %s the fallback warning",
          fallback ? "did not print" : "printed");
    if (size < 2) {
        printf("interrupt: needs 2 ranks or more\n");
        arbor_finalize();
        return 77;
    }
    report("allreduce", allreduce_round, fallback);
    report("notify_wait", notify_round, fallback);
    if (thread) thread_round();

    int total = failures;
    arbor_allreduce(ARBOR_TEAM_WORLD, &failures, &total, 1, ARBOR_INT32, ARBOR_SUM);
    if (arbor_finalize() != ARBOR_OK) return 1;
    if (rank == 0)
        printf("interrupt: %d checks per rank, %d failures in all: %s\n", checks, total,
               total ? "FAILED" : "passed");
    return total ? 1 : 0;
}
