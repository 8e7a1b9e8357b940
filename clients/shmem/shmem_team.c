/*
 * Teams over arbor's teams (strided and 2-D splits are arbor's own layouts, translation is
 * arbor_team_translate), and contexts over arbor's contexts (README.md, "Contexts").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmem_internal.h"

struct shmem_team_s shm_team_world, shm_team_shared;
shmem_team_t SHMEM_TEAM_WORLD = &shm_team_world;
shmem_team_t SHMEM_TEAM_SHARED = &shm_team_shared;

int shm_team_fill(struct shmem_team_s *t, arbor_team_h h)
{
    t->arbor = h;
    if (arbor_team_rank(h, &t->my_pe) != ARBOR_OK || arbor_team_size(h, &t->n_pes) != ARBOR_OK)
        return -1;
    t->world_of = malloc(sizeof(int) * (size_t)t->n_pes);
    t->member_of = malloc(sizeof(int) * (size_t)shm.npes);
    if (!t->world_of || !t->member_of) return -1;
    for (int pe = 0; pe < shm.npes; pe++) t->member_of[pe] = -1;
    for (int r = 0; r < t->n_pes; r++) {
        if (arbor_team_world_rank(h, r, &t->world_of[r]) != ARBOR_OK) return -1;
        t->member_of[t->world_of[r]] = r;
    }
    return 0;
}

static void team_release(struct shmem_team_s *t)
{
    free(t->world_of);
    free(t->member_of);
    t->world_of = t->member_of = NULL;
}

int shm_team_init_predefined(void)
{
    memset(&shm_team_world, 0, sizeof shm_team_world);
    memset(&shm_team_shared, 0, sizeof shm_team_shared);
    shm_team_world.predefined = shm_team_shared.predefined = true;
    if (shm_team_fill(&shm_team_world, ARBOR_TEAM_WORLD) != 0) return -1;
    /* The PEs of this node: arbor names the node ("<node> <ranks on it>"). */
    char node[64] = "0";
    int color = 0;
    if (arbor_info_get("topology.node", node, sizeof node) == ARBOR_OK) color = atoi(node);
    if (color < 0) color = 0;
    arbor_team_h shared = ARBOR_TEAM_NULL;
    if (arbor_team_split(ARBOR_TEAM_WORLD, color, shm.me, &shared) != ARBOR_OK) return -1;
    return shm_team_fill(&shm_team_shared, shared);
}

void shm_team_fini_predefined(void)
{
    if (shm_team_shared.arbor) arbor_team_free(&shm_team_shared.arbor);
    team_release(&shm_team_shared);
    team_release(&shm_team_world);
}

static bool team_ok(shmem_team_t team)
{
    return shm.initialized && team && team->world_of;
}

int shmem_team_my_pe(shmem_team_t team)
{
    return team_ok(team) ? team->my_pe : -1;
}

int shmem_team_n_pes(shmem_team_t team)
{
    return team_ok(team) ? team->n_pes : -1;
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    if (!team_ok(team) || !config) return -1;
    if (config_mask & ~SHMEM_TEAM_NUM_CONTEXTS) return -1;
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS) config->num_contexts = team->config.num_contexts;
    return 0;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    if (!team_ok(src_team) || !team_ok(dest_team)) return -1;
    int pe = -1;
    if (arbor_team_translate(src_team->arbor, src_pe, dest_team->arbor, &pe) != ARBOR_OK) return -1;
    return pe;
}

/* Wraps the arbor team a layout call made (ARBOR_TEAM_NULL: not a member). Returns 0 with
 * *new_team the caller's team or SHMEM_TEAM_INVALID; nonzero on failure (the same on every
 * member: arbor's layouts fail everywhere or nowhere). */
