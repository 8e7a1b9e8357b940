/*
 * Schedule fingerprints (algorithms/sched_hash.h): algorithms known to build the same schedules
 * on every rank hash equal (every broadcast tree at P = 2 is one message; ring, recursive
 * doubling and direct allgather at P = 2 are one exchange), known-different ones differ (the
 * trees at P = 5, bruck's packed allgather), a change of any one step field, of the rounds, the
 * scratch size, the chunk size or the copy path changes the hash, and bad arguments are refused.
 */
#include "algorithms/coll.h"
#include "algorithms/logp.h"
#include "algorithms/sched_hash.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_check.h"

static arb_logp_t model;

static const arb_alg_desc_t *find(arb_coll_t coll, const char *name)
{
    int n;
    const arb_alg_desc_t *tab = arb_alg_table(coll, &n);
    for (int i = 1; i < n; i++)
        if (!strcmp(tab[i].name, name)) return &tab[i];
    check(false, "%s has no algorithm %s", arb_coll_name(coll), name);
    return NULL;
}

static arb_coll_args_t args(arb_coll_t coll, int P, size_t bytes)
{
    arb_coll_args_t a = {.coll = coll, .size = P, .bytes = bytes, .chunk = 65536, .commutative = 1};
    return a;
}

/* The fingerprint of coll/name, or 0 with a failed check when it cannot be built. */
static uint64_t fp_of(arb_coll_t coll, const char *name, int P, size_t bytes, size_t chunk,
                      int copy_mode)
{
    const arb_alg_desc_t *alg = find(coll, name);
    arb_coll_args_t a = args(coll, P, bytes);
    uint64_t fp = 0;
    a.chunk = chunk;
    if (!alg) return 0;
    arbor_status_t st = arb_sched_fingerprint(alg, &a, &model, copy_mode, &fp);
    check(st == ARBOR_OK, "%s/%s P=%d %zu B: %s", arb_coll_name(coll), name, P, bytes,
          arbor_strerror(st));
    return fp;
}

static void same_schedules(void)
{
    static const char *const trees[] = {"karp", "binomial", "knomial", "binary", "flat"};
    for (size_t bytes = 8; bytes <= 1u << 20; bytes *= 128) {
        uint64_t karp = fp_of(ARB_COLL_BCAST, "karp", 2, bytes, 65536, 0);
        for (size_t i = 1; i < sizeof(trees) / sizeof(trees[0]); i++)
            check(fp_of(ARB_COLL_BCAST, trees[i], 2, bytes, 65536, 0) == karp,
                  "bcast P=2 %zu B: %s hashes apart from karp, the same single message", bytes,
                  trees[i]);
    }
    uint64_t ring = fp_of(ARB_COLL_ALLGATHER, "ring", 2, 1024, 65536, 0);
    check(fp_of(ARB_COLL_ALLGATHER, "recursive_doubling", 2, 1024, 65536, 0) == ring,
          "allgather P=2: recursive doubling hashes apart from ring, the same exchange");
    check(fp_of(ARB_COLL_ALLGATHER, "direct", 2, 1024, 65536, 0) == ring,
          "allgather P=2: direct hashes apart from ring, the same exchange");
    check(fp_of(ARB_COLL_ALLGATHER, "bruck", 2, 1024, 65536, 0) != ring,
          "allgather P=2: bruck (packs through scratch) hashes like ring");
    /* Deterministic: the same call twice. */
    check(fp_of(ARB_COLL_BCAST, "binary", 5, 8, 65536, 0) ==
              fp_of(ARB_COLL_BCAST, "binary", 5, 8, 65536, 0),
          "the same fingerprint twice differs");
}

