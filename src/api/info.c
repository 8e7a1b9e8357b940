/*
 * arbor_info_get: the library describing itself by key, so that tools (arbor-info) need nothing
 * but arbor.h. The static keys (version, configuration table, algorithm tables, transports
 * compiled in and whether they open here) are answered before arbor_init; the runtime keys
 * (transport in use, model, topology, segment and heap) after it. Keys are listed in arbor.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/coll.h"
#include "runtime/cma.h"
#include "runtime/config.h"
#include "runtime/context.h"
#include "runtime/lock.h"
#include "util/log.h"
#include "transports/transport.h"

/* Writes the answer; ARBOR_ERR_COUNT (the answer cut short, still NUL-terminated) when it does
 * not fit. */
static arbor_status_t put(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static arbor_status_t put(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return n >= 0 && (size_t)n < len ? ARBOR_OK : ARBOR_ERR_COUNT;
}

/* Parses "<prefix><index>." at *key; advances *key past it. */
static bool take_index(const char **key, const char *prefix, size_t *index)
{
    size_t pl = strlen(prefix);
    if (strncmp(*key, prefix, pl)) return false;
    char *end;
    const char *p = *key + pl;
    if (*p < '0' || *p > '9') return false;
    unsigned long long v = strtoull(p, &end, 10);
    if (*end != '.' && *end != '\0') return false;
    *index = (size_t)v;
    *key = *end == '.' ? end + 1 : end;
    return true;
}

static arbor_status_t config_key(const char *key, char *buf, size_t len)
{
    arb_config_t cfg;
    char err[512], warn[1024];
    arbor_status_t parsed = arb_config_parse(&cfg, err, sizeof(err), warn, sizeof(warn));
    if (!strcmp(key, "config.count")) return put(buf, len, "%zu", arb_config_rows());
    if (!strcmp(key, "config.error")) return put(buf, len, "%s", parsed == ARBOR_OK ? "" : err);
    if (!strcmp(key, "config.unknown")) return put(buf, len, "%s", parsed == ARBOR_OK ? warn : "");
    size_t i;
    if (!take_index(&key, "config.", &i) || i >= arb_config_rows()) return ARBOR_ERR_INVALID_ARG;
    arb_config_row_info_t r;
    arb_config_row(i, &r);
    if (!strcmp(key, "name")) return put(buf, len, "%s", r.name);
    if (!strcmp(key, "default")) return put(buf, len, "%s", r.dflt);
    if (!strcmp(key, "syntax")) return put(buf, len, "%s", r.syntax);
    if (!strcmp(key, "doc")) return put(buf, len, "%s", r.doc);
    if (!strcmp(key, "value")) {
        if (parsed != ARBOR_OK) return parsed;
        arb_config_format(&cfg, i, buf, len);
        return strlen(buf) + 1 < len ? ARBOR_OK : ARBOR_ERR_COUNT;
    }
    return ARBOR_ERR_INVALID_ARG;
}

static arbor_status_t collective_key(const char *key, char *buf, size_t len)
{
    if (!strcmp(key, "collective.count")) return put(buf, len, "%d", (int)ARB_COLL_KINDS);
    size_t c, a;
    if (!take_index(&key, "collective.", &c) || c >= ARB_COLL_KINDS) return ARBOR_ERR_INVALID_ARG;
    int n;
    const arb_alg_desc_t *tab = arb_alg_table((arb_coll_t)c, &n);
    if (!strcmp(key, "name")) return put(buf, len, "%s", arb_coll_name((arb_coll_t)c));
    if (!strcmp(key, "algorithm.count")) return put(buf, len, "%d", n);
    if (!take_index(&key, "algorithm.", &a) || a >= (size_t)n) return ARBOR_ERR_INVALID_ARG;
    if (!strcmp(key, "name")) return put(buf, len, "%s", tab[a].name);
    if (!strcmp(key, "description")) return put(buf, len, "%s", tab[a].desc);
    return ARBOR_ERR_INVALID_ARG;
}

static const char *const cap_names[] = {"direct-map",     "float-atomics", "triggered-ops",
                                        "hw-collectives", "wait-fd",       "remote-cq-data",
                                        "mapped-cpu-amo"};

/* Opens the backend alone (rank 0 of 1, no bootstrap), describes it and closes it. Failing to
 * open is the answer here, not an error worth a log line. */
static arbor_status_t probe(const arb_tp_ops_t *ops, const char *provider, char *buf, size_t len)
{
    arb_config_t cfg;
    char err[512], warn[1024];
    arbor_status_t status = arb_config_parse(&cfg, err, sizeof(err), warn, sizeof(warn));
    if (status != ARBOR_OK) return status;
    arb_tp_params_t p = {.rank = 0,
                         .size = 1,
                         .segment_size = 1 << 20,
                         .nlocal = 1,
                         .provider = provider ? provider : cfg.ofi_provider,
                         .timeout_s = cfg.timeout_s,
                         .yield = cfg.poll_yield != ARB_YIELD_NEVER};
    arb_tp_t *tp;
    int saved = arb_log_level;
    arb_log_level = -1;
    status = ops->open(&p, &tp);
    arb_log_level = saved;
    if (status != ARBOR_OK) {
        if (len) buf[0] = '\0';
        return status;
    }
    uint32_t caps = ops->caps(tp);
    size_t n = (size_t)snprintf(buf, len, "%s ", ops->describe(tp));
    int any = 0;
    for (size_t i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]) && n < len; i++)
        if (caps & (1u << i))
            n += (size_t)snprintf(buf + n, len - n, "%s%s", any++ ? "," : "", cap_names[i]);
    if (!any && n < len) n += (size_t)snprintf(buf + n, len - n, "-");
    ops->close(tp);
    return n < len ? ARBOR_OK : ARBOR_ERR_COUNT;
}

