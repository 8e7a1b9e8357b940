/*
 * Pages moved into node-shared memory in place (arbor_mem_register with ARBOR_MEM_NODE_SHARED):
 * the owner copies the pages that cover a range into an anonymous memory file (memfd) and maps
 * the file over them, at the same address, with the same contents; a node peer opens the file
 * through /proc/<owner pid>/fd/<fd> (the access cross-memory attach needs too) and maps it
 * wherever it likes. The file has no name: when the owner and every peer have unmapped it, the
 * memory goes, whoever was killed. Linux only; elsewhere both calls answer
 * ARBOR_ERR_UNSUPPORTED.
 */
#ifndef ARB_RUNTIME_SHARED_PAGES_H
#define ARB_RUNTIME_SHARED_PAGES_H

#include <stddef.h>
#include <stdint.h>

#include "arbor.h"

typedef struct {
    uintptr_t lo; /* first page moved */
    size_t len;   /* bytes moved: whole pages */
    int fd;       /* the memory file, open in the owner while registered */
    uint64_t pid; /* the owner's process */
} arb_shared_pages_t;

/* Moves the pages covering [addr, addr + len) into a memory file, in place. Every page must be
 * private and writable (ARBOR_ERR_UNSUPPORTED with the reason logged at debug level otherwise,
 * and nothing changed). No other thread may write them while this runs. */
arbor_status_t arb_shared_pages_make(void *addr, size_t len, arb_shared_pages_t *sp);
/* Owner: a second hold of the same file (another registration inside the same pages). */
arbor_status_t arb_shared_pages_dup(const arb_shared_pages_t *from, arb_shared_pages_t *to);
/* Owner: closes the file; the pages stay mapped, with their contents. */
void arb_shared_pages_release(arb_shared_pages_t *sp);
/* Peer: maps the owner's file (pid, fd, len); *map_p its first page here. */
arbor_status_t arb_shared_pages_map(uint64_t pid, int fd, size_t len, void **map_p);
void arb_shared_pages_unmap(void *map, size_t len);

#endif /* ARB_RUNTIME_SHARED_PAGES_H */
