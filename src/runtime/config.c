/*
 * The ARBOR_* configuration table and its parser (the ucs_config_field_t idea, written out by
 * hand). The table is the one source of truth: arbor-info and the README table print it.
 */
#include "runtime/config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <unistd.h>

#include "algorithms/coll.h"
#include "algorithms/logp.h"
#include "algorithms/tune.h"

extern char **environ;

_Static_assert(ARB_CFG_COLL_KINDS >= ARB_COLL_KINDS, "one forced algorithm per collective family");

typedef enum { T_ENUM, T_SIZE, T_INT, T_DOUBLE, T_BOOL, T_STRING } row_type_t;

/* F_UNIFORM_INTERRUPT: only "interrupt or not" must agree (ARBOR_PROGRESS: senders ring
 * doorbells only in interrupt mode; poll and thread may mix). */
enum { F_UNIFORM = 1 << 0, F_ADVANCED = 1 << 1, F_UNIFORM_INTERRUPT = 1 << 2 };

typedef struct {
    const char *name;
    const char *dflt;
    const char *doc;
    row_type_t type;
    size_t offset;
    const char *const *names; /* T_ENUM values, NULL-terminated; index = stored value */
    double min, max;          /* T_INT / T_DOUBLE / T_SIZE bounds */
    int flags;
} row_t;

static const char *const log_names[] = {"error", "warn", "info", "debug", "trace", NULL};
static const char *const yield_names[] = {"auto", "always", "never", NULL};
static const char *const progress_names[] = {"poll", "thread", "interrupt", NULL};
static const char *const onecopy_names[] = {"auto", "always", "never", NULL};
static const char *const cma_names[] = {"auto", "always", "never", "refuse", NULL};
/* index = ARBOR_THREAD_* */
static const char *const threads_names[] = {"single", "funneled", "serialized", "multiple", NULL};
static const char *const offload_names[] = {"auto", "off", "triggered", "hwcoll", NULL};

#define OFF(_f) offsetof(arb_config_t, _f)

