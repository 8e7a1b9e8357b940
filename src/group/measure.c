/*
 * LogGP measurement at init over the real data path (the team's landing channels, direct or
 * RMA), timing the probe schedule of algorithms/probe.c, for each level the job has: inside a
 * node between rank 0 and its first node-local peer, and between nodes between rank 0 and the
 * first rank of another node (docs/TOPOLOGY.md):
 *   T(0) = o_s + L + o_r     half the round trip of an empty message (low percentile of many)
 *   g                        extra time per extra back-to-back empty send before the reply
 *   G                        (T(m) - T(0)) / m with m one landing slot
 *   G1                       the same with the message in the segment and the one-copy path
 *                            (coll/coll_direct.h): the receiver reads it in place; where the
 *                            pair is not mapped that path is not taken and G1 comes out as G
 *   Gc                       the same with a malloc'd message through cross-memory attach
 *                            (runtime/cma.h), where it is permitted (else left unknown)
 *   Gop                      rank 0 alone: a double sum of one landing slot's worth into
 *                            another, per byte, cache-hot: the op's own cost (logp.h's Gop),
 *                            a lower bound where the operand comes cold from a landing slot
 *   call                     after init (arb_logp_measure_call): an 8-byte allreduce on a team
 *                            of one rank, the whole public call path with no message, median
 * o_s and o_r cannot be told apart from L by timing alone; both are taken as min(g, T(0) / 3)
 * and L as the rest. Rank 0 broadcasts its figures so every rank prices algorithms alike. The
 * figures are also kept as measured (arb_ctx.measured), per path: "intra mapped" where rank 0
 * maps its partner's segment, else "intra rma"; between nodes "inter rma". arbor-info
 * --calibrate saves them as a calibration file (ARBOR_LOGP_FILE, runtime/model.c).
 */
#include "group/measure.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/cma.h"
#include "coll/coll.h"
#include "runtime/dtype.h"
#include "coll/executor.h"
#include "coll/wait.h"
#include "runtime/progress.h"
#include "util/log.h"
#include "rma/rma.h"
#include "group/share.h"
#include "coll/team.h"
#include "group/team.h"
#include "runtime/lock.h"

enum { REPS = 101 };

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Rank a sends `sends` messages of `bytes` bytes to rank b, which answers with one empty
 * message; returns a's tenth-percentile round trip over REPS runs (0 on b). Called by a and b
 * only. Not the median: on a loaded node most samples can include a wait for a descheduled
 * rank, which is no property of the path, and medians there made T(0) milliseconds long and
 * every per-byte slope 0.
 * one_copy: the instance may move its chunks as descriptors (buf must be in the segment, or
 * cma: descriptors of addresses, read by cross-memory attach). */
static arbor_status_t round_trip(int a, int b, int sends, size_t bytes, uint8_t *buf, bool one_copy,
                                 bool cma, double *rt_p)
{
    struct arbor_team *t = arb_ctx.world;
    double times[REPS];
    arb_sched_t s;
    arbor_status_t status = arb_probe_build(t->rank, a, b, sends, &s);
    if (status != ARBOR_OK) return status;
    arb_cached_sched_t *cs = arb_sched_wrap(&s);
    if (!cs) {
        arb_sched_free(&s);
        return ARBOR_ERR_NO_MEMORY;
    }
    for (int r = 0; r < REPS && status == ARBOR_OK; r++) {
        arb_inst_t *inst;
        cs->refs++;
        double t0 = arb_now_us();
        status = arb_exec_start(t, cs, buf, buf, bytes, ARB_COLL_KINDS, 0, &inst);
        if (status != ARBOR_OK) {
            arb_sched_release(cs);
            break;
        }
        inst->one_copy = one_copy || cma;
        inst->cma = cma;
        status = arb_exec_wait(inst);
        times[r] = arb_now_us() - t0;
        arb_exec_free(inst);
    }
    arb_sched_release(cs);
    qsort(times, REPS, sizeof(double), cmp_double);
    *rt_p = times[REPS / 10];
    return status;
}

/* The five LogGP figures between ranks a and b (into v on rank a), G1 into *g1 when seg_buf
 * (m bytes in the segment) is given, and Gc into *gc when gc is (cross-memory attach). */
