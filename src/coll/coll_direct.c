/*
 * One-copy collectives on symmetric buffers: eligibility, the model's choice and the
 * executor's descriptor hooks (coll_direct.h says how the path works).
 */
#include "coll/coll_direct.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime/cma.h"
#include "runtime/doorbell.h"
#include "util/log.h"
#include "runtime/context.h"
#include "transports/transport.h"

static inline uint64_t load_acq(const uint8_t *p)
{
    return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
}

static inline void store_rel(uint8_t *p, uint64_t v)
{
    __atomic_store_n((uint64_t *)p, v, __ATOMIC_RELEASE);
}

/* The reductions that may run one-copy (with an algorithm that passes reads_safely). */
static bool direct_reduction(int coll)
{
    return coll == ARB_COLL_ALLREDUCE || coll == ARB_COLL_REDUCE || coll == ARB_COLL_REDUCE_SCATTER;
}

/* The collectives that take the path: schedules of the first five never write a region after
 * sending from it; the reductions take it with the algorithms that pass reads_safely. */
static bool direct_kind(int coll)
{
    return coll == ARB_COLL_BCAST || coll == ARB_COLL_SCATTER || coll == ARB_COLL_GATHER ||
           coll == ARB_COLL_ALLGATHER || coll == ARB_COLL_ALLTOALL || direct_reduction(coll);
}

int arb_direct_eligible(const struct arbor_team *t, int coll, uint64_t flags)
{
    if (!direct_kind(coll) || t->size < 2) return ARB_DIRECT_NONE;
    if ((flags & ARBOR_SYMMETRIC) && arb_ctx.cfg.onecopy != ARB_ONECOPY_NEVER &&
        arb_ctx.mapped_everywhere)
        return ARB_DIRECT_SEGMENT;
    /* Cross-memory attach: a reduction's receiver reads the peer's span into a bounce buffer
     * and combines from there (coll/executor.c); the sender copies nothing. */
    if (arb_ctx.cfg.cma != ARB_CMA_NEVER && arb_cma_usable()) return ARB_DIRECT_CMA;
    return ARB_DIRECT_NONE;
}

static bool overlaps(const arb_step_t *x, const arb_step_t *y)
{
    return x->off < y->off + y->bytes && y->off < x->off + x->bytes;
}

/* Whether step w writes the buffer a SEND reads from. SRC and DST are one buffer where the
 * collective's in-place form makes them so (allreduce, reduce: same offsets), since whether a
 * call is in place is each rank's own business and the choice must be the same everywhere. */
static bool same_buffer(const arb_step_t *send, const arb_step_t *w, bool alias)
{
    if (w->kind != ARB_STEP_RECV && w->kind != ARB_STEP_COPY) return false;
    if (w->space == send->space) return true;
    return alias && w->space != ARB_BUF_SCRATCH && send->space != ARB_BUF_SCRATCH;
}

/* A one-copy reader reads a SEND's region in place until its own RECV step has copied it, which
 * may be any time before the sender's instance ends. So no region this rank has described may
 * be written afterwards in the instance, with two exceptions the executor orders itself: a
 * write in the same round that the SEND depends on (it moves only after the write), and a
 * RECV from the very peer the region went to, in a later round: the peer sends it only after
 * finishing the round in which it read ours (schedules pair a SEND of round r with the peer's
 * RECV of round r; the reduce-scatter + allgather, Rabenseifner and the fold rely on this).
 * Sends from SCRATCH go through the slots and may be overwritten as usual. */
static bool reads_safely(const arb_sched_t *s, bool alias)
{
    for (int i = 0; i < s->nsteps; i++) {
        const arb_step_t *send = &s->steps[i];
        if (send->kind != ARB_STEP_SEND || send->space == ARB_BUF_SCRATCH) continue;
        for (int j = 0; j < s->nsteps; j++) {
            const arb_step_t *w = &s->steps[j];
            if (!same_buffer(send, w, alias) || !overlaps(send, w) || w->round < send->round)
                continue;
            if (w->round == send->round && send->dep == j) continue;
            if (w->round > send->round && w->kind == ARB_STEP_RECV && w->peer == send->peer)
                continue;
            return false;
        }
    }
    return true;
}

