/*
 * arbor_init / arbor_finalize: configuration, bootstrap, transport selection and wiring, the
 * model, the world team; and the orderly teardown that lets every peer finish first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/context.h"
#include "core/executor.h"
#include "core/log.h"
#include "core/measure.h"
#include "core/offload.h"
#include "core/request.h"
#include "core/rma/am.h"
#include "core/rma/rma.h"
#include "core/team.h"

arb_ctx_t arb_ctx;

/* What every rank publishes: its transport's name, a hash of the configuration values that
 * must agree, then the transport's own blob. */
typedef struct {
    char transport[32];
    uint64_t uniform_hash;
    uint64_t oversubscribed; /* this rank's node has more ranks than cores */
    int64_t node_leader;     /* lowest rank on this rank's node (PMIx local peers) */
    uint64_t seg_base;       /* the segment's address (remote addresses of the heap) */
} wire_header_t;

static uint64_t uniform_hash(const arb_config_t *c)
{
    const char *fields[] = {c->ofi_provider, c->logp, c->tune};
    uint64_t h = 1469598103934665603ull,
             vals[] = {(uint64_t)c->transport, c->segment_size,
                       c->chunk_size,          (uint64_t)c->channel_depth,
                       (uint64_t)c->direct,    (uint64_t)c->logp_measure,
                       (uint64_t)c->check,     (uint64_t)(c->oversub_wake * 1000)};
    for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
        h = (h ^ vals[i]) * 1099511628211ull;
    for (int i = 0; i < ARB_COLL_KINDS; i++) h = (h ^ (uint64_t)c->coll_alg[i]) * 1099511628211ull;
    for (size_t i = 0; i < 3; i++)
        for (const char *p = fields[i]; *p; p++) h = (h ^ (uint8_t)*p) * 1099511628211ull;
    return h;
}

static int local_count(void)
{
    const int *local;
    int nlocal;
    arb_ctx.boot->ops->local_ranks(arb_ctx.boot, &local, &nlocal);
    return nlocal;
}

static arbor_status_t open_transport(void)
{
    arb_tp_params_t p = {.rank = arb_ctx.rank,
                         .size = arb_ctx.size,
                         .segment_size = arb_ctx.cfg.segment_size,
                         .nlocal = local_count(),
                         .config = &arb_ctx.cfg,
                         .offload_want = arb_offload_want(&arb_ctx.cfg)};
    static const char *const wanted[] = {NULL, "ucx", "ofi"};
    const char *want = wanted[arb_ctx.cfg.transport];
    arbor_status_t status = ARBOR_ERR_UNSUPPORTED;

    for (const arb_tp_ops_t *const *o = arb_tp_registry; *o; o++) {
        if (want && strcmp(want, (*o)->name)) continue;
        status = (*o)->open(&p, &arb_ctx.tp);
        if (status == ARBOR_OK) {
            arb_ctx.tp_ops = *o;
            arb_ctx.tp_name = (*o)->describe(arb_ctx.tp);
            return ARBOR_OK;
        }
        arb_debug("transport %s did not open: %s", (*o)->name, arbor_strerror(status));
        if (want) break;
    }
    arb_error("no transport opened (%s%s): %s", want ? "ARBOR_TRANSPORT=" : "tried every one",
              want ? want : "", arbor_strerror(status));
    return status == ARBOR_ERR_UNSUPPORTED && want ? ARBOR_ERR_UNSUPPORTED : ARBOR_ERR_TRANSPORT;
}

static int node_leader(void)
{
    const int *local;
    int nlocal, low = arb_ctx.rank;
    arb_ctx.boot->ops->local_ranks(arb_ctx.boot, &local, &nlocal);
    for (int i = 0; i < nlocal; i++)
        if (local[i] < low) low = local[i];
    return low;
}

/* Node indices in order of first appearance: identical on every rank, since every rank read the
 * same headers. */
