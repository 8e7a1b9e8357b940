/*
 * Launched test of the one-sided layer: the symmetric heap (alloc / free / address table /
 * usage, cycles, out of memory on one rank, team regions), contiguous put and get of every
 * size class in blocking, explicit and implicit forms, and bad input (each call's specific
 * code, and nothing written). Every byte is checked against a pattern the checker computes
 * itself. Run under a PMIx launcher at any rank count (or alone as a singleton).
 */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arbor.h"
#include "launched_check.h"

#define CHECK_OK(_call)                                                                            \
    do {                                                                                           \
        arbor_status_t _s = (_call);                                                               \
        CHECK(_s == ARBOR_OK, "%s returned %s", #_call, arbor_strerror(_s));                       \
    } while (0)
#define CHECK_IS(_call, _want)                                                                     \
    do {                                                                                           \
        arbor_status_t _s = (_call);                                                               \
        CHECK(_s == (_want), "%s returned %s, expected %s", #_call, arbor_strerror(_s),            \
              arbor_strerror(_want));                                                              \
    } while (0)

static uint8_t pattern(size_t i, int src, int salt)
{
    return (uint8_t)((i * 131u) ^ (size_t)(src * 29) ^ (size_t)(salt * 7) ^ (i >> 9));
}

static void fill(uint8_t *buf, size_t n, int src, int salt)
{
    for (size_t i = 0; i < n; i++) buf[i] = pattern(i, src, salt);
}

static int check_pattern(const uint8_t *buf, size_t n, int src, int salt, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != pattern(i, src, salt)) {
            CHECK(0, "%s (%zu bytes from %d): byte %zu is %u, expected %u", what, n, src, i, buf[i],
                  pattern(i, src, salt));
            return 1;
        }
    return 0;
}

static void *addr_of(arbor_mem_h m, int r)
{
    void *a = NULL;
    CHECK_OK(arbor_mem_addr(m, r, &a, NULL));
    return a;
}

static void sync_all(void)
{
    CHECK_OK(arbor_quiet());
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
}

/* ---- heap ---------------------------------------------------------------------------------- */

static void test_alloc_basic(void)
{
    arbor_mem_h m;
    uint8_t *local;
    size_t mine = 1000 + 64 * (size_t)rank; /* sizes differ between ranks */
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, mine, &m, (void **)&local));
    CHECK(local && (uintptr_t)local % 64 == 0, "allocation %p not 64-byte aligned", local);
    size_t nonzero = 0;
    for (size_t i = 0; i < mine; i++) nonzero += local[i] != 0;
    CHECK(nonzero == 0, "fresh allocation has %zu nonzero bytes", nonzero);
    for (int r = 0; r < size; r++) {
        void *a;
        size_t n;
        CHECK_OK(arbor_mem_addr(m, r, &a, &n));
        CHECK(n == 1000 + 64 * (size_t)r, "member %d size %zu", r, n);
        if (r == rank) CHECK(a == local, "own address %p != local %p", a, local);
    }
    CHECK_IS(arbor_mem_addr(m, size, NULL, NULL), ARBOR_ERR_RANK);
    CHECK_IS(arbor_mem_addr(m, -1, NULL, NULL), ARBOR_ERR_RANK);
    size_t used, fr, largest;
    /* The free below runs a barrier, and a collective's first use of a peer opens a landing
     * channel from the top of the heap (docs/PROTOCOL.md, sparse channels): one barrier first,
     * so the usage compared is the allocation's alone whatever the barrier's tree (on a
     * multi-node team it need not use the peers of the allocation's own collectives). */
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_OK(arbor_mem_usage(&used, &fr, &largest));
    CHECK(used >= mine && largest <= fr, "usage used %zu free %zu largest %zu", used, fr, largest);
    memset(local, 0xab, mine); /* freed space must come back zero-filled */
    arbor_mem_h copy = m;
    CHECK_OK(arbor_mem_free(&m));
    CHECK(m == NULL, "handle not cleared");
    CHECK_IS(arbor_mem_free(&copy), ARBOR_ERR_HANDLE);
    CHECK_IS(arbor_mem_addr(copy, 0, NULL, NULL), ARBOR_ERR_HANDLE);
    size_t used2;
    CHECK_OK(arbor_mem_usage(&used2, NULL, NULL));
    CHECK(used2 + mine <= used + 64, "free did not return the space: %zu then %zu", used, used2);
    /* zero-size members and a NULL local pointer */
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, rank % 2 ? 0 : 128, &m, (void **)&local));
    CHECK((local == NULL) == (rank % 2 == 1), "local pointer of a zero-size member");
    if (local) {
        nonzero = 0;
        for (size_t i = 0; i < 128; i++) nonzero += local[i] != 0;
        CHECK(nonzero == 0, "reused space not zero-filled (%zu bytes)", nonzero);
    }
    CHECK_OK(arbor_mem_free(&m));
    CHECK_IS(arbor_mem_alloc(ARBOR_TEAM_WORLD, 8, NULL, NULL), ARBOR_ERR_INVALID_ARG);
    CHECK_IS(arbor_mem_alloc((arbor_team_h)(uintptr_t)0x77, 8, &m, NULL), ARBOR_ERR_TEAM);
    int w;
    CHECK_OK(arbor_team_world_rank(ARBOR_TEAM_WORLD, rank, &w));
    CHECK(w == rank, "world rank of %d is %d", rank, w);
    CHECK_IS(arbor_team_world_rank(ARBOR_TEAM_WORLD, size, &w), ARBOR_ERR_RANK);
}

static void test_alloc_cycles(void)
{
    size_t used0;
    CHECK_OK(arbor_mem_usage(&used0, NULL, NULL));
    /* interleaved lifetimes: holes that later allocations must reuse */
    enum { KEEP = 8 };
    arbor_mem_h keep[KEEP] = {0};
    for (int i = 0; i < 1000; i++) {
        arbor_mem_h m;
        size_t n = (size_t)(((i * 7919) % 50000) + 1 + rank * 13);
        arbor_status_t s = arbor_mem_alloc(ARBOR_TEAM_WORLD, n, &m, NULL);
        CHECK(s == ARBOR_OK, "alloc cycle %d (%zu bytes): %s", i, n, arbor_strerror(s));
        if (s != ARBOR_OK) break;
        int k = i % KEEP;
        if (keep[k]) CHECK_OK(arbor_mem_free(&keep[k]));
        keep[k] = m;
    }
    for (int k = 0; k < KEEP; k++)
        if (keep[k]) CHECK_OK(arbor_mem_free(&keep[k]));
    size_t used1;
    CHECK_OK(arbor_mem_usage(&used1, NULL, NULL));
    CHECK(used1 == used0, "heap use %zu after 1000 alloc / free cycles, %zu before", used1, used0);

    /* team split / free cycles: the landing regions come back too */
    for (int i = 0; i < 200; i++) {
        arbor_team_h t;
        arbor_status_t s = arbor_team_split(ARBOR_TEAM_WORLD, rank % 2, rank, &t);
        CHECK(s == ARBOR_OK, "split cycle %d: %s", i, arbor_strerror(s));
        if (s != ARBOR_OK) break;
        if (i % 50 == 0) CHECK_OK(arbor_barrier(t));
        CHECK_OK(arbor_team_free(&t));
    }
    CHECK_OK(arbor_mem_usage(&used1, NULL, NULL));
    CHECK(used1 == used0, "heap use %zu after 200 split / free cycles, %zu before", used1, used0);
}