static void different_schedules(void)
{
    uint64_t binomial = fp_of(ARB_COLL_BCAST, "binomial", 5, 8, 65536, 0);
    uint64_t flat = fp_of(ARB_COLL_BCAST, "flat", 5, 8, 65536, 0);
    uint64_t binary = fp_of(ARB_COLL_BCAST, "binary", 5, 8, 65536, 0);
    check(fp_of(ARB_COLL_BCAST, "karp", 5, 8, 65536, 0) != binomial,
          "bcast P=5: karp hashes like binomial");
    check(binomial != flat, "bcast P=5: binomial hashes like flat");
    check(binomial != binary, "bcast P=5: binomial hashes like binary");
    check(flat != binary, "bcast P=5: flat hashes like binary");
    /* Same algorithm, another team size or root. */
    check(fp_of(ARB_COLL_BCAST, "flat", 4, 8, 65536, 0) != flat, "bcast flat: P=4 as P=5");
    const arb_alg_desc_t *alg = find(ARB_COLL_BCAST, "flat");
    arb_coll_args_t a = args(ARB_COLL_BCAST, 5, 8);
    uint64_t fp = 0;
    a.root = 3;
    check(alg && arb_sched_fingerprint(alg, &a, &model, 0, &fp) == ARBOR_OK && fp != flat,
          "bcast flat P=5: root 3 hashes like root 0");
    /* The chunk size and the copy path change how the same steps move. */
    check(fp_of(ARB_COLL_BCAST, "flat", 5, 8, 16384, 0) != flat, "chunk size not hashed");
    check(fp_of(ARB_COLL_BCAST, "flat", 5, 8, 65536, 1) != flat, "one copy not hashed");
    check(fp_of(ARB_COLL_BCAST, "flat", 5, 8, 65536, 2) != flat, "cross-memory attach not hashed");
    check(fp_of(ARB_COLL_BCAST, "flat", 5, 8, 65536, 1) !=
              fp_of(ARB_COLL_BCAST, "flat", 5, 8, 65536, 2),
          "one copy from a segment hashes like cross-memory attach");
}

/* A small hand-made schedule, and every field of one of its steps changed in turn. */
static void one_field(void)
{
    arb_sched_t s;
    arb_sched_init(&s);
    arb_sched_copy(&s, 0, ARB_BUF_DST, 0, ARB_BUF_SRC, 0, 1, -1);
    int r = arb_sched_recv(&s, 1, 1, ARB_BUF_SCRATCH, 2, 3, ARB_COMBINE_AFTER, -1);
    arb_sched_send(&s, 1, 2, ARB_BUF_DST, 4, 5, r);
    s.scratch_blocks = 3;
    check(arb_sched_ok(&s) && s.nsteps == 3, "hand-made schedule not built");
    if (!arb_sched_ok(&s) || s.nsteps != 3) {
        arb_sched_free(&s);
        return;
    }
    uint64_t base = arb_sched_hash(&s, ARB_SCHED_HASH_SEED);
    check(base == arb_sched_hash(&s, ARB_SCHED_HASH_SEED), "hash not deterministic");
    check(arb_sched_hash(NULL, 42) == 42, "a NULL schedule changes the hash");
    for (int i = 0; i < s.nsteps; i++) {
        static const char *const fields[] = {"kind", "space", "src_space", "combine", "peer",
                                             "dep",  "round", "off",       "src_off", "bytes"};
        for (int f = 0; f < 10; f++) {
            arb_step_t keep = s.steps[i], *st = &s.steps[i];
            switch (f) {
            case 0:
                st->kind = (uint8_t)(st->kind == ARB_STEP_SEND ? ARB_STEP_RECV : ARB_STEP_SEND);
                break;
            case 1:
                st->space = (uint8_t)((st->space + 1) % 3);
                break;
            case 2:
                st->src_space = (uint8_t)((st->src_space + 1) % 3);
                break;
            case 3:
                st->combine = (uint8_t)(st->combine == ARB_COMBINE_BEFORE ? ARB_COMBINE_AFTER
                                                                          : ARB_COMBINE_BEFORE);
                break;
            case 4:
                st->peer += 1;
                break;
            case 5:
                st->dep = st->dep < 0 ? 0 : -1;
                break;
            case 6:
                st->round += 1;
                break;
            case 7:
                st->off += 1;
                break;
            case 8:
                st->src_off += 1;
                break;
            default:
                st->bytes += 1;
                break;
            }
            check(arb_sched_hash(&s, ARB_SCHED_HASH_SEED) != base,
                  "step %d: a change of %s leaves the hash", i, fields[f]);
            s.steps[i] = keep;
        }
    }
    check(arb_sched_hash(&s, ARB_SCHED_HASH_SEED) == base, "restored schedule hashes apart");
    s.nrounds++;
    check(arb_sched_hash(&s, ARB_SCHED_HASH_SEED) != base, "nrounds not hashed");
    s.nrounds--;
    s.scratch_blocks++;
    check(arb_sched_hash(&s, ARB_SCHED_HASH_SEED) != base, "scratch_blocks not hashed");
    s.scratch_blocks--;
    /* Swapping two steps (same fields, other order) differs too. */
    arb_step_t t = s.steps[1];
    s.steps[1] = s.steps[2], s.steps[2] = t;
    check(arb_sched_hash(&s, ARB_SCHED_HASH_SEED) != base, "step order not hashed");
    /* A prefix: one step fewer. */
    s.steps[2] = s.steps[1], s.steps[1] = t;
    s.nsteps--;
    check(arb_sched_hash(&s, ARB_SCHED_HASH_SEED) != base, "a shorter schedule hashes alike");
    s.nsteps++;
    arb_sched_free(&s);
}

