/*
 * The fold that lets power-of-two reduction algorithms (recursive doubling, Rabenseifner,
 * recursive halving) run on any P: with pof2 the largest power of two <= P and rem = P - pof2,
 * each even rank below 2 rem hands its data to the odd rank above it and sits out; the
 * remaining pof2 ranks are renumbered 0..pof2-1 in rank order, so a new rank's data always
 * covers a contiguous range of old ranks (what non-commutative ops need).
 */
#ifndef ARB_ALGORITHMS_FOLD_H
#define ARB_ALGORITHMS_FOLD_H

typedef struct {
    int pof2, rem;
    int newrank; /* -1: folded out (an even rank below 2 rem) */
} arb_fold_t;

static inline arb_fold_t arb_fold_of(int P, int rank)
{
    arb_fold_t f = {1, 0, -1};
    while (f.pof2 * 2 <= P) f.pof2 *= 2;
    f.rem = P - f.pof2;
    if (rank >= 2 * f.rem)
        f.newrank = rank - f.rem;
    else if (rank % 2)
        f.newrank = rank / 2;
    return f;
}

/* The team rank that plays new rank nr. */
static inline int arb_fold_real(const arb_fold_t *f, int nr)
{
    return nr < f->rem ? 2 * nr + 1 : nr + f->rem;
}

/* The first team rank whose data new rank nr holds (nr == pof2: P). */
static inline int arb_fold_first(const arb_fold_t *f, int nr)
{
    return nr < f->rem ? 2 * nr : nr + f->rem;
}

static inline int arb_fold_log2(const arb_fold_t *f)
{
    int k = 0;
    while ((1 << k) < f->pof2) k++;
    return k;
}

#endif /* ARB_ALGORITHMS_FOLD_H */