static const row_t rows[] = {
    {"LOG_LEVEL", "warn", "log verbosity", T_ENUM, OFF(log_level), log_names, 0, 0, 0},
    {"TRANSPORT", "auto",
     "transport: a name arbor-info lists (ucx, ofi, ... as built); auto takes the first that "
     "opens, in that order",
     T_STRING, OFF(transport), NULL, 0, 0, F_UNIFORM},
    {"OFI_PROVIDER", "",
     "libfabric provider (shm, tcp;ofi_rxm, sockets, ...); empty = best RDM "
     "provider with RMA and atomics",
     T_STRING, OFF(ofi_provider), NULL, 0, 0, F_UNIFORM},
    {"SEGMENT_SIZE", "64M", "bytes of the registered segment of each rank", T_SIZE,
     OFF(segment_size), NULL, 1 << 20, 1e12, F_UNIFORM},
    {"CHUNK_SIZE", "64K", "bytes of one landing slot: the pipelining unit of large payloads",
     T_SIZE, OFF(chunk_size), NULL, 64, 1 << 30, F_UNIFORM},
    {"CHANNEL_DEPTH", "4", "landing slots per (sender, receiver) pair of a team", T_INT,
     OFF(channel_depth), NULL, 1, 1024, F_UNIFORM},
    {"STREAM_MIN", "4K",
     "chunks of at least this many bytes are copied into a mapped peer's "
     "slot with non-temporal (streaming) stores (only when every rank has a core); 0 = never",
     T_SIZE, OFF(stream_min), NULL, 0, 1 << 30, 0},
    {"CHANNEL_BYTES", "2M",
     "slot bytes per channel (depth x chunk) that the depth grows to from ARBOR_CHANNEL_DEPTH "
     "where channels from every member fit in a quarter of the segment and no node has more "
     "ranks than cores; a chunk whose slots span this much goes to a mapped peer with plain or "
     "streaming stores, whichever the sender's timing of its own copies finds cheaper; 0 = "
     "neither (the depth stays, every chunk from ARBOR_STREAM_MIN streams)",
     T_SIZE, OFF(channel_bytes), NULL, 0, 1 << 30, F_UNIFORM},
    {"TIMEOUT", "300",
     "seconds (at least 0.01) a wait may see no progress before it returns a timeout and "
     "cancels the collective, failing its team; 0 waits forever",
     T_DOUBLE, OFF(timeout_s), NULL, 0, 1e9, 0},
    {"POLL_YIELD", "auto",
     "yield the CPU in waiting loops: auto yields when this node, or the "
     "kernel it shares with other nodes (namespaces, containers), has more ranks than cores",
     T_ENUM, OFF(poll_yield), yield_names, 0, 0, 0},
    {"PROGRESS", "poll",
     "who advances collectives: poll (inside arbor calls) or thread (also a "
     "background thread that, while no collective is in flight, sleeps, or on a transport whose "
     "targets must progress (OFI) only reads the transport every 200 us); the thread also starts "
     "by itself, polling every 100 us (backing off to 1 ms while its polls find nothing), once "
     "symmetric allocations exist on a transport whose "
     "one-sided targets must progress (docs/ONESIDED.md); or interrupt (set on every rank): a "
     "wait that sees nothing move for ARBOR_SPIN_US blocks in poll() on the transport's wait "
     "descriptor and a doorbell that mapped peers ring (docs/PROGRESS.md), falling back to "
     "thread, with one warning, where the transport has no wait descriptor",
     T_ENUM, OFF(progress), progress_names, 0, 0, F_UNIFORM | F_UNIFORM_INTERRUPT},
    {"SPIN_US", "50",
     "interrupt mode: microseconds a wait polls without seeing progress before it sleeps", T_DOUBLE,
     OFF(spin_us), NULL, 0, 1e9, 0},
    {"THREADS", "single",
     "thread level of arbor_init (arbor_init_thread takes the higher of its argument and this): "
     "single, funneled, serialized (no lock: one thread at a time calls arbor) or multiple (any "
     "thread at any time, under the engine lock; docs/THREADS.md)",
     T_ENUM, OFF(threads), threads_names, 0, 0, 0},
    {"OFFLOAD", "auto",
     "collectives the transport runs whole (docs/OFFLOAD.md): auto takes provider "
     "collectives where the transport offers them, ARBOR_HWCOLL_COST prices them and the "
     "LogGP model predicts a gain (unpriced, they are not opened); hwcoll runs barrier, bcast and "
     "allreduce through libfabric's collectives wherever the provider supports the call "
     "(tcp;ofi_rxm); triggered lowers the world team's bcast and barrier to libfabric "
     "triggered writes posted whole, which forward with no CPU (sockets, with its progress "
     "thread); off never; a forced hook the transport lacks fails arbor_init with "
     "ARBOR_ERR_UNSUPPORTED",
     T_ENUM, OFF(offload), offload_names, 0, 0, F_UNIFORM},
    {"HWCOLL_COST", "0",
     "microseconds the model charges one provider collective call (the hwcoll candidate's "
     "fixed LogGP entry; a software provider's messages are priced on top); 0 = the "
     "provider's default (10 for tcp;ofi_rxm, 2 for others)",
     T_DOUBLE, OFF(hwcoll_cost), NULL, 0, 1e6, F_UNIFORM},
    {"DIRECT", "y",
     "allocate the segment in node-shared memory and map the segments of this node's ranks, "
     "on every transport: loads, stores and CPU atomics between them; n: the transport "
     "allocates the segment and carries every byte",
     T_BOOL, OFF(direct), NULL, 0, 0, F_UNIFORM},
    {"ONECOPY", "auto",
     "collectives flagged ARBOR_SYMMETRIC (bcast, scatter, gather, allgather, alltoall, reduce, "
     "allreduce, reduce_scatter) between mapped peers: "
     "auto lets the LogGP model choose between one copy (the receiver reads the sender's "
     "buffer in place) and the two copies through landing slots; always / never force it",
     T_ENUM, OFF(onecopy), onecopy_names, 0, 0, F_UNIFORM},
    {"CMA", "auto",
     "collectives on ordinary (malloc'd) buffers (bcast, scatter, gather, allgather, alltoall, "
     "and from 128 KiB allreduce, reduce, reduce_scatter) between ranks of one node: the "
     "receiver may copy (or combine) straight from the sender's buffer with the kernel's "
     "cross-memory attach (process_vm_readv), checked at init; auto lets the LogGP "
     "model choose it or the two copies through landing slots (Gc in ARBOR_LOGP prices it), "
     "always takes it wherever permitted, never turns it off, refuse simulates the kernel "
     "refusing it at init (tests)",
     T_ENUM, OFF(cma), cma_names, 0, 0, F_UNIFORM},
    {"CMA_MEASURE", "y",
     "where cross-memory attach is permitted and the model chooses it (ARBOR_CMA=auto), time at "
     "init a process_vm_readv of 256 KiB from a node peer against a memcpy of the same span "
     "(best of 6, about 0.5 ms) and scale the model's Gc by the ratio the ranks agree (their "
     "median; readings outside 1-32x are discarded); n: the transport defaults' Gc. A Gc "
     "given by ARBOR_LOGP, ARBOR_LOGP_FILE or ARBOR_LOGP_MEASURE wins (nothing is timed then)",
     T_BOOL, OFF(cma_measure), NULL, 0, 0, F_UNIFORM},
    {"CHECK", "n",
     "check every collective: the members exchange a signature (kind, root, byte count, type, "
     "op, sync flags, whether the arguments were valid) before data moves, and a difference "
     "returns ARBOR_ERR_MISMATCH on every member; members waiting in the exchanges of two "
     "different teams (a team mismatch) also get it, and both teams fail; each call, _nb "
     "ones too, then waits for that exchange",
     T_BOOL, OFF(check), NULL, 0, 0, F_UNIFORM},
    {"STATS", "n", "print per-algorithm counts and times at finalize", T_BOOL, OFF(stats), NULL, 0,
     0, 0},
    {"WARN_UNKNOWN", "y", "warn about unknown ARBOR_* variables", T_BOOL, OFF(warn_unknown), NULL,
     0, 0, 0},
#define ALG_ROW(_NAME, _name, _coll)                                                               \
    {                                                                                              \
#_NAME "_ALGORITHM", "auto", "force the " #_name " algorithm", T_ENUM,                     \
            OFF(coll_alg[_coll]), arb_##_name##_alg_names, 0, 0, F_UNIFORM                         \
    }
#define COLL_ROW(_NAME, _name, _SHAPE) ALG_ROW(_NAME, _name, ARB_COLL_##_NAME),
    ARB_COLL_LIST(COLL_ROW)
#undef COLL_ROW
#undef ALG_ROW
        {"LOGP", "",
         "LogGP parameters in microseconds, e.g. L=2.1,os=0.4,or=0.4,g=0.6,G=0.0001, or per level: "
         "intra:L=0.3,os=0.5;inter:L=20,g=2 (empty: per-transport defaults); keys also G1 (one "
         "copy), Gop (reduction) and Gc (cross-memory attach) per byte, and call (one collective "
         "call besides its messages, us). The keys given win over ARBOR_LOGP_FILE and "
         "ARBOR_LOGP_MEASURE",
         T_STRING, OFF(logp), NULL, 0, 0, F_UNIFORM},
    {"OVERSUB_WAKE", "5",
     "microseconds added to the LogGP L (defaults or ARBOR_LOGP_FILE) when some node runs more "
     "ranks than cores: a message to a descheduled rank waits for a context switch, so the "
     "model then prefers algorithms without relays (flat trees, one-round exchanges) and, unless "
     "ARBOR_TUNE is set, the barrier is pinned to flat (rank 0 leaves it first). On a team "
     "spanning nodes whose ranks share too few CPUs (nodes of one kernel), also what each "
     "message's receiver pays to be switched back in, in the CPU bound of every candidate "
     "(docs/TOPOLOGY.md); 0 = off",
     T_DOUBLE, OFF(oversub_wake), NULL, 0, 1e6, F_UNIFORM},
    {"LOGP_MEASURE", "n",
     "measure the LogGP parameters at init (ping-pong and back-to-back "
     "sends from rank 0 to its first node-local peer, and to the first rank of another node "
     "for the inter-node level, and the reduction kernel on rank 0; rank 0's values are "
     "broadcast to all); replaces ARBOR_LOGP_FILE's values",
     T_BOOL, OFF(logp_measure), NULL, 0, 0, F_UNIFORM},
    {"LOGP_FILE", "",
     "calibration file to load at init (written by arbor-info --calibrate -o FILE): the LogGP "
     "parameters per level and path, over the transport defaults; every rank must load the "
     "same values (checked)",
     T_STRING, OFF(logp_file), NULL, 0, 0, 0},
    {"TUNE", "",
     "rules pinning algorithms: coll:lo-hi[:ranks=lo-hi]:@alg joined by '#', e.g. "
     "bcast:0-32k:@binomial#bcast:32k-inf:@flat",
     T_STRING, OFF(tune), NULL, 0, 0, F_UNIFORM},
    {"TREE_CACHE_ENTRIES", "64",
     "trees / schedules cached per team, keyed by (collective, root, size class); LRU", T_INT,
     OFF(tree_cache_entries), NULL, 1, 1 << 20, 0},
    {"PRINT_ALGORITHM", "n",
     "print each distinct algorithm choice with every candidate's "
     "predicted time and schedule fingerprint",
     T_BOOL, OFF(print_algorithm), NULL, 0, 0, 0},
    {"RMA_ORDERED", "n",
     "one-sided operations from a rank to a target complete in issue order (each is fenced "
     "after the one before; default: only arbor_order / arbor_fence order them)",
     T_BOOL, OFF(rma_ordered), NULL, 0, 0, 0},
    {"RMA_LOCATION_ORDER", "y",
     "one-sided operations from a rank to one location of a target take effect in issue order "
     "without a fence (location consistency: a fence only before an operation that overlaps "
     "an earlier one not yet complete); n: only arbor_order / arbor_fence order them",
     T_BOOL, OFF(rma_location_order), NULL, 0, 0, 0},
    {"REG_CACHE", "0",
     "bytes of unregistered user buffers (transfers of 256K or more) the libfabric backend "
     "keeps registered where the provider needs local registration (FI_MR_LOCAL); 0 = off: "
     "such buffers are copied through staging slots. No memory hooks: turn it on only where "
     "the provider does not pin pages, or buffers are not freed (docs/ONESIDED.md)",
     T_SIZE, OFF(reg_cache), NULL, 0, (double)(1ull << 40), F_ADVANCED},
};

