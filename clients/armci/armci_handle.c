/* Non-blocking handles (armci_hdl_t), Wait / Test / WaitProc / WaitAll, Fence / AllFence and
 * Barrier. armci_hdl_t holds two ints, so it names a slot of this table: target = slot + 1
 * (0: none), aggregate = generation << 1 | aggregate flag; a stale generation means "already
 * completed". An aggregate handle collects every operation started under it until a Wait. */
#include "armci_arbor.h"

#include <stdlib.h>

typedef struct {
    arbor_request_h req;
    int proc;
} entry_t;

typedef struct {
    int used;
    unsigned gen;
    entry_t *ops;
    size_t nops, cap;
    void **keep; /* descriptors freed when the slot completes */
    size_t nkeep;
} slot_t;

typedef struct {
    int proc;
    void *ptr;
} kept_t;

static slot_t *slots;
static size_t nslots;
static kept_t *implicit_keep; /* descriptors of implicit operations, freed by the fences */
static size_t nimplicit;

#define AGG_FLAG 1

static slot_t *lookup(const armci_hdl_t *hdl)
{
    if (!hdl || hdl->target <= 0 || (size_t)hdl->target > nslots) return NULL;
    slot_t *s = &slots[hdl->target - 1];
    if (!s->used || s->gen != ((unsigned)hdl->aggregate >> 1)) return NULL;
    return s;
}

static slot_t *new_slot(armci_hdl_t *hdl)
{
    size_t i = 0;
    while (i < nslots && slots[i].used) i++;
    if (i == nslots) {
        size_t n = nslots ? 2 * nslots : 16;
        slot_t *grown = realloc(slots, n * sizeof *grown);
        if (!grown) armcia_die("handle table", ARBOR_ERR_NO_MEMORY);
        for (size_t j = nslots; j < n; j++) grown[j] = (slot_t){0};
        slots = grown;
        nslots = n;
    }
    slot_t *s = &slots[i];
    s->used = 1;
    s->gen = (s->gen + 1) & 0x3fffffffu;
    s->nops = 0;
    s->nkeep = 0;
    hdl->target = (int)i + 1;
    hdl->aggregate = (int)(s->gen << 1) | (hdl->aggregate & AGG_FLAG);
    return s;
}

arbor_request_h *armcia_hdl_slot(armci_hdl_t *hdl, int proc)
{
    if (!hdl) return NULL;
    slot_t *s = (hdl->aggregate & AGG_FLAG) ? lookup(hdl) : NULL;
    if (!s) s = new_slot(hdl);
    if (s->nops == s->cap) {
        size_t n = s->cap ? 2 * s->cap : 4;
        entry_t *grown = realloc(s->ops, n * sizeof *grown);
        if (!grown) armcia_die("handle table", ARBOR_ERR_NO_MEMORY);
        s->ops = grown;
        s->cap = n;
    }
    s->ops[s->nops] = (entry_t){.req = NULL, .proc = proc};
    return &s->ops[s->nops++].req;
}

static void release(slot_t *s)
{
    for (size_t i = 0; i < s->nkeep; i++) free(s->keep[i]);
    free(s->keep);
    s->keep = NULL;
    s->nkeep = 0;
    s->nops = 0;
    s->used = 0;
}

int armcia_hdl_started(armci_hdl_t *hdl, arbor_status_t status)
{
    if (!hdl || status == ARBOR_OK) return armcia_status("ARMCI_Nb*", status);
    slot_t *s = lookup(hdl);
    if (s) {
        s->nops--; /* the entry of the call that failed to start */
        if (s->nops == 0 && s->nkeep == 0) release(s);
    }
    return armcia_status("ARMCI_Nb*", status);
}

void armcia_hdl_keep(armci_hdl_t *hdl, int proc, void *ptr)
{
    slot_t *s = lookup(hdl);
    void ***list = s ? &s->keep : NULL;
    if (s) {
        void **grown = realloc(*list, (s->nkeep + 1) * sizeof *grown);
        if (!grown) armcia_die("handle table", ARBOR_ERR_NO_MEMORY);
        *list = grown;
        grown[s->nkeep++] = ptr;
        return;
    }
    kept_t *grown = realloc(implicit_keep, (nimplicit + 1) * sizeof *grown);
    if (!grown) armcia_die("handle table", ARBOR_ERR_NO_MEMORY);
    implicit_keep = grown;
    implicit_keep[nimplicit++] = (kept_t){.proc = proc, .ptr = ptr};
}

/* After a fence to @p proc (< 0: every rank) the implicit descriptors to it can go. */
static void drop_implicit(int proc)
{
    size_t kept = 0;
    for (size_t i = 0; i < nimplicit; i++) {
        if (proc < 0 || implicit_keep[i].proc == proc)
            free(implicit_keep[i].ptr);
        else
            implicit_keep[kept++] = implicit_keep[i];
    }
    nimplicit = kept;
}

