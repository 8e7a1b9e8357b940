/*
 * Waits and tests on sets of words (arbor_wait_set / arbor_test_set), signal fetch, and the
 * team layouts (strided, explicit list, 2-D, translation) with a context on a strided team.
 * Local checks first (every kind, vector and scalar values, the mask, signed and unsigned 32-
 * and 64-bit words), then words written by peers: rank 0 waits for all of them, then collects
 * them one by one with ANY and SOME while the peers set them in turns. Every result checked.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbor.h"
#include "launched_check.h"

#define OK(_call)                                                                                  \
    do {                                                                                           \
        arbor_status_t s_ = (_call);                                                               \
        CHECK(s_ == ARBOR_OK, "%s: %s", #_call, arbor_strerror(s_));                               \
    } while (0)

static uint8_t *heap; /* this rank's address of the allocation */

/* The address on world rank r of local address p of the allocation. */
static void *at(arbor_mem_h m, int r, void *p)
{
    uint8_t *base = heap;
    void *rb = NULL;
    arbor_mem_addr(m, r, &rb, NULL);
    return (uint8_t *)rb + ((uint8_t *)p - (uint8_t *)base);
}

static void local_checks(void)
{
    size_t idx[8], cnt = 99;
    /* 32-bit: -1 and 0xffffffff are the same bits, compared as the type says. */
    int32_t *s32 = (int32_t *)heap;
    s32[0] = -1, s32[1] = 0, s32[2] = 5, s32[3] = -7;
    int32_t zero32 = 0;
    OK(arbor_test_set(s32, 4, ARBOR_INT32, NULL, ARBOR_CMP_LT, &zero32, ARBOR_WAIT_SOME, idx,
                      &cnt));
    CHECK(cnt == 2 && idx[0] == 0 && idx[1] == 3, "int32 LT 0 some: %zu", cnt);
    CHECK(arbor_test_set(s32, 4, ARBOR_UINT32, NULL, ARBOR_CMP_LT, &zero32, ARBOR_WAIT_SOME, idx,
                         &cnt) == ARBOR_INPROGRESS &&
              cnt == 0,
          "uint32 LT 0: nothing");
    OK(arbor_test_set(s32, 4, ARBOR_UINT32, NULL, ARBOR_CMP_GE, &zero32, ARBOR_WAIT_ALL, NULL,
                      &cnt));
    CHECK(cnt == 4, "uint32 GE 0 all: %zu", cnt);
    CHECK(arbor_test_set(s32, 4, ARBOR_INT32, NULL, ARBOR_CMP_GE, &zero32, ARBOR_WAIT_ALL, NULL,
                         &cnt) == ARBOR_INPROGRESS,
          "int32 GE 0 all: not yet");
    int mask[4] = {1, 0, 0, 1}; /* leave out the negative ones */
    OK(arbor_test_set(s32, 4, ARBOR_INT32, mask, ARBOR_CMP_GE, &zero32, ARBOR_WAIT_ALL, NULL,
                      &cnt));
    CHECK(cnt == 2, "masked all: %zu", cnt);
    OK(arbor_test_set(s32, 4, ARBOR_INT32, mask, ARBOR_CMP_GT, &zero32, ARBOR_WAIT_ANY, idx, &cnt));
    CHECK(cnt == 1 && idx[0] == 2, "masked any: %zu %zu", cnt, idx[0]);
    int32_t vec32[4] = {-1, 1, 5, -8};
    OK(arbor_test_set(s32, 4, ARBOR_INT32, NULL, ARBOR_CMP_EQ, vec32,
                      ARBOR_WAIT_SOME | ARBOR_WAIT_VECTOR, idx, &cnt));
    CHECK(cnt == 2 && idx[0] == 0 && idx[1] == 2, "vector eq some: %zu", cnt);
    OK(arbor_test_set(s32, 4, ARBOR_INT32, NULL, ARBOR_CMP_GE, vec32,
                      ARBOR_WAIT_ALL | ARBOR_WAIT_VECTOR, NULL, &cnt) == ARBOR_INPROGRESS
           ? ARBOR_OK
           : ARBOR_ERR_INVALID_ARG); /* s32[1] = 0 < 1 */
    /* 16-bit. */
    int16_t *s16 = (int16_t *)(heap + 32);
    s16[0] = -2, s16[1] = 7, s16[2] = 0;
    int16_t zero16 = 0;
    OK(arbor_test_set(s16, 3, ARBOR_INT16, NULL, ARBOR_CMP_LT, &zero16, ARBOR_WAIT_SOME, idx,
                      &cnt));
    CHECK(cnt == 1 && idx[0] == 0, "int16 LT 0: %zu", cnt);
    OK(arbor_test_set(s16, 3, ARBOR_USHORT, NULL, ARBOR_CMP_GT, &zero16, ARBOR_WAIT_SOME, idx,
                      &cnt));
    CHECK(cnt == 2 && idx[0] == 0 && idx[1] == 1, "ushort GT 0: %zu", cnt);
    /* 64-bit. */
    int64_t *s64 = (int64_t *)(heap + 64);
    s64[0] = INT64_MIN, s64[1] = 3, s64[2] = INT64_MAX;
    int64_t three = 3;
    OK(arbor_test_set(s64, 3, ARBOR_INT64, NULL, ARBOR_CMP_LE, &three, ARBOR_WAIT_SOME, idx, &cnt));
    CHECK(cnt == 2 && idx[0] == 0 && idx[1] == 1, "int64 LE 3: %zu", cnt);
    OK(arbor_test_set(s64, 3, ARBOR_UINT64, NULL, ARBOR_CMP_GT, &three, ARBOR_WAIT_SOME, idx,
                      &cnt));
    CHECK(cnt == 2 && idx[0] == 0 && idx[1] == 2, "uint64 GT 3: %zu", cnt);
    OK(arbor_test_set(s64, 3, ARBOR_LONG, NULL, ARBOR_CMP_NE, &three, ARBOR_WAIT_ANY, idx, &cnt));
    CHECK(cnt == 1 && idx[0] == 0, "long NE any");
    OK(arbor_wait_set(s64, 3, ARBOR_INT64, NULL, ARBOR_CMP_NE, &three, ARBOR_WAIT_ANY, idx, &cnt));
    CHECK(cnt == 1 && idx[0] == 0, "wait any (already true)");
    /* Empty sets. */
    int all_out[3] = {1, 1, 1};
    OK(arbor_wait_set(s64, 3, ARBOR_INT64, all_out, ARBOR_CMP_EQ, &three, ARBOR_WAIT_SOME, idx,
                      &cnt));
    CHECK(cnt == 0, "all masked: count 0");
    OK(arbor_wait_set(NULL, 0, ARBOR_INT64, NULL, ARBOR_CMP_EQ, &three, ARBOR_WAIT_ALL, NULL,
                      &cnt));
    CHECK(cnt == 0, "n 0");
    /* Errors. */
    int32_t onstack[2] = {0, 0};
    CHECK(arbor_test_set(s64, 3, ARBOR_FLOAT, NULL, ARBOR_CMP_EQ, &three, ARBOR_WAIT_ALL, NULL,
                         NULL) == ARBOR_ERR_DATATYPE,
          "float");
    CHECK(arbor_test_set(s64, 3, ARBOR_INT64, NULL, ARBOR_CMP_EQ, &three, 7, idx, NULL) ==
              ARBOR_ERR_INVALID_ARG,
          "bad how");
    CHECK(arbor_test_set(s64, 3, ARBOR_INT64, NULL, ARBOR_CMP_EQ, &three, ARBOR_WAIT_ANY, NULL,
                         NULL) == ARBOR_ERR_INVALID_ARG,
          "NULL indices");
    CHECK(arbor_test_set(onstack, 2, ARBOR_INT32, NULL, ARBOR_CMP_EQ, &zero32, ARBOR_WAIT_ALL, NULL,
                         NULL) == ARBOR_ERR_ADDRESS,
          "not in the heap");
    CHECK(arbor_test_set(heap + 4, 2, ARBOR_INT64, NULL, ARBOR_CMP_EQ, &three, ARBOR_WAIT_ALL, NULL,
                         NULL) == ARBOR_ERR_ALIGNMENT,
          "misaligned");
    CHECK(arbor_test_set(s64, 3, ARBOR_INT64, NULL, ARBOR_CMP_EQ, NULL, ARBOR_WAIT_ALL, NULL,
                         NULL) == ARBOR_ERR_BUFFER,
          "NULL values");
    memset(heap, 0, 128);
}

