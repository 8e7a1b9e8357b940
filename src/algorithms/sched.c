/* Schedule construction: an append-only array of fixed-size steps. */
#include "algorithms/sched.h"

#include <stdlib.h>
#include <string.h>

void arb_sched_init(arb_sched_t *s)
{
    memset(s, 0, sizeof(*s));
}

void arb_sched_free(arb_sched_t *s)
{
    free(s->steps);
    memset(s, 0, sizeof(*s));
}

int arb_sched_ok(const arb_sched_t *s)
{
    return s->cap >= 0;
}

static int append(arb_sched_t *s, const arb_step_t *step)
{
    if (s->cap < 0) return -1;
    /* The executor walks rounds in order over contiguous steps. */
    if (s->nsteps && step->round < s->steps[s->nsteps - 1].round) {
        s->cap = -1;
        return -1;
    }
    if (s->nsteps == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        arb_step_t *n = realloc(s->steps, (size_t)cap * sizeof(*n));
        if (!n) {
            s->cap = -1;
            return -1;
        }
        s->steps = n;
        s->cap = cap;
    }
    s->steps[s->nsteps] = *step;
    if (step->round + 1 > s->nrounds) s->nrounds = step->round + 1;
    return s->nsteps++;
}

int arb_sched_send(arb_sched_t *s, uint32_t round, int peer, arb_buf_space_t space, uint64_t off,
                   uint64_t bytes, int dep)
{
    arb_step_t st = {.kind = ARB_STEP_SEND,
                     .space = (uint8_t)space,
                     .peer = peer,
                     .dep = dep,
                     .round = round,
                     .off = off,
                     .bytes = bytes};
    return append(s, &st);
}

int arb_sched_recv(arb_sched_t *s, uint32_t round, int peer, arb_buf_space_t space, uint64_t off,
                   uint64_t bytes, int combine, int dep)
{
    arb_step_t st = {.kind = ARB_STEP_RECV,
                     .space = (uint8_t)space,
                     .combine = (uint8_t)combine,
                     .peer = peer,
                     .dep = dep,
                     .round = round,
                     .off = off,
                     .bytes = bytes};
    return append(s, &st);
}

void arb_sched_recv_combine_all(arb_sched_t *s, uint32_t round, int me, int P, bool commutative,
                                uint64_t off, uint64_t bytes)
{
    int last = -1;
    for (int i = 1; i < P; i++) {
        int from, order;
        if (commutative)
            from = (me - i + P) % P, order = ARB_COMBINE_AFTER;
        else if (i <= me)
            from = me - i, order = ARB_COMBINE_BEFORE;
        else
            from = i, order = ARB_COMBINE_AFTER;
        int rx = arb_sched_recv(s, round, from, ARB_BUF_DST, off, bytes, order, last);
        if (!commutative) last = rx;
    }
}

int arb_sched_combine(arb_sched_t *s, uint32_t round, arb_buf_space_t dst, uint64_t off,
                      arb_buf_space_t src, uint64_t src_off, uint64_t bytes, int combine, int dep)
{
    arb_step_t st = {.kind = ARB_STEP_COPY,
                     .space = (uint8_t)dst,
                     .src_space = (uint8_t)src,
                     .combine = (uint8_t)combine,
                     .peer = -1,
                     .dep = dep,
                     .round = round,
                     .off = off,
                     .src_off = src_off,
                     .bytes = bytes};
    return append(s, &st);
}

int arb_sched_copy(arb_sched_t *s, uint32_t round, arb_buf_space_t dst, uint64_t off,
                   arb_buf_space_t src, uint64_t src_off, uint64_t bytes, int dep)
{
    return arb_sched_combine(s, round, dst, off, src, src_off, bytes, 0, dep);
}

int arb_sched_offload(arb_sched_t *s, uint32_t round, int hook, int root, uint64_t bytes)
{
    arb_step_t st = {.kind = ARB_STEP_OFFLOAD,
                     .space = ARB_BUF_DST,
                     .src_space = ARB_BUF_SRC,
                     .combine = (uint8_t)hook,
                     .peer = root,
                     .dep = -1,
                     .round = round,
                     .bytes = bytes};
    return append(s, &st);
}

int arb_sched_append_all(arb_sched_t *dst, const arb_sched_t *src)
{
    uint32_t round0 = dst->nrounds;
    int step0 = dst->nsteps;
    for (int i = 0; i < src->nsteps; i++) {
        arb_step_t st = src->steps[i];
        st.round += round0;
        if (st.dep >= 0) st.dep += step0;
        if (append(dst, &st) < 0) return -1;
    }
    dst->nrounds = round0 + src->nrounds;
    if (src->scratch_blocks > dst->scratch_blocks) dst->scratch_blocks = src->scratch_blocks;
    return 0;
}
