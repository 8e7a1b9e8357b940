/*
 * Collective allocation outside the heap (group/outside.h). The heap is the segment, whose size
 * is fixed at init; a runtime whose users expect allocations of any size (coarrays,
 * ARMCI_Malloc: MPI windows have no such bound) asks for memory of each member's own when the
 * heap has no room. Each member maps its part (anonymous memory: pages take memory only once
 * written), registers it node-shared (rma/reg.c), and the team exchanges addresses and
 * descriptors and attaches them all, so that later operations find the memory as they find a
 * registration: loads and stores between the members of a node, the transport elsewhere.
 * Nothing is at a common offset, so a symmetric address (OpenSHMEM's) does not apply; the
 * members' addresses are arbor_mem_addr's.
 */
#include "group/outside.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "coll/coll.h"
#include "runtime/context.h"
#include "util/log.h"

enum { W = 4 }; /* words per member in the first exchange: ok, bytes, address, descriptor length */

static struct arbor_mem *new_mem(int n)
{
    struct arbor_mem *m = calloc(1, sizeof(*m));
    if (!m) return NULL;
    m->size = calloc((size_t)n, sizeof(*m->size));
    m->world = calloc((size_t)n, sizeof(*m->world));
    m->by_world = calloc((size_t)n, sizeof(*m->by_world));
    m->outside = calloc(1, sizeof(*m->outside));
    if (m->outside) {
        m->outside->addr = calloc((size_t)n, sizeof(*m->outside->addr));
        m->outside->att = calloc((size_t)n, sizeof(*m->outside->att));
    }
    if (!m->size || !m->world || !m->by_world || !m->outside || !m->outside->addr ||
        !m->outside->att) {
        arb_mem_destroy(m);
        return NULL;
    }
    return m;
}

/* Detaches the others' parts and deregisters this one (the mapping goes with m). */
static void let_go(struct arbor_mem *m)
{
    struct arb_mem_outside *o = m->outside;
    for (int i = 0; i < m->n; i++)
        if (o->att[i]) arb_reg_detach(&o->att[i]);
    if (o->reg) arb_reg_deregister(&o->reg);
}

