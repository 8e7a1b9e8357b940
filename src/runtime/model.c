/*
 * The LogGP model of this job (docs/PERFORMANCE.md, "Calibration"), composed in this order,
 * each source replacing what the one before set:
 *   1. the transport's defaults: its hints (transports/transport.h) over algorithms/logp.c's;
 *   2. ARBOR_LOGP_FILE: a calibration file's line for each level, on the path that level takes
 *      here (intra mapped or intra rma; inter rma);
 *   3. ARBOR_OVERSUB_WAKE on an oversubscribed node (arb_model_oversubscribed), unless
 *      ARBOR_LOGP is set;
 *   4. ARBOR_LOGP: each key it gives, per level, over the values above;
 * and later ARBOR_LOGP_MEASURE (group/measure.c) replaces 1-3 with what it measured, ARBOR_LOGP's
 * keys again on top. Where none of these gives Gc (cross-memory attach), the ranks measure how
 * a process_vm_readv compares with a memcpy at init (group/cma_probe.c) and Gc is scaled by
 * the ratio they agree (arb_model_cma_measured). Every rank composes the same model: the file's
 * digest travels in the wire-up header and init fails on every rank where one differs.
 */
#include "runtime/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "util/log.h"

/* A calibration file is a few lines; anything this long is something else. */
#define LOGP_FILE_MAX_BYTES (64 * 1024)

static arbor_status_t read_file(const char *path, char **text_p, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open: %s", strerror(errno));
        return ARBOR_ERR_CONFIG;
    }
    char *text = malloc(LOGP_FILE_MAX_BYTES + 1);
    if (!text) {
        fclose(f);
        return ARBOR_ERR_NO_MEMORY;
    }
    size_t n = fread(text, 1, LOGP_FILE_MAX_BYTES + 1, f);
    bool bad = ferror(f);
    fclose(f);
    if (bad || n > LOGP_FILE_MAX_BYTES || memchr(text, '\0', n)) {
        snprintf(err, errlen, "%s",
                 bad                       ? "read error"
                 : n > LOGP_FILE_MAX_BYTES ? "larger than 64 KiB: not a calibration file"
                                           : "binary data: not a calibration file");
        free(text);
        return ARBOR_ERR_CONFIG;
    }
    text[n] = '\0';
    *text_p = text;
    return ARBOR_OK;
}

void arb_model_load_file(void)
{
    const char *path = arb_ctx.cfg.logp_file;
    char err[512], *text = NULL;
    arb_ctx.logp_file_state = ARB_LOGP_FILE_NONE;
    arb_ctx.logp_file_digest = 0;
    if (!path[0]) return;
    arbor_status_t status = read_file(path, &text, err, sizeof(err));
    if (status == ARBOR_OK) status = arb_calib_parse(text, &arb_ctx.logp_file, err, sizeof(err));
    free(text);
    if (status != ARBOR_OK) {
        arb_error("ARBOR_LOGP_FILE=%s: %s", path, err);
        arb_ctx.logp_file_state = ARB_LOGP_FILE_FAILED;
        return;
    }
    arb_ctx.logp_file_state = ARB_LOGP_FILE_LOADED;
    arb_ctx.logp_file_digest = arb_calib_digest(&arb_ctx.logp_file);
}

