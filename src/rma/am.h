/*
 * Active messages over one-sided operations only (rma/am.c; design in docs/AM.md): a
 * request ring and a reply ring per rank in the segment, taken at init at the same offset on
 * every rank, served by a per-poll hook of the progress engine.
 */
#ifndef ARB_CORE_RMA_AM_H
#define ARB_CORE_RMA_AM_H

#include <stdbool.h>
#include <stddef.h>

#include "arbor.h"

/* After arb_rma_init_world: takes the mailbox (no communication) and registers the hook, then
 * sets up what rides on active messages (the strided pack path, the registration exchange);
 * rma_init.c. */
arbor_status_t arb_am_init(void);
/* Before arb_rma_fini: the reverse of arb_am_init. */
void arb_am_fini(void);
/* The mailbox alone (am.c): taken and the poll hook registered; returned, hook unregistered,
 * handlers forgotten; whether it is set up. */
arbor_status_t arb_am_mailbox_init(void);
void arb_am_mailbox_fini(void);
bool arb_am_ready(void);
/* Handlers are registered: the progress thread must keep polling for requests. */
bool arb_am_active(void);

/* ---- core's own messages (the strided pack path, rma/am_strided.c) ------------------- */

/* Core's handlers live after the users' (indices ARBOR_AM_MAX_HANDLERS and up). */
#define ARB_AM_INTERNAL_HANDLERS 5
#define ARB_AM_ALL_HANDLERS      (ARBOR_AM_MAX_HANDLERS + ARB_AM_INTERNAL_HANDLERS)
void arb_am_set_internal(int index, arbor_am_handler_t *fn, void *arg);
/* arbor_am_request / arbor_am_reply without the users' index checks (lock held). */
arbor_status_t arb_am_send_request(int rank, int index, const void *payload, size_t nbytes);
arbor_status_t arb_am_send_reply(arbor_am_token_h token, int index, const void *payload,
                                 size_t nbytes);
/* arb_am_send_request for a message that carries a one-sided operation (a packed put):
 * arbor_fence / arbor_quiet / arbor_order wait until it has run at the target
 * (arb_am_onesided_complete, the one-sided layer's fence hook). */
arbor_status_t arb_am_send_onesided(int rank, int index, const void *payload, size_t nbytes);
/* Waits until every message sent with arb_am_send_onesided to @p rank (-1: every rank) has run
 * there. Free when there is none. */
arbor_status_t arb_am_onesided_complete(int rank);
/* The largest payload of one message (arbor_am_max_payload's value). */
size_t arb_am_max_payload(void);
/* Waits, making progress (only the transport's inside a handler), until done(arg) holds;
 * ARBOR_ERR_TIMEOUT after ARBOR_TIMEOUT seconds without progress. */
arbor_status_t arb_am_wait(bool (*done)(void *), void *arg, const char *what);
/* Waits until every request this rank sent to @p rank (-1: to every rank) has run there. */
arbor_status_t arb_am_complete_to(int rank);

/*
 * The strided pack path (ARMCI's trade-off; arb_rma_strided_choose picks it per call): local
 * pack, one message per 3.8 KB, remote unpack by a handler; for gets, remote pack into replies
 * and local unpack. Arguments as arbor_put_strided / arbor_get_strided (rank checked by the
 * caller); the remote range is checked here (ARBOR_ERR_ADDRESS). The put returns once the data
 * is in the target's queue (source reusable); arbor_fence / arbor_quiet / arbor_order complete
 * it remotely through arb_am_onesided_complete (the one-sided layer's fence hook). The get
 * returns with the data. Both need the target's progress (its calls or its progress thread).
 */
/* Registers the handlers and the pack path with the one-sided layer (arb_am_init), and
 * withdraws it (arb_am_fini). */
void arb_am_strided_init(void);
void arb_am_strided_fini(void);
arbor_status_t arb_am_put_strided_packed(int rank, void *dst, const ptrdiff_t dst_stride[],
                                         const void *src, const ptrdiff_t src_stride[],
                                         const size_t count[], int levels);
arbor_status_t arb_am_get_strided_packed(int rank, void *dst, const ptrdiff_t dst_stride[],
                                         const void *src, const ptrdiff_t src_stride[],
                                         const size_t count[], int levels);
/* The lookup of a peer's registration by address (rma/reg.c, arbor_mem_attach_remote):
 * its handlers, indices ARB_AM_REG_LOOKUP and ARB_AM_REG_BLOB. */
#define ARB_AM_REG_LOOKUP (ARBOR_AM_MAX_HANDLERS + 3)
#define ARB_AM_REG_BLOB   (ARBOR_AM_MAX_HANDLERS + 4)
void arb_reg_am_init(void);

/* Strided transfers that went by the pack path (arb_rma_strided_choose picked it), for tests. */
uint64_t arb_am_strided_packed_calls(void);

#endif /* ARB_CORE_RMA_AM_H */
