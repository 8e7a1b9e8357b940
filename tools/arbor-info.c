/*
 * arbor-info: the version, the transports compiled in and which of them open on this machine
 * (libfabric providers with their capabilities), the algorithms, and every ARBOR_* variable
 * with its default, current value and meaning, all printed from the library's own tables.
 *   arbor-info            everything
 *   arbor-info -c         configuration only;  -A  algorithms only
 *   arbor-info --readme   the configuration as a Markdown table (README.md is generated so)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/coll.h"
#include "arbor.h"
#include "core/config.h"
#include "core/log.h"
#include "transports/transport.h"

int arbor_info_landing(void);

static void print_caps(uint32_t caps)
{
    static const char *const names[] = {"direct-map", "float-atomics", "triggered-ops",
                                        "hw-collectives", "wait-fd", "remote-cq-data"};
    int any = 0;
    for (int i = 0; i < 6; i++)
        if (caps & (1u << i)) printf("%s%s", any++ ? "," : "", names[i]);
    if (!any) printf("-");
}

static void probe(const arb_tp_ops_t *ops, const char *provider)
{
    arb_config_t cfg;
    char err[256], warn[1024];
    arb_tp_t *tp;
    arb_config_parse(&cfg, err, sizeof(err), warn, sizeof(warn));
    if (provider) snprintf(cfg.ofi_provider, sizeof(cfg.ofi_provider), "%s", provider);
    arb_tp_params_t p = {.rank = 0, .size = 1, .segment_size = 1 << 20, .config = &cfg};
    arbor_status_t st = ops->open(&p, &tp);
    printf("  %-6s %-16s ", ops->name, provider ? (*provider ? provider : "(auto)") : "");
    if (st != ARBOR_OK) {
        printf("does not open: %s\n", arbor_strerror(st));
        return;
    }
    printf("opens as %-18s caps ", ops->describe(tp));
    print_caps(ops->caps(tp));
    printf("\n");
    ops->close(tp);
}

static void print_transports(void)
{
    static const char *const providers[] = {"", "shm", "tcp;ofi_rxm", "sockets", "verbs;ofi_rxm",
                                            "efa", "cxi", "psm3"};
    printf("transports (compiled in, in ARBOR_TRANSPORT=auto order):\n");
    int saved = arb_log_level;
    arb_log_level = -1; /* probing failures are answers here, not errors */
    for (const arb_tp_ops_t *const *o = arb_tp_registry; *o; o++) {
        if (strcmp((*o)->name, "ofi")) {
            probe(*o, NULL);
            continue;
        }
        for (size_t i = 0; i < sizeof(providers) / sizeof(providers[0]); i++)
            probe(*o, providers[i]);
    }
    arb_log_level = saved;
}

static void print_algorithms(void)
{
    printf("algorithms (ARBOR_<COLLECTIVE>_ALGORITHM):\n");
    for (int c = 0; c < ARB_COLL_KINDS; c++) {
        int n;
        const arb_alg_desc_t *tab = arb_alg_table((arb_coll_t)c, &n);
        for (int i = 0; i < n; i++)
            printf("  %-8s %-14s %s\n", arb_coll_name((arb_coll_t)c), tab[i].name, tab[i].desc);
    }
}

static int print_config(int readme)
{
    arb_config_t cfg;
    char err[512], warn[1024], cur[300];
    if (arb_config_parse(&cfg, err, sizeof(err), warn, sizeof(warn)) != ARBOR_OK) {
        fprintf(stderr, "arbor-info: %s\n", err);
        return 1;
    }
    if (readme) {
        printf("| variable | default | accepted values | meaning |\n|---|---|---|---|\n");
    } else {
        printf("configuration (ARBOR_* environment variables):\n");
        printf("  %-26s %-8s %-14s %s\n", "variable", "default", "current", "meaning");
    }
    for (size_t i = 0; i < arb_config_rows(); i++) {
        arb_config_row_info_t r;
        arb_config_row(i, &r);
        arb_config_format(&cfg, i, cur, sizeof(cur));
        if (readme)
            printf("| `ARBOR_%s` | `%s` | %s | %s |\n", r.name, r.dflt, r.syntax, r.doc);
        else
            printf("  ARBOR_%-20s %-8s %-14s %s [%s]\n", r.name, r.dflt[0] ? r.dflt : "\"\"",
                   cur[0] ? cur : "\"\"", r.doc, r.syntax);
    }
    if (warn[0] && !readme) printf("  unknown: %s\n", warn);
    return 0;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (!strcmp(what, "--readme")) return print_config(1);
    if (!strcmp(what, "-c")) return print_config(0);
    if (!strcmp(what, "-A")) return print_algorithms(), 0;
    if (!strcmp(what, "-L")) return arbor_info_landing(); /* tools/info_landing.c */
    if (argc > 1) {
        fprintf(stderr, "usage: arbor-info [-c | -A | --readme]\n");
        return 2;
    }
    printf("arbor %s\n", arbor_version());
    print_transports();
    print_algorithms();
    return print_config(0);
}
