/* Cross-memory attach: the init probe, the agreement and the reads (core/cma.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* process_vm_readv */
#endif
#include "core/cma.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/coll.h"
#include "core/context.h"
#include "core/log.h"

#if defined(__linux__)
#include <sys/uio.h>
#include <unistd.h>
#define HAVE_CMA 1
#else
#define HAVE_CMA 0
#endif

/* What every rank publishes: its process id and the address of its cookie, whose value the
 * probing reader knows (so a read that "works" on the wrong process is caught). */
typedef struct {
    uint64_t pid, cookie_addr;
} cma_card_t;

static struct {
    bool usable;
    uint64_t *pid; /* [world size] */
    char why[160];
} cma;

static uint64_t cookie;

static uint64_t cookie_of(int r)
{
    return 0xc3a5c85c97cb3127ull ^ (uint64_t)r;
}

int arb_cma_read(int r, void *dst, uintptr_t addr, size_t len)
{
#if HAVE_CMA
    if (!cma.pid || r < 0 || r >= arb_ctx.size) return EINVAL;
    uint8_t *to = dst;
    while (len) {
        struct iovec local = {to, len}, remote = {(void *)addr, len};
        ssize_t got = process_vm_readv((pid_t)cma.pid[r], &local, 1, &remote, 1, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return got < 0 ? errno : EFAULT;
        to += got, addr += (uintptr_t)got, len -= (size_t)got; /* a partial read: go on */
    }
    return 0;
#else
    (void)r, (void)dst, (void)addr, (void)len;
    return ENOSYS;
#endif
}

/* This rank's probe: reads every other rank's cookie; 0 or the first errno (*bad: whose). */
static int probe(const cma_card_t *cards, int *bad)
{
    for (int r = 0; r < arb_ctx.size; r++) {
        if (r == arb_ctx.rank) continue;
        uint64_t v = 0;
        int err = arb_ctx.cfg.cma == ARB_CMA_REFUSE
                      ? EPERM
                      : arb_cma_read(r, &v, cards[r].cookie_addr, sizeof(v));
        if (!err && v != cookie_of(r)) err = EIO; /* read something, not the cookie */
        if (err) {
            *bad = r;
            return err;
        }
    }
    return 0;
}

arbor_status_t arb_cma_init(void)
{
    memset(&cma, 0, sizeof(cma));
    snprintf(cma.why, sizeof(cma.why), "permitted");
    if (arb_ctx.cfg.cma == ARB_CMA_NEVER || !HAVE_CMA || arb_ctx.nnodes > 1 || arb_ctx.size < 2) {
        /* Every rank sees the same (uniform setting, agreed node count): no exchange. */
        snprintf(cma.why, sizeof(cma.why), "%s",
                 arb_ctx.cfg.cma == ARB_CMA_NEVER ? "ARBOR_CMA=never"
                 : !HAVE_CMA                      ? "not Linux"
                 : arb_ctx.size < 2               ? "one rank"
                                                  : "ranks on several nodes");
        return ARBOR_OK;
    }
    int P = arb_ctx.size;
    cma_card_t mine = {.pid = HAVE_CMA ? (uint64_t)getpid() : 0, .cookie_addr = (uintptr_t)&cookie};
    cma_card_t *cards = calloc((size_t)P, sizeof(*cards));
    cma.pid = calloc((size_t)P, sizeof(*cma.pid));
    if (!cards || !cma.pid) {
        free(cards);
        arb_cma_fini();
        return ARBOR_ERR_NO_MEMORY;
    }
    cookie = cookie_of(arb_ctx.rank);
    arbor_status_t status =
        arb_coll_allgather_internal(arb_ctx.world, &mine, cards, 2, ARBOR_UINT64);
    if (status == ARBOR_OK) {
        for (int r = 0; r < P; r++) cma.pid[r] = cards[r].pid;
        int bad = -1, err = probe(cards, &bad);
        /* Agreement: the largest (errno, rank) pair wins, so every rank names the same one. */
        uint64_t v = err ? ((uint64_t)err << 32 | (uint64_t)arb_ctx.rank) : 0, worst = 0;
        if (err)
            arb_info("cross-memory attach: reading rank %d refused: %s", bad,
                     arb_ctx.cfg.cma == ARB_CMA_REFUSE ? "EPERM (simulated, ARBOR_CMA=refuse)"
                                                       : strerror(err));
        status = arb_coll_allreduce_internal(arb_ctx.world, &v, &worst, 1, ARBOR_UINT64, ARBOR_MAX);
        if (status == ARBOR_OK && worst) {
            int e = (int)(worst >> 32), who = (int)(worst & 0xffffffffu);
            snprintf(cma.why, sizeof(cma.why), "refused at rank %d: %s%s", who, strerror(e),
                     arb_ctx.cfg.cma == ARB_CMA_REFUSE ? " (simulated, ARBOR_CMA=refuse)"
                     : e == EPERM                      ? " (ptrace scope or a seccomp filter)"
                                                       : "");
        }
        cma.usable = status == ARBOR_OK && !worst;
    }
    free(cards);
    if (!cma.usable) {
        free(cma.pid);
        cma.pid = NULL;
    }
    if (status == ARBOR_OK && arb_ctx.rank == 0 && !cma.usable &&
        (arb_ctx.cfg.print_algorithm || arb_ctx.cfg.cma == ARB_CMA_ALWAYS))
        fprintf(stderr,
                "arbor: cross-memory attach %s: malloc'd buffers go through the landing slots\n",
                cma.why);
    return status;
}

void arb_cma_fini(void)
{
    free(cma.pid);
    cma.pid = NULL;
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
