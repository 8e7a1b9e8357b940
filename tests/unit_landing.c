/*
 * Landing memory at P = 64 without a launcher (coll/team.h, docs/PROTOCOL.md "Landing
 * channels"). For every collective, at three sizes, on the transports' default models, the
 * selector's choice is built for all 64 ranks; a rank opens one channel per peer its schedules
 * receive from. The test
 *   - drives the real channel bookkeeping (arb_team_open_in) of every simulated rank in turn
 *     over a private heap, as arb_exec_start does for each schedule: blocks are distinct and
 *     published to the sender (block | 1 in the sender's link line for that receiver), the
 *     bytes arb_team_landing_bytes reports are 64 x (P + 1) + channels x block, and destroying the
 *     team returns every channel byte to the heap;
 *   - asserts the bound: landing bytes = O(peers used) x block + 64 x (P + 1), e.g. one channel
 * after tree broadcasts, at most ceil(log2 P) + 1 after a barrier, and prints the bytes per rank
 *     after each collective and after the whole suite, against the dense layout;
 *   - checks that a tree's up-down schedule opens children + parent channels (the count
 *     arbor-tree --memory prints at scale);
 *   - exhausts the heap: the channel that does not fit gives ARBOR_ERR_NO_MEMORY, publishes
 *     ARB_CHAN_REFUSED to its sender and fails the team.
 */
#include "algorithms/coll.h"
#include "runtime/context.h"
#include "runtime/model.h"
#include "util/heap.h"
#include "rma/rma.h"
#include "coll/channel.h"
#include "group/team.h"
#include "unit_check.h"

#include <stdlib.h>
#include <string.h>

enum { P = 64, DEPTH = 4 };
static const size_t CHUNK = 65536;

static bool reduction(arb_coll_t k)
{
    return k == ARB_COLL_REDUCE || k == ARB_COLL_ALLREDUCE || k == ARB_COLL_REDUCE_SCATTER ||
           k == ARB_COLL_SCAN || k == ARB_COLL_EXSCAN;
}

static bool vector(arb_coll_t k)
{
    return k == ARB_COLL_SCATTERV || k == ARB_COLL_GATHERV || k == ARB_COLL_ALLGATHERV ||
           k == ARB_COLL_ALLTOALLV;
}

/* in[r * P + p]: rank r's schedule for the call receives from p. Returns the algorithm. */
static int recv_peers(arb_coll_t k, size_t bytes, const arb_logp_t *m, bool *in)
{
    size_t cnt[P], dsp[P], ecnt[P];
    for (int r = 0; r < P; r++) cnt[r] = bytes, dsp[r] = bytes * (size_t)r, ecnt[r] = bytes / 8;
    arb_coll_args_t a = {.coll = k,
                         .size = P,
                         .root = 0,
                         .bytes = bytes,
                         .chunk = CHUNK,
                         .count = reduction(k) && k != ARB_COLL_REDUCE_SCATTER ? bytes / 8 : 0,
                         .commutative = 1};
    if (vector(k)) a.counts = cnt, a.displs = dsp, a.rcounts = cnt, a.rdispls = dsp;
    if (k == ARB_COLL_REDUCE_SCATTER) a.counts = ecnt;
    int n, alg = arb_select(&a, m, 0, NULL);
    const arb_alg_desc_t *tab = arb_alg_table(k, &n);
    memset(in, 0, sizeof(bool) * P * P);
    for (int r = 0; r < P; r++) {
        arb_sched_t s;
        arb_sched_init(&s);
        a.rank = r;
        if (!check(alg > 0 && alg < n && tab[alg].build(&tab[alg], &a, m, &s) == ARBOR_OK,
                   "%s %zu B: %s does not build for rank %d", arb_coll_name(k), bytes,
                   alg > 0 && alg < n ? tab[alg].name : "?", r)) {
            arb_sched_free(&s);
            return alg;
        }
        for (int i = 0; i < s.nsteps; i++) /* a receive of no payload is a signal: no channel */
            if (s.steps[i].kind == ARB_STEP_RECV && s.steps[i].bytes > 0)
                in[r * P + s.steps[i].peer] = true;
        arb_sched_free(&s);
    }
    return alg;
}