static void test_alloc_team(void)
{
    /* an allocation over a sub-team, addressed by world rank */
    arbor_team_h t;
    CHECK_OK(arbor_team_split(ARBOR_TEAM_WORLD, rank % 2, -rank, &t));
    int tr, ts;
    CHECK_OK(arbor_team_rank(t, &tr));
    CHECK_OK(arbor_team_size(t, &ts));
    arbor_mem_h m;
    uint64_t *local;
    CHECK_OK(arbor_mem_alloc(t, 64, &m, (void **)&local));
    int right = (tr + 1) % ts, wright;
    CHECK_OK(arbor_team_world_rank(t, right, &wright));
    uint64_t v = 1000 + (uint64_t)rank;
    CHECK_OK(arbor_put(wright, addr_of(m, right), &v, sizeof(v)));
    CHECK_OK(arbor_quiet());
    CHECK_OK(arbor_barrier(t));
    int left = (tr + ts - 1) % ts, wleft;
    CHECK_OK(arbor_team_world_rank(t, left, &wleft));
    CHECK(local[0] == 1000 + (uint64_t)wleft, "team put: %llu, expected %d",
          (unsigned long long)local[0], 1000 + wleft);
    CHECK_IS(arbor_team_free(&t), ARBOR_ERR_BUSY); /* an allocation still lives on it */
    CHECK_OK(arbor_mem_free(&m));
    CHECK_OK(arbor_team_free(&t));
}

static void test_oom(void)
{
    size_t largest;
    CHECK_OK(arbor_mem_usage(NULL, NULL, &largest));
    /* one rank asks for more than it has: every rank fails, nothing is allocated */
    size_t used0, used1;
    CHECK_OK(arbor_mem_usage(&used0, NULL, NULL));
    arbor_mem_h m = NULL;
    void *p = (void *)1;
    arbor_status_t s =
        arbor_mem_alloc(ARBOR_TEAM_WORLD, rank == size - 1 ? largest + 1 : 64, &m, &p);
    CHECK(s == ARBOR_ERR_NO_MEMORY, "out of memory on one rank gave %s", arbor_strerror(s));
    CHECK_OK(arbor_mem_usage(&used1, NULL, NULL));
    CHECK(used1 == used0, "a failed allocation left %zu bytes taken", used1 - used0);
    s = arbor_mem_alloc(ARBOR_TEAM_WORLD, SIZE_MAX, &m, &p);
    CHECK(s == ARBOR_ERR_NO_MEMORY, "SIZE_MAX gave %s", arbor_strerror(s));
    /* the largest block still works afterwards (on every rank at once) */
    CHECK_OK(arbor_mem_usage(NULL, NULL, &largest));
    size_t all_min = largest;
    CHECK_OK(arbor_allreduce(ARBOR_TEAM_WORLD, &largest, &all_min, 1, ARBOR_UINT64, ARBOR_MIN));
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, all_min / 2, &m, &p));
    CHECK_OK(arbor_mem_free(&m));
}

/* ---- contiguous put / get -------------------------------------------------------------------- */

static const size_t sizes[] = {0, 1, 8, 4096, (1u << 20) + 3};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* mode 0 blocking, 1 explicit handles, 2 implicit (completed by fence / quiet) */
static void test_contig(int mode)
{
    size_t max = sizes[NSIZES - 1] + 64;
    arbor_mem_h m;
    uint8_t *local;
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, max, &m, (void **)&local));
    uint8_t *src = malloc(max + 1), *dst = malloc(max + 1);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (size_t s = 0; s < NSIZES; s++) {
        size_t n = sizes[s];
        int salt = (int)s + 10 * mode;
        /* put n bytes at offset 3 of the right neighbour (src unaligned too) */
        fill(src + 1, n, rank, salt);
        uint8_t *raddr = (uint8_t *)addr_of(m, right) + 3;
        arbor_request_h req = (arbor_request_h)1;
        if (mode == 0) CHECK_OK(arbor_put(right, raddr, src + 1, n));
        if (mode == 1) {
            CHECK_OK(arbor_put_nb(right, raddr, src + 1, n, &req));
            CHECK_OK(arbor_wait(&req));
            CHECK(req == NULL, "handle not cleared by wait");
        }
        if (mode == 2) {
            CHECK_OK(arbor_put_nb(right, raddr, src + 1, n, NULL));
            CHECK_OK(arbor_fence(right));
        }
        sync_all();
        check_pattern(local + 3, n, left, salt, "put");
        /* get them back from the right neighbour (what we put there) */
        memset(dst, 0xee, max + 1);
        if (mode == 0) CHECK_OK(arbor_get(right, dst + 1, raddr, n));
        if (mode == 1) {
            CHECK_OK(arbor_get_nb(right, dst + 1, raddr, n, &req));
            arbor_status_t st;
            while ((st = arbor_test(&req)) == ARBOR_INPROGRESS) {
            }
            CHECK(st == ARBOR_OK, "test of a get: %s", arbor_strerror(st));
        }
        if (mode == 2) {
            CHECK_OK(arbor_get_nb(right, dst + 1, raddr, n, NULL));
            CHECK_OK(arbor_quiet());
        }
        check_pattern(dst + 1, n, rank, salt, "get");
        CHECK(dst[0] == 0xee && dst[n + 1] == 0xee, "get wrote outside its buffer");
        CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    }
    /* many in flight at once, to every rank, completed by wait_all / test_some */
    if (mode == 1) {
        size_t chunk = 8192;
        arbor_request_h reqs[8];
        int nreq = 0;
        /* every rank writes region `rank` of the right neighbour: chunk-sized slots */
        size_t slot = max / (size_t)(size > 0 ? size : 1);
        if (slot > chunk) slot = chunk;
        uint8_t *ra = (uint8_t *)addr_of(m, right) + (size_t)rank * slot;
        fill(src, slot, rank, 200);
        for (size_t off = 0; off < slot; off += slot / 4)
            CHECK_OK(arbor_put_nb(right, ra + off, src + off, slot / 4, &reqs[nreq++]));
        CHECK_OK(arbor_wait_all((size_t)nreq, reqs));
        sync_all();
        check_pattern(local + (size_t)left * slot, slot, left, 200, "put_nb burst");
        CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    }
    free(src);
    free(dst);
    CHECK_OK(arbor_mem_free(&m));
}

/* ---- atomics ----------------------------------------------------------------------------------
 */

static uint64_t model(arbor_amo_t op, uint64_t x, uint64_t v, uint64_t c, uint64_t mask)
{
    switch (op) {
    case ARBOR_AMO_FETCH:
        return x;
    case ARBOR_AMO_SET:
    case ARBOR_AMO_SWAP:
        return v;
    case ARBOR_AMO_ADD:
    case ARBOR_AMO_FADD:
        return (x + v) & mask;
    case ARBOR_AMO_AND:
    case ARBOR_AMO_FAND:
        return x & v;
    case ARBOR_AMO_OR:
    case ARBOR_AMO_FOR:
        return x | v;
    case ARBOR_AMO_XOR:
    case ARBOR_AMO_FXOR:
        return x ^ v;
    case ARBOR_AMO_CSWAP:
        return x == c ? v : x;
    default:
        return x;
    }
}

static bool fetches(arbor_amo_t op)
{
    return op == ARBOR_AMO_FETCH || op == ARBOR_AMO_SWAP || op == ARBOR_AMO_CSWAP ||
           op == ARBOR_AMO_FADD || op == ARBOR_AMO_FAND || op == ARBOR_AMO_FOR ||
           op == ARBOR_AMO_FXOR;
}

/* Every op on 32 and 64 bits, in the three forms, on the right neighbour's words (one writer
 * each); the neighbouring 32-bit half must stay untouched. */
