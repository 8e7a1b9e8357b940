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
 * Malloc'd buffers (runtime/cma.h): where the kernel's cross-memory attach is permitted (checked
 * and agreed at init), a descriptor may carry the chunk's address in the sender's process
 * instead of a segment offset, and the receiver copies it with process_vm_readv. Any address
 * of the sender can be described that way, so in such an instance every chunk above the inline
 * size is a descriptor: a peer whose segment is not mapped (OFI) gets it put into the chunk's
 * landing slot with the signal advanced by the chunks it spans, and knows to read it there.
 * The model prices that copy with its own per-byte term (Gc): on the 2-core VM it costs more
 * than the two pipelined copies, and the model keeps two copies (docs/PERFORMANCE.md).
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
#include "coll/inst.h"

enum { ARB_DIRECT_NONE = 0, ARB_DIRECT_SEGMENT = 1, ARB_DIRECT_CMA = 2 };

/* Whether a call on t may run one-copy, and how: ARB_DIRECT_SEGMENT for ARBOR_SYMMETRIC in
 * flags with every rank mapping every other (ARBOR_ONECOPY not "never"); ARB_DIRECT_CMA for
 * other calls where cross-memory attach was agreed at init (ARBOR_CMA not "never"); both only
 * for a collective that takes the path (a reduction's receiver of a cross-memory read combines
 * from a bounce buffer: coll/executor.c). The same on every member. */
int arb_direct_eligible(const struct arbor_team *t, int coll, uint64_t flags);

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
int arb_direct_choose(const arb_coll_args_t *a, int forced, const arb_logp_t *m, int mode,
                      arb_logp_t *m1);

/* Executor hooks for a one-copy instance. */
/* Sender: posts chunk c of step (ticket, len bytes at src) as a descriptor when it can (len
 * above the inline size and: src in our segment with the peer mapped, or a CMA instance). The
 * descriptor spans every chunk from c that may move now (to the end of the step, or as far as its
 * dependency has landed): a source that holds the whole payload hands it over at once, a relay
 * describes what has arrived, so a tree still pipelines. Returns the chunks described (0: send
 * chunk c the usual way; UINT32_MAX: not now, the previous descriptor put to an unmapped peer is in
 * flight). The caller has checked the credit for the ticket; the span's later tickets use no line
 * or slot. */
uint32_t arb_direct_send(arb_inst_t *inst, const arb_step_t *step, uint32_t c, uint64_t ticket,
                         const uint8_t *src, size_t len);
/* Receiver, chunk c of step (ticket; its len above the inline size): false when it has not
 * arrived; true with *src_p = where to copy from: the sender's buffer (a descriptor: *len_p and
 * *span_p then say how many bytes and chunks) or NULL (the landing slot; *len_p, *span_p kept),
 * and *cma_p = the address to read by cross-memory attach instead (0: none; *src_p is then
 * NULL). A descriptor this rank cannot read fails the instance. */
bool arb_direct_source(arb_inst_t *inst, const arb_step_t *step, uint32_t c, uint64_t ticket,
                       size_t *len_p, uint32_t *span_p, const uint8_t **src_p, uintptr_t *cma_p);
/* Whether every chunk this instance described has been read by its receiver. */
bool arb_direct_settled(arb_inst_t *inst);
/* arb_exec_awaited's part for an instance past its last round: adds the world ranks still
 * reading its buffer to world[0..n) (ascending, each once, at most max); returns the count. */
int arb_direct_awaited(const arb_inst_t *inst, int *world, int n, int max);

#endif /* ARB_CORE_COLL_DIRECT_H */