/* One simulated rank's view of a team: a private segment and heap (arb_ctx's), the team's link
 * lines at the heap's first block, and one image of a peer's link region per peer where what
 * this rank publishes lands (all peers "mapped", so publication is a store). */
typedef struct {
    struct arbor_team *t;
    uint8_t *peer_links; /* [P][region]: peer p's link region as p sees it */
    uint64_t base_used;  /* heap bytes used before any channel */
} sim_rank_t;

static void sim_open(sim_rank_t *sr, int rank, uint8_t *seg, uint64_t seg_size)
{
    memset(seg, 0, seg_size);
    arb_heap_fini(&arb_ctx.heap);
    check(arb_heap_init(&arb_ctx.heap, seg_size) == ARBOR_OK, "heap init");
    arb_ctx.seg = seg;
    arb_ctx.seg_size = seg_size;
    struct arbor_team *t = calloc(1, sizeof(*t));
    t->rank = rank;
    t->size = P;
    t->depth = DEPTH;
    t->chunk = CHUNK;
    t->world = calloc(P, sizeof(int));
    t->peer_seg = calloc(P, sizeof(uint8_t *));
    t->rkey = calloc(P, sizeof(*t->rkey));
    t->out = calloc(P, sizeof(*t->out));
    t->in = calloc(P, sizeof(*t->in));
    check(arb_mem_take_local(arb_team_region_bytes(P), &t->region) == ARBOR_OK, "link lines");
    t->local = seg + t->region;
    size_t region = arb_team_region_bytes(P);
    sr->peer_links = calloc(P, region);
    for (int p = 0; p < P; p++) {
        t->world[p] = p;
        /* Peer p's segment "base" such that base + region lands in its link image. */
        t->peer_seg[p] = sr->peer_links + (size_t)p * region - t->region;
    }
    sr->t = t;
    sr->base_used = arb_ctx.heap.used;
}

static void sim_close(sim_rank_t *sr)
{
    arb_team_destroy(sr->t); /* returns the channel blocks (the link lines are the world's) */
    free(sr->peer_links);
}

static uint64_t published(const sim_rank_t *sr, int p)
{
    return *(const uint64_t *)(sr->peer_links + (size_t)p * arb_team_region_bytes(P) +
                               arb_team_link_off(sr->t->rank) + ARB_LINK_DIR);
}

static int count(const bool *row)
{
    int n = 0;
    for (int p = 0; p < P; p++) n += row[p];
    return n;
}

static int ceil_log2(int x)
{
    int k = 0;
    while ((1 << k) < x) k++;
    return k;
}