bool arb_direct_schedule_ok(const arb_sched_t *s, int coll)
{
    if (!direct_kind(coll)) return false;
    for (int i = 0; i < s->nsteps; i++)
        if (s->steps[i].kind == ARB_STEP_SEND && s->steps[i].space == ARB_BUF_SCRATCH) return false;
    return !direct_reduction(coll) ||
           reads_safely(s, coll == ARB_COLL_ALLREDUCE || coll == ARB_COLL_REDUCE);
}

/* The ranks whose schedules one_copy_candidate checks: all of them up to ARB_DIRECT_CHECK_ALL
 * ranks; above, the ranks where schedules change shape (the ends, the middle, the root and its
 * neighbours), since checking every schedule costs P builds and P rule checks of O(steps^2)
 * each, and one node seldom holds more ranks. tests/unit_reduction.c checks every rank's
 * schedule of every algorithm up to P = 33 in the one-copy simulator. */
#define ARB_DIRECT_CHECK_ALL 64
static int checked_rank(const arb_coll_args_t *a, int k)
{
    int P = a->size;
    if (P <= ARB_DIRECT_CHECK_ALL) return k < P ? k : -1;
    const int pick[] = {
        0, 1, 2, P / 2 - 1, P / 2, P - 2, P - 1, (a->root + P - 1) % P, a->root, (a->root + 1) % P};
    return k < (int)(sizeof(pick) / sizeof(pick[0])) ? pick[k] : -1;
}

/* Whether alg can run one-copy for a: arb_direct_schedule_ok on the schedules of the team's
 * ranks (checked_rank), since all must make the same choice and schedules differ by rank (a
 * binomial scatter's root sends from its buffer, its inner ranks from scratch; a reduce's root
 * only receives). Once per cached schedule of a symmetric call. *ok: whether it built. */
static bool one_copy_candidate(const arb_alg_desc_t *alg, const arb_coll_args_t *a,
                               const arb_logp_t *m, bool *ok)
{
    arb_coll_args_t b = *a;
    bool safe = true;
    *ok = true;
    for (int k = 0; safe && (b.rank = checked_rank(a, k)) >= 0; k++) {
        arb_sched_t s;
        arb_sched_init(&s);
        *ok = alg->build(alg, &b, m, &s) == ARBOR_OK;
        safe = *ok && arb_direct_schedule_ok(&s, a->coll);
        arb_sched_free(&s);
    }
    return safe;
}

/* The two-copy exchange's CPU, for the cross-memory-attach choice: in allgather and alltoall
 * every rank sends P - 1 blocks and receives P - 1 in the same rounds, and through the slots each
 * byte costs it a copy on each side, on one core, where LogGP prices a message's bytes once (G)
 * as if the two copies overlapped on two. Where every rank has a core that bound, 2 (P - 1)
 * bytes G, is what was measured (docs/PERFORMANCE.md, "allgather / alltoall at P = 2"). With more
 * ranks than cores both paths share the cores alike and the bound says nothing: 0. Where the
 * team's slots are deep enough for plain stores (plain_slots), each of those copies costs about
 * one memcpy (G1), not a streamed copy (G), except a block of one chunk, which stays at G
 * (measured both ways: docs/PERFORMANCE-JOURNAL.md, "Deep slots against cross-memory attach").
 * The same on
 * every rank (collective, size, block, team geometry, the agreed oversubscription). */
static double exchange_cpu(const arb_coll_args_t *a, const arb_logp_t *m)
{
    if ((a->coll != ARB_COLL_ALLGATHER && a->coll != ARB_COLL_ALLTOALL) ||
        arb_ctx.any_oversubscribed)
        return 0;
    /* One chunk does not pipeline: the peer reads lines just written on the other core. */
    bool plain = a->plain_slots && a->bytes > a->chunk;
    return 2.0 * (double)(a->size - 1) * (double)a->bytes * (plain ? m->G1 : m->G);
}

