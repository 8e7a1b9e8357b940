/*
 * The LogGP time of a collective's schedules, all ranks together (unit.costsim): what the
 * executor would take if every step behaved as the model says, chunk by chunk, so that each
 * algorithm's closed-form cost function can be checked against the schedule it builds.
 *   SEND chunk: starts when its round has begun, its dependency allows it (a RECV / COPY
 *     dependency: that step has completed this chunk; a SEND one: all of it), the channel's
 *     earlier tickets have gone, the CPU is free and the last send's gap max(os, g, bytes G)
 *     has passed; it holds the CPU os and lands os + L + bytes G later.
 *   RECV chunk: once landed, in order, and the last receive's gap max(or, g, bytes G) has
 *     passed (a rank drains its slots at the link rate, as it fills others'), the CPU takes
 *     or, plus the combine (arb_logp_combine) when it combines.
 *   COPY chunk: a local copy (the one-copy G per byte) or combine.
 * Among all chunks that can go, the one that can start first goes first (on a tie, the earlier
 * step: a rank drains what has landed before it sends, as the executor's progress loop does).
 * Credits: with a channel depth D, chunk k of a channel waits until its receiver has taken
 * chunk k - D out of its slot, plus L for the credit to reach the sender (the executor's
 * ARBOR_CHANNEL_DEPTH landing slots); without them a relay that takes in faster than it
 * forwards would receive a whole vector before forwarding any of it.
 */
#ifndef ARB_TESTS_SCHED_TIME_H
#define ARB_TESTS_SCHED_TIME_H

#include <stddef.h>

#include "algorithms/logp.h"
#include "algorithms/sched.h"

/* Completion time (us, the last rank) of P schedules with blocks of `block` bytes moving in
 * chunks of `chunk` through channels of `depth` slots (0: unlimited); -1 with a message in err
 * on a mismatch or deadlock. */
double arb_sim_time(int P, const arb_sched_t *scheds, size_t block, size_t chunk, int depth,
                    const arb_logp_t *m, char *err, size_t errlen);

#endif /* ARB_TESTS_SCHED_TIME_H */
