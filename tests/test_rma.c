/*
 * Launched test of the one-sided layer: the symmetric heap (alloc / free / address table /
 * usage, cycles, out of memory on one rank, team regions), contiguous put and get of every
 * size class in blocking, explicit and implicit forms, and bad input (each call's specific
 * code, and nothing written). Every byte is checked against a pattern the checker computes
 * itself. Run under a PMIx launcher at any rank count (or alone as a singleton).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    test_alloc_cycles();
    int total = 0;
    CHECK_OK(arbor_allreduce(ARBOR_TEAM_WORLD, &failures, &total, 1, ARBOR_INT, ARBOR_SUM));
    if (rank == 0) printf("test_rma: %d ranks, %d checks, %d failures\n", size, checks, total);
    CHECK_OK(arbor_finalize());
    return total ? 1 : 0;
}
