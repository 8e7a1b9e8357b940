/*
 * arbor-tree: prints the broadcast tree arbor would build for P ranks and a root, with the
 * LogGP-predicted send and arrival times of every rank (algorithms/tree.h, logp.h), or the
 * predicted completion of every tree kind side by side. No launcher and no transport: it runs
 * the same deterministic builders every rank runs, so it shows what a job would do.
 * With a topology (--nodes and --ranks-per-node, or --node-list) messages between nodes cost
 * the inter-node parameters, the node-aware kinds (karp_node, two_level) become available, and
 * the dot output draws each node as a cluster.
 * With --memory it prints instead the landing memory per rank of a team (docs/PROTOCOL.md,
 * "Landing channels") at cluster scale: the channels each rank's schedules open, counted on the
 * trees the builders make, against the dense layout of one channel per member.
 */
#include "algorithms/logp.h"
#include "algorithms/topo.h"
#include "algorithms/tree.h"
#include "arbor.h"
#include "runtime/model.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANKS     (1 << 24)
#define DEFAULT_RADIX 4
#define EXIT_USAGE    2

typedef enum { FMT_TEXT, FMT_JSON, FMT_DOT } fmt_t;

typedef struct {
    int ranks, root;
    size_t bytes;
    const char *transport;
    const char *logp;
    bool all;
    int kind; /* arb_tree_kind_t, or topo.h's node-aware kinds */
    int radix;
    fmt_t fmt;
    arb_logp_t model;
    arb_logp_t inter;
    const char *nodes_s, *rpn_s, *node_list_s;
    const char *memory_s; /* --memory: rank counts of the landing-memory table, or NULL */
    size_t depth, chunk;  /* landing slots per channel and their bytes (--depth, --chunk) */
    int *node;            /* [ranks] node of each rank, NULL: one node */
    arb_topo_t topo;
} opts_t;

/* One tree with its simulated times, in virtual ranks (root 0). */
typedef struct {
    arb_tree_t tree;
    double *ready;  /* [P] time the rank holds the data */
    double *sendat; /* [P] time its parent started the send to it (0 for the root) */
    double done;
} result_t;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: arbor-tree [options]\n"
            "Prints the broadcast tree for P ranks with LogGP-predicted times, one line per rank:\n"
            "  rank parent send_time_us ready_time_us children...\n"
            "(send_time_us: when the parent starts the send to this rank; ready_time_us: when\n"
            "the rank holds the data; children in send order; parent -1 for the root), then\n"
            "  completion_us <t>\n"
            "options:\n"
            "  --ranks P          number of ranks, 1..%d (default 16)\n"
            "  --root R           root rank, 0..P-1 (default 0)\n"
            "  --bytes M          message size in bytes (default 8)\n"
            "  --transport NAME   default LogGP parameters of a transport: ucx, ofi:shm,\n"
            "                     ofi:tcp;ofi_rxm, ofi:sockets (default ucx)\n"
            "  --logp SPEC        LogGP parameters in us, G in us per byte, e.g.\n"
            "                     L=6,os=1,or=1,g=2,G=0; keys not given keep the defaults\n"
            "  --algorithm A      karp, binomial, knomial[:K] (K >= 2, default %d), binary, flat,\n"
            "                     karp_node, two_level, two_level_binomial (these three need a\n"
            "                     topology), or all: the predicted completion of every kind\n"
            "                     (default karp)\n"
            "  --nodes N          ranks spread over N nodes, --ranks-per-node K each (then\n"
            "                     --ranks may be left out: N x K)\n"
            "  --ranks-per-node K\n"
            "  --node-list LIST   the node of every rank, e.g. 0,0,1,1,2,2\n"
            "                     With a topology --logp takes both levels:\n"
            "                     intra:L=0.3,os=0.5;inter:L=2,g=0.3 (inter default: L=10,\n"
            "                     os=or=7, g=8, G=0.001)\n"
            "  --format F         text, json or dot (Graphviz; one algorithm only); default text\n"
            "  --memory LIST      instead: landing memory per rank and team for each rank count\n"
            "                     of LIST (comma-separated, or \"scale\": 1024,4096,...,1048576),\n"
            "                     --ranks-per-node K per node (default 32), for the trees and\n"
            "                     exchanges the collectives use; a markdown table\n"
            "  --depth D          with --memory: ARBOR_CHANNEL_DEPTH (default 4)\n"
            "  --chunk C          with --memory: ARBOR_CHUNK_SIZE in bytes (default 65536)\n"
            "  --help             this text\n",
            MAX_RANKS, DEFAULT_RADIX);
}

