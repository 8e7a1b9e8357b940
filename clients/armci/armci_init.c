/* ARMCI_Init / Finalize: arbor and every module set up and torn down in order. */
#include "armci_arbor.h"

#include <stdio.h>
#include <stdlib.h>

int PARMCI_Init(void)
{
    if (armcia_init_count > 0) {
        armcia_init_count++;
        return 0;
    }
    /* ARMCI promises asynchronous progress, and a GA program blocks in MPI between ARMCI calls:
     * arbor's progress thread then serves what peers aim at this rank (one-sided operations,
     * the credits of a collective this rank has already left), which they may be waiting on. */
    if (setenv("ARBOR_PROGRESS", "thread", 0) != 0) return ARBOR_ERR_NO_MEMORY;
    arbor_status_t st = arbor_init();
    if (st == ARBOR_OK) st = arbor_team_rank(ARBOR_TEAM_WORLD, &armcia_me);
    if (st == ARBOR_OK) st = arbor_team_size(ARBOR_TEAM_WORLD, &armcia_nproc);
    if (st == ARBOR_OK) st = armcia_tagged_init();
    if (st == ARBOR_OK) st = armcia_domain_init();
    /* No tagged message may reach a rank before its handler is registered. */
    if (st == ARBOR_OK) st = arbor_barrier(ARBOR_TEAM_WORLD);
    if (st != ARBOR_OK) {
        fprintf(stderr, "[armci-arbor] arbor_init: %s\n", arbor_strerror(st));
        return (int)st;
    }
    armcia_init_count = 1;
    return 0;
}

int PARMCI_Init_args(int *argc, char ***argv)
{
    (void)argc; /* arbor reads its configuration from ARBOR_* variables, not the command line */
    (void)argv;
    return PARMCI_Init();
}

int PARMCI_Init_thread(int armci_requested)
{
    (void)armci_requested; /* arbor is called from one thread per process (arbor.h) */
    return PARMCI_Init();
}

int PARMCI_Init_thread_comm(int armci_requested, MPI_Comm comm)
{
    /* arbor's world is the launcher's job: ARMCI can run over a communicator only when it holds
     * that whole job in the same order (MPI_COMM_WORLD or a duplicate of it). */
    if (!armcia_comm_is_world(comm))
        return armcia_unsupported("ARMCI_Init_thread_comm over another communicator");
    return PARMCI_Init_thread(armci_requested);
}

int PARMCI_Initialized(void)
{
    return armcia_init_count > 0;
}

int PARMCI_Finalize(void)
{
    if (armcia_init_count == 0) return ARBOR_ERR_NOT_INITIALIZED;
    if (--armcia_init_count > 0) return 0;
    int rc = armcia_hdl_wait_proc(-1);
    armcia_mutex_fini();
    armcia_mem_fini();
    armcia_group_fini();
    armcia_hdl_fini();
    arbor_status_t st = arbor_finalize();
    /* After arbor_finalize: until it returns, fragments of messages sent to this rank and never
     * received may still arrive (and are dropped). */
    armcia_tagged_fini();
    armcia_domain_fini();
    return rc ? rc : armcia_status("ARMCI_Finalize", st);
}

void ARMCI_Cleanup(void)
{
    /* Called on the way to an abort (GA_Error): complete what this rank issued, so that the
     * data already sent is not lost; nothing collective can run here. */
    if (armcia_init_count > 0) (void)arbor_quiet();
}

void ARMCI_Error(const char *msg, int code)
{
    fprintf(stderr, "[armci-arbor %d] ARMCI_Error: %s (%d)\n", armcia_me, msg ? msg : "", code);
    fflush(stderr);
    abort();
}

void armci_msg_abort(int code)
{
    fprintf(stderr, "[armci-arbor %d] armci_msg_abort(%d)\n", armcia_me, code);
    fflush(stderr);
    abort();
}

/* The public names: weak aliases of the profiling names (armci_arbor.h). */
ARMCIA_PROFILED(ARMCI_Finalize, PARMCI_Finalize);
ARMCIA_PROFILED(ARMCI_Init, PARMCI_Init);
ARMCIA_PROFILED(ARMCI_Init_args, PARMCI_Init_args);
ARMCIA_PROFILED(ARMCI_Init_thread, PARMCI_Init_thread);
ARMCIA_PROFILED(ARMCI_Init_thread_comm, PARMCI_Init_thread_comm);
ARMCIA_PROFILED(ARMCI_Initialized, PARMCI_Initialized);
