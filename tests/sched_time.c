/* LogGP timing of schedules (sched_time.h). */
#include "tests/sched_time.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int nchunks, done; /* chunks in the step, chunks completed */
    uint64_t ticket;   /* SEND / RECV: the channel ticket of chunk 0 */
    double *t;         /* completion time of each chunk */
    double last;       /* completion of the whole step */
} step_state_t;

typedef struct {
    step_state_t *st;
    double cpu, send_free, recv_free; /* when the CPU is free, the next send / receive may start */
    uint32_t round;                   /* the round now running */
    double round_start;
    int left; /* steps not complete */
} rank_state_t;

static size_t chunk_len(const arb_step_t *s, size_t block, size_t chunk, int c, int n)
{
    size_t total = (size_t)s->bytes * block;
    if (total == 0) return 0;
    return c < n - 1 ? chunk : total - (size_t)(n - 1) * chunk;
}

double arb_sim_time(int P, const arb_sched_t *scheds, size_t block, size_t chunk, int depth,
                    const arb_logp_t *m, char *err, size_t errlen)
{
    rank_state_t *rk = calloc((size_t)P, sizeof(*rk));
    /* arrival[a * P + b][ticket]: when chunk `ticket` from a landed at b (NAN: not yet) */
    double **arrival = calloc((size_t)P * (size_t)P, sizeof(*arrival));
    /* taken[a * P + b][ticket]: when b took chunk `ticket` from a out of its slot (NAN: not yet) */
    double **taken = calloc((size_t)P * (size_t)P, sizeof(*taken));
    uint64_t *sent = calloc((size_t)P * (size_t)P, sizeof(*sent)); /* tickets issued per channel */
    size_t *chan_len = calloc((size_t)P * (size_t)P, sizeof(*chan_len));
    uint64_t *rtick = calloc((size_t)P * (size_t)P, sizeof(*rtick));
    double G1 = arb_logp_one_copy(m).G, result = -1;
    if (!rk || !arrival || !taken || !sent || !chan_len || !rtick) goto out;
    for (int r = 0; r < P; r++) {
        const arb_sched_t *s = &scheds[r];
        rk[r].st = calloc((size_t)s->nsteps + 1, sizeof(step_state_t));
        if (!rk[r].st) goto out;
        rk[r].left = s->nsteps;
        rk[r].round = UINT32_MAX;
        for (int i = 0; i < s->nsteps; i++) {
            const arb_step_t *st = &s->steps[i];
            size_t total = (size_t)st->bytes * block;
            int n = total ? (int)((total + chunk - 1) / chunk) : 1;
            rk[r].st[i].nchunks = n;
            rk[r].st[i].t = calloc((size_t)n, sizeof(double));
            if (!rk[r].st[i].t) goto out;
            if (st->round < rk[r].round) rk[r].round = st->round;
            if (st->kind == ARB_STEP_SEND) {
                rk[r].st[i].ticket = chan_len[r * P + st->peer];
                chan_len[r * P + st->peer] += (size_t)n;
            } else if (st->kind == ARB_STEP_RECV) {
                rk[r].st[i].ticket = rtick[st->peer * P + r];
                rtick[st->peer * P + r] += (uint64_t)n;
            } else if (st->kind != ARB_STEP_COPY) {
                snprintf(err, errlen, "rank %d step %d: an offload step has no LogGP time", r, i);
                goto out;
            }
        }
    }
    for (int c = 0; c < P * P; c++) {
        if (chan_len[c] != rtick[c]) {
            snprintf(err, errlen, "channel %d -> %d: %zu chunks sent, %llu received", c / P, c % P,
                     chan_len[c], (unsigned long long)rtick[c]);
            goto out;
        }
        arrival[c] = malloc((chan_len[c] + 1) * sizeof(double));
        taken[c] = malloc((chan_len[c] + 1) * sizeof(double));
        if (!arrival[c] || !taken[c]) goto out;
        for (size_t k = 0; k < chan_len[c]; k++) arrival[c][k] = taken[c][k] = NAN;
    }
    for (;;) {
        int br = -1, bi = -1;
        double best = INFINITY;
        bool all_done = true;
        for (int r = 0; r < P; r++) {
            const arb_sched_t *s = &scheds[r];
            if (rk[r].left == 0) continue;
            all_done = false;
            for (int i = 0; i < s->nsteps; i++) {
                const arb_step_t *st = &s->steps[i];
                step_state_t *ss = &rk[r].st[i];
                if (st->round != rk[r].round || ss->done == ss->nchunks) continue;
                int c = ss->done;
                double t = rk[r].round_start;
                if (c > 0 && ss->t[c - 1] > t) t = ss->t[c - 1];
                if (st->dep >= 0) {
                    const step_state_t *d = &rk[r].st[st->dep];
                    bool whole = s->steps[st->dep].kind == ARB_STEP_SEND;
                    int need = whole ? d->nchunks : (c + 1 < d->nchunks ? c + 1 : d->nchunks);
                    if (d->done < need) continue;
                    if (d->t[need - 1] > t) t = d->t[need - 1];
                }
                if (rk[r].cpu > t) t = rk[r].cpu;
                if (st->kind == ARB_STEP_SEND) {
                    int ch = r * P + st->peer;
                    if (sent[ch] != ss->ticket + (uint64_t)c) continue; /* earlier tickets first */
                    uint64_t k = ss->ticket + (uint64_t)c;
                    if (depth > 0 && k >= (uint64_t)depth) { /* a free slot: its credit back */
                        double back = taken[ch][k - (uint64_t)depth];
                        if (isnan(back)) continue;
                        if (back + m->L > t) t = back + m->L;
                    }
                    if (rk[r].send_free > t) t = rk[r].send_free;
                } else if (st->kind == ARB_STEP_RECV) {
                    double a = arrival[st->peer * P + r][ss->ticket + (uint64_t)c];
                    if (isnan(a)) continue;
                    if (a > t) t = a;
                    if (rk[r].recv_free > t) t = rk[r].recv_free;
                }
                if (t < best) best = t, br = r, bi = i;
            }
        }
        if (all_done) break;
        if (br < 0) {
            snprintf(err, errlen, "deadlock: no rank can move");
            goto out;
        }
        const arb_step_t *st = &scheds[br].steps[bi];
        step_state_t *ss = &rk[br].st[bi];
        int c = ss->done;
        size_t len = chunk_len(st, block, chunk, c, ss->nchunks);
        double done = best;
        if (st->kind == ARB_STEP_SEND) {
            int ch = br * P + st->peer;
            arrival[ch][ss->ticket + (uint64_t)c] = best + arb_logp_arrival(m, len) - m->orecv;
            sent[ch]++;
            rk[br].cpu = done = best + m->os;
            rk[br].send_free = best + arb_logp_gap(m, len);
        } else if (st->kind == ARB_STEP_RECV) {
            done = best + m->orecv + (st->combine ? arb_logp_combine(m, len) : 0);
            taken[st->peer * P + br][ss->ticket + (uint64_t)c] = done;
            rk[br].cpu = done;
            rk[br].recv_free = best + arb_logp_gap(m, len);
        } else {
            done = best + (st->combine ? arb_logp_combine(m, len) : (double)len * G1);
            rk[br].cpu = done;
        }
        ss->t[c] = done;
        if (done > ss->last) ss->last = done;
        if (++ss->done < ss->nchunks) continue;
        /* The step is complete: the round ends when all of its steps are. */
        if (--rk[br].left == 0) continue;
        const arb_sched_t *s = &scheds[br];
        bool round_left = false;
        for (int i = 0; i < s->nsteps && !round_left; i++)
            round_left =
                s->steps[i].round == rk[br].round && rk[br].st[i].done < rk[br].st[i].nchunks;
        if (round_left) continue;
        double end = rk[br].round_start;
        uint32_t next = UINT32_MAX;
        for (int i = 0; i < s->nsteps; i++) {
            if (s->steps[i].round == rk[br].round && rk[br].st[i].last > end)
                end = rk[br].st[i].last;
            if (s->steps[i].round > rk[br].round && s->steps[i].round < next)
                next = s->steps[i].round;
        }
        rk[br].round = next;
        rk[br].round_start = end;
    }
    result = 0;
    for (int r = 0; r < P; r++)
        for (int i = 0; i < scheds[r].nsteps; i++)
            if (rk[r].st[i].last > result) result = rk[r].st[i].last;
out:
    for (int r = 0; rk && r < P; r++) {
        for (int i = 0; rk[r].st && i < scheds[r].nsteps; i++) free(rk[r].st[i].t);
        free(rk[r].st);
    }
    for (int c = 0; arrival && c < P * P; c++) free(arrival[c]);
    for (int c = 0; taken && c < P * P; c++) free(taken[c]);
    free(rk), free(arrival), free(taken), free(sent), free(chan_len), free(rtick);
    return result;
}
