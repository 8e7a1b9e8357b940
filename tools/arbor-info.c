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
 *   arbor-info --calibrate [-o FILE]
 *                         under a launcher, on the machine to calibrate: measures the LogGP
 *                         parameters (ARBOR_LOGP_MEASURE) on the path the channels take, and
 *                         again through the transport's RMA (ARBOR_DIRECT=n) where they are
 *                         mapped; rank 0 prints them as a calibration file and writes it to
 *                         FILE, which ARBOR_LOGP_FILE loads (docs/PERFORMANCE.md, "Calibration")
 */
#include <stdarg.h>
#include <stdbool.h>
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
    static const char *const keys[] = {
        "transport",     "model.source",   "model.intra",   "model.cma",
        "model.inter",   "topology.nodes", "topology.node", "topology.oversubscribed",
        "segment.bytes", "heap.bytes",     "heap.used",     "progress.thread"};
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

/* One measuring init: the calibration text of rank 0 (identical on every rank: rank 0's figures
 * are broadcast) into text, and this rank's number. */
static int measure_once(char *text, size_t len, int *rank)
{
    char buf[64];
    setenv("ARBOR_LOGP_MEASURE", "y", 1);
    arbor_status_t status = arbor_init();
    if (status != ARBOR_OK) {
        fprintf(stderr, "arbor-info: arbor_init: %s\n", arbor_strerror(status));
        return 1;
    }
    *rank = atoi(info(buf, sizeof(buf), "rank"));
    int size = atoi(info(buf, sizeof(buf), "size"));
    char over[8];
    info(over, sizeof(over), "topology.oversubscribed");
    int n = snprintf(text, len, "# measured by %d ranks (%s)%s\n", size,
                     info(buf, sizeof(buf), "transport"),
                     strcmp(over, "y") ? ""
                                       : ", more ranks than cores: latencies include waits for "
                                         "descheduled ranks; calibrate with a core per rank");
    info(text + n, len - (size_t)n, "model.calibration");
    status = last_status;
    if (arbor_finalize() != ARBOR_OK) return 1;
    if (status != ARBOR_OK) {
        fprintf(stderr,
                "arbor-info: %s (%d rank%s): nothing measured; run it under a launcher "
                "with 2 or more ranks (mpirun -n 2 arbor-info --calibrate)\n",
                arbor_strerror(status), size, size == 1 ? "" : "s");
        return 1;
    }
    return 0;
}

/* The lines of text that start with prefix, appended to out. */
static void take_lines(const char *text, const char *prefix, char *out, size_t len)
{
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p + 1) : strlen(p), used = strlen(out);
        if (!strncmp(p, prefix, strlen(prefix)) && used + n < len) {
            memcpy(out + used, p, n);
            out[used + n] = '\0';
        }
        p += n;
    }
}

static int calibrate(int argc, char **argv)
{
    const char *file = NULL;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            file = argv[++i];
        else {
            fprintf(stderr, "usage: arbor-info --calibrate [-o FILE]\n");
            return 2;
        }
    }
    /* The model sources must not mix into what is saved: the measurement replaces them, but
     * a stale file that fails to load would stop the init. */
    unsetenv("ARBOR_LOGP_FILE");
    char first[4096] = "", second[4096] = "", out[8192] = "";
    int rank = 0;
    if (measure_once(first, sizeof(first), &rank)) return 1;
    /* Where the channels were mapped, measure the transport's RMA path too (ARBOR_DIRECT=n
     * is how a job takes it); the inter-node line is the same path both times. */
    const char *direct = getenv("ARBOR_DIRECT");
    bool mapped = strstr(first, "\nintra mapped ") != NULL;
    if (mapped && (!direct || strcmp(direct, "n"))) {
        setenv("ARBOR_DIRECT", "n", 1);
        if (measure_once(second, sizeof(second), &rank)) return 1;
    }
    take_lines(first, "#", out, sizeof(out));
    take_lines(first, "arbor-calibration", out, sizeof(out));
    take_lines(first, "transport", out, sizeof(out));
    take_lines(first, "intra", out, sizeof(out));
    take_lines(second, "intra rma", out, sizeof(out));
    take_lines(first, "inter", out, sizeof(out));
    if (rank != 0) return 0;
    fputs(out, stdout);
    if (!file) return 0;
    FILE *f = fopen(file, "w");
    if (!f || fputs(out, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "arbor-info: cannot write %s\n", file);
        return 1;
    }
    fprintf(stderr, "arbor-info: wrote %s (load it with ARBOR_LOGP_FILE=%s)\n", file, file);
    return 0;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "--readme")) return print_config(1);
    if (!strcmp(what, "-c")) return print_config(0);
    if (!strcmp(what, "-A")) return print_algorithms(), 0;
    if (!strcmp(what, "-r")) return print_runtime();
    if (!strcmp(what, "--calibrate")) return calibrate(argc, argv);
    if (argc > 1) {
        fprintf(stderr, "usage: arbor-info [-c | -A | -r | --readme | --calibrate [-o FILE]]\n");
        return 2;
    }
    printf("arbor %s\n", arbor_version());
    print_transports();
    print_algorithms();
    return print_config(0);
}
