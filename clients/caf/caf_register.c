/*
 * Coarray registration: every coarray (static, allocatable, lock, critical, event) is one
 * collective allocation of arbor's symmetric heap over the current team; the token keeps every
 * image's address of it. Where the heap has no room (ARBOR_SEGMENT_SIZE bounds it; MPI-based
 * runtimes have no such bound), arbor_mem_alloc_any gives memory of each image's own (locks and
 * events stay in the heap: arbor_wait_until watches heap words only). Allocatable and pointer
 * components are allocated by one image alone: caf_component.c.
 */
#include <stdlib.h>

#include "caf_api.h"
#include "caf_state.h"

enum { CAF_SYNC_WORD = 8 };

/* Locks and events: 8-byte words (one per element) updated with arbor atomics and watched with
 * arbor_wait_until, which needs them in the heap. */
static int sync_type(int type)
{
    return type == CAF_REG_LOCK_STATIC || type == CAF_REG_LOCK_ALLOC || type == CAF_REG_CRITICAL ||
           type == CAF_REG_EVENT_STATIC || type == CAF_REG_EVENT_ALLOC;
}

void _gfortran_caf_register(size_t size, int type, caf_token_t *token, caf_desc_t *desc, int *stat,
                            char *errmsg, size_t errmsg_len)
{
    /* gfortran's reallocation on assignment of a component passes CAF_REG_ALLOC: the slot of
     * the token tells (a coarray's token is never inside a coarray). */
    if (type == CAF_REG_REGISTER_ONLY || type == CAF_REG_ALLOCATE_ONLY ||
        (type == CAF_REG_ALLOC && token && caf_component_slot(token))) {
        if (!caf_state.initialized) _gfortran_caf_init(NULL, NULL); /* see below */
        caf_component_register(size, type, token, desc, stat, errmsg, errmsg_len);
        return;
    }
    if (!token || !desc) {
        caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR, "libcaf_arbor: register: no token");
        return;
    }
    /* Static coarrays are registered by constructors that gfortran emits, before main calls
     * _gfortran_caf_init: start the runtime here then (init is idempotent). */
    if (!caf_state.initialized) _gfortran_caf_init(NULL, NULL);
    caf_team_s *team = caf_state.current;
    caf_coarray_t *c = calloc(1, sizeof *c);
    char **addr = calloc((size_t)caf_state.world_size, sizeof(char *));
    if (!c || !addr) {
        free(c);
        free(addr);
        caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR, "libcaf_arbor: out of memory");
        return;
    }
    int sync_words = sync_type(type);
    size_t nbytes = sync_words ? (size ? size : 1) * CAF_SYNC_WORD : size;
    void *local = NULL;
    /* A zero-sized coarray still needs an address of its own. */
    arbor_status_t s =
        sync_words ? arbor_mem_alloc(team->handle, nbytes ? nbytes : 1, &c->mem, &local)
                   : arbor_mem_alloc_any(team->handle, nbytes ? nbytes : 1, &c->mem, &local);
    for (int r = 0; s == ARBOR_OK && r < team->size; r++)
        s = arbor_mem_addr(c->mem, r, (void **)&addr[team->world[r]], NULL);
    if (s != ARBOR_OK) {
        if (c->mem) arbor_mem_free(&c->mem);
        free(c);
        free(addr);
        caf_check(stat, errmsg, errmsg_len, s,
                  s != ARBOR_ERR_NO_MEMORY ? "coarray allocation"
                  : sync_words ? "coarray allocation (locks and events live in each image's "
                                 "arbor segment: raise ARBOR_SEGMENT_SIZE, 64M by default)"
                               : "coarray allocation (out of memory on an image)");
        return;
    }
    if (!caf_state.main_started) caf_state.statics_unsync = 1;
    c->tag = CAF_TOKEN_COARRAY;
    c->local = local;
    c->nbytes = nbytes;
    c->addr = addr;
    c->team = team;
    /* Bounds are the same on every image: reference chains read them from here. */
    c->desc = desc->dtype.rank > 0 ? desc : NULL;
    c->str_len = desc->dtype.type == CAF_BT_CHARACTER ? desc->dtype.elem_len : 0;
    c->next = caf_state.coarrays;
    if (c->next) c->next->prev = c;
    caf_state.coarrays = c;
    desc->base_addr = local;
    *token = c;
    caf_report(stat, errmsg, errmsg_len, 0, "%s", "");
}

void _gfortran_caf_deregister(caf_token_t *token, int type, int *stat, char *errmsg,
                              size_t errmsg_len)
{
    caf_coarray_t *c = token ? *token : NULL;
    if (c && c->tag == CAF_TOKEN_COMPONENT) {
        caf_component_deregister(token, type, stat, errmsg, errmsg_len);
        return;
    }
    if (type == CAF_DEREG_DEALLOCATE_ONLY) {
        caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR,
                   "libcaf_arbor: deallocate: the token is no component's");
        return;
    }
    if (!c) {
        caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR,
                   "libcaf_arbor: deallocate of a coarray that is not allocated");
        return;
    }
    /* Deallocation synchronises the team: nobody may still be reading or writing it. */
    arbor_status_t s = arbor_quiet();
    if (s == ARBOR_OK) s = arbor_barrier(c->team->handle);
    if (s == ARBOR_OK) s = arbor_mem_free(&c->mem);
    if (c->prev)
        c->prev->next = c->next;
    else
        caf_state.coarrays = c->next;
    if (c->next) c->next->prev = c->prev;
    free(c->addr);
    free(c);
    *token = NULL;
    caf_check(stat, errmsg, errmsg_len, s, "coarray deallocation");
}
