/*
 * Whether the ranks of a benchmark read one clock, for arbor-bench and arbor-mpi-bench.
 *
 * A collective's time is from its start to the last rank's result. One rank's own call time
 * is not that: after the barrier before an iteration the ranks leave at different moments
 * (with more ranks than cores, a time slice apart), and a rank that enters late can find
 * everything it needs already delivered (scan at P = 4 measured 0.2 us per rank, below any
 * barrier). Where every rank reads the same CLOCK_MONOTONIC (one kernel), the benchmarks time
 * an iteration as the last rank's end minus the first rank's start instead. The kernel's boot
 * id names that clock; without one the host name does (a guess that errs toward per-rank
 * times only where two hosts share a name).
 */
#ifndef ARBOR_BENCH_CLOCK_ID_H
#define ARBOR_BENCH_CLOCK_ID_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* FNV-1a of the kernel's boot id, or of the host name; never 0. */
static inline uint64_t bench_clock_id(void)
{
    char buf[256] = {0};
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f || !fgets(buf, sizeof(buf), f)) {
        memset(buf, 0, sizeof(buf));
        if (gethostname(buf, sizeof(buf) - 1)) strcpy(buf, "unknown");
    }
    if (f) fclose(f);
    uint64_t h = 1469598103934665603ull;
    for (const char *p = buf; *p && *p != '\n'; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return h ? h : 1;
}

#endif
