/*
 * The benchmarks' shared timing code (bench/bench_timing.h) on made-up data: the window's
 * margin, the wait for T, the row's median / p99 over valid iterations and the fall-back to
 * span, the scheduler columns (NaN on any rank makes the column unknown), and the row printer,
 * which prints an unknown value empty (csv), null (json) or "-" (table), never 0.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench_timing.h"

static int failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                                 \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static int near(double a, double b)
{
    return fabs(a - b) < 1e-9;
}

static void test_margin(void)
{
    double small[10] = {0.1, 0.2, 0.1, 0.3, 0.2, 0.1, 0.2, 0.1, 0.2, 0.1};
    CHECK(near(bench_window_margin(small, 10), BENCH_WINDOW_FLOOR_US)); /* the floor */
    double mid[20];
    for (int i = 0; i < 20; i++) mid[i] = 20 - i; /* 1..20 us, the 95th percentile 19 */
    CHECK(near(bench_window_margin(mid, 20), BENCH_WINDOW_FACTOR * 19));
    double big[4] = {5000, 6000, 7000, 8000};
    CHECK(near(bench_window_margin(big, 4), BENCH_WINDOW_CAP_US));    /* the cap */
    CHECK(near(bench_window_margin(NULL, 0), BENCH_WINDOW_FLOOR_US)); /* no sample */
}

static void test_wait(void)
{
    double started, now = bench_now_us();
    /* T already past when it arrived: late whatever the slack */
    CHECK(bench_window_wait(now - 1, now, 0, INFINITY, &started) == BENCH_START_GOT_T_LATE);
    /* T ahead: the wait ends at or after T; with an infinite slack that is on time */
    double t = bench_now_us() + 50;
    CHECK(bench_window_wait(t, bench_now_us(), 1, INFINITY, &started) == BENCH_START_OK);
    CHECK(started >= t);
    /* a slack of -1 makes any exit late: the code says the rank spun */
    t = bench_now_us() + 10;
    CHECK(bench_window_wait(t, bench_now_us(), 0, -1, &started) == BENCH_START_SPUN_LATE);
}

static void test_stats(void)
{
    /* five iterations: T = 100 i, the first start 100 i + 1, the last end 100 i + 3 + i */
    double first[5], last[5], tw[5], tmp[5], v[5];
    double code_ok2[5] = {0, 0, 0, 1, 2}, code_bad[5] = {1, 2, 0, 1, 0};
    double own[5] = {4, 2, 5, 1, 3};
    bench_extra_t x;
    for (int i = 0; i < 5; i++) tw[i] = 100 * i, first[i] = tw[i] + 1, last[i] = tw[i] + 3 + i;
    /* window, 3 of 5 valid: times 3, 4, 5 -> median 4, p99 4 (index (3 - 1) * 0.99 = 1) */
    CHECK(!bench_iteration_stats(BENCH_TIMING_WINDOW, first, last, code_ok2, tw, NULL, 5, tmp, v,
                                 &x));
    CHECK(!strcmp(x.timing, "window") && near(x.invalid, 0.4));
    CHECK(near(v[3], 4) && near(v[4], 4));
    /* window, 2 of 5 valid: timed as span (last end - first start: 2, 3, 4, 5, 6 -> median 4) */
    CHECK(
        bench_iteration_stats(BENCH_TIMING_WINDOW, first, last, code_bad, tw, NULL, 5, tmp, v, &x));
    CHECK(!strcmp(x.timing, "window>span") && near(x.invalid, 0.6));
    CHECK(near(v[3], 4) && near(v[4], 5));
    /* span */
    CHECK(!bench_iteration_stats(BENCH_TIMING_SPAN, first, last, NULL, tw, NULL, 5, tmp, v, &x));
    CHECK(!strcmp(x.timing, "span") && isnan(x.invalid) && near(v[3], 4));
    /* rank: the slowest rank's own times 1..5 */
    CHECK(!bench_iteration_stats(BENCH_TIMING_RANK, first, last, NULL, tw, own, 5, tmp, v, &x));
    CHECK(!strcmp(x.timing, "rank") && near(v[3], 3) && near(v[4], 4));
}

