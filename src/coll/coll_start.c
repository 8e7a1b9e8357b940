/*
 * Starting a collective: validate (nothing changes on a bad argument), lay out its buffers
 * (block size, in-place aliases), find or build its schedule (cache hit: a hash probe),
 * compose the ALLSYNC barriers, start the instance and hand it to a handle, the fence list or
 * the aggregate run, or wait for it. An initiation never waits for another rank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/sched_hash.h"
#include "coll/coll.h"
#include "coll/coll_check.h"
#include "coll/coll_direct.h"
#include "coll/coll_stray.h"
#include "coll/coll_verdict.h"
#include "runtime/dtype.h"
#include "coll/executor.h"
#include "coll/tiny.h"
#include "coll/wait.h"
#include "runtime/progress.h"
#include "util/log.h"
#include "coll/offload.h"
#include "coll/coll_req.h"
#include "coll/team_fail.h"
#include "runtime/lock.h"

#define KNOWN_FLAGS                                                                                \
    (ARBOR_IN_NOSYNC | ARBOR_IN_MYSYNC | ARBOR_IN_ALLSYNC | ARBOR_OUT_NOSYNC | ARBOR_OUT_MYSYNC |  \
     ARBOR_OUT_ALLSYNC | ARBOR_ASYNC_FENCE | ARBOR_AGGREGATE | ARBOR_SINGLE | ARBOR_LOCAL |        \
     ARBOR_SYMMETRIC)
#define MAX_BYTES ((size_t)1 << 48)
/* The flags every member must pass alike (coll/coll_check.c compares the same). */
#define SYNC_FLAGS                                                                                 \
    (ARBOR_IN_NOSYNC | ARBOR_IN_MYSYNC | ARBOR_IN_ALLSYNC | ARBOR_OUT_NOSYNC | ARBOR_OUT_MYSYNC |  \
     ARBOR_OUT_ALLSYNC | ARBOR_SYMMETRIC)

/* What a call's arguments mean follows its family's shape (algorithms/coll_list.h): a family
 * with the buffers of another is checked and laid out as that one. */
static bool rooted(arb_coll_t c)
{
    c = arb_coll_shape(c);
    return c == ARB_COLL_BCAST || c == ARB_COLL_SCATTER || c == ARB_COLL_SCATTERV ||
           c == ARB_COLL_GATHER || c == ARB_COLL_GATHERV || c == ARB_COLL_REDUCE;
}

static bool reduction(arb_coll_t c)
{
    c = arb_coll_shape(c);
    return c == ARB_COLL_REDUCE || c == ARB_COLL_ALLREDUCE || c == ARB_COLL_REDUCE_SCATTER;
}

static bool vector(arb_coll_t c)
{
    c = arb_coll_shape(c);
    return c == ARB_COLL_SCATTERV || c == ARB_COLL_GATHERV || c == ARB_COLL_ALLGATHERV ||
           c == ARB_COLL_ALLTOALLV || c == ARB_COLL_REDUCE_SCATTER;
}

/* SINGLE / LOCAL describe the address arguments; only the "i" calls (images.c) act on them. */
arbor_status_t arb_coll_flags_of(const arbor_op_params_t *params, int blocking,
                                 const arbor_request_h *req_p, uint64_t *flags_p)
{
    uint64_t flags = 0;
    if (params) {
        if (params->field_mask & ~ARBOR_OP_PARAM_FLAGS) return ARBOR_ERR_INVALID_ARG;
        if (params->field_mask & ARBOR_OP_PARAM_FLAGS) flags = params->flags;
    }
    if (!flags) { /* the common call: nothing to combine or refuse */
        if (!blocking && !req_p) return ARBOR_ERR_INVALID_ARG;
        *flags_p = 0;
        return ARBOR_OK;
    }
    arbor_status_t status = arb_coll_check_flags(flags);
    if (status != ARBOR_OK) return status;
    bool detached = flags & (ARBOR_ASYNC_FENCE | ARBOR_AGGREGATE);
    if (blocking && detached) return ARBOR_ERR_FLAGS;
    if (!blocking && !detached && !req_p) return ARBOR_ERR_INVALID_ARG;
    *flags_p = flags;
    return ARBOR_OK;
}

arbor_status_t arb_coll_check_flags(uint64_t f)
{
    if (f & ~(uint64_t)KNOWN_FLAGS) return ARBOR_ERR_FLAGS;
    if ((f & ARBOR_IN_NOSYNC) && (f & (ARBOR_IN_MYSYNC | ARBOR_IN_ALLSYNC))) return ARBOR_ERR_FLAGS;
    if ((f & ARBOR_IN_MYSYNC) && (f & ARBOR_IN_ALLSYNC)) return ARBOR_ERR_FLAGS;
    if ((f & ARBOR_OUT_NOSYNC) && (f & (ARBOR_OUT_MYSYNC | ARBOR_OUT_ALLSYNC)))
        return ARBOR_ERR_FLAGS;
    if ((f & ARBOR_OUT_MYSYNC) && (f & ARBOR_OUT_ALLSYNC)) return ARBOR_ERR_FLAGS;
    if ((f & ARBOR_ASYNC_FENCE) && (f & ARBOR_AGGREGATE)) return ARBOR_ERR_FLAGS;
    if ((f & ARBOR_SINGLE) && (f & ARBOR_LOCAL)) return ARBOR_ERR_FLAGS;
    return ARBOR_OK;
}

/* Sum of an array with overflow detection; false when it exceeds MAX_BYTES. */
static bool sum_ok(const size_t *a, int n, size_t scale, size_t *sum_p)
{
    size_t s = 0;
    for (int i = 0; i < n; i++) {
        if (a[i] > MAX_BYTES / (scale ? scale : 1)) return false;
        s += a[i] * scale;
        if (s > MAX_BYTES) return false;
    }
    *sum_p = s;
    return true;
}

