/*
 * Start and end of a coarray program: init / finalize, the image queries, stop and error stop.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caf_api.h"
#include "caf_state.h"

/* Forgets every coarray still registered (static coarrays live until the end). Not with
 * arbor_mem_free, which is collective: an image that stops does so alone, while the others
 * may still run and read its coarrays; arbor_finalize releases the memory once all are done. */
static void forget_all_coarrays(void)
{
    while (caf_state.coarrays) {
        caf_coarray_t *c = caf_state.coarrays;
        caf_state.coarrays = c->next;
        free(c->addr);
        free(c);
    }
}

/* Main's call, after the constructors that register static coarrays: gfortran stores a static
 * coarray's initial value only once its registration returns, so another image could read the
 * coarray before that store. A barrier here makes every image's initial values visible before
 * any statement of the program runs. */
static void main_starts(void)
{
    caf_state.main_started = 1;
    if (!caf_state.statics_unsync) return;
    caf_state.statics_unsync = 0;
    arbor_status_t s = arbor_barrier(ARBOR_TEAM_WORLD);
    if (s != ARBOR_OK) caf_fatal(1, "init: arbor_barrier: %s", arbor_strerror(s));
}

void _gfortran_caf_init(int *argc, char ***argv)
{
    if (caf_state.initialized) {
        if (argc && !caf_state.main_started) main_starts();
        return;
    }
    caf_mpi_start(argc, argv);
    arbor_status_t s = arbor_init();
    if (s != ARBOR_OK) {
        fprintf(stderr, "libcaf_arbor: arbor_init failed: %s\n", arbor_strerror(s));
        exit(1);
    }
    caf_state.initial.handle = ARBOR_TEAM_WORLD;
    caf_state.initial.number = -1;
    if (caf_team_fill(&caf_state.initial) != 0) caf_fatal(1, "cannot describe the initial team");
    caf_mpi_world(&caf_state.initial);
    caf_state.world_rank = caf_state.initial.rank;
    caf_state.world_size = caf_state.initial.size;
    caf_state.current = &caf_state.initial;
    if (caf_coll_init() != 0) caf_fatal(1, "init: cannot create the reduction operations");
    if (caf_component_init() != 0) caf_fatal(1, "init: cannot set up the components' count");
    /* random_init's per-run base, agreed now because random_init itself is not collective */
    caf_state.run_nonce = caf_random_nonce();
    s = arbor_bcast(ARBOR_TEAM_WORLD, &caf_state.run_nonce, sizeof caf_state.run_nonce, 0);
    if (s != ARBOR_OK) caf_fatal(1, "init: arbor_bcast: %s", arbor_strerror(s));
    caf_state.initialized = 1;
    if (argc) caf_state.main_started = 1;
}

void _gfortran_caf_finalize(void)
{
    if (!caf_state.initialized) return;
    arbor_quiet();
    caf_component_finalize();
    forget_all_coarrays();
    caf_state.current = &caf_state.initial;
    /* The teams too are released by arbor_finalize (arbor_team_free is collective). */
    while (caf_state.formed) {
        caf_team_s *t = caf_state.formed;
        caf_state.formed = t->next_formed;
        free(t->world);
        free(t);
    }
    free(caf_state.initial.world);
    caf_state.initialized = 0;
    arbor_status_t s = arbor_finalize();
    if (s != ARBOR_OK) fprintf(stderr, "libcaf_arbor: arbor_finalize: %s\n", arbor_strerror(s));
    caf_component_release();
    caf_mpi_end();
}

int _gfortran_caf_this_image(int distance)
{
    (void)distance; /* the DISTANCE argument of F2018 (ancestor teams) is not supported */
    return caf_state.current->rank + 1;
}

/* failed: 1 counts the failed images of the current team, 0 the others, -1 (absent) all. */
int _gfortran_caf_num_images(int distance, int failed)
{
    (void)distance;
    const caf_team_s *t = caf_state.current;
    if (failed < 0) return t->size;
    int nfailed = 0;
    for (int i = 0; i < t->size; i++)
        nfailed += caf_world_status(t->world[i]) == CAF_STAT_FAILED_IMAGE;
    return failed > 0 ? nfailed : t->size - nfailed;
}

/* Normal termination: this image is stopped from now on; arbor_finalize returns once every
 * image has stopped or failed, serving this image's coarrays meanwhile. */
_Noreturn static void stop_with(int code)
{
    fflush(stdout);
    _gfortran_caf_finalize();
    exit(code);
}

