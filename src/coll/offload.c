/*
 * Offload hooks (coll/offload.h, docs/OFFLOAD.md): the ARBOR_OFFLOAD mode, the per-team
 * provider group, the capability view the selector filters candidates by, and the executor's
 * OFFLOAD step.
 *
 * Every member must choose the same algorithm for a call, so the view depends only on what
 * all members share: the mode (a uniform setting), the transport's provider (the same on every
 * rank), the team's group (joined at team creation, where every member takes part) and the
 * call's kind, type, op and size.
 */
#include "coll/offload.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "util/log.h"
#include "coll/team.h"
#include "runtime/tp_call.h"

struct arb_offload_team {
    arb_tp_group_t *group; /* joined provider group (hwcoll), or NULL */
    uint64_t next_ticket;  /* OFFLOAD steps started on the team */
    uint64_t posted;       /* of those, posted to the transport */
    /* triggered programs (the world team only: the transport's counters are per process) */
    bool trig;
    uint64_t completed; /* triggered collectives complete here (they run one at a time) */
    uint64_t bcasts;    /* triggered broadcasts complete here (acknowledged to everyone) */
    uint64_t base[ARB_TP_TRIG_REGIONS]; /* writes each region's counter has seen so far */
    int region;                         /* the one in flight: the region it lands in */
    uint64_t target;                    /* and the count that completes it */
    size_t len;
};

/* Regions of the triggered programs (transport.h): payloads of broadcasts, barrier signals,
 * and acknowledgements (every rank tells every other that it copied a broadcast out of its
 * landing region, and the next broadcast's root waits for all of them before it sends). */
enum { TRIG_DATA = 0, TRIG_BARRIER = 1, TRIG_ACK = 2 };
static arb_tp_comp_t ack_comp; /* acknowledgements in flight: nobody waits for them */

static const char *mode_name(int mode)
{
    static const char *const names[] = {"auto", "off", "triggered", "hwcoll"};
    return mode >= 0 && mode <= ARB_OFFLOAD_HWCOLL ? names[mode] : "?";
}

uint32_t arb_offload_want(const arb_config_t *cfg)
{
    switch (cfg->offload) {
    case ARB_OFFLOAD_AUTO:
        /* Opening provider collectives costs every team a group join, and on tcp;ofi_rxm (the
         * only provider here that has them) an endpoint opened with FI_COLLECTIVE stalled
         * coll at P = 8 even with every collective in software. At the providers' default
         * per-call cost the model never picks them, so auto opens them only when
         * ARBOR_HWCOLL_COST prices the hook. */
        return cfg->hwcoll_cost > 0 ? ARB_TP_CAP_HW_COLL : 0;
    case ARB_OFFLOAD_HWCOLL:
        return ARB_TP_CAP_HW_COLL;
    case ARB_OFFLOAD_TRIGGERED:
        return ARB_TP_CAP_TRIGGERED;
    default:
        return 0;
    }
}

static bool trig_usable(void)
{
    return arb_ctx.cfg.offload == ARB_OFFLOAD_TRIGGERED && arb_ctx.tp_ops->offload &&
           arb_ctx.tp_ops->offload->trig_post && arb_tp_has(ARB_TP_CAP_TRIGGERED);
}

static bool hwcoll_usable(void)
{
    int mode = arb_ctx.cfg.offload;
    return (mode == ARB_OFFLOAD_AUTO || mode == ARB_OFFLOAD_HWCOLL) && arb_ctx.tp_ops->offload &&
           arb_tp_has(ARB_TP_CAP_HW_COLL);
}

arbor_status_t arb_offload_check(void)
{
    int mode = arb_ctx.cfg.offload;
    if (mode == ARB_OFFLOAD_TRIGGERED && !trig_usable()) {
        arb_error("ARBOR_OFFLOAD=triggered: unsupported on transport %s: it offers no triggered "
                  "operations that fire without the process's calls (libfabric FI_TRIGGER and "
                  "FI_RMA_EVENT with automatic progress, provider-independent keys and offsets; "
                  "the sockets provider has them: ARBOR_TRANSPORT=ofi "
                  "ARBOR_OFI_PROVIDER=sockets)",
                  arb_ctx.tp_name);
        return ARBOR_ERR_UNSUPPORTED;
    }
    if (mode == ARB_OFFLOAD_HWCOLL && !hwcoll_usable()) {
        arb_error("ARBOR_OFFLOAD=hwcoll: unsupported on transport %s: it offers no provider "
                  "collectives (libfabric FI_COLLECTIVE with at least fi_barrier; tcp;ofi_rxm "
                  "has them: ARBOR_TRANSPORT=ofi ARBOR_OFI_PROVIDER=\"tcp;ofi_rxm\")",
                  arb_ctx.tp_name);
        return ARBOR_ERR_UNSUPPORTED;
    }
    return ARBOR_OK;
}