static void test_suite(const char *transport, uint8_t *seg, uint64_t seg_size)
{
    static const size_t sizes[] = {8, 65536, 1u << 20};
    arb_logp_t m;
    arb_model_defaults_by_name(transport, &m, NULL);
    size_t block = arb_chan_bytes(DEPTH, CHUNK), link = arb_team_region_bytes(P);
    /* The dense layout: a channel of the same lines, cells and slots from every member, always. */
    size_t dense =
        (size_t)P * 128 + (size_t)P * ((size_t)arb_chan_lines(DEPTH) * 64 +
                                       (size_t)arb_chan_cells_bytes(DEPTH) + (size_t)DEPTH * CHUNK);
    /* Workloads: [0] 8-byte bcasts only, [1] 8-byte barrier, bcast, reduce and allreduce (the
     * usual small-message mix), [2] every collective at every size. */
    enum { NW = 3 };
    static const char *const wname[NW] = {"8 B bcast", "8 B barrier+bcast+reduce+allreduce",
                                          "every collective, 8 B..1 MiB"};
    bool *in = malloc(sizeof(bool) * P * P), *wl = calloc(NW * P * P, sizeof(bool));
    bool *all = wl + 2 * P * P;
    printf("transport %s defaults, P = %d, depth %d x chunk %zu (channel block %zu bytes, link "
           "lines %zu bytes; the dense layout: %zu bytes per rank and team)\n",
           transport, P, DEPTH, CHUNK, block, link, dense);
    printf("  %-15s %8s %-22s %12s %12s %16s\n", "collective", "bytes", "algorithm", "max_channels",
           "mean", "max_bytes/rank");
    for (int k = 0; k < ARB_COLL_KINDS; k++)
        for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
            int n, alg = recv_peers((arb_coll_t)k, sizes[si], &m, in);
            const arb_alg_desc_t *tab = arb_alg_table((arb_coll_t)k, &n);
            int mx = 0, sum = 0;
            for (int r = 0; r < P; r++) {
                int c = count(in + r * P);
                mx = c > mx ? c : mx;
                sum += c;
                bool small = sizes[si] == 8;
                bool w0 = small && k == ARB_COLL_BCAST;
                bool w1 = small && (k == ARB_COLL_BARRIER || k == ARB_COLL_BCAST ||
                                    k == ARB_COLL_REDUCE || k == ARB_COLL_ALLREDUCE);
                for (int p = 0; p < P; p++) {
                    all[r * P + p] |= in[r * P + p];
                    if (w0) wl[r * P + p] |= in[r * P + p];
                    if (w1) wl[P * P + r * P + p] |= in[r * P + p];
                }
                check(!in[r * P + r], "%s: rank %d receives from itself", arb_coll_name(k), r);
            }
            printf("  %-15s %8zu %-22s %12d %12.2f %16zu\n", arb_coll_name((arb_coll_t)k),
                   sizes[si], alg > 0 && alg < n ? tab[alg].name : "?", mx, (double)sum / P,
                   link + (size_t)mx * block);
            /* The bounds of the families' shapes. */
            const char *name = alg > 0 && alg < n ? tab[alg].name : "";
            bool tree_bcast = k == ARB_COLL_BCAST && strcmp(name, "scatter_allgather") != 0;
            if (tree_bcast)
                check(mx <= 1, "%s bcast: %d channels on a rank (a tree: one parent)", name, mx);
            if (k == ARB_COLL_BARRIER) /* signals only (docs/PROTOCOL.md, "Signals") */
                check(mx == 0, "barrier %s: %d channels, signals need none", name, mx);
            if (k == ARB_COLL_SCATTER)
                check(mx <= ceil_log2(P), "scatter %s: %d channels", name, mx);
        }

    for (int w = 0; w < NW; w++) {
        int wmx = 0, wsum = 0;
        for (int r = 0; r < P; r++) {
            int c = count(wl + (size_t)w * P * P + (size_t)r * P);
            wmx = c > wmx ? c : wmx;
            wsum += c;
        }
        printf("  workload %-36s channels per rank mean %5.2f max %2d; landing bytes per rank "
               "mean %9.0f max %9zu (dense %zu)\n",
               wname[w], (double)wsum / P, wmx, (double)link + (double)wsum / P * (double)block,
               link + (size_t)wmx * block, dense);
        if (w == 0) check(wmx <= 1, "8-byte bcasts open %d channels on a rank", wmx);
        /* The small-message mix is trees and log-round exchanges: a few channels per rank. */
        if (w == 1)
            check(wsum <= 4 * ceil_log2(P) * P,
                  "the small-message mix opens %.1f channels per "
                  "rank on average",
                  (double)wsum / P);
    }

    /* The real bookkeeping, rank by rank, for the whole suite. */
    int mx = 0, mn = P, sum = 0;
    for (int r = 0; r < P; r++) {
        sim_rank_t sr;
        sim_open(&sr, r, seg, seg_size);
        for (int p = 0; p < P; p++)
            if (all[r * P + p]) check(arb_team_open_in(sr.t, p) == ARBOR_OK, "open %d <- %d", r, p);
        /* Opening again (the next collective) takes nothing. */
        for (int p = 0; p < P; p++)
            if (all[r * P + p]) arb_team_open_in(sr.t, p);
        int c = count(all + r * P);
        size_t bytes = arb_team_landing_bytes(sr.t);
        check(sr.t->open_in == c, "rank %d: %d channels open, schedules use %d", r, sr.t->open_in,
              c);
        check(bytes == link + (size_t)c * block, "rank %d: %zu landing bytes for %d channels", r,
              bytes, c);
        check(arb_ctx.heap.used - sr.base_used == arb_heap_round(block) * (uint64_t)c,
              "rank %d: heap grew by %llu for %d channels", r,
              (unsigned long long)(arb_ctx.heap.used - sr.base_used), c);
        uint64_t top_end = 0;
        for (int p = 0; p < P; p++) {
            uint64_t w = published(&sr, p);
            if (!all[r * P + p]) {
                check(w == 0, "rank %d published to %d, which never sends to it", r, p);
                continue;
            }
            check(w == (sr.t->in[p].block | 1) && !sr.t->in[p].publish,
                  "rank %d: channel from %d published as %llu, block at %llu", r, p,
                  (unsigned long long)w, (unsigned long long)sr.t->in[p].block);
            /* No two blocks overlap, and none overlaps the link lines. */
            uint64_t b = sr.t->in[p].block;
            uint64_t taken = b - arb_chan_skew(sr.t);
            if (taken + arb_heap_round(block) > top_end) top_end = taken + arb_heap_round(block);
            check(b >= sr.t->region + link || b + block <= sr.t->region, "rank %d: block in links",
                  r);
            for (int q = p + 1; q < P; q++)
                if (all[r * P + q])
                    check(b + block <= sr.t->in[q].block || sr.t->in[q].block + block <= b,
                          "rank %d: blocks of %d and %d overlap", r, p, q);
        }
        check(c == 0 || top_end == arb_ctx.heap.size,
              "rank %d: blocks end at %llu, not at the "
              "top of the heap (%llu)",
              r, (unsigned long long)top_end, (unsigned long long)arb_ctx.heap.size);
        uint64_t base = sr.base_used;
        sim_close(&sr);
        check(arb_ctx.heap.used == base, "rank %d: team destroy left %llu channel bytes", r,
              (unsigned long long)(arb_ctx.heap.used - base));
        mx = c > mx ? c : mx;
        mn = c < mn ? c : mn;
        sum += c;
    }
    printf("  whole suite: channels per rank min %d mean %.1f max %d; landing bytes per rank max "
           "%zu (dense: %zu, %.0f%%)\n",
           mn, (double)sum / P, mx, link + (size_t)mx * block, dense,
           100.0 * (double)(link + (size_t)mx * block) / (double)dense);
    check(link + (size_t)mx * block <= dense, "sparse above dense");
    free(in);
    free(wl);
}

