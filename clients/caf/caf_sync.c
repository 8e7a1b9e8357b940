/*
 * Image control: sync all, sync images, sync memory. Every statement first completes this
 * image's outstanding writes everywhere (arbor_quiet): segment ordering is transitive, so a
 * partner may next read what we wrote to a third image.
 */
#include <stdlib.h>
#include <string.h>

#include "caf_api.h"
#include "caf_state.h"

void _gfortran_caf_sync_memory(int *stat, char *errmsg, size_t errmsg_len)
{
    caf_check(stat, errmsg, errmsg_len, arbor_quiet(), "sync memory");
}

/* How bad an outcome is for the Fortran status: any other error first, then a stopped image,
 * then a failed one (the standard's order), then success. */
static int severity(arbor_status_t s)
{
    return s == ARBOR_OK ? 0 : s == ARBOR_ERR_PEER_LOST ? 1 : s == ARBOR_ERR_PEER_STOPPED ? 2 : 3;
}

static arbor_status_t worse(arbor_status_t a, arbor_status_t b)
{
    return severity(b) > severity(a) ? b : a;
}

/* A notification to every partner (world ranks), then one awaited from each (arbor_notify
 * counts per pair, so back-to-back syncs with the same partner cannot be confused). A partner
 * that stopped or failed is reported, and the others are still synchronised with: the
 * survivors of a team go on together. */
static arbor_status_t sync_partners(const int *ranks, int np)
{
    arbor_status_t worst = arbor_quiet();
    if (worst != ARBOR_OK) return worst;
    for (int i = 0; i < np; i++) {
        int code = caf_world_status(ranks[i]);
        if (code == CAF_STAT_FAILED_IMAGE) continue; /* it takes no part any more */
        arbor_status_t s = arbor_notify(ranks[i]);
        if (s != ARBOR_OK) worst = worse(worst, s);
    }
    for (int i = 0; i < np; i++) worst = worse(worst, arbor_notify_wait(ranks[i], 1));
    return worst;
}

/* The other images of team t, as world ranks (n - 1 of them); NULL when out of memory. */
static int *other_images(const caf_team_s *t, int *np)
{
    int *ranks = malloc((size_t)t->size * sizeof(int) + 1);
    *np = 0;
    for (int i = 0; ranks && i < t->size; i++)
        if (i != t->rank) ranks[(*np)++] = t->world[i];
    return ranks;
}

/* sync all: the team's barrier while every image runs. Once one has stopped or failed the
 * barrier can no longer complete (and arbor fails the team): the running images then
 * synchronise pairwise, and the status says which kind of image is missing. */
void _gfortran_caf_sync_all(int *stat, char *errmsg, size_t errmsg_len)
{
    const caf_team_s *t = caf_state.current;
    arbor_status_t s = arbor_quiet();
    int departed = caf_team_departures(t);
    if (s == ARBOR_OK && !departed) {
        s = arbor_barrier(t->handle);
        if (s == ARBOR_ERR_PEER_STOPPED || s == ARBOR_ERR_PEER_LOST) departed = 1;
    }
    if (departed) {
        int np;
        int *ranks = other_images(t, &np);
        if (!ranks) {
            caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR, "libcaf_arbor: out of memory");
            return;
        }
        s = worse(s, sync_partners(ranks, np));
        free(ranks);
    }
    caf_check(stat, errmsg, errmsg_len, s, "sync all");
}

/* sync images: pairwise with each partner (sync_partners). */
void _gfortran_caf_sync_images(int count, int images[], int *stat, char *errmsg, size_t errmsg_len)
{
    const caf_team_s *t = caf_state.current;
    int all = count < 0 || !images; /* sync images (*) */
    int n = all ? t->size : count;
    /* On the stack for the usual few partners of a team of up to a few hundred images: the
     * statement runs in a program's innermost loops, where two allocations a call showed. */
    enum { FEW = 64, TEAM = 512 };
    int few[FEW];
    char team[TEAM];
    int *ranks = n < FEW ? few : malloc(((size_t)n + 1) * sizeof(int));
    char *seen =
        t->size < TEAM ? memset(team, 0, (size_t)t->size + 1) : calloc((size_t)t->size + 1, 1);
    int np = 0;
    if (!ranks || !seen) {
        caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR, "libcaf_arbor: out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++) {
        int image = all ? i + 1 : images[i];
        if (image < 1 || image > t->size) {
            caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR,
                       "libcaf_arbor: sync images: %d is not an image of the team", image);
            goto out;
        }
        if (seen[image]++) {
            caf_report(stat, errmsg, errmsg_len, CAF_STAT_DUP_SYNC_IMAGES,
                       "libcaf_arbor: sync images: image %d listed twice", image);
            goto out;
        }
        if (image != t->rank + 1) ranks[np++] = t->world[image - 1];
    }
    caf_check(stat, errmsg, errmsg_len, sync_partners(ranks, np), "sync images");
out:
    if (ranks != few) free(ranks);
    if (seen != team) free(seen);
}
