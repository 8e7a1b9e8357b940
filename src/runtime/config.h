/*
 * ARBOR_* configuration: one table (config.c) of rows {name, default, doc, type, offset, flags}
 * parsed once at init into an arb_config_t. Nothing else reads ARBOR_* variables.
 */
#ifndef ARB_CORE_CONFIG_H
#define ARB_CORE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "arbor.h"
#include "util/log.h" /* ARB_LOG_*: the values of log_level */

/* A bottom header: nothing of algorithms/ or core/ comes with it. The forced-algorithm array
 * has room for one entry per collective family (config.c asserts that ARB_COLL_KINDS fits), so
 * that a new family (algorithms/coll_list.h) needs nothing here. */
#define ARB_CFG_COLL_KINDS 32
enum { ARB_YIELD_AUTO = 0, ARB_YIELD_ALWAYS, ARB_YIELD_NEVER };
enum { ARB_PROGRESS_POLL = 0, ARB_PROGRESS_THREAD, ARB_PROGRESS_INTERRUPT };
enum { ARB_ONECOPY_AUTO = 0, ARB_ONECOPY_ALWAYS, ARB_ONECOPY_NEVER };
enum { ARB_CMA_AUTO = 0, ARB_CMA_ALWAYS, ARB_CMA_NEVER, ARB_CMA_REFUSE };
enum { ARB_OFFLOAD_AUTO = 0, ARB_OFFLOAD_OFF, ARB_OFFLOAD_TRIGGERED, ARB_OFFLOAD_HWCOLL };

#define ARB_CFG_STR_MAX 1024

struct arb_config {
    int log_level;
    char transport[ARB_CFG_STR_MAX];    /* "auto" or a name of transports/registry.c */
    char ofi_provider[ARB_CFG_STR_MAX]; /* "" = best available */
    size_t segment_size;
    size_t chunk_size; /* bytes per landing slot (pipelining unit) */
    int channel_depth; /* landing slots per (sender, receiver) pair of a team */
    size_t stream_min; /* chunks this large go to a mapped peer with streaming stores; 0 never */
    double timeout_s;  /* 0 = wait forever */
    int poll_yield;
    int progress;     /* ARB_PROGRESS_* */
    double spin_us;   /* interrupt mode: idle polling before a wait sleeps */
    int threads;      /* ARBOR_THREAD_* level of a plain arbor_init */
    bool direct;      /* use mapped peer segments where the transport offers them */
    bool check;       /* ARBOR_CHECK: exchange a signature per collective (coll_check.c) */
    int onecopy;      /* ARB_ONECOPY_*: symmetric-buffer collectives (coll/coll_direct.c) */
    int cma;          /* ARB_CMA_*: malloc'd-buffer collectives by cross-memory attach (cma.h) */
    bool cma_measure; /* time cross-memory attach at init and scale Gc (runtime/model.h) */
    /* ARB_OFFLOAD_*: which transport hooks collectives may use (coll/offload.h) */
    int offload;
    /* microseconds per provider collective call; 0 = the provider's default */
    double hwcoll_cost;
    bool stats;
    bool warn_unknown;
    int coll_alg[ARB_CFG_COLL_KINDS]; /* forced algorithm per collective (table index; 0 = auto) */
    char logp[ARB_CFG_STR_MAX];
    bool logp_measure;
    char logp_file[ARB_CFG_STR_MAX]; /* calibration file to load ("" = none) */
    double oversub_wake;             /* us added to the default L when a node is oversubscribed */
    char tune[ARB_CFG_STR_MAX];
    int tree_cache_entries;
    bool print_algorithm;
    bool rma_location_order; /* same-origin operations to one location in issue order */
    bool rma_ordered; /* every one-sided operation to a target ordered after the earlier ones */
    size_t reg_cache; /* bytes of user buffers the OFI backend keeps registered (FI_MR_LOCAL) */
    /* channels grow to this many bytes of slots where room; their chunks' stores measured */
    size_t channel_bytes;
};
typedef struct arb_config arb_config_t;

/* Parses the environment. On a bad value: ARBOR_ERR_CONFIG and *errmsg names the variable, the
 * value and what it accepts. Unknown ARBOR_* names are collected into *warnmsg (may be ""). */
arbor_status_t arb_config_parse(arb_config_t *cfg, char *errmsg, size_t errlen, char *warnmsg,
                                size_t warnlen);

/* Walks the table: for arbor-info and the README table. */
typedef struct {
    const char *name; /* without the ARBOR_ prefix */
    const char *dflt;
    const char *doc;
    const char *syntax;
} arb_config_row_info_t;

size_t arb_config_rows(void);
void arb_config_row(size_t i, arb_config_row_info_t *info);
/* Current value of row i in cfg, formatted into buf. */
void arb_config_format(const arb_config_t *cfg, size_t i, char *buf, size_t len);

/* The settings that must agree on every rank are the table's F_UNIFORM rows (the only list).
 * The digest hashes their names and exact values; the text lists them as "NAME\0value\0"...
 * (malloc'd, *len_p bytes) for a rank to compare with another's; arb_config_uniform_diff
 * writes "ARBOR_X differs: <mine> here, <theirs> on rank <rank>" for the first row that
 * differs and returns true, or false when the texts agree. */
uint64_t arb_config_uniform_digest(const arb_config_t *cfg);
char *arb_config_uniform_text(const arb_config_t *cfg, size_t *len_p);
bool arb_config_uniform_diff(const char *mine, size_t mine_len, const char *theirs,
                             size_t theirs_len, int rank, char *msg, size_t msglen);

#endif /* ARB_CORE_CONFIG_H */
