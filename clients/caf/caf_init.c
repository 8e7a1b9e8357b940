/*
 * Start and end of a coarray program: init / finalize, the image queries, stop and error stop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caf_api.h"
#include "caf_state.h"

/* Frees every coarray still registered (static coarrays live until the end): collective. */
static void free_all_coarrays(void)
{
    while (caf_state.coarrays) {
        caf_coarray_t *c = caf_state.coarrays;
        caf_state.coarrays = c->next;
        arbor_mem_free(&c->mem);
        free(c->addr);
        free(c);
    }
}

void _gfortran_caf_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (caf_state.initialized) return;
    arbor_status_t s = arbor_init();
    if (s != ARBOR_OK) {
        fprintf(stderr, "libcaf_arbor: arbor_init failed: %s\n", arbor_strerror(s));
        exit(1);
    }
    caf_state.initial.handle = ARBOR_TEAM_WORLD;
    caf_state.initial.number = -1;
    if (caf_team_fill(&caf_state.initial) != 0) caf_fatal(1, "cannot describe the initial team");
    caf_state.world_rank = caf_state.initial.rank;
    caf_state.world_size = caf_state.initial.size;
    caf_state.current = &caf_state.initial;
    caf_state.initialized = 1;
}

void _gfortran_caf_finalize(void)
{
    if (!caf_state.initialized) return;
    arbor_quiet();
    free_all_coarrays();
    caf_state.current = &caf_state.initial;
    while (caf_state.formed) {
        caf_team_s *t = caf_state.formed;
        caf_state.formed = t->next_formed;
        arbor_team_free(&t->handle);
        free(t->world);
        free(t);
    }
    free(caf_state.initial.world);
    caf_state.initialized = 0;
    arbor_status_t s = arbor_finalize();
    if (s != ARBOR_OK) fprintf(stderr, "libcaf_arbor: arbor_finalize: %s\n", arbor_strerror(s));
}

int _gfortran_caf_this_image(int distance)
{
    (void)distance; /* the DISTANCE argument of F2018 (ancestor teams) is not supported */
    return caf_state.current->rank + 1;
}

int _gfortran_caf_num_images(int distance, int failed)
{
    (void)distance;
    /* No image ever fails in an arbor job that is still running: failed = .true. counts 0. */
    return failed > 0 ? 0 : caf_state.current->size;
}

/* Normal termination: every image reaches finalize (its barrier is the implicit sync). */
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

void _gfortran_caf_fail_image(void)
{
    caf_fatal(1, "FAIL IMAGE is not supported by libcaf_arbor (failed images are not "
                 "tolerated): ending the job");
}

int _gfortran_caf_image_status(int image, caf_team_t *team)
{
    (void)team;
    /* Every image of a running job is running: a failed one ends the job. */
    return caf_image_rank(image) >= 0 ? 0 : CAF_STAT_ERROR;
}

/* failed_images / stopped_images: always an empty list (see image_status). */
static void empty_image_list(caf_desc_t *array, int *kind)
{
    array->base_addr = NULL;
    array->offset = 0;
    array->dtype.type = CAF_BT_INTEGER;
    array->dtype.elem_len = kind ? (size_t)*kind : 4;
    array->dtype.rank = 1;
    array->span = (ptrdiff_t)array->dtype.elem_len;
    array->dim[0].lbound = 1;
    array->dim[0].ubound = 0;
    array->dim[0].stride = 1;
}

void _gfortran_caf_failed_images(caf_desc_t *array, caf_team_t *team, int *kind)
{
    (void)team;
    empty_image_list(array, kind);
}

void _gfortran_caf_stopped_images(caf_desc_t *array, caf_team_t *team, int *kind)
{
    (void)team;
    empty_image_list(array, kind);
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
