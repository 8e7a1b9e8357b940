/*
 * ARBOR_CHECK=1: the last rank calls a collective that differs from the
 * others' in one argument (count, root, type, op, kind, sync flags, count arrays) or passes an
 * argument that only it gets wrong, or calls on another team of the same members (two splits
 * of the world). Every rank must get ARBOR_ERR_MISMATCH (the wrong one its own code where its
 * arguments were invalid), no receive buffer may change, and the next correct collective of
 * the team must give the right result (no message left behind); after a team mismatch both
 * teams are failed on every rank (ARBOR_ERR_TEAM) and free locally.
 * Run with ARBOR_CHECK=1 at P >= 2.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbor.h"
#include "launched_check.h"

enum { N = 16, MAXP = 64, SENTINEL = 0x5a };

static int64_t sb[N * MAXP], rb[N * MAXP];
static size_t counts[MAXP], counts2[MAXP], displs[MAXP], displs2[MAXP];
static arbor_team_h W = ARBOR_TEAM_WORLD, A, B; /* A, B: two splits of W, same members */
static arbor_op_t user_op;

static void sum64(void *in, void *inout, size_t len, arbor_dtype_t dtype)
{
    (void)dtype;
    for (size_t i = 0; i < len; i++) ((int64_t *)inout)[i] += ((const int64_t *)in)[i];
}

static arbor_status_t with_flags(uint64_t f)
{
    arbor_op_params_t p = {.field_mask = ARBOR_OP_PARAM_FLAGS, .flags = f};
    arbor_request_h r = NULL;
    arbor_status_t st = arbor_allreduce_nb(W, sb, rb, N, ARBOR_INT64, ARBOR_SUM, &p, &r);
    return st == ARBOR_OK ? arbor_wait(&r) : st;
}

/* Case i as the others call it (odd = 0) and as the odd rank calls it (odd = 1). */
static arbor_status_t call(int i, int odd)
{
    switch (i) {
    case 0:
        return arbor_allreduce(W, sb, rb, odd ? 10 * N : N, ARBOR_INT64, ARBOR_SUM);
    case 1:
        return arbor_bcast(W, rb, odd ? 64 : 8, 0);
    case 2:
        return arbor_bcast(W, rb, 8, odd ? 1 : 0);
    case 3:
        return arbor_reduce(W, sb, rb, N, ARBOR_INT64, ARBOR_SUM, odd ? 1 : 0);
    case 4:
        return arbor_allreduce(W, sb, rb, N, odd ? ARBOR_UINT64 : ARBOR_INT64, ARBOR_SUM);
    case 5:
        return arbor_allreduce(W, sb, rb, N, ARBOR_INT64, odd ? ARBOR_MAX : ARBOR_SUM);
    case 6:
        return arbor_allreduce(W, sb, rb, N, ARBOR_INT64, odd ? user_op : ARBOR_SUM);
    case 7:
        return odd ? arbor_bcast(W, rb, N * 8, 0)
                   : arbor_allreduce(W, sb, rb, N, ARBOR_INT64, ARBOR_SUM);
    case 8:
        return odd ? arbor_barrier(W) : arbor_allreduce(W, sb, rb, N, ARBOR_INT64, ARBOR_SUM);
    case 9:
        return with_flags(odd ? ARBOR_IN_ALLSYNC : 0);
    case 10:
        return arbor_scatter(W, sb, rb, odd ? 2 : 1, ARBOR_INT64, 0);
    case 11:
        return arbor_gather(W, sb, rb, 1, ARBOR_INT64, odd ? 1 : 0);
    case 12:
        return arbor_allgather(W, sb, rb, odd ? 3 : 2, ARBOR_INT64);
    case 13:
        return arbor_alltoall(W, sb, rb, 1, odd ? ARBOR_DOUBLE : ARBOR_INT64);
    case 14:
        return odd ? arbor_exscan(W, sb, rb, N, ARBOR_INT64, ARBOR_SUM)
                   : arbor_scan(W, sb, rb, N, ARBOR_INT64, ARBOR_SUM);
    case 15:
        return arbor_reduce_scatter(W, sb, rb, odd ? counts2 : counts, ARBOR_INT64, ARBOR_SUM);
    case 16:
        return arbor_allgatherv(W, sb, 1, rb, counts, odd ? displs2 : displs, ARBOR_INT64);
    case 17: /* in place on a non-root: only the odd rank's arguments are invalid */
        return arbor_reduce(W, odd ? ARBOR_IN_PLACE : sb, rb, N, ARBOR_INT64, ARBOR_SUM, 0);
    case 18: /* the root (the odd rank here) forgets its count array */
        return arbor_scatterv(W, sb, odd ? NULL : counts, displs, rb, 1, ARBOR_INT64, size - 1);
    case 19: /* same members, same call, another team */
        return arbor_allreduce(odd ? B : A, sb, rb, N, ARBOR_INT64, ARBOR_SUM);
    case 20:
        return arbor_gatherv(W, sb, 1, rb, counts, displs, ARBOR_INT64, odd ? 1 : 0);
    case 21:
        return arbor_reduce_scatter(W, sb, rb, counts, ARBOR_INT64, odd ? ARBOR_MIN : ARBOR_SUM);
    case 22:
        return arbor_scatterv(W, sb, counts, displs, rb, 1, ARBOR_INT64, odd ? 1 : 0);
    default:
        return ARBOR_OK;
    }
}

