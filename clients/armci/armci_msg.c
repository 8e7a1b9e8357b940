/* The armci_msg_* collectives GA uses, over arbor's collectives on the world or a group's
 * team. SCOPE_NODE means this process alone (as in ARMCI-MPI, where each process is its own
 * node domain); SCOPE_MASTERS and SCOPE_ALL mean the whole group. */
#include "armci_arbor.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int armci_msg_me(void)
{
    return armcia_me;
}
int armci_msg_nproc(void)
{
    return armcia_nproc;
}

double armci_timer(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void check(const char *where, arbor_status_t st)
{
    if (st != ARBOR_OK) armcia_die(where, st);
}

void armci_msg_barrier(void)
{
    check("armci_msg_barrier", arbor_barrier(ARBOR_TEAM_WORLD));
}

void armci_msg_group_barrier(ARMCI_Group *group)
{
    check("armci_msg_group_barrier", arbor_barrier(armcia_group_team(group)));
}

static void bcast(int scope, void *buf, int len, int root, ARMCI_Group *group)
{
    if (scope == SCOPE_NODE) return;
    if (len < 0) armcia_die("armci_msg_bcast", ARBOR_ERR_COUNT);
    check("armci_msg_bcast", arbor_bcast(armcia_group_team(group), buf, (size_t)len, root));
}

void armci_msg_bcast(void *buffer, int len, int root)
{
    bcast(SCOPE_ALL, buffer, len, root, NULL);
}
void armci_msg_brdcst(void *buffer, int len, int root)
{
    bcast(SCOPE_ALL, buffer, len, root, NULL);
}
void armci_msg_bcast_scope(int scope, void *buffer, int len, int root)
{
    bcast(scope, buffer, len, root, NULL);
}
void armci_msg_group_bcast_scope(int scope, void *buf, int len, int root, ARMCI_Group *group)
{
    bcast(scope, buf, len, root, group);
}

static int type_of(int type, arbor_dtype_t *dtype, size_t *size)
{
    switch (type) {
    case ARMCI_INT:
        *dtype = ARBOR_INT;
        *size = sizeof(int);
        return 0;
    case ARMCI_LONG:
        *dtype = ARBOR_LONG;
        *size = sizeof(long);
        return 0;
    case ARMCI_LONG_LONG:
        *dtype = ARBOR_LONGLONG;
        *size = sizeof(long long);
        return 0;
    case ARMCI_FLOAT:
        *dtype = ARBOR_FLOAT;
        *size = sizeof(float);
        return 0;
    case ARMCI_DOUBLE:
        *dtype = ARBOR_DOUBLE;
        *size = sizeof(double);
        return 0;
    default:
        return -1;
    }
}

/* absmax / absmin reduce the absolute values, so each contribution is made positive first. */
static void absolute(void *x, int n, int type)
{
    for (int i = 0; i < n; i++) {
        switch (type) {
        case ARMCI_INT:
            ((int *)x)[i] = abs(((int *)x)[i]);
            break;
        case ARMCI_LONG:
            ((long *)x)[i] = labs(((long *)x)[i]);
            break;
        case ARMCI_LONG_LONG:
            ((long long *)x)[i] = llabs(((long long *)x)[i]);
            break;
        case ARMCI_FLOAT:
            ((float *)x)[i] = fabsf(((float *)x)[i]);
            break;
        default:
            ((double *)x)[i] = fabs(((double *)x)[i]);
            break;
        }
    }
}

static void gop(int scope, void *x, int n, const char *op, int type, ARMCI_Group *group)
{
    arbor_dtype_t dtype;
    size_t size;
    if (!op || type_of(type, &dtype, &size) || n < 0)
        armcia_die("armci_msg_gop (type or count)", ARBOR_ERR_DATATYPE);
    arbor_op_t aop;
    int is_abs = 0;
    if (!strcmp(op, "+"))
        aop = ARBOR_SUM;
    else if (!strcmp(op, "*"))
        aop = ARBOR_PROD;
    else if (!strcmp(op, "max"))
        aop = ARBOR_MAX;
    else if (!strcmp(op, "min"))
        aop = ARBOR_MIN;
    else if (!strcmp(op, "absmax"))
        aop = ARBOR_MAX, is_abs = 1;
    else if (!strcmp(op, "absmin"))
        aop = ARBOR_MIN, is_abs = 1;
    else if (!strcmp(op, "or") || !strcmp(op, "||"))
        aop = ARBOR_LOR;
    else if (!strcmp(op, "&&"))
        aop = ARBOR_LAND;
    else {
        fprintf(stderr, "[armci-arbor %d] armci_msg_gop: unknown operation \"%s\"\n", armcia_me,
                op);
        armcia_die("armci_msg_gop", ARBOR_ERR_OP);
    }
    if (is_abs) absolute(x, n, type);
    if (scope == SCOPE_NODE || n == 0) return;
    check("armci_msg_gop",
          arbor_allreduce(armcia_group_team(group), ARBOR_IN_PLACE, x, (size_t)n, dtype, aop));
}

void armci_msg_gop_scope(int scope, void *x, int n, char *op, int type)
{
    gop(scope, x, n, op, type, NULL);
}
void armci_msg_igop(int *x, int n, char *op)
{
    gop(SCOPE_ALL, x, n, op, ARMCI_INT, NULL);
}
void armci_msg_lgop(long *x, int n, char *op)
{
    gop(SCOPE_ALL, x, n, op, ARMCI_LONG, NULL);
}
void armci_msg_llgop(long long *x, int n, char *op)
{
    gop(SCOPE_ALL, x, n, op, ARMCI_LONG_LONG, NULL);
}
void armci_msg_fgop(float *x, int n, char *op)
{
    gop(SCOPE_ALL, x, n, op, ARMCI_FLOAT, NULL);
}
void armci_msg_dgop(double *x, int n, char *op)
{
    gop(SCOPE_ALL, x, n, op, ARMCI_DOUBLE, NULL);
}

void armci_msg_group_gop_scope(int scope, void *x, int n, char *op, int type, ARMCI_Group *group)
{
    gop(scope, x, n, op, type, group);
}
void armci_msg_group_igop(int *x, int n, char *op, ARMCI_Group *group)
{
    gop(SCOPE_ALL, x, n, op, ARMCI_INT, group);
}
void armci_msg_group_lgop(long *x, int n, char *op, ARMCI_Group *group)
{
    gop(SCOPE_ALL, x, n, op, ARMCI_LONG, group);
}
void armci_msg_group_llgop(long long *x, int n, char *op, ARMCI_Group *group)
{
    gop(SCOPE_ALL, x, n, op, ARMCI_LONG_LONG, group);
}
void armci_msg_group_fgop(float *x, int n, char *op, ARMCI_Group *group)
{
    gop(SCOPE_ALL, x, n, op, ARMCI_FLOAT, group);
}
void armci_msg_group_dgop(double *x, int n, char *op, ARMCI_Group *group)
{
    gop(SCOPE_ALL, x, n, op, ARMCI_DOUBLE, group);
}

/* Select: every contributing process offers @p n bytes at @p x whose first element (of
 * @p type) is the key; all receive the contribution with the smallest ("min") or largest
 * ("max") key, the lowest rank's on ties (GA's select_elem). */
static double key_of(const void *x, int type)
{
    switch (type) {
    case ARMCI_INT:
        return *(const int *)x;
    case ARMCI_LONG:
        return (double)*(const long *)x;
    case ARMCI_LONG_LONG:
        return (double)*(const long long *)x;
    case ARMCI_FLOAT:
        return *(const float *)x;
    default:
        return *(const double *)x;
    }
}

void armci_msg_sel_scope(int scope, void *x, int n, char *op, int type, int contribute)
{
    arbor_dtype_t dtype;
    size_t size;
    int is_min = op && !strcmp(op, "min");
    if (!op || (!is_min && strcmp(op, "max")) || type_of(type, &dtype, &size) || n < (int)size)
        armcia_die("armci_msg_sel (operation, type or size)", ARBOR_ERR_OP);
    if (scope == SCOPE_NODE) return;
    size_t rec = sizeof(int64_t) + (size_t)n; /* contribute flag, then the data */
    unsigned char *mine = calloc(1, rec), *all = malloc(rec * (size_t)armcia_nproc);
    if (!mine || !all) armcia_die("armci_msg_sel", ARBOR_ERR_NO_MEMORY);
    *(int64_t *)mine = contribute != 0;
    memcpy(mine + sizeof(int64_t), x, (size_t)n);
    check("armci_msg_sel", arbor_allgather(ARBOR_TEAM_WORLD, mine, all, rec, ARBOR_BYTE));
    int best = -1;
    for (int r = 0; r < armcia_nproc; r++) {
        const unsigned char *e = all + rec * (size_t)r;
        if (!*(const int64_t *)e) continue;
        if (best < 0) {
            best = r;
            continue;
        }
        double k = key_of(e + sizeof(int64_t), type);
        double b = key_of(all + rec * (size_t)best + sizeof(int64_t), type);
        if (is_min ? k < b : k > b) best = r;
    }
    if (best >= 0) memcpy(x, all + rec * (size_t)best + sizeof(int64_t), (size_t)n);
    free(mine);
    free(all);
}

void armci_msg_sel(void *x, int n, char *op, int type, int contribute)
{
    armci_msg_sel_scope(SCOPE_ALL, x, n, op, type, contribute);
}

/* A binary tree over the world, rooted at 0 (-1: no such neighbour). */
void armci_msg_bintree(int scope, int *Root, int *Up, int *Left, int *Right)
{
    int me = armcia_me, n = scope == SCOPE_NODE ? 1 : armcia_nproc;
    if (scope == SCOPE_NODE) me = 0;
    *Root = scope == SCOPE_NODE ? armcia_me : 0;
    *Up = me == 0 ? -1 : (me - 1) / 2;
    *Left = 2 * me + 1 < n ? 2 * me + 1 : -1;
    *Right = 2 * me + 2 < n ? 2 * me + 2 : -1;
}

/* Point-to-point messages: arbor's public API has no tagged send / receive (active messages
 * could carry them; not done). They fail loudly. */
void armci_msg_snd(int tag, void *buffer, int len, int to)
{
    (void)tag, (void)buffer, (void)len, (void)to;
    armcia_die("armci_msg_snd", armcia_unsupported("armci_msg_snd"));
}

void armci_msg_rcv(int tag, void *buffer, int buflen, int *msglen, int from)
{
    (void)tag, (void)buffer, (void)buflen, (void)msglen, (void)from;
    armcia_die("armci_msg_rcv", armcia_unsupported("armci_msg_rcv"));
}

int armci_msg_rcvany(int tag, void *buffer, int buflen, int *msglen)
{
    (void)tag, (void)buffer, (void)buflen, (void)msglen;
    armcia_die("armci_msg_rcvany", armcia_unsupported("armci_msg_rcvany"));
}
