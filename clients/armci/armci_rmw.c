/* ARMCI_Rmw on arbor_atomic, and the mutexes: a ticket lock per mutex (two 64-bit words in the
 * symmetric heap: the next ticket and the ticket being served), which serves waiters in arrival
 * order. */
#include "armci_arbor.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int ARMCI_Rmw(int op, void *ploc, void *prem, int value, int proc)
{
    if (!ploc) return armcia_status("ARMCI_Rmw", ARBOR_ERR_BUFFER);
    arbor_status_t st;
    switch (op) {
    case ARMCI_FETCH_AND_ADD:
        st = arbor_atomic(proc, prem, ARBOR_AMO_FADD, ARBOR_INT, &value, NULL, ploc);
        break;
    case ARMCI_FETCH_AND_ADD_LONG: {
        long v = value;
        st = arbor_atomic(proc, prem, ARBOR_AMO_FADD, ARBOR_LONG, &v, NULL, ploc);
        break;
    }
    case ARMCI_SWAP: {
        int v = *(int *)ploc;
        st = arbor_atomic(proc, prem, ARBOR_AMO_SWAP, ARBOR_INT, &v, NULL, ploc);
        break;
    }
    case ARMCI_SWAP_LONG: {
        long v = *(long *)ploc;
        st = arbor_atomic(proc, prem, ARBOR_AMO_SWAP, ARBOR_LONG, &v, NULL, ploc);
        break;
    }
    default:
        st = ARBOR_ERR_OP;
        break;
    }
    return armcia_status("ARMCI_Rmw", st);
}

/* --- mutexes --- */

typedef struct {
    int64_t next;    /* the ticket the next Lock takes */
    int64_t serving; /* the ticket that holds the lock */
} ticket_t;

static arbor_mem_h mutex_mem;
static ticket_t **mutex_addr; /* per world rank: the address of its mutexes */
static int *mutex_count;      /* per world rank: how many it created */
static int64_t *held_ticket;  /* per (rank, mutex) this rank holds: its ticket (for Unlock) */

int ARMCI_Create_mutexes(int count)
{
    int rc = armcia_check_init("ARMCI_Create_mutexes");
    if (rc) return rc;
    if (mutex_mem) return armcia_status("ARMCI_Create_mutexes", ARBOR_ERR_BUSY);
    int n = armcia_nproc;
    int bad = count < 0;
    /* Everyone learns every rank's count (and whether any is bad) before allocating. */
    mutex_count = calloc((size_t)n, sizeof *mutex_count);
    mutex_addr = calloc((size_t)n, sizeof *mutex_addr);
    int mine[2] = {count, bad};
    int *all = calloc((size_t)n * 2, sizeof *all);
    if (!mutex_count || !mutex_addr || !all)
        armcia_die("ARMCI_Create_mutexes", ARBOR_ERR_NO_MEMORY);
    arbor_status_t st = arbor_allgather(ARBOR_TEAM_WORLD, mine, all, 2, ARBOR_INT);
    for (int r = 0; st == ARBOR_OK && r < n; r++) {
        if (all[2 * r + 1]) st = ARBOR_ERR_COUNT;
        mutex_count[r] = all[2 * r];
    }
    free(all);
    if (st == ARBOR_OK) {
        void *local;
        st = arbor_mem_alloc(ARBOR_TEAM_WORLD, (size_t)(bad ? 0 : count) * sizeof(ticket_t),
                             &mutex_mem, &local);
    }
    for (int r = 0; st == ARBOR_OK && r < n; r++)
        st = arbor_mem_addr(mutex_mem, r, (void **)&mutex_addr[r], NULL);
    if (st == ARBOR_OK) {
        size_t total = 0;
        for (int r = 0; r < n; r++) total += (size_t)mutex_count[r];
        held_ticket = calloc(total ? total : 1, sizeof *held_ticket);
        if (!held_ticket) armcia_die("ARMCI_Create_mutexes", ARBOR_ERR_NO_MEMORY);
    }
    if (st != ARBOR_OK) {
        free(mutex_count);
        free(mutex_addr);
        mutex_count = NULL;
        mutex_addr = NULL;
        if (mutex_mem) (void)arbor_mem_free(&mutex_mem);
    }
    return armcia_status("ARMCI_Create_mutexes", st);
}

