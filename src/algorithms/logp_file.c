/* The calibration file's parser, writer and digest (logp_file.h). */
#include "algorithms/logp_file.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char *const path_names[ARB_CALIB_PATHS] = {"intra mapped", "intra rma", "inter rma"};

const char *arb_calib_path_name(int path)
{
    return path >= 0 && path < ARB_CALIB_PATHS ? path_names[path] : "?";
}

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (err == NULL || errlen == 0) return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* The next whitespace-separated word of *p (advanced past it) into w; false at the end of the
 * line or when the word does not fit (w then holds its start). */
static bool word(const char **p, char *w, size_t wlen)
{
    const char *s = *p;
    while (blank(*s)) s++;
    size_t n = 0;
    while (s[n] && !blank(s[n])) n++;
    *p = s + n;
    snprintf(w, wlen, "%.*s", (int)n, s);
    return n > 0 && n < wlen;
}

static bool rest_blank(const char *p)
{
    while (blank(*p)) p++;
    return *p == '\0';
}

/* One model line after its level word: "<path> <keys>". */
static arbor_status_t model_line(int lineno, const char *level, const char *p, arb_calib_t *c,
                                 char *err, size_t errlen)
{
    char path[32], keys[512], why[256];
    if (!word(&p, path, sizeof(path))) {
        set_err(err, errlen, "line %d: %s needs a path (mapped or rma) and the LogGP keys", lineno,
                level);
        return ARBOR_ERR_CONFIG;
    }
    int idx = -1;
    if (!strcmp(level, "intra") && !strcmp(path, "mapped")) idx = ARB_CALIB_INTRA_MAPPED;
    if (!strcmp(level, "intra") && !strcmp(path, "rma")) idx = ARB_CALIB_INTRA_RMA;
    if (!strcmp(level, "inter") && !strcmp(path, "rma")) idx = ARB_CALIB_INTER_RMA;
    if (idx < 0) {
        set_err(err, errlen,
                "line %d: unknown path \"%s %s\" (intra mapped, intra rma or inter rma: between "
                "nodes nothing is mapped)",
                lineno, level, path);
        return ARBOR_ERR_CONFIG;
    }
    if (c->have & (1u << idx)) {
        set_err(err, errlen, "line %d: \"%s\" given twice", lineno, path_names[idx]);
        return ARBOR_ERR_CONFIG;
    }
    if (!word(&p, keys, sizeof(keys)) || !rest_blank(p)) {
        set_err(err, errlen,
                "line %d: \"%s\" needs one list of keys without spaces, e.g. "
                "L=0.1,os=0.05,or=0.05,g=0.05,G=8e-05",
                lineno, path_names[idx]);
        return ARBOR_ERR_CONFIG;
    }
    /* -1 marks a required key not given (the parser refuses negative values). */
    arb_logp_t m = {.L = -1, .os = -1, .orecv = -1, .g = -1, .G = -1, .G1 = 0, .Gop = 0};
    if (arb_logp_parse(keys, &m, why, sizeof(why)) != ARBOR_OK) {
        set_err(err, errlen, "line %d: %s", lineno, why);
        return ARBOR_ERR_CONFIG;
    }
    const char *missing = m.L < 0       ? "L"
                          : m.os < 0    ? "os"
                          : m.orecv < 0 ? "or"
                          : m.g < 0     ? "g"
                          : m.G < 0     ? "G"
                                        : NULL;
    if (missing) {
        set_err(err, errlen, "line %d: \"%s\" lacks key %s (L, os, or, g and G are required)",
                lineno, path_names[idx], missing);
        return ARBOR_ERR_CONFIG;
    }
    c->m[idx] = m;
    c->have |= 1u << idx;
    return ARBOR_OK;
}

