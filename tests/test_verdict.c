/*
 * One verdict per collective, at default settings (no ARBOR_CHECK). Modes:
 *   args:   calls written alike on every rank whose arguments one rank's rules refuse and
 *           another's accept (an alias only the rank's own block would excuse, in place where
 *           only the root may use it, arrays only the root reads, a NULL buffer on one leaf).
 *           Every rank must end with the same error, or, where a member finished its part
 *           before the refusal was posted, with an error at its next call on the team; no rank
 *           keeps ARBOR_OK for a call another refused. Each case runs on a team of its own (a
 *           call accepted by some members and refused by others fails the team); the world
 *           must keep working.
 *   mismatch: the last rank's call differs from the others' in one argument or in kind, between
 *           mapped peers (UCX on one node): the messages' signatures catch it; every rank ends
 *           with ARBOR_ERR_MISMATCH at the call or, having used no mismatched data, at its next
 *           call on the team.
 *   mismatch_warm: the same after three matched calls of the others' kind on every rank (small
 *           bcasts then run as tiny calls).
 *   mismatch_transport: the same with nothing mapped (ARBOR_DIRECT=n, as between nodes), with
 *           counts whose messages fit a line (48 bytes): a step's first message carries the
 *           signature through the transport, and a wait that sees nothing move tells the members
 *           it waits for which call waits, so every kind, roots and a barrier against another
 *           collective included, ends the same way (ARBOR_ERR_MISMATCH, not ARBOR_ERR_TIMEOUT; a
 *           member with right data at a later call: the next, or the one after where the stray
 *           message landed after the next call's start had looked).
 *   late:   every rank but the last times out in a barrier of a split team; the last arrives
 *           after they cancelled it and must fail it too (not complete it with the signals the
 *           others sent before giving up). About 8 s.
 *   apart:  rank 0 calls one barrier more than the others, who go on to arbor_finalize: the
 *           barrier must fail with ARBOR_ERR_PEER_STOPPED (they stopped) and every finalize
 *           return well before ARBOR_TIMEOUT (which the test sets long).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arbor.h"
#include "launched_check.h"

enum { N = 64, MAXP = 16 };

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static arbor_team_h fresh_team(void)
{
    arbor_team_h t = ARBOR_TEAM_NULL;
    CHECK(arbor_team_split(ARBOR_TEAM_WORLD, 0, rank, &t) == ARBOR_OK, "split");
    return t;
}

/* The world still sums correctly. */
static void world_healthy(const char *after)
{
    int64_t in = rank + 1, out = 0;
    arbor_status_t st = arbor_allreduce(ARBOR_TEAM_WORLD, &in, &out, 1, ARBOR_INT64, ARBOR_SUM);
    CHECK(st == ARBOR_OK && out == (int64_t)size * (size + 1) / 2, "world allreduce after %s: %s",
          after, arbor_strerror(st));
}

/* The verdict of a call on team t (status st here) must be want: here at once, or, for a
 * member that finished its part before the refusal reached it, at its next call on the team. */
static void verdict_is(const char *what, arbor_team_h t, arbor_status_t st, arbor_status_t want,
                       bool may_finish_first)
{
    if (st == ARBOR_OK && may_finish_first) {
        arbor_status_t next = arbor_barrier(t);
        CHECK(next != ARBOR_OK, "%s: ARBOR_OK here, and the next call on the team too", what);
        return;
    }
    CHECK(st == want, "%s: %s, want %s", what, arbor_strerror(st), arbor_strerror(want));
}

static void free_team(arbor_team_h *t)
{
    CHECK(arbor_team_free(t) == ARBOR_OK, "team free");
}

