/*
 * The core's flush (runtime/flush.h) over the transport's flush_start / flush_test / flush_end.
 * It was one blocking call into the backend, which covered every endpoint and spun there under
 * the engine lock: a write still in flight to a rank outside the team being freed (dead, or
 * alive and not calling arbor) held a team free until ARBOR_TIMEOUT on OFI shm, and interrupt
 * mode could not sleep. The loop below is the engine's waiting loop (runtime/progress.c): a turn
 * is one test of the flush plus one engine turn; idle turns nap in interrupt mode.
 */
#include "runtime/flush.h"

#include "bootstrap/bootstrap.h"
#include "util/clock.h"
#include "runtime/context.h"
#include "runtime/lock.h"
#include "runtime/doorbell.h"
#include "util/log.h"
#include "runtime/progress.h"

/* As runtime/progress.c: a peer that left normally reads as lost at once, while what it owes us
 * may still be on its way; fail only once the loss is this old and nothing moved meanwhile. */
#define FLUSH_LOST_GRACE_US 100000.0

typedef struct {
    arb_tp_flush_t *f;
    arbor_status_t status; /* ARB_ERR_AGAIN while the flush runs */
} flush_wait_t;

static void test_once(flush_wait_t *w)
{
    if (w->status == ARB_ERR_AGAIN) w->status = arb_ctx.tp_ops->flush_test(arb_ctx.tp, w->f);
}

/* The re-check of interrupt mode's waiting step (runtime/doorbell.h). */
static bool recheck(void *arg)
{
    flush_wait_t *w = arg;
    test_once(w);
    return w->status != ARB_ERR_AGAIN || arb_progress_all() > 0;
}

static int covered_lost(const int *peers, int n)
{
    arb_boot_t *b = arb_ctx.boot;
    if (!b || !b->ops->losses(b)) return -1;
    for (int i = 0; i < n; i++) {
        int r = peers ? peers[i] : i;
        if (b->ops->lost(b, r)) return r;
    }
    return -1;
}

arbor_status_t arb_flush_peers(const int *peers, int n, const char *what)
{
    flush_wait_t w = {NULL, ARB_ERR_AGAIN};
    arbor_status_t status;
    unsigned tries = 0;
    double first = 0;
    /* A start the backend cannot post now (a full queue for a ping) is retried after progress;
     * ARB_ERR_AGAIN never reaches the caller. */
    while ((status = arb_ctx.tp_ops->flush_start(arb_ctx.tp, peers, n, &w.f)) == ARB_ERR_AGAIN) {
        if (arb_progress_all() == 0) arb_wait_pause(true);
        if (++tries % 256) continue;
        double now = arb_now_us();
        if (first == 0) first = now;
        if (arb_ctx.cfg.timeout_s > 0 && now - first > arb_ctx.cfg.timeout_s * 1e6) {
            arb_error("%s: the flush could not start within %g s (ARBOR_TIMEOUT)", what,
                      arb_ctx.cfg.timeout_s);
            return ARBOR_ERR_TIMEOUT;
        }
    }
    if (status != ARBOR_OK) return status;
    if (!peers) n = arb_ctx.size;
    /* ARBOR_TIMEOUT counts from the start of the flush, whatever else keeps moving (other
     * teams' collectives, active messages): the clock is read every 256 turns, and after each
     * nap. start: the first such read (no clock read for a flush that ends at once). */
    double start = 0, lost_since = 0;
    unsigned turns = 0;
    arb_nap_t nap = {0};
    for (;;) {
        test_once(&w);
        if (w.status != ARB_ERR_AGAIN) break;
        bool slept = false;
        if (arb_progress_all() > 0) {
            nap.idle_since = 0;
            arb_wait_pause(false);
        } else {
            arb_wait_pause(true);
            slept = arb_bell_nap(&nap, recheck, &w);
            if (w.status != ARB_ERR_AGAIN) break;
        }
        if (!slept && ++turns % 256) continue;
        double now = arb_now_us();
        if (start == 0) start = now;
        int lost = covered_lost(peers, n);
        if (lost >= 0) {
            if (lost_since == 0) lost_since = now;
            if (now - lost_since > FLUSH_LOST_GRACE_US) {
                arb_error("%s: the flush waits for rank %d, which is gone", what, lost);
                w.status = ARBOR_ERR_PEER_LOST;
                break;
            }
        }
        if (arb_ctx.cfg.timeout_s > 0 && now - start > arb_ctx.cfg.timeout_s * 1e6) {
            arb_error("%s: flush of %d peers not complete after %g s (ARBOR_TIMEOUT)", what, n,
                      arb_ctx.cfg.timeout_s);
            w.status = ARBOR_ERR_TIMEOUT;
            break;
        }
    }
    arb_ctx.tp_ops->flush_end(arb_ctx.tp, w.f);
    return w.status;
}
