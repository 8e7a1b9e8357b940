/* ARBOR_TUNE rules (tune.h): a strict parser, since a silently ignored rule misleads a site. */
#include "algorithms/tune.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_size(const char *s, size_t *out)
{
    if (!strcmp(s, "inf")) return *out = (size_t)-1, 0;
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)*s)) return -1; /* strtoull takes "-1" and " +1" */
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno) return -1;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K':
        shift = 10, end++;
        break;
    case 'M':
        shift = 20, end++;
        break;
    case 'G':
        shift = 30, end++;
        break;
    default:
        break;
    }
    if (*end || v > (unsigned long long)SIZE_MAX >> shift) return -1; /* would wrap */
    *out = (size_t)(v << shift);
    return 0;
}

/* "lo-hi" in bytes (or ranks); 0, or -1 with what is wrong in err. */
static int parse_range(char *s, size_t *lo, size_t *hi, char *err, size_t errlen)
{
    char *dash = strchr(s, '-');
    if (!dash) {
        snprintf(err, errlen, "range '%.40s' has no '-' (expected lo-hi, such as 0-64K)", s);
        return -1;
    }
    *dash = '\0';
    const char *bad = parse_size(s, lo) ? s : parse_size(dash + 1, hi) ? dash + 1 : NULL;
    if (bad) {
        snprintf(err, errlen,
                 "'%.40s' in range '%.40s-%.40s' is not a size (digits with an optional K, M or G "
                 "suffix, at most %zu, or inf)",
                 bad, s, dash + 1, (size_t)SIZE_MAX);
        return -1;
    }
    if (*lo > *hi) {
        snprintf(err, errlen,
                 "range %.40s-%.40s is reversed: its low end must not exceed its high end", s,
                 dash + 1);
        return -1;
    }
    return 0;
}

static void names_of(arb_coll_t coll, char *buf, size_t len)
{
    int n;
    size_t used = 0;
    const arb_alg_desc_t *tab = arb_alg_table(coll, &n);
    buf[0] = '\0';
    for (int i = 1; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i > 1 ? ", " : "", tab[i].name);
}

static arbor_status_t parse_rule(char *text, arb_tune_rule_t *r, char *err, size_t errlen)
{
    char *save = NULL, *field[4];
    int nf = 0;
    char names[256];
    for (char *f = strtok_r(text, ":", &save); f; f = strtok_r(NULL, ":", &save)) {
        if (nf == 4) goto bad;
        field[nf++] = f;
    }
    if (nf < 3) goto bad;
    int c;
    for (c = 0; c < ARB_COLL_KINDS && strcmp(field[0], arb_coll_name((arb_coll_t)c)); c++) {
    }
    if (c == ARB_COLL_KINDS) {
        snprintf(err, errlen, "unknown collective '%s' (barrier, bcast)", field[0]);
        return ARBOR_ERR_CONFIG;
    }
    r->coll = (arb_coll_t)c;
    if (parse_range(field[1], &r->lo, &r->hi, err, errlen)) return ARBOR_ERR_CONFIG;
    r->rlo = 1;
    r->rhi = 1 << 30;
    if (nf == 4) {
        size_t lo, hi;
        if (strncmp(field[2], "ranks=", 6)) goto bad;
        if (parse_range(field[2] + 6, &lo, &hi, err, errlen)) return ARBOR_ERR_CONFIG;
        if (lo == 0) { /* a team has at least one rank: 0-0 would be a rule that never fires */
            snprintf(err, errlen, "ranks range starts at 0 (a team has at least 1 rank)");
            return ARBOR_ERR_CONFIG;
        }
        r->rlo = lo > (size_t)(1 << 30) ? 1 << 30 : (int)lo;
        r->rhi = hi > (size_t)(1 << 30) ? 1 << 30 : (int)hi;
    }
    const char *alg = field[nf - 1];
    if (alg[0] != '@') goto bad;
    int n;
    const arb_alg_desc_t *tab = arb_alg_table(r->coll, &n);
    for (r->alg = 1; r->alg < n && strcmp(tab[r->alg].name, alg + 1); r->alg++) {
    }
    if (r->alg < n) return ARBOR_OK;
    names_of(r->coll, names, sizeof(names));
    snprintf(err, errlen, "unknown %s algorithm '%s' (valid: %s)", field[0], alg + 1, names);
    return ARBOR_ERR_CONFIG;
bad:
    snprintf(err, errlen, "rule not of the form collective:lo-hi[:ranks=lo-hi]:@algorithm");
    return ARBOR_ERR_CONFIG;
}

arbor_status_t arb_tune_parse(const char *text, arb_tune_t *tune, char *err, size_t errlen)
{
    char *dup = strdup(text), *save = NULL;
    arb_tune_t t = {.n = 0};
    arbor_status_t status = ARBOR_OK;
    if (!dup) return ARBOR_ERR_NO_MEMORY;
    for (char *rule = strtok_r(dup, "#", &save); rule && status == ARBOR_OK;
         rule = strtok_r(NULL, "#", &save)) {
        char copy[256];
        snprintf(copy, sizeof(copy), "%s", rule);
        if (t.n == ARB_TUNE_MAX_RULES) {
            snprintf(err, errlen, "more than %d rules", ARB_TUNE_MAX_RULES);
            status = ARBOR_ERR_CONFIG;
            break;
        }
        char why[384];
        status = parse_rule(rule, &t.rule[t.n++], why, sizeof(why));
        if (status != ARBOR_OK) snprintf(err, errlen, "rule '%s': %s", copy, why);
    }
    free(dup);
    if (status == ARBOR_OK) *tune = t;
    return status;
}

void arb_tune_defaults(arb_tune_t *tune, const arb_tune_env_t *env)
{
    memset(tune, 0, sizeof(*tune));
    /* Oversubscribed: the barrier is flat. With more ranks than cores it takes one context
     * switch like direct and dissemination's good runs, but rank 0 releases everyone and so
     * leaves first: a collective rooted at 0 that follows has sent before its receivers wake,
     * and costs a fraction of what it costs after a direct barrier (docs/PERFORMANCE.md, "The
     * model on an oversubscribed node"). */
    if (env->oversubscribed) {
        int n;
        const arb_alg_desc_t *tab = arb_alg_table(ARB_COLL_BARRIER, &n);
        for (int i = 1; i < n; i++)
            if (!strcmp(tab[i].name, "flat"))
                tune->rule[tune->n++] = (arb_tune_rule_t){.coll = ARB_COLL_BARRIER,
                                                          .lo = 0,
                                                          .hi = (size_t)-1,
                                                          .rlo = 1,
                                                          .rhi = 1 << 30,
                                                          .alg = i};
    }
}

int arb_tune_match(const arb_tune_t *tune, arb_coll_t coll, size_t bytes, int ranks)
{
    for (int i = 0; i < tune->n; i++) {
        const arb_tune_rule_t *r = &tune->rule[i];
        if (r->coll == coll && bytes >= r->lo && bytes <= r->hi && ranks >= r->rlo &&
            ranks <= r->rhi)
            return r->alg;
    }
    return 0;
}