/* This member's part: mapped, registered node-shared; its descriptor's length in *len_p. */
static arbor_status_t map_part(struct arb_mem_outside *o, size_t nbytes, size_t *len_p)
{
    *len_p = 0;
    if (nbytes == 0) return ARBOR_OK;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (nbytes > SIZE_MAX - page) return ARBOR_ERR_NO_MEMORY;
    o->map_len = (nbytes + page - 1) / page * page;
    void *p = mmap(NULL, o->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return ARBOR_ERR_NO_MEMORY;
    o->map = p;
    arbor_status_t st = arb_reg_register(p, o->map_len, ARBOR_MEM_NODE_SHARED, &o->reg);
    if (st == ARBOR_OK) st = arb_reg_pack(o->reg, NULL, len_p);
    return st;
}

/* Attaches every other member's part from the exchanged descriptors (slot bytes each). 1 when
 * every part is mapped here (and this one node-shared), 0 when some go through the transport,
 * -1 on a failure. */
static int attach_parts(struct arbor_mem *m, const uint64_t *all, const uint8_t *blobs, size_t slot)
{
    struct arb_mem_outside *o = m->outside;
    int mapped = !o->reg || arb_reg_shared(o->reg);
    for (int i = 0; i < m->n; i++) {
        if (m->world[i] == arb_ctx.rank || all[W * i + 1] == 0) continue;
        if (arb_reg_attach(blobs + (size_t)i * slot, (size_t)all[W * i + 3], &o->att[i]) !=
            ARBOR_OK)
            return -1;
        mapped &= arb_reg_attach_mapped(o->att[i]);
    }
    return mapped;
}

/* Team rank order sorted by world rank (arbor_mem's by_world). */
static void sort_by_world(struct arbor_mem *m)
{
    for (int i = 0; i < m->n; i++) m->by_world[i] = i;
    for (int i = 1; i < m->n; i++)
        for (int j = i; j > 0 && m->world[m->by_world[j - 1]] > m->world[m->by_world[j]]; j--) {
            int x = m->by_world[j];
            m->by_world[j] = m->by_world[j - 1];
            m->by_world[j - 1] = x;
        }
}

/* The second exchange: every member's descriptor (slot bytes each), then the attachments.
 * Returns attach_parts' answer (-1 on any failure here). */
static int exchange_parts(struct arbor_team *t, struct arbor_mem *m, const uint64_t *all,
                          size_t slot, arbor_status_t *status)
{
    if (slot == 0) return attach_parts(m, all, NULL, 0); /* nothing registered anywhere */
    uint8_t *out = calloc(1, slot), *in = calloc((size_t)t->size, slot);
    if (!out || !in) { /* as a failed search in symmetric.c: the others' exchange times out */
        free(out);
        free(in);
        *status = ARBOR_ERR_NO_MEMORY;
        return -1;
    }
    size_t len = slot;
    if (m->outside->reg) arb_reg_pack(m->outside->reg, out, &len);
    *status = arb_coll_allgather_internal(t, out, in, slot, ARBOR_BYTE);
    int mapped = *status == ARBOR_OK ? attach_parts(m, all, in, slot) : -1;
    free(out);
    free(in);
    return mapped;
}

arbor_status_t arb_mem_outside_alloc(struct arbor_team *t, size_t nbytes, struct arbor_mem **mem_p)
{
    int n = t->size;
    struct arbor_mem *m = new_mem(n);
    uint64_t *all = malloc(sizeof(uint64_t) * W * (size_t)n);
    if (!m || !all) { /* as a failed search in symmetric.c: the others' exchange times out */
        arb_mem_destroy(m);
        free(all);
        return ARBOR_ERR_NO_MEMORY;
    }
    m->team = t;
    m->n = n;
    for (int i = 0; i < n; i++) m->world[i] = t->world[i];
    size_t len = 0;
    arbor_status_t mine = map_part(m->outside, nbytes, &len);
    /* Every member takes part in every exchange, failed or not, so that all agree. */
    uint64_t v[W] = {mine == ARBOR_OK, nbytes, (uint64_t)(uintptr_t)m->outside->map, len};
    arbor_status_t status = arb_coll_allgather_internal(t, v, all, W, ARBOR_UINT64);
    size_t slot = 0;
    for (int i = 0; status == ARBOR_OK && i < n; i++) {
        if (!all[W * i]) status = mine != ARBOR_OK ? mine : ARBOR_ERR_NO_MEMORY;
        if (all[W * i + 3] > slot) slot = (size_t)all[W * i + 3];
        m->size[i] = (size_t)all[W * i + 1];
        m->outside->addr[i] = all[W * i + 2];
    }
    if (status == ARBOR_OK) {
        int mapped = exchange_parts(t, m, all, slot, &status);
        /* Whether every member attached every part, and mapped them all (arbor_mem_atomics). */
        uint64_t agree[2] = {mapped >= 0, mapped > 0}, both[2] = {0, 0};
        if (status == ARBOR_OK)
            status = arb_coll_allreduce_internal(t, agree, both, 2, ARBOR_UINT64, ARBOR_MIN);
        if (status == ARBOR_OK && !both[0]) status = ARBOR_ERR_NO_MEMORY;
        m->cpu_atomics = both[1] != 0;
    }
    free(all);
    if (status != ARBOR_OK) {
        arb_mem_outside_free(m);
        return status;
    }
    sort_by_world(m);
    m->team_h = t->handle;
    m->mine = nbytes;
    m->passive = true;
    arb_debug("outside the heap: %zu bytes at %p (%s)", nbytes, m->outside->map,
              m->cpu_atomics ? "mapped by every member" : "through the transport");
    *mem_p = m;
    return ARBOR_OK;
}

void arb_mem_outside_free(struct arbor_mem *m)
{
    let_go(m);
    arb_mem_destroy(m);
}
