/*
 * PMIx bootstrap: rank and size from the launcher's PMIx server (mpirun, prterun, srun
 * --mpi=pmix alike: only PMIx keys are read, never a launcher's environment), node-local ranks
 * from PMIX_LOCAL_PEERS, and blob exchange through put / commit / fence / get.
 *
 * Lost peers: PMIx process-termination events where the launcher sends them (Open MPI 4.1's
 * ORTE does not: its server fails to notify, "BAD-PARAM in pmix_event_notification.c"), and
 * for ranks on this node a liveness probe of their PIDs (PMIX_PROC_PID), so a rank killed
 * next to us is reported within a fraction of a second whatever the launcher does.
 */
#include <errno.h>
#include <pmix.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "util/log.h"

typedef struct {
    arb_boot_t super;
    pmix_proc_t me;
    int size;
    int *local, nlocal;
    _Atomic unsigned char *lost; /* per rank: set by the event handler or the probe */
    _Atomic unsigned nlost;
    pid_t *pid; /* per rank: the PID of a rank on this node, else 0 */
    double next_probe;
    size_t handler;
    bool has_handler;
} pmix_boot_t;

static pmix_boot_t *self_of(arb_boot_t *b)
{
    return (pmix_boot_t *)b;
}

static int p_rank(arb_boot_t *b)
{
    return (int)self_of(b)->me.rank;
}
static int p_size(arb_boot_t *b)
{
    return self_of(b)->size;
}

static void p_local_ranks(arb_boot_t *b, const int **ranks_p, int *n_p)
{
    *ranks_p = self_of(b)->local;
    *n_p = self_of(b)->nlocal;
}

/*
 * One PMIx session for the life of the process: PMIx_Finalize then PMIx_Init again (arbor_init
 * after arbor_finalize) made fences fail with PARTIAL SUCCESS, and a peer's PMIx_Get could
 * return the blob of the previous session from its cache (stale addresses: no progress). So
 * PMIx is finalized at exit only, and each arbor_init puts its keys under a new session number
 * (the same on every rank: init and finalize are collective).
 */
static bool pmix_up;
static pmix_proc_t pmix_me;
static unsigned session;

static void session_key(const char *key, char *out, size_t len)
{
    snprintf(out, len, "%s.%u", key, session);
}

static void pmix_at_exit(void)
{
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) arb_warn("PMIx_Finalize failed: %s", PMIx_Error_string(rc));
}

static arbor_status_t p_put(arb_boot_t *b, const char *key, const void *data, size_t len)
{
    pmix_value_t v;
    (void)b;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)data;
    v.data.bo.size = len;
    char skey[PMIX_MAX_KEYLEN + 1];
    session_key(key, skey, sizeof(skey));
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, skey, &v);
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

/*
 * Bounded calls: a fence or a get waits for every rank (or for one peer's commit), so a rank that
 * never joins (not started, stuck before arbor_init, dead) would hang init or finalize. They run
 * as PMIx's non-blocking forms, with PMIX_TIMEOUT for servers that honour it, and this rank
 * stops waiting at the bootstrap's timeout whatever the server does. An abandoned call may
 * still complete later on PMIx's thread: the record then belongs to whichever side is last.
 */
enum { CALL_WAITING, CALL_DONE, CALL_ABANDONED };

typedef struct {
    _Atomic int state;
    pmix_status_t status;
    pmix_info_t info[2];
    size_t ninfo;
    pmix_proc_t proc;
    void *bytes; /* get: a copy of the value's bytes (PMIX_BYTE_OBJECT only) */
    size_t len;
    bool is_bytes;
} pmix_call_t;

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void call_free(pmix_call_t *c)
{
    for (size_t i = 0; i < c->ninfo; i++) PMIX_INFO_DESTRUCT(&c->info[i]);
    free(c->bytes);
    free(c);
}

/* A new record whose info carries PMIX_TIMEOUT (whole seconds, rounded up) and extra. */
static pmix_call_t *call_new(const arb_boot_t *b, const pmix_info_t *extra)
{
    pmix_call_t *c = calloc(1, sizeof(*c));
    if (!c) return NULL;
    atomic_init(&c->state, CALL_WAITING);
    if (extra) c->info[c->ninfo++] = *extra;
    if (b->timeout_s > 0) {
        int secs =
            b->timeout_s >= 1e6 ? 1000000 : (int)b->timeout_s + (b->timeout_s > (int)b->timeout_s);
        PMIX_INFO_LOAD(&c->info[c->ninfo], PMIX_TIMEOUT, &secs, PMIX_INT);
        c->ninfo++;
    }
    return c;
}

