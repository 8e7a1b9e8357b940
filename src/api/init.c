/*
 * arbor_init / arbor_finalize: configuration, bootstrap, transport selection and wiring, the
 * model, the world team; and the orderly teardown that lets every peer finish first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/cma.h"
#include "coll/coll.h"
#include "coll/coll_check.h"
#include "coll/coll_stray.h"
#include "coll/coll_verdict.h"
#include "runtime/context.h"
#include "runtime/lock.h"
#include "runtime/doorbell.h"
#include "runtime/tp_call.h"
#include "coll/executor.h"
#include "coll/coll_init.h"
#include "runtime/flush.h"
#include "util/log.h"
#include "group/measure.h"
#include "runtime/model.h"
#include "coll/offload.h"
#include "runtime/progress.h"
#include "runtime/request.h"
#include "runtime/segment.h"
#include "group/share.h"
#include "rma/am.h"
#include "rma/depart.h"
#include "rma/rma.h"
#include "coll/team.h"
#include "coll/team_fail.h"
#include "group/cma_probe.h"
#include "group/team.h"

arb_ctx_t arb_ctx;

/* What every rank publishes: its transport's name, the digest of the configuration values that
 * must agree (arb_config_uniform_digest: the table's F_UNIFORM rows), then the transport's own
 * blob. */
typedef struct {
    char transport[32];
    uint64_t uniform_hash;
    uint64_t oversubscribed;         /* this rank's node has more ranks than cores */
    int64_t node_leader;             /* lowest rank on this rank's node (PMIx local peers) */
    arb_share_hdr_t share;           /* this rank's kernel and CPUs (group/share.h) */
    uint64_t seg_base;               /* the segment's address (remote addresses of the heap) */
    uint64_t logp_file_state;        /* ARBOR_LOGP_FILE: ARB_LOGP_FILE_NONE, _LOADED or _FAILED */
    uint64_t logp_file_digest;       /* ... and the digest of its values (runtime/model.c) */
    char seg_name[ARB_SEG_NAME_MAX]; /* the segment's shared-memory name (runtime/segment.h) */
} wire_header_t;

_Static_assert(sizeof(arb_ctx.seg_name) == ARB_SEG_NAME_MAX, "segment names fit the header");

/* Some ranks' settings that must agree (the config table's F_UNIFORM rows) differ: every rank
 * is here, since every rank saw every digest. A second exchange gives each rank the others'
 * values, and each names, for the ranks that differ from it, the first variable and both
 * values, so that init fails on every rank with the reason. */
static void report_uniform_mismatch(const uint64_t *digests)
{
    size_t len;
    char *text = arb_config_uniform_text(&arb_ctx.cfg, &len);
    if (!text) {
        arb_error("ARBOR_* settings that must agree on every rank differ (no memory to say which)");
        return;
    }
    void **all;
    size_t *lens;
    arbor_status_t status =
        arb_boot_allgather(arb_ctx.boot, "arbor.uniform", text, len, &all, &lens);
    if (status != ARBOR_OK) {
        arb_error("ARBOR_* settings that must agree on every rank differ (%s while exchanging "
                  "them)",
                  arbor_strerror(status));
        free(text);
        return;
    }
    int shown = 0, differ = 0;
    char msg[512];
    for (int r = 0; r < arb_ctx.size; r++) {
        if (r == arb_ctx.rank || digests[r] == digests[arb_ctx.rank]) continue;
        differ++;
        if (shown < 4 && arb_config_uniform_diff(text, len, all[r], lens[r], r, msg, sizeof(msg))) {
            arb_error("%s (settings that must agree on every rank)", msg);
            shown++;
        }
    }
    if (differ > shown)
        arb_error("%d more ranks have different ARBOR_* settings that must agree", differ - shown);
    if (!differ)
        arb_error("other ranks disagree on ARBOR_* settings that must agree on every rank (this "
                  "rank matches rank 0)");
    arb_boot_free_all(arb_ctx.boot, all, lens);
    free(text);
}