static void remote_checks(arbor_mem_h m, int64_t *w)
{
    /* w[0..size): set to 1 by each rank; w[size..2 size): set to 2 in turns. */
    int64_t one = 1, two = 2;
    int64_t *w0 = at(m, 0, w);
    OK(arbor_put(0, &w0[rank], &one, sizeof(one)));
    OK(arbor_quiet());
    size_t idx[64], cnt = 0;
    if (rank == 0) {
        OK(arbor_wait_set(w, (size_t)size, ARBOR_INT64, NULL, ARBOR_CMP_EQ, &one, ARBOR_WAIT_ALL,
                          NULL, &cnt));
        CHECK(cnt == (size_t)size, "all arrived: %zu", cnt);
    }
    /* In turns: rank r sets its word after the barrier r. Rank 0 collects with ANY then SOME,
     * masking what it has seen; a word seen twice or never is an error. */
    int *mask = calloc((size_t)size, sizeof(int)), seen = 0;
    for (int turn = 1; turn < size; turn++) {
        if (rank == turn) {
            OK(arbor_put(0, &w0[size + rank], &two, sizeof(two)));
            OK(arbor_quiet());
        }
        if (rank == 0) {
            unsigned how = turn % 2 ? ARBOR_WAIT_ANY : ARBOR_WAIT_SOME;
            mask[0] = 1;
            OK(arbor_wait_set(w + size, (size_t)size, ARBOR_INT64, mask, ARBOR_CMP_EQ, &two, how,
                              idx, &cnt));
            for (size_t i = 0; i < cnt; i++) {
                CHECK(idx[i] == (size_t)turn && !mask[idx[i]], "turn %d: index %zu", turn, idx[i]);
                mask[idx[i]] = 1;
                seen++;
            }
        }
        OK(arbor_barrier(ARBOR_TEAM_WORLD));
    }
    if (rank == 0) CHECK(seen == size - 1, "collected %d of %d", seen, size - 1);
    free(mask);
    /* Signal fetch: every rank adds 1 to rank 0's signal with a put. */
    uint64_t *sig = (uint64_t *)&w[2 * size], got = 99, data = 5;
    OK(arbor_signal_fetch(sig, &got));
    CHECK(got == 0, "signal before: %llu", (unsigned long long)got);
    OK(arbor_barrier(ARBOR_TEAM_WORLD));
    uint64_t *sig0 = at(m, 0, sig);
    OK(arbor_put_signal(0, &w0[rank], &data, sizeof(data), sig0, 1, ARBOR_SIGNAL_ADD));
    OK(arbor_quiet());
    if (rank == 0) {
        OK(arbor_wait_until(sig, ARBOR_CMP_EQ, (uint64_t)size, NULL));
        OK(arbor_signal_fetch(sig, &got));
        CHECK(got == (uint64_t)size, "signal fetched %llu", (unsigned long long)got);
    }
    CHECK(arbor_signal_fetch(sig, NULL) == ARBOR_ERR_INVALID_ARG, "NULL value_p");
    CHECK(arbor_signal_fetch(&data, &got) == ARBOR_ERR_ADDRESS, "signal not in the heap");
    OK(arbor_barrier(ARBOR_TEAM_WORLD));
}

