/*
 * How arbor-bench and arbor-mpi-bench time an iteration, and the scheduler profile of a row: the
 * code both benchmarks share (header-only: the MPI twin is also compiled alone by mpicc.mpich).
 *
 * Timings (--timing; docs/PERFORMANCE.md, "Measuring a collective"):
 *   span    the last rank's end minus the first rank's start (one clock, bench/clock_id.h). The
 *           barrier before an iteration releases the ranks at different moments and that
 *           release skew is in the figure.
 *   rank    the slowest rank's own call time (any clocks).
 *   window  a synchronized start: after the barrier rank 0 reads the clock and broadcasts
 *           T = now + margin; every rank waits on the clock until T and starts its call; the
 *           iteration's time is the last rank's end minus T. That is the start the LogP model
 *           assumes. The margin has to cover the time the broadcast of T takes to reach the
 *           last rank after rank 0's reading; it is measured during the warm-up (a high
 *           percentile of that lateness, times a factor, with a floor and a cap), as the
 *           window-based synchronization of ReproMPI (Hunold, Carpen-Amarie) does. A rank that
 *           gets T after T, or that leaves its wait later than BENCH_WINDOW_SLACK_US after T
 *           (descheduled), makes the iteration invalid; median and p99 are over the valid
 *           ones, and when fewer than half are valid the row is timed as span instead and says
 *           so (timing column "window>span", a note on stderr). --window-slack sets that
 *           lateness (inf: only a late T invalidates, the scheduler's delays at T are timed).
 *   auto    window where the ranks read one clock and have a CPU each; span where they read
 *           one clock but share CPUs (on 2 cores, 4 ranks: two of them are always waiting for a
 *           CPU at T, so no iteration starts on time); rank where the clocks differ.
 * Scheduler profile: this thread's /proc/thread-self/schedstat (ns on the CPU, ns waiting on a
 * runqueue, timeslices) and getrusage(RUSAGE_THREAD)'s involuntary context switches, read
 * before and after the timed loop (its barriers, broadcasts of T and waits included: in a window
 * run on an oversubscribed node the ranks yield to each other while they wait for T, and that
 * is in the runqueue wait too). Where either is missing the value is NaN and printed empty,
 * never as a zero. Steal time (a hypervisor running another guest) is not in it.
 */
#ifndef ARBOR_BENCH_TIMING_H
#define ARBOR_BENCH_TIMING_H

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

enum { BENCH_TIMING_AUTO, BENCH_TIMING_SPAN, BENCH_TIMING_RANK, BENCH_TIMING_WINDOW };
static const char *const bench_timing_names[] = {"auto", "span", "rank", "window"};
#define BENCH_NTIMINGS 4

/* Window: how late after T a rank may leave its wait and still count as started at T (the
 * default of --window-slack). A rank spinning on its own core leaves within a clock read (10-40
 * ns here, p99 under 0.05 us at P = 2 on 2 cores); one that was descheduled leaves a context
 * switch (microseconds) or a time slice (milliseconds) late. */
#define BENCH_WINDOW_SLACK_US 0.5
/* The margin: BENCH_WINDOW_FACTOR x the BENCH_WINDOW_QUANTILE of the warm-up's lateness of T
 * (rank 0's reading to the last rank's receipt), at least the floor, at most the cap (a
 * lateness of milliseconds is a descheduled rank, which no margin fixes on an oversubscribed
 * node; the iterations it hits are invalid). */
#define BENCH_WINDOW_QUANTILE 0.95
#define BENCH_WINDOW_FACTOR   2.0
#define BENCH_WINDOW_FLOOR_US 2.0
#define BENCH_WINDOW_CAP_US   1000.0
/* Warm-up iterations that are enough to set a row's margin; with fewer the margin in use stays
 * (the previous row's, or the start-up estimate from BENCH_WINDOW_PROBES rounds of barrier and
 * broadcast). */
#define BENCH_WINDOW_MIN_SAMPLES 8
#define BENCH_WINDOW_PROBES      32

/* Why an iteration's window start failed on a rank (reduced with MAX over ranks). */
enum { BENCH_START_OK = 0, BENCH_START_SPUN_LATE = 1, BENCH_START_GOT_T_LATE = 2 };