arbor_status_t arb_calib_parse(const char *text, arb_calib_t *out, char *err, size_t errlen)
{
    if (text == NULL || out == NULL) {
        set_err(err, errlen, "NULL argument");
        return ARBOR_ERR_INVALID_ARG;
    }
    arb_calib_t c;
    memset(&c, 0, sizeof(c));
    bool versioned = false;
    int lineno = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[1024], w[64];
        lineno++;
        if (len >= sizeof(line)) {
            set_err(err, errlen, "line %d: longer than %zu characters", lineno, sizeof(line) - 1);
            return ARBOR_ERR_CONFIG;
        }
        memcpy(line, p, len);
        line[len] = '\0';
        p = nl ? nl + 1 : p + len;
        const char *q = line;
        while (blank(*q)) q++;
        if (*q == '\0' || *q == '#') continue;
        if (!word(&q, w, sizeof(w))) {
            set_err(err, errlen, "line %d: unknown item \"%s...\"", lineno, w);
            return ARBOR_ERR_CONFIG;
        }
        if (!versioned) {
            char v[16];
            if (strcmp(w, "arbor-calibration")) {
                set_err(err, errlen,
                        "line %d: not a calibration file (the first item must be "
                        "\"arbor-calibration %d\"; write one with arbor-info --calibrate -o FILE)",
                        lineno, ARB_CALIB_VERSION);
                return ARBOR_ERR_CONFIG;
            }
            bool got = word(&q, v, sizeof(v)) && rest_blank(q);
            char two[16];
            snprintf(two, sizeof(two), "%d", ARB_CALIB_VERSION);
            bool v1 = got && !strcmp(v, "1");
            if (!got || (!v1 && strcmp(v, two))) {
                set_err(err, errlen,
                        "line %d: unsupported calibration format \"%s\" (this arbor reads "
                        "versions 1 and %d; write a new one with arbor-info --calibrate -o FILE)",
                        lineno, v, ARB_CALIB_VERSION);
                return ARBOR_ERR_CONFIG;
            }
            c.version = v1 ? 1 : ARB_CALIB_VERSION;
            versioned = true;
            continue;
        }
        if (!strcmp(w, "transport")) {
            char tp[64];
            if (c.transport[0]) {
                set_err(err, errlen, "line %d: transport given twice", lineno);
                return ARBOR_ERR_CONFIG;
            }
            if (!word(&q, tp, sizeof(tp)) || !rest_blank(q) || strlen(tp) >= sizeof(c.transport)) {
                set_err(err, errlen, "line %d: transport needs one name (ucx, ofi:shm, ...)",
                        lineno);
                return ARBOR_ERR_CONFIG;
            }
            snprintf(c.transport, sizeof(c.transport), "%s", tp);
            continue;
        }
        if (!strcmp(w, "intra") || !strcmp(w, "inter")) {
            arbor_status_t status = model_line(lineno, w, q, &c, err, errlen);
            if (status != ARBOR_OK) return status;
            continue;
        }
        set_err(err, errlen,
                "line %d: unknown item \"%s\" (arbor-calibration, transport, intra, inter)", lineno,
                w);
        return ARBOR_ERR_CONFIG;
    }
    if (!versioned) {
        set_err(err, errlen, "line %d: empty file (no \"arbor-calibration %d\" line)", lineno,
                ARB_CALIB_VERSION);
        return ARBOR_ERR_CONFIG;
    }
    if (!c.transport[0]) {
        set_err(err, errlen, "line %d: end of file without a transport line", lineno);
        return ARBOR_ERR_CONFIG;
    }
    if (!c.have) {
        set_err(err, errlen, "line %d: end of file without a model line (intra or inter)", lineno);
        return ARBOR_ERR_CONFIG;
    }
    *out = c;
    return ARBOR_OK;
}

size_t arb_calib_format(const arb_calib_t *c, char *buf, size_t len)
{
    char tmp[512];
    size_t used = 0;
    /* snprintf into a NULL or exhausted buffer still counts what it would write. */
#define PUT(...)                                                                                   \
    used +=                                                                                        \
        (size_t)snprintf(used < len ? buf + used : NULL, used < len ? len - used : 0, __VA_ARGS__)
    if (len) buf[0] = '\0';
    PUT("# arbor LogGP calibration (docs/PERFORMANCE.md, \"Calibration\"): L, os, or, g in us;\n"
        "# G (through a landing slot), G1 (one copy), Gop (reduction) and Gc (cross-memory\n"
        "# attach) in us per byte; call (one collective call besides its messages) in us\n");
    PUT("arbor-calibration %d\ntransport %s\n", ARB_CALIB_VERSION, c->transport);
    for (int p = 0; p < ARB_CALIB_PATHS; p++) {
        if (!(c->have & (1u << p))) continue;
        arb_logp_format(&c->m[p], tmp, sizeof(tmp));
        PUT("%s %s\n", path_names[p], tmp);
    }
#undef PUT
    return used;
}

uint64_t arb_calib_digest(const arb_calib_t *c)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a over the canonical text */
    char text[2048];
    size_t n = arb_calib_format(c, text, sizeof(text));
    for (size_t i = 0; i < n && i < sizeof(text) - 1; i++)
        h = (h ^ (uint8_t)text[i]) * 1099511628211ull;
    return h ? h : 1;
}
