// Micro benchmarks of the broadcast tree builders and the LogGP simulator (algorithms/tree.h):
// every rank builds its tree locally, so the build time is paid on a tree-cache miss.
#include <benchmark/benchmark.h>

extern "C" {
#include "algorithms/logp.h"
#include "algorithms/tree.h"
}

namespace
{

// T = 8 us, s = 2 us: a Karp tree between binomial and flat.
const arb_logp_t kModel = {6.0, 1.0, 1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0};
constexpr size_t kBytes = 8;

// P = 8, 64, 1024, 16384, 131072, 1048576.
void Sizes(benchmark::internal::Benchmark *b)
{
    for (long p : {8L, 64L, 1024L, 16384L, 131072L, 1048576L}) b->Arg(p);
}

void BM_TreeBuild(benchmark::State &state, arb_tree_kind_t kind)
{
    const int P = static_cast<int>(state.range(0));
    for (auto _ : state) {
        arb_tree_t tree;
        if (arb_tree_build(kind, P, 4, &kModel, kBytes, &tree) != ARBOR_OK) {
            state.SkipWithError("arb_tree_build failed");
            break;
        }
        benchmark::DoNotOptimize(tree.children);
        arb_tree_free(&tree);
    }
    state.SetItemsProcessed(state.iterations() * P);
}

void BM_TreeSimulate(benchmark::State &state, arb_tree_kind_t kind)
{
    const int P = static_cast<int>(state.range(0));
    arb_tree_t tree;
    if (arb_tree_build(kind, P, 4, &kModel, kBytes, &tree) != ARBOR_OK) {
        state.SkipWithError("arb_tree_build failed");
        return;
    }
    for (auto _ : state) {
        double t = arb_tree_simulate(&tree, &kModel, kBytes, nullptr, nullptr);
        benchmark::DoNotOptimize(t);
    }
    state.SetItemsProcessed(state.iterations() * P);
    arb_tree_free(&tree);
}

} // namespace

BENCHMARK_CAPTURE(BM_TreeBuild, karp, ARB_TREE_KARP)->Apply(Sizes)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_TreeBuild, binomial, ARB_TREE_BINOMIAL)
    ->Apply(Sizes)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_TreeSimulate, karp, ARB_TREE_KARP)
    ->Apply(Sizes)
    ->Unit(benchmark::kMicrosecond);
