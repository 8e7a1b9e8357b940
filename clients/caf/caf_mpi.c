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
#include <string.h>

#include "caf_api.h"
#include "caf_state.h"

typedef int mpi_init_fn(int *argc, char ***argv);
typedef int mpi_flag_fn(int *flag);
typedef int mpi_finalize_fn(void);

static int mpi_up; /* MPI was started (here or by the program) */

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
    mpi_up = 1;
    if (flag) return;
    if (init(argc, argv) != 0) caf_fatal(1, "init: the program uses MPI and MPI_Init failed");
    started_mpi_finalize = finalize;
}

/* Whether MPI was finalized: 1 yes, 0 no, -1 unknown (no MPI_Finalized, or it failed). */
static int mpi_finalized(void)
{
    mpi_flag_fn *finalized = (mpi_flag_fn *)dlsym(RTLD_DEFAULT, "MPI_Finalized");
    int flag = 0;
    if (!finalized || finalized(&flag) != 0) return -1;
    return flag != 0;
}

void caf_mpi_end(void)
{
    if (!started_mpi_finalize) return;
    if (mpi_finalized() != 1) started_mpi_finalize();
    started_mpi_finalize = NULL;
}

/*
 * The MPI communicator of a team (OpenCoarrays' get_communicator extension). Handles are the
 * Fortran ones, as the program sees them, and MPI is called through its Fortran bindings, which
 * use those handles on every MPI library; only MPI_COMM_WORLD's handle differs between them.
 * Each team formed while MPI is up gets a communicator at FORM TEAM, split from its parent's:
 * FORM TEAM involves every image of the parent, as MPI_Comm_split needs. They are not freed:
 * MPI_Comm_free is collective, and an image may end while others still use the team; MPI's
 * finalize releases them.
 */
typedef int mpi_fint;
typedef void mpi_split_fn(mpi_fint *comm, mpi_fint *color, mpi_fint *key, mpi_fint *newcomm,
                          mpi_fint *ierr);
typedef mpi_fint mpi_c2f_fn(void *comm);
typedef int mpi_version_fn(char *version, int *len);

/* MPI_COMM_WORLD's Fortran handle in the MPICH family (MPICH, Intel MPI, MVAPICH, Cray MPICH). */
enum { MPICH_COMM_WORLD = 0x44000000 };

static int mpi_running(void)
{
    return mpi_up && mpi_finalized() == 0;
}

static int world_handle(mpi_fint *out)
{
    void *ompi_world = dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world");
    mpi_c2f_fn *c2f = (mpi_c2f_fn *)dlsym(RTLD_DEFAULT, "MPI_Comm_c2f");
    if (ompi_world && c2f) { /* Open MPI: MPI_COMM_WORLD is that object's address */
        *out = c2f(ompi_world);
        return 0;
    }
    mpi_version_fn *version = (mpi_version_fn *)dlsym(RTLD_DEFAULT, "MPI_Get_library_version");
    static char text[8192]; /* MPI_MAX_LIBRARY_VERSION_STRING is 8192 in MPICH */
    int len = 0;
    if (!version || version(text, &len) != 0) return -1;
    text[sizeof text - 1] = '\0';
    if (strstr(text, "MPICH") || strstr(text, "Intel(R) MPI") || strstr(text, "MVAPICH")) {
        *out = MPICH_COMM_WORLD;
        return 0;
    }
    return -1;
}

void caf_mpi_world(caf_team_s *team)
{
    team->has_mpi_comm = mpi_running() && world_handle(&team->mpi_comm) == 0;
}

void caf_mpi_split(const caf_team_s *parent, caf_team_s *team)
{
    team->has_mpi_comm = 0;
    mpi_split_fn *split = (mpi_split_fn *)dlsym(RTLD_DEFAULT, "mpi_comm_split_");
    if (!parent->has_mpi_comm || !split || !mpi_running()) return;
    /* The key is the image's index in the new team, so that ranks and images agree. */
    mpi_fint comm = parent->mpi_comm, color = team->number, key = team->rank, ierr = 0;
    split(&comm, &color, &key, &team->mpi_comm, &ierr);
    if (ierr != 0) caf_fatal(1, "form team: MPI_Comm_split failed (%d)", ierr);
    team->has_mpi_comm = 1;
}

/* @p team_ptr: OpenCoarrays' module passes its optional C pointer argument by reference, so NULL
 * when absent, else the address of a pointer to the program's team variable. */
int _gfortran_caf_get_communicator(void **team_ptr)
{
    const caf_team_s *t = caf_state.current;
    if (team_ptr && *team_ptr) {
        t = caf_team_known(*(caf_team_s **)*team_ptr);
        if (!t) caf_fatal(1, "get_communicator: the team argument is not a formed team");
    }
    if (!mpi_up) caf_fatal(1, "get_communicator: the program does not use MPI (link it with MPI)");
    if (!t->has_mpi_comm)
        caf_fatal(1, "get_communicator: no MPI communicator for this team (MPI ended, or an MPI "
                     "library whose MPI_COMM_WORLD handle is not known: Open MPI and the MPICH "
                     "family are)");
    return t->mpi_comm;
}