static arbor_status_t number_nodes(const int64_t *leader)
{
    int n = arb_ctx.size;
    arb_ctx.node_of = malloc((size_t)n * sizeof(int));
    int *index_of = malloc((size_t)n * sizeof(int));
    if (!arb_ctx.node_of || !index_of) {
        free(index_of);
        return ARBOR_ERR_NO_MEMORY;
    }
    for (int r = 0; r < n; r++) index_of[r] = -1;
    arb_ctx.nnodes = 0;
    for (int r = 0; r < n; r++) {
        int l = leader[r] >= 0 && leader[r] < n ? (int)leader[r] : r;
        if (index_of[l] < 0) index_of[l] = arb_ctx.nnodes++;
        arb_ctx.node_of[r] = index_of[l];
    }
    free(index_of);
    return ARBOR_OK;
}

static bool oversubscribed(void)
{
    const int *local;
    int nlocal;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    arb_ctx.boot->ops->local_ranks(arb_ctx.boot, &local, &nlocal);
    return cpus > 0 && nlocal > cpus;
}

/* "nodes 3: 0-1 | 2-3 | 4-5" and the inter-node model, when the job spans nodes. */
static void print_topology(void)
{
    int mapped = 0;
    for (int r = 0; arb_ctx.world && r < arb_ctx.size; r++)
        mapped += arb_ctx.world->peer_region[r] != NULL;
    fprintf(stderr, "arbor: %d of %d ranks' segments mapped here (loads and stores)\n", mapped,
            arb_ctx.size);
    if (arb_ctx.nnodes < 2) {
        fprintf(stderr, "arbor: topology: 1 node, %d ranks\n", arb_ctx.size);
        return;
    }
    fprintf(stderr, "arbor: topology: %d nodes:", arb_ctx.nnodes);
    for (int n = 0; n < arb_ctx.nnodes && n < 16; n++) {
        fprintf(stderr, "%s", n ? " |" : "");
        for (int r = 0, shown = 0; r < arb_ctx.size && shown < 8; r++)
            if (arb_ctx.node_of[r] == n) fprintf(stderr, " %d", r), shown++;
    }
    fprintf(stderr, "%s; inter-node LogGP L=%g os=%g or=%g g=%g G=%g\n",
            arb_ctx.nnodes > 16 ? " ..." : "", arb_ctx.model_inter.L, arb_ctx.model_inter.os,
            arb_ctx.model_inter.orecv, arb_ctx.model_inter.g, arb_ctx.model_inter.G);
}

