/* arbor-bench's one-sided ops: window layouts, data patterns, the timed calls and the checks. */
#include "bench/rma_ops.h"

#include <stdlib.h>
#include <string.h>

enum { PUT, GET, ACC, FETCH_ADD, CSWAP, STRIDED_GET, STRIDED_PUT, VECTOR_GET };
const char *const bench_rma_names[] = {"put",   "get",         "acc",         "fetch_add",
                                       "cswap", "strided_get", "strided_put", "vector_get"};
const int bench_rma_nops = 8;
int bench_rma_registered;

#define POISON 0xEE

/* Byte i of the data seeded by @p seed; bench/mpi_rma.c uses the same. Never 0 or POISON. */
static unsigned char pattern(int seed, size_t i)
{
    return (unsigned char)(1 + ((size_t)seed * 131 + i) % 200);
}

static double acc_value(size_t i)
{
    return (double)(1 + i % 7);
}

static size_t page_round(size_t n)
{
    return (n + BENCH_RMA_ALIGN - 1) / BENCH_RMA_ALIGN * BENCH_RMA_ALIGN;
}

/* Bytes from p to the next BENCH_RMA_ALIGN boundary (a remote address is an integer here). */
static size_t pad(const void *p)
{
    return (BENCH_RMA_ALIGN - (uintptr_t)p % BENCH_RMA_ALIGN) % BENCH_RMA_ALIGN;
}

int bench_rma_size_free(int op)
{
    return op == FETCH_ADD || op == CSWAP;
}

int bench_rma_target(const bench_rma_point_t *p, int it)
{
    return p->size > 1 ? 1 + it % (p->size - 1) : 0;
}

/* How many of the first @p total iterations went to @p t. */
static uint64_t hits(const bench_rma_point_t *p, int t, int total)
{
    uint64_t n = 0;
    for (int it = 0; it < total; it++) n += bench_rma_target(p, it) == t;
    return n * (uint64_t)p->reps;
}

static int is_strided(int op)
{
    return op == STRIDED_GET || op == STRIDED_PUT || op == VECTOR_GET;
}

/* Window byte of row r, column j in the strided shapes (rows are 2 pieces apart). */
static size_t win_off(const bench_rma_point_t *p, size_t r, size_t j)
{
    return r * 2 * p->piece + j;
}

static void fill_window(bench_rma_point_t *p)
{
    memset(p->win, 0, p->win_bytes);
    if (p->op == GET)
        for (size_t i = 0; i < p->bytes; i++) p->win[i] = pattern(p->rank + 3, i);
    if (p->op == STRIDED_GET || p->op == VECTOR_GET) {
        memset(p->win, POISON, p->win_bytes);
        for (size_t r = 0; r < p->rows; r++)
            for (size_t j = 0; j < p->piece; j++)
                p->win[win_off(p, r, j)] = pattern(p->rank + 3, r * p->piece + j);
    }
}

static int build_iov(bench_rma_point_t *p)
{
    size_t n = (size_t)p->size * p->rows;
    p->iov_src = calloc(n, sizeof(void *));
    p->iov_dst = calloc(n, sizeof(void *));
    if (!p->iov_src || !p->iov_dst) return -1;
    for (int t = 0; t < p->size; t++)
        for (size_t r = 0; r < p->rows; r++) {
            p->iov_src[(size_t)t * p->rows + r] = (unsigned char *)p->remote[t] + win_off(p, r, 0);
            p->iov_dst[(size_t)t * p->rows + r] = p->local + r * p->piece;
        }
    return 0;
}

/* A malloc'd window, registered; every rank's descriptor allgathered (padded to the longest)
 * and attached, so that remote[r] is rank r's window. Collective. */
