/*
 * The runtime's process state: the team stack (the current team names the images of this_image,
 * num_images, coindices and collectives), the live coarrays, and the error reporting shared by
 * every entry point.
 */
#ifndef CAF_STATE_H
#define CAF_STATE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "arbor.h"
#include "caf_abi.h"

/* A team of images; the initial team wraps ARBOR_TEAM_WORLD and has number -1. */
typedef struct caf_team {
    arbor_team_h handle;
    int number;                   /* team_number; -1 for the initial team */
    int rank, size;               /* this image's 0-based index and the team's image count */
    int departed;                 /* CAF_STAT_STOPPED_IMAGE / _FAILED_IMAGE once a collective of
                                   * the team ended for that reason (arbor failed the team: later
                                   * collectives on it report the same at once), else 0 */
    int *world;                   /* world rank of each image of the team */
    int has_mpi_comm, mpi_comm;   /* the team's MPI communicator (Fortran handle), in a program
                                   * that uses MPI (caf_mpi.c) */
    struct caf_team *up;          /* the team that was current when this one was changed to */
    struct caf_team *next_formed; /* every formed team, freed at finalize */
} caf_team_s;

/* The first word of every token this library hands gfortran: a coarray's or a component's (a
 * deregistration may be given either). */
enum { CAF_TOKEN_COARRAY = 0x43414641, CAF_TOKEN_COMPONENT = 0x43414643 };

/* A registered coarray: its collective allocation and every world rank's address of it. */
typedef struct caf_coarray {
    unsigned tag; /* CAF_TOKEN_COARRAY */
    arbor_mem_h mem;
    char *local;
    size_t nbytes;
    char **addr; /* by world rank; NULL for ranks outside the allocating team */
    caf_team_s *team;
    const caf_desc_t *desc; /* the program's descriptor of an array coarray (its bounds), or NULL */
    size_t str_len;         /* bytes per string of a character coarray, else 0 */
    struct caf_coarray *prev, *next;
} caf_coarray_t;

/* An allocatable or pointer component of a derived-type coarray, on this image: memory it
 * allocates alone, registered with arbor so that the other images can reach it (caf_component.c).
 * The token gfortran keeps in the component stays while the component is deallocated and
 * allocated again. */
typedef struct caf_component {
    unsigned tag; /* CAF_TOKEN_COMPONENT */
    char *data;   /* NULL while not allocated */
    size_t nbytes;
    arbor_reg_h reg; /* NULL where nobody else could reach it (one image) */
    struct caf_component *prev, *next;
} caf_component_t;

/* One access to another image's components: whether it has read that image's deallocation
 * count yet (once per access is enough, see caf_component.c), and the read in flight. */
typedef struct {
    int checked; /* world rank whose count this access has read, -1 none */
    int pending; /* world rank whose count is being read (req), -1 none */
    arbor_request_h req;
    uint64_t count;
} caf_reach_t;
#define CAF_REACH_INIT                                                                             \
    {                                                                                              \
        -1, -1, NULL, 0                                                                            \
    }

typedef struct {
    int initialized;
    int main_started;   /* main has called _gfortran_caf_init (constructors run before it) */
    int statics_unsync; /* coarrays registered by constructors, initial values not yet seen */
    int world_rank, world_size;
    caf_team_s initial;
    caf_team_s *current;
    caf_coarray_t *coarrays;     /* list of live registrations, freed at finalize */
    caf_component_t *components; /* every component token of this image */
    caf_team_s *formed;          /* teams made by form team (Fortran never frees a team) */
    uint64_t run_nonce; /* drawn by image 1 at init, the same on every image (random_init) */
} caf_state_t;

extern caf_state_t caf_state;

/* World rank of image @p image (1-based) of the current team; 0 means this image.
 * -1 when out of range. */
int caf_image_rank(int image);

/* Fill a team's size, rank and world-rank table from its arbor handle. */
int caf_team_fill(caf_team_s *team);

/*
 * Report the outcome of a statement: with @p stat the code goes there (and the message into
 * errmsg, blank-padded); without it a nonzero code is an error termination of the whole job.
 * Returns @p code.
 */