arbor_status_t arb_model_check_files(const uint64_t *states, const uint64_t *digests, int n)
{
    char failed[128] = "";
    size_t used = 0;
    int nfailed = 0;
    for (int r = 0; r < n; r++) {
        if (states[r] != ARB_LOGP_FILE_FAILED) continue;
        if (nfailed++ < 8 && used < sizeof(failed))
            used += (size_t)snprintf(failed + used, sizeof(failed) - used, "%s%d",
                                     nfailed > 1 ? ", " : "", r);
    }
    if (nfailed) {
        arb_error("ARBOR_LOGP_FILE could not be loaded on %d rank%s (%s%s; each says why): every "
                  "rank must load the same calibration",
                  nfailed, nfailed > 1 ? "s" : "", failed, nfailed > 8 ? ", ..." : "");
        return ARBOR_ERR_CONFIG;
    }
    for (int r = 0; r < n; r++) {
        if (states[r] == states[arb_ctx.rank] && digests[r] == digests[arb_ctx.rank]) continue;
        if (states[r] != states[arb_ctx.rank])
            arb_error("ARBOR_LOGP_FILE is %s here but %s on rank %d: every rank must load the "
                      "same calibration",
                      states[arb_ctx.rank] == ARB_LOGP_FILE_LOADED ? "loaded" : "not set",
                      states[r] == ARB_LOGP_FILE_LOADED ? "loaded" : "not set", r);
        else
            arb_error("ARBOR_LOGP_FILE=%s holds other values here (digest %016llx) than on rank "
                      "%d (%016llx): every rank must load the same calibration",
                      arb_ctx.cfg.logp_file, (unsigned long long)digests[arb_ctx.rank], r,
                      (unsigned long long)digests[r]);
        return ARBOR_ERR_CONFIG;
    }
    return ARBOR_OK;
}

void arb_model_oversubscribed(arb_logp_t *intra, double wake_us)
{
    /* A message to a rank that is not running waits until the kernel schedules it: about one
     * time slice of whichever rank holds the core, priced as extra latency per hop. Tried and
     * taken out: stretching the CPU terms (o, g, G, G1, Gop) by ranks per core as well. It made
     * allreduce at 16 KiB, P = 4 on 2 cores pick recursive doubling over direct (1.12-1.36x
     * faster measured), but doubled every predicted byte cost at P = 4, where the measured
     * times did not double: predictions within 30% up to 16 KiB fell from 26 to 17 of 44 in
     * bench/fidelity --stat min runs one after the other (docs/PERFORMANCE.md). */
    intra->L += wake_us;
}

/* Whether the job's intra-node Gc was given (arb_model_gc_given); set by arb_model_compose. */
static bool gc_given;

static void gc_source(const char *fmt, const char *what)
{
    int n = snprintf(arb_ctx.gc_source, sizeof(arb_ctx.gc_source), fmt, what);
    (void)n; /* a cut text is still the start of the right one */
}

/* Whether ARBOR_LOGP gives the intra-node level a Gc (validated by arb_model_compose). */
static bool logp_gives_gc(void)
{
    char err[512];
    arb_logp_t intra = {.Gc = -1}, inter = {0};
    if (!arb_ctx.cfg.logp[0] ||
        arb_logp_parse_levels(arb_ctx.cfg.logp, &intra, &inter, err, sizeof(err)) != ARBOR_OK)
        return false;
    return intra.Gc != -1;
}

static arb_logp_t from_hint(const arb_tp_loggp_t *h)
{
    return (arb_logp_t){
        .L = h->L, .os = h->os, .orecv = h->orecv, .g = h->g, .G = h->G, .G1 = h->G1, .Gc = h->Gc};
}

void arb_model_defaults(const arb_tp_hints_t *h, bool mapped, arb_logp_t *intra, arb_logp_t *inter)
{
    if (intra) {
        if (h && h->have_intra && !mapped)
            *intra = from_hint(&h->intra);
        else
            arb_logp_default_mapped(intra);
    }
    if (inter) {
        if (h && h->have_inter)
            *inter = from_hint(&h->inter);
        else
            arb_logp_default_inter(inter);
    }
}

void arb_model_defaults_by_name(const char *described, arb_logp_t *intra, arb_logp_t *inter)
{
    arb_tp_hints_t h;
    arb_tp_hints_by_name(described, &h);
    arb_model_defaults(&h, false, intra, inter);
}

/* model_source = a then b (cut to fit). */
static void source(const char *fmt, const char *a, const char *b)
{
    char text[sizeof(arb_ctx.model_source)];
    int n = snprintf(text, sizeof(text), fmt, a, b);
    (void)n; /* a cut text is still the start of the right one */
    memcpy(arb_ctx.model_source, text, sizeof(text));
}