static bool parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v;

    if (s == NULL || *s == '\0') return false;
    errno = 0;
    v = strtol(s, &end, 10);
    if (*end != '\0' || errno == ERANGE || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static bool parse_size(const char *s, size_t *out)
{
    char *end;
    unsigned long long v;

    if (s == NULL || *s < '0' || *s > '9') return false; /* strtoull takes "-1" */
    errno = 0;
    v = strtoull(s, &end, 10);
    if (*end != '\0' || errno == ERANGE || v > SIZE_MAX) return false;
    *out = (size_t)v;
    return true;
}

static bool parse_algorithm(const char *s, opts_t *o)
{
    static const arb_tree_kind_t kinds[] = {ARB_TREE_KARP, ARB_TREE_BINOMIAL, ARB_TREE_BINARY,
                                            ARB_TREE_FLAT};
    static const struct {
        const char *name;
        int kind;
    } topo_kinds[] = {{"karp_node", ARB_TREE_KARP_NODE},
                      {"two_level", ARB_TREE_TWO_LEVEL},
                      {"two_level_binomial", ARB_TREE_TWO_LEVEL_BINOMIAL}};
    long k;

    o->all = false;
    o->radix = DEFAULT_RADIX;
    if (strcmp(s, "all") == 0) {
        o->all = true;
        return true;
    }
    if (strcmp(s, "knomial") == 0 || strncmp(s, "knomial:", 8) == 0) {
        o->kind = ARB_TREE_KNOMIAL;
        if (s[7] == '\0') return true;
        if (!parse_long(s + 8, 2, INT_MAX, &k)) return false;
        o->radix = (int)k;
        return true;
    }
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        if (strcmp(s, arb_tree_kind_name(kinds[i])) == 0) {
            o->kind = kinds[i];
            return true;
        }
    }
    for (size_t i = 0; i < sizeof(topo_kinds) / sizeof(topo_kinds[0]); i++) {
        if (strcmp(s, topo_kinds[i].name) == 0) {
            o->kind = topo_kinds[i].kind;
            return true;
        }
    }
    return false;
}

static int bad_value(const char *opt, const char *val, const char *want)
{
    fprintf(stderr, "arbor-tree: invalid value \"%s\" for %s (expected %s)\n", val, opt, want);
    return EXIT_USAGE;
}

/* --nodes / --ranks-per-node give the rank count when --ranks is absent; -1 to go on. */
static int parse_topology_size(opts_t *o, bool ranks_given, const char **ranks_s, char *buf,
                               size_t len)
{
    long n, k;
    if (o->node_list_s && (o->nodes_s || o->rpn_s)) {
        fprintf(stderr, "arbor-tree: --node-list excludes --nodes and --ranks-per-node\n");
        return EXIT_USAGE;
    }
    if (o->node_list_s) {
        if (!ranks_given) {
            long c = 1;
            for (const char *p = o->node_list_s; *p; p++) c += *p == ',';
            snprintf(buf, len, "%ld", c);
            *ranks_s = buf;
        }
        return -1;
    }
    if (!o->nodes_s && !o->rpn_s) return -1;
    if (!o->nodes_s || !o->rpn_s) {
        fprintf(stderr, "arbor-tree: --nodes and --ranks-per-node go together\n");
        return EXIT_USAGE;
    }
    if (!parse_long(o->nodes_s, 1, MAX_RANKS, &n)) return bad_value("--nodes", o->nodes_s, ">= 1");
    if (!parse_long(o->rpn_s, 1, MAX_RANKS, &k))
        return bad_value("--ranks-per-node", o->rpn_s, ">= 1");
    if (n * k > MAX_RANKS) return bad_value("--nodes", o->nodes_s, "nodes x ranks within --ranks");
    if (!ranks_given) {
        snprintf(buf, len, "%ld", n * k);
        *ranks_s = buf;
    }
    return -1;
}