static arbor_status_t transport_key(const char *key, char *buf, size_t len)
{
    size_t count = 0, t;
    while (arb_tp_registry[count]) count++;
    if (!strcmp(key, "transport.count")) return put(buf, len, "%zu", count);
    if (!take_index(&key, "transport.", &t) || t >= count) return ARBOR_ERR_INVALID_ARG;
    if (!strcmp(key, "name")) return put(buf, len, "%s", arb_tp_registry[t]->name);
    if (!strcmp(key, "probe")) return probe(arb_tp_registry[t], NULL, buf, len);
    if (!strncmp(key, "probe:", 6)) return probe(arb_tp_registry[t], key + 6, buf, len);
    return ARBOR_ERR_INVALID_ARG;
}

static arbor_status_t model_text(const arb_logp_t *m, char *buf, size_t len)
{
    arb_logp_t one = arb_logp_one_copy(m);
    return put(buf, len, "L=%g os=%g or=%g g=%g G=%g G1=%g Gop=%g call=%g", m->L, m->os, m->orecv,
               m->g, m->G, one.G, m->Gop > 0 ? m->Gop : m->G, m->call);
}

/* Keys about the running library (after arbor_init); the caller holds the lock. */
static arbor_status_t runtime_key(const char *key, char *buf, size_t len)
{
    if (!strcmp(key, "rank")) return put(buf, len, "%d", arb_ctx.rank);
    if (!strcmp(key, "size")) return put(buf, len, "%d", arb_ctx.size);
    if (!strcmp(key, "transport")) return put(buf, len, "%s", arb_ctx.tp_name);
    if (!strcmp(key, "model.intra")) return model_text(&arb_ctx.model, buf, len);
    if (!strcmp(key, "model.inter")) return model_text(&arb_ctx.model_inter, buf, len);
    if (!strcmp(key, "model.source")) return put(buf, len, "%s", arb_ctx.model_source);
    if (!strcmp(key, "model.cma")) {
        /* What one copy through cross-memory attach costs per byte, and where that came from. */
        double gc = arb_logp_cma(&arb_ctx.model).G;
        if (!arb_cma_usable()) return put(buf, len, "Gc=%g (not taken: %s)", gc, arb_cma_why());
        return put(buf, len, "Gc=%g (%s)", gc, arb_ctx.gc_source);
    }
    if (!strcmp(key, "model.cma_ratio")) {
        /* The agreed ratio of the init measurement, exact, so ranks' answers compare. */
        if (!(arb_ctx.cma_ratio > 0)) return ARBOR_ERR_UNSUPPORTED;
        return put(buf, len, "%.17g", arb_ctx.cma_ratio);
    }
    if (!strcmp(key, "model.calibration")) {
        /* What ARBOR_LOGP_MEASURE measured at this init, as a calibration file. */
        if (!arb_ctx.measured.have) return ARBOR_ERR_UNSUPPORTED;
        size_t n = arb_calib_format(&arb_ctx.measured, buf, len);
        return n < len ? ARBOR_OK : ARBOR_ERR_COUNT;
    }
    if (!strcmp(key, "topology.nodes")) return put(buf, len, "%d", arb_ctx.nnodes);
    if (!strcmp(key, "topology.node")) {
        int me = arb_ctx.node_of ? arb_ctx.node_of[arb_ctx.rank] : 0, here = 0;
        for (int r = 0; r < arb_ctx.size; r++) here += !arb_ctx.node_of || arb_ctx.node_of[r] == me;
        return put(buf, len, "%d %d", me, here); /* this rank's node, ranks on it */
    }
    if (!strcmp(key, "topology.oversubscribed"))
        return put(buf, len, "%s", arb_ctx.any_oversubscribed ? "y" : "n");
    if (!strcmp(key, "segment.bytes")) return put(buf, len, "%zu", arb_ctx.seg_size);
    if (!strcmp(key, "heap.bytes"))
        return put(buf, len, "%llu", (unsigned long long)arb_ctx.heap.size);
    if (!strcmp(key, "heap.used"))
        return put(buf, len, "%llu", (unsigned long long)arb_ctx.heap.used);
    if (!strcmp(key, "progress.thread")) return put(buf, len, "%s", arb_ctx.threaded ? "y" : "n");
    return ARBOR_ERR_INVALID_ARG;
}

arbor_status_t arbor_info_get(const char *key, char *buf, size_t len)
{
    if (!key || !buf || len == 0) return ARBOR_ERR_INVALID_ARG;
    buf[0] = '\0';
    if (!strcmp(key, "version")) return put(buf, len, "%s", ARBOR_VERSION_STRING);
    if (!strncmp(key, "config.", 7)) return config_key(key, buf, len);
    if (!strncmp(key, "collective.", 11)) return collective_key(key, buf, len);
    if (!strncmp(key, "transport.", 10)) return transport_key(key, buf, len);
    static const char *const runtime[] = {"rank",
                                          "size",
                                          "transport",
                                          "model.intra",
                                          "model.inter",
                                          "model.source",
                                          "model.cma",
                                          "model.cma_ratio",
                                          "model.calibration",
                                          "topology.nodes",
                                          "topology.node",
                                          "topology.oversubscribed",
                                          "segment.bytes",
                                          "heap.bytes",
                                          "heap.used",
                                          "progress.thread"};
    bool known = false;
    for (size_t i = 0; i < sizeof(runtime) / sizeof(runtime[0]); i++)
        known |= !strcmp(key, runtime[i]);
    if (!known) return ARBOR_ERR_INVALID_ARG;
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    ARB_ENTER();
    arbor_status_t status = runtime_key(key, buf, len);
    arb_unlock();
    return status;
}
