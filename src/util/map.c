/*
 * Mappings at an aligned address (map.h): the segment of every rank, whoever allocates it, so
 * that symmetric offsets give addresses aligned alike on every rank.
 */
#include "util/map.h"

#include <stdint.h>
#include <sys/mman.h>

void *arb_map_aligned(size_t len, int prot, int flags, int fd)
{
    size_t align = 1;
    while (align < len && align < ARB_MAP_ALIGN_MAX) align <<= 1;
    if (len > SIZE_MAX - align) return mmap(NULL, len, prot, flags, fd, 0);
    /* Address space only: no access, nothing committed or counted against overcommit. */
    uint8_t *res =
        mmap(NULL, len + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (res == MAP_FAILED) return mmap(NULL, len, prot, flags, fd, 0);
    uintptr_t at = ((uintptr_t)res + align - 1) & ~(uintptr_t)(align - 1);
    void *p = mmap((void *)at, len, prot, flags | MAP_FIXED, fd, 0);
    if (p == MAP_FAILED) {
        munmap(res, len + align);
        return mmap(NULL, len, prot, flags, fd, 0);
    }
    /* The reservation's head and tail go back. */
    if (at > (uintptr_t)res) munmap(res, at - (uintptr_t)res);
    uintptr_t end = at + len, res_end = (uintptr_t)res + len + align;
    if (res_end > end) munmap((void *)end, res_end - end);
    return p;
}
