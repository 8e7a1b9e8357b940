/*
 * ARMCI location consistency: a process's operations to one remote location are seen in the
 * order it issued them, with no fence between them. For every accumulate type, each rank zeroes
 * its patch, then for many rounds sends its right neighbour a put of a random sub-patch in a
 * random form (contiguous rows, strided, vector), three scaled accumulates on overlapping parts
 * of it (random forms, random order), then a blocking get of the sub-patch (random form), and
 * checks that the get saw the put and all three accumulates. Written against armci.h only,
 * linked against libarmci_arbor and against ARMCI-MPI (which proves the test).
 * ARMCI_ORDER_ROUNDS overrides the number of rounds per type.
 */
#include <armci.h>
#include <complex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../launched_check.h"
#include "../order_elem.h"

#define ROWS    12
#define COLS    24 /* elements per row of the patch */
#define MAXELEM 16

enum { F_CONTIG, F_STRIDED, F_VECTOR, F_FORMS };

static const int acc_types[] = {ARMCI_ACC_INT, ARMCI_ACC_LNG, ARMCI_ACC_FLT,
                                ARMCI_ACC_DBL, ARMCI_ACC_CPL, ARMCI_ACC_DCP};
static const char *const type_names[] = {"int", "long", "float", "double", "complex", "dcomplex"};
static const char *const form_names[] = {"contiguous", "strided", "vector"};

struct patch {
    int r0, c0, nr, nc; /* first row and column, rows, columns */
};

static struct patch random_patch(const struct patch *inside)
{
    struct patch p;
    p.nr = 1 + rand() % inside->nr;
    p.nc = 1 + rand() % inside->nc;
    p.r0 = inside->r0 + rand() % (inside->nr - p.nr + 1);
    p.c0 = inside->c0 + rand() % (inside->nc - p.nc + 1);
    /* A full-width patch is one contiguous block: the single-call contiguous form. */
    if (rand() % 4 == 0 && inside->c0 == 0 && inside->nc == COLS) {
        p.c0 = 0;
        p.nc = COLS;
    }
    return p;
}

/* One operation on patch p of the remote array (rows of COLS elements) from or into the local
 * buffer buf laid out the same way. op: 0 put, 1 acc, 2 get. */
static int transfer(int op, int form, int t, void *scale, char *buf, char *remote,
                    const struct patch *p, int proc)
{
    const int es = (int)order_elem_size[t];
    const int row = COLS * es;
    const size_t off = (size_t)p->r0 * (size_t)row + (size_t)p->c0 * (size_t)es;
    char *loc = buf + off, *rem = remote + off;
    const int bytes = p->nc * es;
    int rc = 0;
    if (form == F_CONTIG) {
        if (p->nc == COLS) { /* whole rows: one call */
            const int all = p->nr * row;
            if (op == 0) return ARMCI_Put(loc, rem, all, proc);
            if (op == 1) return ARMCI_Acc(acc_types[t], scale, loc, rem, all, proc);
            return ARMCI_Get(rem, loc, all, proc);
        }
        for (int r = 0; r < p->nr && rc == 0; r++) {
            char *l = loc + (size_t)r * (size_t)row, *m = rem + (size_t)r * (size_t)row;
            if (op == 0)
                rc = ARMCI_Put(l, m, bytes, proc);
            else if (op == 1)
                rc = ARMCI_Acc(acc_types[t], scale, l, m, bytes, proc);
            else
                rc = ARMCI_Get(m, l, bytes, proc);
        }
        return rc;
    }
    if (form == F_STRIDED) {
        int stride[1] = {row}, count[2] = {bytes, p->nr};
        if (op == 0) return ARMCI_PutS(loc, stride, rem, stride, count, 1, proc);
        if (op == 1)
            return ARMCI_AccS(acc_types[t], scale, loc, stride, rem, stride, count, 1, proc);
        return ARMCI_GetS(rem, stride, loc, stride, count, 1, proc);
    }
    void *src[ROWS], *dst[ROWS];
    for (int r = 0; r < p->nr; r++) {
        char *l = loc + (size_t)r * (size_t)row, *m = rem + (size_t)r * (size_t)row;
        src[r] = op == 2 ? m : l;
        dst[r] = op == 2 ? l : m;
    }
    armci_giov_t iov = {
        .src_ptr_array = src, .dst_ptr_array = dst, .bytes = bytes, .ptr_array_len = p->nr};
    if (op == 0) return ARMCI_PutV(&iov, 1, proc);
    if (op == 1) return ARMCI_AccV(acc_types[t], scale, &iov, 1, proc);
    return ARMCI_GetV(&iov, 1, proc);
}

static int in_patch(const struct patch *p, int r, int c)
{
    return r >= p->r0 && r < p->r0 + p->nr && c >= p->c0 && c < p->c0 + p->nc;
}