/* Exchanges blobs, checks that every rank agrees, and wires the transport. */
static arbor_status_t wire_up(void)
{
    const void *blob;
    size_t blob_len;
    arbor_status_t status = arb_ctx.tp_ops->blob(arb_ctx.tp, &blob, &blob_len);
    if (status != ARBOR_OK) return status;

    size_t len = sizeof(wire_header_t) + blob_len;
    uint8_t *mine = calloc(1, len);
    if (!mine) return ARBOR_ERR_NO_MEMORY;
    wire_header_t hdr = {.uniform_hash = uniform_hash(&arb_ctx.cfg),
                         .oversubscribed = arb_ctx.node_oversubscribed,
                         .node_leader = node_leader(),
                         .seg_base = (uint64_t)(uintptr_t)arb_ctx.seg};
    snprintf(hdr.transport, sizeof(hdr.transport), "%s", arb_ctx.tp_ops->name);
    memcpy(mine, &hdr, sizeof(hdr));
    memcpy(mine + sizeof(hdr), blob, blob_len);

    void **all;
    size_t *lens;
    status = arb_boot_allgather(arb_ctx.boot, "arbor.wire", mine, len, &all, &lens);
    free(mine);
    if (status != ARBOR_OK) return status;

    const void **blobs = calloc((size_t)arb_ctx.size, sizeof(*blobs));
    size_t *blens = calloc((size_t)arb_ctx.size, sizeof(*blens));
    int64_t *leaders = calloc((size_t)arb_ctx.size, sizeof(*leaders));
    arb_ctx.seg_bases = calloc((size_t)arb_ctx.size, sizeof(*arb_ctx.seg_bases));
    if (!blobs || !blens || !leaders || !arb_ctx.seg_bases) status = ARBOR_ERR_NO_MEMORY;
    for (int r = 0; status == ARBOR_OK && r < arb_ctx.size; r++) {
        wire_header_t h;
        if (lens[r] < sizeof(h)) {
            status = ARBOR_ERR_BOOTSTRAP;
            break;
        }
        memcpy(&h, all[r], sizeof(h));
        if (strncmp(h.transport, hdr.transport, sizeof(h.transport))) {
            arb_error("rank %d opened transport %.31s but this rank opened %s: set "
                      "ARBOR_TRANSPORT the same on every rank",
                      r, h.transport, hdr.transport);
            status = ARBOR_ERR_TRANSPORT;
        } else if (h.uniform_hash != hdr.uniform_hash) {
            arb_error("rank %d has different ARBOR_* values for settings that must match on "
                      "every rank (transport, segment, chunk, depth, algorithms, LogP)",
                      r);
            status = ARBOR_ERR_CONFIG;
        }
        if (h.oversubscribed) arb_ctx.any_oversubscribed = true;
        leaders[r] = h.node_leader;
        arb_ctx.seg_bases[r] = h.seg_base;
        blobs[r] = (const uint8_t *)all[r] + sizeof(h);
        blens[r] = lens[r] - sizeof(h);
    }
    if (status == ARBOR_OK) status = number_nodes(leaders);
    if (status == ARBOR_OK) status = arb_ctx.tp_ops->connect(arb_ctx.tp, blobs, blens);
    free(leaders);
    free(blobs);
    free(blens);
    arb_boot_free_all(arb_ctx.boot, all, lens);
    return status;
}

static void teardown(void)
{
    arb_progress_thread_stop();
    arb_req_cleanup();
    arb_exec_cleanup();
    arb_team_destroy_all();
    arb_team_destroy(arb_ctx.world);
    arb_am_fini();
    arb_rma_fini();
    free(arb_ctx.seg_bases);
    if (arb_ctx.tp) arb_ctx.tp_ops->close(arb_ctx.tp);
    arb_exec_release_kept();
    if (arb_ctx.boot) arb_ctx.boot->ops->finalize(arb_ctx.boot);
    free(arb_ctx.images);
    free(arb_ctx.node_of);
    memset(&arb_ctx, 0, sizeof(arb_ctx));
}

