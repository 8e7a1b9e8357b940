/*
 * Stray messages: a message from a member that belongs to a call this rank has finished
 * (or runs without receiving from that member) came from a mismatched call on the sender: two
 * ranks that each think they are the root, a root that only sends, a parent this rank's
 * schedule does not know. No collective would ever read it, so the signature check at receipt
 * (coll/executor.c) never sees it. Found here, it fails the team with ARBOR_ERR_MISMATCH, and
 * the verdict reaches every member (docs/PROTOCOL.md, "Signatures").
 *
 * A message's signature carries the low ARB_SIG_CALL_BITS of its call number, so a receiver
 * can tell which call a message at the head of a channel belongs to without reading its data.
 * Between unmapped members (other nodes, ARBOR_DIRECT=n) the words that say which call waits
 * travel too, but only from a wait that has seen nothing move for a grace.
 */
#ifndef ARBOR_CORE_COLL_STRAY_H
#define ARBOR_CORE_COLL_STRAY_H

#include <stdbool.h>
#include <stdint.h>

#include "arbor.h"
#include "coll/signature.h"

struct arbor_team;
struct arb_inst;

/* Looks at what t's members sent or wait for: ARBOR_ERR_MISMATCH (said, the team failed and
 * every member told) when a message or a wait belongs to a call that does not match this rank's,
 * else ARBOR_OK. inst NULL (every call's start): a few members in turn, messages of calls
 * finished here (a few loads of lines that only move when a message came). inst, a wait's idle
 * point: first tells the members the team's oldest call in flight waits for (mapped ones at
 * once, the others once inst's wait has seen nothing move for a grace: a transport operation
 * each), then looks at every member, calls in flight here included. */
arbor_status_t arb_stray_check(struct arbor_team *t, const struct arb_inst *inst);
/* Finalize, once the transport is closed: forgets the operations it may still report into. */
void arb_stray_release(void);

#endif
