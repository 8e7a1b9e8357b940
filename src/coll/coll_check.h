/* ARBOR_CHECK: the per-collective signature exchange (coll_check.c). */
#ifndef ARB_CORE_COLL_CHECK_H
#define ARB_CORE_COLL_CHECK_H

#include "coll/coll.h"

/* The words of one signature exchange: the fields and their complements. */
#define ARB_CHECK_WORDS 14

/* This member's signature of the call (valid: its own arguments passed validation), to be
 * combined over the team by a MAX allreduce of ARB_CHECK_WORDS uint64 words; the caller runs
 * that exchange (coll_start.c, as a collective that does not check itself), so this module
 * never calls back into the engine it checks. Posts this rank's board (team id, sequence
 * number) until the verdict, for arb_coll_check_crossing. */
void arb_coll_check_sign(const struct arbor_team *t, const arb_call_t *c, size_t elem,
                         uint64_t flags, bool valid, uint64_t mine[ARB_CHECK_WORDS]);
/* The verdict from the combined words: local when it is an error (this member's own
 * validation), else the exchange's error, else ARBOR_ERR_MISMATCH when any two members differ
 * (every member gets it; team rank 0 logs what differs), else ARBOR_OK. Clears the board. */
arbor_status_t arb_coll_check_verdict(const struct arbor_team *t, const arb_call_t *c,
                                      const uint64_t all[ARB_CHECK_WORDS], arbor_status_t local,
                                      arbor_status_t exchange);

/* The short signature of call number @p call (coll/coll_verdict.h) that every message of the
 * collective carries where the data path has room for it (docs/PROTOCOL.md, "Signatures"): the
 * fields above, the team's id and the call number, hashed; never 0. */
uint64_t arb_coll_check_hash(const struct arbor_team *t, const arb_call_t *c, size_t elem,
                             uint64_t flags, uint64_t call);

/* Init: with ARBOR_CHECK on, off is the board of every rank's segment (BOARD bytes at the same
 * offset everywhere, taken by init) and by_id finds this rank's team of a given id; the board
 * then serves the team-mismatch detection, hooked into the waits (arb_team_set_stall_hook).
 * off 0: ARBOR_CHECK off, no hook. */
#define ARB_CHECK_BOARD_BYTES 32
struct arbor_team;
void arb_coll_check_board_init(uint64_t off, struct arbor_team *(*by_id)(uint64_t id));

#endif /* ARB_CORE_COLL_CHECK_H */
