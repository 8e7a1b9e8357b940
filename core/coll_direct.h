/*
 * One-copy collectives on symmetric buffers (docs/PERFORMANCE.md, "One copy"). Through the
 * landing channels every byte is copied twice: the sender into the receiver's slot, the
 * receiver out of it. When the sender's chunk lies in its segment (a symmetric allocation) and
 * the receiver maps that segment, the sender instead posts a descriptor in the channel's line
 * for that ticket (the chunk's segment offset, ticket + 1 stored last with release) and the
 * receiver copies the chunk straight out of the sender's buffer: one copy. The receiver's usual
 * credit then also says "done reading", and the sender's instance completes only once every
 * chunk it described has been read (its buffer must not be reused before).
 *
 * Agreement. Tickets, chunks and lines are the channel's own, so the schedule is unchanged and
 * descriptors mix with slot chunks on one channel, in flight with any other collectives. What
 * must be agreed is the choice of algorithm, which depends on whether the call is one-copy:
 * that comes from the caller's ARBOR_SYMMETRIC flag (every member passes it alike), the
 * collective, and whether every rank maps every other (agreed at init). Whether a given chunk
 * then goes as a descriptor is the sender's local decision (its buffer is in its segment or
 * not); the receiver of a one-copy instance looks at the line first and handles either.
 *
 * Only collectives whose schedules never write a buffer region after sending from it take the
 * path (bcast, scatter, gather, allgather, alltoall; not their v-variants, whose schedules are
 * built per call): a SEND step counts as done once posted, and only the end of the instance
 * waits for the readers. The reductions (allreduce, reduce, reduce_scatter) take it with the
 * algorithms whose schedules pass arb_direct_schedule_ok: most combine into what they just
 * sent, but the reduce-scatter + allgather allreduce, Rabenseifner's, the flat and direct
 * reduce and pairwise reduce_scatter do not.
 */
#ifndef ARB_CORE_COLL_DIRECT_H
#define ARB_CORE_COLL_DIRECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "algorithms/coll.h"
#include "core/executor.h"

/* Whether a call on t may run one-copy: ARBOR_SYMMETRIC in flags, a collective that takes the
 * path, every rank mapping every other, ARBOR_ONECOPY not "never". The same on every member. */
bool arb_direct_eligible(const struct arbor_team *t, int coll, uint64_t flags);

/* Whether a rank's schedule of coll can run one-copy: coll takes the path at all, it sends nothing
 * from its private scratch (bruck's packing: those chunks would travel through the slots, so a
 * one-copy price would be wrong) and, for a reduction, writes no region a peer may still be reading
 * in place (the rule and its two exceptions: coll_direct.c, reads_safely). tests/unit_reduction.c
 * runs every schedule that passes in the simulator's one-copy mode. */
bool arb_direct_schedule_ok(const arb_sched_t *s, int coll);

/* The selector's choice for an eligible call: prices every algorithm with the two-copy model m
 * and with the one-copy model (logp.h: G1 per byte, plus the sender's wait for its last
 * reader; an algorithm that sends from scratch is no one-copy candidate), and returns the
 * cheapest one-copy algorithm when it beats the cheapest two-copy one (ARBOR_ONECOPY=always:
 * whenever there is one), else 0 (two copies, the usual selection). *m1 receives the one-copy
 * model, for the builder. Prints both under ARBOR_PRINT_ALGORITHM. forced: a forced or pinned
 * algorithm (0: none). */
int arb_direct_choose(const arb_coll_args_t *a, int forced, const arb_logp_t *m, arb_logp_t *m1);

/* Executor hooks for a one-copy instance. */
/* Sender: posts chunk c of step (ticket, len bytes at src) as a descriptor when it can (src in
 * our segment, the peer mapped, len above the inline size). The descriptor spans every chunk
 * from c that may move now (to the end of the step, or as far as its dependency has landed):
 * a source that holds the whole payload hands it over at once, a relay describes what has
 * arrived, so a tree still pipelines. Returns the chunks described (0: send chunk c the usual
 * way). The caller has checked the credit for the ticket; the span's later tickets use no line
 * or slot. */
uint32_t arb_direct_send(const arb_inst_t *inst, const arb_step_t *step, uint32_t c,
                         uint64_t ticket, const uint8_t *src, size_t len);
/* Receiver, chunk c of step (ticket; its len above the inline size): false when it has not
 * arrived; true with *src_p = where to copy from: the sender's buffer (a descriptor: *len_p and
 * *span_p then say how many bytes and chunks) or NULL (the landing slot; *len_p, *span_p kept).
 * A descriptor this rank cannot read fails the instance. */
bool arb_direct_source(arb_inst_t *inst, const arb_step_t *step, uint32_t c, uint64_t ticket,
                       size_t *len_p, uint32_t *span_p, const uint8_t **src_p);
/* Whether every chunk this instance described has been read by its receiver. */
bool arb_direct_settled(arb_inst_t *inst);
/* arb_exec_awaited's part for an instance past its last round: adds the world ranks still
 * reading its buffer to world[0..n) (ascending, each once, at most max); returns the count. */
int arb_direct_awaited(const arb_inst_t *inst, int *world, int n, int max);

#endif /* ARB_CORE_COLL_DIRECT_H */
