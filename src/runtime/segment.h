/*
 * The segment in node-shared memory (runtime/segment.c): arbor allocates it, the transport only
 * registers it, and the core maps the segments of the ranks of its node, whatever the
 * transport. A POSIX shared-memory object named arbor-<pid>-seg-<nonce> holds it only until
 * every rank of the job has mapped its node peers' (one bootstrap fence), then the name goes,
 * so that a killed job leaves nothing in /dev/shm; names of dead processes left by an earlier
 * job killed inside that window are swept at the next init.
 */
#ifndef ARB_CORE_SEGMENT_H
#define ARB_CORE_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#include "arbor.h"

/* The name a rank publishes for its node peers (empty: not in shared memory). */
#define ARB_SEG_NAME_MAX 48

/* Removes /dev/shm objects named arbor-<pid>-... of this user whose process is gone: our
 * segments and the regions of libfabric's shm provider (transports/ofi names them so). */
void arb_seg_sweep_stale(void);

/* Allocates the segment (len bytes, zero-filled) in named shared memory: arb_ctx.seg,
 * arb_ctx.seg_owned and arb_ctx.seg_name. Where the machine has no POSIX shared memory it
 * warns and leaves the segment to the transport (ARBOR_OK, seg_owned false). */
arbor_status_t arb_seg_create(size_t len);

/* Maps the segments of this node's peers (by the bootstrap's topology, arb_ctx.node_of) from
 * the names every rank published (names[r], ARB_SEG_NAME_MAX bytes each): arb_ctx.seg_map. A
 * peer whose segment cannot be mapped is reached through the transport; one whose segment's
 * name is gone has ended (ARBOR_ERR_PEER_LOST). */
arbor_status_t arb_seg_map_peers(const char (*names)[ARB_SEG_NAME_MAX]);

/* After every rank has mapped its peers: removes our name. Idempotent. */
void arb_seg_unlink(void);

/* Unmaps the peers' segments and ours (after the transport has deregistered it). */
void arb_seg_fini(void);

/* Blocks of this rank's heap over the segment, outside any symmetric allocation (init's own
 * regions, mailboxes, team regions). */
/* Local: takes [off, off + nbytes) of this rank's heap at init-time (every rank takes the same
 * region in the same order, so no search is needed). */
arbor_status_t arb_mem_take_local(uint64_t nbytes, uint64_t *off_p);
/* Local: returns what arb_mem_take_local took (after the caller synchronised). The space is
 * cleared first (the heap keeps free space zero-filled: group/symmetric.c). */
void arb_mem_give_local(uint64_t off, uint64_t nbytes);
/* Largest free block of this rank's heap. */
uint64_t arb_mem_largest_free(void);

#endif /* ARB_CORE_SEGMENT_H */
