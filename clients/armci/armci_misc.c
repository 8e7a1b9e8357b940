/* Topology (each process its own SMP domain, as in ARMCI-MPI: arbor's public API does not say
 * which ranks share a node), shared-memory queries, scalar transfers and local helpers. */
#include "armci_arbor.h"

#include <string.h>

int armci_domain_nprocs(armci_domain_t domain, int id)
{
    (void)domain;
    return id >= 0 && id < armcia_nproc ? 1 : 0;
}
int armci_domain_id(armci_domain_t domain, int glob_proc_id)
{
    (void)domain;
    return glob_proc_id;
}
int armci_domain_glob_proc_id(armci_domain_t domain, int id, int loc_proc_id)
{
    (void)domain;
    return loc_proc_id == 0 ? id : -1;
}
int armci_domain_my_id(armci_domain_t domain)
{
    (void)domain;
    return armcia_me;
}
int armci_domain_count(armci_domain_t domain)
{
    (void)domain;
    return armcia_nproc;
}
int armci_domain_same_id(armci_domain_t domain, int proc)
{
    (void)domain;
    return proc == armcia_me;
}
int ARMCI_Same_node(int proc)
{
    return proc == armcia_me;
}

/* GA asks whether it may load / store other processes' memory directly: never here (every
 * remote access goes through arbor). */
int ARMCI_Uses_shm(void)
{
    return 0;
}
int ARMCI_Uses_shm_grp(ARMCI_Group *group)
{
    (void)group;
    return 0;
}
void ARMCI_Set_shm_limit(unsigned long shmemlimit)
{
    (void)shmemlimit; /* the heap's size is ARBOR_SEGMENT_SIZE, fixed at arbor_init */
}

/* Direct local access to this process's own allocation: always coherent with arbor's
 * one-sided traffic once it is fenced, so there is nothing to lock. */
void ARMCI_Access_begin(void *ptr)
{
    (void)ptr;
}
void ARMCI_Access_end(void *ptr)
{
    (void)ptr;
}

void ARMCI_Copy(void *src, void *dst, int size)
{
    if (size > 0) memmove(dst, src, (size_t)size);
}

/* Local strided copies between a strided region at @p ptr and a packed buffer. */
static void strided_copy(char *ptr, int level, const int *stride_arr, const int *count, char **buf,
                         int to_buf)
{
    if (level == 0) {
        if (to_buf)
            memcpy(*buf, ptr, (size_t)count[0]);
        else
            memcpy(ptr, *buf, (size_t)count[0]);
        *buf += count[0];
        return;
    }
    for (int i = 0; i < count[level]; i++)
        strided_copy(ptr + (ptrdiff_t)i * stride_arr[level - 1], level - 1, stride_arr, count, buf,
                     to_buf);
}

void armci_write_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf)
{
    strided_copy(ptr, stride_levels, stride_arr, count, &buf, 0);
}

void armci_read_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf)
{
    strided_copy(ptr, stride_levels, stride_arr, count, &buf, 1);
}

#define PUT_VALUE(name, nbname, type)                                                              \
    int name(type src, void *dst, int proc)                                                        \
    {                                                                                              \
        return ARMCI_Put(&src, dst, sizeof src, proc);                                             \
    }                                                                                              \
    int nbname(type src, void *dst, int proc, armci_hdl_t *hdl)                                    \
    {                                                                                              \
        if (hdl) /* the value is on this stack frame: completed before returning */                \
            hdl->target = 0;                                                                       \
        return ARMCI_Put(&src, dst, sizeof src, proc);                                             \
    }
PUT_VALUE(ARMCI_PutValueInt, ARMCI_NbPutValueInt, int)
PUT_VALUE(ARMCI_PutValueLong, ARMCI_NbPutValueLong, long)
PUT_VALUE(ARMCI_PutValueFloat, ARMCI_NbPutValueFloat, float)
PUT_VALUE(ARMCI_PutValueDouble, ARMCI_NbPutValueDouble, double)

#define GET_VALUE(name, type)                                                                      \
    type name(void *src, int proc)                                                                 \
    {                                                                                              \
        type v = 0;                                                                                \
        int rc = ARMCI_Get(src, &v, sizeof v, proc);                                               \
        if (rc) armcia_die(#name, rc);                                                             \
        return v;                                                                                  \
    }
GET_VALUE(ARMCI_GetValueInt, int)
GET_VALUE(ARMCI_GetValueLong, long)
GET_VALUE(ARMCI_GetValueFloat, float)
GET_VALUE(ARMCI_GetValueDouble, double)