static double hwcoll_us; /* the hook's per-call cost on this transport */
static int hwcoll_software;

void arb_offload_model(void)
{
    arb_tp_hints_t hints;
    arb_ctx.tp_ops->hints(arb_ctx.tp_name, &hints);
    hwcoll_us = arb_ctx.cfg.hwcoll_cost > 0 ? arb_ctx.cfg.hwcoll_cost
                : hints.hwcoll_us > 0       ? hints.hwcoll_us
                                            : ARB_LOGP_HWCOLL_CALL_US;
    hwcoll_software = hints.hwcoll_software;
    if (arb_ctx.rank == 0 && (arb_ctx.cfg.stats || arb_ctx.cfg.print_algorithm) && hwcoll_usable())
        fprintf(stderr, "arbor: offload %s: hwcoll per-call cost %g us (%s), %s provider\n",
                mode_name(arb_ctx.cfg.offload), hwcoll_us,
                arb_ctx.cfg.hwcoll_cost > 0 ? "ARBOR_HWCOLL_COST" : "provider default",
                hwcoll_software ? "software" : "switch-offload");
}

void arb_offload_cost(double *us_p, int *software_p)
{
    *us_p = hwcoll_us;
    *software_p = hwcoll_software;
}

static double now_s(void)
{
    return arb_now_us() * 1e-6;
}

arbor_status_t arb_offload_team_init(struct arbor_team *t)
{
    if (trig_usable() && t == arb_ctx.world && t->size >= 2) {
        struct arb_offload_team *o = calloc(1, sizeof(*o));
        if (!o) return ARBOR_ERR_NO_MEMORY;
        o->trig = true;
        /* The counters start at 0 and nothing has written to the regions yet: peers only
         * write there in triggered collectives of this team. */
        t->offload = o;
        return ARBOR_OK;
    }
    if (!hwcoll_usable() || t->size < 2) return ARBOR_OK;
    const arb_tp_offload_ops_t *ops = arb_ctx.tp_ops->offload;
    struct arb_offload_team *o = calloc(1, sizeof(*o));
    if (!o) return ARBOR_ERR_NO_MEMORY;
    arbor_status_t status = ops->group_join(arb_ctx.tp, t->world, t->size, &o->group);
    double limit = arb_ctx.cfg.timeout_s, deadline = now_s() + limit;
    while (status == ARBOR_OK &&
           (status = ops->group_test(arb_ctx.tp, o->group)) == ARB_ERR_AGAIN) {
        status = ARBOR_OK;
        if (limit > 0 && now_s() > deadline) {
            arb_error("joining the provider collective group of a %d-rank team (%s): no "
                      "completion after %.1f s (ARBOR_TIMEOUT)",
                      t->size, arb_ctx.tp_name, limit);
            status = ARBOR_ERR_TIMEOUT;
            break;
        }
        if (arb_ctx.yield) sched_yield();
    }
    if (status != ARBOR_OK) {
        if (o->group) ops->group_free(arb_ctx.tp, o->group);
        free(o);
        return status;
    }
    t->offload = o;
    arb_debug("team of %d ranks joined its %s collective group", t->size, arb_ctx.tp_name);
    return ARBOR_OK;
}

void arb_offload_team_fini(struct arbor_team *t)
{
    struct arb_offload_team *o = t->offload;
    if (!o) return;
    if (o->group && arb_ctx.tp) arb_ctx.tp_ops->offload->group_free(arb_ctx.tp, o->group);
    free(o);
    t->offload = NULL;
}

