/*
 * Tiny calls: small blocking collectives without an instance (coll/tiny.c).
 */
#ifndef ARB_CORE_TINY_H
#define ARB_CORE_TINY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/coll.h"
#include "coll/sched_cache.h"

struct arbor_team;

/* Tiny calls (docs/PROTOCOL.md, "Tiny calls"): a blocking bcast of at most a cell whose
 * schedule here is a receive and sends of the same bytes, or an in-place allreduce of at most a
 * cell between 2 members (send ours, combine theirs), all with mapped members, while no
 * collective is in flight, completes without an instance when its messages are there and its
 * sends have credits: the same tickets, cells, credits and signature as the executor's, in a
 * fraction of its work. arb_exec_tiny_plan records the plan of a call the general path ran
 * (len: its message bytes, block: its layout's block), and whether it can run tiny;
 * arb_exec_tiny (buf: the call's buffer, sig: its signature) returns true when it ran the
 * call, false when it took nothing (the general path runs it). */
void arb_exec_tiny_plan(struct arbor_team *t, const arb_cached_sched_t *cs, const arb_call_t *c,
                        size_t len, size_t block, int alg, double predicted_us);
bool arb_exec_tiny(struct arbor_team *t, uint8_t *buf, uint64_t sig);

#endif /* ARB_CORE_TINY_H */
