/*
 * libFuzzer target: the ARBOR_* parser (runtime/config.c). The first input byte picks a row of
 * the table, the rest is the value. The parser must accept it or return ARBOR_ERR_CONFIG
 * naming the variable; an accepted value must lie in the row's bounds (nan, inf, negative
 * and wrapping values never get through).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "runtime/config.h"

int arb_fuzz_config(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 2048) return 0;
    arb_config_row_info_t info;
    arb_config_row(data[0] % arb_config_rows(), &info);
    char var[96], value[2048], err[512], warn[256];
    snprintf(var, sizeof(var), "ARBOR_%s", info.name);
    memcpy(value, data + 1, size - 1);
    value[size - 1] = '\0';
    if (setenv(var, value, 1) != 0) return 0;
    arb_config_t c;
    arbor_status_t st = arb_config_parse(&c, err, sizeof(err), warn, sizeof(warn));
    unsetenv(var);
    if (st == ARBOR_ERR_CONFIG) {
        if (!strstr(err, var)) {
            fprintf(stderr, "%s='%s' rejected without naming it: %s\n", var, value, err);
            abort();
        }
        return 0;
    }
    if (st != ARBOR_OK) abort();
    /* The bounds of the table, checked on what was stored. */
    if (c.segment_size < (1u << 20) || c.chunk_size < 64 || c.chunk_size > c.segment_size ||
        c.channel_depth < 1 || c.channel_depth > 1024 || !isfinite(c.timeout_s) ||
        c.timeout_s < 0 || !isfinite(c.oversub_wake) || c.oversub_wake < 0 ||
        c.tree_cache_entries < 1 || c.stream_min > ((size_t)1 << 30)) {
        fprintf(stderr, "%s='%s' accepted out of bounds\n", var, value);
        abort();
    }
    return 0;
}
