/* arbor-mpi-bench's one-sided ops (MPI-3 RMA): the twin of bench/rma_ops.c. */
#include "mpi_rma.h"

#include <stdlib.h>
#include <string.h>

enum { PUT, GET, ACC, FETCH_ADD, CSWAP, STRIDED_GET, STRIDED_PUT, VECTOR_GET };
const char *const mpi_rma_names[] = {"put",   "get",         "acc",         "fetch_add",
                                     "cswap", "strided_get", "strided_put", "vector_get"};
const int mpi_rma_nops = 8;

#define POISON 0xEE
#define ALIGN  4096 /* of the local buffer and of every window, as BENCH_RMA_ALIGN */

/* As bench/rma_ops.c. */
static unsigned char pattern(int seed, size_t i)
{
    return (unsigned char)(1 + ((size_t)seed * 131 + i) % 200);
}

static double acc_value(size_t i)
{
    return (double)(1 + i % 7);
}

int mpi_rma_size_free(int op)
{
    return op == FETCH_ADD || op == CSWAP;
}

static int target(const mpi_rma_point_t *p, int it)
{
    return p->size > 1 ? 1 + it % (p->size - 1) : 0;
}

static uint64_t hits(const mpi_rma_point_t *p, int t, int total)
{
    uint64_t n = 0;
    for (int it = 0; it < total; it++) n += target(p, it) == t;
    return n * (uint64_t)p->reps;
}

static int is_strided(int op)
{
    return op == STRIDED_GET || op == STRIDED_PUT || op == VECTOR_GET;
}

static size_t win_off(const mpi_rma_point_t *p, size_t r, size_t j)
{
    return r * 2 * p->piece + j;
}

static void fill_window(mpi_rma_point_t *p)
{
    memset(p->base, 0, p->win_bytes);
    if (p->op == GET)
        for (size_t i = 0; i < p->bytes; i++) p->base[i] = pattern(p->rank + 3, i);
    if (p->op == STRIDED_GET || p->op == VECTOR_GET) {
        memset(p->base, POISON, p->win_bytes);
        for (size_t r = 0; r < p->rows; r++)
            for (size_t j = 0; j < p->piece; j++)
                p->base[win_off(p, r, j)] = pattern(p->rank + 3, r * p->piece + j);
    }
}

/* The remote side of the strided shapes: a vector type, or for vector_get the same rows as an
 * explicit list of displacements (what an I/O vector is). */
static int make_type(mpi_rma_point_t *p)
{
    int rc;
    if (p->op == VECTOR_GET) {
        MPI_Aint *disp = malloc(sizeof(MPI_Aint) * p->rows);
        if (!disp) return -1;
        for (size_t r = 0; r < p->rows; r++) disp[r] = (MPI_Aint)win_off(p, r, 0);
        rc = MPI_Type_create_hindexed_block((int)p->rows, (int)p->piece, disp, MPI_BYTE,
                                            &p->remote_type);
        free(disp);
    } else {
        rc = MPI_Type_vector((int)p->rows, (int)p->piece, (int)(2 * p->piece), MPI_BYTE,
                             &p->remote_type);
    }
    if (rc != MPI_SUCCESS || MPI_Type_commit(&p->remote_type) != MPI_SUCCESS) return -1;
    p->have_type = 1;
    return 0;
}

int mpi_rma_setup(mpi_rma_point_t *p, int op, size_t bytes, int rank, int size)
{
    memset(p, 0, sizeof(*p));
    p->op = op, p->rank = rank, p->size = size, p->ok = 1;
    if (op == ACC) bytes = bytes < 8 ? 8 : bytes / 8 * 8;
    if (mpi_rma_size_free(op)) bytes = 8;
    if (is_strided(op)) {
        p->rows = bytes >= 64 * 8 ? 64 : (bytes >= 16 ? bytes / 8 : 1);
        p->piece = bytes / p->rows ? bytes / p->rows : 1;
        bytes = p->rows * p->piece;
    }
    if (bytes > INT32_MAX / 2) return -1;
    p->bytes = bytes;
    p->reps = bytes <= 4096 ? 16 : 1;
    p->win_bytes = (is_strided(op) ? 2 * bytes : bytes) + 8;
    /* The local buffer and every rank's window start on a page, as arbor's (bench/rma_ops.h):
     * a copy's speed depends on where source and destination sit relative to each other, and
     * MPI_Win_allocate's own placement (Open MPI's osc sm: rank 1's window 16 bytes past a
     * line, 272 past a page) is no part of what is compared. */
    p->local = aligned_alloc(ALIGN, (p->win_bytes + ALIGN - 1) / ALIGN * ALIGN);
    p->done = calloc((size_t)size, sizeof(uint64_t));
    p->disp = calloc((size_t)size, sizeof(MPI_Aint));
    if (!p->local || !p->done || !p->disp) return -1;
    memset(p->local, 0, p->win_bytes);
    unsigned char *alloc = NULL;
    if (MPI_Win_allocate((MPI_Aint)(p->win_bytes + ALIGN - 1), 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                         &alloc, &p->win) != MPI_SUCCESS)
        return -1;
    p->have_win = 1;
    MPI_Aint pad = (MPI_Aint)((ALIGN - (uintptr_t)alloc % ALIGN) % ALIGN);
    p->base = alloc + pad;
    if (MPI_Allgather(&pad, 1, MPI_AINT, p->disp, 1, MPI_AINT, MPI_COMM_WORLD) != MPI_SUCCESS)
        return -1;
    fill_window(p);
    if (op == ACC)
        for (size_t i = 0; i < bytes / 8; i++) ((double *)p->local)[i] = acc_value(i);
    if (op == PUT || op == STRIDED_PUT)
        for (size_t i = 0; i < bytes; i++) p->local[i] = pattern(1, i);
    if (is_strided(op) && make_type(p)) return -1;
    if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS) return -1;
    if (MPI_Win_lock_all(0, p->win) != MPI_SUCCESS) return -1;
    p->have_win = 2;
    return 0;
}

