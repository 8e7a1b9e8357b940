/* ARMCI_Malloc / Free (and the group and memdev forms) over arbor's symmetric heap, or memory of
 * each rank's own where the heap has no room (arbor_mem_alloc_any: ARMCI-MPI's windows have no
 * bound, so Global Arrays programs size their arrays freely). */
#include "armci_arbor.h"

#include <stdint.h>
#include <stdlib.h>

/* One live collective allocation. Ranks that allocated 0 bytes have no local address, so a
 * free is matched by an id agreed on at allocation time (the same on every member). */
typedef struct alloc {
    struct alloc *next;
    arbor_mem_h mem;
    void *local;
    int64_t id;
} alloc_t;

static alloc_t *allocs;
static int64_t next_id;

static int malloc_team(void **ptr_arr, armci_size_t bytes, arbor_team_h team)
{
    int rc = armcia_check_init("ARMCI_Malloc");
    if (rc) return rc;
    /* Agree on the id and on whether every member's arguments are good, before allocating. */
    int64_t agree[2] = {next_id, (bytes < 0 || ptr_arr == NULL) ? 1 : 0};
    arbor_status_t st = arbor_allreduce(team, ARBOR_IN_PLACE, agree, 2, ARBOR_INT64, ARBOR_MAX);
    if (st != ARBOR_OK) return armcia_status("ARMCI_Malloc (agreement)", st);
    if (agree[1])
        return armcia_status("ARMCI_Malloc", bytes < 0 ? ARBOR_ERR_COUNT : ARBOR_ERR_BUFFER);
    alloc_t *a = calloc(1, sizeof *a);
    if (!a) return ARBOR_ERR_NO_MEMORY; /* local only: the others fail in arbor_mem_free later */
    st = arbor_mem_alloc_any(team, (size_t)bytes, &a->mem, &a->local);
    if (st != ARBOR_OK) {
        free(a);
        return armcia_status("ARMCI_Malloc", st);
    }
    int size = 0;
    (void)arbor_team_size(team, &size);
    for (int r = 0; r < size; r++) {
        st = arbor_mem_addr(a->mem, r, &ptr_arr[r], NULL);
        if (st != ARBOR_OK) armcia_die("arbor_mem_addr", st);
    }
    a->id = agree[0];
    next_id = agree[0] + 1;
    a->next = allocs;
    allocs = a;
    return 0;
}

static int free_team(void *ptr, arbor_team_h team)
{
    int rc = armcia_check_init("ARMCI_Free");
    if (rc) return rc;
    alloc_t **pp = &allocs;
    int64_t agree[2] = {-1, 0}; /* the allocation's id; "a member passed an unknown pointer" */
    if (ptr) {
        while (*pp && (*pp)->local != ptr) pp = &(*pp)->next;
        if (*pp)
            agree[0] = (*pp)->id;
        else
            agree[1] = 1;
    }
    arbor_status_t st = arbor_allreduce(team, ARBOR_IN_PLACE, agree, 2, ARBOR_INT64, ARBOR_MAX);
    if (st != ARBOR_OK) return armcia_status("ARMCI_Free (agreement)", st);
    if (agree[1] || agree[0] < 0) return armcia_status("ARMCI_Free", ARBOR_ERR_ADDRESS);
    for (pp = &allocs; *pp && (*pp)->id != agree[0]; pp = &(*pp)->next)
        ;
    if (!*pp) return armcia_status("ARMCI_Free", ARBOR_ERR_ADDRESS);
    alloc_t *a = *pp;
    /* Every operation this rank issued must be complete before the space is reused. */
    st = arbor_quiet();
    if (st == ARBOR_OK) st = arbor_mem_free(&a->mem);
    if (st != ARBOR_OK) return armcia_status("ARMCI_Free", st);
    *pp = a->next;
    free(a);
    return 0;
}

/* ARMCI_Malloc / Free span the world, not the default group, as in ARMCI-MPI (Debian's GA is
 * built for it and calls the _group forms where it means a group). */
int PARMCI_Malloc(void **base_ptrs, armci_size_t size)
{
    return malloc_team(base_ptrs, size, ARBOR_TEAM_WORLD);
}

int PARMCI_Free(void *ptr)
{
    return free_team(ptr, ARBOR_TEAM_WORLD);
}

int ARMCI_Malloc_group(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group)
{
    return group ? malloc_team(ptr_arr, bytes, armcia_group_team(group)) : ARBOR_ERR_INVALID_ARG;
}

int ARMCI_Free_group(void *ptr, ARMCI_Group *group)
{
    return group ? free_team(ptr, armcia_group_team(group)) : ARBOR_ERR_INVALID_ARG;
}

/* The memdev forms name a memory device (SICM); arbor has one kind of memory, the heap. */
int PARMCI_Malloc_memdev(void **ptr_arr, armci_size_t bytes, const char *device)
{
    (void)device;
    return PARMCI_Malloc(ptr_arr, bytes);
}

int PARMCI_Malloc_group_memdev(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group,
                               const char *device)
{
    (void)device;
    return ARMCI_Malloc_group(ptr_arr, bytes, group);
}

int PARMCI_Free_memdev(void *ptr)
{
    return PARMCI_Free(ptr);
}

/* Local buffers: arbor's one-sided calls take any local memory as source or destination. */
void *PARMCI_Malloc_local(armci_size_t size)
{
    return size < 0 ? NULL : malloc(size > 0 ? (size_t)size : 1);
}

int PARMCI_Free_local(void *ptr)
{
    free(ptr);
    return 0;
}

/* Allocations still live at ARMCI_Finalize are released with the heap by arbor_finalize. */
void armcia_mem_fini(void)
{
    while (allocs) {
        alloc_t *a = allocs;
        allocs = a->next;
        free(a);
    }
    next_id = 0;
}

/* The public names: weak aliases of the profiling names (armci_arbor.h). */
ARMCIA_PROFILED(ARMCI_Free, PARMCI_Free);
ARMCIA_PROFILED(ARMCI_Free_local, PARMCI_Free_local);
ARMCIA_PROFILED(ARMCI_Free_memdev, PARMCI_Free_memdev);
ARMCIA_PROFILED(ARMCI_Malloc, PARMCI_Malloc);
ARMCIA_PROFILED(ARMCI_Malloc_group_memdev, PARMCI_Malloc_group_memdev);
ARMCIA_PROFILED(ARMCI_Malloc_local, PARMCI_Malloc_local);
ARMCIA_PROFILED(ARMCI_Malloc_memdev, PARMCI_Malloc_memdev);
