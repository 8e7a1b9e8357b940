/*
 * arbor-bench's one-sided ops (the ARMCI paper's figures 4 and 5): rank 0 drives, every other
 * rank is a target, taken in turn; the targets only take part in the per-iteration barrier.
 * Uses only the public header. bench/mpi_rma.c is the MPI-3 RMA twin: same shapes, same data,
 * same placement: the local buffer and every window start on a page boundary on both sides.
 * The speed of a 1 MiB copy depends on where source and destination sit relative to each other
 * (one memcpy on this machine: 20.3 us 0 or 64 bytes apart modulo 4 KiB, 21.6-22 us at other
 * distances or 16 bytes off a line), and where MPI_Win_allocate or the heap happen to put a
 * window is no part of what is compared.
 */
#ifndef ARB_BENCH_RMA_OPS_H
#define ARB_BENCH_RMA_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "arbor.h"

/* Alignment of the local buffer and of every window, in both benchmarks. */
#define BENCH_RMA_ALIGN 4096

extern const char *const bench_rma_names[];
extern const int bench_rma_nops;
/* --registered: the targets' windows are malloc'd and registered (arbor_mem_register, the
 * descriptors allgathered and attached) instead of symmetric allocations. */
extern int bench_rma_registered;

typedef struct {
    int op, rank, size;
    size_t bytes;       /* reported size: bytes moved per operation */
    size_t rows, piece; /* strided / vector shapes: rows pieces of piece bytes, stride 2 piece */
    size_t win_bytes;
    int reps; /* operations per timed iteration (16 up to 4 KiB: one would be
                 below the clock's resolution); rows report the time of one */
    arbor_mem_h mem;
    arbor_reg_h reg;           /* --registered: this rank's registration of win */
    arbor_attach_h *att;       /* --registered: [size] the others' registrations */
    unsigned char *win;        /* this rank's window (symmetric allocation or registered) */
    unsigned char *local;      /* source of puts, destination of gets (page aligned) */
    void **remote;             /* every rank's window address */
    void **iov_src, **iov_dst; /* vector_get's segment tables (for the current target) */
    uint64_t *done;            /* per target: operations issued to it so far (driver) */
    int ok;                    /* every check of the driver so far passed */
} bench_rma_point_t;

/* Atomics move 8 bytes whatever the size: true when @p op runs at its first size only. */
int bench_rma_size_free(int op);
/* Collective (allocates the window). 0 or -1. */
int bench_rma_setup(bench_rma_point_t *p, int op, size_t bytes, int rank, int size);
/* The target of iteration @p it. */
int bench_rma_target(const bench_rma_point_t *p, int it);
/* Before the last iteration: change the data, so that a put doing nothing fails the check. */
void bench_rma_fill(bench_rma_point_t *p, int it, int last);
/* The timed operation, remotely complete (put / acc are followed by a fence); a no-op on
 * targets. */
arbor_status_t bench_rma_run(bench_rma_point_t *p, int it);
/* Collective, after @p total iterations: every rank checks what it owns. 1 when right. */
int bench_rma_check(bench_rma_point_t *p, int total);
void bench_rma_teardown(bench_rma_point_t *p);

#endif /* ARB_BENCH_RMA_OPS_H */