static bool hw_kind(int coll, arb_tp_hwcoll_t *kind)
{
    switch (coll) {
    case ARB_COLL_BARRIER:
        *kind = ARB_TP_HW_BARRIER;
        return true;
    case ARB_COLL_BCAST:
        *kind = ARB_TP_HW_BCAST;
        return true;
    case ARB_COLL_ALLREDUCE:
        *kind = ARB_TP_HW_ALLREDUCE;
        return true;
    default:
        return false;
    }
}

unsigned arb_offload_caps(const struct arbor_team *t, int coll, size_t count, arbor_dtype_t dtype,
                          arbor_op_t op)
{
    arb_tp_hwcoll_args_t a = {.count = count, .dtype = dtype, .op = op};
    if (t->offload && t->offload->trig) {
        size_t room = 0;
        if (coll == ARB_COLL_BARRIER) return ARB_ALG_NEEDS_TRIGGERED;
        arb_ctx.tp_ops->offload->trig_region(arb_ctx.tp, TRIG_DATA, &room);
        return coll == ARB_COLL_BCAST && count >= 1 && count <= room ? ARB_ALG_NEEDS_TRIGGERED : 0;
    }
    if (!t->offload || !t->offload->group || !hw_kind(coll, &a.kind)) return 0;
    if (a.kind != ARB_TP_HW_BARRIER && count == 0) return 0; /* nothing moves: software */
    if (a.kind == ARB_TP_HW_BCAST) a.dtype = ARBOR_BYTE;
    return arb_ctx.tp_ops->offload->hwcoll_query(arb_ctx.tp, &a, t->size) ? ARB_ALG_NEEDS_HWCOLL
                                                                          : 0;
}

int arb_offload_forced(int coll, unsigned caps)
{
    if (arb_ctx.cfg.offload == ARB_OFFLOAD_HWCOLL && (caps & ARB_ALG_NEEDS_HWCOLL))
        return arb_alg_with_needs((arb_coll_t)coll, ARB_ALG_NEEDS_HWCOLL);
    if (arb_ctx.cfg.offload == ARB_OFFLOAD_TRIGGERED && (caps & ARB_ALG_NEEDS_TRIGGERED))
        return arb_alg_with_needs((arb_coll_t)coll, ARB_ALG_NEEDS_TRIGGERED);
    return 0;
}

uint64_t arb_offload_ticket(struct arbor_team *t)
{
    return t->offload ? t->offload->next_ticket++ : 0;
}

static bool post(arb_inst_t *inst, const arb_step_t *step, arb_step_state_t *st)
{
    struct arb_offload_team *o = inst->team->offload;
    if (!o || !o->group || step->combine != ARB_HOOK_HWCOLL) {
        arb_error("%s: an offloaded step on a team without a provider group", arb_ctx.tp_name);
        inst->status = ARBOR_ERR_UNSUPPORTED;
        return false;
    }
    if (o->posted != st->ticket) return false; /* an earlier offloaded collective goes first */
    size_t elem = inst->elem ? inst->elem : 1;
    arb_tp_hwcoll_args_t a = {.src = inst->buf[step->src_space],
                              .dst = inst->buf[step->space],
                              .count = (size_t)step->bytes * inst->block / elem,
                              .dtype = inst->coll == ARB_COLL_BCAST ? ARBOR_BYTE : inst->dtype,
                              .op = inst->op,
                              .root = step->peer};
    if (!hw_kind(inst->coll, &a.kind)) {
        inst->status = ARBOR_ERR_UNSUPPORTED;
        return false;
    }
    arbor_status_t status =
        arb_ctx.tp_ops->offload->hwcoll_post(arb_ctx.tp, o->group, &a, &st->comp);
    if (status == ARB_ERR_AGAIN) return false;
    if (status != ARBOR_OK) {
        inst->status = status;
        return false;
    }
    o->posted++;
    st->issued = 1;
    return true;
}

/* One triggered write, retried while the transport has no room (its completions free some). */
static arbor_status_t trig_write(const arb_tp_trig_op_t *op, arb_tp_comp_t *comp)
{
    double until = arb_now_us() + 1e6 * (arb_ctx.cfg.timeout_s > 0 ? arb_ctx.cfg.timeout_s : 300);
    for (;;) {
        arbor_status_t status = arb_ctx.tp_ops->offload->trig_post(arb_ctx.tp, op, comp);
        if (status != ARB_ERR_AGAIN) return status;
        if (arb_now_us() > until) return ARBOR_ERR_TIMEOUT;
        arb_tp_progress();
        if (arb_ctx.yield) sched_yield();
    }
}