/* PMIx's thread: the call ended. */
static void call_finish(pmix_call_t *c, pmix_status_t status)
{
    c->status = status;
    if (atomic_exchange(&c->state, CALL_DONE) == CALL_ABANDONED) call_free(c);
}

/* Waits for c until the bootstrap's timeout; true when it ended (c->status says how). On a
 * timeout c is left to PMIx. Short naps: a fence of ranks that all arrived takes milliseconds,
 * and this thread must not hold a core the late ranks need. */
static bool call_wait(const arb_boot_t *b, pmix_call_t *c)
{
    double deadline = b->timeout_s > 0 ? mono_s() + b->timeout_s : 0;
    long nap_ns = 10000;
    while (atomic_load(&c->state) != CALL_DONE) {
        if (deadline && mono_s() > deadline) {
            if (atomic_exchange(&c->state, CALL_ABANDONED) == CALL_DONE) {
                atomic_store(&c->state, CALL_DONE); /* ended meanwhile: still ours */
                return true;
            }
            return false;
        }
        if (b->idle) b->idle(b->idle_arg);
        struct timespec nap = {0, nap_ns};
        nanosleep(&nap, NULL);
        if (nap_ns < 1000000) nap_ns *= 2;
    }
    return true;
}

static void fence_done(pmix_status_t status, void *cbdata)
{
    call_finish(cbdata, status);
}

/* PMIx's answers that mean a process of the job ended (or cannot be reached) while this call
 * waited for it: on a late start, the ranks that gave up first and left. They are told apart
 * from a failure of PMIx itself, so that every rank's error names what happened. */
static bool proc_gone(pmix_status_t rc)
{
    switch (rc) {
    case PMIX_ERR_UNREACH:
    case PMIX_ERR_LOST_CONNECTION:
    case PMIX_ERR_PROC_REQUESTED_ABORT:
    case PMIX_ERR_PROC_TERM_WO_SYNC:
    case PMIX_EVENT_PROC_TERMINATED:
    case PMIX_ERR_PROC_KILLED_BY_CMD:
    case PMIX_ERR_PROC_ABORTED_BY_SIG:
    case PMIX_ERR_EXIT_NONZERO_TERM:
    case PMIX_ERR_JOB_TERM_WO_SYNC:
    case PMIX_ERR_JOB_ABORTED:
        return true;
    default:
        return false;
    }
}

static arbor_status_t p_fence(arb_boot_t *b)
{
    bool collect = true;
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    pmix_call_t *c = call_new(b, &info);
    if (!c) {
        PMIX_INFO_DESTRUCT(&info);
        return ARBOR_ERR_NO_MEMORY;
    }
    PMIX_PROC_LOAD(&c->proc, self_of(b)->me.nspace, PMIX_RANK_WILDCARD);
    pmix_status_t rc = PMIx_Fence_nb(&c->proc, 1, c->info, c->ninfo, fence_done, c);
    if (rc == PMIX_OPERATION_SUCCEEDED) {
        rc = PMIX_SUCCESS; /* done at once, no callback */
    } else if (rc == PMIX_SUCCESS) {
        if (!call_wait(b, c)) {
            arb_error("the bootstrap's fence (every rank of the job) did not complete within %g s "
                      "(ARBOR_TIMEOUT): some rank never reached it (not started, stuck before "
                      "arbor_init or arbor_finalize, or gone); PMIx does not say which",
                      b->timeout_s);
            return ARBOR_ERR_TIMEOUT;
        }
        rc = c->status;
    }
    call_free(c);
    if (rc == PMIX_ERR_TIMEOUT) {
        arb_error("the bootstrap's fence timed out in the PMIx server after %g s (ARBOR_TIMEOUT): "
                  "some rank never reached it",
                  b->timeout_s);
        return ARBOR_ERR_TIMEOUT;
    }
    if (proc_gone(rc)) {
        arb_error("the bootstrap's fence failed: a rank of the job ended before reaching it "
                  "(PMIx: %s); a rank that starts later than ARBOR_TIMEOUT after the others finds "
                  "them gone",
                  PMIx_Error_string(rc));
        return ARBOR_ERR_PEER_LOST;
    }
    if (rc != PMIX_SUCCESS) {
        arb_error("PMIx_Fence failed: %s", PMIx_Error_string(rc));
        return ARBOR_ERR_BOOTSTRAP;
    }
    return ARBOR_OK;
}

