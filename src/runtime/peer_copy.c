/* Streaming copy into a mapped peer's slot (runtime/peer_copy.h). */
#include "runtime/peer_copy.h"

#include <string.h>

#include "util/clock.h"

#if defined(__x86_64__)
#include <emmintrin.h>

static void stream_copy(uint8_t *dst, const uint8_t *src, size_t len)
{
    /* Align the destination to a cache line, stream whole lines, copy the tail. */
    size_t head = (64 - ((uintptr_t)dst & 63)) & 63;
    if (head > len) head = len;
    memcpy(dst, src, head);
    dst += head, src += head, len -= head;
    size_t lines = len & ~(size_t)63;
    for (size_t i = 0; i < lines; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(src + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(src + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(src + i + 32));
        __m128i d = _mm_loadu_si128((const __m128i *)(src + i + 48));
        _mm_stream_si128((__m128i *)(dst + i), a);
        _mm_stream_si128((__m128i *)(dst + i + 16), b);
        _mm_stream_si128((__m128i *)(dst + i + 32), c);
        _mm_stream_si128((__m128i *)(dst + i + 48), d);
    }
    memcpy(dst + lines, src + lines, len - lines);
    _mm_sfence();
}
#endif

void arb_peer_copy(uint8_t *dst, const uint8_t *src, size_t len, size_t stream_min)
{
#if defined(__x86_64__)
    if (stream_min && len >= stream_min) {
        stream_copy(dst, src, len);
        return;
    }
#else
    (void)stream_min;
#endif
    memcpy(dst, src, len);
}

void arb_peer_copy_pick(arb_store_pick_t *pick, uint8_t *dst, const uint8_t *src, size_t len)
{
    int mode; /* 0 plain, 1 streaming: each measured once first, then the cheaper */
    bool probe = false;
    if (pick->cost[0] == 0) {
        mode = 0;
    } else if (pick->cost[1] == 0) {
        mode = 1;
    } else {
        mode = pick->cost[1] < pick->cost[0];
        if (pick->interval == 0) pick->interval = ARB_STORE_PROBE;
        if (++pick->chunks >= pick->interval) {
            pick->chunks = 0;
            mode = !mode;
            probe = true;
        }
    }
    double t0 = arb_now_us();
    arb_peer_copy(dst, src, len, mode ? 1 : 0);
    float x = (float)((arb_now_us() - t0) * 1024.0 / (double)(len ? len : 1));
    if (x <= 0) x = 1e-6f; /* a clock too coarse for this copy: cheap, and measured */
    float *c = &pick->cost[mode];
    *c = *c == 0 || x < *c ? x : 0.75f * *c + 0.25f * (x < 4 * *c ? x : 4 * *c);
    if (probe) /* lost again: probe half as often; won: the state changed, watch it closely */
        pick->interval = *c < pick->cost[!mode]                 ? ARB_STORE_PROBE
                         : pick->interval < ARB_STORE_PROBE_MAX ? pick->interval * 2
                                                                : ARB_STORE_PROBE_MAX;
}
