/*
 * Tiny calls (docs/PROTOCOL.md, "Tiny calls"): a blocking bcast of at most 8 bytes, or an
 * in-place allreduce of at most 8 bytes at 2 members, that repeats the last call's arguments
 * runs without an instance when its messages are there and its credits are in hand, and
 * otherwise down the general path, call by call and rank by rank. This test drives both paths
 * against each other and checks every byte:
 *   - runs of blocking bcasts of the same count and root (tiny from the second call on), the
 *     count (1-8 bytes) and root changing between runs, longer than the channel's 256 lines so
 *     that credits run out and come back, with the receivers sometimes late (the root runs
 *     ahead) and the root sometimes late (receivers wait and take the general path);
 *   - runs of in-place allreduces of one element (or two floats) of several types and ops, which
 *     at 2 members are tiny exchanges, between runs of bcasts (the plan changes each time);
 *   - between runs, nonblocking bcasts and allreduces left in flight across a blocking bcast
 *     (which must then take the general path: another call holds tickets), and a 9-byte bcast
 *     (a line, not a cell);
 *   - the same on a split team of the world's odd and even ranks (two channels from one root);
 *   - arbor_team_last_collective names the bcast and its sequence number counts every call.
 * Bytes outside the count must stay as they were.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "arbor.h"
#include "launched_check.h"

enum { RUNS = 40, MAX_RUN = 700 };

static void nap_us(long us)
{
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

static uint8_t value(int run, int k, int i)
{
    return (uint8_t)(run * 31 + k * 7 + i * 13 + 1);
}

/* One run of n bcasts of len bytes from root on team t (team rank me of p). */
static void run_bcasts(arbor_team_h t, int me, int p, int run, int n, size_t len, int root)
{
    int late = run % 3; /* 0: nobody naps, 1: the receivers nap, 2: the root naps */
    for (int k = 0; k < n; k++) {
        uint8_t buf[16];
        memset(buf, 0xee, sizeof(buf));
        if (me == root)
            for (size_t i = 0; i < len; i++) buf[i] = value(run, k, (int)i);
        if (k % 97 == 5 && ((late == 1 && me != root) || (late == 2 && me == root))) nap_us(300);
        arbor_status_t st = arbor_bcast(t, buf, len, root);
        CHECK(st == ARBOR_OK, "run %d call %d: %s", run, k, arbor_strerror(st));
        int bad = 0;
        for (size_t i = 0; i < len; i++) bad |= buf[i] != value(run, k, (int)i);
        for (size_t i = len; i < sizeof(buf); i++) bad |= buf[i] != 0xee;
        CHECK(!bad, "run %d call %d (%zu bytes from %d of %d): wrong bytes", run, k, len, root, p);
        if (bad) return;
    }
}

/* One run of n in-place allreduces of one element (kind: 0 int32 sum, 1 int64 max, 2 double
 * sum, 3 uint8 bor, 4 int16 min, 5 two floats' sum) on team t. At 2 members they are
 * exchanges, tiny from the second call on. */
static void run_allreduces(arbor_team_h t, int me, int p, int run, int n, int kind)
{
    for (int k = 0; k < n; k++) {
        int v = (run * 7 + k * 3 + me * 5) % 50, sum = 0, max = 0, min = 1000, bor = 0;
        for (int r = 0; r < p; r++) {
            int w = (run * 7 + k * 3 + r * 5) % 50;
            sum += w, max = w > max ? w : max, min = w < min ? w : min, bor |= w;
        }
        arbor_status_t st = ARBOR_OK;
        int ok = 1;
        if (kind == 0) {
            int32_t x = v;
            st = arbor_allreduce(t, ARBOR_IN_PLACE, &x, 1, ARBOR_INT32, ARBOR_SUM);
            ok = x == sum;
        } else if (kind == 1) {
            int64_t x = v;
            st = arbor_allreduce(t, ARBOR_IN_PLACE, &x, 1, ARBOR_INT64, ARBOR_MAX);
            ok = x == max;
        } else if (kind == 2) {
            double x = v;
            st = arbor_allreduce(t, ARBOR_IN_PLACE, &x, 1, ARBOR_DOUBLE, ARBOR_SUM);
            ok = x == (double)sum;
        } else if (kind == 3) {
            uint8_t x[2] = {(uint8_t)v, 0xee};
            st = arbor_allreduce(t, ARBOR_IN_PLACE, x, 1, ARBOR_UINT8, ARBOR_BOR);
            ok = x[0] == bor && x[1] == 0xee;
        } else if (kind == 4) {
            int16_t x = (int16_t)v;
            st = arbor_allreduce(t, ARBOR_IN_PLACE, &x, 1, ARBOR_INT16, ARBOR_MIN);
            ok = x == min;
        } else {
            float x[2] = {(float)v, (float)(2 * v)};
            st = arbor_allreduce(t, ARBOR_IN_PLACE, x, 2, ARBOR_FLOAT, ARBOR_SUM);
            ok = x[0] == (float)sum && x[1] == (float)(2 * sum);
        }
        CHECK(st == ARBOR_OK, "allreduce run %d call %d: %s", run, k, arbor_strerror(st));
        CHECK(ok, "allreduce run %d call %d (kind %d, %d members): wrong result", run, k, kind, p);
        if (!ok || st != ARBOR_OK) return;
    }
}

