/*
 * Location order on arbor's own API (docs/ONESIDED.md, "Completion and ordering"): each rank
 * sends its right neighbour a put of a random sub-patch (contiguous rows, strided or vector,
 * blocking or implicit non-blocking), three scaled accumulates on overlapping parts of it
 * (random forms, blocking or implicit, random order), then a get of the sub-patch (random form),
 * with no fence anywhere, and checks that the get saw the put and all three accumulates. Every
 * accumulate type, on a heap allocation and on registered (malloc'd) memory, which every
 * transport reaches through its own RMA even where the heap is mapped. The get is blocking, or
 * non-blocking with a handle waited for. RMA_ORDER_ROUNDS overrides the rounds per type.
 */
#include <arbor.h>
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "launched_check.h"
#include "order_round.h"

#define ROWS   ORDER_ROWS
#define COLS   ORDER_COLS
#define NTYPES ORDER_NTYPES

static const arbor_dtype_t types[NTYPES] = {ARBOR_INT32,  ARBOR_INT64, ARBOR_FLOAT,
                                            ARBOR_DOUBLE, ARBOR_CPLX,  ARBOR_DBLCPLX};
static const char *const names[NTYPES] = {"int32", "int64", "float", "double", "cplx", "dblcplx"};

/* op 0 put, 1 accumulate, 2 get; form 0 contiguous rows, 1 strided, 2 vector. Puts and
 * accumulates are blocking or implicit non-blocking at random; a get is blocking or waits on a
 * handle. */
static arbor_status_t transfer(int op, int form, int t, const void *scale, uint8_t *buf,
                               uint8_t *remote, const order_patch_t *p, int proc)
{
    const size_t e = order_elem_size[t], row = COLS * e, bytes = (size_t)p->nc * e;
    const size_t off = (size_t)p->r0 * row + (size_t)p->c0 * e;
    uint8_t *loc = buf + off, *rem = remote + off;
    const bool nb = rand() % 2;
    arbor_request_h req = NULL, *rq = op == 2 ? (nb ? &req : NULL) : NULL;
    arbor_status_t st = ARBOR_OK;
    if (form == 0) {
        for (int r = 0; r < p->nr && st == ARBOR_OK; r++) {
            uint8_t *l = loc + (size_t)r * row, *m = rem + (size_t)r * row;
            if (op == 0)
                st = nb ? arbor_put_nb(proc, m, l, bytes, NULL) : arbor_put(proc, m, l, bytes);
            else if (op == 1)
                st = nb ? arbor_acc_nb(proc, m, l, (size_t)p->nc, types[t], ARBOR_SUM, scale, NULL)
                        : arbor_acc(proc, m, l, (size_t)p->nc, types[t], ARBOR_SUM, scale);
            else if (nb && (st = arbor_get_nb(proc, l, m, bytes, &req)) == ARBOR_OK)
                st = arbor_wait(&req);
            else if (!nb)
                st = arbor_get(proc, l, m, bytes);
        }
        return st;
    }
    if (form == 1) {
        ptrdiff_t stride[1] = {(ptrdiff_t)row};
        size_t count[2] = {bytes, (size_t)p->nr};
        if (op == 0)
            st = nb ? arbor_put_strided_nb(proc, rem, stride, loc, stride, count, 1, NULL)
                    : arbor_put_strided(proc, rem, stride, loc, stride, count, 1);
        else if (op == 1)
            st = nb ? arbor_acc_strided_nb(proc, rem, stride, loc, stride, count, 1, types[t],
                                           ARBOR_SUM, scale, NULL)
                    : arbor_acc_strided(proc, rem, stride, loc, stride, count, 1, types[t],
                                        ARBOR_SUM, scale);
        else
            st = rq ? arbor_get_strided_nb(proc, loc, stride, rem, stride, count, 1, rq)
                    : arbor_get_strided(proc, loc, stride, rem, stride, count, 1);
    } else {
        void *src[ROWS], *dst[ROWS];
        for (int r = 0; r < p->nr; r++) {
            uint8_t *l = loc + (size_t)r * row, *m = rem + (size_t)r * row;
            src[r] = op == 2 ? m : l;
            dst[r] = op == 2 ? l : m;
        }
        arbor_iov_t iov = {src, dst, (size_t)p->nr, bytes};
        if (op == 0)
            st = nb ? arbor_put_vector_nb(proc, &iov, 1, NULL) : arbor_put_vector(proc, &iov, 1);
        else if (op == 1)
            st = nb ? arbor_acc_vector_nb(proc, &iov, 1, types[t], ARBOR_SUM, scale, NULL)
                    : arbor_acc_vector(proc, &iov, 1, types[t], ARBOR_SUM, scale);
        else
            st = rq ? arbor_get_vector_nb(proc, &iov, 1, rq) : arbor_get_vector(proc, &iov, 1);
    }
    if (st == ARBOR_OK && rq) st = arbor_wait(rq);
    return st;
}

