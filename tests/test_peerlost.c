/*
 * A lost peer: the last rank kills itself with SIGKILL after a barrier; the
 * others, in a bcast it roots, must get ARBOR_ERR_PEER_LOST within a few seconds (not after
 * ARBOR_TIMEOUT), keep working on a team without it, and finalize without waiting for it.
 * Needs a launcher that keeps the job alive and reports the termination (Open MPI:
 * OMPI_MCA_orte_enable_recovery=1 OMPI_MCA_orte_abort_on_non_zero_status=0).
 * ARB_PEERLOST_ALLOW_TIMEOUT=1: a survivor may get ARBOR_ERR_TIMEOUT instead (a transport that
 * cannot see a peer on another node go: OFI tcp;ofi_rxm, docs/TRANSPORTS.md); the survivors'
 * team is then not checked (a rank that learnt it early may time out waiting for those that
 * learn it late). Every survivor prints what it got and after how many seconds.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "arbor.h"
#include "launched_check.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    if (arbor_init() != ARBOR_OK) return 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    if (size < 2) {
        arbor_finalize();
        return 77;
    }
    int victim = size - 1;
    arbor_team_h others;
    CHECK(arbor_team_split(ARBOR_TEAM_WORLD, rank == victim ? -1 : 0, 0, &others) == ARBOR_OK,
          "split");
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "barrier");
    /* The victim lets its last barrier messages be answered first: UCX 1.13 aborts a rank
     * whose reply to a software atomic (tcp) of a peer that just died fails ("Fatal:
     * unexpected error: Endpoint timeout" in ucp_atomic_req_handler), error handler or not;
     * docs/TRANSPORTS.md. */
    if (rank == victim) {
        usleep(500000);
        raise(SIGKILL);
    }

    char buf[4096] = {0};
    double t0 = now_s();
    arbor_status_t st = arbor_bcast(ARBOR_TEAM_WORLD, buf, sizeof(buf), victim);
    double took = now_s() - t0;
    const char *allow = getenv("ARB_PEERLOST_ALLOW_TIMEOUT");
    bool timeout_ok = allow && allow[0] == '1';
    CHECK(st == ARBOR_ERR_PEER_LOST || (timeout_ok && st == ARBOR_ERR_TIMEOUT),
          "bcast from a killed root: %s", arbor_strerror(st));
    CHECK(st != ARBOR_ERR_PEER_LOST || took < 10, "reported after %.1f s", took);
    arbor_status_t bcast_st = st;
    if (!timeout_ok) {
        int64_t in = 1, out = 0;
        st = arbor_allreduce(others, &in, &out, 1, ARBOR_INT64, ARBOR_SUM);
        CHECK(st == ARBOR_OK && out == size - 1, "survivors' team: %s, %lld", arbor_strerror(st),
              (long long)out);
    }
    /* Where the transport cannot see the loss (OFI tcp off-node), a survivor may still hold a
     * put to the dead rank that never completes: its team free then waits out ARBOR_TIMEOUT in
     * the flush, and the others time out in the free's barrier (docs/TRANSPORTS.md). What must
     * hold there is that every call returns, and finalize is bounded (below). */
    arbor_status_t free_st = arbor_team_free(&others);
    CHECK(free_st == ARBOR_OK ||
              (timeout_ok && (free_st == ARBOR_ERR_TIMEOUT || free_st == ARBOR_ERR_PEER_LOST ||
                              free_st == ARBOR_ERR_TEAM)),
          "free: %s", arbor_strerror(free_st));
    t0 = now_s();
    arbor_status_t fin = arbor_finalize();
    double fin_s = now_s() - t0;
    CHECK(fin_s < 10, "finalize took %.1f s", fin_s);
    printf("peerlost rank %d: bcast from the killed root returned %s after %.2f s, finalize "
           "%.2f s (%s)\n",
           rank, arbor_strerror(bcast_st), took, fin_s, arbor_strerror(fin));
    printf("peerlost rank %d: %d checks, %d failures\n", rank, checks, failures);
    return failures ? 1 : 0;
}
