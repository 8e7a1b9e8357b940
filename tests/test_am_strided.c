/*
 * Launched test of the strided pack path over active messages (rma/am_strided.c), called
 * directly since the one-sided layer decides when to use it: packed gets and puts of a 2 x 100
 * section of a 10 x 300 array of doubles in the symmetric heap, a 3-level shape with strides
 * that are not multiples of 8, a negative stride, and 64 rows of 1 KiB (several messages), each
 * from / to the next rank, checked byte for byte with the bytes around the section untouched;
 * a remote range past the allocation (ARBOR_ERR_ADDRESS, nothing written); and the public
 * strided calls, which take the pack path exactly when the one-sided layer's model picks it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbor.h"
#include "runtime/context.h"
#include "runtime/lock.h"
#include "rma/am.h"
#include "rma/rma.h"

#include "launched_check.h"

#define CHECK_IS(_call, _want)                                                                     \
    do {                                                                                           \
        arbor_status_t _s = (_call);                                                               \
        CHECK(_s == (_want), "%s returned %s, expected %s", #_call, arbor_strerror(_s),            \
              arbor_strerror(_want));                                                              \
    } while (0)
#define CHECK_OK(_call) CHECK_IS(_call, ARBOR_OK)

#define WIN 131072

/* The internal calls expect the arbor lock held, as the public entry points take it (the
 * one-sided layer may start the progress thread). */
static arbor_status_t locked(arbor_status_t (*fn)(int, void *, const ptrdiff_t *, const void *,
                                                  const ptrdiff_t *, const size_t *, int),
                             int rank_, void *dst, const ptrdiff_t *ds, const void *src,
                             const ptrdiff_t *ss, const size_t *count, int levels)
{
    arb_lock();
    arbor_status_t st = fn(rank_, dst, ds, src, ss, count, levels);
    arb_unlock();
    return st;
}
#define PUT(...) locked(arb_am_put_strided_packed, __VA_ARGS__)
#define GET(...) locked(arb_am_get_strided_packed, __VA_ARGS__)

static arbor_status_t complete_to(int r)
{
    arb_lock();
    arbor_status_t st = arb_am_complete_to(r);
    arb_unlock();
    return st;
}

static unsigned char val(int r, size_t i)
{
    return (unsigned char)(r * 37 + i * 11 + 1);
}

/* Byte offsets (from the base) of a strided region's pieces in ARMCI order, into out. */
static size_t offsets(const size_t count[], const ptrdiff_t stride[], int levels, ptrdiff_t *out)
{
    size_t n = 1;
    for (int i = 1; i <= levels; i++) n *= count[i];
    for (size_t p = 0; p < n; p++) {
        ptrdiff_t off = 0;
        size_t q = p;
        for (int i = 1; i <= levels; i++) {
            off += (ptrdiff_t)(q % count[i]) * stride[i - 1];
            q /= count[i];
        }
        out[p] = off;
    }
    return n;
}

typedef struct {
    const char *name;
    size_t count[4];
    ptrdiff_t remote_stride[3], local_stride[3];
    int levels;
    ptrdiff_t remote_base; /* byte offset of the remote base in the window */
} shape_t;

/* Packed get from the next rank, then packed put of other values to it; both checked. */
static void run_shape(const shape_t *s, unsigned char *win, void **addr, unsigned char *local)
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    ptrdiff_t roff[4096], loff[4096];
    size_t n = offsets(s->count, s->remote_stride, s->levels, roff), piece = s->count[0];
    offsets(s->count, s->local_stride, s->levels, loff);
    unsigned char *rbase = (unsigned char *)addr[to] + s->remote_base;

    for (size_t i = 0; i < WIN; i++) win[i] = val(rank, i);
    memset(local, 0xEE, WIN);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_OK(GET(to, local, s->local_stride, rbase, s->remote_stride, s->count, s->levels));
    int bad = 0;
    for (size_t p = 0; p < n; p++)
        for (size_t j = 0; j < piece; j++)
            bad += local[loff[p] + (ptrdiff_t)j] !=
                   val(to, (size_t)(s->remote_base + roff[p] + (ptrdiff_t)j));
    CHECK(bad == 0, "%s: packed get: %d wrong bytes", s->name, bad);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD)); /* the next rank served our get: now it may write */

    /* put: local values of this rank, into the next rank's window (poisoned everywhere) */
    for (size_t i = 0; i < WIN; i++) local[i] = val(rank + 100, i);
    memset(win, 0xEE, WIN);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_OK(PUT(to, rbase, s->remote_stride, local, s->local_stride, s->count, s->levels));
    CHECK_OK(complete_to(to));
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    unsigned char *want = malloc(WIN);
    memset(want, 0xEE, WIN);
    for (size_t p = 0; p < n; p++)
        for (size_t j = 0; j < piece; j++)
            want[s->remote_base + roff[p] + (ptrdiff_t)j] =
                val(from + 100, (size_t)(loff[p] + (ptrdiff_t)j));
    bad = 0;
    for (size_t i = 0; i < WIN; i++) bad += win[i] != want[i];
    CHECK(bad == 0, "%s: packed put: %d wrong bytes in the window", s->name, bad);
    free(want);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
}