#define NROWS (sizeof(rows) / sizeof(rows[0]))

size_t arb_config_rows(void)
{
    return NROWS;
}

/* A size bound as the user would write it: the largest of G, M, K that divides it. */
static void size_text(double v, char *buf, size_t len)
{
    static const struct {
        double unit;
        const char *suffix;
    } units[] = {{1073741824.0, "G"}, {1048576.0, "M"}, {1024.0, "K"}};
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (v >= units[i].unit && v == units[i].unit * (double)(uint64_t)(v / units[i].unit)) {
            snprintf(buf, len, "%.0f%s", v / units[i].unit, units[i].suffix);
            return;
        }
    snprintf(buf, len, "%.0f", v);
}

static void syntax_of(const row_t *r, char *buf, size_t len)
{
    size_t n = 0;
    switch (r->type) {
    case T_ENUM:
        buf[0] = '\0';
        for (const char *const *p = r->names; *p && n < len; p++)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", p == r->names ? "" : "|", *p);
        break;
    case T_SIZE: {
        char lo[32], hi[32];
        size_text(r->min, lo, sizeof(lo));
        size_text(r->max, hi, sizeof(hi));
        snprintf(buf, len, "bytes %s..%s, with optional K, M or G suffix", lo, hi);
        break;
    }
    case T_INT:
        snprintf(buf, len, "integer %.0f..%.0f", r->min, r->max);
        break;
    case T_DOUBLE:
        snprintf(buf, len, "number %g..%g", r->min, r->max);
        break;
    case T_BOOL:
        snprintf(buf, len, "y|n (also 1|0, yes|no, on|off, true|false)");
        break;
    case T_STRING:
        snprintf(buf, len, "text");
        break;
    }
}

