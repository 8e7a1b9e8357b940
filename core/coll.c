/*
 * Collective entry points: validate, select (cache hit: O(1)), start an instance, and for the
 * blocking flavour wait for it. An initiation never waits for another rank.
 */
#include <stdio.h>
#include <string.h>

#include "core/executor.h"
#include "core/log.h"
#include "core/introspect.h"
#include "core/request.h"

static int forced_alg(arb_coll_t coll)
{
    switch (coll) {
    case ARB_COLL_BARRIER: return arb_ctx.cfg.barrier_alg;
    case ARB_COLL_BCAST: return arb_ctx.cfg.bcast_alg;
    default: return 0;
    }
}

static void print_choice(const arb_coll_args_t *a, int alg, int pinned, const double *predicted)
{
    int n;
    const arb_alg_desc_t *tab = arb_alg_table(a->coll, &n);
    char line[1024];
    size_t len = 0;
    for (int i = 1; i < n && len < sizeof(line); i++)
        len += (size_t)snprintf(line + len, sizeof(line) - len, " %s=%.3gus", tab[i].name,
                                predicted[i]);
    fprintf(stderr, "arbor: %s bytes=%zu ranks=%d root=%d -> %s%s; predicted:%s\n",
            arb_coll_name(a->coll), a->bytes, a->size, a->root, tab[alg].name,
            forced_alg(a->coll) ? " (forced)" : pinned ? " (ARBOR_TUNE)" : "", line);
}

/* Size classes: powers of two. Every size of a class runs the schedule chosen for the class's
 * smallest size, so the choice depends on the class alone and is the same on every rank,
 * whatever each rank's cache has seen. */
static unsigned size_class(size_t bytes)
{
    return bytes ? 64u - (unsigned)__builtin_clzll((unsigned long long)bytes) : 0u;
}

/* The cached schedule for (coll, root, size class) on team, built and cached on a miss. */
static arbor_status_t lookup(struct arbor_team *t, arb_coll_t coll, int root, size_t bytes,
                             arb_cached_sched_t **cs_p, int *alg_p)
{
    unsigned cls = size_class(bytes);
    arb_coll_args_t a = {.coll = coll, .rank = t->rank, .size = t->size, .root = root,
                         .bytes = cls ? (size_t)1 << (cls - 1) : 0, .chunk = t->chunk};
    /* A tune rule matches on the exact size, so it is part of the key. */
    int pinned = forced_alg(coll) ? 0 : arb_tune_match(&arb_ctx.tune, coll, bytes, t->size);
    arb_sched_key_t key = {.coll = coll, .alg = pinned, .root = root, .bytes = cls};
    arb_cached_sched_t *cs = arb_sched_cache_get(&t->cache, &key);
    if (cs) {
        *cs_p = cs;
        *alg_p = cs->alg;
        return ARBOR_OK;
    }

    double t0 = arb_now_us(), predicted[16] = {0};
    int n, alg = arb_select(&a, &arb_ctx.model, forced_alg(coll), predicted);
    if (pinned) alg = pinned;
    const arb_alg_desc_t *tab = arb_alg_table(coll, &n);
    arb_sched_t s;
    arb_sched_init(&s);
    arbor_status_t status = tab[alg].build(&tab[alg], &a, &arb_ctx.model, &s);
    if (status != ARBOR_OK) {
        arb_sched_free(&s);
        arb_error("%s algorithm %s cannot run: %s", arb_coll_name(coll), tab[alg].name,
                  arbor_strerror(status));
        return status == ARBOR_ERR_NO_MEMORY ? status : ARBOR_ERR_ALGORITHM;
    }
    if (arb_ctx.cfg.print_algorithm && t->rank == 0) print_choice(&a, alg, pinned, predicted);
    cs = arb_sched_cache_put(&t->cache, &key, &s);
    if (!cs) {
        arb_sched_free(&s);
        return ARBOR_ERR_NO_MEMORY;
    }
    cs->alg = alg;
    t->cache.build_us += arb_now_us() - t0;
    *cs_p = cs;
    *alg_p = alg;
    return ARBOR_OK;
}

static arbor_status_t check_params(const arbor_op_params_t *params)
{
    if (params && (params->field_mask & ~ARBOR_OP_PARAM_FLAGS)) return ARBOR_ERR_INVALID_ARG;
    if (params && (params->field_mask & ARBOR_OP_PARAM_FLAGS) && params->flags)
        return ARBOR_ERR_FLAGS;
    return ARBOR_OK;
}