static int wait_slot(slot_t *s)
{
    arbor_status_t first = ARBOR_OK;
    for (size_t i = 0; i < s->nops; i++) {
        if (!s->ops[i].req) continue;
        arbor_status_t st = arbor_wait(&s->ops[i].req);
        if (st != ARBOR_OK && first == ARBOR_OK) first = st;
    }
    release(s);
    return armcia_status("ARMCI_Wait", first);
}

void ARMCI_INIT_HANDLE(armci_hdl_t *hdl)
{
    if (hdl) {
        hdl->target = 0;
        hdl->aggregate = 0;
    }
}

void ARMCI_SET_AGGREGATE_HANDLE(armci_hdl_t *handle)
{
    if (handle) handle->aggregate |= AGG_FLAG;
}

void ARMCI_UNSET_AGGREGATE_HANDLE(armci_hdl_t *handle)
{
    if (handle) handle->aggregate &= ~AGG_FLAG;
}

int PARMCI_Wait(armci_hdl_t *hdl)
{
    if (!hdl) return armcia_status("ARMCI_Wait", ARBOR_ERR_HANDLE);
    slot_t *s = lookup(hdl);
    if (!s) return 0; /* completed by an earlier Wait / Test / WaitAll */
    int rc = wait_slot(s);
    hdl->target = 0;
    return rc;
}

/* 0 when complete (the handle is then done), 1 while in progress, < 0 on failure. */
int PARMCI_Test(armci_hdl_t *hdl)
{
    if (!hdl) return armcia_status("ARMCI_Test", ARBOR_ERR_HANDLE);
    slot_t *s = lookup(hdl);
    if (!s) return 0;
    for (size_t i = 0; i < s->nops; i++) {
        if (!s->ops[i].req) continue;
        arbor_status_t st = arbor_test(&s->ops[i].req);
        if (st == ARBOR_INPROGRESS) return 1;
        if (st != ARBOR_OK) {
            int rc = wait_slot(s);
            hdl->target = 0;
            return rc ? rc : armcia_status("ARMCI_Test", st);
        }
    }
    release(s);
    hdl->target = 0;
    return 0;
}

int armcia_hdl_wait_proc(int proc)
{
    arbor_status_t first = ARBOR_OK;
    for (size_t i = 0; i < nslots; i++) {
        slot_t *s = &slots[i];
        if (!s->used) continue;
        int all = 1;
        for (size_t j = 0; j < s->nops; j++) {
            if (s->ops[j].req && (proc < 0 || s->ops[j].proc == proc)) {
                arbor_status_t st = arbor_wait(&s->ops[j].req);
                if (st != ARBOR_OK && first == ARBOR_OK) first = st;
            }
            all &= s->ops[j].req == NULL;
        }
        if (all) release(s);
    }
    arbor_status_t st = proc < 0 ? arbor_quiet() : arbor_fence(proc);
    if (first == ARBOR_OK) first = st;
    if (st == ARBOR_OK) drop_implicit(proc);
    return armcia_status(proc < 0 ? "ARMCI_WaitAll" : "ARMCI_WaitProc", first);
}

int PARMCI_WaitProc(int proc)
{
    if (proc < 0 || proc >= armcia_nproc) return armcia_status("ARMCI_WaitProc", ARBOR_ERR_RANK);
    return armcia_hdl_wait_proc(proc);
}

int PARMCI_WaitAll(void)
{
    return armcia_hdl_wait_proc(-1);
}

void PARMCI_Fence(int proc)
{
    arbor_status_t st = arbor_fence(proc);
    if (st != ARBOR_OK) armcia_die("ARMCI_Fence", st);
    drop_implicit(proc);
}

void PARMCI_AllFence(void)
{
    arbor_status_t st = arbor_quiet();
    if (st != ARBOR_OK) armcia_die("ARMCI_AllFence", st);
    drop_implicit(-1);
}

void PARMCI_Barrier(void)
{
    PARMCI_AllFence();
    arbor_status_t st = arbor_barrier(ARBOR_TEAM_WORLD);
    if (st != ARBOR_OK) armcia_die("ARMCI_Barrier", st);
}

void armcia_hdl_fini(void)
{
    for (size_t i = 0; i < nslots; i++) {
        release(&slots[i]);
        free(slots[i].ops);
    }
    free(slots);
    slots = NULL;
    nslots = 0;
    drop_implicit(-1);
    free(implicit_keep);
    implicit_keep = NULL;
}

/* The public names: weak aliases of the profiling names (armci_arbor.h). */
ARMCIA_PROFILED(ARMCI_AllFence, PARMCI_AllFence);
ARMCIA_PROFILED(ARMCI_Barrier, PARMCI_Barrier);
ARMCIA_PROFILED(ARMCI_Fence, PARMCI_Fence);
ARMCIA_PROFILED(ARMCI_Test, PARMCI_Test);
ARMCIA_PROFILED(ARMCI_Wait, PARMCI_Wait);
ARMCIA_PROFILED(ARMCI_WaitAll, PARMCI_WaitAll);
ARMCIA_PROFILED(ARMCI_WaitProc, PARMCI_WaitProc);
