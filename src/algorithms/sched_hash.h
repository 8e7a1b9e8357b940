/*
 * Schedule fingerprints (bench/fidelity pools the runs of algorithms that build the same
 * collective): a 64-bit hash of every rank's schedule of one algorithm for one call, over
 * everything in a step that changes what moves (kind, peer, buffer spaces, offsets, lengths,
 * combine order, dependency, round), each schedule's rounds and scratch size, the chunk size
 * and the copy path. Two algorithms with equal fingerprints run the same messages in the same
 * order, so any difference between their measured times is noise. Built only when
 * ARBOR_PRINT_ALGORITHM asks for it (coll/coll_start.c): never on a call's path otherwise.
 */
#ifndef ARB_ALGORITHMS_SCHED_HASH_H
#define ARB_ALGORITHMS_SCHED_HASH_H

#include <stdint.h>

#include "algorithms/coll.h"
#include "algorithms/sched.h"

/* Teams larger than this get no fingerprint (every rank's schedule is built on one rank). */
#define ARB_FINGERPRINT_MAX_RANKS 1024

/* Folds schedule s into hash h (start from ARB_SCHED_HASH_SEED); steps in order. */
#define ARB_SCHED_HASH_SEED 0xcbf29ce484222325ull
uint64_t arb_sched_hash(const arb_sched_t *s, uint64_t h);

/* The fingerprint of alg for the call described by a (a->rank is replaced by every rank in
 * turn; the model m as the builder gets it), with copy_mode the call's copy path (0: two
 * copies through the landing slots; coll/coll_direct.h's ARB_DIRECT_SEGMENT or ARB_DIRECT_CMA:
 * one copy) hashed in with a->chunk. ARBOR_ERR_UNSUPPORTED when alg cannot build some rank's
 * schedule, when the team exceeds ARB_FINGERPRINT_MAX_RANKS, or when this rank's arguments do
 * not describe the other ranks' calls (alltoallv; scatterv / gatherv off the root);
 * ARBOR_ERR_INVALID_ARG for a missing argument; ARBOR_ERR_NO_MEMORY. */
arbor_status_t arb_sched_fingerprint(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                                     const arb_logp_t *m, int copy_mode, uint64_t *fp);

#endif /* ARB_ALGORITHMS_SCHED_HASH_H */