static int wrap(arbor_status_t st, arbor_team_h h, const shmem_team_config_t *config,
                long config_mask, shmem_team_t *new_team)
{
    if (st != ARBOR_OK) {
        fprintf(stderr, "shmem team split: %s\n", arbor_strerror(st));
        return -1;
    }
    if (h == ARBOR_TEAM_NULL) return 0;
    struct shmem_team_s *t = calloc(1, sizeof *t);
    if (!t || shm_team_fill(t, h) != 0) shm_fatal("shmem team split", "out of memory");
    if (config && (config_mask & SHMEM_TEAM_NUM_CONTEXTS)) t->config = *config;
    t->config_mask = config_mask;
    *new_team = t;
    return 0;
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team)
{
    if (!new_team) return -1;
    *new_team = SHMEM_TEAM_INVALID;
    if (!team_ok(parent_team)) return -1;
    /* OpenSHMEM lets PEs outside a new team pass other layouts (each PE of a team of one, say,
     * names itself); arbor's strided split takes one layout for the whole parent. Where the
     * PEs disagree, each team is made from its members' own layout by a colour split: a PE
     * joins at most one team, so the team's first member (its start) tells teams apart. */
    int mine[6] = {start, -start, stride, -stride, size, -size}, agreed[6];
    arbor_status_t st = arbor_allreduce(parent_team->arbor, mine, agreed, 6, ARBOR_INT, ARBOR_MAX);
    if (st != ARBOR_OK) return wrap(st, ARBOR_TEAM_NULL, NULL, 0, new_team);
    arbor_team_h h = ARBOR_TEAM_NULL;
    bool same = true;
    for (int i = 0; i < 6; i += 2) same = same && agreed[i] == -agreed[i + 1];
    if (same) {
        st = arbor_team_split_strided(parent_team->arbor, start, stride, size, &h);
        return wrap(st, h, config, config_mask, new_team);
    }
    int me = parent_team->my_pe, n = parent_team->n_pes, color = -1, key = 0;
    bool valid = size >= 1 && (stride != 0 || size == 1) && start >= 0 && start < n &&
                 (long)start + (long)(size - 1) * stride >= 0 &&
                 (long)start + (long)(size - 1) * stride < n;
    for (int i = 0; valid && i < size; i++)
        if ((long)start + (long)i * stride == me) {
            color = start;
            key = i;
            break;
        }
    st = arbor_team_split(parent_team->arbor, color, key, &h);
    if (st == ARBOR_OK && !valid) {
        if (h != ARBOR_TEAM_NULL) arbor_team_free(&h);
        return -1;
    }
    return wrap(st, h, config, config_mask, new_team);
}

int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team)
{
    if (!xaxis_team || !yaxis_team) return -1;
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    if (!team_ok(parent_team) || xrange <= 0) return -1;
    arbor_team_h x = ARBOR_TEAM_NULL, y = ARBOR_TEAM_NULL;
    arbor_status_t st = arbor_team_split_2d(parent_team->arbor, xrange, &x, &y);
    if (wrap(st, x, xaxis_config, xaxis_mask, xaxis_team) != 0) return -1;
    return wrap(st, y, yaxis_config, yaxis_mask, yaxis_team);
}

void shmem_team_destroy(shmem_team_t team)
{
    if (!team_ok(team)) return;
    if (team->predefined) shm_fatal("shmem_team_destroy", "a predefined team cannot be destroyed");
    if (team->contexts) shm_fatal("shmem_team_destroy", "contexts of the team are still alive");
    shm_check(arbor_quiet(), "shmem_team_destroy");
    shm_check(arbor_team_free(&team->arbor), "shmem_team_destroy");
    team_release(team);
    free(team);
}

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    if (!team_ok(team) || pe < 0 || pe >= team->n_pes) return NULL;
    return shmem_ptr(dest, team->world_of[pe]);
}

/* ---- contexts ----------------------------------------------------------------------------- */

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    if (!ctx) return -1;
    *ctx = SHMEM_CTX_INVALID;
    if (!team_ok(team)) return -1;
    if (options & ~(SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE)) return -1;
    struct shmem_ctx_s *c = calloc(1, sizeof *c);
    if (!c) return -1;
    /* PRIVATE is arbor's private context (one thread: no lock on the mapped path and for an
     * idle quiet); SERIALIZED and NOSTORE change nothing arbor would do differently. */
    unsigned flags = (options & SHMEM_CTX_PRIVATE) ? ARBOR_CTX_PRIVATE : 0;
    if (arbor_ctx_create(team->arbor, flags, &c->arbor) != ARBOR_OK) {
        free(c);
        return -1;
    }
    c->team = team;
    c->options = options;
    __atomic_add_fetch(&team->contexts, 1, __ATOMIC_RELAXED);
    *ctx = c;
    return 0;
}

int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    return shmem_team_create_ctx(SHMEM_TEAM_WORLD, options, ctx);
}

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
    if (!ctx || ctx == SHMEM_CTX_DEFAULT) return;
    /* Destroying a context completes its operations (arbor_ctx_destroy quiets it). */
    shm_check(arbor_ctx_destroy(&ctx->arbor), "shmem_ctx_destroy");
    __atomic_sub_fetch(&ctx->team->contexts, 1, __ATOMIC_RELAXED);
    free(ctx);
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    if (!team) return -1;
    if (!ctx) {
        *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    *team = ctx->team;
    return 0;
}
