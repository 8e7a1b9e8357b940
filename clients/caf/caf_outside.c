/*
 * Coarrays the symmetric heap has no room for (ARBOR_SEGMENT_SIZE bounds the heap; MPI-based
 * runtimes have no such bound): every image of the team maps the memory itself and registers
 * it with arbor, node-shared where the images of a node map each other, and the team exchanges
 * the addresses and the registrations' descriptors, which every image attaches, all within the
 * allocation (a collective anyway): later accesses find the memory as they find the heap's.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "caf_state.h"

void caf_outside_free(caf_coarray_t *c)
{
    for (int w = 0; c->att && w < caf_state.world_size; w++)
        if (c->att[w]) arbor_mem_detach(&c->att[w]);
    if (c->reg) arbor_mem_deregister(&c->reg);
    if (c->local) munmap(c->local, c->mapped);
    c->local = NULL;
}

/* Maps and registers this image's part: node-shared, so that the images of this node reach it
 * by loads and stores as they reach the heap (pages never touched stay unallocated). */
static arbor_status_t map_mine(caf_coarray_t *c, size_t nbytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    c->mapped = (nbytes + page - 1) / page * page;
    void *p = mmap(NULL, c->mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return ARBOR_ERR_NO_MEMORY;
    c->local = p;
    arbor_status_t s = arbor_mem_register(p, c->mapped, ARBOR_MEM_NODE_SHARED, &c->reg);
    return s != ARBOR_OK && caf_state.world_size == 1 ? ARBOR_OK : s; /* nobody else to reach it */
}

/* Attaches every other image's registration from the exchanged descriptors (each slot: its
 * length, then the bytes). */
static arbor_status_t attach_all(caf_team_s *team, caf_coarray_t *c, const char *blobs, size_t slot)
{
    for (int r = 0; r < team->size; r++) {
        int w = team->world[r];
        if (w == caf_state.world_rank) continue;
        uint64_t len;
        memcpy(&len, blobs + (size_t)r * slot, sizeof len);
        arbor_status_t s = arbor_mem_attach(blobs + (size_t)r * slot + 8, len, &c->att[w]);
        if (s != ARBOR_OK) return s;
    }
    return ARBOR_OK;
}

arbor_status_t caf_outside_register(caf_team_s *team, size_t nbytes, caf_coarray_t *c, char **addr)
{
    c->att = calloc((size_t)caf_state.world_size, sizeof *c->att);
    arbor_status_t mine = c->att ? map_mine(c, nbytes) : ARBOR_ERR_NO_MEMORY;
    size_t len = 0;
    if (mine == ARBOR_OK && c->reg) mine = arbor_mem_pack(c->reg, NULL, &len);
    /* Every image takes part in every exchange, failed or not, so that all agree. */
    int64_t mine_v[2] = {mine != ARBOR_OK, (int64_t)len}, all_v[2] = {1, 0};
    arbor_status_t s = arbor_allreduce(team->handle, mine_v, all_v, 2, ARBOR_INT64, ARBOR_MAX);
    if (s == ARBOR_OK && all_v[0]) s = mine != ARBOR_OK ? mine : ARBOR_ERR_NO_MEMORY;
    /* A slot: the address, the descriptor's length, the descriptor. */
    size_t slot = 16 + (size_t)all_v[1];
    char *out = NULL, *in = NULL;
    if (s == ARBOR_OK) {
        out = calloc(1, slot);
        in = calloc((size_t)team->size, slot);
        /* The others go on to the exchange: this image cannot stay out of it alone. */
        if (!out || !in) caf_fatal(1, "out of memory exchanging a coarray's descriptors");
        uint64_t at = (uint64_t)(uintptr_t)c->local, n = len;
        memcpy(out, &at, 8);
        memcpy(out + 8, &n, 8);
        if (c->reg && arbor_mem_pack(c->reg, out + 16, &len) != ARBOR_OK) memset(out, 0, 8);
    }
    if (s == ARBOR_OK) s = arbor_allgather(team->handle, out, in, slot, ARBOR_BYTE);
    int64_t ok = s == ARBOR_OK, all_ok = 0;
    for (int r = 0; ok && r < team->size; r++) {
        memcpy(&addr[team->world[r]], in + (size_t)r * slot, sizeof(char *));
        ok = addr[team->world[r]] != NULL;
    }
    if (ok && caf_state.world_size > 1) ok = attach_all(team, c, in + 8, slot) == ARBOR_OK;
    free(out);
    free(in);
    if (s == ARBOR_OK) s = arbor_allreduce(team->handle, &ok, &all_ok, 1, ARBOR_INT64, ARBOR_MIN);
    if (s == ARBOR_OK && !all_ok) s = ARBOR_ERR_UNSUPPORTED;
    if (s != ARBOR_OK) {
        caf_outside_free(c);
        free(c->att);
        c->att = NULL;
    }
    return s;
}

void caf_coarray_forget(caf_coarray_t *c)
{
    if (!c->att) {
        free(c->addr);
        free(c);
        return;
    }
    for (int w = 0; w < caf_state.world_size; w++)
        if (c->att[w]) arbor_mem_detach(&c->att[w]);
    c->next = caf_state.outside_left;
    caf_state.outside_left = c;
}

void caf_coarray_release(void)
{
    while (caf_state.outside_left) {
        caf_coarray_t *c = caf_state.outside_left;
        caf_state.outside_left = c->next;
        c->reg = NULL; /* arbor_finalize ended the registration */
        caf_outside_free(c);
        free(c->att);
        free(c->addr);
        free(c);
    }
}
