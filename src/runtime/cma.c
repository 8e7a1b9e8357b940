/* Cross-memory attach: the agreed state and the reads (runtime/cma.h; the init probe is
 * group/cma_probe.c, which runs collectives: this file stays a leaf the executor can call). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* process_vm_readv */
#endif
#include "runtime/cma.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "util/log.h"

#if defined(__linux__)
#include <sys/uio.h>
#include <unistd.h>
#define HAVE_CMA 1
#else
#define HAVE_CMA 0
#endif

static struct {
    bool usable;
    uint64_t *pid; /* [world size] */
    char why[160];
    uint8_t *bounce; /* arb_cma_bounce */
    size_t bounce_cap;
} cma;

uint8_t *arb_cma_bounce(size_t len)
{
    if (cma.bounce_cap < len) {
        uint8_t *b = realloc(cma.bounce, len);
        if (!b) return NULL;
        cma.bounce = b, cma.bounce_cap = len;
    }
    return cma.bounce;
}

int arb_cma_read_pid(uint64_t pid, void *dst, uintptr_t addr, size_t len)
{
#if HAVE_CMA
    uint8_t *to = dst;
    while (len) {
        struct iovec local = {to, len}, remote = {(void *)addr, len};
        ssize_t got = process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return got < 0 ? errno : EFAULT;
        to += got, addr += (uintptr_t)got, len -= (size_t)got; /* a partial read: go on */
    }
    return 0;
#else
    (void)pid, (void)dst, (void)addr, (void)len;
    return ENOSYS;
#endif
}

int arb_cma_read(int r, void *dst, uintptr_t addr, size_t len)
{
    if (!cma.pid || r < 0 || r >= arb_ctx.size) return EINVAL;
    return arb_cma_read_pid(cma.pid[r], dst, addr, len);
}

void arb_cma_adopt(uint64_t *pid, const char *why)
{
    free(cma.pid);
    cma.pid = pid;
    cma.usable = pid != NULL;
    snprintf(cma.why, sizeof(cma.why), "%s", why);
}

void arb_cma_fini(void)
{
    free(cma.pid);
    cma.pid = NULL;
    free(cma.bounce);
    cma.bounce = NULL;
    cma.bounce_cap = 0;
    cma.usable = false;
}

bool arb_cma_usable(void)
{
    return cma.usable;
}

const char *arb_cma_why(void)
{
    return cma.why;
}
