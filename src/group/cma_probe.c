/* Cross-memory attach at init: the probe, its price on this machine and the agreement
 * (runtime/cma.h; the price enters the model through runtime/model.h, arb_model_cma_measured). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getpid */
#endif
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group/cma_probe.h"

#include "runtime/cma.h"
#include "coll/coll.h"
#include "runtime/context.h"
#include "runtime/model.h"
#include "util/clock.h"
#include "util/log.h"

#if defined(__linux__)
#include <unistd.h>
#define HAVE_CMA 1
#else
#define HAVE_CMA 0
#endif

/* What every rank publishes: its process id, the address of its cookie, whose value the
 * probing reader knows (so a read that "works" on the wrong process is caught), and the span
 * its node peer times reading (0: none). */
typedef struct {
    uint64_t pid, cookie_addr, span_addr;
} cma_card_t;
enum { CARD_WORDS = sizeof(cma_card_t) / sizeof(uint64_t) };

/* The timed span: large enough that the per-page cost, not the system call, dominates (as in
 * the large calls the choice is about), small enough that both spans stay in a core's cache, so
 * that what is timed is the copy path and not DRAM (a span beyond one core's cache made the
 * ratio no steadier and the init longer: docs/PERFORMANCE.md, "Priced at init"); a few
 * repetitions, the best of each kind kept, since a rank descheduled in one of them must not set
 * the price. Most of the time it adds to init is faulting in the two spans. */
#define MEASURE_BYTES ARB_CMA_MEASURE_BYTES
#define MEASURE_REPS  6

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

/* This rank's ratio: the best of MEASURE_REPS process_vm_readv of the next rank's span against
 * the best of as many memcpy of this rank's own into the same destination, alternated so that a
 * burst of load falls on both kinds; 0 when it could not be timed. Each timed memcpy follows an
 * untimed one: without it, whether another process ran on the core in between (and took the
 * cache) decided the copy's time, and so the ratio, from one run to the next. */
static double time_ratio(const cma_card_t *cards, const uint8_t *span, uint8_t *dst)
{
    int peer = (arb_ctx.rank + 1) % arb_ctx.size;
    if (!span || !dst || !cards[peer].span_addr) return 0;
    double copy = INFINITY, read = INFINITY;
    for (int k = 0; k < MEASURE_REPS; k++) {
        memcpy(dst, span, MEASURE_BYTES); /* both spans in cache, whoever ran here meanwhile */
        double t0 = arb_now_us();
        memcpy(dst, span, MEASURE_BYTES);
        double t1 = arb_now_us();
        if (arb_cma_read_pid(cards[peer].pid, dst, cards[peer].span_addr, MEASURE_BYTES)) return 0;
        double t2 = arb_now_us();
        if (t1 - t0 < copy) copy = t1 - t0;
        if (t2 - t1 < read) read = t2 - t1;
    }
    arb_info("cross-memory attach: %d KiB from rank %d in %.3g us, memcpy %.3g us",
             MEASURE_BYTES / 1024, peer, read, copy);
    return copy > 0 ? read / copy : 0;
}

/* Whether the job prices cross-memory attach by measuring it here: the model decides
 * (ARBOR_CMA=auto), the measurement is on, and no source gave Gc. Uniform settings and the
 * agreed file: the same on every rank. */
static bool measuring(void)
{
    return arb_ctx.cfg.cma == ARB_CMA_AUTO && arb_ctx.cfg.cma_measure && !arb_model_gc_given();
}