/* An up-down schedule on a tree opens exactly children + parent channels on each rank. */
static void test_updown(void)
{
    arb_logp_t m;
    arb_logp_default_mapped(&m);
    static const arb_tree_kind_t kinds[] = {ARB_TREE_BINOMIAL, ARB_TREE_KARP, ARB_TREE_BINARY};
    bool *in = malloc(sizeof(bool) * P * P);
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        arb_tree_t tree;
        if (!check(arb_tree_build(kinds[i], P, 0, &m, 8, &tree) == ARBOR_OK, "tree")) continue;
        memset(in, 0, sizeof(bool) * P * P);
        for (int r = 0; r < P; r++) {
            arb_coll_args_t a = {.coll = ARB_COLL_ALLREDUCE,
                                 .rank = r,
                                 .size = P,
                                 .bytes = 8,
                                 .chunk = CHUNK,
                                 .count = 1,
                                 .commutative = 1};
            arb_sched_t s;
            arb_sched_init(&s);
            if (check(arb_updown_build(&a, &m, kinds[i], &s) == ARBOR_OK, "updown %d", r))
                for (int j = 0; j < s.nsteps; j++)
                    if (s.steps[j].kind == ARB_STEP_RECV) in[r * P + s.steps[j].peer] = true;
            arb_sched_free(&s);
        }
        /* The tree is in virtual ranks rooted at 0, the same as team ranks for root 0. */
        for (int v = 0; v < P; v++) {
            int want = tree.child_start[v + 1] - tree.child_start[v] + (tree.parent[v] >= 0);
            check(count(in + v * P) == want, "%s up-down: rank %d opens %d channels, tree says %d",
                  arb_tree_kind_name(kinds[i]), v, count(in + v * P), want);
        }
        arb_tree_free(&tree);
    }
    free(in);
}

