/* Unit test of the ARBOR_* parser and of init's handling of bad configuration (no launcher). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbor.h"
#include "core/config.h"

static int failures;

#define CHECK(_cond, ...)                                                                          \
    do {                                                                                           \
        if (!(_cond)) {                                                                            \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static arbor_status_t parse(arb_config_t *c, char *err, char *warn)
{
    return arb_config_parse(c, err, 512, warn, 1024);
}

int main(void)
{
    arb_config_t c;
    char err[512], warn[1024];

    CHECK(parse(&c, err, warn) == ARBOR_OK, "defaults rejected: %s", err);
    CHECK(c.segment_size == 64u << 20, "default segment %zu", c.segment_size);
    CHECK(c.log_level == ARB_LOG_WARN && c.direct && c.timeout_s == 300, "defaults wrong");

    setenv("ARBOR_LOG_LEVEL", "loud", 1);
    CHECK(parse(&c, err, warn) == ARBOR_ERR_CONFIG, "loud accepted");
    CHECK(strstr(err, "ARBOR_LOG_LEVEL") && strstr(err, "loud") && strstr(err, "error|warn|info"),
          "message does not name variable, value and choices: %s", err);
    CHECK(arbor_init() == ARBOR_ERR_CONFIG, "init accepted ARBOR_LOG_LEVEL=loud");
    setenv("ARBOR_LOG_LEVEL", "DEBUG", 1);
    CHECK(parse(&c, err, warn) == ARBOR_OK && c.log_level == ARB_LOG_DEBUG, "case-insensitive");
    unsetenv("ARBOR_LOG_LEVEL");

    setenv("ARBOR_SEGMENT_SIZE", "128M", 1);
    setenv("ARBOR_CHUNK_SIZE", "8k", 1);
    setenv("ARBOR_TIMEOUT", "2.5", 1);
    setenv("ARBOR_DIRECT", "off", 1);
    CHECK(parse(&c, err, warn) == ARBOR_OK, "good values rejected: %s", err);
    CHECK(c.segment_size == 128u << 20 && c.chunk_size == 8192 && c.timeout_s == 2.5 && !c.direct,
          "values not stored");
    setenv("ARBOR_SEGMENT_SIZE", "12Q", 1);
    CHECK(parse(&c, err, warn) == ARBOR_ERR_CONFIG && strstr(err, "ARBOR_SEGMENT_SIZE"),
          "12Q accepted: %s", err);
    setenv("ARBOR_SEGMENT_SIZE", "1k", 1);
    CHECK(parse(&c, err, warn) == ARBOR_ERR_CONFIG, "segment below minimum accepted");
    unsetenv("ARBOR_SEGMENT_SIZE");
    setenv("ARBOR_CHANNEL_DEPTH", "2.5", 1);
    CHECK(parse(&c, err, warn) == ARBOR_ERR_CONFIG, "fractional depth accepted");
    unsetenv("ARBOR_CHANNEL_DEPTH");
    setenv("ARBOR_BCAST_ALGORITHM", "quantum", 1);
    CHECK(parse(&c, err, warn) == ARBOR_ERR_CONFIG && strstr(err, "binomial") &&
              strstr(err, "karp"),
          "bad algorithm message lacks the valid names: %s", err);
    setenv("ARBOR_BCAST_ALGORITHM", "flat", 1);
    CHECK(parse(&c, err, warn) == ARBOR_OK && c.coll_alg[ARB_COLL_BCAST] > 0, "flat rejected");
    unsetenv("ARBOR_BCAST_ALGORITHM");

    setenv("ARBOR_BOGUS", "1", 1);
    setenv("ARBOR_TIMOUT", "3", 1);
    CHECK(parse(&c, err, warn) == ARBOR_OK, "unknown name must only warn");
    CHECK(strstr(warn, "ARBOR_BOGUS") != NULL, "no warning for ARBOR_BOGUS: '%s'", warn);
    CHECK(strstr(warn, "maybe ARBOR_TIMEOUT?") != NULL, "no suggestion for ARBOR_TIMOUT: '%s'",
          warn);
    unsetenv("ARBOR_BOGUS");
    unsetenv("ARBOR_TIMOUT");

    for (size_t i = 0; i < arb_config_rows(); i++) {
        arb_config_row_info_t info;
        arb_config_row(i, &info);
        CHECK(info.name && info.doc && info.syntax && info.dflt, "row %zu incomplete", i);
    }
    printf("config: %s\n", failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