static arbor_status_t open_transport(void)
{
    const int *local;
    int nlocal;
    arb_ctx.boot->ops->local_ranks(arb_ctx.boot, &local, &nlocal);
    arb_tp_params_t p = {.rank = arb_ctx.rank,
                         .size = arb_ctx.size,
                         .segment_size = arb_ctx.cfg.segment_size,
                         .segment_base = arb_ctx.seg_owned ? arb_ctx.seg : NULL,
                         .nlocal = nlocal,
                         .provider = arb_ctx.cfg.ofi_provider,
                         .timeout_s = arb_ctx.cfg.timeout_s,
                         .yield = arb_ctx.cfg.poll_yield != ARB_YIELD_NEVER,
                         .local = local,
                         .peer_lost = arb_boot_peer_lost,
                         .offload_want = arb_offload_want(&arb_ctx.cfg),
                         .reg_cache_bytes = arb_ctx.cfg.reg_cache};
    const char *want = strcasecmp(arb_ctx.cfg.transport, "auto") ? arb_ctx.cfg.transport : NULL;
    const arb_tp_ops_t *only = NULL;
    arbor_status_t status = want ? arb_tp_lookup(want, &only) : ARBOR_ERR_UNSUPPORTED;
    if (status == ARBOR_ERR_CONFIG) {
        char names[128];
        arb_tp_names(names, sizeof(names));
        arb_error("invalid value '%s' for ARBOR_TRANSPORT: expected auto|%s", want, names);
        return ARBOR_ERR_CONFIG;
    }

    for (const arb_tp_ops_t *const *o = arb_tp_registry; *o; o++) {
        if (want && *o != only) continue;
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
        mapped += arb_ctx.world->peer_seg[r] != NULL;
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
    const arb_topo_t *t = arb_ctx.world ? &arb_ctx.world->topo : NULL;
    if (t && t->nshared > 0)
        fprintf(stderr,
                "arbor: CPUs: %d ranks share %d (nodes of one kernel or an oversubscribed node); "
                "wake-up %g us per message received: multi-node choices are bounded by the CPU "
                "work of their messages\n",
                t->nshared, t->shared_cpus, t->wake);
}

/* The groups of ranks that share CPUs, from every rank's header (group/share.h). */
static arbor_status_t share_groups(void *const *all, const int64_t *leaders)
{
    arb_share_hdr_t *shares = calloc((size_t)arb_ctx.size, sizeof(*shares));
    if (!shares) return ARBOR_ERR_NO_MEMORY;
    for (int r = 0; r < arb_ctx.size; r++) {
        wire_header_t h;
        memcpy(&h, all[r], sizeof(h));
        shares[r] = h.share;
    }
    arbor_status_t status = arb_share_number(shares, leaders);
    free(shares);
    return status;
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
    wire_header_t hdr = {.uniform_hash = arb_config_uniform_digest(&arb_ctx.cfg),
                         .oversubscribed = arb_ctx.node_oversubscribed,
                         .node_leader = node_leader(),
                         .seg_base = (uint64_t)(uintptr_t)arb_ctx.seg,
                         .logp_file_state = (uint64_t)arb_ctx.logp_file_state,
                         .logp_file_digest = arb_ctx.logp_file_digest};
    arb_share_local(&hdr.share);
    memcpy(hdr.seg_name, arb_ctx.seg_name, sizeof(hdr.seg_name));
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
    uint64_t *digests = calloc((size_t)arb_ctx.size, sizeof(*digests));
    uint64_t *file_states = calloc((size_t)arb_ctx.size, sizeof(*file_states));
    uint64_t *file_digests = calloc((size_t)arb_ctx.size, sizeof(*file_digests));
    char(*seg_names)[ARB_SEG_NAME_MAX] = calloc((size_t)arb_ctx.size, sizeof(*seg_names));
    if (!blobs || !blens || !leaders || !arb_ctx.seg_bases || !digests || !file_states ||
        !file_digests || !seg_names)
        status = ARBOR_ERR_NO_MEMORY;
    /* Whether the settings that must agree do is known alike on every rank (all see every
     * digest), so all take part in the exchange that names the difference. */
    bool uniform = true;
    for (int r = 0; status == ARBOR_OK && r < arb_ctx.size; r++) {
        wire_header_t h;
        if (lens[r] < sizeof(h)) continue; /* refused below */
        memcpy(&h, all[r], sizeof(h));
        digests[r] = h.uniform_hash;
        if (digests[r] != digests[0]) uniform = false;
        file_states[r] = h.logp_file_state;
        file_digests[r] = h.logp_file_digest;
    }
    if (status == ARBOR_OK && !uniform) {
        report_uniform_mismatch(digests);
        status = ARBOR_ERR_CONFIG;
    }
    /* Likewise every rank sees every rank's calibration file state and digest. */
    if (status == ARBOR_OK) status = arb_model_check_files(file_states, file_digests, arb_ctx.size);
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
        }
        if (h.oversubscribed) arb_ctx.any_oversubscribed = true;
        leaders[r] = h.node_leader;
        arb_ctx.seg_bases[r] = h.seg_base;
        memcpy(seg_names[r], h.seg_name, sizeof(h.seg_name));
        blobs[r] = (const uint8_t *)all[r] + sizeof(h);
        blens[r] = lens[r] - sizeof(h);
    }
    if (status == ARBOR_OK) status = number_nodes(leaders);
    if (status == ARBOR_OK) status = share_groups(all, leaders);
    if (status == ARBOR_OK) status = arb_seg_map_peers((const char(*)[ARB_SEG_NAME_MAX])seg_names);
    if (status == ARBOR_OK) status = arb_ctx.tp_ops->connect(arb_ctx.tp, blobs, blens);
    free(seg_names);
    free(digests);
    free(file_states);
    free(file_digests);
    free(leaders);
    free(blobs);
    free(blens);
    arb_boot_free_all(arb_ctx.boot, all, lens);
    return status;
}