static arbor_status_t window_register(bench_rma_point_t *p)
{
    void *w = NULL;
    size_t len = 0;
    if (posix_memalign(&w, BENCH_RMA_ALIGN, p->win_bytes)) return ARBOR_ERR_NO_MEMORY;
    p->win = w;
    p->att = calloc((size_t)p->size, sizeof(*p->att));
    arbor_status_t st =
        p->att ? arbor_mem_register(w, p->win_bytes, 0, &p->reg) : ARBOR_ERR_NO_MEMORY;
    if (st == ARBOR_OK) st = arbor_mem_pack(p->reg, NULL, &len);
    uint64_t mine = len, most = 0;
    /* every rank joins the collectives, even after a local failure (its length says 0) */
    if (st != ARBOR_OK) mine = 0;
    arbor_status_t cs = arbor_allreduce(ARBOR_TEAM_WORLD, &mine, &most, 1, ARBOR_UINT64, ARBOR_MAX);
    size_t rec = 8 + (size_t)most;
    unsigned char *out = calloc(1, rec), *all = calloc((size_t)p->size, rec);
    if (cs == ARBOR_OK && (!out || !all)) cs = ARBOR_ERR_NO_MEMORY;
    if (cs == ARBOR_OK && st == ARBOR_OK) {
        memcpy(out, &mine, 8);
        st = arbor_mem_pack(p->reg, out + 8, &len);
    }
    if (cs == ARBOR_OK) cs = arbor_allgather(ARBOR_TEAM_WORLD, out, all, rec, ARBOR_BYTE);
    for (int r = 0; cs == ARBOR_OK && st == ARBOR_OK && r < p->size; r++) {
        uint64_t l;
        memcpy(&l, all + (size_t)r * rec, 8);
        if (r == p->rank) {
            p->remote[r] = p->win;
            continue;
        }
        st = l ? arbor_mem_attach(all + (size_t)r * rec + 8, (size_t)l, &p->att[r])
               : ARBOR_ERR_INVALID_ARG;
        if (st == ARBOR_OK) st = arbor_mem_attach_info(p->att[r], NULL, &p->remote[r], NULL);
    }
    free(out);
    free(all);
    return cs != ARBOR_OK ? cs : st;
}

int bench_rma_setup(bench_rma_point_t *p, int op, size_t bytes, int rank, int size)
{
    memset(p, 0, sizeof(*p));
    p->op = op, p->rank = rank, p->size = size, p->ok = 1;
    if (op == ACC) bytes = bytes < 8 ? 8 : bytes / 8 * 8;
    if (bench_rma_size_free(op)) bytes = 8;
    if (is_strided(op)) {
        p->rows = bytes >= 64 * 8 ? 64 : (bytes >= 16 ? bytes / 8 : 1);
        p->piece = bytes / p->rows ? bytes / p->rows : 1;
        bytes = p->rows * p->piece;
    }
    p->bytes = bytes;
    p->reps = bytes <= 4096 ? 16 : 1;
    p->win_bytes = (is_strided(op) ? 2 * bytes : bytes) + 8;
    /* Page aligned, as every window below: see bench/rma_ops.h. */
    p->local = aligned_alloc(BENCH_RMA_ALIGN, page_round(p->win_bytes));
    if (p->local) memset(p->local, 0, p->win_bytes);
    p->remote = calloc((size_t)size, sizeof(void *));
    p->done = calloc((size_t)size, sizeof(uint64_t));
    if (!p->local || !p->remote || !p->done) return -1;
    arbor_status_t st = bench_rma_registered
                            ? window_register(p)
                            : arbor_mem_alloc(ARBOR_TEAM_WORLD, p->win_bytes + BENCH_RMA_ALIGN - 1,
                                              &p->mem, (void **)&p->win);
    for (int r = 0; !bench_rma_registered && st == ARBOR_OK && r < size; r++)
        st = arbor_mem_addr(p->mem, r, &p->remote[r], NULL);
    if (st != ARBOR_OK) return -1;
    if (!bench_rma_registered) { /* registered windows are page aligned already */
        p->win += pad(p->win);
        for (int r = 0; r < size; r++)
            p->remote[r] = (unsigned char *)p->remote[r] + pad(p->remote[r]);
    }
    fill_window(p);
    if (op == ACC)
        for (size_t i = 0; i < bytes / 8; i++) ((double *)p->local)[i] = acc_value(i);
    if (op == PUT || op == STRIDED_PUT)
        for (size_t i = 0; i < bytes; i++) p->local[i] = pattern(1, i);
    if (op == VECTOR_GET && build_iov(p)) return -1;
    /* Every window is filled before anyone reads it. */
    return arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_OK ? 0 : -1;
}

void bench_rma_fill(bench_rma_point_t *p, int it, int last)
{
    (void)it;
    if (!last || p->rank != 0) return;
    if (p->op == PUT || p->op == STRIDED_PUT)
        for (size_t i = 0; i < p->bytes; i++) p->local[i] = pattern(2, i);
    if (p->op == GET || p->op == STRIDED_GET || p->op == VECTOR_GET)
        memset(p->local, POISON, p->bytes);
}

static arbor_status_t atomic(bench_rma_point_t *p, int t)
{
    int64_t seen = (int64_t)p->done[t], one = 1, next = seen + 1, old = -1;
    arbor_status_t st =
        p->op == FETCH_ADD
            ? arbor_atomic(t, p->remote[t], ARBOR_AMO_FADD, ARBOR_INT64, &one, NULL, &old)
            : arbor_atomic(t, p->remote[t], ARBOR_AMO_CSWAP, ARBOR_INT64, &next, &seen, &old);
    p->ok &= old == seen;
    return st;
}