static void get_done(pmix_status_t status, pmix_value_t *kv, void *cbdata)
{
    pmix_call_t *c = cbdata;
    /* kv is PMIx's, valid during this call only: copy the bytes out. */
    if (status == PMIX_SUCCESS && kv && kv->type == PMIX_BYTE_OBJECT) {
        c->len = kv->data.bo.size;
        c->bytes = malloc(c->len ? c->len : 1);
        c->is_bytes = c->bytes != NULL;
        if (c->bytes && c->len) memcpy(c->bytes, kv->data.bo.bytes, c->len);
        if (!c->bytes) status = PMIX_ERR_NOMEM;
    }
    call_finish(c, status);
}

static arbor_status_t p_get(arb_boot_t *b, int peer, const char *key, void **data_p, size_t *len_p)
{
    char skey[PMIX_MAX_KEYLEN + 1];
    session_key(key, skey, sizeof(skey));
    pmix_call_t *c = call_new(b, NULL);
    if (!c) return ARBOR_ERR_NO_MEMORY;
    PMIX_PROC_LOAD(&c->proc, self_of(b)->me.nspace, (pmix_rank_t)peer);
    pmix_status_t rc = PMIx_Get_nb(&c->proc, skey, c->info, c->ninfo, get_done, c);
    if (rc == PMIX_SUCCESS && !call_wait(b, c)) {
        arb_error("PMIx_Get of %s from rank %d did not complete within %g s (ARBOR_TIMEOUT): "
                  "rank %d never published it",
                  key, peer, b->timeout_s, peer);
        return ARBOR_ERR_TIMEOUT;
    }
    if (rc == PMIX_SUCCESS) rc = c->status;
    if (rc == PMIX_SUCCESS && !c->is_bytes) rc = PMIX_ERR_TYPE_MISMATCH;
    if (rc != PMIX_SUCCESS) {
        arb_error("PMIx_Get of %s from rank %d failed: %s", key, peer, PMIx_Error_string(rc));
        call_free(c);
        return rc == PMIX_ERR_TIMEOUT ? ARBOR_ERR_TIMEOUT
               : proc_gone(rc)        ? ARBOR_ERR_PEER_LOST
                                      : ARBOR_ERR_BOOTSTRAP;
    }
    *data_p = c->bytes;
    *len_p = c->len;
    c->bytes = NULL;
    call_free(c);
    return ARBOR_OK;
}

/* how: what saw it (one line per lost rank says it, for the user and for the figures of
 * docs/TRANSPORTS.md). */
static void mark_lost(pmix_boot_t *pb, pmix_rank_t r, const char *how)
{
    if (pb->lost && r < (pmix_rank_t)pb->size && r != pb->me.rank &&
        !atomic_exchange(&pb->lost[r], 1)) {
        atomic_fetch_add(&pb->nlost, 1);
        arb_warn("world rank %u is gone (%s)", (unsigned)r, how);
    }
}

/* The bootstrap the event handler and the transports report to (PMIx passes the handler no
 * argument of ours). */
static pmix_boot_t *_Atomic events_for;

void arb_boot_peer_lost(int rank)
{
    arb_boot_peer_gone(rank, "the transport's error path");
}

void arb_boot_peer_gone(int rank, const char *how)
{
    pmix_boot_t *pb = atomic_load(&events_for);
    if (pb && rank >= 0) mark_lost(pb, (pmix_rank_t)rank, how);
}

#define PID_KEY "arbor.pid"

/* At most every 100 ms: is each rank of this node still there? */
static void probe_local(pmix_boot_t *pb)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    if (!pb->pid || now < pb->next_probe) return;
    pb->next_probe = now + 0.1;
    for (int i = 0; i < pb->nlocal; i++) {
        int r = pb->local[i];
        if (r >= 0 && r < pb->size && r != (int)pb->me.rank && pb->pid[r] == 0) {
            /* First probe (after init's fence made the key readable): -1 = unknown. */
            pmix_proc_t proc;
            pmix_value_t *v = NULL;
            PMIX_PROC_LOAD(&proc, pb->me.nspace, (pmix_rank_t)r);
            pb->pid[r] = -1;
            char key[64];
            session_key(PID_KEY, key, sizeof(key));
            if (PMIx_Get(&proc, key, NULL, 0, &v) == PMIX_SUCCESS && v && v->type == PMIX_PID)
                pb->pid[r] = v->data.pid;
            if (v) PMIX_VALUE_RELEASE(v);
        }
        if (r >= 0 && r < pb->size && pb->pid[r] > 0 && kill(pb->pid[r], 0) != 0 && errno == ESRCH)
            mark_lost(pb, (pmix_rank_t)r, "its PID on this node is gone");
    }
}