/* Every piece [displs[r], displs[r] + counts[r]) in elements, converted to bytes, stays below
 * MAX_BYTES: a displacement whose byte offset wraps would land data at the wrapped offset. */
static bool displs_ok(const size_t *counts, const size_t *displs, int n, size_t elem)
{
    for (int i = 0; i < n; i++) {
        if (displs[i] > MAX_BYTES / elem || counts[i] > MAX_BYTES / elem) return false;
        if (displs[i] * elem + counts[i] * elem > MAX_BYTES) return false;
    }
    return true;
}

/* base + off, or NULL for a NULL or ARBOR_IN_PLACE base (no arithmetic on those). */
static const void *at(const void *base, size_t off)
{
    if (!base || base == ARBOR_IN_PLACE) return NULL;
    return (const uint8_t *)base + off;
}

/* Bytes from the start of a v-buffer to the end of its furthest piece (after displs_ok). */
static size_t displs_end(const size_t *counts, const size_t *displs, int n, size_t elem)
{
    size_t end = 0;
    for (int i = 0; i < n; i++)
        if (counts[i] && (displs[i] + counts[i]) * elem > end) end = (displs[i] + counts[i]) * elem;
    return end;
}

/* Whether [a, a + alen) and [b, b + blen) share a byte. */
static bool overlap(const void *a, size_t alen, const void *b, size_t blen)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return alen && blen && x < y + blen && y < x + alen;
}

/* A send block that overlaps the receive buffer anywhere but exactly where in place would put
 * it is read while it is overwritten (silently wrong data): ARBOR_ERR_BUFFER. in_place_at is
 * that spot, or NULL where the collective has no such alias. */
static bool bad_alias(const void *send, size_t slen, const void *recv, size_t rlen,
                      const void *in_place_at)
{
    if (send == ARBOR_IN_PLACE || recv == ARBOR_IN_PLACE || !send || !recv) return false;
    if (in_place_at && send == in_place_at) return false;
    return overlap(send, slen, recv, rlen);
}

/* Validates everything that can be checked locally (bad input returns its code and changes
 * nothing). */