void mpi_rma_fill(mpi_rma_point_t *p, int it, int last)
{
    (void)it;
    if (!last || p->rank != 0) return;
    if (p->op == PUT || p->op == STRIDED_PUT)
        for (size_t i = 0; i < p->bytes; i++) p->local[i] = pattern(2, i);
    if (p->op == GET || p->op == STRIDED_GET || p->op == VECTOR_GET)
        memset(p->local, POISON, p->bytes);
}

static int atomic(mpi_rma_point_t *p, int t)
{
    int64_t seen = (int64_t)p->done[t], one = 1, next = seen + 1, old = -1;
    int rc = p->op == FETCH_ADD
                 ? MPI_Fetch_and_op(&one, &old, MPI_INT64_T, t, p->disp[t], MPI_SUM, p->win)
                 : MPI_Compare_and_swap(&next, &seen, &old, MPI_INT64_T, t, p->disp[t], p->win);
    if (rc == MPI_SUCCESS) rc = MPI_Win_flush(t, p->win);
    p->ok &= old == seen;
    return rc;
}

static int one_op(mpi_rma_point_t *p, int t)
{
    int n = (int)p->bytes, rc;
    MPI_Aint d = p->disp[t];
    switch (p->op) {
    case PUT:
        rc = MPI_Put(p->local, n, MPI_BYTE, t, d, n, MPI_BYTE, p->win);
        break;
    case GET:
        rc = MPI_Get(p->local, n, MPI_BYTE, t, d, n, MPI_BYTE, p->win);
        break;
    case ACC:
        rc = MPI_Accumulate(p->local, n / 8, MPI_DOUBLE, t, d, n / 8, MPI_DOUBLE, MPI_SUM, p->win);
        break;
    case FETCH_ADD:
    case CSWAP:
        rc = atomic(p, t);
        p->done[t]++;
        return rc;
    case STRIDED_PUT:
        rc = MPI_Put(p->local, n, MPI_BYTE, t, d, 1, p->remote_type, p->win);
        break;
    default:
        rc = MPI_Get(p->local, n, MPI_BYTE, t, d, 1, p->remote_type, p->win);
        break;
    }
    if (rc == MPI_SUCCESS) rc = MPI_Win_flush(t, p->win);
    p->done[t]++;
    return rc;
}

int mpi_rma_run(mpi_rma_point_t *p, int it)
{
    int rc = MPI_SUCCESS;
    for (int k = 0; p->rank == 0 && k < p->reps && rc == MPI_SUCCESS; k++)
        rc = one_op(p, target(p, it));
    return rc;
}

static int check_window(const mpi_rma_point_t *p, int total)
{
    uint64_t n = hits(p, p->rank, total);
    int seed = target(p, total - 1) == p->rank ? 2 : 1;
    switch (p->op) {
    case PUT:
        for (size_t i = 0; i < p->bytes; i++)
            if (p->base[i] != (n ? pattern(seed, i) : 0)) return 0;
        return 1;
    case STRIDED_PUT:
        for (size_t r = 0; r < p->rows; r++)
            for (size_t j = 0; j < 2 * p->piece; j++) {
                unsigned char want = j < p->piece && n ? pattern(seed, r * p->piece + j) : 0;
                if (p->base[win_off(p, r, j)] != want) return 0;
            }
        return 1;
    case ACC:
        for (size_t i = 0; i < p->bytes / 8; i++)
            if (((const double *)p->base)[i] != (double)n * acc_value(i)) return 0;
        return 1;
    case FETCH_ADD:
    case CSWAP:
        return *(const int64_t *)p->base == (int64_t)n;
    default:
        return 1;
    }
}

static int check_got(const mpi_rma_point_t *p, int total)
{
    int t = target(p, total - 1);
    if (p->rank != 0 || !(p->op == GET || p->op == STRIDED_GET || p->op == VECTOR_GET)) return 1;
    for (size_t i = 0; i < p->bytes; i++)
        if (p->local[i] != pattern(t + 3, i)) return 0;
    return 1;
}

int mpi_rma_check(mpi_rma_point_t *p, int total)
{
    if (MPI_Win_flush_all(p->win) != MPI_SUCCESS) return 0;
    if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS) return 0;
    /* Make the other ranks' updates visible in this rank's copy of its window. */
    if (MPI_Win_sync(p->win) != MPI_SUCCESS) return 0;
    return p->ok && check_window(p, total) && check_got(p, total);
}

void mpi_rma_teardown(mpi_rma_point_t *p)
{
    if (p->have_win == 2) MPI_Win_unlock_all(p->win);
    if (p->have_win) MPI_Win_free(&p->win);
    if (p->have_type) MPI_Type_free(&p->remote_type);
    free(p->local);
    free(p->done);
    free(p->disp);
    memset(p, 0, sizeof(*p));
}