/* A nonblocking bcast and allreduce in flight across a blocking tiny-sized bcast. */
static void in_flight(arbor_team_h t, int me, int run)
{
    uint64_t a = me == 0 ? (uint64_t)run : 0, x = (uint64_t)me + 1, sum = 0;
    uint32_t b = me == 0 ? 0xabc00000u + (uint32_t)run : 0;
    arbor_request_h ra = NULL, rx = NULL;
    CHECK(arbor_bcast_nb(t, &a, sizeof(a), 0, NULL, &ra) == ARBOR_OK, "bcast_nb");
    CHECK(arbor_allreduce_nb(t, &x, &sum, 1, ARBOR_UINT64, ARBOR_SUM, NULL, &rx) == ARBOR_OK,
          "allreduce_nb");
    CHECK(arbor_bcast(t, &b, sizeof(b), 0) == ARBOR_OK, "bcast among calls in flight");
    CHECK(arbor_wait(&ra) == ARBOR_OK && arbor_wait(&rx) == ARBOR_OK, "waits");
    int p = 0;
    arbor_team_size(t, &p);
    CHECK(a == (uint64_t)run, "bcast_nb: %llu, want %d", (unsigned long long)a, run);
    CHECK(sum == (uint64_t)p * (uint64_t)(p + 1) / 2, "allreduce_nb: %llu",
          (unsigned long long)sum);
    CHECK(b == 0xabc00000u + (uint32_t)run, "bcast among calls in flight: %x", b);
    uint8_t line[9];
    for (int i = 0; i < 9; i++) line[i] = me == p - 1 ? (uint8_t)(run + i) : 0;
    CHECK(arbor_bcast(t, line, sizeof(line), p - 1) == ARBOR_OK, "9-byte bcast");
    for (int i = 0; i < 9; i++) CHECK(line[i] == (uint8_t)(run + i), "9-byte bcast byte %d", i);
}

static void on_team(arbor_team_h t)
{
    int me = 0, p = 0;
    arbor_team_rank(t, &me);
    arbor_team_size(t, &p);
    uint64_t since = 0, last_seq = 0;
    for (int run = 0; run < RUNS; run++) {
        size_t len = (size_t)(run % 8) + 1;
        int root = (run / 2) % p;
        int n = run % 5 == 4 ? MAX_RUN : 1 + (run * 37) % 60;
        run_bcasts(t, me, p, run, n, len, root);
        since += (uint64_t)n;
        if (run % 2) { /* then a run of allreduces (another plan), and the bcasts once more */
            run_allreduces(t, me, p, run, n, run % 6);
            run_bcasts(t, me, p, run, 3, len, root);
            since += (uint64_t)n + 3;
        }
        /* Every call counted, tiny or not: the sequence number moved by the calls since the
         * last look. */
        arbor_coll_info_t info;
        CHECK(arbor_team_last_collective(t, &info) == ARBOR_OK && !strcmp(info.collective, "bcast"),
              "last collective after run %d", run);
        CHECK(run == 0 || info.seq - last_seq == since,
              "run %d: sequence number %llu, then %llu "
              "after %llu calls",
              run, (unsigned long long)last_seq, (unsigned long long)info.seq,
              (unsigned long long)since);
        last_seq = info.seq;
        since = 0;
        if (run % 4 == 3) {
            in_flight(t, me, run);
            since = 4;
        }
    }
}

int main(void)
{
    if (arbor_init() != ARBOR_OK) return 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    on_team(ARBOR_TEAM_WORLD);
    arbor_team_h half = NULL;
    CHECK(arbor_team_split(ARBOR_TEAM_WORLD, rank % 2, rank, &half) == ARBOR_OK, "split");
    if (half) {
        on_team(half);
        CHECK(arbor_team_free(&half) == ARBOR_OK, "team free");
    }
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "last barrier");
    arbor_status_t fin = arbor_finalize();
    CHECK(fin == ARBOR_OK, "finalize: %s", arbor_strerror(fin));
    printf("tiny rank %d: %d checks, %d failures\n", rank, checks, failures);
    return failures ? 1 : 0;
}
