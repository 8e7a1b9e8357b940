// Micro benchmarks of the machine's copy bandwidth and of the reduction kernels, so that the
// large-message results of arbor-bench / bench/compare can be read against them:
//   BM_memcpy/<bytes>             memcpy, warm (same buffers every iteration)
//   BM_memcpy_cold/<bytes>        memcpy rotating through 128 MiB (cold caches, like --cold)
//   BM_sum_loop_{double,int64}    inout[i] += in[i], a plain loop (what a compiler makes of it)
//   BM_arb_reduce_sum_{double,int64}  the library's kernel: arb_reduce(ARBOR_SUM, ...)
// bytes_per_second counts the bytes copied, or the bytes of the vector reduced (not the 3 streams).
// bench/compare reads BM_memcpy/1048576 for the "1 MiB bcast within 1.5x of one memcpy" target.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
#include "runtime/dtype.h"
}

namespace
{

constexpr size_t kMiB = size_t(1) << 20;
constexpr size_t kColdArena = 128 * kMiB;

void CopySizes(benchmark::internal::Benchmark *b)
{
    for (long n : {8L, 64L, 512L, 4096L, 32768L, 65536L, 262144L, 1048576L, 4194304L, 16777216L})
        b->Arg(n);
}

void ReduceSizes(benchmark::internal::Benchmark *b)
{
    for (long n : {64L, 4096L, 65536L, 1048576L, 16777216L}) b->Arg(n);
}

void BM_memcpy(benchmark::State &state)
{
    const size_t n = static_cast<size_t>(state.range(0));
    std::vector<unsigned char> src(n, 0x5a), dst(n, 0);
    for (auto _ : state) {
        std::memcpy(dst.data(), src.data(), n);
        benchmark::DoNotOptimize(dst.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
}
BENCHMARK(BM_memcpy)->Apply(CopySizes);

// Source and destination step through two 128 MiB arenas (more than any LLC), page-aligned.
void BM_memcpy_cold(benchmark::State &state)
{
    const size_t n = static_cast<size_t>(state.range(0));
    const size_t step = (n + 4095) & ~size_t(4095);
    const size_t slots = kColdArena / step > 0 ? kColdArena / step : 1;
    std::vector<unsigned char> src(slots * step, 0x5a), dst(slots * step, 0);
    size_t k = 0;
    for (auto _ : state) {
        std::memcpy(dst.data() + k * step, src.data() + k * step, n);
        benchmark::DoNotOptimize(dst.data());
        benchmark::ClobberMemory();
        k = k + 1 == slots ? 0 : k + 1;
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
}
BENCHMARK(BM_memcpy_cold)->Apply(CopySizes);

template <typename T> void BM_sum_loop(benchmark::State &state)
{
    const size_t n = static_cast<size_t>(state.range(0)) / sizeof(T);
    std::vector<T> inout(n, T(1)), in(n, T(1));
    for (auto _ : state) {
        T *__restrict a = inout.data();
        const T *__restrict b = in.data();
        for (size_t i = 0; i < n; i++) a[i] += b[i];
        benchmark::DoNotOptimize(inout.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                            static_cast<int64_t>(n * sizeof(T)));
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
}
BENCHMARK_TEMPLATE(BM_sum_loop, double)->Name("BM_sum_loop_double")->Apply(ReduceSizes);
BENCHMARK_TEMPLATE(BM_sum_loop, int64_t)->Name("BM_sum_loop_int64")->Apply(ReduceSizes);

template <typename T> void BM_arb_reduce_sum(benchmark::State &state, arbor_dtype_t dtype)
{
    const size_t n = static_cast<size_t>(state.range(0)) / sizeof(T);
    std::vector<T> inout(n, T(1)), in(n, T(1));
    if (arb_op_check(ARBOR_SUM, dtype) != ARBOR_OK) {
        state.SkipWithError("arb_op_check(ARBOR_SUM) failed");
        return;
    }
    for (auto _ : state) {
        arb_reduce(ARBOR_SUM, dtype, inout.data(), in.data(), n, 1 /* ARB_COMBINE_AFTER */);
        benchmark::DoNotOptimize(inout.data());
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                            static_cast<int64_t>(n * sizeof(T)));
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
}
void BM_arb_reduce_sum_double(benchmark::State &state)
{
    BM_arb_reduce_sum<double>(state, ARBOR_DOUBLE);
}
BENCHMARK(BM_arb_reduce_sum_double)->Apply(ReduceSizes);

void BM_arb_reduce_sum_int64(benchmark::State &state)
{
    BM_arb_reduce_sum<int64_t>(state, ARBOR_INT64);
}
BENCHMARK(BM_arb_reduce_sum_int64)->Apply(ReduceSizes);

} // namespace
