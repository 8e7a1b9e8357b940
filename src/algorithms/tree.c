/*
 * Broadcast tree builders (tree.h) over virtual ranks 0..P-1, root 0, children in send order.
 *
 * KARP is the LogP-optimal greedy of Karp, Sahay, Santos and Schauser, "Optimal broadcast and
 * summation in the LogP model" (SPAA 1993): every informed node sends to a new node as early
 * as it can. A node ready at r can start sends at r, r + s, r + 2s, ... and each send informs
 * its receiver T later (T = T(m), s = s(m) of logp.h). Think of the infinite tree in which
 * every node uses all of its send slots: a broadcast tree is a subset closed under "parent"
 * and "earlier sibling", both of which are ready no later, so taking the P earliest nodes of
 * that infinite tree is optimal, and a min-heap of (next send slot, node) yields them in
 * order. Ties break on (time, node id) and nodes are numbered in the order they are informed,
 * so every rank builds the same tree with no communication, in O(P log P).
 *
 * A node's first slot is its ready time, each later slot the previous one + s, and a receiver
 * is ready at slot + T: the same arithmetic as arb_tree_simulate (tree_sim.c), so the
 * simulated completion of a Karp tree is exactly the time the greedy computed.
 *
 * BINOMIAL / KNOMIAL (radix k): node v's children are v + j * k^i for i below the place of
 * v's lowest nonzero base-k digit (any i for the root), i decreasing and j = 1..k-1, as long as
 * they are < P. Radix 2 is the binomial tree: for P = 8 the root sends to 4, 2, 1.
 * BINARY: heap numbering, children 2v+1 then 2v+2. FLAT: the root sends to 1..P-1.
 */
#include "algorithms/slot_heap.h"
#include "algorithms/tree.h"
#include "arbor.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static arbor_status_t tree_alloc(arb_tree_t *tree, int P)
{
    size_t n = (size_t)P;

    tree->size = P;
    tree->parent = malloc(n * sizeof(int));
    tree->child_start = malloc((n + 1) * sizeof(int));
    tree->children = malloc((n > 1 ? n - 1 : 1) * sizeof(int));
    if (tree->parent == NULL || tree->child_start == NULL || tree->children == NULL) {
        arb_tree_free(tree);
        return ARBOR_ERR_NO_MEMORY;
    }
    return ARBOR_OK;
}

/* Fills child_start / children from parent[], keeping children of each node in increasing id
 * order (which is the send order for the Karp tree: nodes are numbered as they are informed).
 * Uses child_start as the fill cursor. */
static void csr_from_parents(arb_tree_t *tree)
{
    int P = tree->size;
    int *cs = tree->child_start;

    memset(cs, 0, ((size_t)P + 1) * sizeof(int));
    for (int v = 1; v < P; v++) cs[tree->parent[v] + 1]++;
    for (int v = 0; v < P; v++) cs[v + 1] += cs[v];
    /* cs[u] is now the start of u's block; advance it while filling, then shift back. */
    for (int v = 1; v < P; v++) tree->children[cs[tree->parent[v]]++] = v;
    for (int v = P; v > 0; v--) cs[v] = cs[v - 1];
    cs[0] = 0;
}

static arbor_status_t build_karp(arb_tree_t *tree, const arb_logp_t *m, size_t bytes)
{
    int P = tree->size;
    double T = arb_logp_arrival(m, bytes), s = arb_logp_gap(m, bytes);
    arb_slot_t *heap = malloc((size_t)P * sizeof(arb_slot_t));
    int n = 0;

    if (heap == NULL) return ARBOR_ERR_NO_MEMORY;
    tree->parent[0] = -1;
    arb_slot_push(heap, &n, (arb_slot_t){0.0, 0});
    for (int v = 1; v < P; v++) {
        /* The earliest free sender u informs v; u's next slot is s later. Each node is in the
         * heap once, so the heap never holds more than P entries. */
        int u = heap[0].v;
        double t = heap[0].t;
        tree->parent[v] = u;
        heap[0].t = t + s;
        arb_slot_sift_down(heap, n, 0);
        arb_slot_push(heap, &n, (arb_slot_t){t + T, v});
    }
    free(heap);
    csr_from_parents(tree);
    return ARBOR_OK;
}

