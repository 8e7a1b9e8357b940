/* Mappings at an aligned address (map.c). */
#ifndef ARB_UTIL_MAP_H
#define ARB_UTIL_MAP_H

#include <stddef.h>

/*
 * mmap(NULL, len, prot, flags, fd, 0) placed at a multiple of the smallest power of two that
 * is at least len (capped at ARB_MAP_ALIGN_MAX), so that every rank's segment has the same
 * residue modulo any alignment an allocation in it may ask for: offsets that agree then give
 * addresses aligned alike on every rank (OpenSHMEM's shmem_align asks for up to megabytes).
 * Reserves len + alignment of address space without access first, maps inside it and returns
 * the rest; where the reservation fails, a plain mmap. MAP_FAILED (errno set) on failure.
 */
#define ARB_MAP_ALIGN_MAX ((size_t)1 << 30)
void *arb_map_aligned(size_t len, int prot, int flags, int fd);

#endif /* ARB_UTIL_MAP_H */