static arbor_status_t measure_pair(int a, int b, size_t m, int k, uint8_t *buf, uint8_t *seg_buf,
                                   double v[5], double *g1, double *gc)
{
    double rt0, rt1, rtk, rtm, rt1c = 0, rtc = 0;
    arbor_status_t status;
    if ((status = round_trip(a, b, 1, 0, buf, false, false, &rt0)) != ARBOR_OK ||
        (status = round_trip(a, b, 1, 0, buf, false, false, &rt1)) != ARBOR_OK ||
        (status = round_trip(a, b, k, 0, buf, false, false, &rtk)) != ARBOR_OK ||
        (status = round_trip(a, b, 1, m, buf, false, false, &rtm)) != ARBOR_OK ||
        (seg_buf && (status = round_trip(a, b, 1, m, seg_buf, true, false, &rt1c)) != ARBOR_OK) ||
        (gc && (status = round_trip(a, b, 1, m, buf, false, true, &rtc)) != ARBOR_OK) ||
        arb_ctx.world->rank != a)
        return status;
    double T0 = (rt0 < rt1 ? rt0 : rt1) / 2, g = (rtk - rt1) / (k - 1);
    double Tm = rtm - T0; /* the reply is empty */
    g = g > 0 ? g : 0;
    double o = g < T0 / 3 ? g : T0 / 3;
    v[0] = T0 - 2 * o; /* L */
    v[1] = v[2] = o;
    v[3] = g;
    v[4] = Tm > T0 ? (Tm - T0) / (double)m : 0;
    if (seg_buf) *g1 = rt1c - T0 > T0 ? (rt1c - T0 - T0) / (double)m : 0;
    if (gc) *gc = rtc - T0 > T0 ? (rtc - T0 - T0) / (double)m : 0;
    return ARBOR_OK;
}

/* Microseconds per byte of a double sum of m bytes into another, cache-hot (median of REPS). */
static double reduce_cost(size_t m)
{
    size_t count = m / sizeof(double);
    double *a = calloc(count ? count : 1, sizeof(double)),
           *b = calloc(count ? count : 1, sizeof(double));
    double times[REPS];
    if (!a || !b || count == 0) {
        free(a);
        free(b);
        return 0;
    }
    for (size_t i = 0; i < count; i++) b[i] = (double)i;
    arb_reduce(ARBOR_SUM, ARBOR_DOUBLE, a, b, count, 1); /* warm the caches */
    /* Several passes per sample: one slot's worth takes about a microsecond, near the clock's
     * resolution. */
    enum { PASSES = 8 };
    for (int r = 0; r < REPS; r++) {
        double t0 = arb_now_us();
        for (int k = 0; k < PASSES; k++) arb_reduce(ARBOR_SUM, ARBOR_DOUBLE, a, b, count, 1);
        times[r] = (arb_now_us() - t0) / PASSES;
    }
    free(a);
    free(b);
    qsort(times, REPS, sizeof(double), cmp_double);
    return times[REPS / 2] / (double)(count * sizeof(double));
}

/* The first rank after 0 on rank 0's node (same), or on another node (!same); -1 if none. */
static int partner(bool same)
{
    for (int r = 1; r < arb_ctx.size; r++) {
        bool local = !arb_ctx.node_of || arb_ctx.node_of[r] == arb_ctx.node_of[0];
        if (local == same) return r;
    }
    return -1;
}