static arbor_status_t validate(const struct arbor_team *t, const arb_call_t *c, size_t elem)
{
    arb_coll_t k = arb_coll_shape(c->coll);
    int P = t->size, me = t->rank;
    bool root = rooted(k) && me == c->root;
    size_t total;

    if (rooted(k) && (c->root < 0 || c->root >= P)) return ARBOR_ERR_ROOT;
    if (k == ARB_COLL_BARRIER) return ARBOR_OK;
    if (k == ARB_COLL_BCAST) {
        if (c->count > MAX_BYTES) return ARBOR_ERR_COUNT;
        /* One buffer, read at the root and written elsewhere: in place has no meaning. */
        if (c->recvbuf == ARBOR_IN_PLACE) return ARBOR_ERR_BUFFER;
        return !c->recvbuf && c->count ? ARBOR_ERR_BUFFER : ARBOR_OK;
    }
    if (!elem) return ARBOR_ERR_DATATYPE;
    if (reduction(k)) {
        arbor_status_t status = arb_op_check(c->op, c->dtype);
        if (status != ARBOR_OK) return status;
    }
    if (c->count > MAX_BYTES / elem / (size_t)P || c->own > MAX_BYTES / elem)
        return ARBOR_ERR_COUNT;
    bool in_send = c->sendbuf == ARBOR_IN_PLACE, in_recv = c->recvbuf == ARBOR_IN_PLACE;
    if (in_recv && !(k == ARB_COLL_SCATTER || k == ARB_COLL_SCATTERV)) return ARBOR_ERR_BUFFER;
    if (in_recv && !root) return ARBOR_ERR_BUFFER;
    if (in_send && (k == ARB_COLL_SCATTER || k == ARB_COLL_SCATTERV)) return ARBOR_ERR_BUFFER;
    if (in_send && (k == ARB_COLL_GATHER || k == ARB_COLL_GATHERV || k == ARB_COLL_REDUCE) && !root)
        return ARBOR_ERR_BUFFER;
    if (in_send && k == ARB_COLL_ALLTOALLV) return ARBOR_ERR_BUFFER;

    size_t block = c->count * elem, all = block * (size_t)P;
    const void *rb = c->recvbuf, *sb = c->sendbuf;
    switch (k) {
    case ARB_COLL_ALLGATHER:
        /* Any overlap, even this rank's own block: every member judges the same call alike
         * (the spot of "in place" differs by rank; ARBOR_IN_PLACE says it for all). */
        if (bad_alias(sb, block, rb, all, NULL)) return ARBOR_ERR_BUFFER;
        break;
    case ARB_COLL_GATHER:
        if (root && bad_alias(sb, block, rb, all, at(rb, (size_t)me * block)))
            return ARBOR_ERR_BUFFER;
        break;
    case ARB_COLL_SCATTER:
        if (root && bad_alias(rb, block, sb, all, at(sb, (size_t)me * block)))
            return ARBOR_ERR_BUFFER;
        break;
    case ARB_COLL_ALLTOALL:
        if (bad_alias(sb, all, rb, all, NULL)) return ARBOR_ERR_BUFFER;
        break;
    case ARB_COLL_ALLREDUCE:
        if (bad_alias(sb, block, rb, block, rb)) return ARBOR_ERR_BUFFER;
        break;
    case ARB_COLL_REDUCE:
        if (root && bad_alias(sb, block, rb, block, rb)) return ARBOR_ERR_BUFFER;
        break;
    default:
        break;
    }

    switch (k) {
    case ARB_COLL_SCATTER:
        if (root && !c->sendbuf && c->count) return ARBOR_ERR_BUFFER;
        return !c->recvbuf && c->count ? ARBOR_ERR_BUFFER : ARBOR_OK;
    case ARB_COLL_GATHER:
        if (root && !c->recvbuf && c->count) return ARBOR_ERR_BUFFER;
        return !c->sendbuf && c->count ? ARBOR_ERR_BUFFER : ARBOR_OK;
    case ARB_COLL_ALLGATHER:
    case ARB_COLL_ALLTOALL:
    case ARB_COLL_ALLREDUCE:
        return (!c->sendbuf || !c->recvbuf) && c->count ? ARBOR_ERR_BUFFER : ARBOR_OK;
    case ARB_COLL_REDUCE:
        if (root && !c->recvbuf && c->count) return ARBOR_ERR_BUFFER;
        return !c->sendbuf && c->count ? ARBOR_ERR_BUFFER : ARBOR_OK;
    case ARB_COLL_SCATTERV:
        if (root) {
            if (!c->counts || !c->displs) return ARBOR_ERR_COUNT;
            if (!sum_ok(c->counts, P, elem, &total)) return ARBOR_ERR_COUNT;
            if (!displs_ok(c->counts, c->displs, P, elem)) return ARBOR_ERR_COUNT;
            if (c->counts[me] != c->own && !in_recv) return ARBOR_ERR_COUNT;
            if (total && !c->sendbuf) return ARBOR_ERR_BUFFER;
        }
        return !c->recvbuf && c->own ? ARBOR_ERR_BUFFER : ARBOR_OK;
    case ARB_COLL_GATHERV:
    case ARB_COLL_ALLGATHERV:
        if (root || k == ARB_COLL_ALLGATHERV) {
            if (!c->counts || !c->displs) return ARBOR_ERR_COUNT;
            if (!sum_ok(c->counts, P, elem, &total)) return ARBOR_ERR_COUNT;
            if (!displs_ok(c->counts, c->displs, P, elem)) return ARBOR_ERR_COUNT;
            if (c->counts[me] != c->own && !in_send) return ARBOR_ERR_COUNT;
            /* As allgather: the root's own spot for gatherv, none for allgatherv. */
            if (bad_alias(sb, c->own * elem, rb, displs_end(c->counts, c->displs, P, elem),
                          k == ARB_COLL_GATHERV ? at(rb, c->displs[me] * elem) : NULL))
                return ARBOR_ERR_BUFFER;
            if (total && !c->recvbuf) return ARBOR_ERR_BUFFER;
        }
        return !c->sendbuf && c->own ? ARBOR_ERR_BUFFER : ARBOR_OK;
    case ARB_COLL_ALLTOALLV: {
        size_t rtotal;
        if (!c->counts || !c->displs || !c->rcounts || !c->rdispls) return ARBOR_ERR_COUNT;
        if (!sum_ok(c->counts, P, elem, &total) || !sum_ok(c->rcounts, P, elem, &rtotal))
            return ARBOR_ERR_COUNT;
        if (!displs_ok(c->counts, c->displs, P, elem) ||
            !displs_ok(c->rcounts, c->rdispls, P, elem))
            return ARBOR_ERR_COUNT;
        if (c->counts[me] != c->rcounts[me]) return ARBOR_ERR_COUNT;
        if ((total && !c->sendbuf) || (rtotal && !c->recvbuf)) return ARBOR_ERR_BUFFER;
        return ARBOR_OK;
    }
    case ARB_COLL_REDUCE_SCATTER:
        if (!c->counts) return ARBOR_ERR_COUNT;
        if (!sum_ok(c->counts, P, elem, &total)) return ARBOR_ERR_COUNT;
        if (total && !c->sendbuf) return ARBOR_ERR_BUFFER;
        return !c->recvbuf && c->counts[me] ? ARBOR_ERR_BUFFER : ARBOR_OK;
    default:
        return ARBOR_OK;
    }
}

/* Where the instance's SRC and DST point and what one block is; copies made for in-place
 * variants that would overwrite their own input are owned by the instance. */
typedef struct {
    uint8_t *src, *dst;
    size_t block;   /* bytes per schedule block */
    size_t bytes;   /* what the schedule is chosen for */
    void *owned;    /* malloc'd input copy, freed with the instance */
    size_t *vec[4]; /* byte-converted counts / displs for the builder (freed after build) */
} layout_t;

