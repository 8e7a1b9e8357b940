/*
 * Process state and error reporting of libcaf_arbor.
 */
#include "caf_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

caf_state_t caf_state;

int caf_image_rank(int image)
{
    const caf_team_s *t = caf_state.current;
    if (image == 0) return caf_state.world_rank;
    if (image < 1 || image > t->size) return -1;
    return t->world[image - 1];
}

int caf_team_fill(caf_team_s *team)
{
    if (arbor_team_size(team->handle, &team->size) != ARBOR_OK ||
        arbor_team_rank(team->handle, &team->rank) != ARBOR_OK)
        return -1;
    team->world = malloc((size_t)team->size * sizeof(int));
    if (!team->world) return -1;
    for (int i = 0; i < team->size; i++)
        if (arbor_team_world_rank(team->handle, i, &team->world[i]) != ARBOR_OK) return -1;
    return 0;
}

const caf_team_s *caf_team_known(const caf_team_s *team)
{
    if (team == &caf_state.initial) return team;
    for (const caf_team_s *t = caf_state.formed; t; t = t->next_formed)
        if (t == team) return t;
    return NULL;
}

static void vreport(int *stat, char *errmsg, size_t errmsg_len, int code, const char *fmt,
                    va_list ap)
{
    char msg[256];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (!stat) caf_fatal(code, "%s", msg);
    *stat = code;
    if (errmsg && errmsg_len > 0) {
        /* A Fortran character variable: no terminator, blank-padded. */
        size_t n = strlen(msg);
        if (n > errmsg_len) n = errmsg_len;
        memcpy(errmsg, msg, n);
        memset(errmsg + n, ' ', errmsg_len - n);
    }
}

int caf_report(int *stat, char *errmsg, size_t errmsg_len, int code, const char *fmt, ...)
{
    if (code == 0) {
        if (stat) *stat = 0;
        return 0;
    }
    va_list ap;
    va_start(ap, fmt);
    vreport(stat, errmsg, errmsg_len, code, fmt, ap);
    va_end(ap);
    return code;
}

int caf_world_status(int world_rank)
{
    arbor_peer_state_t st = ARBOR_PEER_RUNNING;
    if (world_rank == caf_state.world_rank || arbor_peer_state(world_rank, &st) != ARBOR_OK)
        return 0;
    return st == ARBOR_PEER_STOPPED  ? CAF_STAT_STOPPED_IMAGE
           : st == ARBOR_PEER_FAILED ? CAF_STAT_FAILED_IMAGE
                                     : 0;
}

int caf_failed_check(int world_rank, int image, int *stat, const char *what)
{
    int departed = 0;
    if (arbor_peer_departures(&departed) == ARBOR_OK && departed == 0) return 0;
    if (caf_world_status(world_rank) != CAF_STAT_FAILED_IMAGE) return 0;
    return caf_report(stat, NULL, 0, CAF_STAT_FAILED_IMAGE, "libcaf_arbor: %s: image %d has failed",
                      what, image);
}

int caf_team_departures(const caf_team_s *t)
{
    int departed = 0;
    if (arbor_peer_departures(&departed) == ARBOR_OK && departed == 0) return 0;
    int failed = 0;
    for (int i = 0; i < t->size; i++) {
        int code = caf_world_status(t->world[i]);
        if (code == CAF_STAT_STOPPED_IMAGE) return code;
        failed |= code == CAF_STAT_FAILED_IMAGE;
    }
    return failed ? CAF_STAT_FAILED_IMAGE : 0;
}

int caf_check(int *stat, char *errmsg, size_t errmsg_len, arbor_status_t s, const char *what)
{
    if (s == ARBOR_OK) { /* every successful statement: no formatting call */
        if (stat) *stat = 0;
        return 0;
    }
    int code = CAF_STAT_ERROR;
    if (s == ARBOR_ERR_PEER_STOPPED)
        code = CAF_STAT_STOPPED_IMAGE;
    else if (s == ARBOR_ERR_PEER_LOST)
        code = CAF_STAT_FAILED_IMAGE;
    else if (s == ARBOR_ERR_TEAM) /* failed earlier by a departed image: say which kind */
        code = caf_team_departures(caf_state.current);
    if (code == 0) code = CAF_STAT_ERROR;
    if (code == CAF_STAT_STOPPED_IMAGE)
        return caf_report(stat, errmsg, errmsg_len, code,
                          "libcaf_arbor: %s: an image involved has stopped", what);
    if (code == CAF_STAT_FAILED_IMAGE)
        return caf_report(stat, errmsg, errmsg_len, code,
                          "libcaf_arbor: %s: an image involved has failed", what);
    return caf_report(stat, errmsg, errmsg_len, code, "libcaf_arbor: %s failed: %s", what,
                      arbor_strerror(s));
}

void caf_fatal(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "libcaf_arbor (image %d): ", caf_state.world_rank + 1);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    arbor_abort(code > 0 && code < 256 ? code : 1);
    _Exit(1); /* arbor_abort returns only for a bad code, excluded above */
}

int caf_departed_report(int *stat, char *errmsg, size_t errmsg_len, const char *what)
{
    caf_team_s *t = caf_state.current;
    int code = t->departed, departed = 0;
    if (!code && arbor_peer_departures(&departed) == ARBOR_OK && departed == 0) return 0;
    for (int i = 0; !code && i < t->size; i++)
        if (caf_world_status(t->world[i]) == CAF_STAT_FAILED_IMAGE) code = CAF_STAT_FAILED_IMAGE;
    if (!code) return 0;
    return caf_report(stat, errmsg, errmsg_len, code,
                      "libcaf_arbor: %s: an image of the team has %s", what,
                      code == CAF_STAT_STOPPED_IMAGE ? "stopped" : "failed");
}

int caf_coll_check(int *stat, char *errmsg, size_t errmsg_len, arbor_status_t s, const char *what)
{
    caf_team_s *t = caf_state.current;
    if (s == ARBOR_ERR_PEER_STOPPED && !t->departed) t->departed = CAF_STAT_STOPPED_IMAGE;
    if (s == ARBOR_ERR_PEER_LOST && !t->departed) t->departed = CAF_STAT_FAILED_IMAGE;
    return caf_check(stat, errmsg, errmsg_len, s, what);
}