/* Through arbor_get_strided / arbor_put_strided (and _nb): 256 rows of 8 bytes, 24 apart,
 * which the one-sided layer packs where its model says so (not for a mapped peer); the data is
 * right either way, and the pack path ran exactly when the model chose it. */
static void test_public_path(unsigned char *win, void **addr, unsigned char *local)
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    size_t count[2] = {8, 256};
    ptrdiff_t wide[1] = {24}, tight[1] = {8};
    unsigned char *rbase = (unsigned char *)addr[to] + 40;
    arb_lock();
    bool pack = arb_rma_strided_choose(8, 256, arb_rma_peer_seg(to) != NULL) == ARB_STRIDED_PACK;
    arb_unlock();
    if (arb_rma_peer_seg(to)) CHECK(!pack, "the model packs for a mapped peer");
    uint64_t before = arb_am_strided_packed_calls();

    for (size_t i = 0; i < WIN; i++) win[i] = val(rank, i);
    memset(local, 0xEE, WIN);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_OK(arbor_get_strided(to, local, tight, rbase, wide, count, 1));
    arbor_request_h h = NULL;
    CHECK_OK(arbor_get_strided_nb(to, local + 4096, tight, rbase, wide, count, 1, &h));
    CHECK_OK(arbor_wait(&h));
    int bad = 0;
    for (size_t r = 0; r < 256; r++)
        for (size_t j = 0; j < 8; j++) {
            unsigned char want = val(to, 40 + r * 24 + j);
            bad += (local[r * 8 + j] != want) + (local[4096 + r * 8 + j] != want);
        }
    CHECK(bad == 0, "public strided get (%s): %d wrong bytes", pack ? "pack" : "pieces", bad);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));

    for (size_t i = 0; i < WIN; i++) local[i] = val(rank + 100, i);
    memset(win, 0xEE, WIN);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_OK(arbor_put_strided(to, rbase, wide, local, tight, count, 1));
    CHECK_OK(arbor_fence(to));
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    bad = 0;
    for (size_t i = 0; i < WIN; i++) {
        size_t rel = i - 40, r = rel / 24, j = rel % 24;
        bool in = i >= 40 && r < 256 && j < 8;
        bad += win[i] != (in ? val(from + 100, r * 8 + j) : 0xEE);
    }
    CHECK(bad == 0, "public strided put (%s): %d wrong bytes", pack ? "pack" : "pieces", bad);
    uint64_t ran = arb_am_strided_packed_calls() - before;
    CHECK(ran == (pack ? 3u : 0u), "the pack path ran %llu times, the model chose %s",
          (unsigned long long)ran, pack ? "pack" : "pieces");
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
}

int main(void)
{
    arbor_status_t st = arbor_init();
    if (st != ARBOR_OK) {
        fprintf(stderr, "arbor_init: %s\n", arbor_strerror(st));
        return st == ARBOR_ERR_UNSUPPORTED ? 77 : 1;
    }
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    arbor_mem_h mem;
    unsigned char *win, *local = malloc(WIN);
    void **addr = calloc((size_t)size, sizeof(void *));
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, WIN, &mem, (void **)&win));
    for (int r = 0; r < size; r++) CHECK_OK(arbor_mem_addr(mem, r, &addr[r], NULL));

    /* rows 3..4, columns 50..149 of a 10 x 300 array of doubles, into a 2 x 100 array */
    const shape_t shapes[] = {
        {"2x100 of 10x300 doubles", {800, 2}, {2400}, {800}, 1, (3 * 300 + 50) * 8},
        {"3 levels, odd strides", {3, 5, 4, 2}, {7, 40, 170}, {3, 15, 60}, 3, 5},
        {"negative stride", {24, 20}, {-64}, {24}, 1, 20 * 64},
        {"64 rows of 1 KiB", {1024, 64}, {1024 + 8}, {1024}, 1, 0},
        {"one piece", {1000}, {0}, {0}, 0, 13},
    };
    for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++)
        run_shape(&shapes[k], win, addr, local);

    /* a range past the allocation: refused, nothing written */
    size_t count[2] = {64, 2};
    ptrdiff_t far[1] = {WIN - 32}, near[1] = {64};
    int to = (rank + 1) % size;
    memset(win, 0x5A, WIN);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_IS(PUT(to, addr[to], far, local, near, count, 1), ARBOR_ERR_ADDRESS);
    CHECK_IS(GET(to, local, near, addr[to], far, count, 1), ARBOR_ERR_ADDRESS);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    int bad = 0;
    for (size_t i = 0; i < WIN; i++) bad += win[i] != 0x5A;
    CHECK(bad == 0, "refused put wrote %d bytes", bad);

    test_public_path(win, addr, local);

    CHECK_OK(arbor_mem_free(&mem));
    CHECK_OK(arbor_finalize());
    free(local);
    free(addr);
    if (rank == 0 || failures)
        printf("rank %d of %d: %d checks, %d failures: %s\n", rank, size, checks, failures,
               failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
