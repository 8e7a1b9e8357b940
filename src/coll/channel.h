/* The landing channels of a team (channel.c; their layout: team.h). */
#ifndef ARB_COLL_CHANNEL_H
#define ARB_COLL_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>

#include "coll/team.h"

/* Opens the in-channel from team rank p (allocates its block, publishes
 * it to p); ARBOR_OK when already open. ARBOR_ERR_NO_MEMORY when this rank's heap has no room: p is
 * told (ARB_CHAN_REFUSED) and the team is failed, since its members are out of step from then on.
 */
arbor_status_t arb_team_open_in(struct arbor_team *t, int p);
/* Writes a pending directory word at the sender p; false while the transport says try again. */
bool arb_team_publish(struct arbor_team *t, int p);
/* Landing bytes this rank holds for t (link lines and open channel blocks). */
size_t arb_team_landing_bytes(const struct arbor_team *t);
/* Returns the channel blocks opened here (the caller synchronised: nothing lands any more). */
void arb_team_close_channels(struct arbor_team *t);

#endif /* ARB_COLL_CHANNEL_H */
