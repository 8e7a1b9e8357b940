/*
 * Stress: a random mix of non-blocking collectives (barrier, bcast, allreduce,
 * allgather, alltoall, reduce, scan) on the world and on a split team, up to INFLIGHT at once,
 * completed in random order with test / wait / test_some; every result checked, and RSS
 * printed before and after. Every rank draws the same sequence (same seed), so the calls
 * match. Short by default (CI); ARB_STRESS_OPS=100000 for a long run by hand.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbor.h"
#include "launched_check.h"

enum { INFLIGHT = 32, MAXN = 512, KINDS = 7 };

typedef struct {
    arbor_request_h req;
    int kind, n, root, tsize, trank;
    int64_t *in, *out;
} op_t;

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

/* Local choices (how to complete) from a stream of their own: they differ between ranks and
 * must not shift the shared one. */
static uint32_t local_rnd(uint32_t n)
{
    static uint64_t x = 0x9e3779b97f4a7c15ull;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return (uint32_t)(x % n);
}

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        fclose(f);
    }
    return resident * 4;
}

static int64_t val(int r, int i, uint64_t tag)
{
    return (int64_t)(r + 1) * 1000 + i + (int64_t)(tag % 97);
}

static arbor_status_t start(op_t *o, arbor_team_h t, uint64_t tag)
{
    int P = o->tsize, me = o->trank, n = o->n;
    for (int i = 0; i < n * P; i++) o->in[i] = val(me, i % (n ? n : 1), tag), o->out[i] = -1;
    switch (o->kind) {
    case 0:
        return arbor_barrier_nb(t, NULL, &o->req);
    case 1:
        if (me == o->root)
            for (int i = 0; i < n; i++) o->out[i] = val(o->root, i, tag);
        return arbor_bcast_nb(t, o->out, (size_t)n * 8, o->root, NULL, &o->req);
    case 2:
        return arbor_allreduce_nb(t, o->in, o->out, (size_t)n, ARBOR_INT64, ARBOR_SUM, NULL,
                                  &o->req);
    case 3:
        return arbor_allgather_nb(t, o->in, o->out, (size_t)n, ARBOR_INT64, NULL, &o->req);
    case 4: {
        for (int q = 0; q < P; q++)
            for (int i = 0; i < n; i++) o->in[q * n + i] = val(me, q * n + i, tag);
        return arbor_alltoall_nb(t, o->in, o->out, (size_t)n, ARBOR_INT64, NULL, &o->req);
    }
    case 5:
        return arbor_reduce_nb(t, o->in, o->out, (size_t)n, ARBOR_INT64, ARBOR_MAX, o->root, NULL,
                               &o->req);
    default:
        return arbor_scan_nb(t, o->in, o->out, (size_t)n, ARBOR_INT64, ARBOR_SUM, NULL, &o->req);
    }
}

/* Number of wrong elements in a completed op. */
static int verify(const op_t *o, uint64_t tag)
{
    int P = o->tsize, me = o->trank, n = o->n, bad = 0;
    for (int i = 0; i < n; i++) {
        int64_t sum = 0, pre = 0;
        for (int r = 0; r < P; r++) sum += val(r, i, tag), pre += r <= me ? val(r, i, tag) : 0;
        switch (o->kind) {
        case 1:
            bad += o->out[i] != val(o->root, i, tag);
            break;
        case 2:
            bad += o->out[i] != sum;
            break;
        case 3:
            for (int q = 0; q < P; q++) bad += o->out[q * n + i] != val(q, i, tag);
            break;
        case 4:
            for (int q = 0; q < P; q++) bad += o->out[q * n + i] != val(q, me * n + i, tag);
            break;
        case 5:
            bad += me == o->root && o->out[i] != val(P - 1, i, tag);
            break;
        case 6:
            bad += o->out[i] != pre;
            break;
        default:
            break;
        }
    }
    return bad;
}

int main(void)
{
    if (arbor_init() != ARBOR_OK) return 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    const char *env = getenv("ARB_STRESS_OPS");
    long total = env ? atol(env) : 3000;
    arbor_team_h half;
    CHECK(arbor_team_split(ARBOR_TEAM_WORLD, rank % 2, rank, &half) == ARBOR_OK, "split");
    arbor_team_h teams[2] = {ARBOR_TEAM_WORLD, half};
    int tsize[2], trank[2];
    for (int k = 0; k < 2; k++)
        arbor_team_size(teams[k], &tsize[k]), arbor_team_rank(teams[k], &trank[k]);

    op_t ops[INFLIGHT];
    uint64_t tags[INFLIGHT];
    for (int j = 0; j < INFLIGHT; j++) {
        ops[j].req = NULL;
        ops[j].in = malloc(sizeof(int64_t) * MAXN * (size_t)size);
        ops[j].out = malloc(sizeof(int64_t) * MAXN * (size_t)size);
    }
    long rss0 = rss_kb(), started = 0, completed = 0, wrong = 0;
    arbor_request_h reqs[INFLIGHT];
    size_t idx[INFLIGHT], done;
    while (completed < total) {
        /* Start into every free slot. Slots free up in a different order on each rank, but
         * every rank makes the same draws per start, so the k-th collective started is the
         * same everywhere (each rank is in the world and in its half). */
        for (int j = 0; j < INFLIGHT && started < total; j++) {
            if (ops[j].req) continue;
            int k = (int)rnd(2);
            op_t *o = &ops[j];
            o->kind = (int)rnd(KINDS);
            o->n = (int)rnd(4) == 0 ? (int)rnd(MAXN) + 1 : (int)rnd(8) + 1;
            o->tsize = tsize[k], o->trank = trank[k];
            o->root = (int)rnd((uint32_t)o->tsize);
            tags[j] = (uint64_t)started;
            arbor_status_t st = start(o, teams[k], tags[j]);
            CHECK(st == ARBOR_OK, "start kind %d: %s", o->kind, arbor_strerror(st));
            if (st != ARBOR_OK) goto out;
            started++;
        }
        /* Complete some: test_some over all, or wait on one. */
        for (int j = 0; j < INFLIGHT; j++) reqs[j] = ops[j].req;
        arbor_status_t st = local_rnd(3) ? arbor_test_some(INFLIGHT, reqs, &done, idx)
                                         : arbor_wait_some(INFLIGHT, reqs, &done, idx);
        if (st == ARBOR_INPROGRESS) continue;
        CHECK(st == ARBOR_OK, "completion: %s", arbor_strerror(st));
        if (st != ARBOR_OK) goto out;
        for (size_t d = 0; d < done; d++) {
            op_t *o = &ops[idx[d]];
            o->req = NULL;
            wrong += verify(o, tags[idx[d]]);
            completed++;
        }
    }
out:
    for (int j = 0; j < INFLIGHT; j++)
        if (ops[j].req) arbor_wait(&ops[j].req);
    long rss1 = rss_kb();
    CHECK(wrong == 0, "%ld wrong elements", wrong);
    CHECK(arbor_team_free(&half) == ARBOR_OK, "free");
    CHECK(arbor_finalize() == ARBOR_OK, "finalize");
    if (rank == 0)
        printf("stress: %ld collectives, %d in flight, P=%d: %ld wrong; RSS %ld -> %ld KiB\n",
               completed, INFLIGHT, size, wrong, rss0, rss1);
    for (int j = 0; j < INFLIGHT; j++) free(ops[j].in), free(ops[j].out);
    printf("stress rank %d: %d checks, %d failures\n", rank, checks, failures);
    return failures ? 1 : 0;
}
