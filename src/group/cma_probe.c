/* Cross-memory attach at init: the probe and the agreement (runtime/cma.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getpid */
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group/cma_probe.h"

#include "runtime/cma.h"
#include "coll/coll.h"
#include "runtime/context.h"
#include "util/log.h"

#if defined(__linux__)
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

static uint64_t cookie;

static uint64_t cookie_of(int r)
{
    return 0xc3a5c85c97cb3127ull ^ (uint64_t)r;
}

/* This rank's probe: reads every other rank's cookie; 0 or the first errno (*bad: whose). */
static int probe(const cma_card_t *cards, int *bad)
{
    for (int r = 0; r < arb_ctx.size; r++) {
        if (r == arb_ctx.rank) continue;
        uint64_t v = 0;
        int err = arb_ctx.cfg.cma == ARB_CMA_REFUSE
                      ? EPERM
                      : arb_cma_read_pid(cards[r].pid, &v, cards[r].cookie_addr, sizeof(v));
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
    arb_cma_adopt(NULL, "permitted");
    if (arb_ctx.cfg.cma == ARB_CMA_NEVER || !HAVE_CMA || arb_ctx.nnodes > 1 || arb_ctx.size < 2) {
        /* Every rank sees the same (uniform setting, agreed node count): no exchange. */
        arb_cma_adopt(NULL, arb_ctx.cfg.cma == ARB_CMA_NEVER ? "ARBOR_CMA=never"
                            : !HAVE_CMA                      ? "not Linux"
                            : arb_ctx.size < 2               ? "one rank"
                                                             : "ranks on several nodes");
        return ARBOR_OK;
    }
    int P = arb_ctx.size;
    cma_card_t mine = {.pid = (uint64_t)getpid(), .cookie_addr = (uintptr_t)&cookie};
    cma_card_t *cards = calloc((size_t)P, sizeof(*cards));
    uint64_t *pid = calloc((size_t)P, sizeof(*pid));
    if (!cards || !pid) {
        free(cards);
        free(pid);
        return ARBOR_ERR_NO_MEMORY;
    }
    cookie = cookie_of(arb_ctx.rank);
    char why[160] = "permitted";
    uint64_t worst = 0;
    arbor_status_t status =
        arb_coll_allgather_internal(arb_ctx.world, &mine, cards, 2, ARBOR_UINT64);
    if (status == ARBOR_OK) {
        for (int r = 0; r < P; r++) pid[r] = cards[r].pid;
        int bad = -1, err = probe(cards, &bad);
        /* Agreement: the largest (errno, rank) pair wins, so every rank names the same one. */
        uint64_t v = err ? ((uint64_t)err << 32 | (uint64_t)arb_ctx.rank) : 0;
        if (err)
            arb_info("cross-memory attach: reading rank %d refused: %s", bad,
                     arb_ctx.cfg.cma == ARB_CMA_REFUSE ? "EPERM (simulated, ARBOR_CMA=refuse)"
                                                       : strerror(err));
        status = arb_coll_allreduce_internal(arb_ctx.world, &v, &worst, 1, ARBOR_UINT64, ARBOR_MAX);
        if (status == ARBOR_OK && worst) {
            int e = (int)(worst >> 32), who = (int)(worst & 0xffffffffu);
            snprintf(why, sizeof(why), "refused at rank %d: %s%s", who, strerror(e),
                     arb_ctx.cfg.cma == ARB_CMA_REFUSE ? " (simulated, ARBOR_CMA=refuse)"
                     : e == EPERM                      ? " (ptrace scope or a seccomp filter)"
                                                       : "");
        }
    }
    free(cards);
    bool usable = status == ARBOR_OK && !worst;
    if (!usable) {
        free(pid);
        pid = NULL;
    }
    arb_cma_adopt(pid, why);
    if (status == ARBOR_OK && arb_ctx.rank == 0 && !usable &&
        (arb_ctx.cfg.print_algorithm || arb_ctx.cfg.cma == ARB_CMA_ALWAYS))
        fprintf(stderr,
                "arbor: cross-memory attach %s: malloc'd buffers go through the landing slots\n",
                why);
    return status;
}