void arb_config_row(size_t i, arb_config_row_info_t *info)
{
    static char syntax[NROWS][256];
    syntax_of(&rows[i], syntax[i], sizeof(syntax[i]));
    info->name = rows[i].name;
    info->dflt = rows[i].dflt;
    info->doc = rows[i].doc;
    info->syntax = syntax[i];
}

static bool parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"y", "yes", "1", "on", "true"};
    static const char *const no[] = {"n", "no", "0", "off", "false"};
    for (size_t i = 0; i < 5; i++) {
        if (!strcasecmp(s, yes[i])) return *out = true, true;
        if (!strcasecmp(s, no[i])) return *out = false, true;
    }
    return false;
}

static bool parse_size(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    /* strtod takes "nan" and "inf", which compare false with every bound. */
    if (end == s || errno || !isfinite(v) || v < 0 || *s == '-') return false;
    switch (toupper((unsigned char)*end)) {
    case 'K':
        v *= 1024, end++;
        break;
    case 'M':
        v *= 1024.0 * 1024, end++;
        break;
    case 'G':
        v *= 1024.0 * 1024 * 1024, end++;
        break;
    default:
        break;
    }
    if (toupper((unsigned char)*end) == 'B') end++;
    *out = floor(v);
    return *end == '\0';
}