int arb_direct_choose(const arb_coll_args_t *a, int forced, const arb_logp_t *m, int mode,
                      arb_logp_t *m1)
{
    int n;
    const arb_alg_desc_t *tab = arb_alg_table(a->coll, &n);
    bool cma = mode == ARB_DIRECT_CMA;
    *m1 = cma ? arb_logp_cma(m) : arb_logp_one_copy(m);
    bool always =
        cma ? arb_ctx.cfg.cma == ARB_CMA_ALWAYS : arb_ctx.cfg.onecopy == ARB_ONECOPY_ALWAYS;
    double p2[32] = {0}, p1[32] = {0};
    if (n > 32) return 0;
    /* Below a page a cross-memory read's system call alone costs more than the whole two-copy
     * call: not priced at all, since calls of vector collectives (reduce_scatter) are not
     * cached and would pay for the pricing every time. A reduction's read through the bounce
     * buffer lost below 128 KiB (a reduce_scatter's block) where the model's Gc took it
     * (docs/PERFORMANCE.md). */
    size_t unit = a->coll == ARB_COLL_REDUCE_SCATTER ? a->bytes / (size_t)a->size : a->bytes;
    if (cma && !always &&
        unit < (direct_reduction(a->coll) ? ARB_CMA_REDUCE_MIN_BYTES : ARB_CMA_MIN_BYTES))
        return 0;
    /* An exchange whose blocks fit in the span init timed: there the measured ratio is the
     * price itself. Through the slots each rank copies every block twice (its send and its
     * receive), by cross-memory attach once at ratio memcpys; from a ratio of 2 the slots win
     * whatever LogGP's G says, which is fitted to blocks beyond the cache (measured at 16-256
     * KiB, P = 2: docs/PERFORMANCE.md, "allgather / alltoall at P = 2"). */
    if (cma && !always && exchange_cpu(a, m) > 0 && a->bytes <= ARB_CMA_MEASURE_BYTES &&
        arb_ctx.cma_ratio >= 2.0) {
        if (arb_ctx.cfg.print_algorithm && a->rank == 0)
            fprintf(stderr,
                    "arbor: %s bytes=%zu ranks=%d malloc'd buffers: cross-memory attach measured "
                    "at %.3gx memcpy at init (2 copies through the slots cost 2x) -> two copies\n",
                    arb_coll_name(a->coll), a->bytes, a->size, arb_ctx.cma_ratio);
        return 0;
    }
    arb_coll_args_t b = *a;
    b.one_copy = 1;
    int a2 = arb_select(a, m, forced, p2), a1 = 0;
    arb_select(&b, m1, forced, p1);
    /* One copy: every candidate priced with G1, plus the sender's wait for its last reader.
     * Candidates are checked cheapest first (each check builds a schedule) and the first that
     * can run one-copy wins (one_copy_candidate). */
    double settle = arb_logp_one_copy_settle(m), t1 = INFINITY;
    double t2 = p2[a2];
    if (cma && exchange_cpu(a, m) > t2) t2 = exchange_cpu(a, m);
    bool checked[32] = {false};
    int shown = 0; /* for the message: the one-copy candidate priced, built or not */
    for (;;) {
        int next = 0;
        for (int i = 1; i < n; i++) {
            if (checked[i] || !isfinite(p1[i])) continue;
            if (forced > 0 && forced < n && i != forced) continue;
            if (!next || p1[i] < p1[next]) next = i;
        }
        if (!next) break;
        /* The cheapest left cannot win: the choice is two copies, without building schedules. */
        if (!always && !(p1[next] + settle < t2)) {
            t1 = p1[next] + settle, shown = next;
            break;
        }
        checked[next] = true;
        bool ok;
        if (!one_copy_candidate(&tab[next], &b, m1, &ok) || !ok) continue;
        t1 = p1[next] + settle, a1 = shown = next;
        break;
    }
    bool one = a1 > 0 && (always || t1 < t2);
    if (arb_ctx.cfg.print_algorithm && a->rank == 0) {
        fprintf(stderr,
                "arbor: %s bytes=%zu ranks=%d %s: one copy %s=%.3gus, two copies "
                "%s=%.3gus -> %s%s\n",
                arb_coll_name(a->coll), a->bytes, a->size,
                cma ? "malloc'd buffers, cross-memory attach" : "symmetric buffers",
                shown ? tab[shown].name : "none", t1, tab[a2].name, t2,
                one ? "one copy" : "two copies",
                !always ? ""
                : cma   ? " (ARBOR_CMA=always)"
                        : " (ARBOR_ONECOPY=always)");
    }
    return one ? a1 : 0;
}

/* Chunks c.. of step that may move now: up to the end of the step and, while the step's
 * dependency runs, up to what it has completed (the executor's gate). */
