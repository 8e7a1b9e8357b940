/*
 * Landing memory grows with the peers a team's collectives use (arbor_team_landing_bytes,
 * docs/PROTOCOL.md "Landing channels"), every byte checked:
 *   - a fresh split team holds only its link lines (64 bytes per member, and one line of
 *     verdict posts), no channel;
 *   - after a binomial bcast from rank 0 (ARBOR_BCAST_ALGORITHM=binomial), a rank has one channel
 *     (its parent), the root none; after a pairwise alltoall (ARBOR_ALLTOALL_ALGORITHM=pairwise)
 *     every rank has P - 1: fewer channels after the bcast than after the alltoall;
 *   - through a suite of every collective at 8 bytes and at 100 KiB (several slots per
 *     message), the bytes stay links + channels x one block and never shrink;
 *   - team free returns every byte: split, alltoall, free, 40 times in a segment
 *     (ARBOR_SEGMENT_SIZE=8M) that holds the channels of only a few such teams; the world's
 *     landing bytes stop growing once its internal collectives (split, free) have run once.
 * Rank 0 prints the bytes per rank after each step.
 * With the argument "exhaust" (ARBOR_GATHER_ALGORITHM=flat): rank 0's heap is filled until no
 * channel block fits, then a flat gather to rank 0 on a fresh team fails with
 * ARBOR_ERR_NO_MEMORY on every rank at once (rank 0 cannot open its channels and refuses them;
 * every sender reads the refusal instead of waiting for ARBOR_TIMEOUT), the failed team frees
 * locally and the world keeps working.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbor.h"
#include "launched_check.h"

enum { BIG = 100 * 1024 / 8, TEAMS = 40 };

typedef struct {
    size_t links, block; /* link bytes; bytes of one channel (0: not yet seen) */
    size_t bytes;
    int channels;
} landing_t;

static void observe(arbor_team_h team, landing_t *l, const char *after)
{
    size_t bytes = 0;
    int ch = -1;
    arbor_status_t st = arbor_team_landing_bytes(team, &bytes, &ch);
    CHECK(st == ARBOR_OK, "%s: arbor_team_landing_bytes: %s", after, arbor_strerror(st));
    CHECK(ch >= 0 && ch <= size - 1, "%s: %d channels in a team of %d", after, ch, size);
    CHECK(bytes >= l->bytes && ch >= l->channels, "%s: landing shrank: %zu -> %zu bytes, %d -> %d",
          after, l->bytes, bytes, l->channels, ch);
    if (ch > 0 && l->block == 0) {
        CHECK((bytes - l->links) % (size_t)ch == 0, "%s: %zu bytes not links + %d blocks", after,
              bytes, ch);
        l->block = (bytes - l->links) / (size_t)ch;
    }
    CHECK(bytes == l->links + (size_t)ch * l->block, "%s: %zu bytes, want %zu + %d x %zu", after,
          bytes, l->links, ch, l->block);
    l->bytes = bytes;
    l->channels = ch;
    if (rank == 0)
        printf("after %-22s rank 0: %2d channels, %9zu landing bytes\n", after, ch, bytes);
}

static int64_t val(int r, size_t i, int salt)
{
    return (int64_t)(r + 1) * 1000003 + (int64_t)i * 7 + salt;
}