/* The node table: block placement of --ranks-per-node, or --node-list; -1 to go on. */
static int fill_topology(opts_t *o)
{
    if (!o->node_list_s && !o->nodes_s) return -1;
    int P = o->ranks, nn = 0;
    o->node = malloc((size_t)P * sizeof(int));
    if (!o->node) return 1;
    if (o->node_list_s) {
        const char *p = o->node_list_s;
        for (int r = 0; r < P; r++) {
            char *end;
            errno = 0;
            long v = strtol(p, &end, 10);
            if (end == p || v < 0 || v >= P || errno || (*end != ',' && *end != '\0') ||
                (*end == '\0' && r != P - 1))
                return bad_value("--node-list", o->node_list_s,
                                 "one node index in 0..P-1 per rank, comma-separated");
            o->node[r] = (int)v;
            p = end + 1;
        }
    } else {
        long k = strtol(o->rpn_s, NULL, 10);
        for (int r = 0; r < P; r++) o->node[r] = (int)(r / k);
    }
    /* Renumber in order of first appearance, as arbor does per team. */
    int *map = malloc((size_t)P * sizeof(int));
    if (!map) return 1;
    for (int r = 0; r < P; r++) map[r] = -1;
    for (int r = 0; r < P; r++) {
        if (map[o->node[r]] < 0) map[o->node[r]] = nn++;
        o->node[r] = map[o->node[r]];
    }
    free(map);
    o->topo = (arb_topo_t){.nnodes = nn, .node = o->node, .inter = o->inter};
    return -1;
}

static const char *kind_name(int kind)
{
    return kind == ARB_TREE_KARP_NODE            ? "karp_node"
           : kind == ARB_TREE_TWO_LEVEL          ? "two_level"
           : kind == ARB_TREE_TWO_LEVEL_BINOMIAL ? "two_level_binomial"
                                                 : arb_tree_kind_name((arb_tree_kind_t)kind);
}

/* --memory: the rank counts (returned in o->node as a list ending in 0), the per-node count, the
 * model. Returns -1 to go on, or the exit code. */
static int parse_memory(opts_t *o)
{
    static const char scale[] = "1024,4096,16384,65536,262144,1048576";
    const char *p = strcmp(o->memory_s, "scale") == 0 ? scale : o->memory_s;
    long v, n = 1;
    char err[256];
    for (const char *q = p; *q; q++) n += *q == ',';
    o->node = calloc((size_t)n + 1, sizeof(int));
    if (!o->node) return 1;
    for (long i = 0; i < n; i++) {
        char buf[32];
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 0 || len >= sizeof(buf))
            return bad_value("--memory", o->memory_s, "scale, or rank counts separated by commas");
        memcpy(buf, p, len);
        buf[len] = '\0';
        if (!parse_long(buf, 2, MAX_RANKS, &v)) {
            char want[64];
            snprintf(want, sizeof(want), "rank counts in 2..%d", MAX_RANKS);
            return bad_value("--memory", o->memory_s, want);
        }
        o->node[i] = (int)v;
        p = end ? end + 1 : p + len;
    }
    if (o->nodes_s || o->node_list_s) {
        fprintf(stderr, "arbor-tree: --memory takes --ranks-per-node only\n");
        return EXIT_USAGE;
    }
    if (o->rpn_s && !parse_long(o->rpn_s, 1, MAX_RANKS, &v))
        return bad_value("--ranks-per-node", o->rpn_s, ">= 1");
    o->radix = o->rpn_s ? (int)v : 32; /* ranks per node, in this mode */
    if (!o->depth) o->depth = 4;
    if (!o->chunk) o->chunk = 65536;
    arb_model_defaults_by_name(o->transport, &o->model, &o->inter);
    if (o->logp != NULL &&
        arb_logp_parse_levels(o->logp, &o->model, &o->inter, err, sizeof(err)) != ARBOR_OK) {
        fprintf(stderr, "arbor-tree: invalid value \"%s\" for --logp: %s\n", o->logp, err);
        return EXIT_USAGE;
    }
    return -1;
}

static int ceil_log2(long x)
{
    int k = 0;
    while ((1L << k) < x) k++;
    return k;
}