arbor_status_t arb_logp_measure(void)
{
    struct arbor_team *t = arb_ctx.world;
    size_t m = t->chunk;
    int k = t->depth > 1 ? t->depth : 2;
    /* intra L os or g G, inter L os or g G, which levels were measured, intra G1, Gop, whether
     * the intra pair is mapped, whether rank 0's node is oversubscribed, intra Gc */
    double v[16] = {0};
    arbor_status_t status = ARBOR_OK;

    if (t->size < 2) {
        arb_info("ARBOR_LOGP_MEASURE: one rank, nothing to measure; keeping %s",
                 arb_ctx.model_source);
        return ARBOR_OK;
    }
    uint8_t *buf = calloc(1, m);
    if (!buf) return ARBOR_ERR_NO_MEMORY;
    int intra = partner(true), inter = partner(false), me = t->rank;
    /* The one-copy message must lie in the sender's segment (a descriptor carries its offset,
     * so the block need not be the same on every rank); given back after the bcast. */
    uint64_t seg_off = 0;
    bool seg = intra > 0 && arb_mem_take_local(m, &seg_off) == ARBOR_OK;
    if (intra > 0 && (me == 0 || me == intra))
        status = measure_pair(0, intra, m, k, buf, seg ? arb_ctx.seg + seg_off : NULL, v, &v[11],
                              arb_cma_usable() ? &v[15] : NULL);
    if (status == ARBOR_OK && inter > 0 && (me == 0 || me == inter))
        status = measure_pair(0, inter, m, k, buf, NULL, v + 5, NULL, NULL);
    v[10] = (intra > 0) + 2 * (inter > 0);
    if (me == 0) {
        v[12] = reduce_cost(m);
        v[13] = intra > 0 && t->peer_seg[intra] != NULL;
        v[14] = arb_ctx.node_oversubscribed;
    }
    free(buf);
    if (status == ARBOR_OK) status = arb_coll_bcast_internal(t, v, sizeof(v), 0);
    if (seg) arb_mem_give_local(seg_off, m); /* after the bcast: nobody reads it any more */
    if (status != ARBOR_OK) return status;
    arb_calib_t *c = &arb_ctx.measured;
    memset(c, 0, sizeof(*c));
    snprintf(c->transport, sizeof(c->transport), "%s", arb_ctx.tp_name);
    arb_ctx.measured_oversub = v[14] != 0;
    if ((int)v[10] & 1) {
        int path = v[13] != 0 ? ARB_CALIB_INTRA_MAPPED : ARB_CALIB_INTRA_RMA;
        c->m[path] = (arb_logp_t){.L = v[0],
                                  .os = v[1],
                                  .orecv = v[2],
                                  .g = v[3],
                                  .G = v[4],
                                  .G1 = v[11],
                                  .Gop = v[12],
                                  .Gc = v[15]};
        c->have |= 1u << path;
        arb_ctx.model = c->m[path];
    }
    if ((int)v[10] & 2) {
        c->m[ARB_CALIB_INTER_RMA] = (arb_logp_t){
            .L = v[5], .os = v[6], .orecv = v[7], .g = v[8], .G = v[9], .G1 = v[9], .Gop = v[12]};
        c->have |= 1u << ARB_CALIB_INTER_RMA;
        arb_ctx.model_inter = c->m[ARB_CALIB_INTER_RMA];
        t->topo.inter = arb_ctx.model_inter; /* the world team was made before the measurement */
    }
    /* Where rank 0's CPUs are oversubscribed its node-local partner yields while it waits, so
     * the one-way time of an empty message between them is the wake-up the CPU bound prices
     * (algorithms/oversub.c): the shared-memory move itself is a tenth of a microsecond. */
    if (((int)v[10] & 1) && arb_ctx.cfg.oversub_wake > 0 &&
        arb_share_oversubscribed(arb_ctx.share_of[0])) {
        arb_ctx.wake_us = v[0] + v[1] + v[2];
        t->topo.wake = arb_ctx.wake_us;
    }
    snprintf(arb_ctx.model_source, sizeof(arb_ctx.model_source), "measured");
    return ARBOR_OK;
}

arbor_status_t arb_logp_measure_call(void)
{
    arbor_team_h self = NULL;
    arb_lock();
    arbor_status_t status = arb_team_split_internal(ARBOR_TEAM_WORLD, arb_ctx.rank, 0, &self);
    struct arbor_team *t = status == ARBOR_OK ? arb_team_lookup(self) : NULL;
    double in = 1, out = 0, times[REPS], call = 0;
    if (status == ARBOR_OK && !t) status = ARBOR_ERR_TEAM;
    /* 10 samples to warm the schedule cache; 8 calls per sample: one is near the clock's
     * resolution. */
    enum { CALLS = 8 };
    for (int r = 0; r < REPS + 10 && status == ARBOR_OK; r++) {
        double t0 = arb_now_us();
        for (int k = 0; k < CALLS && status == ARBOR_OK; k++)
            status = arb_coll_allreduce_internal(t, &in, &out, 1, ARBOR_DOUBLE, ARBOR_SUM);
        if (r >= 10) times[r - 10] = (arb_now_us() - t0) / CALLS;
    }
    if (status == ARBOR_OK && out != in) status = ARBOR_ERR_TRANSPORT; /* a wrong result */
    arbor_status_t freed = self ? arb_team_free_internal(&self) : ARBOR_OK;
    if (status == ARBOR_OK) status = freed;
    if (status == ARBOR_OK) {
        qsort(times, REPS, sizeof(double), cmp_double);
        call = times[REPS / 2];
        /* Every rank prices with rank 0's figure. */
        status = arb_coll_bcast_internal(arb_ctx.world, &call, sizeof(call), 0);
    }
    arb_unlock();
    if (status != ARBOR_OK) return status;
    arb_ctx.model.call = call;
    arb_ctx.model_inter.call = call;
    arb_ctx.world->topo.inter.call = call;
    for (int p = 0; p < ARB_CALIB_PATHS; p++)
        if (arb_ctx.measured.have & (1u << p)) arb_ctx.measured.m[p].call = call;
    return ARBOR_OK;
}
