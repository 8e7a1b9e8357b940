/*
 * Broadcast trees over virtual ranks 0..P-1 with the root at 0 (a real root r is handled by
 * relabelling: real = (virtual + r) mod P). Every rank builds the same tree with no
 * communication. Children are kept in send order. Reduction uses the same tree reversed.
 */
#ifndef ARB_ALGORITHMS_TREE_H
#define ARB_ALGORITHMS_TREE_H

#include <stddef.h>

#include "algorithms/logp.h"
#include "arbor.h"

typedef enum {
    ARB_TREE_KARP = 0, /* LogP-optimal greedy (Karp, Sahay, Santos, Schauser 1993) */
    ARB_TREE_BINOMIAL, /* largest subtree first: for P = 8 the root sends to 4, 2, 1 */
    ARB_TREE_KNOMIAL,  /* radix k */
    ARB_TREE_BINARY,   /* heap numbering: children 2v+1 then 2v+2 */
    ARB_TREE_FLAT,     /* root sends to 1, 2, ..., P-1 in order */
    ARB_TREE_KINDS
} arb_tree_kind_t;

typedef struct {
    int size;         /* P */
    int *parent;      /* [P] parent of v, -1 for the root (v = 0) */
    int *child_start; /* [P+1] children of v are children[child_start[v] .. child_start[v+1]) */
    int *children;    /* [P-1] in send order */
} arb_tree_t;

/* Builds a tree of kind for P ranks; radix is used by KNOMIAL (>= 2); model and bytes by KARP.
 * The tree owns its arrays (arb_tree_free). ARBOR_ERR_INVALID_ARG for P < 1 or a bad radix. */
arbor_status_t arb_tree_build(arb_tree_kind_t kind, int size, int radix, const arb_logp_t *model,
                              size_t bytes, arb_tree_t *tree);
void arb_tree_free(arb_tree_t *tree);

/* Simulates a one-message broadcast of bytes over the tree under the model: per virtual rank
 * the time it starts each send (send_us[v] = time of its first send, may be NULL) and the time
 * it holds the data (ready_us, may be NULL); returns the completion time (the last ready). */
double arb_tree_simulate(const arb_tree_t *tree, const arb_logp_t *model, size_t bytes,
                         double *ready_us, double *send_us);

const char *arb_tree_kind_name(arb_tree_kind_t kind);

#endif /* ARB_ALGORITHMS_TREE_H */
