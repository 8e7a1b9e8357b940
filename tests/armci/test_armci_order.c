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
#include "../order_round.h"

#define ROWS    ORDER_ROWS
#define COLS    ORDER_COLS
#define MAXELEM 16

enum { F_CONTIG, F_STRIDED, F_VECTOR, F_FORMS };

static const int acc_types[] = {ARMCI_ACC_INT, ARMCI_ACC_LNG, ARMCI_ACC_FLT,
                                ARMCI_ACC_DBL, ARMCI_ACC_CPL, ARMCI_ACC_DCP};
static const char *const type_names[] = {"int", "long", "float", "double", "complex", "dcomplex"};
static const char *const form_names[] = {"contiguous", "strided", "vector"};

/* One operation on patch p of the remote array (rows of COLS elements) from or into the local
 * buffer buf laid out the same way. op: 0 put, 1 acc, 2 get. */
static int transfer(int op, int form, int t, void *scale, char *buf, char *remote,
                    const order_patch_t *p, int proc)
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
    static order_round_t rd;
    int bad_rounds = 0;
    for (int round = 0; round < rounds; round++) {
        order_plan(&rd, t, true, (uint8_t *)put_buf, (uint8_t **)acc_buf);
        CHECK(transfer(0, rand() % F_FORMS, t, NULL, put_buf, ptr[right], &rd.put, right) == 0,
              "%s put", type_names[t]);
        for (int k = 0; k < 3; k++) {
            const int a = rd.order[k];
            char scale[MAXELEM];
            order_set_elem(t, scale, rd.scale[a], false); /* a real scale, complex types too */
            CHECK(transfer(1, rand() % F_FORMS, t, scale, acc_buf[a], ptr[right], &rd.acc[a],
                           right) == 0,
                  "%s acc", type_names[t]);
        }
        memset(get_buf, 0xee, (size_t)bytes);
        const int gform = rand() % F_FORMS;
        CHECK(transfer(2, gform, t, NULL, get_buf, ptr[right], &rd.put, right) == 0, "%s get",
              type_names[t]);
        long w[4] = {0, 0, 0, 0};
        const int bad = order_count_wrong(&rd, t, (const uint8_t *)get_buf, w);
        if (bad && bad_rounds < 3)
            fprintf(stderr,
                    "rank %d: %s round %d: element (%ld,%ld) is %ld%+ldi, expected %ld%+ldi "
                    "(get %s)\n",
                    rank, type_names[t], round, w[0], w[1], w[2], w[3], rd.expect[w[0]][w[1]][0],
                    rd.expect[w[0]][w[1]][1], form_names[gform]);
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
