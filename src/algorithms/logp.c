/*
 * LogGP parameters (docs/PERFORMANCE.md, "Calibration"): parsing of the
 * "L=..,os=..,or=..,g=..,G=.." syntax used by ARBOR_LOGP and arbor-tree, and the defaults that
 * belong to no transport: the cost of loads and stores through mapped node-shared memory, and of a
 * network between hosts. A transport's own figures are its hints (transports/transport.h,
 * arb_tp_hints_t), which the core turns into numbers before they reach this folder (core/model.c).
 *
 * Mapped same-node shared memory: a put + fence + signal one way costs about a cache line's
 * trip between cores, so L = 0.1 and o_s = o_r = g = 0.05; a cache-hot copy into a peer's
 * segment runs far faster than one core streams from DRAM, and the default takes the DRAM
 * rate, G = 0.00008 us/B (about 12 GB/s), as the conservative bulk rate. The figures behind
 * these are in docs/TRANSPORTS.md ("Default costs"); ARBOR_LOGP_MEASURE replaces them with
 * this machine's.
 */
#include "algorithms/logp.h"
#include "arbor.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One second: far above any network's latency, overhead or per-byte gap. */
#define ARB_LOGP_MAX_US 1e6

/* G1 (one copy, the receiver reading the sender's buffer in place): a chunk through a landing
 * slot is written by one core and read by another, so each of its lines crosses between the
 * caches twice; one copy reads each line once. docs/PERFORMANCE.md ("One copy") measured a
 * 1 MiB bcast at P=2 through slots at 1.3-2x one memcpy, and one copy at about one memcpy:
 * G1 = G / 2 on mapped memory.
 *
 * Gc (one copy through cross-memory attach, runtime/cma.h; docs/PERFORMANCE.md "Cross-memory
 * attach"): a process_vm_readv of a large block measured slower than a whole bcast of it through
 * mapped slots: Gc = 1.25 G (two copies kept). Each start scales it by what the read costs
 * against a memcpy on its machine (runtime/model.h, arb_model_cma_measured). */
static const arb_logp_t logp_mapped = {
    .L = 0.1, .os = 0.05, .orecv = 0.05, .g = 0.05, .G = 0.00008, .G1 = 0.00004, .Gc = 0.0001};

void arb_logp_default_mapped(arb_logp_t *out)
{
    if (out) *out = logp_mapped;
}

static bool has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL || errlen == 0) return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* The keys, in the order of the syntax string; g and G differ by case only. */
static const char *const logp_keys[] = {"L", "os", "or", "g", "G", "G1", "Gop", "Gc", "call"};
#define LOGP_NKEYS (sizeof(logp_keys) / sizeof(logp_keys[0]))

static double *key_slot(arb_logp_t *m, size_t k)
{
    double *slots[LOGP_NKEYS] = {&m->L,  &m->os,  &m->orecv, &m->g,   &m->G,
                                 &m->G1, &m->Gop, &m->Gc,    &m->call};
    return slots[k];
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Parses one "key=value" item of length len at item into m; item is not NUL-terminated. */
static arbor_status_t parse_item(const char *item, size_t len, arb_logp_t *m, unsigned *seen,
                                 char *err, size_t errlen)
{
    char buf[128];
    const char *eq;
    size_t klen, k;
    char *end;
    double val;

    while (len > 0 && is_blank(item[0])) item++, len--;
    while (len > 0 && is_blank(item[len - 1])) len--;
    if (len == 0) {
        set_err(err, errlen,
                "logp: empty item (expected key=value, keys L, os, or, g, G, G1, Gop, Gc, call)");
        return ARBOR_ERR_CONFIG;
    }
    if (len >= sizeof(buf)) {
        set_err(err, errlen, "logp: item \"%.40s...\" too long", item);
        return ARBOR_ERR_CONFIG;
    }
    memcpy(buf, item, len);
    buf[len] = '\0';
    eq = strchr(buf, '=');
    if (eq == NULL) {
        set_err(err, errlen, "logp: item \"%s\" has no '=' (expected key=value)", buf);
        return ARBOR_ERR_CONFIG;
    }
    klen = (size_t)(eq - buf);
    while (klen > 0 && is_blank(buf[klen - 1])) klen--;
    for (k = 0; k < LOGP_NKEYS; k++)
        if (strlen(logp_keys[k]) == klen && strncmp(buf, logp_keys[k], klen) == 0) break;
    if (k == LOGP_NKEYS) {
        set_err(err, errlen,
                "logp: unknown key \"%.*s\" in \"%s\" (keys: L, os, or, g, G, G1, Gop, Gc, call)",
                (int)klen, buf, buf);
        return ARBOR_ERR_CONFIG;
    }
    if (*seen & (1u << k)) {
        set_err(err, errlen, "logp: key \"%s\" given twice", logp_keys[k]);
        return ARBOR_ERR_CONFIG;
    }
    const char *num = eq + 1;
    while (is_blank(*num)) num++;
    errno = 0;
    val = strtod(num, &end);
    /* strtod's ERANGE also means underflow: a value below the smallest normal double is a
     * number all the same (as good as 0 here); only overflow is out of range. */
    bool overflow = errno == ERANGE && (val == HUGE_VAL || val == -HUGE_VAL);
    if (end == num || *end != '\0' || !isfinite(val)) {
        set_err(err, errlen, "logp: value \"%s\" of %s is not a %snumber", num, logp_keys[k],
                overflow ? "representable " : "finite ");
        return ARBOR_ERR_CONFIG;
    }
    if (val < 0) {
        set_err(err, errlen, "logp: value %s of %s is negative", num, logp_keys[k]);
        return ARBOR_ERR_CONFIG;
    }
    /* Costs multiply these by message counts and byte counts (up to 2^50): a bound keeps every
     * predicted time finite, so no NaN or inf reaches the selector's comparisons. */
    if (val > ARB_LOGP_MAX_US) {
        set_err(err, errlen, "logp: value %s of %s exceeds %g us", num, logp_keys[k],
                ARB_LOGP_MAX_US);
        return ARBOR_ERR_CONFIG;
    }
    *key_slot(m, k) = val;
    *seen |= 1u << k;
    return ARBOR_OK;
}

arbor_status_t arb_logp_parse(const char *text, arb_logp_t *out, char *err, size_t errlen)
{
    arb_logp_t m;
    unsigned seen = 0;
    const char *p;
    arbor_status_t status;

    if (text == NULL || out == NULL) {
        set_err(err, errlen, "logp: NULL argument");
        return ARBOR_ERR_INVALID_ARG;
    }
    m = *out;
    p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        status = parse_item(p, len, &m, &seen, err, errlen);
        if (status != ARBOR_OK) return status;
        if (comma == NULL) break;
        p = comma + 1;
    }
    *out = m;
    return ARBOR_OK;
}