/* Every collective at count elements of int64, every byte checked. */
static void suite(arbor_team_h t, size_t n, landing_t *l)
{
    int64_t *in = malloc(sizeof(int64_t) * n * (size_t)size);
    int64_t *out = malloc(sizeof(int64_t) * n * (size_t)size);
    size_t *counts = malloc(sizeof(size_t) * (size_t)size);
    char what[64];
    arbor_status_t st;
    int bad;
    int root = size - 1;
    for (int r = 0; r < size; r++) counts[r] = n;

    st = arbor_barrier(t);
    CHECK(st == ARBOR_OK, "barrier: %s", arbor_strerror(st));
    snprintf(what, sizeof(what), "barrier");
    observe(t, l, what);

    for (size_t i = 0; i < n; i++) out[i] = rank == root ? val(root, i, 1) : -1;
    st = arbor_bcast(t, out, n * sizeof(int64_t), root);
    bad = 0;
    for (size_t i = 0; i < n; i++) bad += out[i] != val(root, i, 1);
    CHECK(st == ARBOR_OK && !bad, "bcast %zu: %s, %d wrong", n, arbor_strerror(st), bad);
    snprintf(what, sizeof(what), "bcast %zu", n);
    observe(t, l, what);

    for (size_t i = 0; i < n * (size_t)size; i++) in[i] = val(root, i, 2);
    st = arbor_scatter(t, in, out, n, ARBOR_INT64, root);
    bad = 0;
    for (size_t i = 0; i < n; i++) bad += out[i] != val(root, (size_t)rank * n + i, 2);
    CHECK(st == ARBOR_OK && !bad, "scatter %zu: %s, %d wrong", n, arbor_strerror(st), bad);
    snprintf(what, sizeof(what), "scatter %zu", n);
    observe(t, l, what);

    for (size_t i = 0; i < n; i++) in[i] = val(rank, i, 3);
    st = arbor_gather(t, in, out, n, ARBOR_INT64, root);
    bad = 0;
    for (int r = 0; rank == root && r < size; r++)
        for (size_t i = 0; i < n; i++) bad += out[(size_t)r * n + i] != val(r, i, 3);
    CHECK(st == ARBOR_OK && !bad, "gather %zu: %s, %d wrong", n, arbor_strerror(st), bad);
    snprintf(what, sizeof(what), "gather %zu", n);
    observe(t, l, what);

    st = arbor_allgather(t, in, out, n, ARBOR_INT64);
    bad = 0;
    for (int r = 0; r < size; r++)
        for (size_t i = 0; i < n; i++) bad += out[(size_t)r * n + i] != val(r, i, 3);
    CHECK(st == ARBOR_OK && !bad, "allgather %zu: %s, %d wrong", n, arbor_strerror(st), bad);
    snprintf(what, sizeof(what), "allgather %zu", n);
    observe(t, l, what);

    for (int r = 0; r < size; r++)
        for (size_t i = 0; i < n; i++) in[(size_t)r * n + i] = val(rank, (size_t)r * n + i, 4);
    st = arbor_alltoall(t, in, out, n, ARBOR_INT64);
    bad = 0;
    for (int r = 0; r < size; r++)
        for (size_t i = 0; i < n; i++)
            bad += out[(size_t)r * n + i] != val(r, (size_t)rank * n + i, 4);
    CHECK(st == ARBOR_OK && !bad, "alltoall %zu: %s, %d wrong", n, arbor_strerror(st), bad);
    snprintf(what, sizeof(what), "alltoall %zu", n);
    observe(t, l, what);

    for (size_t i = 0; i < n; i++) in[i] = val(rank, i, 5);
    int64_t ranksum = (int64_t)size * (size + 1) / 2 * 1000003;
    st = arbor_reduce(t, in, out, n, ARBOR_INT64, ARBOR_SUM, root);
    bad = 0;
    for (size_t i = 0; rank == root && i < n; i++)
        bad += out[i] != ranksum + (int64_t)size * ((int64_t)i * 7 + 5);
    CHECK(st == ARBOR_OK && !bad, "reduce %zu: %s, %d wrong", n, arbor_strerror(st), bad);
    snprintf(what, sizeof(what), "reduce %zu", n);
    observe(t, l, what);

    st = arbor_allreduce(t, in, out, n, ARBOR_INT64, ARBOR_SUM);
    bad = 0;
    for (size_t i = 0; i < n; i++) bad += out[i] != ranksum + (int64_t)size * ((int64_t)i * 7 + 5);
    CHECK(st == ARBOR_OK && !bad, "allreduce %zu: %s, %d wrong", n, arbor_strerror(st), bad);
    snprintf(what, sizeof(what), "allreduce %zu", n);
    observe(t, l, what);

    st = arbor_scan(t, in, out, n, ARBOR_INT64, ARBOR_SUM);
    int64_t upto = (int64_t)(rank + 1) * (rank + 2) / 2 * 1000003;
    bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += out[i] != upto + (int64_t)(rank + 1) * ((int64_t)i * 7 + 5);
    CHECK(st == ARBOR_OK && !bad, "scan %zu: %s, %d wrong", n, arbor_strerror(st), bad);
    snprintf(what, sizeof(what), "scan %zu", n);
    observe(t, l, what);

    for (size_t i = 0; i < n * (size_t)size; i++) in[i] = val(rank, i, 6);
    st = arbor_reduce_scatter(t, in, out, counts, ARBOR_INT64, ARBOR_SUM);
    bad = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = (size_t)rank * n + i;
        bad += out[i] != ranksum + (int64_t)size * ((int64_t)j * 7 + 6);
    }
    CHECK(st == ARBOR_OK && !bad, "reduce_scatter %zu: %s, %d wrong", n, arbor_strerror(st), bad);
    snprintf(what, sizeof(what), "reduce_scatter %zu", n);
    observe(t, l, what);

    free(in);
    free(out);
    free(counts);
}

