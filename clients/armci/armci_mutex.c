/* Ticket locks over an arbor team (armci_mutex.h). */
#include "armci_mutex.h"

#include "armci_arbor.h"

#include <stdint.h>
#include <stdlib.h>

typedef struct {
    int64_t next;    /* the ticket the next Lock takes */
    int64_t serving; /* the ticket that holds the lock */
} ticket_t;

struct armcia_mutexes {
    arbor_team_h team;
    int size;
    arbor_mem_h mem;
    ticket_t **addr; /* per team member: the address of its mutexes */
    int *world;      /* per team member: its world rank (the target of one-sided calls) */
    int *count;      /* per team member: how many mutexes it created */
    size_t *first;   /* per team member: index of its first mutex in held */
    int64_t *held;   /* per mutex of the team that this rank holds: its ticket + 1, else 0 */
};

void armcia_mutexes_forget(armcia_mutexes_t *set)
{
    if (!set) return;
    free(set->addr);
    free(set->world);
    free(set->count);
    free(set->first);
    free(set->held);
    free(set);
}

int armcia_mutexes_create(arbor_team_h team, int count, armcia_mutexes_t **set_p, int *max_count_p)
{
    if (!set_p) return ARBOR_ERR_INVALID_ARG;
    armcia_mutexes_t *set = calloc(1, sizeof *set);
    if (!set) return ARBOR_ERR_NO_MEMORY;
    set->team = team;
    arbor_status_t st = arbor_team_size(team, &set->size);
    int n = st == ARBOR_OK ? set->size : 0;
    int mine[2] = {count, count < 0};
    int *all = calloc((size_t)n * 2 + 2, sizeof *all);
    set->addr = calloc((size_t)n + 1, sizeof *set->addr);
    set->world = calloc((size_t)n + 1, sizeof *set->world);
    set->count = calloc((size_t)n + 1, sizeof *set->count);
    set->first = calloc((size_t)n + 1, sizeof *set->first);
    if (st == ARBOR_OK && (!all || !set->addr || !set->world || !set->count || !set->first))
        st = ARBOR_ERR_NO_MEMORY;
    /* Everyone learns every member's count (and whether any is bad) before allocating, so a bad
     * count fails on every member alike. */
    if (st == ARBOR_OK) st = arbor_allgather(team, mine, all, 2, ARBOR_INT);
    int max_count = 0;
    size_t total = 0;
    for (int r = 0; st == ARBOR_OK && r < n; r++) {
        if (all[2 * r + 1]) st = ARBOR_ERR_COUNT;
        set->count[r] = all[2 * r];
        set->first[r] = total;
        total += (size_t)(all[2 * r] > 0 ? all[2 * r] : 0);
        if (all[2 * r] > max_count) max_count = all[2 * r];
    }
    free(all);
    if (st == ARBOR_OK) {
        void *local;
        st = arbor_mem_alloc(team, (size_t)count * sizeof(ticket_t), &set->mem, &local);
    }
    for (int r = 0; st == ARBOR_OK && r < n; r++) {
        st = arbor_mem_addr(set->mem, r, (void **)&set->addr[r], NULL);
        if (st == ARBOR_OK) st = arbor_team_world_rank(team, r, &set->world[r]);
    }
    if (st == ARBOR_OK) {
        set->held = calloc(total ? total : 1, sizeof *set->held);
        if (!set->held) st = ARBOR_ERR_NO_MEMORY;
    }
    if (st != ARBOR_OK) {
        if (set->mem) (void)arbor_mem_free(&set->mem);
        armcia_mutexes_forget(set);
        return st;
    }
    if (max_count_p) *max_count_p = max_count;
    *set_p = set;
    return ARBOR_OK;
}

int armcia_mutexes_destroy(armcia_mutexes_t *set)
{
    if (!set) return ARBOR_ERR_HANDLE;
    arbor_status_t st = arbor_quiet();
    if (st == ARBOR_OK) st = arbor_mem_free(&set->mem);
    if (st != ARBOR_OK) return st;
    armcia_mutexes_forget(set);
    return ARBOR_OK;
}

/* The held word of @p mutex of member @p proc, or NULL when there is no such mutex. */
static int64_t *held_slot(armcia_mutexes_t *set, int mutex, int proc, int *status)
{
    *status = !set                                     ? ARBOR_ERR_HANDLE
              : proc < 0 || proc >= set->size          ? ARBOR_ERR_RANK
              : mutex < 0 || mutex >= set->count[proc] ? ARBOR_ERR_INVALID_ARG
                                                       : ARBOR_OK;
    return *status == ARBOR_OK ? &set->held[set->first[proc] + (size_t)mutex] : NULL;
}

int armcia_mutex_lock(armcia_mutexes_t *set, int mutex, int proc)
{
    int st;
    int64_t *held = held_slot(set, mutex, proc, &st);
    if (!held) return st;
    ticket_t *t = &set->addr[proc][mutex];
    int target = set->world[proc];
    int64_t one = 1, zero = 0, ticket, serving;
    st = arbor_atomic(target, &t->next, ARBOR_AMO_FADD, ARBOR_INT64, &one, NULL, &ticket);
    armcia_deadline_t deadline = armcia_deadline_start();
    while (st == ARBOR_OK) {
        st = arbor_atomic(target, &t->serving, ARBOR_AMO_FETCH, ARBOR_INT64, &zero, NULL, &serving);
        if (st != ARBOR_OK || serving == ticket) break;
        if (armcia_deadline_passed(&deadline))
            st = ARBOR_ERR_TIMEOUT;
        else
            (void)arbor_poll(); /* let the holder's Unlock (and our own traffic) progress */
    }
    if (st == ARBOR_OK) *held = ticket + 1;
    return st;
}

int armcia_mutex_trylock(armcia_mutexes_t *set, int mutex, int proc, int *acquired_p)
{
    int st;
    int64_t *held = held_slot(set, mutex, proc, &st);
    if (!held) return st;
    if (!acquired_p) return ARBOR_ERR_INVALID_ARG;
    ticket_t *t = &set->addr[proc][mutex];
    int target = set->world[proc];
    int64_t zero = 0, serving, taken;
    /* The lock is free when next == serving. Taking ticket `serving` only if next still equals
     * it: then serving cannot have moved (it never passes next), so the ticket is served now. */
    st = arbor_atomic(target, &t->serving, ARBOR_AMO_FETCH, ARBOR_INT64, &zero, NULL, &serving);
    int64_t following = serving + 1;
    if (st == ARBOR_OK)
        st = arbor_atomic(target, &t->next, ARBOR_AMO_CSWAP, ARBOR_INT64, &following, &serving,
                          &taken);
    if (st != ARBOR_OK) return st;
    *acquired_p = taken == serving;
    if (*acquired_p) *held = serving + 1;
    return ARBOR_OK;
}

int armcia_mutex_unlock(armcia_mutexes_t *set, int mutex, int proc)
{
    int st;
    int64_t *held = held_slot(set, mutex, proc, &st);
    if (!held) return st;
    if (*held == 0) return ARBOR_ERR_INVALID_ARG;
    ticket_t *t = &set->addr[proc][mutex];
    int64_t one = 1;
    /* What the critical section wrote (to any rank) must be complete before the next holder
     * gets in. */
    st = arbor_quiet();
    if (st == ARBOR_OK)
        st = arbor_atomic(set->world[proc], &t->serving, ARBOR_AMO_ADD, ARBOR_INT64, &one, NULL,
                          NULL);
    if (st == ARBOR_OK) *held = 0;
    return st;
}