/* One row: a schedule shape and the channels (receive peers) of its ranks. */
static void memory_row(const opts_t *o, int P, const char *what, long max_ch, double mean_ch)
{
    double block = 2048.0 + (double)o->depth * (64.0 + (double)o->chunk); /* team.h */
    double links = 64.0 * P,
           dense = 128.0 * P + (double)P * (double)o->depth * (64.0 + (double)o->chunk);
    double worst = links + (double)max_ch * block, mean = links + mean_ch * block;
    printf("| %d | %s | %ld | %.2f | %.3f | %.3f | %.4f%% |\n", P, what, max_ch, mean_ch,
           worst / 1048576.0, mean / 1048576.0, 100.0 * worst / dense);
}

/* Receive peers on the tree of kind: a tree broadcast (the parent), a reduction up it (the
 * children) and an up-down allreduce or barrier (both). */
static bool memory_tree(const opts_t *o, int P, int kind, const arb_topo_t *topo)
{
    arb_tree_t t;
    arbor_status_t st =
        kind >= ARB_TREE_KARP_NODE
            ? arb_tree_build_topo(kind, P, &o->model, topo, 0, o->bytes, &t)
            : arb_tree_build((arb_tree_kind_t)kind, P, DEFAULT_RADIX, &o->model, o->bytes, &t);
    if (st != ARBOR_OK) {
        fprintf(stderr, "arbor-tree: building the %s tree for %d ranks failed (status %d)\n",
                kind_name(kind), P, (int)st);
        return false;
    }
    long max_down = 0, max_up = 0, sum_up = 0;
    for (int v = 0; v < P; v++) {
        long kids = t.child_start[v + 1] - t.child_start[v];
        long both = kids + (t.parent[v] >= 0);
        if (kids > max_down) max_down = kids;
        if (both > max_up) max_up = both;
        sum_up += both;
    }
    char what[96];
    snprintf(what, sizeof(what), "bcast, %s tree", kind_name(kind));
    memory_row(o, P, what, 1, (double)(P - 1) / P);
    snprintf(what, sizeof(what), "reduce / gather, %s tree", kind_name(kind));
    memory_row(o, P, what, max_down, (double)(P - 1) / P);
    snprintf(what, sizeof(what), "allreduce / barrier up-down, %s tree", kind_name(kind));
    memory_row(o, P, what, max_up, (double)sum_up / P);
    arb_tree_free(&t);
    return true;
}

static int print_memory(const opts_t *o)
{
    double block = 2048.0 + (double)o->depth * (64.0 + (double)o->chunk); /* team.h */
    printf("Landing memory per rank and team: depth %zu x chunk %zu bytes, one channel block = "
           "%.0f bytes, plus a 64-byte link line per member; %d ranks per node. Channels: the "
           "peers a rank's schedules receive from (max over ranks, and mean).\n\n",
           o->depth, o->chunk, block, o->radix);
    printf("| P | schedule | channels max | channels mean | MiB max | MiB mean | of dense |\n"
           "|---|---|---|---|---|---|---|\n");
    for (int i = 0; o->node[i]; i++) {
        int P = o->node[i], k = o->radix;
        int *node = malloc((size_t)P * sizeof(int));
        if (!node) return 1;
        for (int r = 0; r < P; r++) node[r] = r / k;
        arb_topo_t topo = {.nnodes = (P + k - 1) / k, .node = node, .inter = o->inter};
        bool ok = true;
        if (arb_topo_multi(&topo))
            ok = memory_tree(o, P, ARB_TREE_KARP_NODE, &topo) &&
                 memory_tree(o, P, ARB_TREE_TWO_LEVEL_BINOMIAL, &topo);
        ok = ok && memory_tree(o, P, ARB_TREE_BINOMIAL, &topo);
        free(node);
        if (!ok) return 1;
        int lg = ceil_log2(P);
        memory_row(o, P, "barrier dissemination, allreduce recursive doubling", lg, lg);
        memory_row(o, P, "allgather ring", 1, 1);
        memory_row(o, P, "alltoall pairwise, direct algorithms", P - 1, P - 1);
        printf("| %d | dense layout (before: a channel per member) | %d | %d | %.3f | %.3f | "
               "100%% |\n",
               P, P, P,
               (128.0 * P + (double)P * (double)o->depth * (64.0 + (double)o->chunk)) / 1048576.0,
               (128.0 * P + (double)P * (double)o->depth * (64.0 + (double)o->chunk)) / 1048576.0);
    }
    return 0;
}

