/* The armci_msg_* collectives GA uses, over arbor's collectives on the team of a scope
 * (armci_scope.c): SCOPE_ALL the group, SCOPE_NODE the group's processes on this node,
 * SCOPE_MASTERS each node's first process. Roots are absolute (world) ranks, as in ARMCI-MPI. */
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

void parmci_msg_barrier(void)
{
    check("armci_msg_barrier", arbor_barrier(ARBOR_TEAM_WORLD));
}

void parmci_msg_group_barrier(ARMCI_Group *group)
{
    check("armci_msg_group_barrier", arbor_barrier(armcia_group_team(group)));
}
ARMCIA_PROFILED(armci_msg_barrier, parmci_msg_barrier);
ARMCIA_PROFILED(armci_msg_group_barrier, parmci_msg_group_barrier);

static void open_scope(const char *where, int scope, ARMCI_Group *group, armcia_scope_t *sc)
{
    int st = armcia_scope_open(scope, group, sc);
    if (st != ARBOR_OK) armcia_die(where, st);
}

static void bcast(int scope, void *buf, int len, int root, ARMCI_Group *group)
{
    if (len < 0) armcia_die("armci_msg_bcast", ARBOR_ERR_COUNT);
    armcia_scope_t sc;
    open_scope("armci_msg_bcast", scope, group, &sc);
    int team_root = armcia_scope_rank_of(&sc, root);
    if (team_root < 0) armcia_die("armci_msg_bcast (root not in the scope)", ARBOR_ERR_ROOT);
    if (sc.team != ARBOR_TEAM_NULL)
        check("armci_msg_bcast", arbor_bcast(sc.team, buf, (size_t)len, team_root));
    armcia_scope_close(&sc);
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

/* ARMCI's operation names; absmax / absmin reduce absolute values (made positive first). */
static arbor_op_t reduction_of(const char *where, const char *op, int *is_abs)
{
    static const struct {
        const char *name;
        arbor_op_t op;
        int is_abs;
    } ops[] = {{"+", ARBOR_SUM, 0},   {"*", ARBOR_PROD, 0},     {"max", ARBOR_MAX, 0},
               {"min", ARBOR_MIN, 0}, {"absmax", ARBOR_MAX, 1}, {"absmin", ARBOR_MIN, 1},
               {"or", ARBOR_LOR, 0},  {"||", ARBOR_LOR, 0},     {"&&", ARBOR_LAND, 0}};
    for (size_t i = 0; op && i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(op, ops[i].name)) {
            *is_abs = ops[i].is_abs;
            return ops[i].op;
        }
    fprintf(stderr, "[armci-arbor %d] %s: unknown operation \"%s\"\n", armcia_me, where,
            op ? op : "(null)");
    armcia_die(where, ARBOR_ERR_OP);
}

static void gop(int scope, void *x, int n, const char *op, int type, ARMCI_Group *group)
{
    arbor_dtype_t dtype;
    size_t size;
    if (type_of(type, &dtype, &size) || n < 0)
        armcia_die("armci_msg_gop (type or count)", ARBOR_ERR_DATATYPE);
    int is_abs;
    arbor_op_t aop = reduction_of("armci_msg_gop", op, &is_abs);
    if (is_abs) absolute(x, n, type);
    armcia_scope_t sc;
    open_scope("armci_msg_gop", scope, group, &sc);
    if (sc.team != ARBOR_TEAM_NULL && n > 0)
        check("armci_msg_gop", arbor_allreduce(sc.team, ARBOR_IN_PLACE, x, (size_t)n, dtype, aop));
    armcia_scope_close(&sc);
}

/* Reduce to the scope's first process (world rank 0 for SCOPE_ALL, the node's first rank for
 * SCOPE_NODE): only its x receives the result; the others' x keep their contribution (after the
 * absolute value of absmax / absmin). ARMCI-MPI declares these calls but aborts in them. */
static void reduce(int scope, void *x, int n, const char *op, int type)
{
    arbor_dtype_t dtype;
    size_t size;
    if (type_of(type, &dtype, &size) || n < 0)
        armcia_die("armci_msg_reduce (type or count)", ARBOR_ERR_DATATYPE);
    int is_abs;
    arbor_op_t aop = reduction_of("armci_msg_reduce", op, &is_abs);
    if (is_abs) absolute(x, n, type);
    armcia_scope_t sc;
    open_scope("armci_msg_reduce", scope, NULL, &sc);
    if (sc.team != ARBOR_TEAM_NULL && n > 0) {
        void *scratch = sc.rank == 0 ? NULL : malloc((size_t)n * size);
        if (sc.rank != 0 && !scratch) armcia_die("armci_msg_reduce", ARBOR_ERR_NO_MEMORY);
        check("armci_msg_reduce",
              arbor_reduce(sc.team, sc.rank == 0 ? ARBOR_IN_PLACE : x, sc.rank == 0 ? x : scratch,
                           (size_t)n, dtype, aop, 0));
        free(scratch);
    }
    armcia_scope_close(&sc);
}

void armci_msg_reduce(void *x, int n, char *op, int type)
{
    reduce(SCOPE_ALL, x, n, op, type);
}
void armci_msg_reduce_scope(int scope, void *x, int n, char *op, int type)
{
    reduce(scope, x, n, op, type);
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
    /* Records lie at any byte offset of the gathered buffer: read the key by copying it. */
    switch (type) {
    case ARMCI_INT: {
        int v;
        memcpy(&v, x, sizeof v);
        return v;
    }
    case ARMCI_LONG: {
        long v;
        memcpy(&v, x, sizeof v);
        return (double)v;
    }
    case ARMCI_LONG_LONG: {
        long long v;
        memcpy(&v, x, sizeof v);
        return (double)v;
    }
    case ARMCI_FLOAT: {
        float v;
        memcpy(&v, x, sizeof v);
        return v;
    }
    default: {
        double v;
        memcpy(&v, x, sizeof v);
        return v;
    }
    }
}

void armci_msg_sel_scope(int scope, void *x, int n, char *op, int type, int contribute)
{
    arbor_dtype_t dtype;
    size_t size;
    int is_min = op && !strcmp(op, "min");
    if (!op || (!is_min && strcmp(op, "max")) || type_of(type, &dtype, &size) || n < (int)size)
        armcia_die("armci_msg_sel (operation, type or size)", ARBOR_ERR_OP);
    armcia_scope_t sc;
    open_scope("armci_msg_sel", scope, NULL, &sc);
    if (sc.team == ARBOR_TEAM_NULL) { /* this process alone: its own contribution stands */
        armcia_scope_close(&sc);
        return;
    }
    size_t rec = sizeof(int64_t) + (size_t)n; /* contribute flag, then the data */
    unsigned char *mine = calloc(1, rec), *all = malloc(rec * (size_t)sc.size);
    if (!mine || !all) armcia_die("armci_msg_sel", ARBOR_ERR_NO_MEMORY);
    int64_t flag = contribute != 0;
    memcpy(mine, &flag, sizeof flag);
    memcpy(mine + sizeof(int64_t), x, (size_t)n);
    check("armci_msg_sel", arbor_allgather(sc.team, mine, all, rec, ARBOR_BYTE));
    int best = -1;
    for (int r = 0; r < sc.size; r++) {
        const unsigned char *e = all + rec * (size_t)r;
        memcpy(&flag, e, sizeof flag);
        if (!flag) continue;
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
    armcia_scope_close(&sc);
}

void armci_msg_sel(void *x, int n, char *op, int type, int contribute)
{
    armci_msg_sel_scope(SCOPE_ALL, x, n, op, type, contribute);
}

/* A binary tree over the scope's processes in their order (world ranks; -1: no such
 * neighbour), rooted at its first: world rank 0, the node's first rank, or node 0's. */
void armci_msg_bintree(int scope, int *Root, int *Up, int *Left, int *Right)
{
    if (!Root || !Up || !Left || !Right) armcia_die("armci_msg_bintree", ARBOR_ERR_INVALID_ARG);
    armcia_scope_t sc;
    open_scope("armci_msg_bintree", scope, NULL, &sc);
    int me = sc.rank, n = sc.size;
    *Root = sc.members[0];
    *Up = me == 0 ? -1 : sc.members[(me - 1) / 2];
    *Left = 2 * me + 1 < n ? sc.members[2 * me + 1] : -1;
    *Right = 2 * me + 2 < n ? sc.members[2 * me + 2] : -1;
    armcia_scope_close(&sc);
}
