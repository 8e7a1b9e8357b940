/*
 * LogGP simulation of a one-message broadcast over a tree (tree.h), used by the selector to
 * price trees and by the tests to check optimality. A node that holds the data at r starts
 * its i-th send (0-based, children in send order) at r + i * s(m); the child holds the data
 * T(m) later. Slots are summed one s at a time and a child is ready at slot + T, the same
 * arithmetic as the Karp builder's (tree.c), so both agree to the last bit.
 */
#include "algorithms/tree.h"
#include "arbor.h"

#include <math.h>
#include <stdlib.h>

/* Returns INFINITY when the tree is malformed (a node unreachable from the root, a child out
 * of range or reached twice) or when memory runs out; ready_us / send_us are then undefined. */
double arb_tree_simulate(const arb_tree_t *tree, const arb_logp_t *model, size_t bytes,
                         double *ready_us, double *send_us)
{
    int P;
    double T, s, done = 0;
    double *ready;
    int *queue;
    int head = 0, tail = 0;

    if (tree == NULL || model == NULL || tree->size < 1 || tree->parent == NULL ||
        tree->child_start == NULL || (tree->size > 1 && tree->children == NULL))
        return INFINITY;
    P = tree->size;
    T = arb_logp_arrival(model, bytes);
    s = arb_logp_gap(model, bytes);
    ready = ready_us != NULL ? ready_us : malloc((size_t)P * sizeof(double));
    queue = malloc((size_t)P * sizeof(int));
    if (ready == NULL || queue == NULL) {
        done = INFINITY;
        goto out;
    }
    for (int v = 0; v < P; v++) ready[v] = -1;
    /* Breadth-first from the root: a node's ready time is final once its parent's is. */
    ready[0] = 0;
    queue[tail++] = 0;
    while (head < tail) {
        int u = queue[head++];
        int first = tree->child_start[u], last = tree->child_start[u + 1];
        if (first < 0 || last < first || last > P - 1) {
            done = INFINITY;
            goto out;
        }
        if (send_us != NULL) send_us[u] = ready[u]; /* the first send starts at once */
        if (ready[u] > done) done = ready[u];
        double slot = ready[u];
        for (int i = first; i < last; i++, slot += s) {
            int c = tree->children[i];
            if (c <= 0 || c >= P || ready[c] >= 0 || tail == P) {
                done = INFINITY;
                goto out;
            }
            ready[c] = slot + T;
            queue[tail++] = c;
        }
    }
    if (tail != P) done = INFINITY;
out:
    free(queue);
    if (ready != ready_us) free(ready);
    return done;
}
