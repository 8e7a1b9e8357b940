/*
 * The selector: every candidate of a family is priced by its LogGP cost function and the
 * cheapest runs; ties keep the earlier table entry. A forced algorithm (ARBOR_<COLL>_ALGORITHM)
 * is taken as is. The core caches the resulting schedule per (collective, root, size).
 */
#include "algorithms/coll.h"

#include <math.h>

extern const arb_alg_desc_t arb_barrier_algs[], arb_bcast_algs[];
extern const int arb_barrier_nalgs, arb_bcast_nalgs;

const arb_alg_desc_t *arb_alg_table(arb_coll_t coll, int *n_p)
{
    switch (coll) {
    case ARB_COLL_BARRIER: *n_p = arb_barrier_nalgs; return arb_barrier_algs;
    case ARB_COLL_BCAST: *n_p = arb_bcast_nalgs; return arb_bcast_algs;
    default: *n_p = 0; return NULL;
    }
}

const char *arb_coll_name(arb_coll_t coll)
{
    static const char *const names[] = {
        "barrier",   "bcast",      "scatter", "scatterv",  "gather",         "gatherv",
        "allgather", "allgatherv", "alltoall", "alltoallv", "reduce",         "allreduce",
        "reduce_scatter", "scan",  "exscan"};
    return coll < ARB_COLL_KINDS ? names[coll] : "?";
}

int arb_select(const arb_coll_args_t *a, const arb_logp_t *m, int forced, double *predicted)
{
    int n, best = 1;
    const arb_alg_desc_t *tab = arb_alg_table(a->coll, &n);
    double best_t = INFINITY;

    for (int i = 1; i < n; i++) {
        double t = tab[i].cost ? tab[i].cost(&tab[i], a, m) : INFINITY;
        if (predicted) predicted[i] = t;
        if (t < best_t) best_t = t, best = i;
    }
    return forced > 0 && forced < n ? forced : best;
}
