/* Shared state and helpers of libarmci_arbor (ARMCI over arbor's public API). Internal. */
#ifndef ARMCI_ARBOR_H
#define ARMCI_ARBOR_H

#include <armci.h>
#include <arbor.h>
#include <stddef.h>

/* ARMCI's documented limit; arbor accepts ARBOR_MAX_STRIDE_LEVELS (>= this). */
#define ARMCIA_MAX_STRIDE_LEVELS 7

extern int armcia_me;    /* rank in ARBOR_TEAM_WORLD */
extern int armcia_nproc; /* size of ARBOR_TEAM_WORLD */

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
void armcia_group_fini(void);

/* The MPI communicators of groups (armci_mpi.c): real ones when the program has initialised
 * MPI, zeros otherwise. */
MPI_Comm armcia_comm_null(void);
MPI_Comm armcia_comm_world(void);
MPI_Comm armcia_comm_split(MPI_Comm parent, int member, int key);
void armcia_comm_free(MPI_Comm *comm);

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

/* The three transfer kinds. */
enum { ARMCIA_PUT, ARMCIA_GET, ARMCIA_ACC };

void armcia_mem_fini(void);
void armcia_mutex_fini(void);

#endif