static void test_atomic_ops(void)
{
    arbor_mem_h m;
    uint64_t *local;
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, 64 * sizeof(uint64_t), &m, (void **)&local));
    int right = (rank + 1) % size;
    uint64_t *ra = addr_of(m, right);
    for (int form = 0; form < 3; form++)
        for (int bits = 32; bits <= 64; bits += 32)
            for (int op = 0; op < ARBOR_AMO_COUNT; op++) {
                for (int c = 0; c < 2; c++) { /* CSWAP: c 0 matches, c 1 does not */
                    if (c && op != ARBOR_AMO_CSWAP) continue;
                    uint64_t mask = bits == 64 ? ~0ull : 0xffffffffull;
                    uint64_t x0 = (0x9e3779b97f4a7c15ull * (uint64_t)(op + 3 * form + 1)) & mask;
                    uint64_t v = (0xc2b2ae3d27d4eb4full ^ (uint64_t)op * 77) & mask;
                    uint64_t cmpv = c ? x0 ^ 1 : x0;
                    /* word 2k: the 64-bit case; words 2k+1 hold two 32-bit halves */
                    int k = (op * 2 + c) % 32;
                    uint64_t init[2] = {x0, 0x1111111100000000ull | x0};
                    CHECK_OK(arbor_put(right, &ra[k * 2], init, sizeof(init)));
                    CHECK_OK(arbor_fence(right));
                    void *dst = bits == 64 ? (void *)&ra[k * 2] : (void *)&ra[k * 2 + 1];
                    arbor_dtype_t dt = bits == 64 ? ARBOR_UINT64 : ARBOR_UINT32;
                    uint64_t res = 0x5555555555555555ull;
                    uint32_t v32 = (uint32_t)v, c32 = (uint32_t)cmpv, r32 = 0x55555555u;
                    const void *opnd = bits == 64 ? (const void *)&v : (const void *)&v32;
                    const void *cmpp = bits == 64 ? (const void *)&cmpv : (const void *)&c32;
                    void *resp = bits == 64 ? (void *)&res : (void *)&r32;
                    arbor_request_h req;
                    if (form == 0)
                        CHECK_OK(arbor_atomic(right, dst, (arbor_amo_t)op, dt, opnd, cmpp, resp));
                    if (form == 1) {
                        CHECK_OK(arbor_atomic_nb(right, dst, (arbor_amo_t)op, dt, opnd, cmpp, resp,
                                                 &req));
                        CHECK_OK(arbor_wait(&req));
                    }
                    if (form == 2) {
                        CHECK_OK(arbor_atomic_nb(right, dst, (arbor_amo_t)op, dt, opnd, cmpp, resp,
                                                 NULL));
                        CHECK_OK(arbor_fence(right));
                    }
                    if (bits == 32) res = r32;
                    uint64_t want = model((arbor_amo_t)op, x0, v, cmpv, mask);
                    uint64_t got[2];
                    CHECK_OK(arbor_get(right, got, &ra[k * 2], sizeof(got)));
                    uint64_t g = bits == 64 ? got[0] : (got[1] & 0xffffffffull);
                    CHECK(g == want, "atomic op %d %d-bit form %d: %llx, expected %llx", op, bits,
                          form, (unsigned long long)g, (unsigned long long)want);
                    if (bits == 32)
                        CHECK(got[1] >> 32 == 0x11111111u, "32-bit op %d touched the other half",
                              op);
                    if (fetches((arbor_amo_t)op))
                        CHECK(res == x0, "atomic op %d %d-bit form %d fetched %llx, expected %llx",
                              op, bits, form, (unsigned long long)res, (unsigned long long)x0);
                }
            }
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    /* bad input */
    uint64_t one = 1, r;
    CHECK_IS(arbor_atomic(right, (uint8_t *)ra + 4, ARBOR_AMO_ADD, ARBOR_UINT64, &one, NULL, NULL),
             ARBOR_ERR_ALIGNMENT);
    CHECK_IS(arbor_atomic(right, (uint8_t *)ra + 2, ARBOR_AMO_ADD, ARBOR_UINT32, &one, NULL, NULL),
             ARBOR_ERR_ALIGNMENT);
    CHECK_IS(arbor_atomic(right, ra, ARBOR_AMO_ADD, ARBOR_DOUBLE, &one, NULL, NULL),
             ARBOR_ERR_DATATYPE);
    CHECK_IS(arbor_atomic(right, ra, ARBOR_AMO_COUNT, ARBOR_UINT64, &one, NULL, NULL),
             ARBOR_ERR_OP);
    CHECK_IS(arbor_atomic(right, ra, ARBOR_AMO_FADD, ARBOR_UINT64, &one, NULL, NULL),
             ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_atomic(right, ra, ARBOR_AMO_CSWAP, ARBOR_UINT64, &one, NULL, &r),
             ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_atomic(right, ra + 64, ARBOR_AMO_ADD, ARBOR_UINT64, &one, NULL, NULL),
             ARBOR_ERR_ADDRESS);
    CHECK_IS(arbor_atomic(size, ra, ARBOR_AMO_ADD, ARBOR_UINT64, &one, NULL, NULL), ARBOR_ERR_RANK);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_OK(arbor_mem_free(&m));
}

/* Contention: fetch-add tickets from one counter (64-bit, and two 32-bit halves of one word),
 * bitwise ops from every rank on one word. */
static void test_atomic_contention(void)
{
    enum { K = 200 };
    arbor_mem_h m;
    uint64_t *local;
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, 8 * sizeof(uint64_t), &m, (void **)&local));
    int target = size - 1;
    uint64_t *ra = addr_of(m, target);
    int64_t *tickets = malloc(sizeof(int64_t) * K), *all = malloc(sizeof(int64_t) * K * size);
    uint32_t *t32 = malloc(sizeof(uint32_t) * K * 2),
             *all32 = malloc(sizeof(uint32_t) * K * 2 * size);
    int64_t one = 1;
    uint32_t one32 = 1;
    uint64_t bit = 1ull << (rank % 64);
    arbor_request_h reqs[4];
    for (int i = 0; i < K; i++) {
        if (i % 2)
            CHECK_OK(
                arbor_atomic(target, &ra[0], ARBOR_AMO_FADD, ARBOR_INT64, &one, NULL, &tickets[i]));
        else {
            CHECK_OK(arbor_atomic_nb(target, &ra[0], ARBOR_AMO_FADD, ARBOR_INT64, &one, NULL,
                                     &tickets[i], &reqs[0]));
            CHECK_OK(arbor_wait(&reqs[0]));
        }
        CHECK_OK(arbor_atomic(target, (uint32_t *)&ra[1], ARBOR_AMO_FADD, ARBOR_UINT32, &one32,
                              NULL, &t32[2 * i]));
        CHECK_OK(arbor_atomic(target, (uint32_t *)&ra[1] + 1, ARBOR_AMO_FADD, ARBOR_UINT32, &one32,
                              NULL, &t32[2 * i + 1]));
        CHECK_OK(
            arbor_atomic_nb(target, &ra[2], ARBOR_AMO_ADD, ARBOR_UINT64, &one, NULL, NULL, NULL));
    }
    CHECK_OK(arbor_atomic(target, &ra[3], ARBOR_AMO_OR, ARBOR_UINT64, &bit, NULL, NULL));
    CHECK_OK(arbor_atomic(target, &ra[4], ARBOR_AMO_XOR, ARBOR_UINT64, &bit, NULL, NULL));
    CHECK_OK(arbor_quiet());
    CHECK_OK(arbor_allgather(ARBOR_TEAM_WORLD, tickets, all, K, ARBOR_INT64));
    CHECK_OK(arbor_allgather(ARBOR_TEAM_WORLD, t32, all32, 2 * K, ARBOR_UINT32));
    size_t N = (size_t)K * (size_t)size;
    char *seen = calloc(N, 1), *seen_lo = calloc(N, 1), *seen_hi = calloc(N, 1);
    size_t bad = 0;
    for (size_t i = 0; i < N; i++) {
        if (all[i] < 0 || (size_t)all[i] >= N || seen[all[i]]++) bad++;
        uint32_t lo = all32[2 * i], hi = all32[2 * i + 1];
        if (lo >= N || seen_lo[lo]++) bad++;
        if (hi >= N || seen_hi[hi]++) bad++;
    }
    CHECK(bad == 0, "%zu tickets duplicated or out of range (of %zu)", bad, N);
    if (rank == target) {
        uint64_t bits = 0;
        for (int r = 0; r < size; r++) bits |= 1ull << (r % 64);
        uint64_t xr = 0;
        for (int r = 0; r < size; r++) xr ^= 1ull << (r % 64);
        CHECK(local[0] == N, "64-bit counter %llu, expected %zu", (unsigned long long)local[0], N);
        CHECK(local[1] == ((uint64_t)N << 32 | N), "32-bit counters %llx",
              (unsigned long long)local[1]);
        CHECK(local[2] == N, "implicit adds: %llu, expected %zu", (unsigned long long)local[2], N);
        CHECK(local[3] == bits, "or: %llx, expected %llx", (unsigned long long)local[3],
              (unsigned long long)bits);
        CHECK(local[4] == xr, "xor: %llx", (unsigned long long)local[4]);
    }
    free(seen);
    free(seen_lo);
    free(seen_hi);
    free(tickets);
    free(all);
    free(t32);
    free(all32);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_OK(arbor_mem_free(&m));
}

