/* Sets of ticket locks over an arbor team (libarmci_arbor internal): every member of the team
 * owns some mutexes (a count of its own), two 64-bit words each in the symmetric heap (the next
 * ticket, the ticket being served), so waiters are served in arrival order. ARMCI_*_mutexes
 * keeps one set over the world, each ARMCIX mutex handle one over its group. */
#ifndef ARMCI_MUTEX_H
#define ARMCI_MUTEX_H

#include <arbor.h>

typedef struct armcia_mutexes armcia_mutexes_t;

/* Collective over @p team: this member creates @p count mutexes. *max_count_p (may be NULL)
 * gets the largest count of any member. Returns 0 or an arbor status (count < 0 on any
 * member: ARBOR_ERR_COUNT on every member, nothing created). */
int armcia_mutexes_create(arbor_team_h team, int count, armcia_mutexes_t **set_p, int *max_count_p);
/* Collective: completes this rank's traffic, frees the heap words and the set. */
int armcia_mutexes_destroy(armcia_mutexes_t *set);
/* Frees the set's local memory only (at ARMCI_Finalize: the heap goes with arbor_finalize). */
void armcia_mutexes_forget(armcia_mutexes_t *set);

/* Mutex @p mutex of team member @p proc. Lock waits (making progress) until it holds it, or
 * ARBOR_TIMEOUT seconds; Trylock takes it only if it is free now (*acquired_p = 1) and never
 * waits for a holder; Unlock completes this rank's writes (quiet) and passes the lock on.
 * ARBOR_ERR_RANK, ARBOR_ERR_INVALID_ARG (no such mutex, or Unlock of one this rank does not
 * hold). */
int armcia_mutex_lock(armcia_mutexes_t *set, int mutex, int proc);
int armcia_mutex_trylock(armcia_mutexes_t *set, int mutex, int proc, int *acquired_p);
int armcia_mutex_unlock(armcia_mutexes_t *set, int mutex, int proc);

#endif