arbor_status_t arbor_init(void)
{
    char err[512], warn[1024];
    arbor_status_t status;

    if (arb_ctx.init_count > 0) {
        arb_ctx.init_count++;
        return ARBOR_OK;
    }
    memset(&arb_ctx, 0, sizeof(arb_ctx));
    status = arb_config_parse(&arb_ctx.cfg, err, sizeof(err), warn, sizeof(warn));
    if (status != ARBOR_OK) {
        fprintf(stderr, "arbor: init failed: %s\n", err);
        return status;
    }
    arb_log_level = arb_ctx.cfg.log_level;

    if ((status = arb_boot_open(&arb_ctx.boot)) != ARBOR_OK) {
        arb_error("bootstrap failed: %s", arbor_strerror(status));
        return status;
    }
    arb_ctx.rank = arb_ctx.boot->ops->rank(arb_ctx.boot);
    arb_ctx.size = arb_ctx.boot->ops->size(arb_ctx.boot);
    arb_log_set_identity(arb_ctx.rank, arb_ctx.size);
    if (warn[0] && arb_ctx.cfg.warn_unknown && arb_ctx.rank == 0)
        arb_warn("unknown ARBOR_* variables ignored: %s (ARBOR_WARN_UNKNOWN=n silences this)",
                 warn);
    arb_ctx.node_oversubscribed = oversubscribed();
    arb_ctx.yield = arb_ctx.cfg.poll_yield == ARB_YIELD_ALWAYS ||
                    (arb_ctx.cfg.poll_yield == ARB_YIELD_AUTO && arb_ctx.node_oversubscribed);

    if ((status = open_transport()) != ARBOR_OK) goto err;
    if ((status = arb_offload_check()) != ARBOR_OK) goto err;
    arb_ctx.seg = arb_ctx.tp_ops->seg_base(arb_ctx.tp);
    arb_ctx.seg_size = arb_ctx.cfg.segment_size;
    if ((status = wire_up()) != ARBOR_OK) goto err;
    if ((status = arb_rma_init()) != ARBOR_OK) goto err;

    arb_logp_default(arb_ctx.tp_name, &arb_ctx.model);
    arb_logp_default_inter(arb_ctx.tp_name, &arb_ctx.model_inter);
    if (arb_ctx.cfg.logp[0] &&
        arb_logp_parse_levels(arb_ctx.cfg.logp, &arb_ctx.model, &arb_ctx.model_inter, err,
                              sizeof(err)) != ARBOR_OK) {
        arb_error("invalid value '%s' for ARBOR_LOGP: %s", arb_ctx.cfg.logp, err);
        status = ARBOR_ERR_CONFIG;
        goto err;
    }
    arb_ctx.model_source = arb_ctx.cfg.logp[0] ? "ARBOR_LOGP" : "transport defaults";
    /* Every rank saw every header, so all add the same term and build the same trees. */
    if (!arb_ctx.cfg.logp[0] && arb_ctx.any_oversubscribed && arb_ctx.cfg.oversub_wake > 0) {
        arb_ctx.model.L += arb_ctx.cfg.oversub_wake;
        arb_ctx.model_source = "transport defaults + ARBOR_OVERSUB_WAKE (oversubscribed node)";
    }
    /* Oversubscribed and not tuned by hand: pin the barrier to flat. Measured with 4 ranks
     * on 2 cores it takes one context switch like direct (10.6 vs 10.5 us) and dissemination's
     * good runs, but rank 0 releases everyone and so leaves first: a collective rooted at 0
     * that follows has sent before its receivers wake (an 8-byte bcast after it: 0.16 us,
     * against 10.4 us after a direct barrier). */
    const char *tune = arb_ctx.cfg.tune;
    if (!tune[0] && !arb_ctx.cfg.logp[0] && arb_ctx.any_oversubscribed &&
        arb_ctx.cfg.oversub_wake > 0)
        tune = "barrier:0-inf:@flat";
    if (tune[0] && arb_tune_parse(tune, &arb_ctx.tune, err, sizeof(err)) != ARBOR_OK) {
        arb_error("invalid value for ARBOR_TUNE: %s", err);
        status = ARBOR_ERR_CONFIG;
        goto err;
    }

    if ((status = arb_team_create_world(&arb_ctx.world)) != ARBOR_OK) goto err;
    arb_ctx.init_count = 1; /* the measurement runs collectives */
    if ((status = arb_rma_init_world()) != ARBOR_OK) goto err;
    if ((status = arb_am_init()) != ARBOR_OK) goto err;
    if (arb_ctx.cfg.logp_measure && (status = arb_logp_measure()) != ARBOR_OK) goto err;
    arb_offload_model();
    if ((status = arb_offload_team_init(arb_ctx.world)) != ARBOR_OK) goto err;
    if (arb_ctx.cfg.progress == ARB_PROGRESS_THREAD &&
        (status = arb_progress_thread_start()) != ARBOR_OK)
        goto err;
    if (arb_ctx.rank == 0 && (arb_ctx.cfg.stats || arb_ctx.cfg.print_algorithm)) {
        fprintf(stderr, "arbor: transport %s, LogGP L=%g os=%g or=%g g=%g G=%g (%s)\n",
                arb_ctx.tp_name, arb_ctx.model.L, arb_ctx.model.os, arb_ctx.model.orecv,
                arb_ctx.model.g, arb_ctx.model.G, arb_ctx.model_source);
        print_topology();
    }
    arb_ctx.init_count = 1;
    return ARBOR_OK;

err:
    teardown();
    return status;
}

