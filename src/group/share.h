/*
 * Which ranks share CPUs (docs/TOPOLOGY.md, "Ranks that share CPUs"). Nodes are what the
 * bootstrap says share memory; CPUs are shared by every rank of one kernel, and several nodes
 * may be namespaces of one kernel (a simulated cluster, containers). Each rank publishes at
 * wire-up its kernel (a hash of /proc/sys/kernel/random/boot_id) and its CPU affinity; ranks of
 * one kernel form a group whose CPUs are the union of their affinities. A group with more ranks
 * than CPUs is oversubscribed: its messages queue for the CPUs (algorithms/oversub.c prices
 * that). Every rank reads every header, so every rank holds the same groups.
 */
#ifndef ARB_CORE_SHARE_H
#define ARB_CORE_SHARE_H

#include <stdbool.h>
#include <stdint.h>

#include "arbor.h"

struct arbor_team;

enum { ARB_SHARE_MASK_WORDS = 16 }; /* CPUs 0..1023 */

typedef struct {
    uint64_t kernel; /* hash of the kernel's boot id; 0 when unknown */
    uint64_t cpus[ARB_SHARE_MASK_WORDS];
} arb_share_hdr_t;

/* This rank's kernel and CPU affinity. */
void arb_share_local(arb_share_hdr_t *h);
/* Groups from every rank's header (hdr[r]) and node leader (leader[r]: ranks of an unknown
 * kernel form a group per node): arb_ctx.share_*. */
arbor_status_t arb_share_number(const arb_share_hdr_t *hdr, const int64_t *leader);
/* The team's busiest oversubscribed group (team ranks) into t->topo.shared / nshared /
 * shared_cpus / wake; world[r] is the world rank of team rank r. */
arbor_status_t arb_share_team(struct arbor_team *t, const int *world);
/* Whether the group has more ranks than CPUs. */
bool arb_share_oversubscribed(int group);
void arb_share_free(void);

#endif /* ARB_CORE_SHARE_H */