static arbor_status_t one_op(bench_rma_point_t *p, int t)
{
    void *rem = p->remote[t];
    size_t count[2] = {p->piece, p->rows};
    ptrdiff_t wide[1] = {(ptrdiff_t)(2 * p->piece)}, tight[1] = {(ptrdiff_t)p->piece};
    arbor_status_t st;
    switch (p->op) {
    case PUT:
        st = arbor_put(t, rem, p->local, p->bytes);
        break;
    case GET:
        st = arbor_get(t, p->local, rem, p->bytes);
        break;
    case ACC:
        st = arbor_acc(t, rem, p->local, p->bytes / 8, ARBOR_DOUBLE, ARBOR_SUM, NULL);
        break;
    case FETCH_ADD:
    case CSWAP:
        st = atomic(p, t);
        break;
    case STRIDED_GET:
        st = arbor_get_strided(t, p->local, tight, rem, wide, count, 1);
        break;
    case STRIDED_PUT:
        st = arbor_put_strided(t, rem, wide, p->local, tight, count, 1);
        break;
    default: {
        arbor_iov_t iov = {.src = p->iov_src + (size_t)t * p->rows,
                           .dst = p->iov_dst + (size_t)t * p->rows,
                           .count = p->rows,
                           .nbytes = p->piece};
        st = arbor_get_vector(t, &iov, 1);
        break;
    }
    }
    /* Puts and accumulates count once remotely complete, as MPI_Win_flush makes them. */
    if (st == ARBOR_OK && (p->op == PUT || p->op == ACC || p->op == STRIDED_PUT))
        st = arbor_fence(t);
    p->done[t]++;
    return st;
}

arbor_status_t bench_rma_run(bench_rma_point_t *p, int it)
{
    arbor_status_t st = ARBOR_OK;
    for (int k = 0; p->rank == 0 && k < p->reps && st == ARBOR_OK; k++)
        st = one_op(p, bench_rma_target(p, it));
    return st;
}

static int check_window(const bench_rma_point_t *p, int total)
{
    uint64_t n = hits(p, p->rank, total);
    int last = bench_rma_target(p, total - 1) == p->rank;
    int seed = last ? 2 : 1;
    switch (p->op) {
    case PUT:
        for (size_t i = 0; i < p->bytes; i++)
            if (p->win[i] != (n ? pattern(seed, i) : 0)) return 0;
        return 1;
    case STRIDED_PUT:
        for (size_t r = 0; r < p->rows; r++)
            for (size_t j = 0; j < 2 * p->piece; j++) {
                unsigned char want = j < p->piece && n ? pattern(seed, r * p->piece + j) : 0;
                if (p->win[win_off(p, r, j)] != want) return 0;
            }
        return 1;
    case ACC:
        for (size_t i = 0; i < p->bytes / 8; i++)
            if (((const double *)p->win)[i] != (double)n * acc_value(i)) return 0;
        return 1;
    case FETCH_ADD:
    case CSWAP:
        return *(const int64_t *)p->win == (int64_t)n;
    default:
        return 1;
    }
}

static int check_got(const bench_rma_point_t *p, int total)
{
    int t = bench_rma_target(p, total - 1);
    if (p->rank != 0 || !(p->op == GET || is_strided(p->op)) || p->op == STRIDED_PUT) return 1;
    for (size_t i = 0; i < p->bytes; i++)
        if (p->local[i] != pattern(t + 3, i)) return 0;
    return 1;
}

int bench_rma_check(bench_rma_point_t *p, int total)
{
    if (p->rank == 0 && arbor_quiet() != ARBOR_OK) return 0;
    if (arbor_barrier(ARBOR_TEAM_WORLD) != ARBOR_OK) return 0;
    return p->ok && check_window(p, total) && check_got(p, total);
}

void bench_rma_teardown(bench_rma_point_t *p)
{
    if (p->mem) {
        arbor_quiet();
        arbor_barrier(ARBOR_TEAM_WORLD);
        arbor_mem_free(&p->mem);
    }
    if (p->reg) { /* everyone detaches before any owner deregisters */
        for (int r = 0; p->att && r < p->size; r++)
            if (p->att[r]) arbor_mem_detach(&p->att[r]);
        arbor_barrier(ARBOR_TEAM_WORLD);
        arbor_mem_deregister(&p->reg);
    }
    if (bench_rma_registered) free(p->win);
    free(p->att);
    free(p->local);
    free(p->remote);
    free(p->done);
    free(p->iov_src);
    free(p->iov_dst);
    memset(p, 0, sizeof(*p));
}