int ARMCI_Destroy_mutexes(void)
{
    if (!mutex_mem) return armcia_status("ARMCI_Destroy_mutexes", ARBOR_ERR_HANDLE);
    arbor_status_t st = arbor_quiet();
    if (st == ARBOR_OK) st = arbor_mem_free(&mutex_mem);
    if (st != ARBOR_OK) return armcia_status("ARMCI_Destroy_mutexes", st);
    armcia_mutex_fini();
    return 0;
}

static int64_t *held_slot(int mutex, int proc)
{
    if (!mutex_mem) armcia_die("ARMCI_Lock/Unlock (no ARMCI_Create_mutexes)", ARBOR_ERR_HANDLE);
    if (proc < 0 || proc >= armcia_nproc) armcia_die("ARMCI_Lock/Unlock", ARBOR_ERR_RANK);
    if (mutex < 0 || mutex >= mutex_count[proc])
        armcia_die("ARMCI_Lock/Unlock (mutex number)", ARBOR_ERR_INVALID_ARG);
    size_t base = 0;
    for (int r = 0; r < proc; r++) base += (size_t)mutex_count[r];
    return &held_ticket[base + (size_t)mutex];
}

static double lock_timeout_s(void)
{
    const char *s = getenv("ARBOR_TIMEOUT"); /* the same patience as every arbor wait */
    double t = s ? atof(s) : 0;
    return t > 0 ? t : 300;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void ARMCI_Lock(int mutex, int proc)
{
    int64_t *held = held_slot(mutex, proc);
    ticket_t *t = &mutex_addr[proc][mutex];
    int64_t one = 1, zero = 0, ticket, serving;
    arbor_status_t st =
        arbor_atomic(proc, &t->next, ARBOR_AMO_FADD, ARBOR_INT64, &one, NULL, &ticket);
    double deadline = now_s() + lock_timeout_s();
    while (st == ARBOR_OK) {
        st = arbor_atomic(proc, &t->serving, ARBOR_AMO_FETCH, ARBOR_INT64, &zero, NULL, &serving);
        if (st != ARBOR_OK || serving == ticket) break;
        if (now_s() > deadline)
            st = ARBOR_ERR_TIMEOUT;
        else
            (void)arbor_poll(); /* let the holder's Unlock (and our own traffic) progress */
    }
    if (st != ARBOR_OK) armcia_die("ARMCI_Lock", st);
    *held = ticket + 1; /* 0 means "not held" */
}

void ARMCI_Unlock(int mutex, int proc)
{
    int64_t *held = held_slot(mutex, proc);
    if (*held == 0) armcia_die("ARMCI_Unlock (mutex not held)", ARBOR_ERR_INVALID_ARG);
    ticket_t *t = &mutex_addr[proc][mutex];
    int64_t one = 1;
    /* What the critical section wrote (to any rank) must be complete before the next holder
     * gets in. */
    arbor_status_t st = arbor_quiet();
    if (st == ARBOR_OK)
        st = arbor_atomic(proc, &t->serving, ARBOR_AMO_ADD, ARBOR_INT64, &one, NULL, NULL);
    if (st != ARBOR_OK) armcia_die("ARMCI_Unlock", st);
    *held = 0;
}

void armcia_mutex_fini(void)
{
    free(mutex_count);
    free(mutex_addr);
    free(held_ticket);
    mutex_count = NULL;
    mutex_addr = NULL;
    held_ticket = NULL;
    mutex_mem = NULL; /* a live heap allocation goes with arbor_finalize */
}