/* ---- notify / put_signal / wait_until / order --------------------------------------------- */

enum { SYNC_BYTES = 65536 + 8, SYNC_ITERS = 30 };

static void test_notify(void)
{
    arbor_mem_h m;
    uint8_t *local;
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, 2 * SYNC_BYTES, &m, (void **)&local));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    uint8_t *ra = addr_of(m, right), *src = malloc(SYNC_BYTES), *back = malloc(SYNC_BYTES);
    uint64_t cnt;
    CHECK_IS(arbor_notify(size), ARBOR_ERR_RANK);
    CHECK_IS(arbor_notify_wait(-1, 1), ARBOR_ERR_RANK);
    CHECK_IS(arbor_notify_count(0, NULL), ARBOR_ERR_INVALID_ARG);
    CHECK_OK(arbor_notify_wait(left, 0));
    for (int it = 0; it < SYNC_ITERS; it++) {
        /* producer: data in three forms, none waited for, then notify */
        fill(src, SYNC_BYTES, rank, it);
        arbor_request_h req;
        size_t third = SYNC_BYTES / 3;
        CHECK_OK(arbor_put(right, ra, src, third));
        CHECK_OK(arbor_put_nb(right, ra + third, src + third, third, &req));
        CHECK_OK(
            arbor_put_nb(right, ra + 2 * third, src + 2 * third, SYNC_BYTES - 2 * third, NULL));
        CHECK_OK(arbor_notify(right));
        /* consumer */
        CHECK_OK(arbor_notify_wait(left, 1));
        if (check_pattern(local, SYNC_BYTES, left, it, "data after notify")) break;
        CHECK_OK(arbor_wait(&req));
        CHECK_OK(arbor_notify(left)); /* ack: the producer may overwrite */
        CHECK_OK(arbor_notify_wait(right, 1));
    }
    /* a get issued before notify is complete when the target sees it: read the right's
     * second half, then tell it to overwrite it */
    CHECK_OK(arbor_get_nb(right, back, ra + SYNC_BYTES, 64, NULL));
    CHECK_OK(arbor_notify(right));
    CHECK_OK(arbor_notify_wait(left, 1));
    memset(local + SYNC_BYTES, 0x77, 64);
    CHECK_OK(arbor_quiet());
    size_t bad = 0;
    for (int i = 0; i < 64; i++) bad += back[i] != 0;
    CHECK(bad == 0, "a get before notify saw %zu bytes written after the notification", bad);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    /* several notifications consumed at once, and the count */
    for (int i = 0; i < 3; i++) CHECK_OK(arbor_notify(right));
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_OK(arbor_notify_count(left, &cnt));
    CHECK(cnt == 3, "notify count %llu, expected 3", (unsigned long long)cnt);
    CHECK_OK(arbor_notify_wait(left, 3));
    CHECK_OK(arbor_notify_count(left, &cnt));
    CHECK(cnt == 0, "notify count after wait %llu", (unsigned long long)cnt);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    free(src);
    free(back);
    CHECK_OK(arbor_mem_free(&m));
}

static void test_put_signal(void)
{
    arbor_mem_h m;
    uint8_t *local;
    size_t bytes = SYNC_BYTES + 64;
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, bytes, &m, (void **)&local));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    uint8_t *ra = addr_of(m, right), *src = malloc(SYNC_BYTES);
    uint64_t *rsig = (uint64_t *)(ra + SYNC_BYTES), *sig = (uint64_t *)(local + SYNC_BYTES);
    for (int it = 0; it < SYNC_ITERS; it++) {
        size_t n = it % 3 == 0 ? SYNC_BYTES : it % 3 == 1 ? 8 : 0;
        fill(src, n, rank, 50 + it);
        arbor_signal_op_t op = it % 2 ? ARBOR_SIGNAL_SET : ARBOR_SIGNAL_ADD;
        /* ADD adds 1 each time; SET writes it + 1, which is the same count */
        uint64_t value = op == ARBOR_SIGNAL_ADD ? 1 : (uint64_t)it + 1;
        if (it % 4 < 2)
            CHECK_OK(arbor_put_signal(right, ra, src, n, rsig, value, op));
        else {
            arbor_request_h req;
            CHECK_OK(arbor_put_signal_nb(right, ra, src, n, rsig, value, op, &req));
            CHECK_OK(arbor_wait(&req));
        }
        uint64_t seen = 0;
        CHECK_OK(arbor_wait_until(sig, ARBOR_CMP_GE, (uint64_t)it + 1, &seen));
        CHECK(seen == (uint64_t)it + 1, "signal %llu, expected %d", (unsigned long long)seen,
              it + 1);
        if (check_pattern(local, n, left, 50 + it, "data before its signal")) break;
        CHECK_OK(arbor_notify(left));
        CHECK_OK(arbor_notify_wait(right, 1));
    }
    CHECK_IS(arbor_test_until(sig, ARBOR_CMP_EQ, 0, NULL), ARBOR_INPROGRESS);
    uint64_t obs;
    CHECK_IS(arbor_test_until(sig, ARBOR_CMP_EQ, SYNC_ITERS, &obs), ARBOR_OK);
    CHECK(obs == SYNC_ITERS, "test_until observed %llu", (unsigned long long)obs);
    CHECK_IS(arbor_test_until(sig, ARBOR_CMP_LT, SYNC_ITERS, NULL), ARBOR_INPROGRESS);
    CHECK_IS(arbor_test_until(sig, ARBOR_CMP_LE, SYNC_ITERS, NULL), ARBOR_OK);
    CHECK_IS(arbor_test_until(sig, ARBOR_CMP_NE, 0, NULL), ARBOR_OK);
    CHECK_IS(arbor_test_until(sig, ARBOR_CMP_GT, SYNC_ITERS - 1, NULL), ARBOR_OK);
    static uint64_t not_heap;
    CHECK_IS(arbor_wait_until(&not_heap, ARBOR_CMP_EQ, 0, NULL), ARBOR_ERR_ADDRESS);
    CHECK_IS(arbor_wait_until((uint64_t *)(local + 4), ARBOR_CMP_EQ, 0, NULL), ARBOR_ERR_ALIGNMENT);
    CHECK_IS(arbor_test_until(sig, (arbor_cmp_t)17, 0, NULL), ARBOR_ERR_INVALID_ARG);
    CHECK_IS(arbor_put_signal(right, ra, src, 8, (uint64_t *)(ra + 4), 1, ARBOR_SIGNAL_ADD),
             ARBOR_ERR_ALIGNMENT);
    CHECK_IS(arbor_put_signal(right, ra, src, 8, rsig, 1, (arbor_signal_op_t)5),
             ARBOR_ERR_INVALID_ARG);
    CHECK_IS(arbor_put_signal(right, ra + 1, src, bytes, rsig, 1, ARBOR_SIGNAL_ADD),
             ARBOR_ERR_ADDRESS);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    free(src);
    CHECK_OK(arbor_mem_free(&m));
}

/* arbor_order between a put of data and a put of a flag; the target waits on the flag. */
static void test_order(void)
{
    arbor_mem_h m;
    uint8_t *local;
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, SYNC_BYTES + 64, &m, (void **)&local));
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    uint8_t *ra = addr_of(m, right), *src = malloc(SYNC_BYTES);
    uint64_t *flag = (uint64_t *)(local + SYNC_BYTES);
    for (int it = 0; it < SYNC_ITERS; it++) {
        fill(src, SYNC_BYTES, rank, 80 + it);
        uint64_t f = (uint64_t)it + 1;
        CHECK_OK(arbor_put_nb(right, ra, src, SYNC_BYTES, NULL));
        CHECK_OK(arbor_order(right));
        CHECK_OK(arbor_atomic_nb(right, ra + SYNC_BYTES, ARBOR_AMO_SET, ARBOR_UINT64, &f, NULL,
                                 NULL, NULL));
        CHECK_OK(arbor_wait_until(flag, ARBOR_CMP_EQ, f, NULL));
        if (check_pattern(local, SYNC_BYTES, left, 80 + it, "data before the ordered flag")) break;
        CHECK_OK(arbor_quiet()); /* our source is reusable */
        CHECK_OK(arbor_notify(left));
        CHECK_OK(arbor_notify_wait(right, 1));
    }
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    free(src);
    CHECK_OK(arbor_mem_free(&m));
}

