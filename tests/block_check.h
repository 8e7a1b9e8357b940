/*
 * Byte patterns for the one-copy and cross-memory-attach tests: a block from rank src to rank
 * dst (salt tells calls apart) is filled with pattern() and checked byte by byte, so a byte read
 * from the wrong peer, offset or call shows. Also how many bytes the last collective moved with
 * one copy. Include after launched_check.h (CHECK).
 */
#ifndef ARB_TESTS_BLOCK_CHECK_H
#define ARB_TESTS_BLOCK_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "arbor.h"

static uint8_t pattern(size_t i, int src, int dst, int salt)
{
    return (uint8_t)((i * 131u) ^ (size_t)(src * 29) ^ (size_t)(dst * 53) ^ (size_t)(salt * 7) ^
                     (i >> 9));
}

static void fill(uint8_t *buf, size_t n, int src, int dst, int salt)
{
    for (size_t i = 0; i < n; i++) buf[i] = pattern(i, src, dst, salt);
}

static void check_block(const uint8_t *buf, size_t n, int src, int dst, int salt, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != pattern(i, src, dst, salt)) {
            CHECK(0, "%s: %zu bytes from rank %d: byte %zu is %u, expected %u", what, n, src, i,
                  buf[i], pattern(i, src, dst, salt));
            return;
        }
    CHECK(1, "%s", what);
}

static uint64_t one_copy_bytes(void)
{
    arbor_coll_info_t info;
    if (arbor_team_last_collective(ARBOR_TEAM_WORLD, &info) != ARBOR_OK) return 0;
    return info.one_copy_bytes;
}

#endif /* ARB_TESTS_BLOCK_CHECK_H */