arbor_status_t arb_model_compose(bool oversubscribed)
{
    char err[512];
    /* The intra-node path: loads and stores where this rank maps its node's peers, on every
     * transport (runtime/segment.h), else the transport's RMA. */
    arb_ctx.intra_mapped = arb_ctx.size > 1;
    for (int r = 0; r < arb_ctx.size; r++) {
        bool local = !arb_ctx.node_of || arb_ctx.node_of[r] == arb_ctx.node_of[arb_ctx.rank];
        if (r != arb_ctx.rank && local && !arb_peer_map(r)) arb_ctx.intra_mapped = false;
    }
    /* Mapped peers cost the same loads and stores whatever the transport: the mapped defaults
     * of algorithms/logp.c; the transport's hints for its RMA. */
    arb_tp_hints_t hints;
    arb_ctx.tp_ops->hints(arb_ctx.tp_name, &hints);
    arb_model_defaults(&hints, arb_ctx.intra_mapped, &arb_ctx.model, &arb_ctx.model_inter);
    source("%s%s", "transport defaults", arb_ctx.intra_mapped ? " (mapped node peers)" : "");
    gc_given = false;
    gc_source("%s", "transport defaults");
    if (arb_ctx.logp_file_state == ARB_LOGP_FILE_LOADED) {
        const arb_calib_t *c = &arb_ctx.logp_file;
        if (strcmp(c->transport, arb_ctx.tp_name)) {
            arb_error("ARBOR_LOGP_FILE=%s was calibrated on transport %s, this job runs %s: "
                      "calibrate again (arbor-info --calibrate -o FILE) or set ARBOR_TRANSPORT",
                      arb_ctx.cfg.logp_file, c->transport, arb_ctx.tp_name);
            return ARBOR_ERR_CONFIG;
        }
        int intra = arb_ctx.intra_mapped ? ARB_CALIB_INTRA_MAPPED : ARB_CALIB_INTRA_RMA;
        if (c->have & (1u << intra)) {
            arb_ctx.model = c->m[intra];
            gc_given = c->m[intra].Gc > 0;
            gc_source("%s",
                      gc_given ? "ARBOR_LOGP_FILE" : "ARBOR_LOGP_FILE's line has none: 1.25 G");
        } else if (arb_ctx.rank == 0)
            arb_warn("ARBOR_LOGP_FILE=%s has no \"%s\" line: the intra-node level keeps the "
                     "transport defaults",
                     arb_ctx.cfg.logp_file, arb_calib_path_name(intra));
        if (c->have & (1u << ARB_CALIB_INTER_RMA))
            arb_ctx.model_inter = c->m[ARB_CALIB_INTER_RMA];
        else if (arb_ctx.rank == 0 && arb_ctx.nnodes > 1)
            arb_warn("ARBOR_LOGP_FILE=%s has no \"inter rma\" line: the inter-node level keeps "
                     "the transport defaults",
                     arb_ctx.cfg.logp_file);
        if (c->version < ARB_CALIB_VERSION && arb_ctx.rank == 0)
            arb_info("ARBOR_LOGP_FILE=%s is a version %d calibration, without the per-call term: "
                     "call = 0 (arbor-info --calibrate writes version %d)",
                     arb_ctx.cfg.logp_file, c->version, ARB_CALIB_VERSION);
        source("ARBOR_LOGP_FILE (%s)%s", arb_calib_path_name(intra), "");
    }
    if (oversubscribed) {
        arb_model_oversubscribed(&arb_ctx.model, arb_ctx.cfg.oversub_wake);
        source("%s%s",
               arb_ctx.logp_file_state == ARB_LOGP_FILE_LOADED ? "ARBOR_LOGP_FILE"
                                                               : "transport defaults",
               " + ARBOR_OVERSUB_WAKE (oversubscribed node)");
    }
    if (arb_ctx.cfg.logp[0]) {
        if (arb_logp_parse_levels(arb_ctx.cfg.logp, &arb_ctx.model, &arb_ctx.model_inter, err,
                                  sizeof(err)) != ARBOR_OK) {
            arb_error("invalid value '%s' for ARBOR_LOGP: %s", arb_ctx.cfg.logp, err);
            return ARBOR_ERR_CONFIG;
        }
        source("%s%s", arb_ctx.logp_file_state == ARB_LOGP_FILE_LOADED ? "ARBOR_LOGP_FILE + " : "",
               "ARBOR_LOGP");
    }
    if (arb_ctx.cfg.logp_measure) {
        gc_given = true; /* measured with the rest (group/measure.c) */
        gc_source("%s", "ARBOR_LOGP_MEASURE");
    }
    if (logp_gives_gc()) {
        gc_given = true;
        gc_source("%s", "ARBOR_LOGP");
    }
    return ARBOR_OK;
}