static arbor_status_t lay_out(const struct arbor_team *t, const arb_call_t *c, size_t elem,
                              layout_t *L)
{
    int P = t->size, me = t->rank;
    bool in_send = c->sendbuf == ARBOR_IN_PLACE, in_recv = c->recvbuf == ARBOR_IN_PLACE;
    memset(L, 0, sizeof(*L));
    L->src = (uint8_t *)(uintptr_t)c->sendbuf;
    L->dst = c->recvbuf;
    arb_coll_t shape = arb_coll_shape(c->coll);
    switch (shape) {
    case ARB_COLL_BARRIER:
        break;
    case ARB_COLL_BCAST:
        L->src = c->recvbuf, L->block = L->bytes = c->count;
        break;
    case ARB_COLL_SCATTER:
    case ARB_COLL_GATHER:
    case ARB_COLL_ALLGATHER:
    case ARB_COLL_ALLTOALL:
        L->block = L->bytes = c->count * elem;
        if (in_recv) L->dst = L->src + (size_t)me * L->block;
        if (in_send && shape == ARB_COLL_ALLTOALL) {
            L->owned = malloc(L->block * (size_t)P + 1);
            if (!L->owned) return ARBOR_ERR_NO_MEMORY;
            memcpy(L->owned, c->recvbuf, L->block * (size_t)P);
            L->src = L->owned;
        } else if (in_send) {
            L->src = L->dst + (size_t)me * L->block;
        }
        break;
    case ARB_COLL_REDUCE:
    case ARB_COLL_ALLREDUCE:
        L->block = elem;
        L->bytes = c->count * elem;
        if (in_send) L->src = L->dst;
        break;
    case ARB_COLL_REDUCE_SCATTER: {
        size_t total = 0;
        for (int r = 0; r < P; r++) total += c->counts[r];
        L->block = elem;
        L->bytes = total * elem;
        if (in_send) {
            L->owned = malloc(total * elem + 1);
            if (!L->owned) return ARBOR_ERR_NO_MEMORY;
            memcpy(L->owned, c->recvbuf, total * elem);
            L->src = L->owned;
        }
        L->vec[0] = malloc(sizeof(size_t) * (size_t)P);
        if (!L->vec[0]) return ARBOR_ERR_NO_MEMORY;
        memcpy(L->vec[0], c->counts, sizeof(size_t) * (size_t)P);
        break;
    }
    default: { /* the v-variants: bytes; ranks that lack the arrays know only their own piece */
        const size_t *in[4] = {c->counts, c->displs, c->rcounts, c->rdispls};
        L->block = 1;
        for (int v = 0; v < 4; v++) {
            L->vec[v] = calloc((size_t)P, sizeof(size_t));
            if (!L->vec[v]) return ARBOR_ERR_NO_MEMORY;
            for (int r = 0; in[v] && r < P; r++) L->vec[v][r] = in[v][r] * elem;
        }
        bool has_arrays =
            shape == ARB_COLL_ALLGATHERV || shape == ARB_COLL_ALLTOALLV || me == c->root;
        if (!has_arrays) L->vec[0][me] = c->own * elem;
        if (in_recv) L->dst = L->src + L->vec[1][me]; /* scatterv root in place */
        if (in_send) L->src = L->dst + L->vec[1][me]; /* gatherv root / allgatherv in place */
        L->bytes = L->vec[0][me];
        break;
    }
    }
    return ARBOR_OK;
}

static void free_vectors(layout_t *L)
{
    for (int v = 0; v < 4; v++)
        if (L->vec[v]) free(L->vec[v]), L->vec[v] = NULL;
}

static unsigned size_class(size_t bytes)
{
    return bytes ? 64u - (unsigned)__builtin_clzll((unsigned long long)bytes) : 0u;
}

/* Appends " copy=PATH" and every candidate's whole-collective fingerprint on that copy path
 * (algorithms/sched_hash.h; "-": not built here) at buf + len; returns the new length. */
static size_t append_fingerprints(char *buf, size_t cap, size_t len, const arb_coll_args_t *a,
                                  const arb_logp_t *m, int mode)
{
    int n;
    const arb_alg_desc_t *tab = arb_alg_table(a->coll, &n);
    if (len < cap)
        len += (size_t)snprintf(buf + len, cap - len, " copy=%s",
                                mode == ARB_DIRECT_CMA       ? "cma"
                                : mode == ARB_DIRECT_SEGMENT ? "one"
                                                             : "two");
    for (int i = 1; i < n && len < cap; i++) {
        uint64_t fp;
        if (arb_sched_fingerprint(&tab[i], a, m, mode, &fp) == ARBOR_OK)
            len += (size_t)snprintf(buf + len, cap - len, " %s=%016llx", tab[i].name,
                                    (unsigned long long)fp);
        else
            len += (size_t)snprintf(buf + len, cap - len, " %s=-", tab[i].name);
    }
    return len;
}

/* direct: the call's one-copy eligibility (ARB_DIRECT_*); a->one_copy says whether it went so. */
static void print_choice(const arb_coll_args_t *a, const arb_logp_t *model, int direct, int alg,
                         int why, const double *predicted)
{
    int n;
    const arb_alg_desc_t *tab = arb_alg_table(a->coll, &n);
    char line[1024], fps[4096];
    size_t len = 0, flen;
    for (int i = 1; i < n && len < sizeof(line); i++)
        len += (size_t)snprintf(line + len, sizeof(line) - len, " %s=%.3gus", tab[i].name,
                                predicted[i]);
    /* bench/fidelity pools the runs of algorithms that build the same schedules. An eligible
     * call's forced runs may take the other copy path (coll/coll_direct.c prices each algorithm
     * both ways), so that path's fingerprints follow, with its model and arguments. */
    flen = (size_t)snprintf(fps, sizeof(fps), " chunk=%zu", a->chunk);
    flen = append_fingerprints(fps, sizeof(fps), flen, a, model, a->one_copy ? direct : 0);
    if (direct) {
        arb_coll_args_t b = *a;
        b.one_copy = !a->one_copy;
        arb_logp_t m1 = direct == ARB_DIRECT_CMA ? arb_logp_cma(&arb_ctx.model)
                                                 : arb_logp_one_copy(&arb_ctx.model);
        append_fingerprints(fps, sizeof(fps), flen, &b, b.one_copy ? &m1 : &arb_ctx.model,
                            b.one_copy ? direct : 0);
    }
    fprintf(stderr,
            "arbor: %s bytes=%zu ranks=%d nodes=%d root=%d -> %s%s; predicted:%s; schedules:%s\n",
            arb_coll_name(a->coll), a->bytes, a->size, a->topo ? a->topo->nnodes : 1, a->root,
            tab[alg].name,
            why == 1   ? " (forced)"
            : why == 2 ? " (ARBOR_TUNE)"
                       : "",
            line, fps);
}

/* Builds the schedule of the chosen algorithm, falling back to the next cheapest when a
 * builder cannot handle the case (ARBOR_ERR_UNSUPPORTED), then composes ALLSYNC barriers. */
