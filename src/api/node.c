/*
 * Which ranks share a node: the launcher's answer (PMIx local peers, read at arbor_init), so
 * that clients can group ranks by node (ARMCI's SMP domains, node-local teams) with nothing but
 * arbor.h. Nodes are numbered in order of first appearance over the world ranks, the same
 * numbers on every rank.
 */
#include "runtime/context.h"

arbor_status_t arbor_node_count(int *nodes_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (!nodes_p) return ARBOR_ERR_INVALID_ARG;
    /* node_of is built once at init and never changes: no lock needed to read it. */
    *nodes_p = arb_ctx.node_of ? arb_ctx.nnodes : 1;
    return ARBOR_OK;
}

arbor_status_t arbor_rank_node(int rank, int *node_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (!node_p) return ARBOR_ERR_INVALID_ARG;
    if (rank < 0 || rank >= arb_ctx.size) return ARBOR_ERR_RANK;
    *node_p = arb_ctx.node_of ? arb_ctx.node_of[rank] : 0;
    return ARBOR_OK;
}
