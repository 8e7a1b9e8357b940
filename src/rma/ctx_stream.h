/*
 * A private communication context's transport stream (ctx_stream.c; docs/ONESIDED.md,
 * "Contexts"): its contiguous puts, gets and 64-bit atomics to user allocations of targets it
 * does not map go through transport resources of its own (transport.h, "Streams"), without
 * the engine lock. Private to rma/.
 */
#ifndef ARB_RMA_CTX_STREAM_H
#define ARB_RMA_CTX_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arbor.h"
#include "transports/transport.h"

struct arbor_ctx;

/* After a context call under the lock (arb_rma_ctx_learn): when the translation cache's entry
 * for world rank w is a user allocation of a target not mapped here, on its segment, keeps it
 * in c's stream copy, opening c's stream on first use. The lock held. */
void arb_rma_ctx_stream_learn(struct arbor_ctx *c, int w);

/* The stream path of a contiguous put / get of private context c to world rank w (no lock):
 * ARB_ERR_NOT_STREAM when it does not apply (the locked path then runs), else the call's
 * status. blocking: complete (locally) on return; else counted for the context's quiet. */
arbor_status_t arb_rma_ctx_stream_xfer(struct arbor_ctx *c, bool put, int w, void *dst,
                                       const void *src, size_t nbytes, bool blocking);

/* The same for one 64-bit transport atomic (op, operand, compare) on the word at dst; result
 * (8 bytes, may be unaligned; NULL for ADD) is written on return when blocking, else by the
 * context's quiet (then it must be 8-byte aligned, or the locked path runs). */
arbor_status_t arb_rma_ctx_stream_amo(struct arbor_ctx *c, int w, void *dst, arb_tp_amo_t op,
                                      uint64_t operand, uint64_t compare, void *result,
                                      bool blocking);

/* Before an operation of c on the locked path to world rank w (-1: any): what c's stream
 * posted to it is completed first, so the two paths keep the context's location order. No
 * lock held. */
arbor_status_t arb_rma_ctx_stream_settle(struct arbor_ctx *c, int w);

/* arbor_ctx_quiet's part for the stream: every operation c posted on it complete at its
 * target (no lock needed; bounded by ARBOR_TIMEOUT). */
arbor_status_t arb_rma_ctx_stream_quiet(struct arbor_ctx *c);

/* The same from a thread that holds the engine lock (arb_rma_ctx_complete: destroy, finalize,
 * a locked quiet): it drives the engine itself while it waits, since nobody else can. */
arbor_status_t arb_rma_ctx_stream_quiet_locked(struct arbor_ctx *c);

/* arbor_ctx_fence's part: later stream operations ordered after earlier ones (no lock). */
arbor_status_t arb_rma_ctx_stream_fence(struct arbor_ctx *c);

/* Frees c's stream state (the lock held; its operations completed or given up). */
void arb_rma_ctx_stream_free(struct arbor_ctx *c);

#endif /* ARB_RMA_CTX_STREAM_H */
