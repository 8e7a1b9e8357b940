/*
 * PMIx bootstrap: rank and size from the launcher's PMIx server (mpirun, prterun, srun
 * --mpi=pmix alike: only PMIx keys are read, never a launcher's environment), node-local ranks
 * from PMIX_LOCAL_PEERS, and blob exchange through put / commit / fence / get.
 */
#include <pmix.h>
#include <stdlib.h>
#include <string.h>

#include "bootstrap/bootstrap.h"
#include "core/log.h"

typedef struct {
    arb_boot_t super;
    pmix_proc_t me;
    int size;
    int *local, nlocal;
} pmix_boot_t;

static pmix_boot_t *self_of(arb_boot_t *b) { return (pmix_boot_t *)b; }

static int p_rank(arb_boot_t *b) { return (int)self_of(b)->me.rank; }
static int p_size(arb_boot_t *b) { return self_of(b)->size; }

static void p_local_ranks(arb_boot_t *b, const int **ranks_p, int *n_p)
{
    *ranks_p = self_of(b)->local;
    *n_p = self_of(b)->nlocal;
}

static arbor_status_t p_put(arb_boot_t *b, const char *key, const void *data, size_t len)
{
    pmix_value_t v;
    (void)b;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)data;
    v.data.bo.size = len;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    if (rc != PMIX_SUCCESS) {
        arb_error("PMIx_Put of %s failed: %s", key, PMIx_Error_string(rc));
        return ARBOR_ERR_BOOTSTRAP;
    }
    return ARBOR_OK;
}

static arbor_status_t p_commit(arb_boot_t *b)
{
    (void)b;
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        arb_error("PMIx_Commit failed: %s", PMIx_Error_string(rc));
        return ARBOR_ERR_BOOTSTRAP;
    }
    return ARBOR_OK;
}

static arbor_status_t p_fence(arb_boot_t *b)
{
    pmix_info_t info;
    bool collect = true;
    pmix_proc_t all;
    PMIX_PROC_LOAD(&all, self_of(b)->me.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(&all, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) {
        arb_error("PMIx_Fence failed: %s", PMIx_Error_string(rc));
        return ARBOR_ERR_BOOTSTRAP;
    }
    return ARBOR_OK;
}

static arbor_status_t p_get(arb_boot_t *b, int peer, const char *key, void **data_p, size_t *len_p)
{
    pmix_proc_t proc;
    pmix_value_t *v = NULL;
    PMIX_PROC_LOAD(&proc, self_of(b)->me.nspace, (pmix_rank_t)peer);
    pmix_status_t rc = PMIx_Get(&proc, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || !v || v->type != PMIX_BYTE_OBJECT) {
        arb_error("PMIx_Get of %s from rank %d failed: %s", key, peer, PMIx_Error_string(rc));
        if (v) PMIX_VALUE_RELEASE(v);
        return ARBOR_ERR_BOOTSTRAP;
    }
    void *copy = malloc(v->data.bo.size ? v->data.bo.size : 1);
    if (!copy) {
        PMIX_VALUE_RELEASE(v);
        return ARBOR_ERR_NO_MEMORY;
    }
    memcpy(copy, v->data.bo.bytes, v->data.bo.size);
    *len_p = v->data.bo.size;
    *data_p = copy;
    PMIX_VALUE_RELEASE(v);
    return ARBOR_OK;
}

static void p_finalize(arb_boot_t *b)
{
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) arb_warn("PMIx_Finalize failed: %s", PMIx_Error_string(rc));
    free(self_of(b)->local);
    free(b);
}

static void p_abort(arb_boot_t *b, int code, const char *msg)
{
    (void)b;
    /* NULL procs: every process of our namespace, i.e. the whole job. */
    pmix_status_t rc = PMIx_Abort(code, msg, NULL, 0);
    if (rc != PMIX_SUCCESS) arb_warn("PMIx_Abort failed: %s", PMIx_Error_string(rc));
}

static const arb_boot_ops_t pmix_ops = {
    .name = "pmix",
    .rank = p_rank,
    .size = p_size,
    .local_ranks = p_local_ranks,
    .put = p_put,
    .commit = p_commit,
    .fence = p_fence,
    .get = p_get,
    .finalize = p_finalize,
    .abort = p_abort,
};

/* Parses PMIX_LOCAL_PEERS ("0,1,2"); on any failure this rank alone is local. */
static void load_local_peers(pmix_boot_t *pb)
{
    pmix_proc_t job;
    pmix_value_t *v = NULL;
    PMIX_PROC_LOAD(&job, pb->me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&job, PMIX_LOCAL_PEERS, NULL, 0, &v) == PMIX_SUCCESS && v &&
        v->type == PMIX_STRING && v->data.string) {
        int n = 1;
        for (const char *c = v->data.string; *c; c++) n += *c == ',';
        pb->local = calloc((size_t)n, sizeof(int));
        if (pb->local) {
            char *save = NULL, *dup = strdup(v->data.string);
            for (char *tok = dup ? strtok_r(dup, ",", &save) : NULL; tok;
                 tok = strtok_r(NULL, ",", &save))
                pb->local[pb->nlocal++] = atoi(tok);
            free(dup);
        }
    }
    if (v) PMIX_VALUE_RELEASE(v);
    if (pb->nlocal == 0) {
        free(pb->local);
        pb->local = malloc(sizeof(int));
        if (pb->local) pb->local[pb->nlocal++] = (int)pb->me.rank;
    }
}

/* ARBOR_ERR_UNSUPPORTED when no PMIx server is reachable (the caller runs a singleton). */
arbor_status_t arb_pmix_open(arb_boot_t **boot_p)
{
    pmix_boot_t *pb = calloc(1, sizeof(*pb));
    pmix_value_t *v = NULL;
    pmix_proc_t job;
    if (!pb) return ARBOR_ERR_NO_MEMORY;
    pmix_status_t rc = PMIx_Init(&pb->me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        arb_debug("no PMIx server (%s): running as a one-rank job", PMIx_Error_string(rc));
        free(pb);
        return ARBOR_ERR_UNSUPPORTED;
    }
    PMIX_PROC_LOAD(&job, pb->me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || !v) {
        arb_error("PMIx_Get of the job size failed: %s", PMIx_Error_string(rc));
        PMIx_Finalize(NULL, 0);
        free(pb);
        return ARBOR_ERR_BOOTSTRAP;
    }
    pb->size = v->type == PMIX_UINT32 ? (int)v->data.uint32 : (int)v->data.integer;
    PMIX_VALUE_RELEASE(v);
    load_local_peers(pb);
    pb->super.ops = &pmix_ops;
    *boot_p = &pb->super;
    return ARBOR_OK;
}
