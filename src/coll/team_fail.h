/* A team's failure: cancelling its collectives, the reasons a stalled wait stops, the hooks
 * that supply them (team_fail.c). */
#ifndef ARB_COLL_TEAM_FAIL_H
#define ARB_COLL_TEAM_FAIL_H

#include <stdbool.h>
#include <stdint.h>

#include "coll/team.h"

/* A collective of t timed out (or lost a peer): log what it waited for, cancel every
 * collective of t in flight and mark t failed. Other teams are untouched. */
struct arb_inst;
void arb_team_fail(struct arbor_team *t, struct arb_inst *inst, arbor_status_t why);

/* The id of a team split from parent with colour (every member computes the same, from the
 * parent's id and collective count at the split). */
uint64_t arb_team_child_id(const struct arbor_team *parent, int color);
/* Called by the waiting loops at their idle points: why a stalled collective of t can never
 * complete, or ARBOR_OK (keep waiting). ARBOR_ERR_PEER_LOST: a member is gone (bootstrap probe,
 * launcher event or transport error); ARBOR_ERR_PEER_STOPPED: inst waits for a member that is in
 * arbor_finalize (the peer-state probe); ARBOR_ERR_MISMATCH: ARBOR_CHECK saw members waiting in
 * the signature exchanges of different teams (coll_check.c). Cheap: no work unless reported. */
arbor_status_t arb_team_stall_reason(struct arbor_team *t, struct arb_inst *inst);
/* A further reason asked by arb_team_stall_reason (ARBOR_CHECK's team-mismatch detection,
 * registered from above so that this engine-level file does not call up); NULL: none. */
typedef arbor_status_t (*arb_team_stall_fn)(struct arbor_team *t, struct arb_inst *inst);
void arb_team_set_stall_hook(arb_team_stall_fn fn);
/* The departures (rma/depart.c, wired by init: they sit above the teams). stalled(rank,
 * id): whether a collective of team id waiting for world rank can no longer get it, because
 * rank is in arbor_finalize or because rank gave up team id for that reason (its notice, see
 * notice); such a wait returns ARBOR_ERR_PEER_STOPPED. notice(id, size, world): this rank gives up
 * team id for a stopped member and tells its members (world ranks world[0..size)), so that those
 * waiting for this rank (not for the stopped one) learn it too. NULL (the default): neither. */
typedef bool (*arb_team_stalled_fn)(int world_rank, uint64_t team_id);
typedef void (*arb_team_notice_fn)(uint64_t team_id, int size, const int *world);
void arb_team_set_departures(arb_team_stalled_fn stalled, arb_team_notice_fn notice);
/* Finalize: forgets the hook and the probe. */
void arb_team_fail_reset(void);
/* Fails t without an instance of its own (the other team of a crossing): cancels its
 * collectives in flight; later calls on it return ARBOR_ERR_TEAM. */
void arb_team_fail_all(struct arbor_team *t, arbor_status_t why);

#endif /* ARB_COLL_TEAM_FAIL_H */