/* remote[r]: the neighbour's patch as addressed here. */
static void run(int t, int rounds, uint8_t *mine, uint8_t *remote, const char *where)
{
    const int right = (rank + 1) % size;
    const size_t e = order_elem_size[t], bytes = (size_t)ROWS * COLS * e;
    memset(mine, 0, bytes);
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "barrier");
    uint8_t *put = malloc(bytes), *acc[3], *got = malloc(bytes);
    for (int k = 0; k < 3; k++) acc[k] = malloc(bytes);
    static order_round_t rd;
    int bad_rounds = 0;
    for (int round = 0; round < rounds; round++) {
        order_plan(&rd, t, false, put, acc);
        CHECK(transfer(0, rand() % 3, t, NULL, put, remote, &rd.put, right) == ARBOR_OK, "%s put",
              names[t]);
        for (int k = 0; k < 3; k++) {
            const int a = rd.order[k];
            uint8_t scale[16];
            order_set_elem(t, scale, rd.scale[a], false);
            CHECK(transfer(1, rand() % 3, t, scale, acc[a], remote, &rd.acc[a], right) == ARBOR_OK,
                  "%s acc", names[t]);
        }
        memset(got, 0xee, bytes);
        CHECK(transfer(2, rand() % 3, t, NULL, got, remote, &rd.put, right) == ARBOR_OK, "%s get",
              names[t]);
        long w[4] = {0, 0, 0, 0};
        const int bad = order_count_wrong(&rd, t, got, w);
        if (bad && bad_rounds < 3)
            fprintf(stderr, "rank %d: %s %s round %d: (%ld,%ld) is %ld%+ldi, not %ld%+ldi\n", rank,
                    where, names[t], round, w[0], w[1], w[2], w[3], rd.expect[w[0]][w[1]][0],
                    rd.expect[w[0]][w[1]][1]);
        if (bad && bad_rounds < 3) { /* ordering, or an update lost? */
            arbor_quiet();
            memset(got, 0xee, bytes);
            transfer(2, 1, t, NULL, got, remote, &rd.put, right);
            const int still = order_count_wrong(&rd, t, got, w);
            fprintf(stderr, "rank %d: %s %s round %d: %d elements wrong, %d still after quiet\n",
                    rank, where, names[t], round, bad, still);
        }
        bad_rounds += bad != 0;
    }
    CHECK(bad_rounds == 0, "%s %s: %d of %d rounds missed an earlier operation's effect", where,
          names[t], bad_rounds, rounds);
    CHECK(arbor_quiet() == ARBOR_OK, "quiet");
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "barrier");
    free(put);
    free(got);
    for (int k = 0; k < 3; k++) free(acc[k]);
}

/* A malloc'd buffer registered here, the right neighbour's attached: its address there. */
static uint8_t *attach_right(arbor_reg_h reg, arbor_attach_h *att)
{
    size_t len = 0;
    CHECK(arbor_mem_pack(reg, NULL, &len) == ARBOR_OK, "pack size");
    uint64_t mine = len, most = 0;
    CHECK(arbor_allreduce(ARBOR_TEAM_WORLD, &mine, &most, 1, ARBOR_UINT64, ARBOR_MAX) == ARBOR_OK,
          "allreduce");
    const size_t rec = 8 + (size_t)most;
    uint8_t *out = calloc(1, rec), *all = calloc((size_t)size, rec);
    memcpy(out, &mine, 8);
    CHECK(arbor_mem_pack(reg, out + 8, &len) == ARBOR_OK, "pack");
    CHECK(arbor_allgather(ARBOR_TEAM_WORLD, out, all, rec, ARBOR_BYTE) == ARBOR_OK, "allgather");
    const int right = (rank + 1) % size;
    uint64_t l;
    memcpy(&l, all + (size_t)right * rec, 8);
    void *base = NULL;
    *att = NULL;
    if (right != rank) {
        CHECK(arbor_mem_attach(all + (size_t)right * rec + 8, (size_t)l, att) == ARBOR_OK,
              "attach");
        int owner;
        size_t n;
        CHECK(arbor_mem_attach_info(*att, &owner, &base, &n) == ARBOR_OK, "attach info");
    }
    free(out);
    free(all);
    return base;
}

int main(void)
{
    if (arbor_init() != ARBOR_OK) return 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    const char *env = getenv("RMA_ORDER_ROUNDS");
    const int rounds = env && atoi(env) > 0 ? atoi(env) : 150;
    srand(4242u + 131u * (unsigned)rank);
    const size_t bytes = (size_t)ROWS * COLS * 16;
    arbor_mem_h mem = NULL;
    void *local = NULL, *right = NULL;
    CHECK(arbor_mem_alloc(ARBOR_TEAM_WORLD, bytes, &mem, &local) == ARBOR_OK, "mem_alloc");
    CHECK(arbor_mem_addr(mem, (rank + 1) % size, &right, NULL) == ARBOR_OK, "mem_addr");
    void *raw = NULL;
    if (posix_memalign(&raw, 64, bytes)) return 1;
    arbor_reg_h reg = NULL;
    arbor_attach_h att = NULL;
    CHECK(arbor_mem_register(raw, bytes, 0, &reg) == ARBOR_OK, "register");
    uint8_t *reg_right = attach_right(reg, &att);
    if (!reg_right) reg_right = raw; /* one rank: its own registration */
    for (int t = 0; t < NTYPES; t++) {
        run(t, rounds, local, right, "heap");
        run(t, rounds / 2 + 1, raw, reg_right, "registered");
    }
    if (att) CHECK(arbor_mem_detach(&att) == ARBOR_OK, "detach");
    CHECK(arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK, "barrier");
    CHECK(arbor_mem_deregister(&reg) == ARBOR_OK, "deregister");
    CHECK(arbor_mem_free(&mem) == ARBOR_OK, "mem_free");
    free(raw);
    int tot[2] = {failures, checks}, sum[2] = {0, 0};
    arbor_allreduce(ARBOR_TEAM_WORLD, tot, sum, 2, ARBOR_INT32, ARBOR_SUM);
    if (rank == 0)
        printf("test_rma_order: %d ranks, %d rounds per type, %d checks, %d failures\n", size,
               rounds, sum[1], sum[0]);
    arbor_finalize();
    return sum[0] ? 1 : 0;
}
