/*
 * Launched test of arbor_mem_attach_remote: every rank registers a malloc'd buffer of a size of
 * its own (no collective) and tells the others only its address; each rank attaches every
 * peer's buffer by that address (the owner's descriptor fetched by an active message), reads it
 * whole against the owner's pattern and writes its mark into its own slice; the owner then finds
 * every mark. A range the owner did not register, one that runs past its registration, and one
 * it deregistered answer ARBOR_ERR_ADDRESS.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbor.h"

#include "launched_check.h"

#define CHECK_IS(_call, _want)                                                                     \
    do {                                                                                           \
        arbor_status_t _s = (_call);                                                               \
        CHECK(_s == (_want), "%s returned %s, expected %s", #_call, arbor_strerror(_s),            \
              arbor_strerror(_want));                                                              \
    } while (0)
#define CHECK_OK(_call) CHECK_IS(_call, ARBOR_OK)

enum { SLICE = 64 };

static size_t bytes_of(int r)
{
    return (size_t)SLICE * (size_t)size + 8 * (size_t)(r + 1) * 37;
}

static uint8_t pattern(int owner, size_t i)
{
    return (uint8_t)(owner * 41 + i * 7 + 3);
}

int main(void)
{
    if (arbor_init() != ARBOR_OK) return 1;
    CHECK_OK(arbor_team_rank(ARBOR_TEAM_WORLD, &rank));
    CHECK_OK(arbor_team_size(ARBOR_TEAM_WORLD, &size));
    size_t mine = bytes_of(rank);
    uint8_t *buf = aligned_alloc(64, (mine + 63) / 64 * 64);
    for (size_t i = 0; i < mine; i++) buf[i] = pattern(rank, i);
    arbor_reg_h reg = NULL;
    CHECK_OK(arbor_mem_register(buf, mine, 0, &reg));
    uint64_t addr = (uint64_t)(uintptr_t)buf, *addrs = calloc((size_t)size, sizeof(uint64_t));
    CHECK_OK(arbor_allgather(ARBOR_TEAM_WORLD, &addr, addrs, 1, ARBOR_UINT64));

    size_t biggest = bytes_of(size - 1);
    uint8_t *got = malloc(biggest), mark[SLICE];
    memset(mark, 0xA0 + rank, sizeof(mark));
    for (int k = 0; k < size; k++) {
        int r = (rank + k) % size; /* every rank asks a different owner first */
        uint8_t *base = (uint8_t *)(uintptr_t)addrs[r];
        arbor_attach_h att = NULL;
        /* a range inside: the attachment covers the whole registration */
        CHECK_OK(arbor_mem_attach_remote(r, base + 8, 16, &att));
        int owner = -1;
        void *abase = NULL;
        size_t an = 0;
        CHECK_OK(arbor_mem_attach_info(att, &owner, &abase, &an));
        CHECK(owner == r && abase == base && an == bytes_of(r), "rank %d's attachment: %d %p %zu",
              r, owner, abase, an);
        memset(got, 0, biggest);
        CHECK_OK(arbor_get(r, got, base, bytes_of(r)));
        size_t bad = 0;
        for (size_t i = SLICE * (size_t)size; i < bytes_of(r); i++) bad += got[i] != pattern(r, i);
        CHECK(bad == 0, "rank %d's buffer: %zu bytes differ", r, bad);
        CHECK_OK(arbor_put(r, base + (size_t)rank * SLICE, mark, SLICE));
        CHECK_OK(arbor_quiet());
        CHECK_OK(arbor_mem_detach(&att));
        /* past the end, and memory the owner never registered */
        CHECK_IS(arbor_mem_attach_remote(r, base + bytes_of(r) - 8, 16, &att), ARBOR_ERR_ADDRESS);
        CHECK(att == NULL, "no handle on an error");
        CHECK_IS(arbor_mem_attach_remote(r, (void *)(uintptr_t)8, 8, &att), ARBOR_ERR_ADDRESS);
    }
    CHECK_IS(arbor_mem_attach_remote(size, buf, 8, &(arbor_attach_h){NULL}), ARBOR_ERR_RANK);
    CHECK_IS(arbor_mem_attach_remote(0, NULL, 8, &(arbor_attach_h){NULL}), ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_mem_attach_remote(0, buf, 8, NULL), ARBOR_ERR_INVALID_ARG);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    for (int r = 0; r < size; r++) {
        size_t bad = 0;
        for (size_t i = 0; i < SLICE; i++) bad += buf[(size_t)r * SLICE + i] != (uint8_t)(0xA0 + r);
        CHECK(bad == 0, "rank %d's mark: %zu bytes differ", r, bad);
    }
    /* deregistered: the owner has nothing there any more */
    CHECK_OK(arbor_mem_deregister(&reg));
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    int next = (rank + 1) % size;
    arbor_attach_h att = NULL;
    CHECK_IS(arbor_mem_attach_remote(next, (void *)(uintptr_t)addrs[next], 8, &att),
             ARBOR_ERR_ADDRESS);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    free(got);
    free(addrs);
    free(buf);
    CHECK_OK(arbor_finalize());
    printf("mem_attach_remote rank %d: %d checks, %d failures\n", rank, checks, failures);
    return failures ? 1 : 0;
}
