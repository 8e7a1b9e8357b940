/*
 * arbor_mem_ptr: the load/store pointer to a peer's memory. For this rank it is the address
 * itself (heap and registered); for a peer it is non-NULL only where puts would be copies into a
 * mapped segment, and then loads and stores through it reach that peer's memory (checked with
 * arbor_get / a store read back by the owner); a peer's registered memory has none; the bad
 * arguments give their errors with the output set to NULL.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arbor.h"
#include "launched_check.h"

int main(void)
{
    if (arbor_init() != ARBOR_OK) return 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    arbor_mem_h mem;
    uint64_t *mine;
    CHECK(arbor_mem_alloc(ARBOR_TEAM_WORLD, 64 * sizeof(uint64_t), &mem, (void **)&mine) ==
              ARBOR_OK,
          "alloc");
    void *addr_right = NULL;
    arbor_mem_addr(mem, right, &addr_right, NULL);
    mine[0] = 1000 + (uint64_t)rank;
    arbor_barrier(ARBOR_TEAM_WORLD);

    void *p = (void *)1;
    CHECK(arbor_mem_ptr(rank, mine, &p) == ARBOR_OK && p == mine, "self heap pointer %p", p);
    CHECK(arbor_mem_ptr(right, addr_right, &p) == ARBOR_OK, "peer heap pointer call");
    uint64_t *peer = p;
    if (peer) {
        uint64_t got = 0;
        arbor_get(right, &got, addr_right, sizeof got);
        CHECK(*peer == got && got == 1000 + (uint64_t)right, "load through the pointer %llu",
              (unsigned long long)*peer);
        peer[1] = 2000 + (uint64_t)rank; /* a store the owner reads after the barrier */
    } else {
        arbor_put(right, (uint64_t *)addr_right + 1, &(uint64_t){2000 + (uint64_t)rank},
                  sizeof(uint64_t));
    }
    arbor_quiet();
    arbor_barrier(ARBOR_TEAM_WORLD);
    CHECK(mine[1] == 2000 + (uint64_t)left, "store from the left %llu",
          (unsigned long long)mine[1]);
    /* On one node arbor maps every peer's segment itself, whatever the transport; with
     * ARBOR_DIRECT=n nobody does (OFI never maps; UCX's own mapping is not offered). */
    const char *tp = "", *direct_env = getenv("ARBOR_DIRECT");
    arbor_transport_name(&tp);
    int direct = !direct_env || strchr("yY1tT", direct_env[0]) || !strcmp(direct_env, "on");
    int nodes = 1;
    arbor_node_count(&nodes);
    if (size > 1 && direct && nodes == 1)
        CHECK(peer != NULL, "one node: the peer's heap is mapped (transport %s)", tp);
    if (!direct) CHECK(peer == NULL || size == 1, "ARBOR_DIRECT=n maps no peer");

    /* Registered memory: this rank's own is reachable at its address, a peer's is not mapped. */
    uint64_t *region = aligned_alloc(64, 4096);
    memset(region, 0, 4096);
    arbor_reg_h reg = NULL;
    arbor_status_t st = arbor_mem_register(region, 4096, 0, &reg);
    CHECK(st == ARBOR_OK || st == ARBOR_ERR_UNSUPPORTED, "register: %s", arbor_strerror(st));
    if (st == ARBOR_OK) {
        CHECK(arbor_mem_ptr(rank, region + 3, &p) == ARBOR_OK && p == region + 3,
              "own registered memory");
        size_t len = 0;
        arbor_mem_pack(reg, NULL, &len);
        unsigned char *blobs = calloc((size_t)size, len), *own = calloc(1, len);
        arbor_mem_pack(reg, own, &len);
        arbor_allgather(ARBOR_TEAM_WORLD, own, blobs, len, ARBOR_BYTE);
        arbor_attach_h att = NULL;
        CHECK(arbor_mem_attach(blobs + len * (size_t)right, len, &att) == ARBOR_OK, "attach");
        void *base = NULL;
        arbor_mem_attach_info(att, NULL, &base, NULL);
        p = (void *)1;
        CHECK(arbor_mem_ptr(right, base, &p) == ARBOR_OK && (right == rank ? p == base : !p),
              "a peer's registered memory has no pointer (%p)", p);
        arbor_mem_detach(&att);
        arbor_barrier(ARBOR_TEAM_WORLD);
        arbor_mem_deregister(&reg);
        free(blobs);
        free(own);
    }
    free(region);

    /* Errors. */
    uint64_t on_stack = 0;
    CHECK(arbor_mem_ptr(rank, mine, NULL) == ARBOR_ERR_INVALID_ARG, "NULL output");
    p = (void *)1;
    CHECK(arbor_mem_ptr(size, mine, &p) == ARBOR_ERR_RANK && p == NULL, "rank out of range");
    p = (void *)1;
    CHECK(arbor_mem_ptr(rank, NULL, &p) == ARBOR_ERR_BUFFER && p == NULL, "NULL address");
    p = (void *)1;
    CHECK(arbor_mem_ptr(right, &on_stack, &p) == ARBOR_ERR_ADDRESS && p == NULL,
          "not symmetric memory");
    arbor_barrier(ARBOR_TEAM_WORLD);
    arbor_mem_free(&mem);

    int bad = failures;
    int total = 0;
    arbor_allreduce(ARBOR_TEAM_WORLD, &bad, &total, 1, ARBOR_INT, ARBOR_SUM);
    if (rank == 0) printf("mem_ptr: %d checks, %d failed over %d ranks\n", checks, total, size);
    arbor_finalize();
    return total ? 1 : 0;
}
