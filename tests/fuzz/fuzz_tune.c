/*
 * libFuzzer target: the ARBOR_TUNE rules (algorithms/tune.c). Accepted rules hold ordered
 * ranges (ranks from 1), a known collective and an algorithm of its table; a rejected text
 * leaves the previous rules as they were.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "algorithms/tune.h"

int arb_fuzz_tune(const uint8_t *data, size_t size)
{
    if (size > 2048) return 0;
    char text[2049], err[512];
    memcpy(text, data, size);
    text[size] = '\0';
    arb_tune_t t = {.n = -1};
    if (arb_tune_parse(text, &t, err, sizeof(err)) != ARBOR_OK) {
        if (t.n != -1) abort(); /* rejected, yet the output changed */
        return 0;
    }
    if (t.n < 0 || t.n > ARB_TUNE_MAX_RULES) abort();
    for (int i = 0; i < t.n; i++) {
        const arb_tune_rule_t *r = &t.rule[i];
        int n;
        if ((int)r->coll < 0 || r->coll >= ARB_COLL_KINDS) abort();
        arb_alg_table(r->coll, &n);
        if (r->lo > r->hi || r->rlo < 1 || r->rlo > r->rhi || r->alg < 1 || r->alg >= n) {
            fprintf(stderr, "'%s': rule %d accepted with lo %zu hi %zu ranks %d-%d alg %d\n", text,
                    i, r->lo, r->hi, r->rlo, r->rhi, r->alg);
            abort();
        }
    }
    return 0;
}
