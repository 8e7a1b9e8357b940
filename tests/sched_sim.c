/* The in-process schedule simulator (sched_sim.h). */
#include "sched_sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct msg {
    struct msg *next;
    uint64_t ticket;
    size_t len;
    const uint8_t *ref; /* one-copy mode: the sender's buffer, read when received */
    uint8_t data[];
} msg_t;

typedef struct {
    msg_t *head, *tail;
    uint64_t next_send_ticket, next_recv_ticket; /* assigned at start */
    uint64_t sent, received;                     /* progress */
} chan_t;

typedef struct {
    uint64_t ticket;
    int done;
} sstate_t;

static int run(int P, const arb_sched_t *scheds, arb_sim_rank_t *ranks,
               arb_sim_combine_fn_t combine, void *arg, int one_copy, char *err, size_t errlen)
{
    chan_t *ch = calloc((size_t)P * (size_t)P, sizeof(*ch)); /* ch[s * P + r]: s -> r */
    sstate_t **st = calloc((size_t)P, sizeof(*st));
    int *round = calloc((size_t)P, sizeof(int)), *first = calloc((size_t)P, sizeof(int));
    uint8_t **scratch = calloc((size_t)P, sizeof(*scratch));
    int rc = -1, live = P;
    err[0] = '\0';

    for (int r = 0; r < P; r++) {
        const arb_sched_t *s = &scheds[r];
        st[r] = calloc((size_t)s->nsteps + 1, sizeof(sstate_t));
        if (!ranks[r].buf[ARB_BUF_SCRATCH] && s->scratch_blocks) {
            scratch[r] = calloc(s->scratch_blocks, ranks[r].block ? ranks[r].block : 1);
            ranks[r].buf[ARB_BUF_SCRATCH] = scratch[r];
        }
        for (int i = 0; i < s->nsteps; i++) {
            const arb_step_t *p = &s->steps[i];
            if (p->peer < 0 && p->kind != ARB_STEP_COPY) {
                snprintf(err, errlen, "rank %d step %d: bad peer", r, i);
                goto out;
            }
            if (p->kind == ARB_STEP_SEND) st[r][i].ticket = ch[r * P + p->peer].next_send_ticket++;
            if (p->kind == ARB_STEP_RECV) st[r][i].ticket = ch[p->peer * P + r].next_recv_ticket++;
        }
        if (s->nsteps == 0) live--;
    }

    /* One-copy mode receives as late as it can: a RECV runs only when nothing else can move,
     * and then just one, so a sender that rewrites what it described is caught. */
    int allow_recv = !one_copy;
    for (;;) {
        int moved = 0, recv_budget = one_copy ? allow_recv : -1;
        for (int r = 0; r < P; r++) {
            const arb_sched_t *s = &scheds[r];
            size_t blk = ranks[r].block;
            if (first[r] >= s->nsteps) continue;
            int all = 1, i;
            for (i = first[r]; i < s->nsteps && (int)s->steps[i].round == round[r]; i++) {
                const arb_step_t *p = &s->steps[i];
                sstate_t *x = &st[r][i];
                if (x->done) continue;
                if (p->dep >= 0 && !st[r][p->dep].done) {
                    all = 0;
                    continue;
                }
                size_t len = p->bytes * blk;
                if (p->kind == ARB_STEP_SEND) {
                    chan_t *c = &ch[r * P + p->peer];
                    if (c->sent != x->ticket) {
                        all = 0;
                        continue;
                    }
                    const uint8_t *from = ranks[r].buf[p->space] + p->off * blk;
                    int by_ref = one_copy && p->space != ARB_BUF_SCRATCH;
                    msg_t *m = malloc(sizeof(*m) + (by_ref ? 0 : len));
                    m->next = NULL;
                    m->ticket = x->ticket;
                    m->len = len;
                    m->ref = by_ref ? from : NULL;
                    if (!by_ref) memcpy(m->data, from, len);
                    if (c->tail)
                        c->tail->next = m;
                    else
                        c->head = m;
                    c->tail = m;
                    c->sent++;
                } else if (p->kind == ARB_STEP_RECV) {
                    chan_t *c = &ch[p->peer * P + r];
                    if (c->received != x->ticket || !c->head || recv_budget == 0) {
                        all = 0;
                        continue;
                    }
                    if (recv_budget > 0) recv_budget--;
                    msg_t *m = c->head;
                    if (m->len != len) {
                        snprintf(err, errlen,
                                 "rank %d step %d receives %zu bytes from %d, which "
                                 "sent %zu",
                                 r, i, len, p->peer, m->len);
                        goto out;
                    }
                    uint8_t *dst = ranks[r].buf[p->space] + p->off * blk;
                    const uint8_t *data = m->ref ? m->ref : m->data;
                    if (p->combine && len)
                        combine(dst, data, len, p->combine, arg);
                    else if (len)
                        memcpy(dst, data, len);
                    c->head = m->next;
                    if (!c->head) c->tail = NULL;
                    free(m);
                    c->received++;
                } else {
                    uint8_t *dst = ranks[r].buf[p->space] + p->off * blk;
                    const uint8_t *src = ranks[r].buf[p->src_space] + p->src_off * blk;
                    if (p->combine && len)
                        combine(dst, src, len, p->combine, arg);
                    else if (len)
                        memmove(dst, src, len);
                }
                x->done = 1;
                moved = 1;
            }
            if (all) {
                first[r] = i;
                round[r]++;
                moved = 1;
                if (i >= s->nsteps) live--;
            }
        }
        if (live == 0) break;
        if (one_copy) {
            if (!moved && !allow_recv) {
                allow_recv = 1;
                continue;
            }
            allow_recv = 0;
        }
        if (!moved) {
            snprintf(err, errlen, "deadlock: %d ranks cannot move", live);
            goto out;
        }
    }
    for (int i = 0; i < P * P; i++) {
        if (ch[i].head) {
            snprintf(err, errlen, "message %d -> %d never received", i / P, i % P);
            goto out;
        }
    }
    rc = 0;
out:
    for (int i = 0; i < P * P; i++)
        for (msg_t *m = ch[i].head, *n; m; m = n) n = m->next, free(m);
    for (int r = 0; r < P; r++) {
        free(st[r]);
        if (scratch[r]) ranks[r].buf[ARB_BUF_SCRATCH] = NULL;
        free(scratch[r]);
    }
    free(ch);
    free(st);
    free(round);
    free(first);
    free(scratch);
    return rc;
}

int arb_sim_run(int P, const arb_sched_t *scheds, arb_sim_rank_t *ranks,
                arb_sim_combine_fn_t combine, void *arg, char *err, size_t errlen)
{
    return run(P, scheds, ranks, combine, arg, 0, err, errlen);
}

int arb_sim_run_one_copy(int P, const arb_sched_t *scheds, arb_sim_rank_t *ranks,
                         arb_sim_combine_fn_t combine, void *arg, char *err, size_t errlen)
{
    return run(P, scheds, ranks, combine, arg, 1, err, errlen);
}
