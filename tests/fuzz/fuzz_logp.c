/*
 * libFuzzer target: the ARBOR_LOGP syntax (algorithms/logp.c). An accepted text gives finite,
 * non-negative parameters within the parser's bound, and every algorithm's predicted cost for
 * a large collective is a number (finite, or INFINITY where the algorithm cannot run), never
 * NaN, so the selector's comparisons stay meaningful.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "algorithms/coll.h"
#include "algorithms/logp.h"

int arb_fuzz_logp(const uint8_t *data, size_t size)
{
    if (size > 1024) return 0;
    char text[1025], err[256];
    memcpy(text, data, size);
    text[size] = '\0';
    arb_logp_t m;
    arb_logp_default_mapped(&m);
    if (arb_logp_parse(text, &m, err, sizeof(err)) != ARBOR_OK) return 0;
    const double v[5] = {m.L, m.os, m.orecv, m.g, m.G};
    for (int i = 0; i < 5; i++)
        if (!isfinite(v[i]) || v[i] < 0 || v[i] > 1e6) {
            fprintf(stderr, "'%s' accepted with parameter %d = %g\n", text, i, v[i]);
            abort();
        }
    for (int c = 0; c < ARB_COLL_KINDS; c++) {
        if (c == ARB_COLL_SCATTERV || c == ARB_COLL_GATHERV || c == ARB_COLL_ALLGATHERV ||
            c == ARB_COLL_ALLTOALLV || c == ARB_COLL_REDUCE_SCATTER)
            continue; /* their costs need count arrays */
        int n;
        const arb_alg_desc_t *tab = arb_alg_table((arb_coll_t)c, &n);
        arb_coll_args_t a = {.coll = (arb_coll_t)c,
                             .size = 1024,
                             .bytes = (size_t)1 << 40,
                             .chunk = 65536,
                             .count = (size_t)1 << 37,
                             .commutative = 1};
        for (int i = 1; i < n; i++) {
            double t = tab[i].cost(&tab[i], &a, &m);
            if (isnan(t) || t < 0) {
                fprintf(stderr, "'%s': %s/%s cost %g\n", text, arb_coll_name((arb_coll_t)c),
                        tab[i].name, t);
                abort();
            }
        }
    }
    return 0;
}