static inline double bench_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* The CPUs this process may run on, as a bit mask of BENCH_CPU_WORDS words (the online CPUs
 * where the affinity is unknown). The ranks OR their masks together: where the union has
 * fewer CPUs than ranks the node is oversubscribed, and the wait for T yields, so that the
 * ranks still receiving T get a CPU (arbor's own waits yield then too, ARBOR_POLL_YIELD). */
#define BENCH_CPU_WORDS 16
static inline void bench_cpu_mask(unsigned long long mask[BENCH_CPU_WORDS])
{
    cpu_set_t set;
    int n = 0;
    memset(mask, 0, sizeof(unsigned long long) * BENCH_CPU_WORDS);
    if (!sched_getaffinity(0, sizeof(set), &set))
        for (int c = 0; c < BENCH_CPU_WORDS * 64 && c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set)) mask[c / 64] |= 1ull << (c % 64), n++;
    if (n == 0)
        for (long c = 0, on = sysconf(_SC_NPROCESSORS_ONLN); c < on && c < BENCH_CPU_WORDS * 64;
             c++)
            mask[c / 64] |= 1ull << (c % 64);
}

static inline int bench_cpu_count(const unsigned long long mask[BENCH_CPU_WORDS])
{
    int n = 0;
    for (int w = 0; w < BENCH_CPU_WORDS; w++) n += __builtin_popcountll(mask[w]);
    return n;
}

/* Waits until @p t_start (us, CLOCK_MONOTONIC); @p got_t is when this rank had T. Returns the
 * BENCH_START_* code (late: over @p slack us after T) and the moment it left the wait in
 * @p started. */
static inline int bench_window_wait(double t_start, double got_t, int yield, double slack,
                                    double *started)
{
    double now = got_t;
    while (now < t_start) {
        if (yield) sched_yield();
        now = bench_now_us();
    }
    *started = now;
    if (got_t >= t_start) return BENCH_START_GOT_T_LATE;
    return now - t_start > slack ? BENCH_START_SPUN_LATE : BENCH_START_OK;
}

/* What --timing resolves to, from what every rank saw: @p one_clock (all read one clock) and
 * @p shared_cpus (more ranks than the CPUs they may run on). auto takes window where every rank
 * reads one clock and has a CPU of its own, span where they share a clock but not enough CPUs
 * (ranks waiting for a CPU at T cannot start on time: docs/PERFORMANCE.md), else rank; window
 * needs one clock. Returns -1 on a refusal (printed by rank 0 as @p prog). */
static inline int bench_timing_decide(int asked, int one_clock, int shared_cpus, int rank,
                                      const char *prog)
{
    if (asked == BENCH_TIMING_WINDOW && !one_clock) {
        if (rank == 0)
            fprintf(stderr,
                    "%s: --timing window needs one clock on every rank (one kernel); "
                    "these ranks read different ones (use span or rank)\n",
                    prog);
        return -1;
    }
    if (asked != BENCH_TIMING_AUTO) return asked;
    if (!one_clock) return BENCH_TIMING_RANK;
    return shared_cpus ? BENCH_TIMING_SPAN : BENCH_TIMING_WINDOW;
}

/* Rank 0's account of a row that fell back from window to span (@p codes: each iteration's
 * BENCH_START_* of its latest rank). */
static inline void bench_report_fallback(const char *prog, const double *codes, int n,
                                         double invalid, double margin, double slack)
{
    int got_late = 0;
    for (int i = 0; i < n; i++) got_late += codes[i] == BENCH_START_GOT_T_LATE;
    fprintf(stderr,
            "%s: only %d of %d iterations started in the window (margin %.1f us; %d had a rank "
            "receive T after T, the others a rank leave its wait over %g us after T): this row "
            "is timed as span (timing column window>span)\n",
            prog, n - (int)(invalid * n + 0.5), n, margin, got_late, slack);
}

/* Broadcasts two doubles from rank 0 with the benchmark's library; returns its status (0: ok). */
typedef int (*bench_bcast2_fn)(double two[2]);

/*
 * One window start, after the barrier: rank 0 reads the clock and broadcasts it with
 * T = that + @p margin; every rank records how late after rank 0's reading it had T (@p late,
 * the margin's sample) and waits until T, yielding the CPU with @p yield. Fills @p t_start (T), @p
 * started and @p code (BENCH_START_*); returns the broadcast's status.
 */
