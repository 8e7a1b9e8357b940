/* ARMCIX_Group_split / ARMCIX_Group_dup (ARMCI-MPI's armcix.h): groups made the way
 * MPI_Comm_split makes communicators, over arbor_team_split of the parent group's team. */
#include "armci_arbor.h"

#include <armcix.h>
#include <stdlib.h>

/* Orders the members of one colour: by key, then by rank in the parent (MPI_Comm_split's and
 * arbor_team_split's order). */
typedef struct {
    int key, parent_rank;
} member_t;

static int by_key_then_rank(const void *a, const void *b)
{
    const member_t *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->parent_rank > y->parent_rank) - (x->parent_rank < y->parent_rank);
}

int ARMCIX_Group_split(ARMCI_Group *parent, int color, int key, ARMCI_Group *new_group)
{
    int rc = armcia_check_init("ARMCIX_Group_split");
    if (rc) return rc;
    if (!parent || !new_group) return armcia_status("ARMCIX_Group_split", ARBOR_ERR_INVALID_ARG);
    const ARMCI_Group *p = armcia_group_resolve(parent);
    if (p->rank < 0 || !p->grp_to_abs) /* this process is not in @p parent */
        return armcia_status("ARMCIX_Group_split", ARBOR_ERR_TEAM);
    /* Every member learns every member's (colour, key), so each knows its new group's list. */
    int mine[2] = {color, key};
    int *all = malloc(2 * (size_t)p->size * sizeof *all);
    member_t *members = malloc((size_t)p->size * sizeof *members);
    int *abs_ranks = malloc((size_t)p->size * sizeof *abs_ranks);
    if (!all || !members || !abs_ranks) armcia_die("ARMCIX_Group_split", ARBOR_ERR_NO_MEMORY);
    arbor_team_h parent_team = armcia_group_team(p), team = ARBOR_TEAM_NULL;
    arbor_status_t st = arbor_allgather(parent_team, mine, all, 2, ARBOR_INT);
    if (st == ARBOR_OK) st = arbor_team_split(parent_team, color >= 0 ? color : -1, key, &team);
    int size = 0, index = -1;
    if (st == ARBOR_OK && color >= 0) {
        for (int r = 0; r < p->size; r++)
            if (all[2 * r] == color) members[size++] = (member_t){all[2 * r + 1], r};
        qsort(members, (size_t)size, sizeof *members, by_key_then_rank);
        for (int i = 0; i < size; i++) {
            if (members[i].parent_rank == p->rank) index = i;
            abs_ranks[i] = p->grp_to_abs[members[i].parent_rank];
        }
    }
    if (st == ARBOR_OK)
        armcia_group_adopt(new_group, team, armcia_comm_split(p->comm, color, key), size, abs_ranks,
                           index);
    free(all);
    free(members);
    free(abs_ranks);
    return armcia_status("ARMCIX_Group_split", st);
}

int ARMCIX_Group_dup(ARMCI_Group *parent, ARMCI_Group *new_group)
{
    if (!parent) return armcia_status("ARMCIX_Group_dup", ARBOR_ERR_INVALID_ARG);
    return ARMCIX_Group_split(parent, 0, armcia_group_resolve(parent)->rank, new_group);
}