static uint32_t movable(const arb_inst_t *inst, const arb_step_t *step, uint32_t c)
{
    const arb_step_state_t *st = &inst->st[step - inst->cs->sched.steps];
    uint32_t end = st->nchunks;
    if (step->dep >= 0 && inst->st[step->dep].done < inst->st[step->dep].nchunks &&
        inst->st[step->dep].done < end)
        end = inst->st[step->dep].done;
    return end > c ? end - c : 0;
}

/* Bytes of chunks [c, c + span) of step: consecutive in its buffer. */
static size_t span_bytes(const arb_inst_t *inst, const arb_step_t *step, uint32_t c, uint32_t span)
{
    uint64_t total = step->bytes * inst->block, at = (uint64_t)c * inst->team->chunk;
    uint64_t want = (uint64_t)span * inst->team->chunk;
    return (size_t)(total - at < want ? total - at : want);
}

/* The descriptor's 16 bytes (after the line's header, or in a landing slot): where (a segment
 * offset, or an address in the sender's process), how many chunks, and which kind. */
enum { DESC_SEGMENT = 0, DESC_CMA = 1 };

static void desc_pack(uint64_t d[2], uint64_t where, uint32_t span, uint32_t kind)
{
    d[0] = where;
    d[1] = (uint64_t)span | (uint64_t)kind << 32;
}

uint32_t arb_direct_send(arb_inst_t *inst, const arb_step_t *step, uint32_t c, uint64_t ticket,
                         const uint8_t *src, size_t len)
{
    const struct arbor_team *t = inst->team;
    int p = step->peer;
    if (len <= ARB_INLINE_MAX) return 0;
    if (!t->peer_seg[p] && !inst->cma) return 0;
    arb_step_state_t *st = &inst->st[step - inst->cs->sched.steps];
    /* One descriptor put in flight per step: its bytes live in the step's state. */
    if (!t->peer_seg[p] && arb_tp_comp_pending(&st->comp)) return UINT32_MAX;
    uint32_t span = movable(inst, step, c);
    if (span == 0) return 0;
    size_t bytes = span_bytes(inst, step, c, span);
    uint64_t d[2];
    if (inst->cma) {
        desc_pack(d, (uint64_t)(uintptr_t)src, span, DESC_CMA);
    } else {
        uintptr_t a = (uintptr_t)src, base = (uintptr_t)arb_ctx.seg;
        if (a < base || bytes > arb_ctx.seg_size || a - base > arb_ctx.seg_size - bytes) return 0;
        desc_pack(d, (uint64_t)(a - base), span, DESC_SEGMENT);
    }
    if (t->peer_seg[p]) {
        /* The cells of the span's later tickets as far as they are free: past that they may
         * still hold earlier messages (credits were checked for the first ticket only). */
        uint64_t free_cells = arb_chan_lines(t->depth) - (uint64_t)t->depth + 1;
        arb_cell_void(t, p, ticket, span < free_cells ? span : free_cells);
        uint8_t *line = t->peer_seg[p] + t->out[p].block + arb_chan_line_of(t, ticket);
        memcpy(line + ARB_INLINE_HDR, d, sizeof(d));
        memcpy(line + ARB_LINE_SIG, &inst->sig, sizeof(inst->sig)); /* coll/coll_stray.h */
        store_rel(line, ticket + 1);
    } else {
        /* An unmapped peer (OFI): the descriptor goes into the ticket's slot, the signal
         * advanced by every chunk it spans (the receiver of a CMA instance knows to read it). */
        memcpy(st->desc, d, sizeof(d));
        uint64_t slot = t->out[p].block + arb_chan_slot_off(t, ticket % (uint64_t)t->depth);
        arbor_status_t status = arb_ctx.tp_ops->put_signal(
            arb_ctx.tp, st->desc, sizeof(st->desc), t->rkey[p], slot, t->rkey[p],
            t->out[p].block + ARB_CHAN_POSTED, span, &st->comp);
        if (status == ARB_ERR_AGAIN) return UINT32_MAX;
        if (status != ARBOR_OK) {
            arb_error("one copy: descriptor put to rank %d failed: %s", t->world[p],
                      arbor_strerror(status));
            inst->status = status;
            return UINT32_MAX;
        }
    }
    arb_bell_ring(t->world[p]); /* interrupt mode: the receiver may sleep (runtime/doorbell.h) */
    return span;
}