/* Fills rank 0's heap with allocations on the world (rank 0 asks for its largest free block, the
 * others for nothing) until no channel block fits there: the smallest block is
 * 2 KiB + 1 x (64 + 1 KiB) bytes (coll/team.h). */
enum { MIN_BLOCK = 2048 + 64 + 1024, MAX_FILL = 64 };

static int exhaust(void)
{
    arbor_team_h u = ARBOR_TEAM_NULL;
    CHECK(arbor_team_split(ARBOR_TEAM_WORLD, 0, rank, &u) == ARBOR_OK, "split");
    arbor_mem_h fill[MAX_FILL];
    int nfill = 0;
    for (; nfill < MAX_FILL; nfill++) {
        size_t largest = 0;
        CHECK(arbor_mem_usage(NULL, NULL, &largest) == ARBOR_OK, "usage");
        uint64_t more = rank == 0 && largest >= MIN_BLOCK, any = 0;
        CHECK(arbor_allreduce(ARBOR_TEAM_WORLD, &more, &any, 1, ARBOR_UINT64, ARBOR_MAX) ==
                  ARBOR_OK,
              "allreduce");
        if (!any) break;
        arbor_status_t st =
            arbor_mem_alloc(ARBOR_TEAM_WORLD, rank == 0 ? largest : 0, &fill[nfill], NULL);
        CHECK(st == ARBOR_OK, "fill %d (%zu bytes): %s", nfill, largest, arbor_strerror(st));
        if (st != ARBOR_OK) break;
    }
    CHECK(nfill > 0 && nfill < MAX_FILL, "%d allocations to fill rank 0's heap", nfill);
    int64_t mine = rank + 1, *all = calloc((size_t)size, sizeof(int64_t));
    arbor_status_t st = arbor_gather(u, &mine, all, 1, ARBOR_INT64, 0);
    CHECK(st == ARBOR_ERR_NO_MEMORY, "gather into a full rank 0: %s", arbor_strerror(st));
    st = arbor_barrier(u);
    CHECK(st == ARBOR_ERR_TEAM, "the team is failed: barrier gives %s", arbor_strerror(st));
    CHECK(arbor_team_free(&u) == ARBOR_OK, "a failed team frees locally");
    for (int i = 0; i < nfill; i++) CHECK(arbor_mem_free(&fill[i]) == ARBOR_OK, "free %d", i);
    int64_t sum = 0;
    st = arbor_allreduce(ARBOR_TEAM_WORLD, &mine, &sum, 1, ARBOR_INT64, ARBOR_SUM);
    CHECK(st == ARBOR_OK && sum == (int64_t)size * (size + 1) / 2, "world afterwards: %s, %lld",
          arbor_strerror(st), (long long)sum);
    if (rank == 0)
        printf("exhaustion: rank 0 filled with %d allocations; the gather failed with "
               "ARBOR_ERR_NO_MEMORY on every rank; the world works\n",
               nfill);
    free(all);
    arbor_finalize();
    if (rank == 0 || failures) printf("rank %d: %d checks, %d failures\n", rank, checks, failures);
    return failures != 0;
}

