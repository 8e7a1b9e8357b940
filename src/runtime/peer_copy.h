/*
 * Copying a chunk into a mapped peer's landing slot. Large chunks go out with non-temporal
 * (streaming) stores: a plain memcpy must first take ownership of every destination line, which
 * the receiver still holds from copying the previous message out of the same slot, so each line
 * would cross between the cores twice. Streaming stores skip that round trip. They are weakly
 * ordered: the function ends with a store fence, so the release store of the signal that
 * follows cannot overtake them. The executor streams where it measured a gain: a plain memcpy
 * into the slot is slow and bimodal from 4 KiB up, reductions included, so everything from
 * 4 KiB streams (docs/PERFORMANCE.md, "Streaming from 4 KiB", has the runs). With more ranks
 * than cores the receiver often runs next on the writer's own core, where the lines were
 * cached: nothing streams then (streaming measured slower there).
 */
#ifndef ARB_CORE_PEER_COPY_H
#define ARB_CORE_PEER_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Copies len bytes to dst (in a peer's segment); streams when len >= stream_min > 0. */
void arb_peer_copy(uint8_t *dst, const uint8_t *src, size_t len, size_t stream_min);

/*
 * Plain or streaming stores, measured per channel. Where a channel's slots span at least
 * ARBOR_CHANNEL_BYTES (group/team.c, fit_depth), a slot's lines have usually left the receiver's
 * cache by the time it comes round again, and plain stores beat streaming ones (which go
 * through DRAM): a 1 MiB two-copy pipeline at 1.45x one memcpy against 2.1x (bench/copybound).
 * But not always: on the 2-core VM the same plain-store pipeline measured 20x one memcpy at
 * other times, in runs minutes apart (the cores then apparently further apart: every store
 * a cross-core ownership transfer), where streaming stayed at 2.1-2.5x. So the sender times
 * its own copies: each chunk goes with the stores whose recent cost per byte is lower, and now
 * and then one with the other, so a change of state is seen. A copy can only be slowed by what
 * else runs (descheduled, interrupted), never sped up, so a cost falls to a lower measurement at
 * once and rises by a quarter of a higher one, at most 75% per copy. The other stores are tried
 * after ARB_STORE_PROBE chunks, and after twice as many each time they lose again (up to
 * ARB_STORE_PROBE_MAX: a losing plain chunk costs up to 10-60x its streamed copy, so probing
 * costs at most about 1% of the copies once settled).
 */
enum { ARB_STORE_PROBE = 128, ARB_STORE_PROBE_MAX = 8192 };
typedef struct {
    float cost[2];     /* us per KiB, plain [0] and streaming [1]; 0 = not measured yet */
    uint32_t chunks;   /* since the last probe */
    uint32_t interval; /* chunks between probes; 0 = ARB_STORE_PROBE */
} arb_store_pick_t;

/* Copies len bytes to dst (in a peer's segment) with the stores *pick says are cheaper. */
void arb_peer_copy_pick(arb_store_pick_t *pick, uint8_t *dst, const uint8_t *src, size_t len);

#endif /* ARB_CORE_PEER_COPY_H */