/* Returns -1 to go on, or the exit code. */
static int parse_args(int argc, char **argv, opts_t *o)
{
    const char *ranks_s = "16", *root_s = "0";
    bool ranks_given = false;
    long v;
    char err[256];

    memset(o, 0, sizeof(*o));
    o->bytes = 8;
    o->transport = "ucx";
    o->kind = ARB_TREE_KARP;
    o->radix = DEFAULT_RADIX;
    o->fmt = FMT_TEXT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        char name[32];
        const char *eq = strchr(a, '=');

        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strncmp(a, "--", 2) != 0) {
            fprintf(stderr, "arbor-tree: unexpected argument \"%s\" (see --help)\n", a);
            return EXIT_USAGE;
        }
        /* "--opt value" or "--opt=value" */
        size_t nlen = eq != NULL ? (size_t)(eq - a) : strlen(a);
        if (nlen >= sizeof(name)) nlen = sizeof(name) - 1;
        memcpy(name, a, nlen);
        name[nlen] = '\0';
        if (strcmp(name, "--ranks") != 0 && strcmp(name, "--root") != 0 &&
            strcmp(name, "--bytes") != 0 && strcmp(name, "--logp") != 0 &&
            strcmp(name, "--transport") != 0 && strcmp(name, "--algorithm") != 0 &&
            strcmp(name, "--format") != 0 && strcmp(name, "--nodes") != 0 &&
            strcmp(name, "--ranks-per-node") != 0 && strcmp(name, "--node-list") != 0 &&
            strcmp(name, "--memory") != 0 && strcmp(name, "--depth") != 0 &&
            strcmp(name, "--chunk") != 0) {
            fprintf(stderr, "arbor-tree: unknown option \"%s\" (see --help)\n", a);
            return EXIT_USAGE;
        }
        if (eq != NULL) {
            val = eq + 1;
        } else if (i + 1 < argc) {
            val = argv[++i];
        } else {
            fprintf(stderr, "arbor-tree: option %s needs a value\n", name);
            return EXIT_USAGE;
        }
        if (strcmp(name, "--ranks") == 0) {
            ranks_s = val;
            ranks_given = true;
        } else if (strcmp(name, "--nodes") == 0) {
            o->nodes_s = val;
        } else if (strcmp(name, "--ranks-per-node") == 0) {
            o->rpn_s = val;
        } else if (strcmp(name, "--node-list") == 0) {
            o->node_list_s = val;
        } else if (strcmp(name, "--root") == 0) {
            root_s = val;
        } else if (strcmp(name, "--memory") == 0) {
            o->memory_s = val;
        } else if (strcmp(name, "--depth") == 0) {
            if (!parse_long(val, 1, 1024, &v)) return bad_value(name, val, "an integer in 1..1024");
            o->depth = (size_t)v;
        } else if (strcmp(name, "--chunk") == 0) {
            if (!parse_size(val, &o->chunk) || o->chunk < 64 || o->chunk % 64)
                return bad_value(name, val, "a multiple of 64 bytes");
        } else if (strcmp(name, "--bytes") == 0) {
            if (!parse_size(val, &o->bytes)) return bad_value(name, val, "a byte count >= 0");
        } else if (strcmp(name, "--logp") == 0) {
            o->logp = val;
        } else if (strcmp(name, "--transport") == 0) {
            if (*val == '\0') return bad_value(name, val, "a transport name");
            o->transport = val;
        } else if (strcmp(name, "--algorithm") == 0) {
            if (!parse_algorithm(val, o))
                return bad_value(name, val,
                                 "karp, binomial, knomial[:K] with K >= 2, binary, flat, "
                                 "karp_node, two_level, two_level_binomial or all");
        } else {
            if (strcmp(val, "text") == 0)
                o->fmt = FMT_TEXT;
            else if (strcmp(val, "json") == 0)
                o->fmt = FMT_JSON;
            else if (strcmp(val, "dot") == 0)
                o->fmt = FMT_DOT;
            else
                return bad_value(name, val, "text, json or dot");
        }
    }
    if (o->memory_s) return parse_memory(o);
    if (o->depth || o->chunk) {
        fprintf(stderr, "arbor-tree: --depth and --chunk go with --memory\n");
        return EXIT_USAGE;
    }
    char nranks[32];
    int rc = parse_topology_size(o, ranks_given, &ranks_s, nranks, sizeof(nranks));
    if (rc >= 0) return rc;
    if (!parse_long(ranks_s, 1, MAX_RANKS, &v)) {
        char want[64];
        snprintf(want, sizeof(want), "an integer in 1..%d", MAX_RANKS);
        return bad_value("--ranks", ranks_s, want);
    }
    o->ranks = (int)v;
    if (!parse_long(root_s, 0, o->ranks - 1, &v)) {
        char want[64];
        snprintf(want, sizeof(want), "an integer in 0..%d", o->ranks - 1);
        return bad_value("--root", root_s, want);
    }
    o->root = (int)v;
    arb_model_defaults_by_name(o->transport, &o->model, &o->inter);
    if (o->logp != NULL &&
        arb_logp_parse_levels(o->logp, &o->model, &o->inter, err, sizeof(err)) != ARBOR_OK) {
        fprintf(stderr, "arbor-tree: invalid value \"%s\" for --logp: %s\n", o->logp, err);
        return EXIT_USAGE;
    }
    if ((rc = fill_topology(o)) >= 0) return rc;
    if (o->kind >= ARB_TREE_KARP_NODE && !arb_topo_multi(&o->topo)) {
        fprintf(stderr,
                "arbor-tree: --algorithm %s needs a topology of at least two nodes "
                "(--nodes, --ranks-per-node or --node-list)\n",
                o->kind == ARB_TREE_KARP_NODE ? "karp_node" : "two_level");
        return EXIT_USAGE;
    }
    if (o->all && o->fmt == FMT_DOT) {
        fprintf(stderr, "arbor-tree: --format dot needs a single --algorithm\n");
        return EXIT_USAGE;
    }
    return -1;
}