static inline int bench_window_sync(int rank, double margin, int yield, double slack,
                                    bench_bcast2_fn bcast, double *t_start, double *started,
                                    double *late, int *code)
{
    double two[2] = {0, 0};
    if (rank == 0) two[0] = bench_now_us(), two[1] = two[0] + margin;
    int st = bcast(two);
    if (st) return st;
    double got = bench_now_us();
    *late = got - two[0];
    *t_start = two[1];
    *code = bench_window_wait(two[1], got, yield, slack, started);
    return 0;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile of @p n values (sorted in place); NaN for none. */
static inline double bench_quantile(double *v, int n, double q)
{
    if (n < 1) return NAN;
    qsort(v, (size_t)n, sizeof(double), bench_cmp_double);
    return v[(int)((n - 1) * q + 0.5)];
}

/* The margin from @p n observed latenesses of T (us; the array is sorted). */
static inline double bench_window_margin(double *late, int n)
{
    double m = BENCH_WINDOW_FACTOR * bench_quantile(late, n, BENCH_WINDOW_QUANTILE);
    if (!(m >= BENCH_WINDOW_FLOOR_US)) m = BENCH_WINDOW_FLOOR_US; /* NaN too */
    return m > BENCH_WINDOW_CAP_US ? BENCH_WINDOW_CAP_US : m;
}

/* The scheduler's account of this thread: ns on a CPU, ns runnable but waiting for one,
 * timeslices, involuntary context switches; NaN where the kernel does not say. */
typedef struct {
    double run_ns, wait_ns, slices, nivcsw;
} bench_sched_t;

static inline void bench_sched_read(bench_sched_t *s)
{
    s->run_ns = s->wait_ns = s->slices = s->nivcsw = NAN;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    if (f) {
        unsigned long long run, wait, slices;
        if (fscanf(f, "%llu %llu %llu", &run, &wait, &slices) == 3)
            s->run_ns = (double)run, s->wait_ns = (double)wait, s->slices = (double)slices;
        fclose(f);
    }
#ifdef RUSAGE_THREAD
    struct rusage ru;
    if (!getrusage(RUSAGE_THREAD, &ru)) s->nivcsw = (double)ru.ru_nivcsw;
#endif
}

/* What one rank contributes to a row's scheduler columns: per iteration of the timed loop,
 * runqueue wait in us and involuntary switches (NaN where unknown). */
static inline void bench_sched_delta(const bench_sched_t *before, const bench_sched_t *after,
                                     int iters, double out[2])
{
    out[0] = (after->wait_ns - before->wait_ns) * 1e-3 / iters;
    out[1] = (after->nivcsw - before->nivcsw) / iters;
}

/* A row's columns after the original eleven. */
typedef struct {
    const char *timing; /* span, rank, window, window>span (too few valid), driver */
    double invalid;     /* window: fraction of iterations with a late start; else NaN */
    double margin_us;   /* window: the margin used; else NaN */
    double runq_us;     /* per iteration, summed over ranks */
    double runq_max_us; /* per iteration, the largest rank's */
    double nivcsw;      /* per iteration, summed over ranks */
} bench_extra_t;

/* Reduces per-rank scheduler deltas (@p d: 2 values per rank, gathered) into @p x. A NaN on
 * any rank makes the column NaN. */
static inline void bench_sched_columns(const double *d, int ranks, bench_extra_t *x)
{
    x->runq_us = x->runq_max_us = x->nivcsw = 0;
    for (int r = 0; r < ranks; r++) {
        x->runq_us += d[2 * r];
        x->runq_max_us = r == 0 || d[2 * r] > x->runq_max_us ? d[2 * r] : x->runq_max_us;
        x->nivcsw += d[2 * r + 1];
    }
    if (isnan(x->runq_us)) x->runq_max_us = NAN;
}

/*
 * The median and p99 of a row from the ranks' reduced per-iteration values: @p first_start
 * (MIN over ranks of the start), @p last_end (MAX of the end), @p code (MAX of BENCH_START_*;
 * NULL unless window) and @p t_start (T, the same on every rank) for @p n iterations. With
 * @p slowest (rank timing) the values are the slowest rank's own call times instead. Scratch
 * @p tmp holds n doubles. Fills v[3], v[4] and x->timing / x->invalid; returns 1 when a window
 * row fell back to span.
 */
static inline int bench_iteration_stats(int timing, const double *first_start,
                                        const double *last_end, const double *code,
                                        const double *t_start, const double *slowest, int n,
                                        double *tmp, double v[5], bench_extra_t *x)
{
    int m = 0, fallback = 0;
    x->invalid = NAN;
    if (timing == BENCH_TIMING_RANK) {
        x->timing = "rank";
        for (int i = 0; i < n; i++) tmp[m++] = slowest[i];
    } else if (timing == BENCH_TIMING_WINDOW) {
        for (int i = 0; i < n; i++)
            if (code[i] == BENCH_START_OK) tmp[m++] = last_end[i] - t_start[i];
        x->invalid = (double)(n - m) / n;
        x->timing = "window";
        if (2 * m < n) fallback = 1, m = 0;
    }
    if (timing == BENCH_TIMING_SPAN || fallback) {
        x->timing = fallback ? "window>span" : "span";
        for (int i = 0; i < n; i++) tmp[m++] = last_end[i] - first_start[i];
    }
    qsort(tmp, (size_t)m, sizeof(double), bench_cmp_double);
    v[3] = tmp[m / 2];
    v[4] = tmp[(int)((m - 1) * 0.99)];
    return fallback;
}

static inline void bench_fmt_num(char *buf, size_t len, const char *fmt, double v, const char *none)
{
    if (isnan(v))
        snprintf(buf, len, "%s", none);
    else
        snprintf(buf, len, fmt, v);
}

/*
 * Prints one row. csv and json: the original eleven columns of both benchmarks (op, bytes,
 * ranks, algorithm, avg_us, min_us, max_us, check, transport, median_us, p99_us) and then
 * timing, invalid, margin_us, runq_us, runq_max_us, nivcsw. The table a person reads ("table"):
 * op, bytes, ranks, algorithm, the median iteration time, its 99th percentile, check and
 * transport; "details" (--details) adds the per-rank means (avg_us, and min_us / max_us: the
 * smallest and largest rank's mean call time, a different measure from the iteration times, so
 * a median above max_us is no contradiction) and the timing and scheduler columns. Unknown
 * values: empty in csv, null in json, "-" in the tables.
 */
static inline void bench_print_row(const char *format, const char *op, size_t bytes, int ranks,
                                   const char *alg, const char *tp, const double *v, int ok,
                                   const bench_extra_t *x, int first)
{
    const char *check = ok ? "ok" : "FAIL";
    const double ev[5] = {x->invalid, x->margin_us, x->runq_us, x->runq_max_us, x->nivcsw};
    const char *const efmt[5] = {"%.3f", "%.1f", "%.3f", "%.3f", "%.3f"};
    char e[5][32];
    int csv = !strcmp(format, "csv"), json = !strcmp(format, "json");
    for (int i = 0; i < 5; i++)
        bench_fmt_num(e[i], sizeof(e[i]), efmt[i], ev[i], csv ? "" : json ? "null" : "-");
    if (csv) {
        if (first)
            printf("op,bytes,ranks,algorithm,avg_us,min_us,max_us,check,transport,"
                   "median_us,p99_us,timing,invalid,margin_us,runq_us,runq_max_us,nivcsw\n");
        printf("%s,%zu,%d,%s,%.3f,%.3f,%.3f,%s,%s,%.3f,%.3f,%s,%s,%s,%s,%s,%s\n", op, bytes, ranks,
               alg, v[0], v[1], v[2], check, tp, v[3], v[4], x->timing, e[0], e[1], e[2], e[3],
               e[4]);
    } else if (json) {
        printf("%s{\"op\":\"%s\",\"bytes\":%zu,\"ranks\":%d,\"algorithm\":\"%s\",\"avg_us\":%.3f,"
               "\"min_us\":%.3f,\"max_us\":%.3f,\"check\":\"%s\",\"transport\":\"%s\","
               "\"median_us\":%.3f,\"p99_us\":%.3f,\"timing\":\"%s\",\"invalid\":%s,"
               "\"margin_us\":%s,\"runq_us\":%s,\"runq_max_us\":%s,\"nivcsw\":%s}",
               first ? "[\n  " : ",\n  ", op, bytes, ranks, alg, v[0], v[1], v[2], check, tp, v[3],
               v[4], x->timing, e[0], e[1], e[2], e[3], e[4]);
    } else if (strcmp(format, "details")) {
        if (first)
            printf("%-14s %10s %5s %-18s %12s %10s %-5s %s\n", "op", "bytes", "ranks", "algorithm",
                   "latency_us", "p99_us", "check", "transport");
        printf("%-14s %10zu %5d %-18s %12.3f %10.3f %-5s %s\n", op, bytes, ranks, alg, v[3], v[4],
               check, tp);
    } else {
        if (first)
            printf("%-14s %10s %5s %-18s %10s %11s %11s %10s %10s %-5s %-10s %-11s %7s %9s %10s "
                   "%11s %8s\n",
                   "op", "bytes", "ranks", "algorithm", "avg_us", "min_rank_us", "max_rank_us",
                   "median_us", "p99_us", "check", "transport", "timing", "invalid", "margin_us",
                   "runq_us", "runq_max_us", "nivcsw");
        printf("%-14s %10zu %5d %-18s %10.3f %11.3f %11.3f %10.3f %10.3f %-5s %-10s %-11s %7s %9s "
               "%10s %11s %8s\n",
               op, bytes, ranks, alg, v[0], v[1], v[2], v[3], v[4], check, tp, x->timing, e[0],
               e[1], e[2], e[3], e[4]);
    }
}

#endif
