/*
 * The binomial tree of the rooted movement collectives (scatter, gather) over virtual ranks
 * v = (rank - root) mod P: node v's children are v + d for each power of two d below its
 * lowest set bit, and its subtree is the virtual range [v, v + its size).
 */
#ifndef ARB_ALGORITHMS_BINOMIAL_H
#define ARB_ALGORITHMS_BINOMIAL_H

/* The lowest set bit of v; for the root (v = 0), the first power of two >= P. */
static inline int arb_binomial_lowbit(int v, int P)
{
    if (v) return v & -v;
    int l = 1;
    while (l < P) l <<= 1;
    return l;
}

/* How many virtual ranks node v's subtree holds. */
static inline int arb_binomial_subtree(int v, int P)
{
    int l = arb_binomial_lowbit(v, P);
    return l < P - v ? l : P - v;
}

/* Splits virtual range [v0, v0 + n) into real ranges of ranks (at most two, the second starting
 * at rank 0); returns how many. */
static inline int arb_binomial_split(int v0, int n, int root, int P, int start[2], int len[2])
{
    int s = (v0 + root) % P;
    if (s + n <= P) {
        start[0] = s, len[0] = n;
        return 1;
    }
    start[0] = s, len[0] = P - s;
    start[1] = 0, len[1] = n - (P - s);
    return 2;
}

#endif /* ARB_ALGORITHMS_BINOMIAL_H */