static void print_stats(void)
{
    for (int c = 0; c < ARB_COLL_KINDS; c++) {
        int n;
        const arb_alg_desc_t *tab = arb_alg_table((arb_coll_t)c, &n);
        for (int a = 0; a < n && a < 16; a++) {
            const arb_alg_stats_t *s = &arb_ctx.stats[c][a];
            if (s->calls)
                fprintf(stderr, "arbor stats %d/%d: %s %s calls=%llu avg_us=%.3f\n", arb_ctx.rank,
                        arb_ctx.size, arb_coll_name((arb_coll_t)c), tab[a].name,
                        (unsigned long long)s->calls, s->total_us / (double)s->calls);
        }
    }
    arb_offload_print_stats();
    const arb_sched_cache_t *cc = &arb_ctx.world->cache;
    fprintf(stderr, "arbor stats %d/%d: schedule cache hits=%llu misses=%llu build_us=%.1f\n",
            arb_ctx.rank, arb_ctx.size, (unsigned long long)cc->hits,
            (unsigned long long)cc->misses, cc->build_us);
}

arbor_status_t arbor_finalize(void)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (--arb_ctx.init_count > 0) return ARBOR_OK;
    arb_ctx.init_count = 1; /* the closing barrier runs as an initialised library */
    arb_progress_thread_stop();
    /* implicit one-sided operations complete before anyone's segment goes away */
    arbor_status_t rma_status = arb_rma_quiet();
    if (rma_status != ARBOR_OK)
        arb_warn("completing one-sided operations at finalize: %s", arbor_strerror(rma_status));
    /* and every active message this rank sent has run at its target (every rank is here, in a
     * waiting loop that serves its mailbox) */
    if (arb_ctx.world->failed == ARBOR_OK && (rma_status = arb_am_complete_to(-1)) != ARBOR_OK)
        arb_warn("running the active messages sent before finalize: %s",
                 arbor_strerror(rma_status));
    if (arb_req_live())
        arb_warn("finalize with %d non-blocking operations never completed by test / wait",
                 arb_req_live());
    /* Every peer must be done with our segment before it goes away: a barrier (all data
     * delivered), a flush (our credits delivered), and a second barrier that returns no
     * credits (everyone has flushed, and nothing is left in flight). Transports whose RMA
     * needs the target's progress (UCX over TCP) complete the flush because every peer is
     * still polling in the second barrier; only then may a rank block in the PMIx fence. */
    arbor_status_t status =
        arb_ctx.world->failed != ARBOR_OK ? arb_ctx.world->failed : arbor_barrier(ARBOR_TEAM_WORLD);
    if (status == ARBOR_OK) status = arb_ctx.tp_ops->flush(arb_ctx.tp);
    arb_ctx.world->closing = true;
    if (status == ARBOR_OK) status = arbor_barrier(ARBOR_TEAM_WORLD);
    if (status != ARBOR_OK) arb_warn("closing barrier failed: %s", arbor_strerror(status));
    if (arb_ctx.cfg.stats) print_stats();
    /* After a failure the peers are out of step or gone: a fence could wait forever. */
    if (arb_ctx.world->failed != ARBOR_OK || arb_ctx.boot->ops->losses(arb_ctx.boot))
        arb_warn("finalize after a failure: not waiting for the other ranks");
    else if (arb_ctx.boot->ops->fence(arb_ctx.boot) != ARBOR_OK)
        status = ARBOR_ERR_BOOTSTRAP;
    teardown();
    return status;
}

arbor_status_t arbor_transport_name(const char **name_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (!name_p) return ARBOR_ERR_INVALID_ARG;
    *name_p = arb_ctx.tp_name;
    return ARBOR_OK;
}