static arbor_status_t build(const arb_coll_args_t *a, const arb_logp_t *model, int direct,
                            int forced, int pinned, uint64_t flags, arb_sched_t *s, int *alg_p,
                            double *predicted_p)
{
    int n;
    const arb_alg_desc_t *tab = arb_alg_table(a->coll, &n);
    double predicted[32] = {0};
    int alg = arb_select(a, model, forced ? forced : pinned, predicted);
    arbor_status_t status = ARBOR_ERR_UNSUPPORTED;
    bool tried[32] = {false};
    static uint32_t warned[ARB_COLL_KINDS];

    arb_sched_init(s);
    for (int attempt = 0; attempt < n && n <= 32; attempt++) {
        tried[alg] = true;
        status = tab[alg].build(&tab[alg], a, model, s);
        if (status != ARBOR_ERR_UNSUPPORTED) break;
        /* A forced or pinned algorithm that cannot serve this call (a non-commutative op on a
         * ring, P not a power of two) gives way to the model's next choice, said once. */
        if (attempt == 0 && (forced || pinned) && !(warned[a->coll] & (1u << alg))) {
            warned[a->coll] |= 1u << alg;
            arb_warn("%s algorithm %s cannot serve this call (%s); using the model's choice",
                     arb_coll_name(a->coll), tab[alg].name,
                     (tab[alg].needs & ~a->caps) ? "the transport's hook cannot run it"
                     : a->commutative            ? "team size"
                                                 : "non-commutative op");
        }
        arb_sched_free(s);
        arb_sched_init(s);
        int next = 0;
        for (int i = 1; i < n; i++)
            if (!tried[i] && (!next || predicted[i] < predicted[next])) next = i;
        if (!next) break;
        alg = next;
    }
    if (status != ARBOR_OK) {
        arb_sched_free(s);
        arb_error("%s algorithm %s cannot run here: %s", arb_coll_name(a->coll), tab[alg].name,
                  arbor_strerror(status));
        return status == ARBOR_ERR_NO_MEMORY ? status : ARBOR_ERR_ALGORITHM;
    }
    if (arb_ctx.cfg.print_algorithm && a->rank == 0)
        print_choice(a, model, direct, alg, forced ? 1 : pinned ? 2 : 0, predicted);
    if (flags & (ARBOR_IN_ALLSYNC | ARBOR_OUT_ALLSYNC)) {
        arb_coll_args_t b = *a;
        arb_sched_t bar, full;
        b.coll = ARB_COLL_BARRIER;
        arb_sched_init(&bar);
        arb_sched_init(&full);
        const arb_alg_desc_t *btab = arb_alg_table(ARB_COLL_BARRIER, &n);
        int bi = arb_select_sync_barrier(&b, &arb_ctx.model);
        status = btab[bi].build(&btab[bi], &b, &arb_ctx.model, &bar);
        if (status == ARBOR_OK &&
            (((flags & ARBOR_IN_ALLSYNC) && arb_sched_append_all(&full, &bar)) ||
             arb_sched_append_all(&full, s) ||
             ((flags & ARBOR_OUT_ALLSYNC) && arb_sched_append_all(&full, &bar))))
            status = ARBOR_ERR_NO_MEMORY;
        arb_sched_free(&bar);
        arb_sched_free(s);
        if (status != ARBOR_OK) {
            arb_sched_free(&full);
            return status;
        }
        *s = full;
    }
    *alg_p = alg;
    *predicted_p = predicted[alg];
    return ARBOR_OK;
}

static bool even_pieces(const size_t *counts, int P)
{
    for (int r = 1; r < P; r++)
        if (counts[r] != counts[0]) return false;
    return true;
}