static int run_args(void)
{
    static int64_t sb[N * MAXP], rb[N * MAXP];
    for (int i = 0; i < N * MAXP; i++) sb[i] = rb[i] = i;

    /* allgather, sendbuf == recvbuf: only rank 0's block starts there. Judged alike (no
     * member accepts it), so the team stays usable. */
    arbor_status_t st = arbor_allgather(ARBOR_TEAM_WORLD, rb, rb, N, ARBOR_INT64);
    CHECK(st == ARBOR_ERR_BUFFER, "allgather sendbuf == recvbuf: %s", arbor_strerror(st));
    world_healthy("allgather alias");
    st = arbor_allgatherv(ARBOR_TEAM_WORLD, rb, N, rb,
                          (size_t[MAXP]){N, N, N, N, N, N, N, N, N, N, N, N, N, N, N, N},
                          (size_t[MAXP]){0, N, 2 * N, 3 * N, 4 * N, 5 * N, 6 * N, 7 * N, 8 * N,
                                         9 * N, 10 * N, 11 * N, 12 * N, 13 * N, 14 * N, 15 * N},
                          ARBOR_INT64);
    CHECK(st == ARBOR_ERR_BUFFER, "allgatherv sendbuf == recvbuf: %s", arbor_strerror(st));
    world_healthy("allgatherv alias");

    /* reduce, ARBOR_IN_PLACE on every rank: the root's right, an error elsewhere. The root
     * waits for the others' data: it must learn of their refusal. */
    arbor_team_h t = fresh_team();
    st = arbor_reduce(t, ARBOR_IN_PLACE, rb, N, ARBOR_INT64, ARBOR_SUM, 0);
    verdict_is("reduce in place everywhere", t, st, ARBOR_ERR_BUFFER, false);
    free_team(&t);
    world_healthy("reduce in place");

    /* scatterv, NULL counts on every rank: only the root reads them. */
    t = fresh_team();
    st = arbor_scatterv(t, sb, NULL, NULL, rb, N, ARBOR_INT64, 0);
    verdict_is("scatterv NULL counts", t, st, ARBOR_ERR_COUNT, false);
    free_team(&t);
    world_healthy("scatterv NULL counts");

    /* gather, NULL receive buffer on every rank: only the root's is used. The others only
     * send, so one may finish before the root refuses. */
    t = fresh_team();
    st = arbor_gather(t, sb, NULL, N, ARBOR_INT64, 0);
    verdict_is("gather NULL recvbuf", t, st, ARBOR_ERR_BUFFER, rank != 0);
    free_team(&t);
    world_healthy("gather NULL recvbuf");

    /* reduce, the root's recvbuf overlapping its sendbuf off by one element. */
    t = fresh_team();
    st = arbor_reduce(t, rb + 1, rb, N, ARBOR_INT64, ARBOR_SUM, 0);
    verdict_is("reduce overlap at the root", t, st, ARBOR_ERR_BUFFER, rank != 0);
    free_team(&t);
    world_healthy("reduce overlap");

    /* bcast, one leaf's buffer NULL: the root and the other leaves may finish first. */
    t = fresh_team();
    st = arbor_bcast(t, rank == size - 1 ? NULL : (void *)rb, 8, 0);
    verdict_is("bcast NULL on one rank", t, st, ARBOR_ERR_BUFFER, rank != size - 1);
    free_team(&t);
    world_healthy("bcast NULL on one rank");

    /* Refused alike everywhere: the team keeps working. */
    t = fresh_team();
    st = arbor_bcast(t, NULL, 8, 0);
    CHECK(st == ARBOR_ERR_BUFFER, "bcast NULL everywhere: %s", arbor_strerror(st));
    int64_t v = rank == 0 ? 42 : 0;
    st = arbor_bcast(t, &v, sizeof(v), 0);
    CHECK(st == ARBOR_OK && v == 42, "bcast after a refusal everyone shared: %s, %lld",
          arbor_strerror(st), (long long)v);
    free_team(&t);
    return 0;
}

/* Sleeps until t0 + at seconds of this rank's clock (the ranks took t0 right after a world
 * barrier, so their deadlines differ by about its latency). */
static void sleep_until(double t0, double at)
{
    double left = t0 + at - now_s();
    if (left > 0) usleep((useconds_t)(left * 1e6));
}

