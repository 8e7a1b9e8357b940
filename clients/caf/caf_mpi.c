/*
 * Coarray programs that also call MPI. OpenCoarrays runs over MPI and starts it, so programs
 * written for it call MPI_Comm_size, MPI_Bcast and the like on MPI_COMM_WORLD without calling
 * MPI_Init themselves. When such a program runs on this library, the MPI library it was linked
 * with is in the process (the program needs it), not in this one: it is looked up by name,
 * started before arbor at init and ended after it at finalize. Before, because a one-image run
 * without a launcher has no PMIx server: arbor's attempt to reach one leaves the PMIx library in
 * a state where Open MPI's own start as a singleton crashes in it. A program that calls MPI_Init
 * itself keeps that job (MPI_Initialized says so, and it is not started twice); one that does
 * not link MPI is not affected. The images and MPI_COMM_WORLD's ranks are the same processes in
 * the same order: both take their rank from the launcher.
 */
#include <dlfcn.h>
#include <stddef.h>

#include "caf_state.h"

typedef int mpi_init_fn(int *argc, char ***argv);
typedef int mpi_flag_fn(int *flag);
typedef int mpi_finalize_fn(void);

/* Set when this library started MPI, so that it ends it too. */
static mpi_finalize_fn *started_mpi_finalize;

void caf_mpi_start(int *argc, char ***argv)
{
    mpi_init_fn *init = (mpi_init_fn *)dlsym(RTLD_DEFAULT, "MPI_Init");
    mpi_flag_fn *initialized = (mpi_flag_fn *)dlsym(RTLD_DEFAULT, "MPI_Initialized");
    mpi_finalize_fn *finalize = (mpi_finalize_fn *)dlsym(RTLD_DEFAULT, "MPI_Finalize");
    if (!init || !initialized || !finalize) return; /* the program does not use MPI */
    int flag = 0;
    if (initialized(&flag) != 0) caf_fatal(1, "init: MPI_Initialized failed");
    if (flag) return;
    if (init(argc, argv) != 0) caf_fatal(1, "init: the program uses MPI and MPI_Init failed");
    started_mpi_finalize = finalize;
}

void caf_mpi_end(void)
{
    if (!started_mpi_finalize) return;
    mpi_flag_fn *finalized = (mpi_flag_fn *)dlsym(RTLD_DEFAULT, "MPI_Finalized");
    int flag = 0;
    if (!finalized || finalized(&flag) != 0 || !flag) started_mpi_finalize();
    started_mpi_finalize = NULL;
}
