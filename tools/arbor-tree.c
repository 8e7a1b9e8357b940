/*
 * arbor-tree: prints the broadcast tree arbor would build for P ranks and a root, with the
 * LogGP-predicted send and arrival times of every rank (algorithms/tree.h, logp.h), or the
 * predicted completion of every tree kind side by side. No launcher and no transport: it runs
 * the same deterministic builders every rank runs, so it shows what a job would do.
 */
#include "algorithms/logp.h"
#include "algorithms/tree.h"
#include "arbor.h"

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
    arb_tree_kind_t kind;
    int radix;
    fmt_t fmt;
    arb_logp_t model;
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
            "                     or all: the predicted completion of every kind (default karp)\n"
            "  --format F         text, json or dot (Graphviz; one algorithm only); default text\n"
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
    return false;
}

static int bad_value(const char *opt, const char *val, const char *want)
{
    fprintf(stderr, "arbor-tree: invalid value \"%s\" for %s (expected %s)\n", val, opt, want);
    return EXIT_USAGE;
}

/* Returns -1 to go on, or the exit code. */
static int parse_args(int argc, char **argv, opts_t *o)
{
    const char *ranks_s = "16", *root_s = "0";
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
            strcmp(name, "--format") != 0) {
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
        } else if (strcmp(name, "--root") == 0) {
            root_s = val;
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
                                 "karp, binomial, knomial[:K] with K >= 2, binary, flat or all");
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
    arb_logp_default(o->transport, &o->model);
    if (o->logp != NULL && arb_logp_parse(o->logp, &o->model, err, sizeof(err)) != ARBOR_OK) {
        fprintf(stderr, "arbor-tree: invalid value \"%s\" for --logp: %s\n", o->logp, err);
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

static bool run_one(const opts_t *o, arb_tree_kind_t kind, int radix, bool times, result_t *r)
{
    int P = o->ranks;
    arbor_status_t status;

    memset(r, 0, sizeof(*r));
    status = arb_tree_build(kind, P, radix, &o->model, o->bytes, &r->tree);
    if (status != ARBOR_OK) {
        fprintf(stderr, "arbor-tree: building the %s tree for %d ranks failed (status %d)\n",
                arb_tree_kind_name(kind), P, (int)status);
        return false;
    }
    r->ready = malloc((size_t)P * sizeof(double));
    r->sendat = times ? malloc((size_t)P * sizeof(double)) : NULL;
    if (r->ready == NULL || (times && r->sendat == NULL)) {
        fprintf(stderr, "arbor-tree: out of memory for %d ranks\n", P);
        result_free(r);
        return false;
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
}

static void print_json_model(const opts_t *o)
{
    const arb_logp_t *m = &o->model;
    printf("{\"ranks\": %d, \"root\": %d, \"bytes\": %zu, \"logp\": {\"L\": %.10g, \"os\": %.10g, "
           "\"or\": %.10g, \"g\": %.10g, \"G\": %.10g}, \"T_us\": %.10g, \"s_us\": %.10g",
           o->ranks, o->root, o->bytes, m->L, m->os, m->orecv, m->g, m->G,
           arb_logp_arrival(m, o->bytes), arb_logp_gap(m, o->bytes));
}

static void alg_label(arb_tree_kind_t kind, int radix, char *buf, size_t len)
{
    if (kind == ARB_TREE_KNOMIAL)
        snprintf(buf, len, "knomial:%d", radix);
    else
        snprintf(buf, len, "%s", arb_tree_kind_name(kind));
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
                printf("  r%d -> r%d [label=\"send %.6g / arrive %.6g\"];\n", rank, real_rank(o, c),
                       r.sendat[c], r.ready[c]);
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
        arb_tree_kind_t kind;
        int radix;
    } table[] = {{ARB_TREE_KARP, 0},    {ARB_TREE_BINOMIAL, 0}, {ARB_TREE_KNOMIAL, 3},
                 {ARB_TREE_KNOMIAL, 4}, {ARB_TREE_BINARY, 0},   {ARB_TREE_FLAT, 0}};
    enum { N = sizeof(table) / sizeof(table[0]) };
    row_t rows[N];

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
    printf("%-12s %14s %8s %14s %6s\n", "algorithm", "completion_us", "vs_best", "root_children",
           "depth");
    for (int i = 0; i < N; i++) {
        double pct = rows[0].done > 0 ? 100.0 * (rows[i].done / rows[0].done - 1) : 0;
        printf("%-12s %14.6g %+7.0f%% %14d %6d\n", rows[i].name, rows[i].done, pct, rows[i].fanout,
               rows[i].depth);
    }
    return 0;
}

int main(int argc, char **argv)
{
    opts_t o;
    int rc = parse_args(argc, argv, &o);

    if (rc >= 0) return rc;
    return o.all ? print_all(&o) : print_tree(&o);
}