/* Case i of a collective that differs on the last rank (odd) in one argument or in kind. */
static arbor_status_t mismatched(arbor_team_h t, int i, int odd, int64_t *sb, int64_t *rb,
                                 size_t *counts, size_t *counts2, size_t *displs, size_t *displs2,
                                 size_t n)
{
    switch (i) {
    case 0:
        return arbor_allreduce(t, sb, rb, odd ? 10 * n : n, ARBOR_INT64, ARBOR_SUM);
    case 1:
        return arbor_bcast(t, rb, odd ? 64 : 8, 0);
    case 2:
        return arbor_bcast(t, rb, 8, odd ? 1 : 0);
    case 3:
        return arbor_reduce(t, sb, rb, n, ARBOR_INT64, ARBOR_SUM, odd ? 1 : 0);
    case 4:
        return arbor_allreduce(t, sb, rb, n, odd ? ARBOR_UINT64 : ARBOR_INT64, ARBOR_SUM);
    case 5:
        return arbor_allreduce(t, sb, rb, n, ARBOR_INT64, odd ? ARBOR_MAX : ARBOR_SUM);
    case 6:
        return odd ? arbor_bcast(t, rb, n * 8, 0)
                   : arbor_allreduce(t, sb, rb, n, ARBOR_INT64, ARBOR_SUM);
    case 7:
        return arbor_scatter(t, sb, rb, odd ? 2 : 1, ARBOR_INT64, 0);
    case 8:
        return arbor_gather(t, sb, rb, 1, ARBOR_INT64, odd ? 1 : 0);
    case 9:
        return arbor_allgather(t, sb, rb, odd ? 3 : 2, ARBOR_INT64);
    case 10:
        return arbor_alltoall(t, sb, rb, 1, odd ? ARBOR_DOUBLE : ARBOR_INT64);
    case 11:
        return arbor_reduce_scatter(t, sb, rb, odd ? counts2 : counts, ARBOR_INT64, ARBOR_SUM);
    case 12:
        return arbor_allgatherv(t, sb, 1, rb, counts, odd ? displs2 : displs, ARBOR_INT64);
    case 13:
        return arbor_gatherv(t, sb, 1, rb, counts, displs, ARBOR_INT64, odd ? 1 : 0);
    case 14:
        return arbor_reduce_scatter(t, sb, rb, counts, ARBOR_INT64, odd ? ARBOR_MIN : ARBOR_SUM);
    case 15:
        return arbor_scatterv(t, sb, counts, displs, rb, 1, ARBOR_INT64, odd ? 1 : 0);
    case 16: /* the others wait for data that the odd rank's barrier never sends */
        return odd ? arbor_barrier(t) : arbor_bcast(t, rb, 8, size - 1);
    case 17: /* the odd rank's bcast sends, the others wait for barrier signals */
        return odd ? arbor_bcast(t, rb, 8, size - 1) : arbor_barrier(t);
    case 18:
        return odd ? arbor_barrier(t) : arbor_allreduce(t, sb, rb, n, ARBOR_INT64, ARBOR_SUM);
    case 19: /* the odd rank waits as the root of a reduce, the others in a barrier */
        return odd ? arbor_reduce(t, sb, rb, n, ARBOR_INT64, ARBOR_SUM, size - 1)
                   : arbor_barrier(t);
    case 20: /* two roots whose messages land in channels matched calls opened: nobody waits */
        for (int root = 0; root < size; root++) {
            arbor_status_t st = arbor_bcast(t, rb, 8, root);
            if (st != ARBOR_OK) return st;
        }
        return arbor_bcast(t, rb, 8, odd ? 1 : 0);
    case 21: /* one element in place: at 2 members an exchange of cells, tiny once warm */
        return arbor_allreduce(t, ARBOR_IN_PLACE, rb, 1, ARBOR_INT64, odd ? ARBOR_MAX : ARBOR_SUM);
    case 22:
        return arbor_allreduce(t, ARBOR_IN_PLACE, rb, odd ? 2 : 1, ARBOR_INT32, ARBOR_SUM);
    default:
        return ARBOR_OK;
    }
}

static const char *const mismatch_what[] = {
    "allreduce count",
    "bcast bytes",
    "bcast root",
    "reduce root",
    "datatype",
    "op",
    "allreduce/bcast",
    "scatter count",
    "gather root",
    "allgather count",
    "alltoall type",
    "reduce_scatter counts",
    "allgatherv displs",
    "gatherv root",
    "reduce_scatter op",
    "scatterv root",
    "barrier/bcast",
    "bcast/barrier",
    "barrier/allreduce",
    "reduce/barrier",
    "bcast root, open channels",
    "allreduce op, one element in place",
    "allreduce count, in place",
};

/* Mismatched calls at default settings: every rank must end with ARBOR_ERR_MISMATCH, at the
 * call, or (a member that never received from a mismatched member, so its data is right) at its
 * next call on the team. transport: no peer mapped (ARBOR_DIRECT=n, as between nodes), counts
 * whose messages fit a line (the signature travels only in such a step's first message); the
 * kinds in which no message meets its twin (roots, a barrier against another collective) rely on
 * the words that say which call waits, sent through the transport once a wait stalls. */