/* What the odd rank gets where its own arguments are invalid; everyone else gets MISMATCH. */
static arbor_status_t odd_code(int i)
{
    return i == 17 ? ARBOR_ERR_BUFFER : i == 18 ? ARBOR_ERR_COUNT : ARBOR_ERR_MISMATCH;
}

static const char *const what[] = {
    "count",
    "bcast bytes",
    "bcast root",
    "reduce root",
    "datatype",
    "op",
    "user op vs built-in",
    "kind allreduce/bcast",
    "kind barrier",
    "sync flags",
    "scatter count",
    "gather root",
    "allgather count",
    "alltoall datatype",
    "scan vs exscan",
    "reduce_scatter counts",
    "allgatherv displs",
    "reduce in place on non-root",
    "scatterv root without counts",
    "team (two splits, same members)",
    "gatherv root",
    "reduce_scatter op",
    "scatterv root",
};
enum { KINDS = sizeof(what) / sizeof(what[0]) };

static void healthy(int i)
{
    int64_t in[2] = {rank + 1, i}, out[2] = {0, 0};
    arbor_status_t st = arbor_allreduce(W, in, out, 2, ARBOR_INT64, ARBOR_SUM);
    CHECK(st == ARBOR_OK && out[0] == (int64_t)size * (size + 1) / 2 && out[1] == (int64_t)i * size,
          "allreduce after '%s': %s, got %lld %lld", what[i], arbor_strerror(st), (long long)out[0],
          (long long)out[1]);
}

int main(void)
{
    if (arbor_init() != ARBOR_OK) return 1;
    arbor_team_rank(W, &rank);
    arbor_team_size(W, &size);
    const char *chk = getenv("ARBOR_CHECK");
    if (size < 2 || size > MAXP || !chk || (chk[0] != '1' && chk[0] != 'y')) {
        if (rank == 0) printf("mismatch: needs 2..%d ranks and ARBOR_CHECK=1: skipped\n", MAXP);
        arbor_finalize();
        return 77;
    }
    for (int r = 0; r < MAXP; r++) {
        counts[r] = 1, counts2[r] = r == 0 ? 2 : 1;
        displs[r] = (size_t)r, displs2[r] = (size_t)(size - 1 - r);
    }
    for (int i = 0; i < N * MAXP; i++) sb[i] = i;
    CHECK(arbor_op_create(sum64, 1, &user_op) == ARBOR_OK, "op create");
    CHECK(arbor_team_split(W, 0, rank, &A) == ARBOR_OK, "split A");
    CHECK(arbor_team_split(W, 0, rank, &B) == ARBOR_OK, "split B");

    int odd = rank == size - 1, detected = 0;
    for (int i = 0; i < KINDS; i++) {
        memset(rb, SENTINEL, sizeof(rb));
        arbor_status_t st = call(i, odd), want = odd ? odd_code(i) : ARBOR_ERR_MISMATCH;
        CHECK(st == want, "'%s': %s, want %s", what[i], arbor_strerror(st), arbor_strerror(want));
        detected += st == want;
        size_t touched = 0;
        for (size_t b = 0; b < sizeof(rb); b++) touched += ((uint8_t *)rb)[b] != SENTINEL;
        CHECK(touched == 0, "'%s': %zu bytes of the receive buffer changed", what[i], touched);
        healthy(i);
    }
    /* The same calls, matched, still work with the check on. */
    /* The crossed teams are failed everywhere, and free without their members. */
    arbor_status_t sa = arbor_barrier(A), sb2 = arbor_barrier(B);
    CHECK(sa == ARBOR_ERR_TEAM && sb2 == ARBOR_ERR_TEAM, "teams after the team mismatch: %s, %s",
          arbor_strerror(sa), arbor_strerror(sb2));
    CHECK(arbor_team_free(&A) == ARBOR_OK && arbor_team_free(&B) == ARBOR_OK, "free A, B");
    for (int i = 0; i < KINDS; i++) {
        if (i == 17 || i == 18 || i == 19) continue;
        arbor_status_t st = call(i, 0);
        CHECK(st == ARBOR_OK, "matched '%s': %s", what[i], arbor_strerror(st));
    }
    CHECK(arbor_op_free(user_op) == ARBOR_OK, "op free");
    CHECK(arbor_finalize() == ARBOR_OK, "finalize");
    if (rank == 0)
        printf("mismatch: %d of %d mismatch kinds detected at P=%d\n", detected, KINDS, size);
    printf("mismatch rank %d: %d checks, %d failures\n", rank, checks, failures);
    return failures ? 1 : 0;
}
