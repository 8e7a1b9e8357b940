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

#include "algorithms/coll.h"
#include "arbor.h"

enum { ARB_LOG_ERROR = 0, ARB_LOG_WARN, ARB_LOG_INFO, ARB_LOG_DEBUG, ARB_LOG_TRACE };
enum { ARB_TRANSPORT_AUTO = 0, ARB_TRANSPORT_UCX, ARB_TRANSPORT_OFI };
enum { ARB_YIELD_AUTO = 0, ARB_YIELD_ALWAYS, ARB_YIELD_NEVER };
enum { ARB_PROGRESS_POLL = 0, ARB_PROGRESS_THREAD };
enum { ARB_OFFLOAD_AUTO = 0, ARB_OFFLOAD_OFF, ARB_OFFLOAD_TRIGGERED, ARB_OFFLOAD_HWCOLL };

#define ARB_CFG_STR_MAX 1024

struct arb_config {
    int log_level;
    int transport;
    char ofi_provider[ARB_CFG_STR_MAX]; /* "" = best available */
    size_t segment_size;
    size_t chunk_size; /* bytes per landing slot (pipelining unit) */
    int channel_depth; /* landing slots per (sender, receiver) pair of a team */
    size_t stream_min; /* chunks this large go to a mapped peer with streaming stores; 0 never */
    double timeout_s;  /* 0 = wait forever */
    int poll_yield;
    int progress; /* ARB_PROGRESS_* */
    int offload;  /* ARB_OFFLOAD_*: which transport hooks collectives may use (core/offload.h) */
    double hwcoll_cost; /* us per provider collective call; 0 = the provider's default */
    bool direct;  /* use mapped peer segments where the transport offers them */
    bool check; /* ARBOR_CHECK: exchange a signature per collective (coll_check.c) */
    bool stats;
    bool warn_unknown;
    int coll_alg[ARB_COLL_KINDS]; /* forced algorithm per collective (table index; 0 = auto) */
    char logp[ARB_CFG_STR_MAX];
    bool logp_measure;
    double oversub_wake; /* us added to the default L when a node is oversubscribed */
    char tune[ARB_CFG_STR_MAX];
    int tree_cache_entries;
    bool print_algorithm;
    bool rma_ordered; /* every one-sided operation to a target ordered after the earlier ones */
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

#endif /* ARB_CORE_CONFIG_H */
