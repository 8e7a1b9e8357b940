/* ARMCI_Group's MPI communicators. Global Arrays built for ARMCI-MPI reads the comm field of
 * ARMCI groups directly (GA_MPI_Comm_pgroup; GA_Initialize duplicates the world group's), so a
 * group must carry a real communicator whenever the program has initialised MPI. libarmci_arbor
 * does not link MPI: its MPI symbols are weak and resolve only in a program that links MPI
 * itself (as every GA program does); elsewhere the comm fields stay MPI_COMM_NULL-like zeros. */
#include "armci_arbor.h"

#include <stdio.h>
#include <string.h>

#pragma weak MPI_Initialized
#pragma weak MPI_Finalized
#pragma weak MPI_Comm_split
#pragma weak MPI_Comm_free
#pragma weak MPI_Comm_rank
#pragma weak MPI_Comm_compare
#ifdef OPEN_MPI
/* Open MPI's predefined handles are addresses of these objects. */
#pragma weak ompi_mpi_comm_world
#pragma weak ompi_mpi_comm_null
#endif

static int mpi_ready(void)
{
    int init = 0, fini = 0;
    if (!MPI_Initialized || !MPI_Finalized || !MPI_Comm_split || !MPI_Comm_free) return 0;
#ifdef OPEN_MPI
    if (!&ompi_mpi_comm_world || !&ompi_mpi_comm_null) return 0;
#endif
    MPI_Initialized(&init);
    MPI_Finalized(&fini);
    return init && !fini;
}

MPI_Comm armcia_comm_null(void)
{
    if (mpi_ready()) return MPI_COMM_NULL;
    MPI_Comm zero;
    memset(&zero, 0, sizeof zero);
    return zero;
}

MPI_Comm armcia_comm_world(void)
{
    if (!mpi_ready()) return armcia_comm_null();
    int r = -1;
    if (MPI_Comm_rank && MPI_Comm_rank(MPI_COMM_WORLD, &r) == MPI_SUCCESS && r != armcia_me)
        fprintf(stderr,
                "[armci-arbor %d] MPI_COMM_WORLD rank %d differs from arbor's: GA's own MPI "
                "messages will go to the wrong processes\n",
                armcia_me, r);
    return MPI_COMM_WORLD;
}

MPI_Comm armcia_comm_split(MPI_Comm parent, int color, int key)
{
    MPI_Comm out = armcia_comm_null();
    if (mpi_ready() && parent != MPI_COMM_NULL &&
        MPI_Comm_split(parent, color >= 0 ? color : MPI_UNDEFINED, key, &out) != MPI_SUCCESS)
        armcia_die("ARMCI group creation (MPI_Comm_split)", ARBOR_ERR_BOOTSTRAP);
    return out;
}

void armcia_comm_free(MPI_Comm *comm)
{
    if (mpi_ready() && *comm != MPI_COMM_NULL && *comm != MPI_COMM_WORLD) MPI_Comm_free(comm);
}

int armcia_comm_is_world(MPI_Comm comm)
{
    int result = MPI_UNEQUAL;
    return mpi_ready() && MPI_Comm_compare && comm != MPI_COMM_NULL &&
           MPI_Comm_compare(comm, MPI_COMM_WORLD, &result) == MPI_SUCCESS &&
           (result == MPI_IDENT || result == MPI_CONGRUENT);
}