static arbor_status_t start(arbor_team_h team, arb_coll_t coll, void *buf, size_t bytes, int root,
                            arb_inst_t **inst_p)
{
    struct arbor_team *t = arb_team_lookup(team);
    arb_cached_sched_t *cs;
    int alg;
    if (!t) return ARBOR_ERR_TEAM;
    arbor_status_t status = lookup(t, coll, root, bytes, &cs, &alg);
    if (status != ARBOR_OK) return status;
    status = arb_exec_start(t, cs, buf, buf, bytes, coll, alg, inst_p);
    if (status != ARBOR_OK) {
        arb_sched_release(cs);
        return status;
    }
    arb_exec_advance(*inst_p); /* the root's first sends go out now */
    return ARBOR_OK;
}

static arbor_status_t run_blocking(arb_inst_t *inst)
{
    arbor_status_t status = arb_exec_wait(inst);
    if (status == ARBOR_ERR_TIMEOUT && !inst->complete) {
        /* Keep the instance alive (peers may still write into our buffers' slots); it is
         * reclaimed at finalize. */
        arb_req_adopt(inst);
        return status;
    }
    arb_exec_free(inst);
    return status;
}

static arbor_status_t check_common(arbor_team_h team)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    return arb_team_lookup(team) ? ARBOR_OK : ARBOR_ERR_TEAM;
}

arbor_status_t arbor_barrier_nb(arbor_team_h team, const arbor_op_params_t *params,
                                arbor_request_h *req_p)
{
    arbor_status_t status = check_common(team);
    arb_inst_t *inst;
    if (status != ARBOR_OK) return status;
    if (!req_p) return ARBOR_ERR_INVALID_ARG;
    if ((status = check_params(params)) != ARBOR_OK) return status;
    if ((status = start(team, ARB_COLL_BARRIER, NULL, 0, 0, &inst)) != ARBOR_OK) return status;
    return arb_req_new(inst, req_p);
}

arbor_status_t arbor_barrier(arbor_team_h team)
{
    arbor_status_t status = check_common(team);
    arb_inst_t *inst;
    if (status != ARBOR_OK) return status;
    if ((status = start(team, ARB_COLL_BARRIER, NULL, 0, 0, &inst)) != ARBOR_OK) return status;
    return run_blocking(inst);
}

static arbor_status_t check_bcast(arbor_team_h team, void *buf, size_t nbytes, int root)
{
    arbor_status_t status = check_common(team);
    if (status != ARBOR_OK) return status;
    if (root < 0 || root >= arb_team_lookup(team)->size) return ARBOR_ERR_ROOT;
    if (!buf && nbytes) return ARBOR_ERR_BUFFER;
    if (nbytes > (size_t)1 << 48) return ARBOR_ERR_COUNT;
    return ARBOR_OK;
}

arbor_status_t arbor_bcast_nb(arbor_team_h team, void *buf, size_t nbytes, int root,
                              const arbor_op_params_t *params, arbor_request_h *req_p)
{
    arbor_status_t status = check_bcast(team, buf, nbytes, root);
    arb_inst_t *inst;
    if (status != ARBOR_OK) return status;
    if (!req_p) return ARBOR_ERR_INVALID_ARG;
    if ((status = check_params(params)) != ARBOR_OK) return status;
    if ((status = start(team, ARB_COLL_BCAST, buf, nbytes, root, &inst)) != ARBOR_OK)
        return status;
    return arb_req_new(inst, req_p);
}

arbor_status_t arbor_bcast(arbor_team_h team, void *buf, size_t nbytes, int root)
{
    arbor_status_t status = check_bcast(team, buf, nbytes, root);
    arb_inst_t *inst;
    if (status != ARBOR_OK) return status;
    if ((status = start(team, ARB_COLL_BCAST, buf, nbytes, root, &inst)) != ARBOR_OK)
        return status;
    return run_blocking(inst);
}

const char *arb_chosen_algorithm(arb_coll_t coll, size_t bytes, int root)
{
    struct arbor_team *t = arb_team_lookup(ARBOR_TEAM_WORLD);
    arb_cached_sched_t *cs;
    int alg, n;
    if (!t || coll >= ARB_COLL_KINDS || root < 0 || root >= t->size) return NULL;
    if (lookup(t, coll, root, bytes, &cs, &alg) != ARBOR_OK) return NULL;
    arb_sched_release(cs);
    return arb_alg_table(coll, &n)[alg].name;
}