int main(int argc, char **argv)
{
    if (arbor_init() != ARBOR_OK) return 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "exhaust") == 0) return exhaust();

    size_t b = 0;
    int c = 0;
    CHECK(arbor_team_landing_bytes(ARBOR_TEAM_WORLD, NULL, &c) == ARBOR_ERR_INVALID_ARG,
          "NULL bytes accepted");
    CHECK(arbor_team_landing_bytes(ARBOR_TEAM_WORLD, &b, NULL) == ARBOR_ERR_INVALID_ARG,
          "NULL channels accepted");
    CHECK(arbor_team_landing_bytes(ARBOR_TEAM_NULL, &b, &c) == ARBOR_ERR_TEAM,
          "the null team accepted");

    size_t world0 = 0;
    int world_ch = 0;
    CHECK(arbor_team_landing_bytes(ARBOR_TEAM_WORLD, &world0, &world_ch) == ARBOR_OK, "world");
    if (rank == 0)
        printf("world team of %d after init, rank 0: %d channels, %zu landing bytes\n", size,
               world_ch, world0);

    arbor_team_h t = ARBOR_TEAM_NULL;
    CHECK(arbor_team_split(ARBOR_TEAM_WORLD, 0, rank, &t) == ARBOR_OK, "split");
    landing_t l = {.links = ((size_t)size + 1) * 64}; /* and the line of verdict posts */
    observe(t, &l, "split");
    CHECK(l.channels == 0 && l.bytes == l.links, "a fresh team holds %d channels", l.channels);

    /* Binomial bcast from 0: one channel (the parent) on every other rank. */
    int64_t v = rank == 0 ? 42 : 0;
    arbor_status_t st = arbor_bcast(t, &v, sizeof(v), 0);
    CHECK(st == ARBOR_OK && v == 42, "bcast: %s, %lld", arbor_strerror(st), (long long)v);
    observe(t, &l, "binomial bcast");
    int after_bcast = l.channels;
    CHECK(after_bcast == (rank == 0 ? 0 : 1), "after a binomial bcast: %d channels", after_bcast);

    /* Pairwise alltoall: a channel from every other rank. */
    int64_t *in = malloc(sizeof(int64_t) * (size_t)size),
            *out = malloc(sizeof(int64_t) * (size_t)size);
    for (int r = 0; r < size; r++) in[r] = rank * 1000 + r;
    st = arbor_alltoall(t, in, out, 1, ARBOR_INT64);
    int bad = 0;
    for (int r = 0; r < size; r++) bad += out[r] != r * 1000 + rank;
    CHECK(st == ARBOR_OK && !bad, "alltoall: %s, %d wrong", arbor_strerror(st), bad);
    observe(t, &l, "pairwise alltoall");
    CHECK(l.channels == size - 1, "after a pairwise alltoall: %d channels", l.channels);
    CHECK(size < 3 || after_bcast < l.channels, "bcast %d channels, alltoall %d", after_bcast,
          l.channels);

    suite(t, 1, &l);
    suite(t, BIG, &l);
    CHECK(arbor_team_free(&t) == ARBOR_OK, "free");

    /* Free returns every byte: far more teams than the segment holds channels for. */
    int64_t *big_in = malloc(sizeof(int64_t) * BIG * (size_t)size);
    int64_t *big_out = malloc(sizeof(int64_t) * BIG * (size_t)size);
    for (int k = 0; k < TEAMS && failures == 0; k++) {
        arbor_team_h u = ARBOR_TEAM_NULL;
        st = arbor_team_split(ARBOR_TEAM_WORLD, 0, rank, &u);
        CHECK(st == ARBOR_OK, "team %d: split: %s", k, arbor_strerror(st));
        if (st != ARBOR_OK) break;
        for (size_t i = 0; i < BIG * (size_t)size; i++) big_in[i] = (int64_t)i * 3 + rank + k;
        st = arbor_alltoall(u, big_in, big_out, BIG, ARBOR_INT64);
        bad = 0;
        for (int r = 0; r < size; r++)
            for (size_t i = 0; i < BIG; i++)
                bad +=
                    big_out[(size_t)r * BIG + i] != (int64_t)((size_t)rank * BIG + i) * 3 + r + k;
        CHECK(st == ARBOR_OK && !bad, "team %d: alltoall: %s, %d wrong", k, arbor_strerror(st),
              bad);
        size_t ub = 0;
        int uc = 0;
        arbor_team_landing_bytes(u, &ub, &uc);
        CHECK(uc == size - 1, "team %d: %d channels", k, uc);
        if (rank == 0 && k == 0)
            printf("each of %d teams: %d channels, %zu landing bytes, freed\n", TEAMS, uc, ub);
        CHECK(arbor_team_free(&u) == ARBOR_OK, "team %d: free", k);
        if (k == 0) arbor_team_landing_bytes(ARBOR_TEAM_WORLD, &world0, &world_ch);
    }
    size_t world1 = 0;
    CHECK(arbor_team_landing_bytes(ARBOR_TEAM_WORLD, &world1, &world_ch) == ARBOR_OK &&
              world1 == world0,
          "world landing bytes %zu -> %zu", world0, world1);
    if (rank == 0)
        printf("world team at the end, rank 0: %d channels, %zu bytes\n", world_ch, world1);
    free(big_in);
    free(big_out);
    free(in);
    free(out);
    arbor_finalize();
    if (rank == 0 || failures) printf("rank %d: %d checks, %d failures\n", rank, checks, failures);
    return failures != 0;
}