void _gfortran_caf_stop_numeric(int code, bool quiet)
{
    if (!quiet) fprintf(stderr, "STOP %d\n", code);
    stop_with(code);
}

void _gfortran_caf_stop_str(const char *str, size_t len, bool quiet)
{
    if (!quiet) fprintf(stderr, "STOP %.*s\n", (int)len, str);
    stop_with(0);
}

/* Error termination: arbor_abort ends every image with the code. */
void _gfortran_caf_error_stop(int code, bool quiet)
{
    if (!quiet) fprintf(stderr, "ERROR STOP %d\n", code);
    int status = code & 0xff;
    if (status == 0 && code != 0) status = 1; /* a multiple of 256 must not read as success */
    arbor_abort(status);
    _Exit(status);
}

void _gfortran_caf_error_stop_str(const char *str, size_t len, bool quiet)
{
    if (!quiet) fprintf(stderr, "ERROR STOP %.*s\n", (int)len, str);
    arbor_abort(1);
    _Exit(1);
}

/* The image fails alone: its peers see it failed at once (arbor_fail_self), and the process
 * stays, doing nothing, until they have all ended, so that the launcher keeps the job. */
void _gfortran_caf_fail_image(void)
{
    fflush(stdout);
    fflush(stderr);
    arbor_fail_self();
    caf_state.initialized = 0;
    exit(0); /* not _Exit: the launcher's session ends in an exit handler */
}

/* The team an image-status query is about: the current one. gfortran 12 refuses a TEAM
 * argument to these intrinsics ("not yet supported") and passes no team pointer (image_status
 * gets -1 in its place), so @p team is never read. */
static const caf_team_s *query_team(caf_team_t *team)
{
    (void)team;
    return caf_state.current;
}

int _gfortran_caf_image_status(int image, caf_team_t *team)
{
    const caf_team_s *t = query_team(team);
    if (image < 1 || image > t->size)
        caf_fatal(1, "image_status: %d is not an image of the team (1 to %d)", image, t->size);
    arbor_poll();
    return caf_world_status(t->world[image - 1]);
}

/* failed_images / stopped_images: the indices of the team's images with that status, in
 * increasing order, as a rank-1 integer array of the kind asked for (gfortran frees it). */
static void image_list(caf_desc_t *array, caf_team_t *team, int *kind, int status)
{
    const caf_team_s *t = query_team(team);
    size_t elem = kind ? (size_t)*kind : 4;
    arbor_poll(); /* lets announcements that need this image's progress land */
    int n = 0;
    char *list = malloc((size_t)t->size * elem + 1);
    if (!list) caf_fatal(1, "out of memory listing the images");
    for (int i = 0; i < t->size; i++) {
        if (caf_world_status(t->world[i]) != status) continue;
        int64_t v = i + 1;
        if (elem == 8) {
            memcpy(list + (size_t)n * elem, &v, elem);
        } else if (elem == 4) {
            int32_t v4 = (int32_t)v;
            memcpy(list + (size_t)n * elem, &v4, elem);
        } else if (elem == 2) {
            int16_t v2 = (int16_t)v;
            memcpy(list + (size_t)n * elem, &v2, elem);
        } else {
            int8_t v1 = (int8_t)v;
            memcpy(list + (size_t)n * elem, &v1, 1);
        }
        n++;
    }
    /* gfortran takes the result as zero-based (its caller shifts the bounds to 1..n) */
    array->base_addr = list;
    array->offset = 0;
    array->dtype.type = CAF_BT_INTEGER;
    array->dtype.elem_len = elem;
    array->dtype.rank = 1;
    array->span = (ptrdiff_t)elem;
    array->dim[0].lbound = 0;
    array->dim[0].ubound = n - 1;
    array->dim[0].stride = 1;
}

void _gfortran_caf_failed_images(caf_desc_t *array, caf_team_t *team, int *kind)
{
    image_list(array, team, kind, CAF_STAT_FAILED_IMAGE);
}

void _gfortran_caf_stopped_images(caf_desc_t *array, caf_team_t *team, int *kind)
{
    image_list(array, team, kind, CAF_STAT_STOPPED_IMAGE);
}

bool _gfortran_caf_is_contiguous(caf_desc_t *desc)
{
    ptrdiff_t expect = 1;
    for (int i = 0; i < desc->dtype.rank; i++) {
        ptrdiff_t extent = desc->dim[i].ubound - desc->dim[i].lbound + 1;
        if (extent <= 0) return true;
        if (desc->dim[i].stride != expect) return false;
        expect *= extent;
    }
    return true;
}