static void teardown(void)
{
    arb_threads_fini();
    arb_coll_check_board_init(0, NULL);
    arb_team_fail_reset();
    arb_req_cleanup();
    arb_exec_cleanup();
    arb_team_destroy_all();
    arb_team_destroy(arb_ctx.world);
    arb_am_fini();
    arb_depart_fini();
    arb_bell_fini();
    arb_rma_fini();
    arb_cma_fini();
    free(arb_ctx.seg_bases);
    if (arb_ctx.tp) arb_ctx.tp_ops->close(arb_ctx.tp);
    arb_seg_fini(); /* after the transport let go of it */
    arb_exec_release_kept();
    arb_verdict_release();
    arb_stray_release();
    if (arb_ctx.boot) arb_ctx.boot->ops->finalize(arb_ctx.boot);
    free(arb_ctx.images);
    free(arb_ctx.node_of);
    arb_share_free();
    memset(&arb_ctx, 0, sizeof(arb_ctx));
}

/* Whether every rank maps every other's segment: each rank knows its own part, the world agrees
 * (the one-sided atomics rule and the one-copy collectives depend on it). */
static arbor_status_t agree_mapping(void)
{
    uint32_t mapped = arb_rma_mapped_here(), all = 0;
    arbor_status_t status =
        arb_coll_allreduce_internal(arb_ctx.world, &mapped, &all, 1, ARBOR_UINT32, ARBOR_MIN);
    if (status != ARBOR_OK) return status;
    arb_ctx.mapped_everywhere = all != 0;
    arb_rma_set_mapping();
    return ARBOR_OK;
}

