/*
 * Site rules that pin algorithm choices (the idea of UCC's tune strings and Open MPI's rules
 * files), from ARBOR_TUNE:
 *   bcast:0-32k:@binomial#bcast:32k-inf:ranks=4-64:@flat
 * Rules are separated by '#'; each is collective : byte range [: ranks=lo-hi] : @algorithm.
 * Sizes take K, M, G suffixes and "inf"; ranges are inclusive. The first matching rule wins.
 */
#ifndef ARB_ALGORITHMS_TUNE_H
#define ARB_ALGORITHMS_TUNE_H

#include <stdbool.h>
#include <stddef.h>

#include "algorithms/coll.h"

#define ARB_TUNE_MAX_RULES 32

typedef struct {
    arb_coll_t coll;
    size_t lo, hi;
    int rlo, rhi;
    int alg; /* index in the collective's algorithm table */
} arb_tune_rule_t;

typedef struct {
    arb_tune_rule_t rule[ARB_TUNE_MAX_RULES];
    int n;
} arb_tune_t;

/* ARBOR_ERR_CONFIG with the reason in err (naming the bad rule and the valid names). */
arbor_status_t arb_tune_parse(const char *text, arb_tune_t *tune, char *err, size_t errlen);

/* What the built-in rules depend on: the job, as every rank sees it alike. */
typedef struct {
    bool oversubscribed; /* some node runs more ranks than cores, and the model prices it
                          * (ARBOR_OVERSUB_WAKE on, no hand-set ARBOR_LOGP) */
} arb_tune_env_t;

/* The built-in rules, used when ARBOR_TUNE is empty: the choices the LogGP model cannot make
 * alone (today: the barrier on an oversubscribed node). */
void arb_tune_defaults(arb_tune_t *tune, const arb_tune_env_t *env);

/* The algorithm the first matching rule names, or 0 when none matches. */
int arb_tune_match(const arb_tune_t *tune, arb_coll_t coll, size_t bytes, int ranks);

#endif /* ARB_ALGORITHMS_TUNE_H */