/* ---- accumulate ----------------------------------------------------------------------------- */

enum { ACC_N = 37, ACC_K = 24 };

/* Each rank adds ACC_K times to one array on the target, in every form, some scaled by 2; the
 * values are small integers, exact in every type, so the result must be exact. Half the ranks
 * use the whole array, the others element 0 only (same location, different counts). */
#define ACC_SUM_TEST(_T, _DT, _MK, _EQ)                                                            \
    do {                                                                                           \
        _T *x = (_T *)base, y[ACC_N], two = (_T)2;                                                 \
        for (int it = 0; it < ACC_K; it++) {                                                       \
            for (int i = 0; i < ACC_N; i++) y[i] = _MK(rank, i);                                   \
            size_t n = rank % 2 ? 1 : ACC_N;                                                       \
            const _T *sc = it % 3 == 0 ? &two : NULL;                                              \
            arbor_request_h rq;                                                                    \
            if (it % 4 == 0)                                                                       \
                CHECK_OK(arbor_acc(target, rx, y, n, _DT, ARBOR_SUM, sc));                         \
            else if (it % 4 == 1) {                                                                \
                CHECK_OK(arbor_acc_nb(target, rx, y, n, _DT, ARBOR_SUM, sc, &rq));                 \
                CHECK_OK(arbor_wait(&rq));                                                         \
            } else {                                                                               \
                CHECK_OK(arbor_acc_nb(target, rx, y, n, _DT, ARBOR_SUM, sc, NULL));                \
                if (it % 4 == 3) CHECK_OK(arbor_fence(target));                                    \
            }                                                                                      \
        }                                                                                          \
        sync_all();                                                                                \
        if (rank == target) {                                                                      \
            int factor = 0, bad = 0;                                                               \
            for (int it = 0; it < ACC_K; it++) factor += it % 3 == 0 ? 2 : 1;                      \
            for (int i = 0; i < ACC_N; i++) {                                                      \
                _T want = 0;                                                                       \
                for (int r = 0; r < size; r++)                                                     \
                    if (r % 2 == 0 || i == 0) want += (_T)factor * _MK(r, i);                      \
                if (!(_EQ(x[i], want))) bad++;                                                     \
            }                                                                                      \
            CHECK(bad == 0, "accumulate SUM " #_T ": %d of %d elements wrong", bad, ACC_N);        \
        }                                                                                          \
        CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));                                                 \
    } while (0)

/* A DOUBLE accumulate larger than the lock path's chunk (256 KiB) and not a multiple of it,
 * from every rank at once to one target, twice (once scaled): the chunk pipeline (unmapped
 * targets) and the in-place loop (mapped ones) under the lock must give the exact sum. */
static void test_acc_large(void)
{
    enum { N = 70001 }; /* 560 KB: two full chunks and a tail */
    arbor_mem_h m;
    double *x, *y = malloc(N * sizeof(double)), two = 2;
    CHECK(y != NULL, "malloc");
    if (!y) return;
    int target = size > 1 ? 1 : 0;
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, N * sizeof(double), &m, (void **)&x));
    for (int i = 0; i < N; i++) y[i] = (double)((rank + 1) * (i % 1000 + 1));
    void *rx = addr_of(m, target);
    CHECK_OK(arbor_acc(target, rx, y, N, ARBOR_DOUBLE, ARBOR_SUM, NULL));
    CHECK_OK(arbor_acc(target, rx, y, N, ARBOR_DOUBLE, ARBOR_SUM, &two));
    sync_all();
    if (rank == target) {
        int bad = 0;
        double ranks = (double)size * (size + 1) / 2;
        for (int i = 0; i < N; i++)
            if (x[i] != 3 * ranks * (i % 1000 + 1)) bad++;
        CHECK(bad == 0, "large DOUBLE accumulate: %d of %d elements wrong", bad, (int)N);
    }
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_OK(arbor_mem_free(&m));
    free(y);
}

#define MK_INT(_r, _i)  (((_r) + 1) * ((_i) + 1) - 3 * (_r))
#define MK_CPLX(_r, _i) (((_r) + 1) * ((_i) + 1) + ((_i) - (_r)) * I)
#define EQ(_a, _b)      ((_a) == (_b))