bool arb_direct_source(arb_inst_t *inst, const arb_step_t *step, uint32_t c, uint64_t ticket,
                       size_t *len_p, uint32_t *span_p, const uint8_t **src_p, uintptr_t *cma_p)
{
    const struct arbor_team *t = inst->team;
    int p = step->peer;
    const uint8_t *chan = arb_ctx.seg + t->in[p].block;
    const uint8_t *desc;
    *cma_p = 0;
    if (t->peer_seg[p]) {
        /* The line's ticket tells a descriptor; rechecked after posted[p] (as for inline
         * chunks) so a descriptor stored before a later slot chunk's signal is not missed. */
        const uint8_t *line = chan + arb_chan_line_of(t, ticket);
        if (load_acq(line) != ticket + 1) {
            if (load_acq(chan + ARB_CHAN_POSTED) <= ticket) return false;
            if (load_acq(line) != ticket + 1) {
                *src_p = NULL; /* in the landing slot */
                return true;
            }
        }
        desc = line + ARB_INLINE_HDR;
    } else {
        /* Unmapped (only CMA instances describe to such a peer, and always): in the slot. */
        if (!inst->cma) {
            if (load_acq(chan + ARB_CHAN_POSTED) <= ticket) return false;
            *src_p = NULL;
            return true;
        }
        if (load_acq(chan + ARB_CHAN_POSTED) <= ticket) return false;
        desc = chan + arb_chan_slot_off(t, ticket % (uint64_t)t->depth);
    }
    uint64_t d[2];
    memcpy(d, desc, sizeof(d));
    uint64_t off = d[0];
    uint32_t span = (uint32_t)d[1], kind = (uint32_t)(d[1] >> 32);
    const uint8_t *base = t->peer_seg[p];
    uint32_t left = inst->st[step - inst->cs->sched.steps].nchunks - c;
    size_t len = span >= 1 && span <= left ? span_bytes(inst, step, c, span) : 0;
    bool cma = kind == DESC_CMA;
    bool bad = !len || (cma ? !inst->cma || !off
                            : kind != DESC_SEGMENT || !base || len > arb_ctx.seg_size ||
                                  off > arb_ctx.seg_size - len);
    if (bad) {
        /* Cannot happen while the path is agreed (arb_direct_eligible): fail, never read wild. */
        arb_error("one copy: rank %d described %u chunk(s) at %s %llu that this rank cannot read "
                  "(%s)",
                  t->world[p], span, cma ? "address" : "segment offset", (unsigned long long)off,
                  !len   ? "bad span"
                  : cma  ? "not a CMA instance"
                  : base ? "out of range"
                         : "not mapped");
        inst->status = ARBOR_ERR_TRANSPORT;
        return false;
    }
    /* A gated receive (its dependency still running) takes the span only once all of it may
     * land; the sender's span never exceeds what it had, so this only waits. */
    if (movable(inst, step, c) < span) return false;
    *len_p = len;
    *span_p = span;
    *src_p = cma ? NULL : base + off;
    *cma_p = cma ? (uintptr_t)off : 0;
    inst->team->last.one_copy_bytes += len;
    return true;
}

bool arb_direct_settled(arb_inst_t *inst)
{
    struct arbor_team *t = inst->team;
    const arb_sched_t *s = &inst->cs->sched;
    for (int i = 0; i < s->nsteps; i++) {
        uint64_t want = inst->st[i].settle;
        if (!want) continue;
        int p = s->steps[i].peer;
        arb_chan_t *ch = &t->out[p];
        if (ch->credit >= want) continue;
        ch->credit = load_acq(t->local + arb_team_link_off(p) + ARB_LINK_CONSUMED);
        if (ch->credit < want) return false;
    }
    return true;
}

int arb_direct_awaited(const arb_inst_t *inst, int *world, int n, int max)
{
    const struct arbor_team *t = inst->team;
    const arb_sched_t *s = &inst->cs->sched;
    for (int i = 0; i < s->nsteps; i++) {
        int p = s->steps[i].peer;
        if (!inst->st[i].settle || p < 0 || p >= t->size) continue;
        if (load_acq(t->local + arb_team_link_off(p) + ARB_LINK_CONSUMED) >= inst->st[i].settle)
            continue;
        int w = t->world[p], j = n;
        bool seen = false;
        for (int k = 0; k < n; k++) seen |= world[k] == w;
        if (seen || n == max) continue;
        while (j > 0 && world[j - 1] > w) world[j] = world[j - 1], j--;
        world[j] = w;
        n++;
    }
    return n;
}