/* The cached schedule (or a fresh one for calls whose schedule depends on per-rank counts). */
static arbor_status_t schedule_for(struct arbor_team *t, const arb_call_t *c, const layout_t *L,
                                   size_t elem, uint64_t flags, arb_cached_sched_t **cs_p,
                                   int *alg_p, double *predicted_p, int *one_copy_p)
{
    arb_coll_t k = c->coll;
    bool red = reduction(k), vec = vector(k);
    /* What the transport's hooks can run of this call; ARBOR_OFFLOAD=hwcoll forces the hook
     * there unless ARBOR_<COLL>_ALGORITHM names an algorithm. */
    unsigned caps = arb_offload_caps(t, k, c->count, c->dtype, c->op);
    int forced = arb_ctx.cfg.coll_alg[k];
    if (!forced) forced = arb_offload_forced(k, caps);
    int pinned = forced ? 0 : arb_tune_match(&arb_ctx.tune, k, L->bytes, t->size);
    unsigned cls = size_class(L->bytes);
    int root = rooted(k) ? c->root : 0;
    int commutative = red ? arb_op_commutative(c->op) : 1;
    bool pieces = arb_coll_shape(k) == ARB_COLL_REDUCE_SCATTER; /* counts[r] land on rank r */
    arb_sched_key_t key = {.coll = k,
                           .alg = pinned,
                           .root = root,
                           .bytes = red ? (c->count | (1ull << 63)) : cls,
                           .variant = (uint32_t)(flags & (ARBOR_IN_ALLSYNC | ARBOR_OUT_ALLSYNC)) |
                                      (uint32_t)commutative << 8 | (uint32_t)elem << 9 |
                                      (uint32_t)caps << 24};
    /* Symmetric buffers, or malloc'd ones through cross-memory attach: the model may choose
     * the one-copy path (coll/coll_direct.h), and the algorithm it prices best there; the
     * choice is cached with the schedule. */
    int direct = arb_direct_eligible(t, k, flags);
    key.variant |=
        (uint32_t)(direct == ARB_DIRECT_SEGMENT) << 31 | (uint32_t)(direct == ARB_DIRECT_CMA) << 30;
    /* A reduce_scatter whose pieces are all alike (MPI's reduce_scatter_block) has one schedule
     * per piece size, cached as a reduction's per count; uneven pieces are built per call. */
    bool cached = !vec || (pieces && even_pieces(c->counts, t->size));
    if (pieces && cached) key.bytes = c->counts[0] | (1ull << 63);
    arb_cached_sched_t *cs = cached ? arb_sched_cache_get(&t->cache, &key) : NULL;
    if (cs) {
        *cs_p = cs;
        *alg_p = cs->alg;
        *predicted_p = cs->predicted_us;
        *one_copy_p = cs->one_copy ? (cs->cma ? ARB_DIRECT_CMA : ARB_DIRECT_SEGMENT) : 0;
        return ARBOR_OK;
    }
    /* A miss: what the selector and the builders need (a repeated call never gets here). */
    arb_coll_args_t a = {.coll = k,
                         .rank = t->rank,
                         .size = t->size,
                         .root = root,
                         .chunk = t->chunk,
                         .commutative = commutative,
                         .topo = t->topo.nnodes > 1 || t->topo.nshared > 0 ? &t->topo : NULL,
                         .caps = caps,
                         .plain_slots =
                             arb_ctx.cfg.channel_bytes && arb_ctx.cfg.stream_min &&
                             (uint64_t)t->chunk * (uint64_t)t->depth >= arb_ctx.cfg.channel_bytes};
    arb_offload_cost(&a.hwcoll_us, &a.hwcoll_software);
    /* Schedules in block units serve a whole size class; reductions split vectors at element
     * boundaries, so their schedules are per count. */
    a.bytes = vec ? L->bytes : red ? L->bytes : cls ? (size_t)1 << (cls - 1) : 0;
    a.count = red ? (pieces ? 0 : c->count) : 0;
    a.counts = L->vec[0];
    a.displs = L->vec[1];
    a.rcounts = L->vec[2];
    a.rdispls = L->vec[3];
    arb_logp_t one_copy_model;
    int one_copy_alg = direct ? arb_direct_choose(&a, forced ? forced : pinned, &arb_ctx.model,
                                                  direct, &one_copy_model)
                              : 0;
    bool one_copy = one_copy_alg > 0;
    a.one_copy = one_copy;
    /* The one-copy choice is pinned only where the plain selection over the one-copy model
     * would differ (it skipped an algorithm that sends from scratch). */
    int pin = pinned;
    if (one_copy && !forced && !pinned && arb_select(&a, &one_copy_model, 0, NULL) != one_copy_alg)
        pin = one_copy_alg;
    double t0 = arb_now_us();
    arb_sched_t s;
    int alg;
    double predicted;
    arbor_status_t status = build(&a, one_copy ? &one_copy_model : &arb_ctx.model, direct, forced,
                                  pin, flags, &s, &alg, &predicted);
    if (status != ARBOR_OK) return status;
    cs = cached ? arb_sched_cache_put(&t->cache, &key, &s) : arb_sched_wrap(&s);
    if (!cs) {
        arb_sched_free(&s);
        return ARBOR_ERR_NO_MEMORY;
    }
    cs->alg = alg;
    cs->predicted_us = predicted;
    cs->one_copy = one_copy;
    cs->cma = one_copy && direct == ARB_DIRECT_CMA;
    t->cache.build_us += arb_now_us() - t0;
    *cs_p = cs;
    *alg_p = alg;
    *predicted_p = predicted;
    *one_copy_p = one_copy ? direct : 0;
    return ARBOR_OK;
}

static void combine_op(void *inout, const void *in, size_t bytes, int order, void *arg)
{
    const arb_inst_t *inst = arg;
    arb_reduce(inst->op, inst->dtype, inout, in, bytes / inst->elem, order);
}

/* Instances started with AGGREGATE wait here for the next call that takes a handle, of the
 * same thread: a run is what one thread issued (docs/THREADS.md). Per thread also because a
 * blocking call lets go of the engine lock while it waits. */
static _Thread_local arb_inst_t *aggregate_head __attribute__((tls_model("initial-exec")));
/* Inside ARBOR_CHECK's own exchange (this thread's: the exchange waits, other threads run). */
static _Thread_local bool checking __attribute__((tls_model("initial-exec")));

static arbor_status_t run(struct arbor_team *t, const arb_call_t *call,
                          const arbor_op_params_t *params, arbor_request_h *req_p, int blocking,
                          bool user, bool *started);

/* A call of the public API on a resolved team (coll_api.c resolves the handle, under the lock). */
arbor_status_t arb_coll_run_user(struct arbor_team *t, const arb_call_t *call,
                                 const arbor_op_params_t *params, arbor_request_h *req_p,
                                 int blocking, bool *started)
{
    return run(t, call, params, req_p, blocking, true, started);
}

/* Internal blocking collectives on a team structure (teams being built or freed, the heap):
 * the caller holds the lock. */
arbor_status_t arb_coll_run_team(struct arbor_team *t, const arb_call_t *call)
{
    bool started = false;
    arbor_status_t status = run(t, call, NULL, NULL, 1, false, &started);
    if (!started && call->done) call->done(call->done_arg, status);
    return status;
}

arbor_status_t arb_coll_barrier_internal(struct arbor_team *t)
{
    arb_call_t c = {.coll = ARB_COLL_BARRIER};
    return arb_coll_run_team(t, &c);
}

arbor_status_t arb_coll_bcast_internal(struct arbor_team *t, void *buf, size_t nbytes, int root)
{
    arb_call_t c = {.coll = ARB_COLL_BCAST, .recvbuf = buf, .count = nbytes, .root = root};
    return arb_coll_run_team(t, &c);
}