static unsigned p_losses(arb_boot_t *b)
{
    probe_local(self_of(b));
    return atomic_load(&self_of(b)->nlost);
}

static int p_lost(arb_boot_t *b, int rank)
{
    pmix_boot_t *pb = self_of(b);
    return pb->lost && rank >= 0 && rank < pb->size && atomic_load(&pb->lost[rank]);
}

/* A process of the job ended abnormally (the launcher must keep the job alive, e.g. Open
 * MPI's --mca orte_enable_recovery 1). Runs on PMIx's thread: it only sets atomics. */
static void on_termination(size_t id, pmix_status_t status, const pmix_proc_t *source,
                           pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                           pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    pmix_boot_t *pb = atomic_load(&events_for);
    const pmix_proc_t *who = source;
    (void)id, (void)status, (void)results, (void)nresults;
    for (size_t i = 0; i < ninfo; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && info[i].value.type == PMIX_PROC &&
            info[i].value.data.proc)
            who = info[i].value.data.proc;
    if (pb && who && PMIX_CHECK_NSPACE(who->nspace, pb->me.nspace))
        mark_lost(pb, who->rank, "the launcher's termination event");
    if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void watch_peers(pmix_boot_t *pb)
{
    pb->lost = calloc((size_t)pb->size, sizeof(*pb->lost));
    pb->pid = calloc((size_t)pb->size, sizeof(*pb->pid));
    if (!pb->lost) return;
    /* Our PID for the probe of the ranks next to us, published with init's first exchange
     * (PMIX_PROC_PID of a peer is not served by every launcher). */
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_PID;
    v.data.pid = getpid();
    char key[64];
    session_key(PID_KEY, key, sizeof(key));
    PMIx_Put(PMIX_LOCAL, key, &v);
    /* Abnormal ends only: a rank that finalized and left is not lost, and the others may
     * still be finishing the closing barrier it completed. */
    pmix_status_t codes[] = {PMIX_ERR_PROC_ABORTED_BY_SIG, PMIX_ERR_PROC_TERM_WO_SYNC,
                             PMIX_ERR_EXIT_NONZERO_TERM, PMIX_ERR_PROC_REQUESTED_ABORT};
    atomic_store(&events_for, pb);
    /* Blocking form (no callback): returns the handler's reference, or an error. */
    pmix_status_t rc = PMIx_Register_event_handler(codes, sizeof(codes) / sizeof(codes[0]), NULL, 0,
                                                   on_termination, NULL, NULL);
    if (rc >= 0) pb->handler = (size_t)rc, pb->has_handler = true;
}

static void p_finalize(arb_boot_t *b)
{
    pmix_boot_t *pb = self_of(b);
    if (pb->has_handler) PMIx_Deregister_event_handler(pb->handler, NULL, NULL);
    atomic_store(&events_for, NULL);
    free((void *)pb->lost);
    free(pb->pid);
    free(pb->local);
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
    .losses = p_losses,
    .lost = p_lost,
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
    if (!pmix_up) {
        pmix_status_t rc = PMIx_Init(&pmix_me, NULL, 0);
        if (rc != PMIX_SUCCESS) {
            arb_debug("no PMIx server (%s): running as a one-rank job", PMIx_Error_string(rc));
            free(pb);
            return ARBOR_ERR_UNSUPPORTED;
        }
        pmix_up = true;
        atexit(pmix_at_exit);
    }
    session++;
    pb->me = pmix_me;
    pmix_status_t rc;
    PMIX_PROC_LOAD(&job, pb->me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || !v) {
        arb_error("PMIx_Get of the job size failed: %s", PMIx_Error_string(rc));
        free(pb);
        return ARBOR_ERR_BOOTSTRAP;
    }
    pb->size = v->type == PMIX_UINT32 ? (int)v->data.uint32 : (int)v->data.integer;
    PMIX_VALUE_RELEASE(v);
    load_local_peers(pb);
    watch_peers(pb);
    pb->super.ops = &pmix_ops;
    *boot_p = &pb->super;
    return ARBOR_OK;
}