static void result_free(result_t *r)
{
    arb_tree_free(&r->tree);
    free(r->ready);
    free(r->sendat);
}

static bool run_one(const opts_t *o, int kind, int radix, bool times, result_t *r)
{
    int P = o->ranks;
    arbor_status_t status;
    bool multi = arb_topo_multi(&o->topo);

    memset(r, 0, sizeof(*r));
    if (kind >= ARB_TREE_KARP_NODE)
        status = arb_tree_build_topo(kind, P, &o->model, &o->topo, o->root, o->bytes, &r->tree);
    else
        status = arb_tree_build((arb_tree_kind_t)kind, P, radix, &o->model, o->bytes, &r->tree);
    if (status != ARBOR_OK) {
        fprintf(stderr, "arbor-tree: building the %s tree for %d ranks failed (status %d)\n",
                kind_name(kind), P, (int)status);
        return false;
    }
    r->ready = malloc((size_t)P * sizeof(double));
    r->sendat = times ? malloc((size_t)P * sizeof(double)) : NULL;
    if (r->ready == NULL || (times && r->sendat == NULL)) {
        fprintf(stderr, "arbor-tree: out of memory for %d ranks\n", P);
        result_free(r);
        return false;
    }
    if (multi) {
        r->done = arb_tree_simulate_topo(&r->tree, &o->model, &o->topo, o->root, o->bytes, r->ready,
                                         r->sendat);
        if (r->sendat) r->sendat[0] = 0;
        return true;
    }
    r->done = arb_tree_simulate(&r->tree, &o->model, o->bytes, r->ready, NULL);
    if (times) {
        /* The same arithmetic as the simulator: u's sends start at ready, then s apart. */
        double s = arb_logp_gap(&o->model, o->bytes);
        r->sendat[0] = 0;
        for (int u = 0; u < P; u++) {
            double slot = r->ready[u];
            for (int i = r->tree.child_start[u]; i < r->tree.child_start[u + 1]; i++, slot += s)
                r->sendat[r->tree.children[i]] = slot;
        }
    }
    return true;
}

static int real_rank(const opts_t *o, int v)
{
    return v < 0 ? -1 : (int)(((long)v + o->root) % o->ranks);
}