arbor_status_t arb_coll_allreduce_internal(struct arbor_team *t, const void *sendbuf, void *recvbuf,
                                           size_t count, arbor_dtype_t dtype, arbor_op_t op)
{
    arb_call_t c = {.coll = ARB_COLL_ALLREDUCE,
                    .sendbuf = sendbuf,
                    .recvbuf = recvbuf,
                    .count = count,
                    .dtype = dtype,
                    .op = op};
    return arb_coll_run_team(t, &c);
}

arbor_status_t arb_coll_allgather_internal(struct arbor_team *t, const void *sendbuf, void *recvbuf,
                                           size_t count, arbor_dtype_t dtype)
{
    arb_call_t c = {.coll = ARB_COLL_ALLGATHER,
                    .sendbuf = sendbuf,
                    .recvbuf = recvbuf,
                    .count = count,
                    .dtype = dtype};
    return arb_coll_run_team(t, &c);
}

/* The signature every message of the call carries (coll/coll_check.h): for the collectives
 * whose arguments are single values, the same fields packed and mixed here in a few
 * instructions (a small call's budget is tens of nanoseconds); the vector ones hash their
 * arrays in coll_check.c. */
_Static_assert(ARB_COLL_KINDS < 32, "a call's signature holds the kind in 5 bits");

static uint64_t signature_base(const struct arbor_team *t, const arb_call_t *c, size_t elem,
                               uint64_t flags)
{
    arb_coll_t k = c->coll;
    arb_coll_t shape = arb_coll_shape(k);
    uint64_t bytes = shape == ARB_COLL_BARRIER ? 0
                     : shape == ARB_COLL_BCAST ? c->count
                                               : c->count * elem;
    uint64_t what = (uint64_t)k | (uint64_t)(shape > ARB_COLL_BCAST ? (uint8_t)c->dtype : 0) << 5 |
                    (uint64_t)(reduction(k) ? (uint16_t)c->op : 0) << 13 |
                    (uint64_t)(rooted(k) ? (uint32_t)c->root & 0xffffff : 0) << 29 |
                    (flags & SYNC_FLAGS) << 53;
    return (bytes * 0x9e3779b97f4a7c15ull) ^ (what * 0xc2b2ae3d27d4eb4full) ^ t->id;
}

/* The call number mixed in last, so that a tiny call (which keeps the rest) costs one multiply. */
static uint64_t signature_of(uint64_t base, uint64_t number)
{
    uint64_t h = base ^ ((number + 1) * 0xff51afd7ed558ccdull);
    return h ? h : 1;
}

static uint64_t call_signature(const struct arbor_team *t, const arb_call_t *c, size_t elem,
                               uint64_t flags, uint64_t number)
{
    if (vector(c->coll)) return arb_coll_check_hash(t, c, elem, flags, number);
    return signature_of(signature_base(t, c, elem, flags), number);
}

/* Before call n on t: what earlier calls left open. A member that cancelled a collective of
 * the team, or that refused a call this rank accepted, fails the team here. After a call this
 * rank refused, the others may have accepted it (their arguments passed) and be waiting for
 * this rank, or have finished without it: this call waits, bounded by ARBOR_TIMEOUT, until
 * every member has refused that call too, or has found out that it did not. The only wait of
 * an initiation for other ranks, and only after a refusal. */
static arbor_status_t settle_earlier(struct arbor_team *t, uint64_t n, int kind)
{
    bool pending;
    arbor_status_t status = arb_verdict_begin(t, n, kind, &pending);
    double since = 0;
    while (status == ARBOR_OK && pending) {
        bool done;
        status = arb_verdict_settled(t, n, kind, &done);
        if (status != ARBOR_OK || done) break;
        double now = arb_now_us();
        if (since == 0) since = now;
        if (arb_ctx.cfg.timeout_s > 0 && now - since > arb_ctx.cfg.timeout_s * 1e6) {
            arb_error("%s #%llu on team %p: after this rank refused the call before it, not "
                      "every member decided on that call within ARBOR_TIMEOUT (%g s): the team "
                      "is failed",
                      arb_coll_name((arb_coll_t)kind), (unsigned long long)n, (void *)t->handle,
                      arb_ctx.cfg.timeout_s);
            status = ARBOR_ERR_TIMEOUT;
            break;
        }
        arb_wait_pause(arb_progress_turn() == 0);
    }
    if (status != ARBOR_OK && t->failed == ARBOR_OK) {
        if (pending) arb_verdict_refusal_failed(t); /* before fail_all's own word */
        arb_team_fail_all(t, status);
    }
    return status;
}

/* Whether call c (a blocking bcast or in-place allreduce with no parameters) is the one t's
 * tiny plan is for: the plan was made from a call that passed validation with the same count
 * and root, or count, type and op. */
static bool tiny_match(const struct arbor_team *t, const arb_call_t *c)
{
    if (!t->tiny.valid || t->tiny.coll != (int)c->coll || t->tiny.count != c->count ||
        !c->recvbuf || c->recvbuf == ARBOR_IN_PLACE)
        return false;
    if (c->coll == ARB_COLL_BCAST) return t->tiny.root == c->root;
    return c->sendbuf == ARBOR_IN_PLACE && t->tiny.dtype == c->dtype && t->tiny.op == c->op;
}

/* @p user: a call of the public API, the one arbor_team_last_collective reports (the
 * library's own collectives on the team are not the user's question). */
