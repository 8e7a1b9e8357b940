// Cache-line round trip between two threads (each spinning on a flag the other writes): the
// hardware floor under every small-message collective between ranks of one node. bench/compare
// prints half of BM_flag_roundtrip as the one-way floor next to its 8-byte rows.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdint>
#include <thread>

namespace
{

struct alignas(64) Line {
    std::atomic<uint64_t> v{0};
};

void BM_flag_roundtrip(benchmark::State &state)
{
    Line ping, pong;
    std::atomic<bool> stop{false};
    std::thread echo([&] {
        uint64_t seen = 0;
        while (!stop.load(std::memory_order_relaxed)) {
            uint64_t v = ping.v.load(std::memory_order_acquire);
            if (v != seen) {
                seen = v;
                pong.v.store(v, std::memory_order_release);
            }
        }
    });
    uint64_t i = 0;
    for (auto _ : state) {
        ++i;
        ping.v.store(i, std::memory_order_release);
        while (pong.v.load(std::memory_order_acquire) != i) {
        }
    }
    stop.store(true);
    ping.v.store(i + 1, std::memory_order_release);
    echo.join();
}
BENCHMARK(BM_flag_roundtrip)->UseRealTime();

} // namespace
