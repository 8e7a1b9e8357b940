/* Teams: the world team, splits, frees, and the table of live teams behind the public handles
 * (team.c). What a team is to the collectives that run on it: coll/team.h. */
#ifndef ARB_GROUP_TEAM_H
#define ARB_GROUP_TEAM_H

#include <stdint.h>

#include "coll/team.h"

/* Creates the world team (all ranks), taking its region from the heap (the first block of every
 * rank's heap: the same offset everywhere without a search). */
arbor_status_t arb_team_create_world(struct arbor_team **team_p);
void arb_team_destroy(struct arbor_team *team);
/* Finalize: destroys every team but the world. */
void arb_team_destroy_all(void);
/* arbor_team_split and arbor_team_free for the library's own use (group/measure.c: a team of
 * one rank); the caller holds the lock (arb_lock). */
arbor_status_t arb_team_split_internal(arbor_team_h parent, int color, int key,
                                       arbor_team_h *team_p);
arbor_status_t arb_team_free_internal(arbor_team_h *team_p);

/* Maps a public handle to a live team; NULL for an unknown or freed one. */
struct arbor_team *arb_team_lookup(arbor_team_h h);
/* The live team of this rank with that id (world included), or NULL: this rank is no member. */
struct arbor_team *arb_team_by_id(uint64_t id);

#endif /* ARB_GROUP_TEAM_H */
