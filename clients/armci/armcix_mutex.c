/* ARMCIX mutex handles (ARMCI-MPI's armcix.h): batches of mutexes over a group, so that a
 * library can have mutexes of its own beside the program's ARMCI_Create_mutexes. Each handle
 * holds a duplicate of the group (the group may be freed while the handle lives) and a set of
 * ticket locks over the duplicate's team (armci_mutex.h). A mutex is named by its owner's rank
 * in the group. */
#include "armci_arbor.h"
#include "armci_mutex.h"

#include <armcix.h>
#include <stdlib.h>

/* armcix_mutex_hdl_t points to ARMCI-MPI's struct, which the program may read (counts, group);
 * the lock set follows it. */
typedef struct {
    struct armcix_mutex_hdl_s pub;
    armcia_mutexes_t *set;
} mutex_hdl_t;

armcix_mutex_hdl_t ARMCIX_Create_mutexes_hdl(int count, ARMCI_Group *pgroup)
{
    if (armcia_check_init("ARMCIX_Create_mutexes_hdl")) return NULL;
    mutex_hdl_t *h = calloc(1, sizeof *h);
    if (!h) armcia_die("ARMCIX_Create_mutexes_hdl", ARBOR_ERR_NO_MEMORY);
    ARMCI_Group group;
    ARMCI_Group_get_default(&group);
    int st = ARMCIX_Group_dup(pgroup ? pgroup : &group, &h->pub.grp);
    if (st == ARBOR_OK)
        st = armcia_mutexes_create(armcia_group_team(&h->pub.grp), count, &h->set,
                                   &h->pub.max_count);
    if (st != ARBOR_OK) {
        /* A bad count fails on every member alike (the counts are exchanged first). */
        if (h->pub.grp.grp_to_abs) ARMCI_Group_free(&h->pub.grp);
        free(h);
        armcia_status("ARMCIX_Create_mutexes_hdl", st);
        return NULL;
    }
    h->pub.my_count = count;
    return &h->pub;
}

int ARMCIX_Destroy_mutexes_hdl(armcix_mutex_hdl_t hdl)
{
    if (!hdl) return armcia_status("ARMCIX_Destroy_mutexes_hdl", ARBOR_ERR_HANDLE);
    mutex_hdl_t *h = (mutex_hdl_t *)hdl;
    int st = armcia_mutexes_destroy(h->set);
    if (st != ARBOR_OK) return armcia_status("ARMCIX_Destroy_mutexes_hdl", st);
    ARMCI_Group_free(&h->pub.grp);
    free(h);
    return 0;
}

void ARMCIX_Lock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc)
{
    if (!hdl) armcia_die("ARMCIX_Lock_hdl", ARBOR_ERR_HANDLE);
    int st = armcia_mutex_lock(((mutex_hdl_t *)hdl)->set, mutex, proc);
    if (st != ARBOR_OK) armcia_die("ARMCIX_Lock_hdl", st);
}

int ARMCIX_Trylock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc)
{
    if (!hdl) return armcia_status("ARMCIX_Trylock_hdl", ARBOR_ERR_HANDLE);
    int acquired = 0;
    int st = armcia_mutex_trylock(((mutex_hdl_t *)hdl)->set, mutex, proc, &acquired);
    if (st != ARBOR_OK) return armcia_status("ARMCIX_Trylock_hdl", st);
    return acquired ? 0 : 1; /* ARMCI-MPI: 0 when the lock was taken */
}

void ARMCIX_Unlock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc)
{
    if (!hdl) armcia_die("ARMCIX_Unlock_hdl", ARBOR_ERR_HANDLE);
    int st = armcia_mutex_unlock(((mutex_hdl_t *)hdl)->set, mutex, proc);
    if (st != ARBOR_OK) armcia_die("ARMCIX_Unlock_hdl (a mutex this process does not hold?)", st);
}

/* Drives arbor's progress once: one-sided traffic aimed at this rank, active messages (tagged
 * messages of armci_msg_snd) and the collectives in flight. */
void ARMCIX_Progress(void)
{
    (void)arbor_poll();
}
