/* ARMCI groups over arbor teams. ARMCI_Group is ARMCI-MPI's struct; a group is recognised by
 * its grp_to_abs table, which this file allocates and maps to the arbor team. Its comm field
 * gets the matching MPI communicator when the program uses MPI (armci_mpi.c), because GA reads
 * it. */
#include "armci_arbor.h"

#include <stdlib.h>
#include <string.h>

typedef struct known {
    struct known *next;
    int *grp_to_abs;
    int *abs_to_grp;
    arbor_team_h team;
} known_t;

static known_t *groups;
static int *world_table; /* identity: the world group's grp_to_abs and abs_to_grp */
static ARMCI_Group default_group;
static int default_set;

static void world(ARMCI_Group *g)
{
    if (!world_table) {
        world_table = malloc((size_t)armcia_nproc * sizeof *world_table);
        if (!world_table) armcia_die("ARMCI_Group_get_world", ARBOR_ERR_NO_MEMORY);
        for (int i = 0; i < armcia_nproc; i++) world_table[i] = i;
    }
    memset(g, 0, sizeof *g);
    g->comm = armcia_comm_world();
    g->noncoll_pgroup_comm = armcia_comm_null();
    g->grp_to_abs = world_table;
    g->abs_to_grp = world_table;
    g->rank = armcia_me;
    g->size = armcia_nproc;
}

const ARMCI_Group *armcia_group_resolve(const ARMCI_Group *group)
{
    if (group) return group;
    if (!default_set) {
        world(&default_group);
        default_set = 1;
    }
    return &default_group;
}

arbor_team_h armcia_group_team(const ARMCI_Group *group)
{
    group = armcia_group_resolve(group);
    if (group->grp_to_abs == world_table && world_table) return ARBOR_TEAM_WORLD;
    for (known_t *k = groups; k; k = k->next)
        if (k->grp_to_abs == group->grp_to_abs && group->grp_to_abs) return k->team;
    armcia_die("ARMCI group (not created by ARMCI_Group_create, or freed)", ARBOR_ERR_TEAM);
}

int armcia_group_abs(const ARMCI_Group *group, int rank)
{
    group = armcia_group_resolve(group);
    if (rank < 0 || rank >= group->size || !group->grp_to_abs) return -1;
    return group->grp_to_abs[rank];
}

void ARMCI_Group_get_world(ARMCI_Group *group_out)
{
    if (armcia_check_init("ARMCI_Group_get_world"))
        armcia_die("ARMCI_Group_get_world", ARBOR_ERR_NOT_INITIALIZED);
    world(group_out);
}

void ARMCI_Group_create_child(int grp_size, int *pid_list, ARMCI_Group *group_out,
                              ARMCI_Group *group_parent)
{
    const ARMCI_Group *parent = armcia_group_resolve(group_parent);
    if (!group_out || grp_size < 0 || (grp_size > 0 && !pid_list))
        armcia_die("ARMCI_Group_create", ARBOR_ERR_INVALID_ARG);
    int index = -1;
    for (int i = 0; i < grp_size; i++) {
        if (pid_list[i] < 0 || pid_list[i] >= parent->size)
            armcia_die("ARMCI_Group_create (process id)", ARBOR_ERR_RANK);
        if (pid_list[i] == parent->rank && index < 0) index = i;
    }
    /* Team rank = position in pid_list: ARMCI numbers a group's members in list order. */
    arbor_team_h team = NULL, parent_team = armcia_group_team(parent);
    arbor_status_t st = arbor_team_split(parent_team, index >= 0 ? 0 : -1, index, &team);
    if (st != ARBOR_OK) armcia_die("ARMCI_Group_create", st);
    MPI_Comm comm = armcia_comm_split(parent->comm, index >= 0 ? 0 : -1, index);
    int *members = malloc((size_t)(grp_size > 0 ? grp_size : 1) * sizeof *members);
    if (!members) armcia_die("ARMCI_Group_create", ARBOR_ERR_NO_MEMORY);
    for (int i = 0; i < grp_size; i++) members[i] = parent->grp_to_abs[pid_list[i]];
    armcia_group_adopt(group_out, team, comm, grp_size, members, index);
    free(members);
}