static void test_acc(void)
{
    size_t bytes = ACC_N * 16 + 64;
    arbor_mem_h m;
    uint8_t *local;
    int target = size > 1 ? 1 : 0;
    for (int ty = 0; ty < 6; ty++) {
        CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, bytes, &m, (void **)&local));
        uint8_t *base = local;
        void *rx = addr_of(m, target);
        switch (ty) {
        case 0:
            ACC_SUM_TEST(int32_t, ARBOR_INT32, MK_INT, EQ);
            break;
        case 1:
            ACC_SUM_TEST(int64_t, ARBOR_INT64, MK_INT, EQ);
            break;
        case 2:
            ACC_SUM_TEST(float, ARBOR_FLOAT, MK_INT, EQ);
            break;
        case 3:
            ACC_SUM_TEST(double, ARBOR_DOUBLE, MK_INT, EQ);
            break;
        case 4:
            ACC_SUM_TEST(float _Complex, ARBOR_CPLX, MK_CPLX, EQ);
            break;
        case 5:
            ACC_SUM_TEST(double _Complex, ARBOR_DBLCPLX, MK_CPLX, EQ);
            break;
        }
        CHECK_OK(arbor_mem_free(&m));
    }
    /* MIN / MAX / BAND / BOR / BXOR on 32- and 64-bit integers from every rank at once */
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, bytes, &m, (void **)&local));
    int32_t *x32 = (int32_t *)local;
    uint64_t *x64 = (uint64_t *)(local + 64);
    int64_t *m64 = (int64_t *)(local + 128);
    if (rank == target) {
        x32[0] = INT32_MAX; /* min */
        x32[1] = INT32_MIN; /* max */
        x32[2] = -1;        /* band */
        x64[0] = ~0ull;     /* band */
        m64[0] = INT64_MAX;
        m64[1] = INT64_MIN;
    }
    sync_all();
    uint8_t *rb = addr_of(m, target);
    int32_t v32 = (int32_t)((rank * 7919) % 1000) - 500;
    int64_t v64 = ((int64_t)rank * 104729 % 100000 - 50000) * 1000000007LL;
    uint64_t bitv = 1ull << (rank % 64);
    uint32_t bit32 = 1u << (rank % 32);
    int32_t clr32 = ~(int32_t)(1u << (rank % 32));
    uint64_t clr64 = ~bitv;
    CHECK_OK(arbor_acc(target, rb, &v32, 1, ARBOR_INT32, ARBOR_MIN, NULL));
    CHECK_OK(arbor_acc(target, rb + 4, &v32, 1, ARBOR_INT32, ARBOR_MAX, NULL));
    CHECK_OK(arbor_acc(target, rb + 8, &clr32, 1, ARBOR_INT32, ARBOR_BAND, NULL));
    CHECK_OK(arbor_acc(target, rb + 12, &bit32, 1, ARBOR_UINT32, ARBOR_BOR, NULL));
    CHECK_OK(arbor_acc(target, rb + 16, &bit32, 1, ARBOR_UINT32, ARBOR_BXOR, NULL));
    CHECK_OK(arbor_acc(target, rb + 64, &clr64, 1, ARBOR_UINT64, ARBOR_BAND, NULL));
    CHECK_OK(arbor_acc(target, rb + 72, &bitv, 1, ARBOR_UINT64, ARBOR_BOR, NULL));
    CHECK_OK(arbor_acc(target, rb + 80, &bitv, 1, ARBOR_UINT64, ARBOR_BXOR, NULL));
    CHECK_OK(arbor_acc(target, rb + 128, &v64, 1, ARBOR_INT64, ARBOR_MIN, NULL));
    CHECK_OK(arbor_acc(target, rb + 136, &v64, 1, ARBOR_INT64, ARBOR_MAX, NULL));
    sync_all();
    if (rank == target) {
        int32_t mn = INT32_MAX, mx = INT32_MIN, band = -1;
        uint32_t bor = 0, bx = 0;
        uint64_t band64 = ~0ull, bor64 = 0, bx64 = 0;
        int64_t mn64 = INT64_MAX, mx64 = INT64_MIN;
        for (int r = 0; r < size; r++) {
            int32_t v = (int32_t)((r * 7919) % 1000) - 500;
            int64_t w = ((int64_t)r * 104729 % 100000 - 50000) * 1000000007LL;
            mn = v < mn ? v : mn;
            mx = v > mx ? v : mx;
            mn64 = w < mn64 ? w : mn64;
            mx64 = w > mx64 ? w : mx64;
            band &= ~(int32_t)(1u << (r % 32));
            bor |= 1u << (r % 32);
            bx ^= 1u << (r % 32);
            band64 &= ~(1ull << (r % 64));
            bor64 |= 1ull << (r % 64);
            bx64 ^= 1ull << (r % 64);
        }
        uint32_t *u32 = (uint32_t *)local;
        CHECK(x32[0] == mn && x32[1] == mx, "int32 min/max %d %d, expected %d %d", x32[0], x32[1],
              mn, mx);
        CHECK(x32[2] == band && u32[3] == bor && u32[4] == bx, "int32 band/bor/bxor %x %x %x",
              x32[2], u32[3], u32[4]);
        CHECK(x64[0] == band64 && x64[1] == bor64 && x64[2] == bx64, "uint64 band/bor/bxor");
        CHECK(m64[0] == mn64 && m64[1] == mx64, "int64 min/max %lld %lld", (long long)m64[0],
              (long long)m64[1]);
    }
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    /* REPLACE (one writer per word), and bad input */
    int right = (rank + 1) % size;
    uint8_t *rr = addr_of(m, right);
    int64_t rep[3] = {-5, 6, -7};
    int32_t rep32[3] = {9, -10, 11};
    CHECK_OK(arbor_acc(right, rr + 192, rep, 3, ARBOR_INT64, ARBOR_REPLACE, NULL));
    CHECK_OK(arbor_acc(right, rr + 220, rep32, 3, ARBOR_INT32, ARBOR_REPLACE, NULL));
    sync_all();
    int64_t *l64 = (int64_t *)(local + 192);
    int32_t *l32 = (int32_t *)(local + 220);
    CHECK(l64[0] == -5 && l64[1] == 6 && l64[2] == -7, "REPLACE int64");
    CHECK(l32[0] == 9 && l32[1] == -10 && l32[2] == 11, "REPLACE int32");
    double d = 1;
    CHECK_IS(arbor_acc(right, rr + 4, &d, 1, ARBOR_DOUBLE, ARBOR_SUM, NULL), ARBOR_ERR_ALIGNMENT);
    CHECK_IS(arbor_acc(right, rr + 2, &v32, 1, ARBOR_INT32, ARBOR_SUM, NULL), ARBOR_ERR_ALIGNMENT);
    CHECK_IS(arbor_acc(right, rr, &d, 1, ARBOR_DOUBLE, ARBOR_BAND, NULL), ARBOR_ERR_OP);
    CHECK_IS(arbor_acc(right, rr, &d, 1, ARBOR_DOUBLE, ARBOR_PROD, NULL), ARBOR_ERR_OP);
    CHECK_IS(arbor_acc(right, rr, &d, 1, ARBOR_SHORT, ARBOR_SUM, NULL), ARBOR_ERR_OP);
    CHECK_IS(arbor_acc(right, rr, &d, 1, (arbor_dtype_t)999, ARBOR_SUM, NULL), ARBOR_ERR_DATATYPE);
    CHECK_IS(arbor_acc(right, rr, NULL, 1, ARBOR_DOUBLE, ARBOR_SUM, NULL), ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_acc(right, rr + bytes - 8, rep, 2, ARBOR_INT64, ARBOR_SUM, NULL),
             ARBOR_ERR_ADDRESS);
    CHECK_IS(arbor_acc(size, rr, rep, 1, ARBOR_INT64, ARBOR_SUM, NULL), ARBOR_ERR_RANK);
    CHECK_IS(arbor_acc(right, rr, rep, SIZE_MAX / 2, ARBOR_INT64, ARBOR_SUM, NULL),
             ARBOR_ERR_COUNT);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_OK(arbor_mem_free(&m));
}

/* ---- strided and vector ---------------------------------------------------------------------- */

enum { ROWS = 10, COLS = 300 };

static double cell(int owner, int r, int c, int salt)
{
    return owner * 1e6 + r * 1000 + c + salt * 0.25;
}