/* Room for two channels: the third fails, tells its sender and fails the team. */
static void test_exhaustion(uint8_t *seg)
{
    size_t block = arb_chan_bytes(DEPTH, CHUNK);
    uint64_t size = arb_heap_round(arb_team_region_bytes(P)) + 2 * arb_heap_round(block) + 64;
    sim_rank_t sr;
    sim_open(&sr, 5, seg, size);
    check(arb_team_open_in(sr.t, 1) == ARBOR_OK && arb_team_open_in(sr.t, 2) == ARBOR_OK,
          "two channels fit");
    check(arb_team_open_in(sr.t, 3) == ARBOR_ERR_NO_MEMORY, "the third does not");
    check(published(&sr, 3) == ARB_CHAN_REFUSED, "the sender is told: %llu",
          (unsigned long long)published(&sr, 3));
    check(sr.t->failed == ARBOR_ERR_NO_MEMORY, "the team is failed");
    check(arb_team_open_in(sr.t, 3) == ARBOR_ERR_NO_MEMORY, "and stays refused");
    /* The collective's other channels are refused too, without allocating, so that every
     * sender of it learns. */
    uint64_t used = arb_ctx.heap.used;
    check(arb_team_open_in(sr.t, 4) == ARBOR_ERR_NO_MEMORY &&
              published(&sr, 4) == ARB_CHAN_REFUSED && arb_ctx.heap.used == used,
          "a failed team refuses the next channel: %llu", (unsigned long long)published(&sr, 4));
    check(arb_team_landing_bytes(sr.t) == arb_team_region_bytes(P) + 2 * block,
          "landing bytes count the two open channels");
    sim_close(&sr); /* a failed team keeps its blocks out of the heap (late messages) */
}

/* Channel blocks come from the top of the heap; init's bottom-up blocks do not move. */
static void test_top(void)
{
    arb_heap_t h;
    check(arb_heap_init(&h, 1 << 20) == ARBOR_OK, "heap");
    check(arb_heap_fit_top(&h, 100) == (1 << 20) - 128, "top of an empty heap: %llu",
          (unsigned long long)arb_heap_fit_top(&h, 100));
    check(arb_heap_take(&h, (1 << 20) - 128, 100) == ARBOR_OK, "take the top");
    check(arb_heap_fit(&h, 64, 0) == 0, "the bottom stays free");
    check(arb_heap_take(&h, 0, 4096) == ARBOR_OK &&
              arb_heap_take(&h, 8192, (1 << 20) - 8192 - 128) == ARBOR_OK,
          "fill all but [4096, 8192)");
    check(arb_heap_fit_top(&h, 4096) == 4096, "the only hole: %llu",
          (unsigned long long)arb_heap_fit_top(&h, 4096));
    check(arb_heap_fit_top(&h, 4097) == ARB_HEAP_NONE, "too big for the hole");
    check(arb_heap_fit_top(&h, 0) != ARB_HEAP_NONE, "nothing always fits");
    arb_heap_fini(&h);
}