static void run_type(int t, int rounds)
{
    const int es = (int)order_elem_size[t];
    const armci_size_t bytes = (armci_size_t)ROWS * COLS * es;
    void **ptr = malloc((size_t)size * sizeof *ptr);
    CHECK(ARMCI_Malloc(ptr, bytes) == 0, "ARMCI_Malloc");
    ARMCI_Access_begin(ptr[rank]);
    memset(ptr[rank], 0, (size_t)bytes);
    ARMCI_Access_end(ptr[rank]);
    ARMCI_Barrier();

    const int right = (rank + 1) % size;
    char *put_buf = malloc((size_t)bytes), *acc_buf[3], *get_buf = malloc((size_t)bytes);
    for (int k = 0; k < 3; k++) acc_buf[k] = malloc((size_t)bytes);
    long expect[ROWS][COLS][2];
    int bad_rounds = 0;
    const struct patch whole = {0, 0, ROWS, COLS};
    for (int round = 0; round < rounds; round++) {
        struct patch pp = random_patch(&whole), ap[3];
        long base = rand() % 50, s[3];
        int order[3] = {0, 1, 2};
        for (int k = 0; k < 3; k++) {
            ap[k] = random_patch(&pp);
            s[k] = 1 + rand() % 3;
            int j = rand() % (k + 1), x = order[k];
            order[k] = order[j];
            order[j] = x;
        }
        for (int r = 0; r < ROWS; r++)
            for (int c = 0; c < COLS; c++) {
                const size_t i = (size_t)(r * COLS + c) * (size_t)es;
                order_set_elem(t, put_buf + i, base + r + c, true);
                order_get_elem(t, put_buf + i, expect[r][c]);
                for (int k = 0; k < 3; k++) {
                    order_set_elem(t, acc_buf[k] + i, (r * 7 + c + k) % 5, true);
                    long a[2];
                    order_get_elem(t, acc_buf[k] + i, a);
                    if (!in_patch(&ap[k], r, c)) continue;
                    expect[r][c][0] += s[k] * a[0];
                    expect[r][c][1] += s[k] * a[1];
                }
            }
        CHECK(transfer(0, rand() % F_FORMS, t, NULL, put_buf, ptr[right], &pp, right) == 0,
              "%s put", type_names[t]);
        for (int k = 0; k < 3; k++) {
            const int a = order[k];
            char scale[MAXELEM];
            order_set_elem(t, scale, s[a], false); /* a real scale, complex types too */
            CHECK(transfer(1, rand() % F_FORMS, t, scale, acc_buf[a], ptr[right], &ap[a], right) ==
                      0,
                  "%s acc", type_names[t]);
        }
        memset(get_buf, 0xee, (size_t)bytes);
        const int gform = rand() % F_FORMS;
        CHECK(transfer(2, gform, t, NULL, get_buf, ptr[right], &pp, right) == 0, "%s get",
              type_names[t]);
        int bad = 0;
        for (int r = pp.r0; r < pp.r0 + pp.nr; r++)
            for (int c = pp.c0; c < pp.c0 + pp.nc; c++) {
                long g[2];
                order_get_elem(t, get_buf + (size_t)(r * COLS + c) * (size_t)es, g);
                if (g[0] == expect[r][c][0] && g[1] == expect[r][c][1]) continue;
                if (bad++ == 0 && bad_rounds < 3)
                    fprintf(stderr,
                            "rank %d: %s round %d: element (%d,%d) is %ld%+ldi, expected "
                            "%ld%+ldi (get %s)\n",
                            rank, type_names[t], round, r, c, g[0], g[1], expect[r][c][0],
                            expect[r][c][1], form_names[gform]);
            }
        bad_rounds += bad != 0;
    }
    CHECK(bad_rounds == 0, "%s: %d of %d rounds saw an earlier operation's effect missing",
          type_names[t], bad_rounds, rounds);
    ARMCI_Barrier();
    CHECK(ARMCI_Free(ptr[rank]) == 0, "ARMCI_Free");
    free(ptr);
    free(put_buf);
    free(get_buf);
    for (int k = 0; k < 3; k++) free(acc_buf[k]);
}

int main(int argc, char **argv)
{
#ifdef ARMCI_TEST_WITH_MPI
    MPI_Init(&argc, &argv);
#endif
    if (ARMCI_Init_args(&argc, &argv) != 0) {
        fprintf(stderr, "ARMCI_Init failed\n");
        return 1;
    }
    rank = armci_msg_me();
    size = armci_msg_nproc();
    const char *env = getenv("ARMCI_ORDER_ROUNDS");
    const int rounds = env ? atoi(env) : 200;
    srand(12345u + 977u * (unsigned)rank);
    for (int t = 0; t < 6; t++) run_type(t, rounds > 0 ? rounds : 1);
    int totals[2] = {failures, checks};
    armci_msg_igop(totals, 2, "+");
    if (rank == 0)
        printf("test_armci_order: %d ranks, %d rounds per type, %d checks, %d failures\n", size,
               rounds, totals[1], totals[0]);
    ARMCI_Finalize();
#ifdef ARMCI_TEST_WITH_MPI
    MPI_Finalize();
#endif
    return totals[0] ? 1 : 0;
}