static void test_strided(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    size_t bytes = ROWS * COLS * sizeof(double) + 4096;
    arbor_mem_h m;
    uint8_t *local;
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, bytes, &m, (void **)&local));
    double(*A)[COLS] = (double(*)[COLS])local;
    uint8_t *rb = addr_of(m, right);
    double(*RA)[COLS] = (double(*)[COLS])rb;
    for (int form = 0; form < 3; form++) {
        for (int r = 0; r < ROWS; r++)
            for (int c = 0; c < COLS; c++) A[r][c] = -1;
        CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
        /* put a 2 x 100 section into rows 3..4, columns 50..149 of the right neighbour */
        double L[2][100], B[2][100];
        for (int r = 0; r < 2; r++)
            for (int c = 0; c < 100; c++) L[r][c] = cell(rank, r + 3, c + 50, form);
        ptrdiff_t dst_stride[1] = {COLS * sizeof(double)}, src_stride[1] = {100 * sizeof(double)};
        size_t count[2] = {100 * sizeof(double), 2};
        arbor_request_h req;
        if (form == 0)
            CHECK_OK(arbor_put_strided(right, &RA[3][50], dst_stride, L, src_stride, count, 1));
        if (form == 1) {
            CHECK_OK(
                arbor_put_strided_nb(right, &RA[3][50], dst_stride, L, src_stride, count, 1, &req));
            CHECK_OK(arbor_wait(&req));
        }
        if (form == 2) {
            CHECK_OK(
                arbor_put_strided_nb(right, &RA[3][50], dst_stride, L, src_stride, count, 1, NULL));
            CHECK_OK(arbor_fence(right));
        }
        sync_all();
        int bad = 0;
        for (int r = 0; r < ROWS; r++)
            for (int c = 0; c < COLS; c++) {
                bool in = r >= 3 && r < 5 && c >= 50 && c < 150;
                bad += A[r][c] != (in ? cell(left, r, c, form) : -1);
            }
        CHECK(bad == 0, "put_strided 2x100 of 10x300 (form %d): %d cells wrong", form, bad);
        /* get it back (the right neighbour's section holds our values) */
        memset(B, 0, sizeof(B));
        if (form == 0)
            CHECK_OK(arbor_get_strided(right, B, src_stride, &RA[3][50], dst_stride, count, 1));
        if (form == 1) {
            CHECK_OK(
                arbor_get_strided_nb(right, B, src_stride, &RA[3][50], dst_stride, count, 1, &req));
            CHECK_OK(arbor_wait(&req));
        }
        if (form == 2) {
            CHECK_OK(
                arbor_get_strided_nb(right, B, src_stride, &RA[3][50], dst_stride, count, 1, NULL));
            CHECK_OK(arbor_quiet());
        }
        CHECK(memcmp(B, L, sizeof(B)) == 0, "get_strided 2x100 section (form %d)", form);
        CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    }
    /* strides that are no multiple of 8, two levels, a negative stride */
    memset(local, 0, bytes);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    uint8_t src[4096], back[4096];
    fill(src, sizeof(src), rank, 7);
    size_t c3[3] = {3, 4, 5};
    ptrdiff_t rs3[2] = {7, -41}, ls3[2] = {3, 12};
    uint8_t *rbase = rb + 1000; /* level 2 goes down to rb + 1000 - 4 * 41 */
    CHECK_OK(arbor_put_strided(right, rbase, rs3, src, ls3, c3, 2));
    size_t c2[2] = {5, 17};
    ptrdiff_t rs2[1] = {13}, ls2[1] = {5};
    CHECK_OK(arbor_put_strided(right, rb + 2001, rs2, src + 100, ls2, c2, 1));
    sync_all();
    int bad = 0;
    for (size_t k = 0; k < c3[2]; k++)
        for (size_t j = 0; j < c3[1]; j++)
            for (size_t i = 0; i < c3[0]; i++)
                bad += local[1000 + i + j * 7 - k * 41] != pattern(i + j * 3 + k * 12, left, 7);
    for (size_t j = 0; j < c2[1]; j++)
        for (size_t i = 0; i < c2[0]; i++)
            bad += local[2001 + i + j * 13] != pattern(100 + i + j * 5, left, 7);
    size_t touched = 0;
    for (size_t i = 0; i < bytes; i++) touched += local[i] != 0;
    CHECK(bad == 0 && touched <= 60 + 85, "odd strides: %d bytes wrong, %zu bytes touched", bad,
          touched);
    memset(back, 0, sizeof(back));
    CHECK_OK(arbor_get_strided(right, back, ls2, rb + 2001, rs2, c2, 1));
    bad = 0;
    for (size_t j = 0; j < c2[1]; j++)
        for (size_t i = 0; i < c2[0]; i++) bad += back[i + j * 5] != src[100 + i + j * 5];
    CHECK(bad == 0, "get_strided with odd strides: %d bytes wrong", bad);
    /* zero counts move nothing; bad input */
    size_t c0[2] = {0, 5};
    CHECK_OK(arbor_put_strided(right, rb, rs2, src, ls2, c0, 1));
    size_t cb[3] = {8, 2, 2};
    ptrdiff_t zs[2] = {0, 64}, ok2[2] = {8, 64};
    CHECK_IS(arbor_put_strided(right, rb, rs2, src, ls2, c2, 9), ARBOR_ERR_COUNT);
    CHECK_IS(arbor_put_strided(right, rb, rs2, src, ls2, c2, -1), ARBOR_ERR_COUNT);
    CHECK_IS(arbor_put_strided(right, rb, zs, src, ok2, cb, 2), ARBOR_ERR_COUNT);
    size_t huge[3] = {SIZE_MAX / 2, 4, 1};
    CHECK_IS(arbor_put_strided(right, rb, ok2, src, ok2, huge, 2), ARBOR_ERR_COUNT);
    ptrdiff_t far[1] = {PTRDIFF_MAX}; /* 3 strides wrap the address space */
    size_t c22[2] = {8, 4};
    CHECK_IS(arbor_get_strided(right, back, ok2, rb, far, c22, 1), ARBOR_ERR_COUNT);
    ptrdiff_t big[1] = {(ptrdiff_t)bytes};
    CHECK_IS(arbor_put_strided(right, rb, big, src, ok2, c22, 1), ARBOR_ERR_ADDRESS);
    CHECK_IS(arbor_put_strided(right, rb, rs2, NULL, ls2, c2, 1), ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_put_strided(right, rb, NULL, src, ls2, c2, 1), ARBOR_ERR_INVALID_ARG);
    CHECK_IS(arbor_put_strided(size, rb, rs2, src, ls2, c2, 1), ARBOR_ERR_RANK);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));

    /* accumulate a 2 x 100 section from every rank onto rank 0's array: exact */
    memset(local, 0, bytes);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    double L[2][100];
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 100; c++) L[r][c] = r * 100 + c + rank;
    uint8_t *r0 = addr_of(m, 0);
    ptrdiff_t ds[1] = {COLS * sizeof(double)}, ss[1] = {100 * sizeof(double)};
    size_t cnt[2] = {100 * sizeof(double), 2};
    double two = 2;
    CHECK_OK(arbor_acc_strided(0, r0 + (3 * COLS + 50) * sizeof(double), ds, L, ss, cnt, 1,
                               ARBOR_DOUBLE, ARBOR_SUM, &two));
    arbor_request_h req;
    CHECK_OK(arbor_acc_strided_nb(0, r0 + (3 * COLS + 50) * sizeof(double), ds, L, ss, cnt, 1,
                                  ARBOR_DOUBLE, ARBOR_SUM, NULL, &req));
    CHECK_OK(arbor_wait(&req));
    sync_all();
    if (rank == 0) {
        bad = 0;
        for (int r = 0; r < 2; r++)
            for (int c = 0; c < 100; c++) {
                double want = 0;
                for (int q = 0; q < size; q++) want += 3 * (r * 100 + c + q);
                bad += A[r + 3][c + 50] != want;
            }
        CHECK(bad == 0, "acc_strided: %d cells wrong", bad);
    }
    size_t codd[2] = {12, 2};
    CHECK_IS(arbor_acc_strided(0, r0, ds, L, ss, codd, 1, ARBOR_DOUBLE, ARBOR_SUM, NULL),
             ARBOR_ERR_COUNT);
    ptrdiff_t dodd[1] = {12};
    size_t c8[2] = {8, 2};
    CHECK_IS(arbor_acc_strided(0, r0, dodd, L, ss, c8, 1, ARBOR_DOUBLE, ARBOR_SUM, NULL),
             ARBOR_ERR_ALIGNMENT);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_OK(arbor_mem_free(&m));
}

/* Triangular I/O vectors: entry j has j + 1 segments of 8 * (j + 1) + 3 bytes. */
static void test_vector(void)
{
    enum { T = 12 };
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    size_t bytes = 0;
    for (int j = 0; j < T; j++) bytes += (size_t)(j + 1) * (8 * (size_t)(j + 1) + 3 + 5);
    arbor_mem_h m;
    uint8_t *local;
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, bytes, &m, (void **)&local));
    uint8_t *rb = addr_of(m, right), *src = malloc(bytes), *back = calloc(1, bytes);
    fill(src, bytes, rank, 33);
    arbor_iov_t iov[T];
    void *srcs[T][T], *dsts[T][T], *gsrc[T][T], *gdst[T][T];
    size_t off = 0;
    for (int j = 0; j < T; j++) {
        size_t n = 8 * (size_t)(j + 1) + 3;
        for (int i = 0; i <= j; i++) {
            /* scatter the segments backwards on the remote side */
            size_t roff = bytes - off - n;
            srcs[j][i] = src + off;
            dsts[j][i] = rb + roff;
            gsrc[j][i] = rb + roff;
            gdst[j][i] = back + off;
            off += n + 5;
        }
        iov[j] = (arbor_iov_t){(void *const *)srcs[j], (void *const *)dsts[j], (size_t)j + 1, n};
    }
    arbor_request_h req;
    CHECK_OK(arbor_put_vector_nb(right, iov, T, &req));
    CHECK_OK(arbor_wait(&req));
    sync_all();
    int bad = 0;
    off = 0;
    for (int j = 0; j < T; j++) {
        size_t n = 8 * (size_t)(j + 1) + 3;
        for (int i = 0; i <= j; i++) {
            size_t roff = bytes - off - n;
            for (size_t b = 0; b < n; b++) bad += local[roff + b] != pattern(off + b, left, 33);
            off += n + 5;
        }
    }
    CHECK(bad == 0, "put_vector (triangular): %d bytes wrong", bad);
    arbor_iov_t giov[T];
    for (int j = 0; j < T; j++)
        giov[j] = (arbor_iov_t){(void *const *)gsrc[j], (void *const *)gdst[j], (size_t)j + 1,
                                iov[j].nbytes};
    CHECK_OK(arbor_get_vector(right, giov, T));
    bad = 0;
    off = 0;
    for (int j = 0; j < T; j++) {
        size_t n = iov[j].nbytes;
        for (int i = 0; i <= j; i++) {
            bad += memcmp(back + off, src + off, n) != 0;
            off += n + 5;
        }
    }
    CHECK(bad == 0, "get_vector (triangular): %d segments wrong", bad);
    CHECK_OK(arbor_get_vector_nb(right, giov, T, NULL));
    CHECK_OK(arbor_put_vector(right, iov, 0));
    CHECK_OK(arbor_quiet());
    /* a bad segment anywhere: nothing moves */
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    memset(local, 0, bytes);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    void *saved = dsts[T - 1][T - 1];
    dsts[T - 1][T - 1] = rb + bytes - 2;
    CHECK_IS(arbor_put_vector(right, iov, T), ARBOR_ERR_ADDRESS);
    dsts[T - 1][T - 1] = saved;
    srcs[3][1] = NULL;
    CHECK_IS(arbor_put_vector(right, iov, T), ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_put_vector(right, NULL, 2), ARBOR_ERR_INVALID_ARG);
    sync_all();
    size_t touched = 0;
    for (size_t i = 0; i < bytes; i++) touched += local[i] != 0;
    CHECK(touched == 0, "failed vector calls wrote %zu bytes", touched);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    /* acc_vector: int64 elements from every rank to rank 0 */
    int64_t vals[8], *lv = (int64_t *)local;
    for (int i = 0; i < 8; i++) vals[i] = rank * 10 + i;
    uint8_t *r0 = addr_of(m, 0);
    void *as[2] = {vals, vals + 4}, *ad[2] = {r0 + 64, r0 + 8};
    arbor_iov_t aiov = {(void *const *)as, (void *const *)ad, 2, 4 * sizeof(int64_t)};
    CHECK_OK(arbor_acc_vector(0, &aiov, 1, ARBOR_INT64, ARBOR_SUM, NULL));
    CHECK_OK(arbor_acc_vector_nb(0, &aiov, 1, ARBOR_INT64, ARBOR_SUM, NULL, NULL));
    sync_all();
    if (rank == 0) {
        bad = 0;
        for (int i = 0; i < 8; i++) {
            int64_t want = 0;
            for (int q = 0; q < size; q++) want += 2 * (q * 10 + i);
            bad += (i < 4 ? lv[8 + i] : lv[1 + i - 4]) != want;
        }
        CHECK(bad == 0, "acc_vector: %d elements wrong", bad);
    }
    aiov.nbytes = 12;
    CHECK_IS(arbor_acc_vector(0, &aiov, 1, ARBOR_INT64, ARBOR_SUM, NULL), ARBOR_ERR_COUNT);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    free(src);
    free(back);
    CHECK_OK(arbor_mem_free(&m));
}