/* k-nomial tree of radix k (k = 2: binomial). pw[] holds k^0, k^1, ... below P. */
static void build_knomial(arb_tree_t *tree, int k)
{
    int P = tree->size;
    long long pw[64];
    int np = 0, pos = 0;

    /* x < P <= INT_MAX and k <= INT_MAX, so x * k cannot overflow a long long. */
    for (long long x = 1; x < P && np < 64; x *= k) pw[np++] = x;
    tree->parent[0] = -1;
    for (int v = 0; v < P; v++) {
        /* Places usable by v: below the place of its lowest nonzero digit (all for the root). */
        int top = np;
        if (v != 0) {
            top = 0;
            while (top < np && ((long long)v / pw[top]) % k == 0) top++;
        }
        tree->child_start[v] = pos;
        for (int i = top - 1; i >= 0; i--) {
            for (long long j = 1; j < k; j++) {
                long long c = (long long)v + j * pw[i];
                if (c >= P) break;
                tree->children[pos++] = (int)c;
                tree->parent[c] = v;
            }
        }
    }
    tree->child_start[P] = pos;
}

static void build_binary(arb_tree_t *tree)
{
    int P = tree->size, pos = 0;

    tree->parent[0] = -1;
    for (int v = 0; v < P; v++) {
        tree->child_start[v] = pos;
        for (long long c = 2LL * v + 1; c <= 2LL * v + 2 && c < P; c++) {
            tree->children[pos++] = (int)c;
            tree->parent[c] = v;
        }
    }
    tree->child_start[P] = pos;
}

static void build_flat(arb_tree_t *tree)
{
    int P = tree->size;

    tree->parent[0] = -1;
    tree->child_start[0] = 0;
    for (int v = 1; v < P; v++) {
        tree->parent[v] = 0;
        tree->children[v - 1] = v;
        tree->child_start[v] = P - 1;
    }
    tree->child_start[P] = P - 1;
}

static bool model_ok(const arb_logp_t *m)
{
    const double v[] = {m->L, m->os, m->orecv, m->g, m->G};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        if (!isfinite(v[i]) || v[i] < 0) return false;
    return true;
}

arbor_status_t arb_tree_build(arb_tree_kind_t kind, int size, int radix, const arb_logp_t *model,
                              size_t bytes, arb_tree_t *tree)
{
    arb_tree_t t;
    arbor_status_t status;

    if (tree == NULL || size < 1 || (int)kind < 0 || kind >= ARB_TREE_KINDS)
        return ARBOR_ERR_INVALID_ARG;
    if (kind == ARB_TREE_KNOMIAL && radix < 2) return ARBOR_ERR_INVALID_ARG;
    if (kind == ARB_TREE_KARP && (model == NULL || !model_ok(model))) return ARBOR_ERR_INVALID_ARG;
    memset(&t, 0, sizeof(t));
    status = tree_alloc(&t, size);
    if (status != ARBOR_OK) return status;
    switch (kind) {
    case ARB_TREE_KARP:
        status = build_karp(&t, model, bytes);
        break;
    case ARB_TREE_BINOMIAL:
        build_knomial(&t, 2);
        break;
    case ARB_TREE_KNOMIAL:
        build_knomial(&t, radix);
        break;
    case ARB_TREE_BINARY:
        build_binary(&t);
        break;
    case ARB_TREE_FLAT:
    default:
        build_flat(&t);
        break;
    }
    if (status != ARBOR_OK) {
        arb_tree_free(&t);
        return status;
    }
    *tree = t;
    return ARBOR_OK;
}

void arb_tree_free(arb_tree_t *tree)
{
    if (tree == NULL) return;
    free(tree->parent);
    free(tree->child_start);
    free(tree->children);
    tree->parent = tree->child_start = tree->children = NULL;
    tree->size = 0;
}

const char *arb_tree_kind_name(arb_tree_kind_t kind)
{
    static const char *const names[ARB_TREE_KINDS] = {
        [ARB_TREE_KARP] = "karp",       [ARB_TREE_BINOMIAL] = "binomial",
        [ARB_TREE_KNOMIAL] = "knomial", [ARB_TREE_BINARY] = "binary",
        [ARB_TREE_FLAT] = "flat",
    };
    if ((int)kind < 0 || kind >= ARB_TREE_KINDS) return "unknown";
    return names[kind];
}