int caf_report(int *stat, char *errmsg, size_t errmsg_len, int code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* caf_report for a failed arbor call: ARBOR_OK reports success. */
int caf_check(int *stat, char *errmsg, size_t errmsg_len, arbor_status_t s, const char *what);

/* The Fortran status of the image with world rank @p world_rank as this image knows it: 0
 * (running, or this image), CAF_STAT_STOPPED_IMAGE or CAF_STAT_FAILED_IMAGE. */
int caf_world_status(int world_rank);
/* A coindexed access to a failed image: reports CAF_STAT_FAILED_IMAGE (with @p stat, else error
 * termination) and returns it; 0 when the image (world rank, @p image its index) has not
 * failed. A stopped image's data stay accessible. */
int caf_failed_check(int world_rank, int image, int *stat, const char *what);
/* CAF_STAT_STOPPED_IMAGE when an image of @p t has stopped, else CAF_STAT_FAILED_IMAGE when one
 * has failed, else 0. */
int caf_team_departures(const caf_team_s *t);

/* Before a collective of the current team: once an image of it failed, or once an earlier
 * collective of it ended for a stopped or failed image, the collective cannot complete: reports
 * which (with @p stat, else error termination) and returns the code; else 0. A stopped image
 * alone is not checked here: it may have done its part of this very collective before it
 * stopped, and arbor tells whether the collective still waits for it. */
int caf_departed_report(int *stat, char *errmsg, size_t errmsg_len, const char *what);
/* caf_check for a collective of the current team: also records a stopped / failed image's
 * verdict in the team (see caf_departed_report). */
int caf_coll_check(int *stat, char *errmsg, size_t errmsg_len, arbor_status_t s, const char *what);

/* Init: the reduction operations of the kinds arbor has no type for (caf_coll.c). 0 on success
 * (also where they cannot exist: those reductions then report "unsupported"), -1 on failure. */
int caf_coll_init(void);

/* Components (caf_component.c). Init: the deallocation count every image keeps for the others
 * (collective); 0 or -1. Finalize: drops this image's attachments of the others' components
 * (before arbor_finalize); release: frees the components' memory once arbor_finalize returned
 * (a stopped image serves its components until every image is done). */
int caf_component_init(void);
void caf_component_finalize(void);
void caf_component_release(void);
/* True when a token slot lies inside a coarray or a component of this image: gfortran then
 * means a component even where it passes CAF_REG_ALLOC (reallocation on assignment). */
int caf_component_slot(const void *slot);
/* Register (CAF_REG_REGISTER_ONLY: the token alone; CAF_REG_ALLOCATE_ONLY / CAF_REG_ALLOC:
 * memory of @p size bytes too) and deregister (CAF_DEREG_DEALLOCATE_ONLY: the memory alone) a
 * component; errors reported through stat as for any statement. */
void caf_component_register(size_t size, int type, caf_token_t *token, caf_desc_t *desc, int *stat,
                            char *errmsg, size_t errmsg_len);
void caf_component_deregister(caf_token_t *token, int type, int *stat, char *errmsg,
                              size_t errmsg_len);
/* Makes [@p addr, @p addr + @p len) of world rank @p w, memory that image allocated alone,
 * reachable by arbor's one-sided calls from here (an attachment, kept for later accesses).
 * caf_reach_start starts reading that image's count early (before the reads that find the
 * address), so that it overlaps them; caf_reach_end completes a read still in flight (every
 * access calls it before @p rc goes). */
arbor_status_t caf_reach(caf_reach_t *rc, int w, const void *addr, size_t len);
void caf_reach_start(caf_reach_t *rc, int w);
void caf_reach_end(caf_reach_t *rc);

/* A 64-bit value that differs from run to run (clock and process id, mixed). */
uint64_t caf_random_nonce(void);

/* MPI for a program that calls it: started before arbor at init when the program linked an MPI
 * library and did not start it itself, ended after arbor at finalize (caf_mpi.c). */
void caf_mpi_start(int *argc, char ***argv);
void caf_mpi_end(void);
/* The MPI communicator of the initial team (MPI_COMM_WORLD), and of a team formed from @p parent
 * (number, rank and size set): collective over @p parent's images. Nothing when MPI is not up. */
void caf_mpi_world(caf_team_s *team);
void caf_mpi_split(const caf_team_s *parent, caf_team_s *team);
/* @p team when it is the initial team or one FORM TEAM made here, else NULL. */
const caf_team_s *caf_team_known(const caf_team_s *team);

/* Error termination with @p code after printing the message (never returns). */
_Noreturn void caf_fatal(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* CAF_STATE_H */
