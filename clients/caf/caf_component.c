/*
 * Allocatable and pointer components of derived-type coarrays. Each image allocates them alone,
 * of any size, so they cannot live in arbor's symmetric heap (a collective allocation): the
 * owner mallocs the memory and registers it (arbor_mem_register). Another image that reaches it
 * through a coindexed reference finds the owner's address in the owner's descriptor (which lies
 * in the coarray, in the heap) and attaches the registration by that address
 * (arbor_mem_attach_remote), keeping the attachment for later accesses.
 *
 * A kept attachment goes stale when the owner deallocates: the address may come back with
 * another registration. Every image counts its component deallocations in a word of the
 * symmetric heap; an access through a component reads the owner's count (alongside the
 * descriptor that names the memory) before it uses an attachment kept of that owner, and drops
 * them all when the count changed. Fortran's segment rules make this enough: a
 * deallocation on one image and an access from another are ordered by image control statements,
 * so the access reads the new count.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "caf_api.h"
#include "caf_state.h"

typedef struct {
    arbor_attach_h att;
    const char *base;
    size_t nbytes;
} kept_t;

/* What this image keeps of another image's components. */
typedef struct {
    uint64_t count; /* that image's deallocation count when these were attached */
    kept_t *kept;
    size_t n, cap;
} peer_t;

static arbor_mem_h count_mem;
static uint64_t *count_local; /* this image's deallocation count */
static void **count_addr;     /* every image's, by world rank */
static peer_t *peers;         /* by world rank */

int caf_component_init(void)
{
    int n = caf_state.world_size;
    count_addr = calloc((size_t)n, sizeof *count_addr);
    peers = calloc((size_t)n, sizeof *peers);
    if (!count_addr || !peers) return -1;
    void *local = NULL;
    if (arbor_mem_alloc(ARBOR_TEAM_WORLD, sizeof(uint64_t), &count_mem, &local) != ARBOR_OK)
        return -1;
    count_local = local;
    for (int r = 0; r < n; r++)
        if (arbor_mem_addr(count_mem, r, &count_addr[r], NULL) != ARBOR_OK) return -1;
    return 0;
}

static void drop_kept(peer_t *p)
{
    for (size_t i = 0; i < p->n; i++) arbor_mem_detach(&p->kept[i].att);
    p->n = 0;
}

void caf_component_finalize(void)
{
    for (int r = 0; peers && r < caf_state.world_size; r++) {
        drop_kept(&peers[r]);
        free(peers[r].kept);
    }
    free(peers);
    peers = NULL;
    /* The count stays in the heap: arbor_finalize releases it (arbor_mem_free is collective,
     * and an image that stops does so alone). */
    free(count_addr);
    count_addr = NULL;
    count_local = NULL;
}

void caf_component_release(void)
{
    while (caf_state.components) {
        caf_component_t *k = caf_state.components;
        caf_state.components = k->next;
        free(k->data);
        free(k);
    }
}

int caf_component_slot(const void *slot)
{
    const char *p = slot;
    for (const caf_coarray_t *c = caf_state.coarrays; c; c = c->next)
        if (p >= c->local && p < c->local + c->nbytes) return 1;
    for (const caf_component_t *k = caf_state.components; k; k = k->next)
        if (k->data && p >= k->data && p < k->data + k->nbytes) return 1;
    return 0;
}

/* Frees a component's memory: the registration first, then the count that tells the others. */
static void deallocate(caf_component_t *k)
{
    if (!k->data) return;
    if (k->reg) arbor_mem_deregister(&k->reg);
    free(k->data);
    k->data = NULL;
    k->nbytes = 0;
    if (count_local) __atomic_fetch_add(count_local, 1, __ATOMIC_RELEASE);
}

static caf_component_t *new_token(void)
{
    caf_component_t *k = calloc(1, sizeof *k);
    if (!k) return NULL;
    k->tag = CAF_TOKEN_COMPONENT;
    k->next = caf_state.components;
    if (k->next) k->next->prev = k;
    caf_state.components = k;
    return k;
}