/* ---- passive target progress -------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Rank 0 computes without calling arbor while every other rank gets from it and takes fetch-add
 * tickets there, then puts a flag. Every operation must complete while rank 0 is away: it reads
 * the flags from its own memory between rounds of computing, and calls arbor again only once
 * all are set, or after a bound well past any load's delay (then the operations waited for it).
 * No time is asserted: a loaded machine only makes rank 0 compute longer. */
static void test_passive(void)
{
    enum { OPS = 40 };
    arbor_mem_h m;
    uint64_t *local;
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, 4096, &m, (void **)&local));
    for (int i = 0; i < 256; i++) local[i + 8] = 1000 + (uint64_t)i;
    uint64_t *r0 = addr_of(m, 0);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    const double bound = 30.0;
    if (rank == 0) {
        double t0 = now_s();
        volatile double x = 1;
        int flags = 0;
        while (flags < size - 1 && now_s() - t0 < bound) {
            for (int i = 0; i < 100000; i++) x = x * 1.0000001 + 1e-9;
            flags = 0;
            for (int r = 1; r < size; r++)
                flags += __atomic_load_n(&local[300 + r], __ATOMIC_ACQUIRE) == 1;
        }
        const char *tp = "?";
        arbor_transport_name(&tp);
        CHECK(flags == size - 1,
              "%d ranks finished their one-sided operations only after the target computed for "
              "%.0f s without calling arbor (transport %s)",
              size - 1 - flags, bound, tp);
    } else {
        int bad = 0;
        uint64_t got[16], one = 1, t;
        for (int i = 0; i < OPS; i++) {
            CHECK_OK(arbor_get(0, got, r0 + 8 + (i % 16) * 8, sizeof(got)));
            for (int k = 0; k < 16; k++) bad += got[k] != 1000 + (uint64_t)((i % 16) * 8 + k);
            CHECK_OK(arbor_atomic(0, r0, ARBOR_AMO_FADD, ARBOR_UINT64, &one, NULL, &t));
            bad += t >= (uint64_t)(OPS * size);
        }
        CHECK_OK(arbor_fence(0)); /* the tickets land before the flag */
        CHECK_OK(arbor_put(0, r0 + 300 + rank, &one, sizeof(one)));
        CHECK_OK(arbor_fence(0));
        CHECK(bad == 0, "passive target: %d wrong values", bad);
    }
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    if (rank == 0) {
        CHECK(local[0] == (uint64_t)(OPS * (size - 1)), "passive counter %llu",
              (unsigned long long)local[0]);
        for (int r = 1; r < size; r++) CHECK(local[300 + r] == 1, "passive put from %d", r);
    }
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_OK(arbor_mem_free(&m));
}

/* ---- bad input ----------------------------------------------------------------------------- */

static void test_bad_input(void)
{
    arbor_mem_h m;
    uint8_t *local;
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, 256, &m, (void **)&local));
    memset(local, 0x5a, 256);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    int right = (rank + 1) % size;
    uint8_t *ra = addr_of(m, right);
    uint8_t buf[512];
    memset(buf, 0x11, sizeof(buf));
    static int not_heap;
    CHECK_IS(arbor_put(right, &not_heap, buf, 4), ARBOR_ERR_ADDRESS);
    CHECK_IS(arbor_put(right, ra + 200, buf, 57), ARBOR_ERR_ADDRESS); /* overruns by 1 */
    CHECK_IS(arbor_put(right, ra - 1, buf, 8), ARBOR_ERR_ADDRESS);    /* starts before */
    CHECK_IS(arbor_get(right, buf, ra + 256, 1), ARBOR_ERR_ADDRESS);  /* just past the end */
    CHECK_IS(arbor_put(right, ra, buf, SIZE_MAX), ARBOR_ERR_ADDRESS); /* wraps */
    CHECK_IS(arbor_put(size, ra, buf, 8), ARBOR_ERR_RANK);
    CHECK_IS(arbor_put(-1, ra, buf, 8), ARBOR_ERR_RANK);
    CHECK_IS(arbor_get(size, buf, ra, 8), ARBOR_ERR_RANK);
    CHECK_IS(arbor_put(right, ra, NULL, 8), ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_get(right, NULL, ra, 8), ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_fence(size), ARBOR_ERR_RANK);
    CHECK_IS(arbor_order(-1), ARBOR_ERR_RANK);
    arbor_request_h req = (arbor_request_h)(uintptr_t)0x80000123u;
    CHECK_IS(arbor_wait(&req), ARBOR_ERR_HANDLE);
    CHECK_IS(arbor_test(&req), ARBOR_ERR_HANDLE);
    /* a freed allocation is no target any more */
    arbor_mem_h m2;
    uint8_t *l2;
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, 64, &m2, (void **)&l2));
    uint8_t *ra2 = addr_of(m2, right);
    CHECK_OK(arbor_mem_free(&m2));
    CHECK_IS(arbor_put(right, ra2, buf, 8), ARBOR_ERR_ADDRESS);
    sync_all();
    size_t bad = 0;
    for (size_t i = 0; i < 256; i++) bad += local[i] != 0x5a;
    CHECK(bad == 0, "failed calls wrote %zu bytes", bad);
    CHECK_OK(arbor_mem_free(&m));
}

int main(void)
{
    if (arbor_init() != ARBOR_OK) return 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    test_alloc_basic();
    test_alloc_team();
    test_oom();
    for (int mode = 0; mode < 3; mode++) test_contig(mode);
    test_bad_input();
    test_atomic_ops();
    test_atomic_contention();
    test_notify();
    test_put_signal();
    test_order();
    test_acc();
    test_acc_large();
    test_strided();
    test_vector();
    test_passive();
    test_alloc_cycles();
    int total = 0;
    CHECK_OK(arbor_allreduce(ARBOR_TEAM_WORLD, &failures, &total, 1, ARBOR_INT, ARBOR_SUM));
    if (rank == 0) printf("test_rma: %d ranks, %d checks, %d failures\n", size, checks, total);
    CHECK_OK(arbor_finalize());
    return total ? 1 : 0;
}
