// arbor-micro: Google Benchmark driver; the benchmarks live in micro_*.cc.
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
