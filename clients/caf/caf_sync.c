/*
 * Image control: sync all, sync images, sync memory. Every statement first completes this
 * image's outstanding writes everywhere (arbor_quiet): segment ordering is transitive, so a
 * partner may next read what we wrote to a third image.
 */
#include <stdlib.h>

#include "caf_api.h"
#include "caf_state.h"

void _gfortran_caf_sync_memory(int *stat, char *errmsg, size_t errmsg_len)
{
    caf_check(stat, errmsg, errmsg_len, arbor_quiet(), "sync memory");
}

void _gfortran_caf_sync_all(int *stat, char *errmsg, size_t errmsg_len)
{
    arbor_status_t s = arbor_quiet();
    if (s == ARBOR_OK) s = arbor_barrier(caf_state.current->handle);
    caf_check(stat, errmsg, errmsg_len, s, "sync all");
}

/* sync images: a notification to every partner, then one awaited from each (arbor_notify
 * counts per pair, so back-to-back syncs with the same partner cannot be confused). */
void _gfortran_caf_sync_images(int count, int images[], int *stat, char *errmsg, size_t errmsg_len)
{
    const caf_team_s *t = caf_state.current;
    int all = count < 0 || !images; /* sync images (*) */
    int n = all ? t->size : count;
    int *ranks = malloc(((size_t)n + 1) * sizeof(int));
    char *seen = calloc((size_t)t->size + 1, 1);
    int np = 0, code = 0;
    if (!ranks || !seen) {
        code = caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR, "libcaf_arbor: out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++) {
        int image = all ? i + 1 : images[i];
        if (image < 1 || image > t->size) {
            code = caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR,
                              "libcaf_arbor: sync images: %d is not an image of the team", image);
            goto out;
        }
        if (seen[image]++) {
            code = caf_report(stat, errmsg, errmsg_len, CAF_STAT_DUP_SYNC_IMAGES,
                              "libcaf_arbor: sync images: image %d listed twice", image);
            goto out;
        }
        if (image != t->rank + 1) ranks[np++] = t->world[image - 1];
    }
    arbor_status_t s = arbor_quiet();
    for (int i = 0; s == ARBOR_OK && i < np; i++) s = arbor_notify(ranks[i]);
    for (int i = 0; s == ARBOR_OK && i < np; i++) s = arbor_notify_wait(ranks[i], 1);
    caf_check(stat, errmsg, errmsg_len, s, "sync images");
out:
    (void)code;
    free(ranks);
    free(seen);
}