/*
 * The lowering pass: a schedule whose steps are all SEND / RECV of one payload becomes, for this
 * rank, triggered writes posted at once. A SEND fires when the region's counter has seen the
 * RECVs it waits for: those of the earlier rounds, and the one it depends on in its own round
 * (then the only RECV of that round, or a count could not tell which had arrived). This is
 * exact for schedules whose later messages to a rank are caused by its own earlier sends
 * (broadcast trees, the flat barrier), which are the ones offered; the dissemination barrier is
 * not (a later round's message may arrive first). A SEND that waits for nothing is gated on
 * ack_threshold acknowledgements instead, when given. *recvs_p: the RECVs (the counter's rise
 * that completes the program here).
 */
static arbor_status_t lower_and_post(const struct arbor_team *t, const arb_sched_t *s, int region,
                                     size_t len, uint64_t base, uint64_t ack_threshold,
                                     arb_tp_comp_t *comp, uint64_t *recvs_p)
{
    uint64_t recvs = 0;
    for (int i = 0; i < s->nsteps; i++) {
        const arb_step_t *st = &s->steps[i];
        if ((st->kind != ARB_STEP_SEND && st->kind != ARB_STEP_RECV) || st->combine)
            return ARBOR_ERR_UNSUPPORTED;
        recvs += st->kind == ARB_STEP_RECV;
    }
    for (int i = 0; i < s->nsteps; i++) {
        const arb_step_t *st = &s->steps[i];
        if (st->kind != ARB_STEP_SEND) continue;
        uint64_t before = 0, same = 0;
        for (int j = 0; j < s->nsteps; j++) {
            if (s->steps[j].kind != ARB_STEP_RECV) continue;
            before += s->steps[j].round < st->round;
            same += s->steps[j].round == st->round;
        }
        if (st->dep >= 0 && s->steps[st->dep].kind == ARB_STEP_RECV &&
            s->steps[st->dep].round == st->round) {
            if (same != 1) return ARBOR_ERR_UNSUPPORTED;
            before++;
        }
        arb_tp_trig_op_t op = {.peer = t->world[st->peer],
                               .region = region,
                               .len = len,
                               .gate = region,
                               .threshold = before ? base + before : 0};
        if (!before && ack_threshold) op.gate = TRIG_ACK, op.threshold = ack_threshold;
        arbor_status_t status = trig_write(&op, comp);
        if (status != ARBOR_OK) return status;
    }
    *recvs_p = recvs;
    return ARBOR_OK;
}

static bool trig_post(arb_inst_t *inst, const arb_step_t *step, arb_step_state_t *st)
{
    struct arbor_team *t = inst->team;
    struct arb_offload_team *o = t->offload;
    /* One at a time: a program's landing region and counter base must be free and known. */
    if (o->posted != st->ticket || o->completed != st->ticket) return false;
    arb_coll_args_t a = {.coll = (arb_coll_t)inst->coll,
                         .rank = t->rank,
                         .size = t->size,
                         .root = inst->coll == ARB_COLL_BCAST ? step->peer : 0,
                         .commutative = 1};
    arb_sched_t s;
    arb_sched_init(&s);
    arbor_status_t status = ARBOR_ERR_UNSUPPORTED;
    uint64_t ack_threshold = 0;
    if (inst->coll == ARB_COLL_BCAST) {
        size_t room = 0;
        uint8_t *land = arb_ctx.tp_ops->offload->trig_region(arb_ctx.tp, TRIG_DATA, &room);
        o->region = TRIG_DATA;
        o->len = (size_t)step->bytes * inst->block;
        a.bytes = a.chunk = o->len;
        status = o->len <= room ? arb_bcast_tree_build(&a, &arb_ctx.model, ARB_TREE_BINOMIAL, 2, &s)
                                : ARBOR_ERR_UNSUPPORTED;
        /* The root lands its own payload, and sends only when every rank has acknowledged
         * the previous broadcast (its landing region is free again everywhere). */
        if (status == ARBOR_OK && t->rank == step->peer)
            memcpy(land, inst->buf[step->space], o->len);
        ack_threshold = o->bcasts * (uint64_t)(t->size - 1);
    } else if (inst->coll == ARB_COLL_BARRIER) {
        int n, flat = 0;
        const arb_alg_desc_t *tab = arb_alg_table(ARB_COLL_BARRIER, &n);
        for (int i = 1; i < n; i++)
            if (!strcmp(tab[i].name, "flat")) flat = i;
        o->region = TRIG_BARRIER;
        o->len = 1;
        if (flat) status = tab[flat].build(&tab[flat], &a, &arb_ctx.model, &s);
    }
    uint64_t recvs = 0;
    if (status == ARBOR_OK)
        status = lower_and_post(t, &s, o->region, o->len, o->base[o->region], ack_threshold,
                                &st->comp, &recvs);
    arb_sched_free(&s);
    if (status != ARBOR_OK) {
        arb_error("triggered %s: %s", arb_coll_name((arb_coll_t)inst->coll),
                  arbor_strerror(status));
        inst->status = status;
        return false;
    }
    o->target = o->base[o->region] + recvs;
    o->posted++;
    st->issued = 1;
    return true;
}