void caf_component_register(size_t size, int type, caf_token_t *token, caf_desc_t *desc, int *stat,
                            char *errmsg, size_t errmsg_len)
{
    if (!token || !desc) {
        caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR, "libcaf_arbor: register: no token");
        return;
    }
    caf_component_t *k = NULL;
    /* REGISTER_ONLY is given a fresh slot (gfortran copies the structure afterwards); the
     * other kinds the slot of a component registered before, or a null one. */
    if (type != CAF_REG_REGISTER_ONLY) k = *token;
    if (k && k->tag != CAF_TOKEN_COMPONENT) {
        caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR,
                   "libcaf_arbor: register: the token is no component's");
        return;
    }
    if (!k && !(k = new_token())) {
        caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR, "libcaf_arbor: out of memory");
        return;
    }
    *token = k;
    desc->base_addr = NULL;
    if (type == CAF_REG_REGISTER_ONLY) {
        caf_report(stat, errmsg, errmsg_len, 0, "%s", "");
        return;
    }
    deallocate(k); /* allocating an allocated component is caught by gfortran; be safe */
    /* At least one word: registrations are 8-byte aligned and not empty. */
    size_t nbytes = (size < 8 ? 8 : size + 7) & ~(size_t)7;
    char *data = calloc(1, nbytes);
    if (!data) {
        caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR, "libcaf_arbor: out of memory");
        return;
    }
    arbor_status_t s = arbor_mem_register(data, nbytes, 0, &k->reg);
    if (s != ARBOR_OK && caf_state.world_size == 1) s = ARBOR_OK; /* nobody else to reach it */
    if (s != ARBOR_OK) {
        free(data);
        caf_check(stat, errmsg, errmsg_len, s, "component allocation (arbor_mem_register)");
        return;
    }
    k->data = data;
    k->nbytes = nbytes;
    desc->base_addr = data;
    caf_report(stat, errmsg, errmsg_len, 0, "%s", "");
}

void caf_component_deregister(caf_token_t *token, int type, int *stat, char *errmsg,
                              size_t errmsg_len)
{
    caf_component_t *k = *token;
    deallocate(k);
    if (type != CAF_DEREG_DEALLOCATE_ONLY) {
        if (k->prev)
            k->prev->next = k->next;
        else
            caf_state.components = k->next;
        if (k->next) k->next->prev = k->prev;
        free(k);
        *token = NULL;
    }
    caf_report(stat, errmsg, errmsg_len, 0, "%s", "");
}

arbor_status_t caf_reach(caf_reach_t *rc, int w, const void *addr, size_t len)
{
    if (w == caf_state.world_rank || len == 0) return ARBOR_OK;
    if (!peers) return ARBOR_ERR_NOT_INITIALIZED;
    peer_t *p = &peers[w];
    arbor_status_t s;
    /* With nothing kept there is nothing to drop: the access attaches anew and the count kept
     * stays an older one, which only makes a later comparison drop more than it must. */
    if (rc->checked != w && p->n > 0) {
        if (rc->pending == w) {
            rc->pending = -1;
            s = arbor_wait(&rc->req);
        } else {
            s = arbor_get(w, &rc->count, count_addr[w], sizeof rc->count);
        }
        if (s != ARBOR_OK) return s;
        if (rc->count != p->count) drop_kept(p);
        p->count = rc->count;
        rc->checked = w;
    }
    const char *lo = addr;
    for (size_t i = 0; i < p->n; i++)
        if (lo >= p->kept[i].base && len <= p->kept[i].nbytes &&
            (size_t)(lo - p->kept[i].base) <= p->kept[i].nbytes - len)
            return ARBOR_OK;
    arbor_attach_h att;
    s = arbor_mem_attach_remote(w, addr, len, &att);
    if (s == ARBOR_ERR_ADDRESS) {
        /* A pointer component may point into that image's coarrays: the heap needs none. */
        void *mapped;
        if (arbor_mem_ptr(w, addr, &mapped) == ARBOR_OK) return ARBOR_OK;
    }
    if (s != ARBOR_OK) return s;
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 4;
        kept_t *kept = realloc(p->kept, cap * sizeof *kept);
        if (!kept) {
            arbor_mem_detach(&att);
            return ARBOR_ERR_NO_MEMORY;
        }
        p->kept = kept;
        p->cap = cap;
    }
    void *base = NULL;
    size_t nbytes = 0;
    arbor_mem_attach_info(att, NULL, &base, &nbytes);
    p->kept[p->n++] = (kept_t){att, base, nbytes};
    return ARBOR_OK;
}

void caf_reach_start(caf_reach_t *rc, int w)
{
    /* Worth it only where something kept may need the count (else the access attaches anew). */
    if (w == caf_state.world_rank || rc->checked == w || rc->pending >= 0 || !peers ||
        peers[w].n == 0)
        return;
    if (arbor_get_nb(w, &rc->count, count_addr[w], sizeof rc->count, &rc->req) == ARBOR_OK)
        rc->pending = w;
}

void caf_reach_end(caf_reach_t *rc)
{
    if (rc->pending < 0) return;
    rc->pending = -1;
    arbor_wait(&rc->req);
}
