/*
 * The two-copy pipeline through landing slots on malloc'd buffers (docs/PERFORMANCE.md, "The
 * two-copy bound"): bcast from every root and allreduce at odd sizes, several calls in a row on
 * buffers at an odd offset (so a slot reused across calls and a chunk stored with plain or with
 * streaming stores show a stale or missing byte), every byte checked. Run with ARBOR_CMA=never
 * so that every byte goes through the slots. SLOT_EXPECT_DEPTH=d: after the first bcast each
 * non-root rank must hold channels of d slots (arbor_team_landing_bytes), so the test
 * fails if the depth did not grow as group/team.c's fit_depth says (or grew where it should not).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbor.h"
#include "launched_check.h"
#include "block_check.h"

#define CHECK_OK(_call)                                                                            \
    do {                                                                                           \
        arbor_status_t _s = (_call);                                                               \
        CHECK(_s == ARBOR_OK, "%s returned %s", #_call, arbor_strerror(_s));                       \
    } while (0)

static const size_t sizes[] = {
    1, 4097, 65535, 65536 + 3, 3 * 65536 + 5, (1 << 20) + 7, (2 << 20) + 1};
enum { NSIZES = sizeof(sizes) / sizeof(sizes[0]), ROUNDS = 3 };

/* The first bcast, from rank 0: every other rank then has the one channel from its parent. */
static void check_depth(uint8_t *buf)
{
    /* A node with more ranks than cores grows the depth to half of ARBOR_CHANNEL_BYTES
     * (group/team.c, fit_depth): SLOT_OVERSUB_DEPTH then. */
    char over[8] = "";
    CHECK_OK(arbor_info_get("topology.oversubscribed", over, sizeof over));
    const char *e = getenv(over[0] == 'y' ? "SLOT_OVERSUB_DEPTH" : "SLOT_EXPECT_DEPTH");
    const char *c = getenv("ARBOR_CHUNK_SIZE");
    size_t chunk = c ? (size_t)strtoul(c, NULL, 10) * (strchr(c, 'K') ? 1024 : 1) : 65536;
    if (rank == 0) fill(buf, 4096, 0, 0, 99);
    CHECK_OK(arbor_bcast(ARBOR_TEAM_WORLD, buf, 4096, 0));
    check_block(buf, 4096, 0, 0, 99, "first bcast");
    if (!e || rank == 0) return;
    /* A channel block: skew room, at least 256 lines (as many as slots past that), a 16-byte
     * cell per line, the slots (docs/PROTOCOL.md, "Landing channels"). */
    size_t depth = (size_t)atoi(e), lines = depth > 256 ? depth : 256;
    size_t bytes = 0, per = 2048 + lines * 64 + (lines * 16 + 63) / 64 * 64 + depth * chunk;
    int channels = 0;
    CHECK_OK(arbor_team_landing_bytes(ARBOR_TEAM_WORLD, &bytes, &channels));
    CHECK(channels >= 1 && bytes == ((size_t)size + 1) * 64 + (size_t)channels * per,
          "landing memory after one bcast: %zu bytes in %d channels, expected channels of %s "
          "slots of %zu bytes (%zu each)",
          bytes, channels, e, chunk, per);
}

static void test_bcast(uint8_t *buf)
{
    char what[96];
    for (int round = 0; round < ROUNDS; round++)
        for (int s = 0; s < NSIZES; s++)
            for (int root = 0; root < size; root++) {
                size_t n = sizes[s];
                int salt = round * 101 + s * 7 + root;
                if (rank == root)
                    fill(buf, n, root, 0, salt);
                else
                    memset(buf, 0xa5, n);
                CHECK_OK(arbor_bcast(ARBOR_TEAM_WORLD, buf, n, root));
                snprintf(what, sizeof what, "bcast %zu bytes from %d, round %d", n, root, round);
                check_block(buf, n, root, 0, salt, what);
                CHECK(one_copy_bytes() == 0, "%s: %llu bytes moved with one copy, not the slots",
                      what, (unsigned long long)one_copy_bytes());
            }
}

/* int32 sums: rank r contributes v(i) + r, so the sum is P v(i) + P (P - 1) / 2. */
static void test_allreduce(int32_t *in, int32_t *out)
{
    for (int round = 0; round < ROUNDS; round++)
        for (int s = 0; s < NSIZES; s++) {
            size_t n = sizes[s] / 4 + 1;
            for (size_t i = 0; i < n; i++)
                in[i] = (int32_t)((i * 2654435761u + round) & 0xffff) + rank;
            memset(out, 0x5a, n * 4);
            CHECK_OK(arbor_allreduce(ARBOR_TEAM_WORLD, in, out, n, ARBOR_INT32, ARBOR_SUM));
            for (size_t i = 0; i < n; i++) {
                int32_t v = (int32_t)((i * 2654435761u + round) & 0xffff);
                int32_t want = size * v + size * (size - 1) / 2;
                if (out[i] != want) {
                    CHECK(0, "allreduce %zu ints round %d: element %zu is %d, expected %d", n,
                          round, i, out[i], want);
                    break;
                }
            }
            CHECK(1, "allreduce");
        }
}

int main(void)
{
    arbor_status_t status = arbor_init();
    if (status != ARBOR_OK) {
        fprintf(stderr, "arbor_init: %s\n", arbor_strerror(status));
        return 1;
    }
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    size_t most = sizes[NSIZES - 1] + 64;
    uint8_t *a = malloc(most + 3), *b = malloc(most + 8), *c = malloc(most + 8);
    CHECK(a && b && c, "malloc");
    if (a && b && c) {
        check_depth(a + 3);
        test_bcast(a + 3); /* odd offset: neither the slot nor the buffer aligned alike */
        test_allreduce((int32_t *)(b + 4), (int32_t *)(c + 4));
    }
    free(a);
    free(b);
    free(c);
    status = arbor_finalize();
    CHECK(status == ARBOR_OK, "arbor_finalize: %s", arbor_strerror(status));
    if (failures) fprintf(stderr, "rank %d: %d of %d checks failed\n", rank, failures, checks);
    if (rank == 0 && !failures)
        printf("test_slotcopy: %d checks passed on rank 0 (P=%d)\n", checks, size);
    return failures ? 1 : 0;
}