/* required: an ARBOR_THREAD_* level, or -1 (plain arbor_init: ARBOR_THREADS alone). */
static arbor_status_t init_at(int required, int *provided)
{
    char err[512], warn[1024];
    arbor_status_t status;

    if (arb_ctx.init_count > 0) {
        arb_ctx.init_count++;
        *provided = arb_ctx.thread_level;
        return ARBOR_OK;
    }
    memset(&arb_ctx, 0, sizeof(arb_ctx));
    status = arb_config_parse(&arb_ctx.cfg, err, sizeof(err), warn, sizeof(warn));
    if (status != ARBOR_OK) {
        fprintf(stderr, "arbor: init failed: %s\n", err);
        return status;
    }
    arb_log_level = arb_ctx.cfg.log_level;

    if ((status = arb_boot_open(&arb_ctx.boot, arb_ctx.cfg.timeout_s)) != ARBOR_OK) {
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

    arb_model_load_file(); /* a failure fails the wire-up on every rank */
    /* The segment in node-shared memory (runtime/segment.h); with ARBOR_DIRECT=n the transport
     * allocates it, as nothing on this node maps it. */
    arb_seg_sweep_stale();
    if (arb_ctx.cfg.direct && (status = arb_seg_create(arb_ctx.cfg.segment_size)) != ARBOR_OK)
        goto err;
    if ((status = open_transport()) != ARBOR_OK) goto err;
    if ((status = arb_offload_check()) != ARBOR_OK) goto err;
    arb_ctx.seg = arb_ctx.tp_ops->seg_base(arb_ctx.tp);
    arb_ctx.seg_size = arb_ctx.cfg.segment_size;
    arb_ctx.wake_us = arb_ctx.cfg.oversub_wake;
    if ((status = wire_up()) != ARBOR_OK) goto err;
    /* Every rank has mapped its node peers' segments and connected its transport once all
     * pass this fence: the names can go (ours and the transport's), and a job killed from here
     * on leaves nothing in /dev/shm. */
    if (arb_ctx.size > 1 && (status = arb_ctx.boot->ops->fence(arb_ctx.boot)) != ARBOR_OK) {
        arb_error("bootstrap fence after mapping the node's segments: %s", arbor_strerror(status));
        goto err;
    }
    arb_seg_unlink();
    if (arb_ctx.tp_ops->all_connected) arb_ctx.tp_ops->all_connected(arb_ctx.tp);
    /* Nodes that are namespaces of one kernel share its CPUs: yield there too (share.h). */
    if (arb_ctx.cfg.poll_yield == ARB_YIELD_AUTO &&
        arb_share_oversubscribed(arb_ctx.share_of[arb_ctx.rank]))
        arb_ctx.yield = true;
    if ((status = arb_rma_init()) != ARBOR_OK) goto err;
    if ((status = arb_coll_register()) != ARBOR_OK) goto err;

    /* Every rank saw every header, so all add the same term and build the same trees. */
    arb_tune_env_t tune_env = {.oversubscribed = !arb_ctx.cfg.logp[0] &&
                                                 arb_ctx.any_oversubscribed &&
                                                 arb_ctx.cfg.oversub_wake > 0};
    if ((status = arb_model_compose(tune_env.oversubscribed)) != ARBOR_OK) goto err;
    /* ARBOR_TUNE replaces the algorithms layer's built-in rules (tune.c says which). */
    const char *tune = arb_ctx.cfg.tune;
    if (!tune[0]) arb_tune_defaults(&arb_ctx.tune, &tune_env);
    if (tune[0] && arb_tune_parse(tune, &arb_ctx.tune, err, sizeof(err)) != ARBOR_OK) {
        arb_error("invalid value for ARBOR_TUNE: %s", err);
        status = ARBOR_ERR_CONFIG;
        goto err;
    }

    if ((status = arb_team_create_world(&arb_ctx.world)) != ARBOR_OK) goto err;
    arb_ctx.init_count = 1; /* the measurement runs collectives */
    if ((status = arb_rma_init_world()) != ARBOR_OK) goto err;
    if ((status = agree_mapping()) != ARBOR_OK) goto err;
    if ((status = arb_cma_init()) != ARBOR_OK) goto err; /* before the measurement uses it */
    if ((status = arb_am_init()) != ARBOR_OK) goto err;
    if ((status = arb_depart_init()) != ARBOR_OK) goto err;
    arb_team_set_departures(arb_depart_stalled, arb_depart_notice);
    uint64_t bell_off; /* the doorbell line, in every mode (layouts never depend on it) */
    if ((status = arb_mem_take_local(ARB_BELL_LINE_BYTES, &bell_off)) != ARBOR_OK ||
        (status = arb_bell_init(bell_off)) != ARBOR_OK) /* may fall back to thread mode */
        goto err;
    /* ARBOR_CHECK's board for team mismatches: the same block of every heap (init takes the
     * same blocks in the same order everywhere). */
    uint64_t board = 0;
    if (arb_ctx.cfg.check &&
        (status = arb_mem_take_local(ARB_CHECK_BOARD_BYTES, &board)) != ARBOR_OK)
        goto err;
    arb_coll_check_board_init(board, arb_team_by_id);
    if (arb_ctx.cfg.logp_measure) {
        if ((status = arb_logp_measure()) != ARBOR_OK) goto err;
        arb_model_logp_over_measured();
    }
    arb_offload_model();
    if ((status = arb_offload_team_init(arb_ctx.world)) != ARBOR_OK) goto err;
    /* From here on a thread of a MULTIPLE program may be inside arbor with us. */
    int level = required > arb_ctx.cfg.threads ? required : arb_ctx.cfg.threads;
    if ((status = arb_threads_init(level)) != ARBOR_OK) goto err;
    *provided = level;
    if (arb_ctx.cfg.progress == ARB_PROGRESS_THREAD &&
        (status = arb_progress_thread_start()) != ARBOR_OK)
        goto err;
    if (arb_ctx.rank == 0 && (arb_ctx.cfg.stats || arb_ctx.cfg.print_algorithm)) {
        fprintf(stderr,
                "arbor: transport %s, LogGP L=%g os=%g or=%g g=%g G=%g G1=%g Gc=%g (%s); "
                "cross-memory attach %s%s%s\n",
                arb_ctx.tp_name, arb_ctx.model.L, arb_ctx.model.os, arb_ctx.model.orecv,
                arb_ctx.model.g, arb_ctx.model.G, arb_logp_one_copy(&arb_ctx.model).G,
                arb_logp_cma(&arb_ctx.model).G, arb_ctx.model_source, arb_cma_why(),
                arb_cma_usable() ? "; Gc: " : "", arb_cma_usable() ? arb_ctx.gc_source : "");
        print_topology();
    }
    arb_ctx.init_count = 1;
    /* The per-call term needs a whole collective call, so the library must be up. */
    if (arb_ctx.cfg.logp_measure && arb_ctx.size > 1) {
        status = arb_logp_measure_call();
        if (status != ARBOR_OK)
            arb_warn("ARBOR_LOGP_MEASURE: the per-call term was not measured (%s): call = %g us",
                     arbor_strerror(status), arb_ctx.model.call);
        else
            arb_model_logp_over_measured(); /* ARBOR_LOGP's call= wins, as its other keys do */
    }
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

arbor_status_t arbor_init(void)
{
    int provided;
    return init_at(-1, &provided);
}

arbor_status_t arbor_init_thread(int required, int *provided)
{
    if (required < ARBOR_THREAD_SINGLE || required > ARBOR_THREAD_MULTIPLE || !provided)
        return ARBOR_ERR_INVALID_ARG;
    return init_at(required, provided);
}

arbor_status_t arbor_query_thread(int *level)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (!level) return ARBOR_ERR_INVALID_ARG;
    *level = arb_ctx.thread_level;
    return ARBOR_OK;
}

/* Finalize's flush: every peer but the failed ones (a flush to a process that is gone ends in
 * ARBOR_ERR_PEER_LOST; one that failed on purpose takes nothing from us any more). */
static arbor_status_t flush_running_peers(void)
{
    int *peers = malloc((size_t)arb_ctx.size * sizeof(int)), n = 0;
    if (!peers) return ARBOR_ERR_NO_MEMORY;
    for (int r = 0; r < arb_ctx.size; r++)
        if (arb_depart_state(r) != ARBOR_PEER_FAILED) peers[n++] = r;
    arbor_status_t status = arb_flush_peers(peers, n, "finalize");
    free(peers);
    return status;
}

/* The closing fence's idle step (arb_boot_t.idle): one pass of the transport. */
static void fence_progress(void *arg)
{
    (void)arg;
    if (arb_ctx.locking) arb_lock_take();
    arb_tp_progress();
    arb_unlock();
}

arbor_status_t arbor_finalize(void)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (--arb_ctx.init_count > 0) return ARBOR_OK;
    arb_ctx.init_count = 1; /* the closing barrier runs as an initialised library */
    arb_progress_thread_stop();
    /* No other thread is inside arbor (arbor.h), but the waits below let go of the lock and
     * take it again, so they run holding it. */
    if (arb_ctx.locking) arb_lock_take();
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
    /* Every peer must be done with our segment before it goes away. Not by barriers of the
     * world team: a rank finalizes while its peers may still wait in a collective, a
     * notification or a lock of theirs (a Fortran image that ended), and those waits must see
     * it stopped, not matched. So: STOPPED announced, then every peer stopped or failed (all
     * data delivered), a flush (our credits delivered), CLOSED announced, then every peer
     * closed or failed, and a second flush (our CLOSED words delivered). Transports whose RMA
     * needs the target's progress (UCX over TCP, libfabric's manual progress) complete these
     * because every peer still polls: in a stage, a flush, or the fence below, which drives
     * the transport while it waits. A rank that passed the CLOSED stage may still hold its own
     * CLOSED words, or a peer's acknowledgement, in its provider's queue (sockets sends them
     * only when progressed): a fence that did not progress would wait for peers that wait for
     * those words. When the fence ends every rank has flushed: nothing is in flight. */
    /* Said first, so that a rank still in a world collective this rank never called learns
     * at its next idle point that it will never complete, naming it. */
    if (arb_ctx.world->failed == ARBOR_OK)
        arb_verdict_finalizing(arb_ctx.world, arb_ctx.world->calls);
    arbor_status_t status;
    bool out_of_step =
        arb_ctx.world->failed != ARBOR_OK && arb_ctx.world->failed != ARBOR_ERR_PEER_STOPPED;
    if (out_of_step) {
        /* Out of step (the world failed, here or, through a verdict, elsewhere: a timeout, a lost
         * peer, a mismatch): a rank the world team waited for may be gone without anyone knowing
         * (another host, a transport that does not report it), and the stages would wait for
         * it again. Announce them without waiting, so the peers that run them are not held. */
        arb_depart_leave();
        status = arb_ctx.world->failed;
    } else {
        status = arb_depart_stopped();
        if (status == ARBOR_OK) status = flush_running_peers();
        if (status == ARBOR_OK) status = arb_depart_closed();
        if (status == ARBOR_OK) status = flush_running_peers();
        if (status == ARBOR_OK) arb_verdict_finalize_apart(arb_ctx.world);
    }
    arb_unlock();
    if (status != ARBOR_OK) arb_warn("closing protocol failed: %s", arbor_strerror(status));
    if (arb_ctx.cfg.stats) print_stats();
    /* After a timeout or a loss the peers are out of step or gone: a fence could wait
     * forever. (A team failed by a stopped member is not that: every rank got here.) */
    if (status != ARBOR_OK || out_of_step || arb_ctx.boot->ops->losses(arb_ctx.boot)) {
        arb_warn("finalize after a failure: not waiting for the other ranks");
    } else {
        arb_ctx.boot->idle = fence_progress;
        if (arb_ctx.boot->ops->fence(arb_ctx.boot) != ARBOR_OK) status = ARBOR_ERR_BOOTSTRAP;
        arb_ctx.boot->idle = NULL;
    }
    teardown();
    return status;
}

