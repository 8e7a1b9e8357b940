/*
 * The selector: every candidate of a family is priced by its LogGP cost function and the
 * cheapest runs; ties keep the earlier table entry. A forced algorithm (ARBOR_<COLL>_ALGORITHM)
 * is taken as is. The core caches the resulting schedule per (collective, root, size).
 */
#include "algorithms/coll.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

static const struct {
    const arb_alg_desc_t *table;
    const int *n;
    const char *const *names;
} families[ARB_COLL_KINDS] = {
#define FAMILY(_NAME, _name, _SHAPE)                                                               \
    [ARB_COLL_##_NAME] = {arb_##_name##_algs, &arb_##_name##_nalgs, arb_##_name##_alg_names},
    ARB_COLL_LIST(FAMILY)
#undef FAMILY
};

const arb_alg_desc_t *arb_alg_table(arb_coll_t coll, int *n_p)
{
    if ((unsigned)coll >= ARB_COLL_KINDS) {
        *n_p = 0;
        return NULL;
    }
    *n_p = *families[coll].n;
    return families[coll].table;
}

const char *const *arb_alg_names(arb_coll_t coll)
{
    return (unsigned)coll < ARB_COLL_KINDS ? families[coll].names : NULL;
}

const char *arb_coll_name(arb_coll_t coll)
{
    static const char *const names[] = {
#define NAME(_NAME, _name, _SHAPE) [ARB_COLL_##_NAME] = #_name,
        ARB_COLL_LIST(NAME)
#undef NAME
    };
    return coll < ARB_COLL_KINDS ? names[coll] : "?";
}

int arb_alg_with_needs(arb_coll_t coll, unsigned needs)
{
    int n;
    const arb_alg_desc_t *tab = arb_alg_table(coll, &n);
    for (int i = 1; tab && i < n; i++)
        if (tab[i].needs & needs) return i;
    return 0;
}

/* The table index of a family's algorithm by name (0 when absent). */
static int index_of(arb_coll_t coll, const char *name)
{
    int n;
    const arb_alg_desc_t *tab = arb_alg_table(coll, &n);
    for (int i = 1; i < n; i++)
        if (!strcmp(tab[i].name, name)) return i;
    return 0;
}

/* The sync flags promise that no member leaves (OUT) or starts (IN) before every member has
 * arrived: a barrier in which every rank learns of everyone's arrival itself. Dissemination
 * does that in ceil(log2 P) rounds without a root, so no rank is released ahead of the rest (a
 * flat or tree barrier lets rank 0 out first), on every team shape. Not priced by the model:
 * the composed schedule is cached with the collective's, and the choice must not depend on
 * the size class of the call it wraps. */
int arb_select_sync_barrier(const arb_coll_args_t *a, const arb_logp_t *m)
{
    (void)a, (void)m;
    return index_of(ARB_COLL_BARRIER, "dissemination");
}

int arb_select(const arb_coll_args_t *a, const arb_logp_t *m, int forced, double *predicted)
{
    int n, best = 1;
    const arb_alg_desc_t *tab = arb_alg_table(a->coll, &n);
    double best_t = INFINITY, best_path = INFINITY, best_fwd = INFINITY;

    bool multi = arb_topo_multi(a->topo);
    for (int i = 1; i < n; i++) {
        const arb_logp_t *mi = multi && !tab[i].topo_aware ? &a->topo->inter : m;
        /* A candidate this call's transport view cannot run is not a candidate. */
        bool runs = (tab[i].needs & ~a->caps) == 0;
        double t = runs && tab[i].cost ? tab[i].cost(&tab[i], a, mi) : INFINITY;
        /* Ranks sharing too few CPUs: no faster than the CPUs can do every message's work. */
        double path = t, fwd = 0; /* the critical path alone; chunks forwarded */
        if (a->topo && a->topo->nshared > 0 && isfinite(t)) {
            double bound = arb_oversub_bound(&tab[i], a, m, &fwd);
            if (bound > t) t = bound;
        }
        t += isfinite(t) ? m->call : 0; /* the call's own cost: the same for every candidate */
        if (predicted) predicted[i] = t;
        /* Two candidates the CPU bound prices alike (within 1%: the same bytes through the same
         * CPUs) are told apart first by the chunks their ranks forward, then by their critical
         * paths. A forward needs its rank on a CPU between a chunk's arrival and its send, and
         * with more ranks than CPUs that rank is often waiting for one: allgather 256 KiB at P =
         * 4 on 2 cores measured direct (no forwards) 1.27-2.1x faster than ring in three of four
         * bench/fidelity runs, though ring's critical path is the shorter (docs/PERFORMANCE.md). */
        bool alike =
            arb_topo_oversubscribed(a->topo) && isfinite(t) && fabs(t - best_t) <= 0.01 * best_t;
        bool better = alike ? fwd < best_fwd || (fwd == best_fwd && path < best_path) : t < best_t;
        if (better) best_t = t, best = i, best_path = path, best_fwd = fwd;
    }
    return forced > 0 && forced < n ? forced : best;
}
