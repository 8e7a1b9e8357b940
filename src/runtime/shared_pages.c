/*
 * Pages moved into node-shared memory in place (runtime/shared_pages.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include "runtime/shared_pages.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/log.h"

#if defined(__linux__)
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

/* Whether every page of [lo, hi) is mapped private and writable in this process: a shared or
 * read-only page moved into a writable file would change what the program sees. *anon tells
 * whether they are all anonymous memory (no file behind: a page never touched reads as zeros). */
static bool private_writable(uintptr_t lo, uintptr_t hi, bool *anon)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return false;
    char line[512];
    uintptr_t covered = lo;
    *anon = true;
    bool ok = true;
    while (ok && covered < hi && fgets(line, sizeof(line), f)) {
        unsigned long a, b, offset, inode = 1;
        char perms[8] = "", dev[16] = "";
        if (sscanf(line, "%lx-%lx %7s %lx %15s %lu", &a, &b, perms, &offset, dev, &inode) < 3)
            continue;
        if (b <= covered || a >= hi) continue;
        /* Mappings come in address order: a gap before this one is an unmapped page. */
        ok = a <= covered && perms[0] == 'r' && perms[1] == 'w' && perms[3] == 'p';
        if (inode != 0) *anon = false;
        covered = b;
    }
    fclose(f);
    return ok && covered >= hi;
}

/* Copies whole pages word by word. Not memcpy: the pages hold other objects too, and a sanitizer
 * that checks memcpy's ranges (AddressSanitizer's redzones between globals) would call the copy
 * of those gaps an overflow; the volatile loads keep the compiler from making it a memcpy. */
#if defined(__clang__) || defined(__GNUC__)
__attribute__((no_sanitize_address))
#endif
static void
copy_pages(uint64_t *dst, const volatile uint64_t *src, size_t len)
{
    for (size_t i = 0; i < len / sizeof(uint64_t); i++) dst[i] = src[i];
}

/* Copies the pages of [lo, lo + n), anonymous memory, that were ever touched (present or
 * swapped out, as the kernel's page map says). A page never touched reads as zeros, which the
 * new file holds already: copying it would fill the sparse file with zeros, so that registering
 * a large fresh mapping would take its whole size in memory. Where the page map cannot be
 * read, every page. */
static void copy_touched(uint64_t *dst, uintptr_t lo, size_t n, size_t pg)
{
    int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    size_t npages = n / pg, done = 0;
    uint64_t ent[512];
    while (fd >= 0 && done < npages) {
        size_t k = npages - done < 512 ? npages - done : 512;
        off_t at = (off_t)((lo / pg + done) * sizeof(uint64_t));
        if (pread(fd, ent, k * sizeof(uint64_t), at) != (ssize_t)(k * sizeof(uint64_t))) break;
        for (size_t j = 0; j < k; j++) {
            size_t off = (done + j) * pg;
            if (ent[j] & (3ull << 62)) /* present, or swapped */
                copy_pages(dst + off / sizeof(uint64_t), (const volatile uint64_t *)(lo + off), pg);
        }
        done += k;
    }
    if (fd >= 0) close(fd);
    if (done < npages)
        copy_pages(dst + done * pg / sizeof(uint64_t), (const volatile uint64_t *)(lo + done * pg),
                   n - done * pg);
}

arbor_status_t arb_shared_pages_make(void *addr, size_t len, arb_shared_pages_t *sp)
{
    size_t pg = page();
    uintptr_t lo = (uintptr_t)addr & ~(uintptr_t)(pg - 1);
    uintptr_t hi = ((uintptr_t)addr + len + pg - 1) & ~(uintptr_t)(pg - 1);
    size_t n = hi - lo;
    bool anon = false;
    if (!private_writable(lo, hi, &anon)) {
        arb_debug("node-shared registration: [%p, +%zu) is not all private writable pages", addr,
                  len);
        return ARBOR_ERR_UNSUPPORTED;
    }
    int fd = memfd_create("arbor-registered", MFD_CLOEXEC);
    if (fd < 0) {
        arb_debug("node-shared registration: memfd_create: %s", strerror(errno));
        return ARBOR_ERR_UNSUPPORTED;
    }
    void *copy = MAP_FAILED;
    if (ftruncate(fd, (off_t)n) == 0)
        copy = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (copy == MAP_FAILED) {
        arb_debug("node-shared registration: %zu bytes of memory file: %s", n, strerror(errno));
        close(fd);
        return errno == ENOMEM ? ARBOR_ERR_NO_MEMORY : ARBOR_ERR_UNSUPPORTED;
    }
    if (anon)
        copy_touched(copy, lo, n, pg);
    else
        copy_pages(copy, (const volatile uint64_t *)lo, n);
    /* The file replaces the pages at their address; a failure leaves them as they were. */
    void *at = mmap((void *)lo, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    int err = errno;
    munmap(copy, n);
    if (at == MAP_FAILED) {
        arb_debug("node-shared registration: mapping the file over [%p, +%zu): %s", (void *)lo, n,
                  strerror(err));
        close(fd);
        return ARBOR_ERR_UNSUPPORTED;
    }
    *sp = (arb_shared_pages_t){.lo = lo, .len = n, .fd = fd, .pid = (uint64_t)getpid()};
    return ARBOR_OK;
}

arbor_status_t arb_shared_pages_dup(const arb_shared_pages_t *from, arb_shared_pages_t *to)
{
    int fd = fcntl(from->fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) return ARBOR_ERR_NO_MEMORY;
    *to = *from;
    to->fd = fd;
    return ARBOR_OK;
}

void arb_shared_pages_release(arb_shared_pages_t *sp)
{
    if (sp->fd >= 0) close(sp->fd);
    sp->fd = -1;
}

arbor_status_t arb_shared_pages_map(uint64_t pid, int fd, size_t len, void **map_p)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%llu/fd/%d", (unsigned long long)pid, fd);
    int own = open(path, O_RDWR | O_CLOEXEC);
    if (own < 0) {
        arb_debug("node-shared registration: %s: %s", path, strerror(errno));
        return ARBOR_ERR_UNSUPPORTED;
    }
    void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, own, 0);
    int err = errno;
    close(own); /* the mapping keeps the file */
    if (map == MAP_FAILED) {
        arb_debug("node-shared registration: mapping %s: %s", path, strerror(err));
        return err == ENOMEM ? ARBOR_ERR_NO_MEMORY : ARBOR_ERR_UNSUPPORTED;
    }
    *map_p = map;
    return ARBOR_OK;
}

void arb_shared_pages_unmap(void *map, size_t len)
{
    if (map) munmap(map, len);
}

#else

arbor_status_t arb_shared_pages_make(void *addr, size_t len, arb_shared_pages_t *sp)
{
    (void)addr, (void)len, (void)sp;
    return ARBOR_ERR_UNSUPPORTED;
}

arbor_status_t arb_shared_pages_dup(const arb_shared_pages_t *from, arb_shared_pages_t *to)
{
    (void)from, (void)to;
    return ARBOR_ERR_UNSUPPORTED;
}

void arb_shared_pages_release(arb_shared_pages_t *sp)
{
    (void)sp;
}

arbor_status_t arb_shared_pages_map(uint64_t pid, int fd, size_t len, void **map_p)
{
    (void)pid, (void)fd, (void)len, (void)map_p;
    return ARBOR_ERR_UNSUPPORTED;
}

void arb_shared_pages_unmap(void *map, size_t len)
{
    (void)map, (void)len;
}

#endif
