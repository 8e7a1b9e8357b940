/*
 * Teams: form team splits the current team (arbor_team_split); change team / end team push
 * and pop the current team, which renumbers the images of every later statement.
 */
#include <stdlib.h>

#include "caf_api.h"
#include "caf_state.h"

void _gfortran_caf_form_team(int team_no, caf_team_t *team, int index)
{
    const caf_team_s *cur = caf_state.current;
    caf_team_s *t = calloc(1, sizeof *t);
    if (!t || team_no <= 0) caf_fatal(1, "form team: bad team number %d", team_no);
    /* NEW_INDEX orders the images of the new team; without it, keep the current order. */
    int key = index > 0 ? index : cur->rank;
    arbor_status_t s = arbor_team_split(cur->handle, team_no, key, &t->handle);
    if (s != ARBOR_OK) caf_fatal(1, "form team: arbor_team_split: %s", arbor_strerror(s));
    t->number = team_no;
    if (caf_team_fill(t) != 0) caf_fatal(1, "form team: cannot describe the new team");
    caf_mpi_split(cur, t);
    t->next_formed = caf_state.formed;
    caf_state.formed = t;
    *team = t;
}

void _gfortran_caf_change_team(caf_team_t *team, int coselector)
{
    (void)coselector; /* coarray associations of CHANGE TEAM are not supported */
    caf_team_s *t = team ? *team : NULL;
    if (!t) caf_fatal(1, "change team: the team was not formed");
    t->up = caf_state.current;
    caf_state.current = t;
    /* CHANGE TEAM synchronises the images of the new team. */
    arbor_status_t s = arbor_quiet();
    if (s == ARBOR_OK) s = arbor_barrier(t->handle);
    if (s != ARBOR_OK) caf_fatal(1, "change team: %s", arbor_strerror(s));
}

void _gfortran_caf_end_team(caf_team_t *team)
{
    (void)team; /* gfortran passes NULL: the current team ends */
    caf_team_s *t = caf_state.current;
    if (t == &caf_state.initial) caf_fatal(1, "end team outside a change team construct");
    arbor_status_t s = arbor_quiet();
    if (s == ARBOR_OK) s = arbor_barrier(t->handle);
    if (s != ARBOR_OK) caf_fatal(1, "end team: %s", arbor_strerror(s));
    caf_state.current = t->up;
    t->up = NULL;
}

void _gfortran_caf_sync_team(caf_team_t *team, int unused)
{
    (void)unused;
    caf_team_s *t = team && *team ? *team : caf_state.current;
    arbor_status_t s = arbor_quiet();
    if (s == ARBOR_OK) s = arbor_barrier(t->handle);
    if (s != ARBOR_OK) caf_fatal(1, "sync team: %s", arbor_strerror(s));
}

int _gfortran_caf_team_number(caf_team_t *team)
{
    const caf_team_s *t = team && *team ? *team : caf_state.current;
    return t->number;
}