static void test_sched(void)
{
    bench_extra_t x;
    double d[6] = {1.5, 2, 4.5, 1, 0, 0}; /* per rank: runq us, switches */
    bench_sched_columns(d, 3, &x);
    CHECK(near(x.runq_us, 6) && near(x.runq_max_us, 4.5) && near(x.nivcsw, 3));
    d[2] = NAN; /* one rank without schedstat: the sum and the max are unknown */
    bench_sched_columns(d, 3, &x);
    CHECK(isnan(x.runq_us) && isnan(x.runq_max_us) && near(x.nivcsw, 3));
    bench_sched_t a, b;
    bench_sched_read(&a);
    bench_sched_read(&b);
    int have = access("/proc/thread-self/schedstat", R_OK) == 0;
    CHECK(have ? !isnan(a.wait_ns) && b.wait_ns >= a.wait_ns : isnan(a.wait_ns));
    double out[2];
    bench_sched_delta(&a, &b, 10, out);
    CHECK(have ? out[0] >= 0 : isnan(out[0]));
}

/* What bench_print_row writes to stdout, in @p buf. */
static void printed(const char *format, const bench_extra_t *x, char *buf, size_t len)
{
    double v[5] = {1, 2, 3, 4, 5};
    FILE *tmp = tmpfile();
    int saved = dup(1);
    fflush(stdout);
    dup2(fileno(tmp), 1);
    bench_print_row(format, "bcast", 8, 2, "karp", "ucx", v, 1, x, 1);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    rewind(tmp);
    size_t n = fread(buf, 1, len - 1, tmp);
    buf[n] = 0;
    fclose(tmp);
}

static void test_print(void)
{
    char buf[2048];
    bench_extra_t unknown = {"span", NAN, NAN, NAN, NAN, NAN};
    bench_extra_t known = {"window", 0.25, 2, 1.5, 1, 0};
    printed("csv", &unknown, buf, sizeof(buf));
    CHECK(strstr(buf, "median_us,p99_us,timing,invalid,margin_us,runq_us,runq_max_us,nivcsw\n"));
    CHECK(strstr(buf, ",ok,ucx,4.000,5.000,span,,,,,\n"));
    printed("csv", &known, buf, sizeof(buf));
    CHECK(strstr(buf, ",ok,ucx,4.000,5.000,window,0.250,2.0,1.500,1.000,0.000\n"));
    printed("json", &unknown, buf, sizeof(buf));
    CHECK(strstr(buf, "\"timing\":\"span\",\"invalid\":null,\"margin_us\":null,\"runq_us\":null,"
                      "\"runq_max_us\":null,\"nivcsw\":null}"));
    printed("table", &unknown, buf, sizeof(buf)); /* what a newcomer reads: no timing columns */
    CHECK(strstr(buf, "latency_us") && strstr(buf, "p99_us") && !strstr(buf, "avg_us") &&
          !strstr(buf, "runq_us") && !strstr(buf, " span"));
    printed("details", &unknown, buf, sizeof(buf));
    char *row = strchr(buf, '\n'), *tail = row ? strstr(row, " span ") : NULL;
    CHECK(tail != NULL); /* after the timing: five "-" and blanks, no number */
    if (tail) {
        CHECK(strspn(tail + 6, " -\n") == strlen(tail + 6));
        int dashes = 0;
        for (char *c = tail + 6; *c; c++) dashes += *c == '-';
        CHECK(dashes == 5);
    }
}

int main(void)
{
    test_margin();
    test_wait();
    test_stats();
    test_sched();
    test_print();
    printf("unit.bench_timing: %s (%d failure(s))\n", failures ? "FAIL" : "ok", failures);
    return failures != 0;
}