static void refused(void)
{
    const arb_alg_desc_t *flat = find(ARB_COLL_BCAST, "flat");
    arb_coll_args_t a = args(ARB_COLL_BCAST, 4, 8);
    uint64_t fp = 7;
    if (!flat) return;
    check(arb_sched_fingerprint(NULL, &a, &model, 0, &fp) == ARBOR_ERR_INVALID_ARG, "NULL alg");
    check(arb_sched_fingerprint(flat, NULL, &model, 0, &fp) == ARBOR_ERR_INVALID_ARG, "NULL args");
    check(arb_sched_fingerprint(flat, &a, NULL, 0, &fp) == ARBOR_ERR_INVALID_ARG, "NULL model");
    check(arb_sched_fingerprint(flat, &a, &model, 0, NULL) == ARBOR_ERR_INVALID_ARG, "NULL out");
    a.size = 0;
    check(arb_sched_fingerprint(flat, &a, &model, 0, &fp) == ARBOR_ERR_INVALID_ARG, "size 0");
    a.size = ARB_FINGERPRINT_MAX_RANKS + 1;
    check(arb_sched_fingerprint(flat, &a, &model, 0, &fp) == ARBOR_ERR_UNSUPPORTED,
          "a team above ARB_FINGERPRINT_MAX_RANKS");
    /* Recursive doubling allgather needs a power of two. */
    const arb_alg_desc_t *rd = find(ARB_COLL_ALLGATHER, "recursive_doubling");
    arb_coll_args_t g = args(ARB_COLL_ALLGATHER, 5, 8);
    check(rd && arb_sched_fingerprint(rd, &g, &model, 0, &fp) == ARBOR_ERR_UNSUPPORTED,
          "recursive doubling allgather at P = 5 fingerprinted");
    /* Alltoallv: a rank knows only its own counts. */
    int n;
    const arb_alg_desc_t *v = arb_alg_table(ARB_COLL_ALLTOALLV, &n);
    arb_coll_args_t av = args(ARB_COLL_ALLTOALLV, 2, 8);
    check(n > 1 && arb_sched_fingerprint(&v[1], &av, &model, 0, &fp) == ARBOR_ERR_UNSUPPORTED,
          "alltoallv fingerprinted from one rank's counts");
    check(fp == 7, "a refused call wrote its output");
}

int main(void)
{
    arb_logp_default_mapped(&model);
    same_schedules();
    different_schedules();
    one_field();
    refused();
    printf("unit_sched_hash: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