static bool parse_number(const char *s, bool integer, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno || !isfinite(v)) return false;
    if (integer && v != floor(v)) return false;
    *out = v;
    return true;
}

/* Stores text into the field of row r; false when the text is not accepted. */
static bool set_value(const row_t *r, arb_config_t *cfg, const char *text)
{
    char *field = (char *)cfg + r->offset;
    double v;
    bool b;

    switch (r->type) {
    case T_ENUM:
        for (int i = 0; r->names[i]; i++) {
            if (!strcasecmp(text, r->names[i])) {
                *(int *)field = i;
                return true;
            }
        }
        return false;
    case T_SIZE:
        if (!parse_size(text, &v) || v < r->min || v > r->max) return false;
        *(size_t *)field = (size_t)v;
        return true;
    case T_INT:
        if (!parse_number(text, true, &v) || v < r->min || v > r->max) return false;
        *(int *)field = (int)v;
        return true;
    case T_DOUBLE:
        if (!parse_number(text, false, &v) || v < r->min || v > r->max) return false;
        *(double *)field = v;
        return true;
    case T_BOOL:
        if (!parse_bool(text, &b)) return false;
        *(bool *)field = b;
        return true;
    case T_STRING:
        if (strlen(text) >= ARB_CFG_STR_MAX) return false;
        strcpy(field, text);
        return true;
    }
    return false;
}

void arb_config_format(const arb_config_t *cfg, size_t i, char *buf, size_t len)
{
    const row_t *r = &rows[i];
    const char *field = (const char *)cfg + r->offset;
    switch (r->type) {
    case T_ENUM:
        snprintf(buf, len, "%s", r->names[*(const int *)field]);
        break;
    case T_SIZE:
        snprintf(buf, len, "%zu", *(const size_t *)field);
        break;
    case T_INT:
        snprintf(buf, len, "%d", *(const int *)field);
        break;
    case T_DOUBLE:
        snprintf(buf, len, "%g", *(const double *)field);
        break;
    case T_BOOL:
        snprintf(buf, len, "%s", *(const bool *)field ? "y" : "n");
        break;
    case T_STRING:
        snprintf(buf, len, "%s", field);
        break;
    }
}

/* A row's value as compared across ranks: the display format, but doubles exactly. */
static void uniform_value(const arb_config_t *cfg, size_t i, char *buf, size_t len)
{
    if (rows[i].flags & F_UNIFORM_INTERRUPT)
        snprintf(buf, len, "%s",
                 cfg->progress == ARB_PROGRESS_INTERRUPT ? "interrupt" : "poll or thread");
    else if (rows[i].type == T_DOUBLE)
        snprintf(buf, len, "%.17g", *(const double *)((const char *)cfg + rows[i].offset));
    else
        arb_config_format(cfg, i, buf, len);
}

