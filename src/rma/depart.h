/*
 * Departures: a rank that finalizes (stopped) or fails on purpose (arbor_fail_self) tells every
 * peer so, and a wait that can only end by that peer's action ends with ARBOR_ERR_PEER_STOPPED
 * or ARBOR_ERR_PEER_LOST instead of running into ARBOR_TIMEOUT. A stopped rank stays in
 * arbor_finalize, serving its memory and its part of the transport, until every other rank has
 * departed too: what it exposed stays readable (a stopped Fortran image's coarrays do).
 *
 * Locking: like the rest of core, every function expects the caller to hold arb_lock().
 */
#ifndef ARB_CORE_RMA_DEPART_H
#define ARB_CORE_RMA_DEPART_H

#include <stdbool.h>
#include <stdint.h>

#include "arbor.h"

/* Init, after the one-sided state (arb_rma_init_world): the board at the same offset of every
 * segment. Local, no communication. */
arbor_status_t arb_depart_init(void);

/* What this rank knows of world rank @p rank now: ARBOR_PEER_RUNNING, ARBOR_PEER_STOPPED or
 * ARBOR_PEER_FAILED (an announced failure or a loss the bootstrap knows). Self: RUNNING. Reads
 * the board first, with acquire order, so a caller that reads a peer's notification after it
 * sees everything the peer wrote before it departed. */
arbor_peer_state_t arb_depart_state(int rank);

/* The teams' departure probe (coll/team.h, arb_team_set_departures): world rank @p rank is
 * stopped, or gave up team @p team_id for a stopped member (its notice on our board). */
bool arb_depart_stalled(int rank, uint64_t team_id);
/* The teams' notice: this rank gave up team @p team_id, of world ranks @p world[0..size), for a
 * stopped member; every other member's board gets that id in this rank's notice word (8-byte
 * puts, not awaited). */
void arb_depart_notice(uint64_t team_id, int size, const int *world);

/* Other ranks stopped or failed, as far as this rank knows. */
int arb_depart_count(void);

/* The verdict of a wait on @p rank that can no longer be satisfied: ARBOR_ERR_PEER_STOPPED,
 * ARBOR_ERR_PEER_LOST, or ARBOR_OK while it runs. */
arbor_status_t arb_depart_verdict(int rank);

/* ARBOR_OK while some other rank still runs; else the verdict of a wait that any peer could
 * have satisfied: ARBOR_ERR_PEER_STOPPED when one of them stopped, ARBOR_ERR_PEER_LOST when all
 * failed. */
arbor_status_t arb_depart_all_verdict(void);

/* Finalize's closing protocol, in place of its barriers (a stopped peer may be out of step
 * with this rank's teams). arb_depart_stopped: announce STOPPED, then serve until every other
 * rank has stopped or failed (everything they sent before is then delivered); the caller
 * flushes; arb_depart_closed: announce CLOSED, then serve until every other rank has closed or
 * failed (nothing is in flight any more). Bounded by ARBOR_TIMEOUT. */
arbor_status_t arb_depart_stopped(void);
arbor_status_t arb_depart_closed(void);

/* Finalize out of step (the world team timed out waiting for a rank that may be gone unseen):
 * announce STOPPED and CLOSED without waiting for anyone, so that the peers that do run the
 * stages are not held by this rank. */
void arb_depart_leave(void);

/* arbor_fail_self's part: announce FAILED, then serve (nothing this rank's program does
 * matters any more) until every other rank has closed or failed. */
arbor_status_t arb_depart_fail(void);

/* Teardown: forgets the board. */
void arb_depart_fini(void);

#endif /* ARB_CORE_RMA_DEPART_H */
