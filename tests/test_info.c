/*
 * arbor_info_get (the introspection arbor-info is built on): static keys before arbor_init,
 * runtime keys refused before and answered after it, argument and size checks, and values
 * that follow the environment. A singleton run (no launcher).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbor.h"

#include "unit_check.h"

/* The unit tier's check() (tests/unit_check.h), with the failing line. */
#define CHECK(_cond, ...) check((_cond), "line " ARB_STR(__LINE__) ": " __VA_ARGS__)
#define ARB_STR(_x)       ARB_STR2(_x)
#define ARB_STR2(_x)      #_x

static int count_of(const char *key)
{
    char buf[32];
    return arbor_info_get(key, buf, sizeof(buf)) == ARBOR_OK ? atoi(buf) : -1;
}

int main(void)
{
    char buf[4096], key[128];
    setenv("ARBOR_CHUNK_SIZE", "32K", 1);

    CHECK(arbor_info_get("version", buf, sizeof(buf)) == ARBOR_OK && !strcmp(buf, arbor_version()),
          "version: %s", buf);
    CHECK(arbor_info_get(NULL, buf, sizeof(buf)) == ARBOR_ERR_INVALID_ARG, "NULL key");
    CHECK(arbor_info_get("version", NULL, 8) == ARBOR_ERR_INVALID_ARG, "NULL buffer");
    CHECK(arbor_info_get("version", buf, 0) == ARBOR_ERR_INVALID_ARG, "empty buffer");
    CHECK(arbor_info_get("no.such.key", buf, sizeof(buf)) == ARBOR_ERR_INVALID_ARG, "unknown");
    CHECK(arbor_info_get("config.99999.name", buf, sizeof(buf)) == ARBOR_ERR_INVALID_ARG,
          "row past the end");
    CHECK(arbor_info_get("config.1x.name", buf, sizeof(buf)) == ARBOR_ERR_INVALID_ARG,
          "malformed index");
    char tiny[3];
    CHECK(arbor_info_get("version", tiny, sizeof(tiny)) == ARBOR_ERR_COUNT && strlen(tiny) == 2,
          "a short buffer is cut and says so");

    /* The configuration table: every row named, the environment's value read. */
    int rows = count_of("config.count"), seen_chunk = 0;
    CHECK(rows > 10, "config.count %d", rows);
    for (int i = 0; i < rows; i++) {
        snprintf(key, sizeof(key), "config.%d.name", i);
        CHECK(arbor_info_get(key, buf, sizeof(buf)) == ARBOR_OK && buf[0], "%s", key);
        if (strcmp(buf, "CHUNK_SIZE")) continue;
        seen_chunk = 1;
        snprintf(key, sizeof(key), "config.%d.value", i);
        CHECK(arbor_info_get(key, buf, sizeof(buf)) == ARBOR_OK && !strcmp(buf, "32768"),
              "CHUNK_SIZE value %s, want 32768 (ARBOR_CHUNK_SIZE=32K)", buf);
        snprintf(key, sizeof(key), "config.%d.default", i);
        CHECK(arbor_info_get(key, buf, sizeof(buf)) == ARBOR_OK && !strcmp(buf, "64K"),
              "CHUNK_SIZE default %s", buf);
    }
    CHECK(seen_chunk, "no CHUNK_SIZE row");
    CHECK(arbor_info_get("config.error", buf, sizeof(buf)) == ARBOR_OK && !buf[0], "error %s", buf);

    /* The algorithm tables agree with arbor_algorithm_names. */
    int colls = count_of("collective.count");
    CHECK(colls == 15, "collective.count %d", colls);
    for (int c = 0; c < colls; c++) {
        char name[64];
        snprintf(key, sizeof(key), "collective.%d.name", c);
        CHECK(arbor_info_get(key, name, sizeof(name)) == ARBOR_OK, "%s", key);
        const char *const *names;
        int n;
        CHECK(arbor_algorithm_names(name, &names, &n) == ARBOR_OK, "names of %s", name);
        snprintf(key, sizeof(key), "collective.%d.algorithm.count", c);
        CHECK(count_of(key) == n + 1, "%s: %d algorithms, arbor_algorithm_names %d + auto", name,
              count_of(key), n);
        for (int a = 1; a <= n; a++) {
            snprintf(key, sizeof(key), "collective.%d.algorithm.%d.name", c, a);
            CHECK(arbor_info_get(key, buf, sizeof(buf)) == ARBOR_OK && !strcmp(buf, names[a - 1]),
                  "%s = %s, want %s", key, buf, names[a - 1]);
        }
    }
    CHECK(count_of("transport.count") >= 1, "no transport compiled in");

    /* Runtime keys: refused before init, answered after. */
    int before = -1;
    CHECK(arbor_node_count(&before) == ARBOR_ERR_NOT_INITIALIZED &&
              arbor_rank_node(0, &before) == ARBOR_ERR_NOT_INITIALIZED && before == -1,
          "the node API before init");
    CHECK(arbor_info_get("transport", buf, sizeof(buf)) == ARBOR_ERR_NOT_INITIALIZED,
          "runtime key before init");
    if (arbor_init() != ARBOR_OK) {
        fprintf(stderr, "arbor_init failed\n");
        return 1;
    }
    const char *tp;
    CHECK(arbor_transport_name(&tp) == ARBOR_OK &&
              arbor_info_get("transport", buf, sizeof(buf)) == ARBOR_OK && !strcmp(buf, tp),
          "transport %s vs %s", buf, tp);
    CHECK(count_of("size") == 1 && count_of("rank") == 0, "singleton rank / size");
    /* The node API agrees with the topology keys: a singleton is one node, its node 0. */
    int nodes = -1, node = -1;
    CHECK(arbor_node_count(&nodes) == ARBOR_OK && nodes == count_of("topology.nodes") && nodes == 1,
          "arbor_node_count %d", nodes);
    CHECK(arbor_rank_node(0, &node) == ARBOR_OK && node == count_of("topology.node") && node == 0,
          "arbor_rank_node(0) %d", node);
    CHECK(arbor_rank_node(1, &node) == ARBOR_ERR_RANK && node == 0, "rank 1 of a singleton");
    CHECK(arbor_info_get("segment.bytes", buf, sizeof(buf)) == ARBOR_OK && atoll(buf) > 0,
          "segment.bytes %s", buf);
    CHECK(arbor_info_get("heap.used", buf, sizeof(buf)) == ARBOR_OK, "heap.used");
    CHECK(arbor_info_get("model.intra", buf, sizeof(buf)) == ARBOR_OK && !strncmp(buf, "L=", 2),
          "model.intra %s", buf);
    /* One rank: cross-memory attach has no peer, so nothing is priced and the key says why. */
    CHECK(arbor_info_get("model.cma", buf, sizeof(buf)) == ARBOR_OK && !strncmp(buf, "Gc=", 3) &&
              strstr(buf, "not taken: one rank"),
          "model.cma %s", buf);
    CHECK(arbor_info_get("model.cma_ratio", buf, sizeof(buf)) == ARBOR_ERR_UNSUPPORTED,
          "model.cma_ratio of a singleton '%s'", buf);
    arbor_finalize();
    printf("info: %s\n", failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