/* Scales Gc by the ratios every rank measured (ratio[P]), or says why it keeps its value. */
static void price(const double *ratio, int P)
{
    int discarded = 0;
    double agreed = arb_model_cma_agree(ratio, P, &discarded);
    if (agreed > 0) {
        arb_model_cma_measured(agreed, P - discarded);
        return;
    }
    char why[96];
    snprintf(why, sizeof(why), "init measurement discarded: %d of %d ranks outside %g-%gx memcpy",
             discarded, P, ARB_CMA_RATIO_MIN, ARB_CMA_RATIO_MAX);
    arb_model_gc_note(why);
    if (arb_ctx.rank == 0) arb_info("cross-memory attach: Gc kept: %s", why);
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
    bool measure = measuring();
    cma_card_t mine = {.pid = (uint64_t)getpid(), .cookie_addr = (uintptr_t)&cookie};
    cma_card_t *cards = calloc((size_t)P, sizeof(*cards));
    uint64_t *pid = calloc((size_t)P, sizeof(*pid));
    /* Per rank: the refusal word (below) and the measured ratio's bits. */
    uint64_t *said = calloc((size_t)P * 2, sizeof(*said));
    double *ratio = calloc((size_t)P, sizeof(*ratio));
    /* Without memory for the span a rank publishes none and measures nothing: its peer's ratio
     * and its own are 0, discarded at the agreement. */
    double t0 = arb_now_us(); /* what pricing adds to init, for the log */
    uint8_t *span = measure ? malloc(MEASURE_BYTES) : NULL;
    uint8_t *dst = measure ? malloc(MEASURE_BYTES) : NULL;
    if (!cards || !pid || !said || !ratio) {
        free(cards), free(pid), free(said), free(ratio), free(span), free(dst);
        return ARBOR_ERR_NO_MEMORY;
    }
    if (span && dst) {
        /* Touched before it is published, so that no read or copy times a page fault. */
        memset(span, 0x5a ^ arb_ctx.rank, MEASURE_BYTES);
        memset(dst, 0, MEASURE_BYTES);
        mine.span_addr = (uintptr_t)span;
    }
    double spent = arb_now_us() - t0;
    cookie = cookie_of(arb_ctx.rank);
    char why[160] = "permitted";
    uint64_t worst = 0;
    arbor_status_t status =
        arb_coll_allgather_internal(arb_ctx.world, &mine, cards, CARD_WORDS, ARBOR_UINT64);
    if (status == ARBOR_OK) {
        for (int r = 0; r < P; r++) pid[r] = cards[r].pid;
        int bad = -1, err = probe(cards, &bad);
        t0 = arb_now_us();
        double mine_ratio = !err && measure ? time_ratio(cards, span, dst) : 0;
        if (measure)
            arb_info("cross-memory attach: ratio %.3g, priced in %.0f us (buffers and copies)",
                     mine_ratio, spent + arb_now_us() - t0);
        /* Agreement: the largest (errno, rank) pair wins, so every rank names the same one;
         * every rank sees every ratio, so all agree the same price. The gather also tells each
         * rank that its peer has done reading its span. */
        uint64_t v[2] = {err ? ((uint64_t)err << 32 | (uint64_t)arb_ctx.rank) : 0, 0};
        memcpy(&v[1], &mine_ratio, sizeof(v[1]));
        if (err)
            arb_info("cross-memory attach: reading rank %d refused: %s", bad,
                     arb_ctx.cfg.cma == ARB_CMA_REFUSE ? "EPERM (simulated, ARBOR_CMA=refuse)"
                                                       : strerror(err));
        status = arb_coll_allgather_internal(arb_ctx.world, v, said, 2, ARBOR_UINT64);
        for (int r = 0; status == ARBOR_OK && r < P; r++) {
            if (said[2 * r] > worst) worst = said[2 * r];
            memcpy(&ratio[r], &said[2 * r + 1], sizeof(ratio[r]));
        }
        if (status == ARBOR_OK && worst) {
            int e = (int)(worst >> 32), who = (int)(worst & 0xffffffffu);
            snprintf(why, sizeof(why), "refused at rank %d: %s%s", who, strerror(e),
                     arb_ctx.cfg.cma == ARB_CMA_REFUSE ? " (simulated, ARBOR_CMA=refuse)"
                     : e == EPERM                      ? " (ptrace scope or a seccomp filter)"
                                                       : "");
        }
    }
    free(cards);
    free(said);
    free(span);
    free(dst);
    bool usable = status == ARBOR_OK && !worst;
    if (!usable) {
        free(pid);
        pid = NULL;
    }
    arb_cma_adopt(pid, why);
    if (usable && measure)
        price(ratio, P);
    else if (usable && arb_ctx.cfg.cma == ARB_CMA_AUTO && !arb_model_gc_given())
        arb_model_gc_note("ARBOR_CMA_MEASURE=n");
    free(ratio);
    if (status == ARBOR_OK && arb_ctx.rank == 0 && !usable &&
        (arb_ctx.cfg.print_algorithm || arb_ctx.cfg.cma == ARB_CMA_ALWAYS))
        fprintf(stderr,
                "arbor: cross-memory attach %s: malloc'd buffers go through the landing slots\n",
                why);
    return status;
}
