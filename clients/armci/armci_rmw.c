/* ARMCI_Rmw on arbor_atomic, and ARMCI's mutexes: a set of ticket locks over the world
 * (armci_mutex.h), which serves waiters in arrival order. */
#include "armci_arbor.h"
#include "armci_mutex.h"

int PARMCI_Rmw(int op, void *ploc, void *prem, int value, int proc)
{
    if (!ploc) return armcia_status("ARMCI_Rmw", ARBOR_ERR_BUFFER);
    arbor_status_t st;
    switch (op) {
    case ARMCI_FETCH_AND_ADD:
        st = arbor_atomic(proc, prem, ARBOR_AMO_FADD, ARBOR_INT, &value, NULL, ploc);
        break;
    case ARMCI_FETCH_AND_ADD_LONG: {
        long v = value;
        st = arbor_atomic(proc, prem, ARBOR_AMO_FADD, ARBOR_LONG, &v, NULL, ploc);
        break;
    }
    case ARMCI_SWAP: {
        int v = *(int *)ploc;
        st = arbor_atomic(proc, prem, ARBOR_AMO_SWAP, ARBOR_INT, &v, NULL, ploc);
        break;
    }
    case ARMCI_SWAP_LONG: {
        long v = *(long *)ploc;
        st = arbor_atomic(proc, prem, ARBOR_AMO_SWAP, ARBOR_LONG, &v, NULL, ploc);
        break;
    }
    default:
        st = ARBOR_ERR_OP;
        break;
    }
    return armcia_status("ARMCI_Rmw", st);
}

/* --- mutexes: one set of ticket locks over the world (armci_mutex.h) --- */

static armcia_mutexes_t *world_mutexes;

int PARMCI_Create_mutexes(int count)
{
    int rc = armcia_check_init("ARMCI_Create_mutexes");
    if (rc) return rc;
    if (world_mutexes) return armcia_status("ARMCI_Create_mutexes", ARBOR_ERR_BUSY);
    return armcia_status("ARMCI_Create_mutexes",
                         armcia_mutexes_create(ARBOR_TEAM_WORLD, count, &world_mutexes, NULL));
}

int PARMCI_Destroy_mutexes(void)
{
    if (!world_mutexes) return armcia_status("ARMCI_Destroy_mutexes", ARBOR_ERR_HANDLE);
    int st = armcia_mutexes_destroy(world_mutexes);
    if (st == ARBOR_OK) world_mutexes = NULL;
    return armcia_status("ARMCI_Destroy_mutexes", st);
}

void PARMCI_Lock(int mutex, int proc)
{
    if (!world_mutexes) armcia_die("ARMCI_Lock (no ARMCI_Create_mutexes)", ARBOR_ERR_HANDLE);
    int st = armcia_mutex_lock(world_mutexes, mutex, proc);
    if (st != ARBOR_OK) armcia_die("ARMCI_Lock", st);
}

void PARMCI_Unlock(int mutex, int proc)
{
    if (!world_mutexes) armcia_die("ARMCI_Unlock (no ARMCI_Create_mutexes)", ARBOR_ERR_HANDLE);
    int st = armcia_mutex_unlock(world_mutexes, mutex, proc);
    if (st != ARBOR_OK) armcia_die("ARMCI_Unlock (a mutex this process does not hold?)", st);
}

void armcia_mutex_fini(void)
{
    armcia_mutexes_forget(world_mutexes); /* a live heap allocation goes with arbor_finalize */
    world_mutexes = NULL;
}

/* The public names: weak aliases of the profiling names (armci_arbor.h). */
ARMCIA_PROFILED(ARMCI_Create_mutexes, PARMCI_Create_mutexes);
ARMCIA_PROFILED(ARMCI_Destroy_mutexes, PARMCI_Destroy_mutexes);
ARMCIA_PROFILED(ARMCI_Lock, PARMCI_Lock);
ARMCIA_PROFILED(ARMCI_Rmw, PARMCI_Rmw);
ARMCIA_PROFILED(ARMCI_Unlock, PARMCI_Unlock);
