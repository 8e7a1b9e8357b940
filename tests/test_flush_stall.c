/*
 * A flush whose target stops serving sleeps in interrupt mode (docs/PROGRESS.md, "Flushes").
 * Run with ARBOR_PROGRESS=interrupt, 2+ ranks on one host, on a transport whose one-sided
 * operations need the target's progress (UCX over TCP, OFI tcp;ofi_rxm). After a barrier rank 1
 * stops itself (SIGSTOP: alive, every thread of it halted, as a rank stuck in a long
 * computation without a progress thread); rank 0 puts BYTES into rank 1's allocation and
 * completes it with arbor_fence(1), whose flush cannot end before rank 1 runs again: a helper
 * thread of rank 0 sends it SIGCONT after STOP_S. Rank 0 measures its CPU time (getrusage: every
 * thread of the process) against the wall time of put + fence: under MAX_CPU of it (a flush
 * that spins in the backend uses about 100%), and the fence must have waited (else nothing was
 * tested). Rank 1 then checks every byte. No time bound is asserted beyond that ratio.
 */
#include <pthread.h>
#include <signal.h>
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

enum { BYTES = 1024 };
static const double STOP_S = 2, MAX_CPU = 0.10, GUARD_S = 20;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Whether process pid is stopped (state T in /proc/pid/stat). */
static int stopped(pid_t pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the state follows the command name */
    return p && p[1] == ' ' && p[2] == 'T';
}

static pid_t victim;

static void *resume_later(void *arg)
{
    (void)arg;
    usleep((useconds_t)(STOP_S * 1e6));
    kill(victim, SIGCONT);
    return NULL;
}

int main(void)
{
    if (arbor_init() != ARBOR_OK) return 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    const char *mode = getenv("ARBOR_PROGRESS");
    if (size < 2 || !mode || strcmp(mode, "interrupt") != 0) {
        if (rank == 0) printf("flush_stall: needs 2+ ranks and ARBOR_PROGRESS=interrupt\n");
        arbor_finalize();
        return 77;
    }
    arbor_mem_h mem = NULL;
    uint8_t *local = NULL;
    CHECK(arbor_mem_alloc(ARBOR_TEAM_WORLD, BYTES, &mem, (void **)&local) == ARBOR_OK, "alloc");
    memset(local, 0, BYTES);
    int64_t me = (int64_t)getpid(), *pids = calloc((size_t)size, sizeof(*pids));
    CHECK(arbor_allgather(ARBOR_TEAM_WORLD, &me, pids, 1, ARBOR_INT64) == ARBOR_OK, "pids");
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "barrier");
    if (rank == 1) {
        raise(SIGSTOP); /* rank 0 resumes us */
    } else if (rank == 0) {
        victim = (pid_t)pids[1];
        double t0 = now_s();
        while (!stopped(victim) && now_s() - t0 < GUARD_S) usleep(1000);
        CHECK(stopped(victim), "rank 1 did not stop");
        uint8_t src[BYTES];
        for (int i = 0; i < BYTES; i++) src[i] = (uint8_t)(i * 7 + 3);
        void *remote = NULL;
        CHECK(arbor_mem_addr(mem, 1, &remote, NULL) == ARBOR_OK, "addr");
        pthread_t helper;
        CHECK(pthread_create(&helper, NULL, resume_later, NULL) == 0, "helper thread");
        double w0 = now_s(), c0 = cpu_s();
        arbor_status_t st = arbor_put(1, remote, src, BYTES);
        CHECK(st == ARBOR_OK, "put: %s", arbor_strerror(st));
        st = arbor_fence(1);
        double wall = now_s() - w0, cpu = cpu_s() - c0;
        CHECK(st == ARBOR_OK, "fence: %s", arbor_strerror(st));
        pthread_join(helper, NULL);
        CHECK(wall > STOP_S / 2, "put + fence took %.2f s: they never waited for rank 1", wall);
        CHECK(cpu < MAX_CPU * wall, "put + fence used %.3f s of CPU in %.2f s (%.1f%%)", cpu, wall,
              100 * cpu / wall);
        printf("flush_stall rank 0: put + fence in %.2f s, %.3f s of CPU (%.1f%%)\n", wall, cpu,
               100 * cpu / wall);
    }
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "closing barrier");
    if (rank == 1) {
        int bad = 0;
        for (int i = 0; i < BYTES; i++) bad += local[i] != (uint8_t)(i * 7 + 3);
        CHECK(bad == 0, "%d of %d bytes wrong after the fence", bad, BYTES);
    }
    CHECK(arbor_mem_free(&mem) == ARBOR_OK, "free");
    free(pids);
    arbor_finalize();
    printf("flush_stall rank %d: %d checks, %d failures\n", rank, checks, failures);
    return failures ? 1 : 0;
}
