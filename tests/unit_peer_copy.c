/*
 * Unit test of runtime/peer_copy.c: every length 0..300 and a few large ones, at every
 * destination and source misalignment within a cache line, with streaming on and off, copies
 * exactly the bytes asked and touches nothing around them; arb_peer_copy_pick likewise over
 * enough chunks to take both kinds of stores, with both measured and a probe taken. Exits 1 on
 * any failure.
 */
#include "runtime/peer_copy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

static void check_one(uint8_t *dst_base, uint8_t *src_base, size_t cap, size_t len, size_t doff,
                      size_t soff, size_t stream_min)
{
    memset(dst_base, 0xee, cap);
    for (size_t i = 0; i < len; i++) src_base[soff + i] = (uint8_t)(i * 131 + soff + 7);
    arb_peer_copy(dst_base + 64 + doff, src_base + soff, len, stream_min);
    int bad = memcmp(dst_base + 64 + doff, src_base + soff, len) != 0;
    for (size_t i = 0; i < 64 + doff && !bad; i++) bad = dst_base[i] != 0xee;
    for (size_t i = 64 + doff + len; i < cap && !bad; i++) bad = dst_base[i] != 0xee;
    checks++;
    if (bad && ++failures <= 20)
        printf("FAIL len %zu dst+%zu src+%zu stream_min %zu\n", len, doff, soff, stream_min);
}

int main(void)
{
    const size_t big[] = {4096, 65536 - 1, 65536, 65536 + 17, 1 << 20};
    const size_t cap = (1 << 20) + 256;
    uint8_t *dst = aligned_alloc(64, cap), *src = aligned_alloc(64, cap);
    if (!dst || !src) return 1;
    for (size_t len = 0; len <= 300; len++)
        for (size_t doff = 0; doff < 64; doff += 7)
            for (size_t soff = 0; soff < 64; soff += 9) {
                check_one(dst, src, 64 + 64 + 300 + 64, len, doff, soff, 0);
                check_one(dst, src, 64 + 64 + 300 + 64, len, doff, soff, 1);
            }
    for (size_t b = 0; b < sizeof(big) / sizeof(big[0]); b++)
        for (size_t doff = 0; doff < 64; doff += 21)
            for (size_t stream = 0; stream < 2; stream++)
                check_one(dst, src, cap, big[b], doff, 3, stream ? 4096 : 0);
    /* The pick: plain first, streaming second, then the cheaper with a probe of the other every
     * ARB_STORE_PROBE chunks; every copy exact, whichever it took. */
    arb_store_pick_t pick = {{0, 0}, 0, 0};
    for (int k = 0; k < 3 * ARB_STORE_PROBE; k++) {
        size_t len = 65536 + (size_t)(k % 5) * 13, doff = (size_t)(k % 64);
        memset(dst, 0xee, cap);
        for (size_t i = 0; i < len; i++) src[i] = (uint8_t)(i * 29 + (size_t)k);
        arb_peer_copy_pick(&pick, dst + 64 + doff, src, len);
        int bad = memcmp(dst + 64 + doff, src, len) != 0 || dst[63 + doff] != 0xee ||
                  dst[64 + doff + len] != 0xee;
        checks++;
        if (bad && ++failures <= 20) printf("FAIL pick chunk %d len %zu\n", k, len);
    }
    checks++;
    if (!(pick.cost[0] > 0 && pick.cost[1] > 0) && ++failures <= 20)
        printf("FAIL pick: plain %g, streaming %g us/KiB: both should be measured\n", pick.cost[0],
               pick.cost[1]);
    free(dst);
    free(src);
    printf("unit.peer_copy: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