uint64_t arb_config_uniform_digest(const arb_config_t *cfg)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    char value[ARB_CFG_STR_MAX + 32];
    for (size_t i = 0; i < NROWS; i++) {
        if (!(rows[i].flags & F_UNIFORM)) continue;
        uniform_value(cfg, i, value, sizeof(value));
        for (const char *p = rows[i].name; *p; p++) h = (h ^ (uint8_t)*p) * 1099511628211ull;
        h = (h ^ '=') * 1099511628211ull;
        for (const char *p = value; *p; p++) h = (h ^ (uint8_t)*p) * 1099511628211ull;
        h = (h ^ 0) * 1099511628211ull;
    }
    return h;
}

char *arb_config_uniform_text(const arb_config_t *cfg, size_t *len_p)
{
    char value[ARB_CFG_STR_MAX + 32];
    size_t len = 0, cap = 0;
    for (size_t i = 0; i < NROWS; i++)
        if (rows[i].flags & F_UNIFORM) cap += strlen(rows[i].name) + sizeof(value) + 2;
    char *text = malloc(cap + 1);
    if (!text) return NULL;
    for (size_t i = 0; i < NROWS; i++) {
        if (!(rows[i].flags & F_UNIFORM)) continue;
        uniform_value(cfg, i, value, sizeof(value));
        size_t n = strlen(rows[i].name) + 1, v = strlen(value) + 1;
        memcpy(text + len, rows[i].name, n);
        memcpy(text + len + n, value, v);
        len += n + v;
    }
    *len_p = len;
    return text;
}

/* The next string of a "\0"-separated text, or NULL at its end (or on a malformed tail). */
static const char *next_field(const char *text, size_t len, size_t *pos)
{
    if (*pos >= len) return NULL;
    const char *s = text + *pos, *end = memchr(s, '\0', len - *pos);
    if (!end) return NULL;
    *pos += (size_t)(end - s) + 1;
    return s;
}

bool arb_config_uniform_diff(const char *mine, size_t mine_len, const char *theirs,
                             size_t theirs_len, int rank, char *msg, size_t msglen)
{
    size_t a = 0, b = 0;
    for (;;) {
        const char *na = next_field(mine, mine_len, &a), *va = next_field(mine, mine_len, &a);
        const char *nb = next_field(theirs, theirs_len, &b),
                   *vb = next_field(theirs, theirs_len, &b);
        if (!na && !nb) return false;
        if (!na || !va || !nb || !vb || strcmp(na, nb)) {
            snprintf(msg, msglen,
                     "the ARBOR_* settings that must agree differ from rank %d's in their "
                     "list itself (a different arbor build?)",
                     rank);
            return true;
        }
        if (strcmp(va, vb)) {
            /* Values are cut short so that long ones cannot push the names out. */
            snprintf(msg, msglen, "ARBOR_%s differs: %.100s%s here, %.100s%s on rank %d", na,
                     va[0] ? va : "\"\"", strlen(va) > 100 ? "..." : "", vb[0] ? vb : "\"\"",
                     strlen(vb) > 100 ? "..." : "", rank);
            return true;
        }
    }
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), prev[64], cur[64];
    if (la >= 63 || lb >= 63) return 99;
    for (size_t j = 0; j <= lb; j++) prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] +
                         (toupper((unsigned char)a[i - 1]) != toupper((unsigned char)b[j - 1]));
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, sizeof(cur));
    }
    return prev[lb];
}

/* Appends "ARBOR_X (maybe ARBOR_Y?)" for each ARBOR_* name the table does not know. */
static void find_unknown(char *warn, size_t len)
{
    size_t n = 0;
    warn[0] = '\0';
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "ARBOR_", 6)) continue;
        const char *name = *e + 6, *eq = strchr(name, '=');
        size_t nl = eq ? (size_t)(eq - name) : strlen(name);
        char key[64];
        if (nl >= sizeof(key)) nl = sizeof(key) - 1;
        memcpy(key, name, nl);
        key[nl] = '\0';
        bool known = false;
        const char *best = NULL;
        size_t best_d = 4;
        for (size_t i = 0; i < NROWS; i++) {
            if (!strcmp(key, rows[i].name)) known = true;
            size_t d = edit_distance(key, rows[i].name);
            if (d < best_d) best_d = d, best = rows[i].name;
        }
        if (known || n >= len) continue;
        n += (size_t)snprintf(warn + n, len - n, "%sARBOR_%s", n ? ", " : "", key);
        if (best && n < len) n += (size_t)snprintf(warn + n, len - n, " (maybe ARBOR_%s?)", best);
    }
}

