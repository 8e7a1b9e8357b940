/*
 * LogGP measurement at init, between ranks 0 and 1 over the real data path (the team's landing
 * channels, direct or RMA), using hand-built schedules:
 *   T(0) = o_s + L + o_r     half the round trip of an empty message (median of many)
 *   g                        extra time per extra back-to-back empty send before the reply
 *   G                        (T(m) - T(0)) / m with m one landing slot
 * o_s and o_r cannot be told apart from L by timing alone; both are taken as min(g, T(0) / 3)
 * and L as the rest. Rank 0 broadcasts its figures so every rank prices algorithms alike.
 */
#include "core/measure.h"

#include <stdlib.h>
#include <string.h>

#include "core/executor.h"
#include "core/log.h"

enum { REPS = 101 };

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Rank 0 sends `sends` messages of `blocks` blocks to rank 1, which answers with one empty
 * message; returns rank 0's median round trip over REPS runs (0 on rank 1). */
static arbor_status_t round_trip(int sends, size_t bytes, uint8_t *buf, double *median_p)
{
    struct arbor_team *t = arb_ctx.world;
    double times[REPS];
    arb_sched_t s;
    arb_sched_init(&s);
    for (int i = 0; i < sends; i++) {
        if (t->rank == 0) arb_sched_send(&s, 0, 1, ARB_BUF_SRC, 0, 1, -1);
        else arb_sched_recv(&s, 0, 0, ARB_BUF_DST, 0, 1, 0, -1);
    }
    if (t->rank == 0) arb_sched_recv(&s, 1, 1, ARB_BUF_DST, 0, 0, 0, -1);
    else arb_sched_send(&s, 1, 0, ARB_BUF_SRC, 0, 0, -1);
    arb_cached_sched_t *cs = arb_sched_wrap(&s);
    if (!cs) return ARBOR_ERR_NO_MEMORY;

    arbor_status_t status = ARBOR_OK;
    for (int r = 0; r < REPS && status == ARBOR_OK; r++) {
        arb_inst_t *inst;
        cs->refs++;
        double t0 = arb_now_us();
        status = arb_exec_start(t, cs, buf, buf, bytes, ARB_COLL_KINDS, 0, &inst);
        if (status != ARBOR_OK) {
            arb_sched_release(cs);
            break;
        }
        status = arb_exec_wait(inst);
        times[r] = arb_now_us() - t0;
        arb_exec_free(inst);
    }
    arb_sched_release(cs);
    qsort(times, REPS, sizeof(double), cmp_double);
    *median_p = times[REPS / 2];
    return status;
}

arbor_status_t arb_logp_measure(void)
{
    struct arbor_team *t = arb_ctx.world;
    size_t m = t->chunk;
    int k = t->depth > 1 ? t->depth : 2;
    double v[5] = {0};
    arbor_status_t status = ARBOR_OK;

    if (t->size < 2) {
        arb_info("ARBOR_LOGP_MEASURE: one rank, nothing to measure; keeping %s",
                 arb_ctx.model_source);
        return ARBOR_OK;
    }
    uint8_t *buf = calloc(1, m);
    if (!buf) return ARBOR_ERR_NO_MEMORY;
    if (t->rank <= 1) {
        double rt0, rt1, rtk, rtm;
        if ((status = round_trip(1, 0, buf, &rt0)) == ARBOR_OK &&
            (status = round_trip(1, 0, buf, &rt1)) == ARBOR_OK &&
            (status = round_trip(k, 0, buf, &rtk)) == ARBOR_OK &&
            (status = round_trip(1, m, buf, &rtm)) == ARBOR_OK && t->rank == 0) {
            double T0 = (rt0 < rt1 ? rt0 : rt1) / 2, g = (rtk - rt1) / (k - 1);
            double Tm = rtm - T0; /* the reply is empty */
            g = g > 0 ? g : 0;
            double o = g < T0 / 3 ? g : T0 / 3;
            v[0] = T0 - 2 * o; /* L */
            v[1] = v[2] = o;
            v[3] = g;
            v[4] = Tm > T0 ? (Tm - T0) / (double)m : 0;
        }
    }
    free(buf);
    if (status != ARBOR_OK) return status;
    if ((status = arbor_bcast(ARBOR_TEAM_WORLD, v, sizeof(v), 0)) != ARBOR_OK) return status;
    arb_ctx.model = (arb_logp_t){.L = v[0], .os = v[1], .orecv = v[2], .g = v[3], .G = v[4]};
    arb_ctx.model_source = "measured";
    return ARBOR_OK;
}
