/* ARMCI's SMP domains are arbor's nodes (arbor_node_count / arbor_rank_node: the launcher's
 * view of which ranks share a host). Domain ids are arbor's node numbers (order of first
 * appearance over the world ranks); a domain's processes are numbered 0.. in world-rank order,
 * so its first process (its "master") is its lowest world rank. ARMCI_Uses_shm stays 0: the
 * addresses ARMCI_Malloc returns for other processes are not mapped here, whatever the node. */
#include "armci_arbor.h"

#include <stdlib.h>

static int nodes;       /* number of domains */
static int *node_of;    /* [nproc] domain of every world rank */
static int *node_first; /* [nodes + 1] where each domain's ranks start in node_ranks */
static int *node_ranks; /* [nproc] world ranks grouped by domain, ascending in each */
static int *masters;    /* [nodes] each domain's lowest world rank */
static arbor_team_h node_team, masters_team; /* ARBOR_TEAM_NULL: a one-member scope */

int armcia_domain_init(void)
{
    arbor_status_t st = arbor_node_count(&nodes);
    int n = armcia_nproc;
    node_of = malloc((size_t)n * sizeof *node_of);
    node_first = calloc((size_t)nodes + 1, sizeof *node_first);
    node_ranks = malloc((size_t)n * sizeof *node_ranks);
    masters = malloc((size_t)nodes * sizeof *masters);
    if (st == ARBOR_OK && (!node_of || !node_first || !node_ranks || !masters))
        st = ARBOR_ERR_NO_MEMORY;
    for (int r = 0; st == ARBOR_OK && r < n; r++) {
        st = arbor_rank_node(r, &node_of[r]);
        if (st == ARBOR_OK) node_first[node_of[r] + 1]++;
    }
    if (st != ARBOR_OK) return st;
    for (int d = 0; d < nodes; d++) node_first[d + 1] += node_first[d];
    int *fill = malloc((size_t)nodes * sizeof *fill);
    if (!fill) return ARBOR_ERR_NO_MEMORY;
    for (int d = 0; d < nodes; d++) fill[d] = node_first[d];
    for (int r = 0; r < n; r++) node_ranks[fill[node_of[r]]++] = r;
    free(fill);
    for (int d = 0; d < nodes; d++) masters[d] = node_ranks[node_first[d]];
    /* The node and masters scopes of the armci_msg_* calls. Teams are made only where they have
     * more than one member and differ from the world: one node (the node is the world, the
     * masters one process), or one process per node (the masters are the world). The same
     * choice on every rank, since every rank sees the same table. */
    int me = armcia_me, my_node = node_of[me];
    int my_node_size = node_first[my_node + 1] - node_first[my_node];
    node_team = masters_team = ARBOR_TEAM_NULL;
    if (nodes == 1) {
        node_team = ARBOR_TEAM_WORLD;
    } else if (nodes == n) {
        masters_team = ARBOR_TEAM_WORLD;
    } else {
        st = arbor_team_split(ARBOR_TEAM_WORLD, my_node_size > 1 ? my_node : -1, me, &node_team);
        if (st == ARBOR_OK)
            st = arbor_team_split(ARBOR_TEAM_WORLD, masters[my_node] == me ? 0 : -1, me,
                                  &masters_team);
    }
    return st;
}

void armcia_domain_fini(void)
{
    free(node_of);
    free(node_first);
    free(node_ranks);
    free(masters);
    node_of = node_first = node_ranks = masters = NULL;
    nodes = 0;
    node_team = masters_team = ARBOR_TEAM_NULL; /* teams go with arbor_finalize */
}

int armcia_domain_of(int proc)
{
    return node_of && proc >= 0 && proc < armcia_nproc ? node_of[proc] : -1;
}

const int *armcia_domain_members(int domain, int *count_p)
{
    *count_p = node_first[domain + 1] - node_first[domain];
    return node_ranks + node_first[domain];
}

const int *armcia_domain_masters(int *count_p)
{
    *count_p = nodes;
    return masters;
}

arbor_team_h armcia_domain_node_team(void)
{
    return node_team;
}

arbor_team_h armcia_domain_masters_team(void)
{
    return masters_team;
}

/* The ARMCI calls. ARMCI has one kind of domain, ARMCI_DOMAIN_SMP; any other gives -1. */

int armci_domain_count(armci_domain_t domain)
{
    return domain == ARMCI_DOMAIN_SMP && node_of ? nodes : -1;
}

int armci_domain_id(armci_domain_t domain, int glob_proc_id)
{
    return domain == ARMCI_DOMAIN_SMP ? armcia_domain_of(glob_proc_id) : -1;
}

int armci_domain_my_id(armci_domain_t domain)
{
    return armci_domain_id(domain, armcia_me);
}

int armci_domain_nprocs(armci_domain_t domain, int id)
{
    if (domain != ARMCI_DOMAIN_SMP || !node_of || id < 0 || id >= nodes) return -1;
    return node_first[id + 1] - node_first[id];
}

int armci_domain_glob_proc_id(armci_domain_t domain, int id, int loc_proc_id)
{
    int size = armci_domain_nprocs(domain, id);
    if (size < 0 || loc_proc_id < 0 || loc_proc_id >= size) return -1;
    return node_ranks[node_first[id] + loc_proc_id];
}

int armci_domain_same_id(armci_domain_t domain, int proc)
{
    int d = armci_domain_id(domain, proc);
    return d >= 0 && d == armcia_domain_of(armcia_me);
}

int ARMCI_Same_node(int proc)
{
    return armci_domain_same_id(ARMCI_DOMAIN_SMP, proc);
}
