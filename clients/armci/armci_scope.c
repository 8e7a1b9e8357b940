/* The scopes of the armci_msg_* calls (message.h): SCOPE_ALL is the group; SCOPE_NODE the
 * group's processes on this process's node (SMP domain); SCOPE_MASTERS one process per node,
 * its first (lowest) rank, and only those call. Over the world the node and masters teams are
 * made once by ARMCI_Init (armci_domain.c); a node scope of another group is split from the
 * group's team for the call, when some node holds more than one of its members. */
#include "armci_arbor.h"

#include <stdlib.h>

static int fail(armcia_scope_t *s, int status)
{
    free(s->owned);
    s->owned = NULL;
    return status;
}

static int index_of(const int *list, int n, int value)
{
    for (int i = 0; i < n; i++)
        if (list[i] == value) return i;
    return -1;
}

/* The group's members on this node (in group order), and whether any node has two of them. */
static int group_node_scope(const ARMCI_Group *g, arbor_team_h group_team, armcia_scope_t *s)
{
    int my_node = armcia_domain_of(armcia_me), crowded = 0;
    s->owned = malloc((size_t)g->size * sizeof *s->owned);
    int *seen = calloc((size_t)armci_domain_count(ARMCI_DOMAIN_SMP), sizeof *seen);
    if (!s->owned || !seen) {
        free(seen);
        return fail(s, ARBOR_ERR_NO_MEMORY);
    }
    for (int i = 0; i < g->size; i++) {
        int node = armcia_domain_of(g->grp_to_abs[i]);
        crowded |= ++seen[node] > 1;
        if (node == my_node) s->owned[s->size++] = g->grp_to_abs[i];
    }
    free(seen);
    s->members = s->owned;
    s->rank = index_of(s->owned, s->size, armcia_me);
    s->team = ARBOR_TEAM_NULL;
    if (!crowded) return ARBOR_OK; /* every member alone on its node: this process alone */
    arbor_status_t st = arbor_team_split(group_team, s->size > 1 ? my_node : -1, g->rank, &s->team);
    if (st != ARBOR_OK) return fail(s, st);
    s->split = 1;
    return ARBOR_OK;
}

int armcia_scope_open(int scope, const ARMCI_Group *group, armcia_scope_t *s)
{
    *s = (armcia_scope_t){ARBOR_TEAM_NULL, 0, -1, NULL, NULL, 0};
    /* The calls without a group span the world, whatever the default group (as in ARMCI-MPI). */
    ARMCI_Group world_group;
    if (!group) {
        ARMCI_Group_get_world(&world_group);
        group = &world_group;
    }
    const ARMCI_Group *g = group;
    if (g->rank < 0 || !g->grp_to_abs) return ARBOR_ERR_TEAM; /* not a member of the group */
    arbor_team_h team = armcia_group_team(g);
    int world = team == ARBOR_TEAM_WORLD;
    switch (scope) {
    case SCOPE_ALL:
        *s = (armcia_scope_t){team, g->size, g->rank, g->grp_to_abs, NULL, 0};
        return ARBOR_OK;
    case SCOPE_NODE:
        if (!world) return group_node_scope(g, team, s);
        s->members = armcia_domain_members(armcia_domain_of(armcia_me), &s->size);
        s->rank = index_of(s->members, s->size, armcia_me);
        s->team = s->size > 1 ? armcia_domain_node_team() : ARBOR_TEAM_NULL;
        return ARBOR_OK;
    case SCOPE_MASTERS:
        if (!world) {
            /* The masters of a group are a subset only some members enter: without a team of
             * theirs made beforehand there is no collective among them. Where every member is
             * alone on its node they are the whole group. */
            armcia_scope_t node;
            int st = group_node_scope(g, team, &node);
            if (st != ARBOR_OK) return st;
            int alone = !node.split;
            armcia_scope_close(&node);
            if (!alone) return ARBOR_ERR_UNSUPPORTED;
            *s = (armcia_scope_t){team, g->size, g->rank, g->grp_to_abs, NULL, 0};
            return ARBOR_OK;
        }
        s->members = armcia_domain_masters(&s->size);
        s->rank = index_of(s->members, s->size, armcia_me);
        if (s->rank < 0) return ARBOR_ERR_RANK; /* only each node's first process calls */
        s->team = s->size > 1 ? armcia_domain_masters_team() : ARBOR_TEAM_NULL;
        return ARBOR_OK;
    default:
        return ARBOR_ERR_INVALID_ARG;
    }
}

void armcia_scope_close(armcia_scope_t *s)
{
    if (s->split && s->team != ARBOR_TEAM_NULL) {
        arbor_status_t st = arbor_team_free(&s->team);
        if (st != ARBOR_OK) armcia_die("armci_msg_* (freeing a node scope)", st);
    }
    free(s->owned);
    *s = (armcia_scope_t){ARBOR_TEAM_NULL, 0, -1, NULL, NULL, 0};
}

int armcia_scope_rank_of(const armcia_scope_t *s, int world_rank)
{
    return index_of(s->members, s->size, world_rank);
}