arbor_status_t arbor_fail_self(void)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    ARB_ENTER();
    arb_unlock();
    arb_progress_thread_stop();
    if (arb_ctx.locking) arb_lock_take();
    /* Nothing is completed first: a failed rank's operations in flight are lost, as they
     * would be if the process had died. */
    arbor_status_t status = arb_depart_fail();
    arb_unlock();
    if (status != ARBOR_OK)
        arb_warn("arbor_fail_self: the other ranks did not all end: %s", arbor_strerror(status));
    teardown();
    return status;
}

arbor_status_t arbor_peer_state(int rank, arbor_peer_state_t *state_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (rank < 0 || rank >= arb_ctx.size) return ARBOR_ERR_RANK;
    if (!state_p) return ARBOR_ERR_INVALID_ARG;
    ARB_ENTER();
    *state_p = arb_depart_state(rank);
    arb_unlock();
    return ARBOR_OK;
}

arbor_status_t arbor_peer_departures(int *count_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (!count_p) return ARBOR_ERR_INVALID_ARG;
    ARB_ENTER();
    *count_p = arb_depart_count();
    arb_unlock();
    return ARBOR_OK;
}

arbor_status_t arbor_transport_name(const char **name_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (!name_p) return ARBOR_ERR_INVALID_ARG;
    *name_p = arb_ctx.tp_name;
    return ARBOR_OK;
}
