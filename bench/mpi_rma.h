/*
 * arbor-mpi-bench's one-sided ops with MPI-3 RMA, the twin of bench/rma_ops.c (same shapes,
 * same data, same checks): one MPI_Win_allocate window per row under a passive
 * MPI_Win_lock_all epoch, each operation completed with MPI_Win_flush. Rank 0 drives, the
 * other ranks are targets in turn. Needs only mpi.h.
 */
#ifndef ARB_BENCH_MPI_RMA_H
#define ARB_BENCH_MPI_RMA_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

extern const char *const mpi_rma_names[];
extern const int mpi_rma_nops;

typedef struct {
    int op, rank, size;
    size_t bytes, rows, piece, win_bytes;
    int reps; /* operations per timed iteration, as bench/rma_ops.h */
    MPI_Win win;
    unsigned char *base;  /* this rank's window (page aligned, inside the allocated one) */
    MPI_Aint *disp;       /* [size] displacement of each rank's base in its window */
    unsigned char *local; /* source of puts, destination of gets */
    MPI_Datatype remote_type;
    uint64_t *done;
    int ok, have_win, have_type;
} mpi_rma_point_t;

int mpi_rma_size_free(int op);
int mpi_rma_setup(mpi_rma_point_t *p, int op, size_t bytes, int rank, int size);
void mpi_rma_fill(mpi_rma_point_t *p, int it, int last);
int mpi_rma_run(mpi_rma_point_t *p, int it);
int mpi_rma_check(mpi_rma_point_t *p, int total);
void mpi_rma_teardown(mpi_rma_point_t *p);

#endif /* ARB_BENCH_MPI_RMA_H */