bool arb_model_gc_given(void)
{
    return gc_given;
}

/* Appends text to the string at dst (cap bytes), cut to fit. */
static void append(char *dst, size_t cap, const char *text)
{
    size_t used = strnlen(dst, cap - 1), n = strlen(text);
    if (n > cap - 1 - used) n = cap - 1 - used;
    memcpy(dst + used, text, n);
    dst[used + n] = '\0';
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double arb_model_cma_agree(const double *ratio, int n, int *discarded)
{
    if (discarded) *discarded = n > 0 ? n : 0;
    if (!ratio || n <= 0) return 0;
    double *sane = malloc((size_t)n * sizeof(*sane));
    if (!sane) return 0;
    int k = 0;
    for (int i = 0; i < n; i++) /* NaN fails both comparisons: discarded too */
        if (ratio[i] >= ARB_CMA_RATIO_MIN && ratio[i] <= ARB_CMA_RATIO_MAX) sane[k++] = ratio[i];
    if (discarded) *discarded = n - k;
    double agreed = 0;
    /* A majority of sane readings, so one quiet rank does not speak for a loaded node. */
    if (k > 0 && 2 * k >= n) {
        qsort(sane, (size_t)k, sizeof(*sane), compare_doubles);
        agreed = k % 2 ? sane[k / 2] : (sane[k / 2 - 1] + sane[k / 2]) / 2;
    }
    free(sane);
    return agreed;
}

double arb_model_cma_gc(const arb_logp_t *m, double ratio)
{
    if (!m || !(ratio > 0)) return m ? m->Gc : 0;
    return arb_logp_cma(m).G * ratio / ARB_CMA_RATIO_FIT;
}

void arb_model_cma_measured(double ratio, int n)
{
    if (!(ratio > 0)) return;
    arb_ctx.cma_ratio = ratio;
    arb_ctx.model.Gc = arb_model_cma_gc(&arb_ctx.model, ratio);
    char how[sizeof(arb_ctx.gc_source)];
    snprintf(how, sizeof(how),
             "measured at init: process_vm_readv %.3gx memcpy, median of %d rank%s; the "
             "defaults assume %gx",
             ratio, n, n == 1 ? "" : "s", ARB_CMA_RATIO_FIT);
    gc_source("%s", how);
    append(arb_ctx.model_source, sizeof(arb_ctx.model_source), " + Gc measured at init");
}

void arb_model_gc_note(const char *why)
{
    append(arb_ctx.gc_source, sizeof(arb_ctx.gc_source), " (");
    append(arb_ctx.gc_source, sizeof(arb_ctx.gc_source), why ? why : "");
    append(arb_ctx.gc_source, sizeof(arb_ctx.gc_source), ")");
}

void arb_model_logp_over_measured(void)
{
    char err[512];
    if (!arb_ctx.cfg.logp[0]) return;
    /* Validated at init (arb_model_compose): cannot fail here. */
    if (arb_logp_parse_levels(arb_ctx.cfg.logp, &arb_ctx.model, &arb_ctx.model_inter, err,
                              sizeof(err)) == ARBOR_OK)
        source("%s%s", "measured + ", "ARBOR_LOGP");
}
