/* Shared-memory queries, scalar transfers and local helpers. */
#include "armci_arbor.h"

#include <string.h>

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
void PARMCI_Access_begin(void *ptr)
{
    (void)ptr;
}
void PARMCI_Access_end(void *ptr)
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

/* ARMCI's names are from the message's point of view: "write" packs the strided region at
 * @p ptr into @p buf (to send it), "read" unpacks a received @p buf into the region (GA's ghost
 * updates rely on exactly this). */
void armci_write_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf)
{
    strided_copy(ptr, stride_levels, stride_arr, count, &buf, 1);
}

void armci_read_strided(void *ptr, int stride_levels, int stride_arr[], int count[], char *buf)
{
    strided_copy(ptr, stride_levels, stride_arr, count, &buf, 0);
}

#define PUT_VALUE(name, nbname, type)                                                              \
    int name(type src, void *dst, int proc)                                                        \
    {                                                                                              \
        return PARMCI_Put(&src, dst, sizeof src, proc);                                            \
    }                                                                                              \
    int nbname(type src, void *dst, int proc, armci_hdl_t *hdl)                                    \
    {                                                                                              \
        if (hdl) /* the value is on this stack frame: completed before returning */                \
            hdl->target = 0;                                                                       \
        return PARMCI_Put(&src, dst, sizeof src, proc);                                            \
    }
PUT_VALUE(PARMCI_PutValueInt, PARMCI_NbPutValueInt, int)
PUT_VALUE(PARMCI_PutValueLong, PARMCI_NbPutValueLong, long)
PUT_VALUE(PARMCI_PutValueFloat, PARMCI_NbPutValueFloat, float)
PUT_VALUE(PARMCI_PutValueDouble, PARMCI_NbPutValueDouble, double)

#define GET_VALUE(name, type)                                                                      \
    type name(void *src, int proc)                                                                 \
    {                                                                                              \
        type v = 0;                                                                                \
        int rc = PARMCI_Get(src, &v, sizeof v, proc);                                              \
        if (rc) armcia_die(#name, rc);                                                             \
        return v;                                                                                  \
    }
GET_VALUE(PARMCI_GetValueInt, int)
GET_VALUE(PARMCI_GetValueLong, long)
GET_VALUE(PARMCI_GetValueFloat, float)
GET_VALUE(PARMCI_GetValueDouble, double)

/* The public names: weak aliases of the profiling names (armci_arbor.h). */
ARMCIA_PROFILED(ARMCI_Access_begin, PARMCI_Access_begin);
ARMCIA_PROFILED(ARMCI_Access_end, PARMCI_Access_end);
ARMCIA_PROFILED(ARMCI_GetValueDouble, PARMCI_GetValueDouble);
ARMCIA_PROFILED(ARMCI_GetValueFloat, PARMCI_GetValueFloat);
ARMCIA_PROFILED(ARMCI_GetValueInt, PARMCI_GetValueInt);
ARMCIA_PROFILED(ARMCI_GetValueLong, PARMCI_GetValueLong);
ARMCIA_PROFILED(ARMCI_NbPutValueDouble, PARMCI_NbPutValueDouble);
ARMCIA_PROFILED(ARMCI_NbPutValueFloat, PARMCI_NbPutValueFloat);
ARMCIA_PROFILED(ARMCI_NbPutValueInt, PARMCI_NbPutValueInt);
ARMCIA_PROFILED(ARMCI_NbPutValueLong, PARMCI_NbPutValueLong);
ARMCIA_PROFILED(ARMCI_PutValueDouble, PARMCI_PutValueDouble);
ARMCIA_PROFILED(ARMCI_PutValueFloat, PARMCI_PutValueFloat);
ARMCIA_PROFILED(ARMCI_PutValueInt, PARMCI_PutValueInt);
ARMCIA_PROFILED(ARMCI_PutValueLong, PARMCI_PutValueLong);
