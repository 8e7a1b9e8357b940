/* Shared state and helpers of libarmci_arbor (ARMCI over arbor's public API). Internal. */
#ifndef ARMCI_ARBOR_H
#define ARMCI_ARBOR_H

#include <armci.h>
#include <arbor.h>
#include <stddef.h>

/* ARMCI-MPI's profiling interface: the library defines PARMCI_x and makes ARMCI_x a weak alias
 * of it, so that a tool may define ARMCI_x itself (wrapping the call) and reach the library
 * through PARMCI_x. The library's own calls go to PARMCI_x, so a wrapper sees only the program's
 * calls. Written after the definition of @p profiled, in its file (an alias must be). */
#define ARMCIA_PROFILED(name, profiled)                                                            \
    extern __typeof__(profiled) name __attribute__((weak, alias(#profiled)))

/* ARMCI's documented limit; arbor accepts ARBOR_MAX_STRIDE_LEVELS (>= this). */
#define ARMCIA_MAX_STRIDE_LEVELS 7

/* armci_error.c: the process's state and the error paths. */
extern int armcia_me;         /* rank in ARBOR_TEAM_WORLD */
extern int armcia_nproc;      /* size of ARBOR_TEAM_WORLD */
extern int armcia_init_count; /* ARMCI_Init calls not yet matched by ARMCI_Finalize */

/* Abort the job with a message naming the failed call (ARMCI's void calls have no status). */
void armcia_die(const char *where, int status) __attribute__((noreturn));
/* Return 0 for ARBOR_OK, else print the error (ARMCI_ARBOR_VERBOSE=1) and return it (< 0). */
int armcia_status(const char *where, arbor_status_t status);
/* Fails loudly: a call this library does not provide. Returns ARBOR_ERR_UNSUPPORTED. */
int armcia_unsupported(const char *name);
/* Nonzero unless ARMCI_Init succeeded and ARMCI_Finalize has not run (prints why). */
int armcia_check_init(const char *where);

/* The arbor team of @p group (NULL: the default group). Aborts on an unknown group. */
arbor_team_h armcia_group_team(const ARMCI_Group *group);
/* The world rank of member @p rank of @p group (NULL: default group); -1 when out of range. */
int armcia_group_abs(const ARMCI_Group *group, int rank);
/* @p group itself, or the default group for NULL. */
const ARMCI_Group *armcia_group_resolve(const ARMCI_Group *group);
/* Fills @p group_out for a new group over @p team whose member i is world rank members[i];
 * this process is member @p index (-1: not a member, an empty group). Takes @p comm. */
void armcia_group_adopt(ARMCI_Group *group_out, arbor_team_h team, MPI_Comm comm, int size,
                        const int *members, int index);
void armcia_group_fini(void);

/* The MPI communicators of groups (armci_mpi.c): real ones when the program has initialised
 * MPI, zeros otherwise. */
MPI_Comm armcia_comm_null(void);
MPI_Comm armcia_comm_world(void);
/* MPI_Comm_split of @p parent; a negative @p color: no communicator (MPI_UNDEFINED). */
MPI_Comm armcia_comm_split(MPI_Comm parent, int color, int key);
void armcia_comm_free(MPI_Comm *comm);
/* Nonzero when MPI is initialised and @p comm holds MPI_COMM_WORLD's processes in its order. */
int armcia_comm_is_world(MPI_Comm comm);

/* ARMCI_ACC_* to an arbor datatype and its size; nonzero for an unknown datatype. */
int armcia_acc_type(int datatype, arbor_dtype_t *dtype_p, size_t *size_p);

/* Converts ARMCI's int stride arrays; nonzero (ARBOR_ERR_COUNT) for a bad level or count. */
int armcia_strides(int stride_levels, const int *src_stride, const int *dst_stride,
                   const int *count, ptrdiff_t *src_out, ptrdiff_t *dst_out, size_t *count_out);

/* Explicit-handle table of the Nb calls: where a new request of @p proc goes for @p hdl (NULL:
 * implicit, NULL is returned) and what to do after the call started (or failed). */
arbor_request_h *armcia_hdl_slot(armci_hdl_t *hdl, int proc);
int armcia_hdl_started(armci_hdl_t *hdl, arbor_status_t status);
/* Frees @p ptr (malloc'd) once the operation just started under @p hdl (NULL: implicit, to
 * @p proc) has completed. */
void armcia_hdl_keep(armci_hdl_t *hdl, int proc, void *ptr);
int armcia_hdl_wait_proc(int proc); /* proc < 0: every handle */
void armcia_hdl_fini(void);

/* How long a wait of this library (a mutex, a tagged message) may go on: ARBOR_TIMEOUT seconds,
 * as every arbor wait (default 300; 0 waits forever). */
typedef struct {
    double end_s; /* CLOCK_MONOTONIC seconds; 0: never */
} armcia_deadline_t;
armcia_deadline_t armcia_deadline_start(void);
int armcia_deadline_passed(const armcia_deadline_t *deadline);

/* Tagged messages (armci_msg_tagged.c) travel as active messages of this handler index, the
 * last of arbor's user indices: a program that uses arbor's active messages itself beside
 * ARMCI must leave it free. Registered by ARMCI_Init, before its closing barrier. */
#define ARMCIA_AM_TAGGED (ARBOR_AM_MAX_HANDLERS - 1)
int armcia_tagged_init(void);
void armcia_tagged_fini(void);

/* SMP domains = arbor's nodes (armci_domain.c), built by ARMCI_Init. */
int armcia_domain_init(void);
void armcia_domain_fini(void);
int armcia_domain_of(int proc); /* -1 when out of range */
/* World ranks of @p domain, ascending; of every domain's first rank, by domain. */
const int *armcia_domain_members(int domain, int *count_p);
const int *armcia_domain_masters(int *count_p);
/* Teams of this node's ranks and of the domains' first ranks; ARBOR_TEAM_NULL where that scope
 * has one member (or this rank is not in it). */
arbor_team_h armcia_domain_node_team(void);
arbor_team_h armcia_domain_masters_team(void);

/* The processes an armci_msg_* call with a scope (SCOPE_ALL / NODE / MASTERS) spans in a group
 * (armci_scope.c). team is ARBOR_TEAM_NULL when this process is alone in it. */
typedef struct {
    arbor_team_h team;
    int size, rank;     /* members, and this process's index among them */
    const int *members; /* world rank of each member, by index (= team rank) */
    int *owned;         /* members, when made for this call */
    int split;          /* team was split for this call: close frees it */
} armcia_scope_t;
/* @p group NULL: the world (not the default group). Collective over the group for a node scope
 * of a group other than the world (it may split); local otherwise. ARBOR_ERR_TEAM (not in the
 * group), ARBOR_ERR_RANK (SCOPE_MASTERS from a process that is not its node's first),
 * ARBOR_ERR_UNSUPPORTED (SCOPE_MASTERS of a group with two members on a node),
 * ARBOR_ERR_INVALID_ARG (unknown scope). */
int armcia_scope_open(int scope, const ARMCI_Group *group, armcia_scope_t *s);
void armcia_scope_close(armcia_scope_t *s);
int armcia_scope_rank_of(const armcia_scope_t *s, int world_rank); /* -1: not a member */

/* The three transfer kinds. */
enum { ARMCIA_PUT, ARMCIA_GET, ARMCIA_ACC };

void armcia_mem_fini(void);
void armcia_mutex_fini(void);

#endif
