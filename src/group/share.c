/* Which ranks share CPUs (share.h). */
#include "group/share.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/context.h"
#include "coll/team.h"

/* FNV-1a: the boot id is 36 characters; any stable 64-bit digest will do. */
static uint64_t hash_text(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s && *s != '\n'; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h ? h : 1;
}

void arb_share_local(arb_share_hdr_t *h)
{
    memset(h, 0, sizeof(*h));
    char id[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (fgets(id, sizeof(id), f) && id[0]) h->kernel = hash_text(id);
        fclose(f);
    }
    cpu_set_t set;
    int n = 0;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        for (int c = 0; c < ARB_SHARE_MASK_WORDS * 64 && c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set)) h->cpus[c / 64] |= 1ull << (c % 64), n++;
    }
    if (n == 0) { /* no affinity: the online CPUs */
        long on = sysconf(_SC_NPROCESSORS_ONLN);
        for (long c = 0; c < on && c < ARB_SHARE_MASK_WORDS * 64; c++)
            h->cpus[c / 64] |= 1ull << (c % 64);
    }
}

void arb_share_free(void)
{
    free(arb_ctx.share_of);
    free(arb_ctx.share_cpus);
    free(arb_ctx.share_ranks);
    arb_ctx.share_of = arb_ctx.share_cpus = arb_ctx.share_ranks = NULL;
    arb_ctx.nshare = 0;
}

arbor_status_t arb_share_number(const arb_share_hdr_t *hdr, const int64_t *leader)
{
    int P = arb_ctx.size;
    uint64_t *key = malloc((size_t)P * sizeof(uint64_t));
    uint64_t(*mask)[ARB_SHARE_MASK_WORDS] = calloc((size_t)P, sizeof(*mask));
    arb_ctx.share_of = malloc((size_t)P * sizeof(int));
    arb_ctx.share_cpus = calloc((size_t)P, sizeof(int));
    arb_ctx.share_ranks = calloc((size_t)P, sizeof(int));
    if (!key || !mask || !arb_ctx.share_of || !arb_ctx.share_cpus || !arb_ctx.share_ranks) {
        free(key), free(mask);
        arb_share_free();
        return ARBOR_ERR_NO_MEMORY;
    }
    /* Groups in order of first appearance, like nodes. */
    arb_ctx.nshare = 0;
    for (int r = 0; r < P; r++) {
        key[r] = hdr[r].kernel ? hdr[r].kernel : (uint64_t)leader[r] | 1ull << 63;
        int g = 0;
        while (g < arb_ctx.nshare && key[arb_ctx.share_ranks[g]] != key[r]) g++;
        if (g == arb_ctx.nshare) arb_ctx.share_ranks[arb_ctx.nshare++] = r; /* first member */
        arb_ctx.share_of[r] = g;
        for (int w = 0; w < ARB_SHARE_MASK_WORDS; w++) mask[g][w] |= hdr[r].cpus[w];
    }
    for (int g = 0; g < arb_ctx.nshare; g++) {
        arb_ctx.share_ranks[g] = 0;
        for (int w = 0; w < ARB_SHARE_MASK_WORDS; w++)
            arb_ctx.share_cpus[g] += __builtin_popcountll(mask[g][w]);
    }
    for (int r = 0; r < P; r++) arb_ctx.share_ranks[arb_ctx.share_of[r]]++;
    free(key), free(mask);
    return ARBOR_OK;
}

bool arb_share_oversubscribed(int group)
{
    return group >= 0 && group < arb_ctx.nshare &&
           arb_ctx.share_ranks[group] > arb_ctx.share_cpus[group];
}

arbor_status_t arb_share_team(struct arbor_team *t, const int *world)
{
    int P = t->size, best = -1;
    double best_load = 0;
    t->topo.shared = NULL;
    t->topo.nshared = 0;
    t->topo.shared_cpus = 0;
    t->topo.wake = arb_ctx.wake_us;
    if (!arb_ctx.share_of || arb_ctx.cfg.oversub_wake <= 0) return ARBOR_OK;
    /* The busiest oversubscribed group by the team's ranks on it per CPU (the first on a tie). */
    int *count = calloc((size_t)arb_ctx.nshare, sizeof(int));
    if (!count) return ARBOR_ERR_NO_MEMORY;
    for (int r = 0; r < P; r++) count[arb_ctx.share_of[world[r]]]++;
    for (int g = 0; g < arb_ctx.nshare; g++) {
        double load = (double)count[g] / arb_ctx.share_cpus[g];
        if (arb_share_oversubscribed(g) && count[g] > 1 && load > best_load)
            best = g, best_load = load;
    }
    if (best >= 0) {
        t->shared = malloc((size_t)count[best] * sizeof(int));
        if (!t->shared) {
            free(count);
            return ARBOR_ERR_NO_MEMORY;
        }
        for (int r = 0; r < P; r++)
            if (arb_ctx.share_of[world[r]] == best) t->shared[t->topo.nshared++] = r;
        t->topo.shared = t->shared;
        t->topo.shared_cpus = arb_ctx.share_cpus[best];
    }
    free(count);
    return ARBOR_OK;
}