static void team_checks(arbor_mem_h m, int64_t *w)
{
    int tr = -2, ts = -2, tw = -2;
    /* Strided: the even ranks, from the last even one down (negative stride). */
    int nev = (size + 1) / 2, lastev = 2 * (nev - 1);
    arbor_team_h ev;
    OK(arbor_team_split_strided(ARBOR_TEAM_WORLD, lastev, -2, nev, &ev));
    if (rank % 2 == 0) {
        CHECK(ev != ARBOR_TEAM_NULL, "even rank has a team");
        OK(arbor_team_rank(ev, &tr));
        OK(arbor_team_size(ev, &ts));
        CHECK(tr == (lastev - rank) / 2 && ts == nev, "strided rank %d size %d", tr, ts);
        OK(arbor_team_world_rank(ev, 0, &tw));
        CHECK(tw == lastev, "strided member 0 is world %d", tw);
        OK(arbor_team_translate(ARBOR_TEAM_WORLD, rank, ev, &tr));
        CHECK(tr == (lastev - rank) / 2, "translate world -> strided %d", tr);
        /* A context on it: put this rank's world rank into w[rank] of team rank 0. */
        arbor_ctx_h ctx;
        OK(arbor_ctx_create(ev, ARBOR_CTX_PRIVATE, &ctx));
        int64_t v = 100 + rank;
        OK(arbor_ctx_put_nbi(ctx, 0, at(m, lastev, &w[rank]), &v, sizeof(v)));
        OK(arbor_ctx_quiet(ctx));
        OK(arbor_ctx_destroy(&ctx));
    } else
        CHECK(ev == ARBOR_TEAM_NULL, "odd rank: no team");
    OK(arbor_barrier(ARBOR_TEAM_WORLD));
    if (rank == lastev)
        for (int r = 0; r < size; r += 2)
            CHECK(w[r] == 100 + r, "context on the strided team: w[%d] = %lld", r, (long long)w[r]);
    if (rank % 2 == 0) {
        OK(arbor_team_translate(ev, 0, ARBOR_TEAM_WORLD, &tr));
        CHECK(tr == lastev, "translate strided -> world %d", tr);
        OK(arbor_team_free(&ev));
    }
    /* An explicit list: every rank in reverse order but rank 0 left out. */
    int *list = malloc(sizeof(int) * (size_t)size), n = 0;
    for (int r = size - 1; r >= 1; r--) list[n++] = r;
    arbor_team_h lt = ARBOR_TEAM_WORLD;
    if (n > 0) {
        OK(arbor_team_from_ranks(ARBOR_TEAM_WORLD, n, list, &lt));
        if (rank == 0)
            CHECK(lt == ARBOR_TEAM_NULL, "rank 0 left out");
        else {
            OK(arbor_team_rank(lt, &tr));
            CHECK(tr == size - 1 - rank, "list rank %d", tr);
            OK(arbor_team_translate(lt, 0, ARBOR_TEAM_WORLD, &tw));
            CHECK(tw == size - 1, "list member 0 = world %d", tw);
            OK(arbor_team_free(&lt));
        }
    }
    /* Errors (the same on every rank, so nobody waits). */
    list[0] = 0;
    if (size > 1) list[1] = 0;
    CHECK(arbor_team_from_ranks(ARBOR_TEAM_WORLD, size > 1 ? 2 : 1, list, &lt) ==
              (size > 1 ? ARBOR_ERR_RANK : ARBOR_OK),
          "repeated rank");
    if (size == 1) OK(arbor_team_free(&lt));
    CHECK(arbor_team_split_strided(ARBOR_TEAM_WORLD, 0, 1, 0, &lt) == ARBOR_ERR_COUNT, "size 0");
    CHECK(arbor_team_split_strided(ARBOR_TEAM_WORLD, 0, 1, size + 1, &lt) == ARBOR_ERR_RANK,
          "past the end");
    CHECK(arbor_team_split_2d(ARBOR_TEAM_WORLD, 0, &lt, NULL) == ARBOR_ERR_COUNT, "xrange 0");
    free(list);
    /* 2-D: rows of 2. */
    arbor_team_h xt, yt;
    OK(arbor_team_split_2d(ARBOR_TEAM_WORLD, 2, &xt, &yt));
    int xs = 0, ys = 0, xr = -1, yr = -1;
    OK(arbor_team_size(xt, &xs));
    OK(arbor_team_size(yt, &ys));
    OK(arbor_team_rank(xt, &xr));
    OK(arbor_team_rank(yt, &yr));
    int x = size < 2 ? size : 2;
    int rows = (size + x - 1) / x;
    CHECK(xr == rank % x && yr == rank / x, "2-D ranks %d %d", xr, yr);
    CHECK(xs == (rank / x < rows - 1 ? x : size - (rows - 1) * x), "row size %d", xs);
    CHECK(ys == (size - rank % x + x - 1) / x, "column size %d", ys);
    /* The member of my row in my position's column... is me. */
    OK(arbor_team_translate(xt, xr, yt, &tr));
    CHECK(tr == yr, "row -> column translation %d", tr);
    OK(arbor_team_translate(xt, (xr + 1) % xs, yt, &tr));
    CHECK(xs == 1 ? tr == yr : tr == -1, "a row neighbour is not in my column: %d", tr);
    OK(arbor_team_free(&xt));
    OK(arbor_team_free(&yt));
}

int main(void)
{
    if (arbor_init() != ARBOR_OK) return 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    arbor_mem_h m;
    OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, 128 + (2 * (size_t)size + 1) * 8, &m, (void **)&heap));
    local_checks();
    OK(arbor_barrier(ARBOR_TEAM_WORLD));
    remote_checks(m, (int64_t *)(heap + 128));
    memset(heap, 0, 128 + (2 * (size_t)size + 1) * 8);
    OK(arbor_barrier(ARBOR_TEAM_WORLD));
    team_checks(m, (int64_t *)(heap + 128));
    OK(arbor_barrier(ARBOR_TEAM_WORLD));
    OK(arbor_mem_free(&m));
    int all = 0;
    arbor_allreduce(ARBOR_TEAM_WORLD, &failures, &all, 1, ARBOR_INT32, ARBOR_SUM);
    if (rank == 0)
        printf("test_rma_sets: %d ranks, %d checks on rank 0, %d failures in all\n", size, checks,
               all);
    arbor_finalize();
    return all ? 1 : 0;
}