void armcia_group_adopt(ARMCI_Group *group_out, arbor_team_h team, MPI_Comm comm, int size,
                        const int *members, int index)
{
    memset(group_out, 0, sizeof *group_out);
    group_out->comm = comm;
    group_out->noncoll_pgroup_comm = armcia_comm_null();
    group_out->rank = -1;
    if (index < 0) return; /* not a member: an empty group, as in ARMCI-MPI */
    known_t *k = calloc(1, sizeof *k);
    int *g2a = malloc((size_t)size * sizeof *g2a);
    int *a2g = malloc((size_t)armcia_nproc * sizeof *a2g);
    if (!k || !g2a || !a2g) armcia_die("ARMCI group creation", ARBOR_ERR_NO_MEMORY);
    for (int a = 0; a < armcia_nproc; a++) a2g[a] = -1;
    for (int i = 0; i < size; i++) {
        g2a[i] = members[i];
        a2g[g2a[i]] = i;
    }
    k->grp_to_abs = g2a;
    k->abs_to_grp = a2g;
    k->team = team;
    k->next = groups;
    groups = k;
    group_out->grp_to_abs = g2a;
    group_out->abs_to_grp = a2g;
    group_out->rank = index;
    group_out->size = size;
}

void ARMCI_Group_create(int grp_size, int *pid_list, ARMCI_Group *group_out)
{
    ARMCI_Group_create_child(grp_size, pid_list, group_out, NULL);
}

void ARMCI_Group_free(ARMCI_Group *group)
{
    if (!group || !group->grp_to_abs || group->grp_to_abs == world_table)
        return; /* a non-member's empty group (no communicator), or the world */
    known_t **pp = &groups;
    while (*pp && (*pp)->grp_to_abs != group->grp_to_abs) pp = &(*pp)->next;
    if (!*pp) armcia_die("ARMCI_Group_free (unknown group)", ARBOR_ERR_TEAM);
    known_t *k = *pp;
    arbor_status_t st = arbor_team_free(&k->team);
    if (st != ARBOR_OK) armcia_die("ARMCI_Group_free", st);
    *pp = k->next;
    if (default_set && default_group.grp_to_abs == k->grp_to_abs)
        default_set = 0; /* the default goes back to the world */
    free(k->grp_to_abs);
    free(k->abs_to_grp);
    free(k);
    armcia_comm_free(&group->comm);
    memset(group, 0, sizeof *group);
    group->comm = armcia_comm_null();
    group->rank = -1;
}

int ARMCI_Group_rank(ARMCI_Group *group, int *rank)
{
    if (!group || !rank) return ARBOR_ERR_INVALID_ARG;
    *rank = group->rank;
    return 0;
}

void ARMCI_Group_size(ARMCI_Group *group, int *size)
{
    if (group && size) *size = group->size;
}

void ARMCI_Group_set_default(ARMCI_Group *group)
{
    if (!group) armcia_die("ARMCI_Group_set_default", ARBOR_ERR_INVALID_ARG);
    default_group = *group;
    default_set = 1;
}

void ARMCI_Group_get_default(ARMCI_Group *group_out)
{
    if (group_out) *group_out = *armcia_group_resolve(NULL);
}

int ARMCI_Absolute_id(ARMCI_Group *group, int group_rank)
{
    return armcia_group_abs(group, group_rank);
}

void armcia_group_fini(void)
{
    while (groups) { /* teams go with arbor_finalize; only the tables are ours */
        known_t *k = groups;
        groups = k->next;
        free(k->grp_to_abs);
        free(k->abs_to_grp);
        free(k);
    }
    free(world_table);
    world_table = NULL;
    default_set = 0;
}