static arbor_status_t run(struct arbor_team *t, const arb_call_t *call,
                          const arbor_op_params_t *params, arbor_request_h *req_p, int blocking,
                          bool user, bool *started)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (t->failed != ARBOR_OK) {
        arb_error("%s on team %p refused: the team failed (%s) at an earlier collective; free "
                  "it and continue on another team",
                  arb_coll_name(call->coll), (void *)t->handle, arbor_strerror(t->failed));
        return ARBOR_ERR_TEAM;
    }
    /* The same small bcast or allreduce as the last one, blocking and alone, with nothing to
     * settle: its messages may be there and its credits in hand (coll/tiny.h). It numbers the
     * call only once it ran it; a stray message, should there be one, is this rank's to find
     * at its next call that takes the general path, and its sender's whose call it was not
     * (that one's wait finds our cell's signature differs, and cancels). */
    bool tiny = (call->coll == ARB_COLL_BCAST ||
                 (call->coll == ARB_COLL_ALLREDUCE && call->sendbuf == ARBOR_IN_PLACE)) &&
                blocking && !params && !call->done && !aggregate_head && !arb_ctx.cfg.check;
    if (tiny && tiny_match(t, call) && !arb_verdict_pending(t)) {
        uint64_t n = t->calls;
        uint64_t sig = arb_sig_tag(signature_of(t->tiny.sig_base, n), t->id, n);
        if (arb_exec_tiny(t, call->recvbuf, sig)) {
            arb_verdict_accepted(t, arb_verdict_number(t));
            if (user) {
                t->last.valid = true;
                t->last.coll = call->coll;
                t->last.alg = t->tiny.alg;
                t->last.predicted_us = t->tiny.predicted_us;
                t->last.seq = t->seq - 1;
                t->last.one_copy = t->last.cma = false;
            }
            *started = true;
            return ARBOR_OK;
        }
    }
    /* An earlier call's message that nothing here reads: that call was mismatched (a few loads
     * when the in-channels hold nothing unread). */
    arbor_status_t status = arb_stray_check(t, NULL);
    if (status != ARBOR_OK) return status;
    uint64_t number = arb_verdict_number(t);
    if (__builtin_expect(arb_verdict_pending(t), 0) &&
        (status = settle_earlier(t, number, call->coll)) != ARBOR_OK)
        return status;
    uint64_t flags = 0;
    status = arb_coll_flags_of(params, blocking, req_p, &flags);
    size_t elem = call->coll <= ARB_COLL_BCAST ? 1 : arb_dtype_size(call->dtype);
    if (status == ARBOR_OK) status = validate(t, call, elem);
    if (arb_ctx.cfg.check && !checking) {
        /* The exchange is a blocking collective of its own: it must neither check itself nor
         * complete the AGGREGATE run this call may be part of. */
        arb_inst_t *run_so_far = aggregate_head;
        aggregate_head = NULL;
        checking = true;
        uint64_t mine[ARB_CHECK_WORDS], all[ARB_CHECK_WORDS];
        arb_coll_check_sign(t, call, elem, flags, status == ARBOR_OK, mine);
        arbor_status_t exchange =
            arb_coll_allreduce_internal(t, mine, all, ARB_CHECK_WORDS, ARBOR_UINT64, ARBOR_MAX);
        status = arb_coll_check_verdict(t, call, all, status, exchange);
        checking = false;
        aggregate_head = run_so_far;
    }
    /* A refusal reaches every member: the ones that accepted this call learn it from the
     * verdict (coll/coll_verdict.h) instead of waiting for this rank until the timeout. */
    if (status != ARBOR_OK) {
        arb_verdict_decided(t, number, call->coll, status);
        return status;
    }
    arb_verdict_accepted(t, number);

    layout_t L;
    arb_cached_sched_t *cs;
    arb_inst_t *inst;
    int alg;
    double predicted;
    int one_copy = 0;
    if ((status = lay_out(t, call, elem, &L)) != ARBOR_OK ||
        (status = schedule_for(t, call, &L, elem, flags, &cs, &alg, &predicted, &one_copy)) !=
            ARBOR_OK) {
        free_vectors(&L);
        free(L.owned);
        return status;
    }
    free_vectors(&L);
    if (tiny && !tiny_match(t, call)) {
        arb_exec_tiny_plan(t, cs, call, L.bytes, L.block, alg, predicted);
        t->tiny.sig_base = signature_base(t, call, elem, 0);
    }
    status = arb_exec_start(t, cs, L.src, L.dst, L.block, call->coll, alg, &inst);
    if (status != ARBOR_OK) {
        arb_sched_release(cs);
        free(L.owned);
        return status;
    }
    inst->owned = L.owned;
    inst->call = number;
    inst->sig = arb_sig_tag(call_signature(t, call, elem, flags, number), t->id, number);
    if (user) {
        t->last.valid = true;
        t->last.coll = call->coll;
        t->last.alg = alg;
        t->last.predicted_us = predicted;
        t->last.seq = inst->seq;
        t->last.one_copy = one_copy != 0;
        t->last.cma = one_copy == ARB_DIRECT_CMA;
    }
    inst->op = call->op;
    inst->dtype = call->dtype;
    inst->elem = elem ? elem : 1;
    inst->combine = reduction(call->coll) ? combine_op : NULL; /* NULL: nothing combines */
    inst->combine_arg = inst;
    inst->one_copy = one_copy != 0;
    inst->cma = one_copy == ARB_DIRECT_CMA;
    inst->done = call->done;
    inst->done_arg = call->done_arg;
    *started = true;
    arb_exec_advance(inst); /* what can go now goes now */

    if (flags & ARBOR_AGGREGATE) {
        inst->agg_next = aggregate_head;
        aggregate_head = inst;
        return ARBOR_OK;
    }
    inst->agg_next = aggregate_head; /* this call completes the run */
    aggregate_head = NULL;
    if (flags & ARBOR_ASYNC_FENCE) return arb_coll_fence_add(inst);
    if (!blocking) return arb_coll_req_new(inst, req_p);
    status = arb_exec_chain_wait(inst);
    if (status == ARBOR_ERR_TIMEOUT && !arb_exec_chain_complete(inst)) {
        /* Part of the aggregated run is on another team and still running. */
        arb_coll_adopt(inst);
        return status;
    }
    arb_exec_chain_free(inst);
    return status;
}