/* Physical memory of this node; 0 when unknown. */
static double phys_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (double)pages * (double)page : 0;
}

/* Settings that need more than a range check: what the machine can give, and the strings
 * whose own parsers would otherwise only run after the transport is up. */
static arbor_status_t check_machine_and_strings(const arb_config_t *c, char *errmsg, size_t errlen)
{
    /* A segment is mapped (UCX: often in /dev/shm) and touched by every team region, so one
     * that the node cannot hold ends in the OOM killer instead of an error; several ranks
     * share a node, hence a quarter. */
    double phys = phys_bytes();
    if (phys > 0 && (double)c->segment_size > phys / 4) {
        snprintf(errmsg, errlen,
                 "invalid value %zu for ARBOR_SEGMENT_SIZE: more than a quarter of this node's "
                 "%.0f bytes of physical memory",
                 c->segment_size, phys);
        return ARBOR_ERR_CONFIG;
    }
    if (c->chunk_size > c->segment_size) {
        snprintf(errmsg, errlen,
                 "invalid value %zu for ARBOR_CHUNK_SIZE: larger than "
                 "ARBOR_SEGMENT_SIZE (%zu)",
                 c->chunk_size, c->segment_size);
        return ARBOR_ERR_CONFIG;
    }
    /* A positive timeout below 10 ms fails correct programs at random (one descheduled
     * peer): 0 (forever) or at least 0.01 s. */
    if (c->timeout_s > 0 && c->timeout_s < 0.01) {
        snprintf(errmsg, errlen,
                 "invalid value %g for ARBOR_TIMEOUT: 0 (wait forever) or at least 0.01 s",
                 c->timeout_s);
        return ARBOR_ERR_CONFIG;
    }
    char why[512];
    if (c->logp[0]) {
        arb_logp_t m = {0}, inter = {0}; /* one level, or "intra:...;inter:..." */
        if (arb_logp_parse_levels(c->logp, &m, &inter, why, sizeof(why)) != ARBOR_OK) {
            snprintf(errmsg, errlen, "invalid value '%.80s%s' for ARBOR_LOGP: %s", c->logp,
                     strlen(c->logp) > 80 ? "..." : "", why);
            return ARBOR_ERR_CONFIG;
        }
    }
    if (c->tune[0]) {
        arb_tune_t t;
        if (arb_tune_parse(c->tune, &t, why, sizeof(why)) != ARBOR_OK) {
            snprintf(errmsg, errlen, "invalid value for ARBOR_TUNE: %s", why);
            return ARBOR_ERR_CONFIG;
        }
    }
    return ARBOR_OK;
}

arbor_status_t arb_config_parse(arb_config_t *cfg, char *errmsg, size_t errlen, char *warnmsg,
                                size_t warnlen)
{
    arb_config_t tmp;
    char syntax[256];

    memset(&tmp, 0, sizeof(tmp));
    errmsg[0] = '\0';
    for (size_t i = 0; i < NROWS; i++) {
        char var[96];
        snprintf(var, sizeof(var), "ARBOR_%s", rows[i].name);
        const char *val = getenv(var);
        if (!set_value(&rows[i], &tmp, rows[i].dflt)) {
            snprintf(errmsg, errlen, "internal: bad default for %s", var);
            return ARBOR_ERR_CONFIG;
        }
        if (val && !set_value(&rows[i], &tmp, val)) {
            syntax_of(&rows[i], syntax, sizeof(syntax));
            /* The value is cut short so that a long one cannot push the name out. */
            snprintf(errmsg, errlen, "invalid value '%.80s%s' for %s: accepted values are %s", val,
                     strlen(val) > 80 ? "..." : "", var, syntax);
            return ARBOR_ERR_CONFIG;
        }
    }
    arbor_status_t status = check_machine_and_strings(&tmp, errmsg, errlen);
    if (status != ARBOR_OK) return status;
    find_unknown(warnmsg, warnlen);
    *cfg = tmp;
    return ARBOR_OK;
}