/* The block's parts do not overlap (lines, cells, slots, at depths below and above the 256
 * lines), and a cell's tag tells tickets and calls apart as docs/PROTOCOL.md ("Cells") says. */
static void test_cells(void)
{
    static const int depths[] = {1, 4, 16, 256, 257, 1000};
    for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
        struct arbor_team t = {.depth = depths[i], .chunk = 1024};
        uint64_t lines = arb_chan_lines(t.depth);
        uint64_t last_line_end = arb_chan_line_of(&t, lines - 1) + 64;
        uint64_t first_cell = arb_chan_cell_of(&t, 0),
                 last_cell_end = arb_chan_cell_of(&t, lines - 1) + 16;
        check(first_cell == last_line_end, "depth %d: cells follow the lines", t.depth);
        check(arb_chan_cell_of(&t, lines) == first_cell, "depth %d: the cells are a ring of lines",
              t.depth);
        check(last_cell_end <= arb_chan_slot_off(&t, 0) && arb_chan_slot_off(&t, 0) % 64 == 0,
              "depth %d: the slots follow the cells, line-aligned", t.depth);
        check(arb_chan_slot_off(&t, (uint64_t)t.depth) + (ARB_CHAN_SKEW - 1) * 64 ==
                  arb_chan_bytes(t.depth, t.chunk),
              "depth %d: the block holds skew, lines, cells and slots", t.depth);
    }
    const uint64_t tickets[] = {
        0, 1, 2, 255, 256, 0x7ffffffeull, 0x7fffffffull, 0x80000000ull, UINT64_MAX - 1};
    for (size_t i = 0; i < sizeof(tickets) / sizeof(tickets[0]); i++) {
        uint32_t c = arb_cell_ticket(tickets[i]);
        check(c != 0 && (c & ARB_CELL_VOID) == 0, "ticket %llu: tag word %u is never 0 nor void",
              (unsigned long long)tickets[i], c);
        check(arb_cell_ticket(tickets[i] + 1) != c && arb_cell_ticket(tickets[i] + 256) != c,
              "ticket %llu: the next ticket and the next round's differ",
              (unsigned long long)tickets[i]);
    }
    /* The short signature keeps the call number whole and folds the rest: another argument
     * hash or another team gives another short signature. */
    uint64_t a = arb_sig_tag(0x123456789abc0000ull, 3, 77),
             b = arb_sig_tag(0x0123456789ab0000ull, 3, 77);
    check((arb_sig_short(a) & 0xffff) == 77, "short signature: call number 77 kept");
    check(arb_sig_short(a) != arb_sig_short(b), "short signature: other arguments differ");
    check(arb_sig_short(a) != arb_sig_short(arb_sig_tag(0x123456789abc0000ull, 4, 77)),
          "short signature: another team differs");
    check((uint32_t)(arb_cell_tag(a, 5) >> 32) == arb_sig_short(a) &&
              (uint32_t)arb_cell_tag(a, 5) == arb_cell_ticket(5),
          "cell tag: short signature above, ticket below");
}

int main(void)
{
    /* One rank's segment: link lines and a channel from every other rank, with room. */
    uint64_t seg_size = arb_heap_round(arb_team_region_bytes(P)) +
                        (uint64_t)P * arb_heap_round(arb_chan_bytes(DEPTH, CHUNK)) + (1 << 20);
    seg_size = (seg_size + 4095) & ~(uint64_t)4095; /* aligned_alloc wants whole pages */
    uint8_t *seg = aligned_alloc(4096, seg_size);
    if (!seg) return 1;
    test_suite("ucx", seg, seg_size);
    test_suite("ofi:tcp", seg, seg_size);
    test_updown();
    test_top();
    test_exhaustion(seg);
    test_cells();
    arb_heap_fini(&arb_ctx.heap);
    free(seg);
    printf("unit_landing: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