void arb_logp_format(const arb_logp_t *m, char *buf, size_t len)
{
    arb_logp_t c = *m;
    size_t used = 0;
    if (len == 0) return;
    buf[0] = '\0';
    for (size_t k = 0; k < LOGP_NKEYS && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s=%.17g", k ? "," : "", logp_keys[k],
                                 *key_slot(&c, k));
}

/* Between nodes arbor goes through the network. On the simulated cluster of tests/cluster
 * (docs/TOPOLOGY.md; figures in docs/TRANSPORTS.md, "Default costs") a TCP message costs
 * its ends several microseconds of CPU (system calls, the stack on both sides), which the CPU
 * bound of ranks sharing CPUs counts (oversub.c). So o_s = o_r = 7, g = 8, L = 10,
 * G = 0.001 us/B (1 GB/s). On an RDMA fabric these are an order of magnitude
 * lower: set them with ARBOR_LOGP="inter:..." (or measure). */
static const arb_logp_t logp_inter_tcp = {
    .L = 10, .os = 7, .orecv = 7, .g = 8, .G = 0.001, .G1 = 0.001};

void arb_logp_default_inter(arb_logp_t *out)
{
    if (out) *out = logp_inter_tcp;
}

arbor_status_t arb_logp_parse_levels(const char *text, arb_logp_t *intra, arb_logp_t *inter,
                                     char *err, size_t errlen)
{
    if (text == NULL || intra == NULL || inter == NULL) {
        set_err(err, errlen, "logp: NULL argument");
        return ARBOR_ERR_INVALID_ARG;
    }
    if (!has_prefix(text, "intra:") && !has_prefix(text, "inter:"))
        return arb_logp_parse(text, intra, err, errlen);
    arb_logp_t a = *intra, b = *inter;
    bool seen_intra = false, seen_inter = false;
    for (const char *p = text; *p;) {
        const char *semi = strchr(p, ';');
        size_t len = semi ? (size_t)(semi - p) : strlen(p);
        char buf[256];
        if (len >= sizeof(buf)) {
            set_err(err, errlen, "logp: level \"%.40s...\" too long", p);
            return ARBOR_ERR_CONFIG;
        }
        memcpy(buf, p, len);
        buf[len] = '\0';
        bool is_intra = has_prefix(buf, "intra:"), is_inter = has_prefix(buf, "inter:");
        if (!is_intra && !is_inter) {
            set_err(err, errlen, "logp: level \"%s\" must start with intra: or inter:", buf);
            return ARBOR_ERR_CONFIG;
        }
        if ((is_intra && seen_intra) || (is_inter && seen_inter)) {
            set_err(err, errlen, "logp: level %.5s given twice", buf);
            return ARBOR_ERR_CONFIG;
        }
        arbor_status_t status = arb_logp_parse(buf + 6, is_intra ? &a : &b, err, errlen);
        if (status != ARBOR_OK) return status;
        seen_intra |= is_intra;
        seen_inter |= is_inter;
        p = semi ? semi + 1 : p + len;
        if (semi && *p == '\0') {
            set_err(err, errlen, "logp: empty level after ';'");
            return ARBOR_ERR_CONFIG;
        }
    }
    *intra = a;
    *inter = b;
    return ARBOR_OK;
}
