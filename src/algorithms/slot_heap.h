/*
 * A min-heap of send slots (time, rank), ordered by time then rank, shared by the tree builders
 * whose greedy serves the earliest free sender next (tree.c's Karp, tree_topo.c's node-aware
 * Karp). Ties break on the rank so every rank builds the same tree.
 */
#ifndef ARB_ALGORITHMS_SLOT_HEAP_H
#define ARB_ALGORITHMS_SLOT_HEAP_H

#include <stdbool.h>

typedef struct {
    double t; /* next free send slot of v */
    int v;
} arb_slot_t;

static inline bool arb_slot_less(const arb_slot_t *a, const arb_slot_t *b)
{
    return a->t < b->t || (a->t == b->t && a->v < b->v);
}

static inline void arb_slot_sift_down(arb_slot_t *h, int n, int i)
{
    arb_slot_t e = h[i];
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && arb_slot_less(&h[c + 1], &h[c])) c++;
        if (!arb_slot_less(&h[c], &e)) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = e;
}

static inline void arb_slot_push(arb_slot_t *h, int *n, arb_slot_t e)
{
    int i = (*n)++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!arb_slot_less(&e, &h[p])) break;
        h[i] = h[p];
        i = p;
    }
    h[i] = e;
}

#endif /* ARB_ALGORITHMS_SLOT_HEAP_H */
