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
 * keys again on top. Every rank composes the same model: the file's digest travels in the
 * wire-up header and init fails on every rank where one differs.
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
    if (arb_ctx.logp_file_state == ARB_LOGP_FILE_LOADED) {
        const arb_calib_t *c = &arb_ctx.logp_file;
        if (strcmp(c->transport, arb_ctx.tp_name)) {
            arb_error("ARBOR_LOGP_FILE=%s was calibrated on transport %s, this job runs %s: "
                      "calibrate again (arbor-info --calibrate -o FILE) or set ARBOR_TRANSPORT",
                      arb_ctx.cfg.logp_file, c->transport, arb_ctx.tp_name);
            return ARBOR_ERR_CONFIG;
        }
        int intra = arb_ctx.intra_mapped ? ARB_CALIB_INTRA_MAPPED : ARB_CALIB_INTRA_RMA;
        if (c->have & (1u << intra))
            arb_ctx.model = c->m[intra];
        else if (arb_ctx.rank == 0)
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
    return ARBOR_OK;
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
