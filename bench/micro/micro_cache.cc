// Micro benchmarks of what a collective call pays to find its schedule (coll/sched_cache.h):
// a hit in the per-team cache (the steady state of every repeated call) against a miss, which
// runs the selector over every candidate and builds the chosen schedule. The hit must be a few
// nanoseconds and allocate nothing, so selection never shows in a small-message profile.
#include <benchmark/benchmark.h>

extern "C" {
#include "algorithms/coll.h"
#include "algorithms/logp.h"
#include "coll/sched_cache.h"
}

namespace
{

const arb_logp_t kModel = {2.0, 0.4, 0.4, 0.6, 0.0002, 0, 0, 0, 0};

arb_coll_args_t Args(int P, size_t bytes)
{
    arb_coll_args_t a = {};
    a.coll = ARB_COLL_BCAST;
    a.rank = P / 3;
    a.size = P;
    a.bytes = bytes;
    a.chunk = 65536;
    a.commutative = 1;
    return a;
}

arb_sched_key_t Key(int cls)
{
    arb_sched_key_t k = {};
    k.coll = ARB_COLL_BCAST;
    k.bytes = static_cast<uint64_t>(cls);
    return k;
}

// A cache holding 64 size classes of P-rank broadcasts; every lookup hits.
void BM_CacheHit(benchmark::State &state)
{
    const int P = static_cast<int>(state.range(0));
    arb_sched_cache_t cache;
    arb_sched_cache_init(&cache, 64);
    for (int cls = 0; cls < 64; cls++) {
        arb_sched_t s;
        arb_sched_init(&s);
        arb_coll_args_t a = Args(P, size_t{1} << (cls % 24));
        int alg = arb_select(&a, &kModel, 0, nullptr);
        int n;
        const arb_alg_desc_t *tab = arb_alg_table(ARB_COLL_BCAST, &n);
        tab[alg].build(&tab[alg], &a, &kModel, &s);
        arb_sched_key_t k = Key(cls);
        arb_sched_release(arb_sched_cache_put(&cache, &k, &s));
    }
    int cls = 0;
    for (auto _ : state) {
        arb_sched_key_t k = Key(cls);
        cls = (cls + 7) & 63;
        arb_cached_sched_t *e = arb_sched_cache_get(&cache, &k);
        benchmark::DoNotOptimize(e);
        arb_sched_release(e);
    }
    arb_sched_cache_destroy(&cache);
}

// What a miss costs: the selector prices every broadcast algorithm, then the winner is built.
void BM_CacheMissSelectBuild(benchmark::State &state)
{
    const int P = static_cast<int>(state.range(0));
    arb_coll_args_t a = Args(P, 8);
    int n;
    const arb_alg_desc_t *tab = arb_alg_table(ARB_COLL_BCAST, &n);
    for (auto _ : state) {
        arb_sched_t s;
        arb_sched_init(&s);
        int alg = arb_select(&a, &kModel, 0, nullptr);
        tab[alg].build(&tab[alg], &a, &kModel, &s);
        benchmark::DoNotOptimize(s.steps);
        arb_sched_free(&s);
    }
}

BENCHMARK(BM_CacheHit)->Arg(8)->Arg(64)->Arg(1024);
BENCHMARK(BM_CacheMissSelectBuild)->Arg(8)->Arg(64)->Arg(1024);

} // namespace