static int run_mismatch(bool transport, bool warm)
{
    static int64_t sb[N * MAXP], rb[N * MAXP];
    size_t counts[MAXP], counts2[MAXP], displs[MAXP], displs2[MAXP];
    for (int r = 0; r < MAXP; r++) {
        counts[r] = 1, counts2[r] = r == 0 ? 2 : 1;
        displs[r] = (size_t)r, displs2[r] = (size_t)(size - 1 - r);
    }
    for (int i = 0; i < N * MAXP; i++) sb[i] = i;
    int odd = rank == size - 1, kinds = (int)(sizeof(mismatch_what) / sizeof(mismatch_what[0]));
    int at_call = 0, tested = 0;
    for (int i = 0; i < kinds; i++) {
        tested++;
        arbor_team_h t = fresh_team();
        /* warm: the others' call three times on every rank first, so that a small bcast the
         * others repeat runs as a tiny call (docs/PROTOCOL.md, "Tiny calls"), which skips the
         * instance and the call start's stray look. */
        for (int w = 0; warm && w < 3; w++) {
            arbor_status_t ok = mismatched(t, i, 0, sb, rb, counts, counts2, displs, displs2, N);
            CHECK(ok == ARBOR_OK, "'%s' matched, before: %s", mismatch_what[i], arbor_strerror(ok));
        }
        arbor_status_t st =
            mismatched(t, i, odd, sb, rb, counts, counts2, displs, displs2, transport ? 4 : N);
        if (st == ARBOR_OK) {
            arbor_status_t next = arbor_barrier(t);
            /* Through the transport a stray message may land (OFI: be counted, when this rank
             * reads its completion queue) only after the next call's start looked: the call
             * after it finds it. */
            if (transport && next == ARBOR_OK) next = arbor_barrier(t);
            CHECK(next == ARBOR_ERR_MISMATCH || next == ARBOR_ERR_TEAM,
                  "'%s': ARBOR_OK here, then %s at the next call", mismatch_what[i],
                  arbor_strerror(next));
        } else {
            CHECK(st == ARBOR_ERR_MISMATCH, "'%s': %s, want ARBOR_ERR_MISMATCH", mismatch_what[i],
                  arbor_strerror(st));
            at_call += st == ARBOR_ERR_MISMATCH;
        }
        free_team(&t);
        world_healthy(mismatch_what[i]);
    }
    printf("verdict mismatch rank %d: %d of %d kinds failed at the call itself\n", rank, at_call,
           tested);
    return 0;
}

static int run_late(void)
{
    arbor_team_h t = fresh_team();
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "world barrier");
    double t0 = now_s();
    arbor_status_t st;
    if (rank == size - 1) {
        /* Well past the others' ARBOR_TIMEOUT (2 s, set by the test) and their cancellation. */
        sleep_until(t0, 5.0);
        st = arbor_barrier(t);
        CHECK(st != ARBOR_OK, "the late rank completed a barrier the others cancelled");
        CHECK(st == ARBOR_ERR_TIMEOUT || st == ARBOR_ERR_TEAM, "late rank's barrier: %s",
              arbor_strerror(st));
    } else {
        st = arbor_barrier(t);
        CHECK(st == ARBOR_ERR_TIMEOUT, "barrier without the last rank: %s", arbor_strerror(st));
    }
    printf("verdict late rank %d: barrier returned %s after %.2f s\n", rank, arbor_strerror(st),
           now_s() - t0);
    free_team(&t);
    /* Together again (ARBOR_TIMEOUT is short): the world is untouched. */
    sleep_until(t0, 7.0);
    world_healthy("the late barrier");
    return 0;
}

static int run_apart(void)
{
    world_healthy("init");
    double t0 = now_s();
    if (rank == 0) {
        arbor_status_t st = arbor_barrier(ARBOR_TEAM_WORLD);
        CHECK(st == ARBOR_ERR_PEER_STOPPED, "a barrier the others never call: %s",
              arbor_strerror(st));
    }
    arbor_status_t fin = arbor_finalize();
    double took = now_s() - t0;
    /* ARBOR_TIMEOUT is 30 s here: an answer within a few seconds came from the verdicts. */
    CHECK(took < 10, "finalize one call apart took %.1f s", took);
    printf("verdict apart rank %d: finalize returned %s after %.2f s\n", rank, arbor_strerror(fin),
           took);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s args|mismatch|mismatch_warm|mismatch_transport|late|apart\n",
                argv[0]);
        return 2;
    }
    if (arbor_init() != ARBOR_OK) return 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    if (size > MAXP || size < 2) {
        arbor_finalize();
        return 77;
    }
    bool finalized = false;
    if (!strcmp(argv[1], "args"))
        run_args();
    else if (!strcmp(argv[1], "mismatch"))
        run_mismatch(false, false);
    else if (!strcmp(argv[1], "mismatch_warm"))
        run_mismatch(false, true);
    else if (!strcmp(argv[1], "mismatch_transport"))
        run_mismatch(true, false);
    else if (!strcmp(argv[1], "late"))
        run_late();
    else
        finalized = run_apart() != 0;
    if (!finalized) {
        arbor_status_t fin = arbor_finalize();
        CHECK(fin == ARBOR_OK, "finalize: %s", arbor_strerror(fin));
    }
    printf("verdict %s rank %d: %d checks, %d failures\n", argv[1], rank, checks, failures);
    return failures ? 1 : 0;
}