static void print_header(const opts_t *o, const char *alg)
{
    const arb_logp_t *m = &o->model;
    printf("# %s: ranks %d root %d bytes %zu L=%g,os=%g,or=%g,g=%g,G=%g (T %g us, s %g us)\n", alg,
           o->ranks, o->root, o->bytes, m->L, m->os, m->orecv, m->g, m->G,
           arb_logp_arrival(m, o->bytes), arb_logp_gap(m, o->bytes));
    if (arb_topo_multi(&o->topo)) {
        const arb_logp_t *x = &o->inter;
        printf("# nodes %d; inter-node L=%g,os=%g,or=%g,g=%g,G=%g (T %g us, s %g us)\n",
               o->topo.nnodes, x->L, x->os, x->orecv, x->g, x->G, arb_logp_arrival(x, o->bytes),
               arb_logp_gap(x, o->bytes));
    }
}

static void print_json_model(const opts_t *o)
{
    const arb_logp_t *m = &o->model;
    printf("{\"ranks\": %d, \"root\": %d, \"bytes\": %zu, \"logp\": {\"L\": %.10g, \"os\": %.10g, "
           "\"or\": %.10g, \"g\": %.10g, \"G\": %.10g}, \"T_us\": %.10g, \"s_us\": %.10g",
           o->ranks, o->root, o->bytes, m->L, m->os, m->orecv, m->g, m->G,
           arb_logp_arrival(m, o->bytes), arb_logp_gap(m, o->bytes));
}

static void alg_label(int kind, int radix, char *buf, size_t len)
{
    if (kind == ARB_TREE_KNOMIAL)
        snprintf(buf, len, "knomial:%d", radix);
    else
        snprintf(buf, len, "%s", kind_name(kind));
}

static int print_tree(const opts_t *o)
{
    result_t r;
    char alg[32];
    int P = o->ranks;

    alg_label(o->kind, o->radix, alg, sizeof(alg));
    if (!run_one(o, o->kind, o->radix, true, &r)) return 1;
    const arb_tree_t *t = &r.tree;
    if (o->fmt == FMT_TEXT) {
        print_header(o, alg);
        printf("# rank parent send_time_us ready_time_us children...\n");
    } else if (o->fmt == FMT_JSON) {
        print_json_model(o);
        printf(", \"algorithm\": \"%s\", \"completion_us\": %.10g, \"nodes\": [", alg, r.done);
    } else {
        printf("digraph arbor_tree {\n  label=\"%s, %d ranks, root %d, %zu bytes: completion "
               "%.6g us\";\n  ordering=out;\n  node [shape=box];\n",
               alg, P, o->root, o->bytes, r.done);
        /* The two levels: one cluster per node; inter-node edges are drawn bold. */
        if (arb_topo_multi(&o->topo))
            for (int n = 0; n < o->topo.nnodes; n++) {
                printf(
                    "  subgraph cluster_node%d {\n    label=\"node %d\";\n    style=dashed;\n   ",
                    n, n);
                for (int rk = 0; rk < P; rk++)
                    if (o->node[rk] == n) printf(" r%d;", rk);
                printf("\n  }\n");
            }
    }
    for (int idx = 0; idx < P; idx++) {
        /* Text and JSON list real ranks in order; dot lists virtual ranks so that, with
         * ordering=out, Graphviz draws children left to right in send order. */
        int v = o->fmt == FMT_DOT ? idx : (int)(((long)idx - o->root + P) % P);
        int rank = real_rank(o, v);
        int first = t->child_start[v], last = t->child_start[v + 1];
        if (o->fmt == FMT_TEXT) {
            printf("%d %d %.10g %.10g", rank, real_rank(o, t->parent[v]), r.sendat[v], r.ready[v]);
            for (int i = first; i < last; i++) printf(" %d", real_rank(o, t->children[i]));
            printf("\n");
        } else if (o->fmt == FMT_JSON) {
            printf("%s\n  {\"rank\": %d, \"parent\": %d, \"send_us\": %.10g, \"ready_us\": %.10g, "
                   "\"children\": [",
                   rank == 0 ? "" : ",", rank, real_rank(o, t->parent[v]), r.sendat[v], r.ready[v]);
            for (int i = first; i < last; i++)
                printf("%s%d", i == first ? "" : ", ", real_rank(o, t->children[i]));
            printf("]}");
        } else {
            printf("  r%d [label=\"%d\\nready %.6g\"%s];\n", rank, rank, r.ready[v],
                   v == 0 ? ", style=bold" : "");
            for (int i = first; i < last; i++) {
                int c = t->children[i];
                bool cross = arb_topo_multi(&o->topo) && o->node[rank] != o->node[real_rank(o, c)];
                printf("  r%d -> r%d [label=\"send %.6g / arrive %.6g\"%s];\n", rank,
                       real_rank(o, c), r.sendat[c], r.ready[c], cross ? ", style=bold" : "");
            }
        }
    }
    if (o->fmt == FMT_TEXT)
        printf("completion_us %.10g\n", r.done);
    else if (o->fmt == FMT_JSON)
        printf("\n]}\n");
    else
        printf("}\n");
    result_free(&r);
    return 0;
}