static bool trig_advance(arb_inst_t *inst, const arb_step_t *step, arb_step_state_t *st,
                         bool *moved)
{
    struct arbor_team *t = inst->team;
    struct arb_offload_team *o = t->offload;
    if (!st->issued) {
        if (!trig_post(inst, step, st)) return false;
        *moved = true;
    }
    if (__atomic_load_n(&st->comp.pending, __ATOMIC_ACQUIRE) != 0) return false;
    if (arb_ctx.tp_ops->offload->trig_count(arb_ctx.tp, o->region) < o->target) return false;
    if (st->comp.status != ARBOR_OK && inst->status == ARBOR_OK) inst->status = st->comp.status;
    o->base[o->region] = o->target;
    if (inst->coll == ARB_COLL_BCAST) {
        size_t room;
        const uint8_t *land = arb_ctx.tp_ops->offload->trig_region(arb_ctx.tp, TRIG_DATA, &room);
        if (t->rank != step->peer) memcpy(inst->buf[step->space], land, o->len);
        /* Our landing region is free for the next broadcast: tell everyone. */
        for (int r = 0; r < t->size && inst->status == ARBOR_OK; r++) {
            if (r == t->rank) continue;
            arb_tp_trig_op_t ack = {
                .peer = t->world[r], .region = TRIG_ACK, .len = 1, .gate = TRIG_ACK};
            arbor_status_t status = trig_write(&ack, &ack_comp);
            if (status != ARBOR_OK) inst->status = status;
        }
        o->bcasts++;
    }
    o->completed++;
    st->done = 1;
    *moved = true;
    return true;
}

bool arb_offload_advance(arb_inst_t *inst, const arb_step_t *step, arb_step_state_t *st,
                         bool *moved)
{
    if (st->done) return true;
    if (step->combine == ARB_HOOK_TRIGGERED) return trig_advance(inst, step, st, moved);
    if (!st->issued) {
        if (!post(inst, step, st)) return false;
        *moved = true;
    }
    if (__atomic_load_n(&st->comp.pending, __ATOMIC_ACQUIRE) != 0) return false;
    if (st->comp.status != ARBOR_OK && inst->status == ARBOR_OK) inst->status = st->comp.status;
    st->done = 1;
    *moved = true;
    return true;
}

void arb_offload_print_stats(void)
{
    unsigned long long path[3] = {0, 0, 0}; /* software, hwcoll, triggered */
    for (int c = 0; c < ARB_COLL_KINDS; c++) {
        int n;
        const arb_alg_desc_t *tab = arb_alg_table((arb_coll_t)c, &n);
        for (int a = 1; a < n && a < 16; a++) {
            unsigned needs = tab[a].needs;
            int p = needs & ARB_ALG_NEEDS_HWCOLL ? 1 : needs & ARB_ALG_NEEDS_TRIGGERED ? 2 : 0;
            path[p] += arb_ctx.stats[c][a].calls;
        }
    }
    fprintf(stderr,
            "arbor stats %d/%d: offload mode=%s collectives software=%llu hwcoll=%llu "
            "triggered=%llu\n",
            arb_ctx.rank, arb_ctx.size, mode_name(arb_ctx.cfg.offload), path[0], path[1], path[2]);
}
