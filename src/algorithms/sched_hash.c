/* Schedule fingerprints: FNV-1a over every step field of every rank's schedule. */
#include "algorithms/sched_hash.h"

#include <stddef.h>

#define FNV_PRIME 0x100000001b3ull

/* Eight bytes of v, least significant first: the same value on every host. */
static uint64_t mix(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xffu;
        h *= FNV_PRIME;
    }
    return h;
}

uint64_t arb_sched_hash(const arb_sched_t *s, uint64_t h)
{
    if (!s) return h;
    /* The step count first: a schedule that is a prefix of another hashes differently. */
    h = mix(h, (uint64_t)(uint32_t)s->nsteps);
    h = mix(h, s->nrounds);
    h = mix(h, s->scratch_blocks);
    for (int i = 0; i < s->nsteps; i++) {
        const arb_step_t *st = &s->steps[i];
        h = mix(h, (uint64_t)st->kind | (uint64_t)st->space << 8 | (uint64_t)st->src_space << 16 |
                       (uint64_t)st->combine << 24);
        h = mix(h, (uint64_t)(uint32_t)st->peer | (uint64_t)(uint32_t)st->dep << 32);
        h = mix(h, st->round);
        h = mix(h, st->off);
        h = mix(h, st->src_off);
        h = mix(h, st->bytes);
    }
    return h;
}

arbor_status_t arb_sched_fingerprint(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                     const arb_logp_t *m, int copy_mode, uint64_t *fp)
{
    if (!alg || !alg->build || !a || !m || !fp || a->size < 1) return ARBOR_ERR_INVALID_ARG;
    if (a->size > ARB_FINGERPRINT_MAX_RANKS) return ARBOR_ERR_UNSUPPORTED;
    /* Per-rank counts a rank does not know: its schedule alone is built from them. */
    if (a->coll == ARB_COLL_ALLTOALLV) return ARBOR_ERR_UNSUPPORTED;
    if ((a->coll == ARB_COLL_SCATTERV || a->coll == ARB_COLL_GATHERV) && a->rank != a->root)
        return ARBOR_ERR_UNSUPPORTED;
    /* The chunk size splits every step longer than a slot; the copy path changes how each
     * chunk moves (through the slots, or read from the sender's buffer). */
    uint64_t h = mix(mix(ARB_SCHED_HASH_SEED, a->chunk), (uint64_t)(uint32_t)copy_mode);
    arb_coll_args_t b = *a;
    for (int r = 0; r < a->size; r++) {
        arb_sched_t s;
        arb_sched_init(&s);
        b.rank = r;
        arbor_status_t status = alg->build(alg, &b, m, &s);
        if (status == ARBOR_OK && !arb_sched_ok(&s)) status = ARBOR_ERR_NO_MEMORY;
        if (status == ARBOR_OK) h = arb_sched_hash(&s, mix(h, (uint64_t)r));
        arb_sched_free(&s);
        if (status != ARBOR_OK) return status;
    }
    *fp = h;
    return ARBOR_OK;
}
