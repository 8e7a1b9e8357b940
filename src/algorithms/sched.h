/*
 * Schedules as data (the libNBC idea): the per-rank list of steps of one collective. Steps are
 * SEND / RECV over the team's landing channels (a put-with-signal into the receiver's slot, and
 * a wait-for-signal + copy-out or combine) and local COPY. A step starts when every step of the
 * earlier rounds is complete; a step with a dependency moves chunk c only once that step has
 * completed c + 1 chunks, which pipelines large payloads through trees (a SEND forwards what a
 * RECV landed; a RECV combines only after the RECV it depends on has, which keeps the order of
 * a non-commutative reduction chunk by chunk). A step depending on a SEND waits until the
 * whole SEND has left (its buffer may then be overwritten: a RECV can combine into what was
 * just sent, with no scratch copy and no extra round). Schedules are immutable
 * once built and cached; the executor (coll/executor.c) runs them and names no algorithm.
 *
 * Offsets and sizes are in units of the instance's block (a broadcast's whole payload, later an
 * allgather's per-rank block), fixed when an instance starts, so one schedule serves every
 * message size of a size class.
 */
#ifndef ARB_ALGORITHMS_SCHED_H
#define ARB_ALGORITHMS_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arbor.h"

/* OFFLOAD: the whole collective handed to a transport hook (coll/offload.c): combine names the
 * hook (ARB_HOOK_*), peer the root, space / src_space the result and input, bytes the length
 * in blocks. It completes when the transport says so. */
typedef enum { ARB_STEP_SEND = 0, ARB_STEP_RECV, ARB_STEP_COPY, ARB_STEP_OFFLOAD } arb_step_kind_t;
enum { ARB_HOOK_HWCOLL = 1, ARB_HOOK_TRIGGERED = 2 };

/* Where a step's bytes live; resolved when an instance starts. */
typedef enum { ARB_BUF_SRC = 0, ARB_BUF_DST, ARB_BUF_SCRATCH } arb_buf_space_t;

/* How a combining step applies a (possibly non-commutative) op: incoming = the landed slot
 * (RECV) or the source (COPY), current = what the destination holds. */
enum {
    ARB_COMBINE_NONE = 0,
    ARB_COMBINE_AFTER = 1, /* dst = dst op incoming  (incoming comes from higher ranks) */
    ARB_COMBINE_BEFORE = 2 /* dst = incoming op dst  (incoming comes from lower ranks) */
};

typedef struct {
    uint8_t kind;      /* arb_step_kind_t */
    uint8_t space;     /* SEND: source; RECV / COPY: destination */
    uint8_t src_space; /* COPY: source */
    uint8_t combine;   /* RECV / COPY: 0 copies; ARB_COMBINE_* applies the collective's op */
    int32_t peer;      /* team rank (SEND / RECV) */
    int32_t dep;       /* step index gating this step chunk by chunk, -1 for none */
    uint32_t round;
    uint64_t off;     /* offset in space, in blocks */
    uint64_t src_off; /* COPY: offset in src_space, in blocks */
    uint64_t bytes;   /* length in blocks */
} arb_step_t;

typedef struct {
    arb_step_t *steps;
    int nsteps, cap;
    uint32_t nrounds;
    size_t scratch_blocks;
} arb_sched_t;

void arb_sched_init(arb_sched_t *s);
void arb_sched_free(arb_sched_t *s);
/* Each returns the new step's index, or -1 when out of memory (the schedule is then marked
 * failed: arb_sched_ok returns false). */
int arb_sched_send(arb_sched_t *s, uint32_t round, int peer, arb_buf_space_t space, uint64_t off,
                   uint64_t bytes, int dep);
int arb_sched_recv(arb_sched_t *s, uint32_t round, int peer, arb_buf_space_t space, uint64_t off,
                   uint64_t bytes, int combine, int dep);
/* Receives and combines @p bytes at DST + @p off from every other rank in @p round, in an order
 * that keeps a non-commutative op's rank order (DST already holds rank me's own contribution):
 * a direct reduce-scatter's receiving half. */
void arb_sched_recv_combine_all(arb_sched_t *s, uint32_t round, int me, int P, bool commutative,
                                uint64_t off, uint64_t bytes);
int arb_sched_copy(arb_sched_t *s, uint32_t round, arb_buf_space_t dst, uint64_t off,
                   arb_buf_space_t src, uint64_t src_off, uint64_t bytes, int dep);
/* A local COPY that combines src into dst (ARB_COMBINE_AFTER / _BEFORE). */
int arb_sched_combine(arb_sched_t *s, uint32_t round, arb_buf_space_t dst, uint64_t off,
                      arb_buf_space_t src, uint64_t src_off, uint64_t bytes, int combine, int dep);
/* The single step of an offloaded collective (ARB_STEP_OFFLOAD). */
int arb_sched_offload(arb_sched_t *s, uint32_t round, int hook, int root, uint64_t bytes);
/* Appends src's steps after dst's rounds (composition: a barrier before or after a collective
 * for the ALLSYNC flags). -1 when out of memory. */
int arb_sched_append_all(arb_sched_t *dst, const arb_sched_t *src);
/* False when an append failed (out of memory, or a step of an earlier round than the last:
 * steps must be appended in nondecreasing round order). */
int arb_sched_ok(const arb_sched_t *s);

#endif /* ARB_ALGORITHMS_SCHED_H */
