/*
 * arbor-info: the version, the transports compiled in and which of them open on this machine
 * (libfabric providers with their capabilities), the algorithms, and every ARBOR_* variable
 * with its default, current value and meaning, all printed from the library's own tables
 * through arbor_info_get (a client of arbor.h only, like any tool).
 *   arbor-info            everything
 *   arbor-info -c         configuration only;  -A  algorithms only
 *   arbor-info -r         the running library: arbor_init, then transport, model, topology,
 *                         segment and heap (under a launcher: one block per rank)
 *   arbor-info --readme   the configuration as a Markdown table (README.md is generated so)
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbor.h"

static arbor_status_t last_status; /* of the last info() */

/* The answer to key (a printf format with its arguments), or "?" when the library has none. */
static const char *info(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static const char *info(char *buf, size_t len, const char *fmt, ...)
{
    char key[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(key, sizeof(key), fmt, ap);
    va_end(ap);
    last_status = arbor_info_get(key, buf, len);
    if (last_status != ARBOR_OK && last_status != ARBOR_ERR_COUNT && buf[0] == '\0')
        snprintf(buf, len, "?");
    return buf;
}

static int count_of(const char *key)
{
    char buf[32];
    return arbor_info_get(key, buf, sizeof(buf)) == ARBOR_OK ? atoi(buf) : 0;
}

static void probe(int t, const char *name, const char *provider)
{
    char buf[512];
    if (provider)
        info(buf, sizeof(buf), "transport.%d.probe:%s", t, provider);
    else
        info(buf, sizeof(buf), "transport.%d.probe", t);
    printf("  %-6s %-16s ", name, provider ? (*provider ? provider : "(auto)") : "");
    if (last_status != ARBOR_OK) {
        printf("does not open: %s\n", arbor_strerror(last_status));
        return;
    }
    /* "<description> <caps>" */
    char *space = strchr(buf, ' ');
    if (space) *space++ = '\0';
    printf("opens as %-18s caps %s\n", buf, space ? space : "-");
}

static void print_transports(void)
{
    static const char *const providers[] = {"",    "shm", "tcp;ofi_rxm", "sockets", "verbs;ofi_rxm",
                                            "efa", "cxi", "psm3"};
    printf("transports (compiled in, in ARBOR_TRANSPORT=auto order):\n");
    int n = count_of("transport.count");
    for (int t = 0; t < n; t++) {
        char name[64];
        info(name, sizeof(name), "transport.%d.name", t);
        if (strcmp(name, "ofi")) {
            probe(t, name, NULL);
            continue;
        }
        for (size_t i = 0; i < sizeof(providers) / sizeof(providers[0]); i++)
            probe(t, name, providers[i]);
    }
}

static void print_algorithms(void)
{
    printf("algorithms (ARBOR_<COLLECTIVE>_ALGORITHM):\n");
    int nc = count_of("collective.count");
    for (int c = 0; c < nc; c++) {
        char coll[64], key[64], name[64], desc[512];
        info(coll, sizeof(coll), "collective.%d.name", c);
        snprintf(key, sizeof(key), "collective.%d.algorithm.count", c);
        int na = count_of(key);
        for (int a = 0; a < na; a++)
            printf("  %-8s %-14s %s\n", coll,
                   info(name, sizeof(name), "collective.%d.algorithm.%d.name", c, a),
                   info(desc, sizeof(desc), "collective.%d.algorithm.%d.description", c, a));
    }
}

static int print_config(int readme)
{
    char err[1024], warn[2048];
    info(err, sizeof(err), "config.error");
    if (err[0]) {
        fprintf(stderr, "arbor-info: %s\n", err);
        return 1;
    }
    info(warn, sizeof(warn), "config.unknown");
    if (readme) {
        printf("| variable | default | accepted values | meaning |\n|---|---|---|---|\n");
    } else {
        printf("configuration (ARBOR_* environment variables):\n");
        printf("  %-26s %-8s %-14s %s\n", "variable", "default", "current", "meaning");
    }
    int n = count_of("config.count");
    for (int i = 0; i < n; i++) {
        char name[64], dflt[128], syntax[512], doc[2048], cur[300];
        info(name, sizeof(name), "config.%d.name", i);
        info(dflt, sizeof(dflt), "config.%d.default", i);
        info(syntax, sizeof(syntax), "config.%d.syntax", i);
        info(doc, sizeof(doc), "config.%d.doc", i);
        info(cur, sizeof(cur), "config.%d.value", i);
        if (readme)
            printf("| `ARBOR_%s` | `%s` | %s | %s |\n", name, dflt, syntax, doc);
        else
            printf("  ARBOR_%-20s %-8s %-14s %s [%s]\n", name, dflt[0] ? dflt : "\"\"",
                   cur[0] ? cur : "\"\"", doc, syntax);
    }
    if (warn[0] && !readme) printf("  unknown: %s\n", warn);
    return 0;
}

/* The running library, as this rank sees it. */
static int print_runtime(void)
{
    arbor_status_t status = arbor_init();
    if (status != ARBOR_OK) {
        fprintf(stderr, "arbor-info: arbor_init: %s\n", arbor_strerror(status));
        return 1;
    }
    static const char *const keys[] = {"transport",
                                       "model.source",
                                       "model.intra",
                                       "model.inter",
                                       "topology.nodes",
                                       "topology.node",
                                       "topology.oversubscribed",
                                       "segment.bytes",
                                       "heap.bytes",
                                       "heap.used"};
    char rank[16], size[16], buf[512];
    info(rank, sizeof(rank), "rank");
    info(size, sizeof(size), "size");
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        printf("rank %s/%s %-24s %s\n", rank, size, keys[i], info(buf, sizeof(buf), "%s", keys[i]));
    size_t landing = 0; /* the world team's landing channels (docs/PROTOCOL.md) */
    int channels = 0;
    status = arbor_team_landing_bytes(ARBOR_TEAM_WORLD, &landing, &channels);
    printf("rank %s/%s %-24s %zu bytes, %d channels%s\n", rank, size, "landing.world", landing,
           channels, status == ARBOR_OK ? "" : " (unavailable)");
    return arbor_finalize() == ARBOR_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "--readme")) return print_config(1);
    if (!strcmp(what, "-c")) return print_config(0);
    if (!strcmp(what, "-A")) return print_algorithms(), 0;
    if (!strcmp(what, "-r")) return print_runtime();
    if (argc > 1) {
        fprintf(stderr, "usage: arbor-info [-c | -A | -r | --readme]\n");
        return 2;
    }
    printf("arbor %s\n", arbor_version());
    print_transports();
    print_algorithms();
    return print_config(0);
}