typedef struct {
    char name[32];
    double done;
    int fanout, depth;
} row_t;

static int tree_depth(const arb_tree_t *t)
{
    /* Walk up from each node to the first ancestor of known depth, then fill the path in. */
    int P = t->size, best = 0;
    int *d = malloc((size_t)P * sizeof(int));
    if (d == NULL) return -1;
    for (int v = 0; v < P; v++) d[v] = -1;
    d[0] = 0;
    for (int v = 1; v < P; v++) {
        int u = v, n = 0;
        while (d[u] < 0) u = t->parent[u], n++;
        int base = d[u];
        for (u = v; d[u] < 0; u = t->parent[u]) d[u] = base + n--;
        if (d[v] > best) best = d[v];
    }
    free(d);
    return best;
}

static int print_all(const opts_t *o)
{
    static const struct {
        int kind;
        int radix;
    } table[] = {
        {ARB_TREE_KARP, 0},      {ARB_TREE_BINOMIAL, 0},  {ARB_TREE_KNOMIAL, 3},
        {ARB_TREE_KNOMIAL, 4},   {ARB_TREE_BINARY, 0},    {ARB_TREE_FLAT, 0},
        {ARB_TREE_KARP_NODE, 0}, {ARB_TREE_TWO_LEVEL, 0}, {ARB_TREE_TWO_LEVEL_BINOMIAL, 0}};
    enum { NALL = sizeof(table) / sizeof(table[0]) };
    row_t rows[NALL];
    /* The node-aware kinds exist only with a topology. */
    int N = arb_topo_multi(&o->topo) ? NALL : NALL - 3;

    for (int i = 0; i < N; i++) {
        result_t r;
        if (!run_one(o, table[i].kind, table[i].radix, false, &r)) return 1;
        alg_label(table[i].kind, table[i].radix, rows[i].name, sizeof(rows[i].name));
        rows[i].done = r.done;
        rows[i].fanout = r.tree.child_start[1] - r.tree.child_start[0];
        rows[i].depth = tree_depth(&r.tree);
        result_free(&r);
    }
    /* Cheapest first; a stable insertion sort keeps table order among ties. */
    for (int i = 1; i < N; i++) {
        row_t x = rows[i];
        int j = i;
        for (; j > 0 && rows[j - 1].done > x.done; j--) rows[j] = rows[j - 1];
        rows[j] = x;
    }
    if (o->fmt == FMT_JSON) {
        print_json_model(o);
        printf(", \"algorithms\": [");
        for (int i = 0; i < N; i++)
            printf("%s\n  {\"algorithm\": \"%s\", \"completion_us\": %.10g, \"root_children\": "
                   "%d, \"depth\": %d}",
                   i == 0 ? "" : ",", rows[i].name, rows[i].done, rows[i].fanout, rows[i].depth);
        printf("\n], \"best\": \"%s\"}\n", rows[0].name);
        return 0;
    }
    print_header(o, "all");
    printf("%-19s %14s %8s %14s %6s\n", "algorithm", "completion_us", "vs_best", "root_children",
           "depth");
    for (int i = 0; i < N; i++) {
        double pct = rows[0].done > 0 ? 100.0 * (rows[i].done / rows[0].done - 1) : 0;
        printf("%-19s %14.6g %+7.0f%% %14d %6d\n", rows[i].name, rows[i].done, pct, rows[i].fanout,
               rows[i].depth);
    }
    return 0;
}

int main(int argc, char **argv)
{
    opts_t o;
    int rc = parse_args(argc, argv, &o);

    if (rc >= 0) return rc;
    if (o.memory_s) {
        rc = print_memory(&o);
        free(o.node);
        return rc;
    }
    return o.all ? print_all(&o) : print_tree(&o);
}
