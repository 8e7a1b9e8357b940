/*
 * Offload hooks (core/offload.h, docs/OFFLOAD.md): the ARBOR_OFFLOAD mode, the per-team
 * provider group, the capability view the selector filters candidates by, and the executor's
 * OFFLOAD step.
 *
 * Every member must choose the same algorithm for a call, so the view depends only on what
 * all members share: the mode (a uniform setting), the transport's provider (the same on every
 * rank), the team's group (joined at team creation, where every member takes part) and the
 * call's kind, type, op and size.
 */
#include "core/offload.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/context.h"
#include "core/log.h"
#include "core/team.h"

struct arb_offload_team {
    arb_tp_group_t *group; /* joined provider group (hwcoll), or NULL */
    uint64_t next_ticket;  /* OFFLOAD steps started on the team */
    uint64_t posted;       /* of those, posted to the transport */
};

static const char *mode_name(int mode)
{
    static const char *const names[] = {"auto", "off", "triggered", "hwcoll"};
    return mode >= 0 && mode <= ARB_OFFLOAD_HWCOLL ? names[mode] : "?";
}

uint32_t arb_offload_want(const arb_config_t *cfg)
{
    switch (cfg->offload) {
    case ARB_OFFLOAD_AUTO:
    case ARB_OFFLOAD_HWCOLL:
        return ARB_TP_CAP_HW_COLL;
    case ARB_OFFLOAD_TRIGGERED:
        return ARB_TP_CAP_TRIGGERED;
    default:
        return 0;
    }
}

static bool hwcoll_usable(void)
{
    int mode = arb_ctx.cfg.offload;
    return (mode == ARB_OFFLOAD_AUTO || mode == ARB_OFFLOAD_HWCOLL) && arb_ctx.tp_ops->offload &&
           (arb_ctx.tp_ops->caps(arb_ctx.tp) & ARB_TP_CAP_HW_COLL);
}

arbor_status_t arb_offload_check(void)
{
    int mode = arb_ctx.cfg.offload;
    if (mode == ARB_OFFLOAD_TRIGGERED) {
        arb_error("ARBOR_OFFLOAD=triggered: unsupported on transport %s: the triggered-operation "
                  "hook is not built in this version (the sockets provider's FI_TRIGGER writes "
                  "fire only under FI_PROGRESS_AUTO, tests/probe_trigger.c; the counter "
                  "programs, their lowering and landing flow control are missing); use "
                  "ARBOR_OFFLOAD=auto, off or hwcoll (docs/OFFLOAD.md)",
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
    hwcoll_us = arb_ctx.cfg.hwcoll_cost > 0 ? arb_ctx.cfg.hwcoll_cost
                                            : arb_logp_hwcoll_default(arb_ctx.tp_name);
    hwcoll_software = arb_logp_hwcoll_software(arb_ctx.tp_name);
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

bool arb_offload_advance(arb_inst_t *inst, const arb_step_t *step, arb_step_state_t *st,
                         bool *moved)
{
    if (st->done) return true;
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
