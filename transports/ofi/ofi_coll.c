/*
 * libfabric backend: provider collectives, the hwcoll offload hook (coll/offload.h). A group is
 * an AV set of the team's world ranks (the AV is indexed by world rank) joined with
 * fi_join_collective, which is itself a collective over the set and reports FI_JOIN_COMPLETE on
 * the event queue bound to the endpoint. fi_barrier / fi_broadcast / fi_allreduce then complete
 * on the CQ with one of our collective contexts (arb_ofi_progress hands those back here).
 *
 * What a provider runs comes from fi_query_collective, per (collective, type, op), cached: the
 * core asks on every call that could be offloaded. tcp;ofi_rxm answers from libfabric's util
 * collectives (point-to-point tagged messages inside the provider); a provider with switch
 * offload (cxi) answers for what its hardware reduces.
 */
#include "transports/ofi/ofi.h"

#include "util/log.h"

#include <rdma/fi_collective.h>
#include <rdma/fi_eq.h>
#include <stdlib.h>
#include <string.h>

#define NCOLL 256 /* provider collectives and triggered writes in flight at once */

typedef struct arb_ofi_coll {
    union {
        struct fi_context2 fi;            /* the provider's scratch space (collectives) */
        struct fi_triggered_context trig; /* a triggered write's condition */
    } u;                                  /* first: the op_context of the completion */
    arb_tp_comp_t *comp;                  /* NULL: free */
    uint8_t *bounce;                      /* a padded broadcast's buffer (freed at completion) */
    void *copy_to;                        /* where its bytes go then */
    size_t copy_len;
} arb_ofi_coll_t;

struct arb_tp_group {
    struct fi_context2 join_ctx; /* first: the EQ event's context is the group */
    struct fid_av_set *set;
    struct fid_mc *mc;
    fi_addr_t addr;
    int n;
    bool joined;
    arbor_status_t status;
};

/* Query cache: per collective kind, arbor type and op, the most elements the provider takes,
 * 0 = not supported, SIZE_MAX = unknown yet. */
#define NKIND 3
#define NOPS  ARBOR_OP_PREDEFINED
static size_t max_count[NKIND][ARBOR_DTYPE_COUNT][NOPS];
static size_t max_members[NKIND];
static size_t bcast_piece_max; /* bytes one member's piece of a broadcast may have */
static bool cache_ready;

/* arbor type -> libfabric type; -1: none with the same layout. */
static int fi_type_of(arbor_dtype_t t)
{
    switch (t) {
    case ARBOR_BYTE:
    case ARBOR_UINT8:
        return FI_UINT8;
    case ARBOR_CHAR:
    case ARBOR_INT8:
        return FI_INT8;
    case ARBOR_INT16:
        return FI_INT16;
    case ARBOR_UINT16:
        return FI_UINT16;
    case ARBOR_INT32:
        return FI_INT32;
    case ARBOR_UINT32:
        return FI_UINT32;
    case ARBOR_INT64:
        return FI_INT64;
    case ARBOR_UINT64:
        return FI_UINT64;
    case ARBOR_FLOAT:
        return FI_FLOAT;
    case ARBOR_DOUBLE:
        return FI_DOUBLE;
    case ARBOR_INT:
        return sizeof(int) == 4 ? FI_INT32 : -1;
    case ARBOR_UINT:
        return sizeof(unsigned) == 4 ? FI_UINT32 : -1;
    default:
        return -1;
    }
}

static size_t fi_size(int ft)
{
    switch (ft) {
    case FI_INT8:
    case FI_UINT8:
        return 1;
    case FI_INT16:
    case FI_UINT16:
        return 2;
    case FI_INT32:
    case FI_UINT32:
    case FI_FLOAT:
        return 4;
    default:
        return 8;
    }
}

static bool is_float(int ft)
{
    return ft == FI_FLOAT || ft == FI_DOUBLE;
}

/* arbor op -> libfabric op; -1: none (MINLOC / MAXLOC, user ops). Logical and bitwise ops only
 * on integers: libfabric would apply them to float bits, arbor refuses them there anyway. */
static int fi_op_of(arbor_op_t op, int ft)
{
    switch (op) {
    case ARBOR_SUM:
        return FI_SUM;
    case ARBOR_PROD:
        return FI_PROD;
    case ARBOR_MIN:
        return FI_MIN;
    case ARBOR_MAX:
        return FI_MAX;
    case ARBOR_BAND:
        return is_float(ft) ? -1 : FI_BAND;
    case ARBOR_BOR:
        return is_float(ft) ? -1 : FI_BOR;
    case ARBOR_BXOR:
        return is_float(ft) ? -1 : FI_BXOR;
    case ARBOR_LAND:
        return is_float(ft) ? -1 : FI_LAND;
    case ARBOR_LOR:
        return is_float(ft) ? -1 : FI_LOR;
    default:
        return -1;
    }
}

static const enum fi_collective_op fi_coll_of[NKIND] = {FI_BARRIER, FI_BROADCAST, FI_ALLREDUCE};

/* One fi_query_collective: the element limit (SIZE_MAX when the provider states none) or 0. */
static size_t query(arb_tp_t *tp, int kind, int ft, int fop, size_t *members_p)
{
    struct fi_collective_attr attr;

    memset(&attr, 0, sizeof(attr));
    attr.op = (enum fi_op)fop;
    attr.datatype = (enum fi_datatype)ft;
    if (fi_query_collective(tp->domain, fi_coll_of[kind], &attr, 0) != 0) return 0;
    if (members_p) *members_p = attr.max_members;
    return attr.datatype_attr.count ? attr.datatype_attr.count : SIZE_MAX;
}

static void cache_fill(arb_tp_t *tp)
{
    memset(max_count, 0, sizeof(max_count));
    max_members[ARB_TP_HW_BARRIER] = 0;
    if (query(tp, ARB_TP_HW_BARRIER, FI_UINT8, FI_NOOP, &max_members[ARB_TP_HW_BARRIER]) != 0)
        for (int t = 0; t < ARBOR_DTYPE_COUNT; t++) max_count[ARB_TP_HW_BARRIER][t][0] = SIZE_MAX;
    max_members[ARB_TP_HW_BCAST] = 0;
    size_t n = query(tp, ARB_TP_HW_BCAST, FI_UINT8, FI_NOOP, &max_members[ARB_TP_HW_BCAST]);
    max_count[ARB_TP_HW_BCAST][ARBOR_BYTE][0] = n;
    max_members[ARB_TP_HW_ALLREDUCE] = SIZE_MAX;
    for (int t = 0; t < ARBOR_DTYPE_COUNT; t++) {
        int ft = fi_type_of((arbor_dtype_t)t);
        for (int op = 0; ft >= 0 && op < NOPS; op++) {
            int fop = fi_op_of(op, ft);
            size_t members = SIZE_MAX;
            if (fop < 0) continue;
            max_count[ARB_TP_HW_ALLREDUCE][t][op] =
                query(tp, ARB_TP_HW_ALLREDUCE, ft, fop, &members);
            if (max_count[ARB_TP_HW_ALLREDUCE][t][op] && members < max_members[ARB_TP_HW_ALLREDUCE])
                max_members[ARB_TP_HW_ALLREDUCE] = members;
        }
    }
    /* util collectives send every piece as one tagged message. Above rxm's eager size the
     * message goes by rendezvous, which never completes for them: a broadcast with pieces of
     * 32766 bytes hangs at P = 2 (16384 passes; libfabric 1.17). The byte limit the provider
     * states for an allreduce message (fi_query_atomic's count for bytes, 16288) bounds it. */
    bcast_piece_max = query(tp, ARB_TP_HW_ALLREDUCE, FI_UINT8, FI_BOR, NULL);
    cache_ready = true;
}

/* The most pieces one message of libfabric's util broadcast carries over n members. Its
 * scatter is a binomial tree (util_coll_scatter, libfabric 1.17): the root sends n - m pieces to
 * the member m away (m the largest power of two below n), then m / 2, m / 4, ... pieces; inner
 * nodes forward at most m / 2. At n = 8 the root's first message holds 4 pieces: a 70000-byte
 * broadcast (8750-byte pieces) sends 35000 bytes at once, past rxm's eager size, and hangs. */
static size_t bcast_scatter_pieces(int n)
{
    size_t m = 1;
    while (m * 2 < (size_t)n) m *= 2;
    if (n < 2) return 1;
    return (size_t)n - m > m / 2 ? (size_t)n - m : m / 2;
}

bool arb_ofi_hwcoll_query(arb_tp_t *tp, const arb_tp_hwcoll_args_t *a, int n)
{
    if (!(tp->caps & ARB_TP_CAP_HW_COLL) || (unsigned)a->kind >= NKIND || n < 1) return false;
    if (!cache_ready) cache_fill(tp);
    if ((size_t)n > max_members[a->kind]) return false;
    switch (a->kind) {
    case ARB_TP_HW_BARRIER:
        return max_count[a->kind][0][0] != 0;
    case ARB_TP_HW_BCAST:
        /* util broadcast pieces: ceil(count / n) bytes each (arb_arb_arb_arb_arb_ofi_hwcoll_post
         * pads), but the binomial scatter sends several pieces in one message
         * (bcast_scatter_pieces). */
        if (strstr(tp->describe, "ofi_rxm") != NULL &&
            (a->count + (size_t)n - 1) / (size_t)n * bcast_scatter_pieces(n) > bcast_piece_max)
            return false;
        return a->count <= max_count[a->kind][ARBOR_BYTE][0];
    case ARB_TP_HW_ALLREDUCE:
        if ((unsigned)a->dtype >= ARBOR_DTYPE_COUNT || a->op < 0 || a->op >= NOPS) return false;
        return a->count <= max_count[a->kind][a->dtype][a->op];
    }
    return false;
}

static bool coll_done(arb_tp_t *tp, void *op_context, arbor_status_t status);

static arbor_status_t ctx_alloc(arb_tp_t *tp)
{
    if (tp->colls == NULL) tp->colls = calloc(NCOLL, sizeof(*tp->colls));
    if (tp->colls == NULL) return ARBOR_ERR_NO_MEMORY;
    tp->coll_done = coll_done;
    return ARBOR_OK;
}

struct fi_triggered_context *arb_ofi_coll_ctx(arb_tp_t *tp, arb_tp_comp_t *comp)
{
    if (ctx_alloc(tp) != ARBOR_OK) return NULL;
    for (int i = 0; i < NCOLL; i++)
        if (tp->colls[i].comp == NULL) {
            memset(&tp->colls[i], 0, sizeof(tp->colls[i]));
            tp->colls[i].comp = comp;
            comp->pending++;
            return &tp->colls[i].u.trig;
        }
    return NULL;
}

void arb_ofi_coll_ctx_drop(arb_tp_t *tp, struct fi_triggered_context *ctx)
{
    arb_ofi_coll_t *c = (arb_ofi_coll_t *)(void *)ctx;
    (void)tp;
    c->comp->pending--;
    c->comp = NULL;
}

arbor_status_t arb_ofi_coll_open(arb_tp_t *tp)
{
    struct fi_eq_attr attr = {0};
    struct fi_collective_attr q;
    int rc;

    cache_ready = false;
    if (!(tp->info->caps & FI_COLLECTIVE)) return ARBOR_OK;
    memset(&q, 0, sizeof(q));
    q.op = FI_NOOP;
    q.datatype = FI_UINT8;
    rc = fi_query_collective(tp->domain, FI_BARRIER, &q, 0);
    if (rc != 0) {
        arb_debug("%s offers FI_COLLECTIVE but no barrier (%s): no hwcoll", tp->describe,
                  fi_strerror(-rc));
        return ARBOR_OK;
    }
    attr.size = 64;
    attr.wait_obj = FI_WAIT_NONE;
    rc = fi_eq_open(tp->fabric, &attr, &tp->eq, NULL);
    if (rc == 0) rc = fi_ep_bind(tp->ep, &tp->eq->fid, 0);
    if (rc != 0) {
        arb_error("%s: event queue for provider collectives: %s", tp->describe, fi_strerror(-rc));
        return ARBOR_ERR_TRANSPORT;
    }
    if (ctx_alloc(tp) != ARBOR_OK) return ARBOR_ERR_NO_MEMORY;
    tp->caps |= ARB_TP_CAP_HW_COLL;
    return ARBOR_OK;
}

void arb_ofi_coll_close(arb_tp_t *tp)
{
    int rc;

    if (tp->eq != NULL && (rc = fi_close(&tp->eq->fid)) != 0)
        arb_warn("closing the event queue: %s", fi_strerror(-rc));
    tp->eq = NULL;
    free(tp->colls);
    tp->colls = NULL;
    tp->coll_done = NULL;
    cache_ready = false;
}

/* The completion handler progress calls (tp->coll_done): a CQ completion (status ARBOR_OK) or
 * error entry of a provider collective or a triggered write; true when op_context was ours. */
static bool coll_done(arb_tp_t *tp, void *op_context, arbor_status_t status)
{
    uintptr_t p = (uintptr_t)op_context, lo = (uintptr_t)tp->colls;

    if (tp->colls == NULL || p < lo || p >= lo + NCOLL * sizeof(arb_ofi_coll_t) ||
        (p - lo) % sizeof(arb_ofi_coll_t) != 0)
        return false;
    arb_ofi_coll_t *c = op_context;
    if (c->comp == NULL) return false; /* not in flight: not ours after all */
    if (status != ARBOR_OK) c->comp->status = status;
    if (c->bounce) {
        if (status == ARBOR_OK && c->copy_to) memcpy(c->copy_to, c->bounce, c->copy_len);
        free(c->bounce);
        c->bounce = NULL;
    }
    __atomic_fetch_sub(&c->comp->pending, 1, __ATOMIC_RELEASE);
    c->comp = NULL;
    return true;
}

arbor_status_t arb_ofi_group_join(arb_tp_t *tp, const int *members, int n, arb_tp_group_t **g_p)
{
    struct fi_av_set_attr attr = {0};
    fi_addr_t set_addr;
    const char *what;
    int rc;

    if (tp->eq == NULL || tp->peers == NULL) return ARBOR_ERR_UNSUPPORTED;
    arb_tp_group_t *g = calloc(1, sizeof(*g));
    if (g == NULL) return ARBOR_ERR_NO_MEMORY;
    g->n = n;
    g->status = ARBOR_OK;
    /* libfabric 1.17's util AV sets refuse an empty set (FI_ADDR_NOTAVAIL bounds: -FI_ENOMEM):
     * start with world rank 0 alone, take it out, then add the members in team order (the
     * order defines the group's ranks, broadcast roots among them). */
    attr.count = (size_t)n;
    attr.start_addr = tp->peers[0].addr;
    attr.end_addr = tp->peers[0].addr;
    attr.stride = 1;
    what = "fi_av_set";
    rc = fi_av_set(tp->av, &attr, &g->set, g);
    if (rc == 0) {
        what = "fi_av_set_remove";
        rc = fi_av_set_remove(g->set, tp->peers[0].addr);
    }
    for (int i = 0; rc == 0 && i < n; i++) {
        what = "fi_av_set_insert";
        rc = fi_av_set_insert(g->set, tp->peers[members[i]].addr);
    }
    if (rc == 0) {
        what = "fi_av_set_addr";
        rc = fi_av_set_addr(g->set, &set_addr);
    }
    if (rc == 0) {
        what = "fi_join_collective";
        /* The join runs a collective over the set: a busy endpoint may refuse for now. */
        do {
            rc = fi_join_collective(tp->ep, set_addr, g->set, 0, &g->mc, g);
            if (rc == -FI_EAGAIN) arb_ofi_progress(tp);
        } while (rc == -FI_EAGAIN);
    }
    if (rc != 0) {
        arb_error("%s: %s over %d ranks: %s", tp->describe, what, n, fi_strerror(-rc));
        if (g->set) fi_close(&g->set->fid);
        free(g);
        return ARBOR_ERR_TRANSPORT;
    }
    *g_p = g;
    return ARBOR_OK;
}

/* Reads the event queue once: join completions (and failures) of any group. */
static arbor_status_t eq_poll(arb_tp_t *tp)
{
    struct fi_eq_entry entry;
    uint32_t event;
    ssize_t rc = fi_eq_read(tp->eq, &event, &entry, sizeof(entry), 0);

    if (rc == -FI_EAGAIN) return ARBOR_OK;
    if (rc == -FI_EAVAIL) {
        struct fi_eq_err_entry err = {0};
        if (fi_eq_readerr(tp->eq, &err, 0) < 0) return ARBOR_ERR_TRANSPORT;
        arb_error("%s: a collective join failed: %s", tp->describe, fi_strerror(err.err));
        if (err.context) ((arb_tp_group_t *)err.context)->status = ARBOR_ERR_TRANSPORT;
        return ARBOR_OK;
    }
    if (rc < 0) {
        arb_error("%s: fi_eq_read: %s", tp->describe, fi_strerror((int)-rc));
        return ARBOR_ERR_TRANSPORT;
    }
    if (event == FI_JOIN_COMPLETE && entry.context != NULL)
        ((arb_tp_group_t *)entry.context)->joined = true;
    else
        arb_warn("%s: unexpected event %u on the collective event queue", tp->describe, event);
    return ARBOR_OK;
}

arbor_status_t arb_ofi_group_test(arb_tp_t *tp, arb_tp_group_t *g)
{
    if (g->status != ARBOR_OK) return g->status;
    if (g->joined) return ARBOR_OK;
    int n = arb_ofi_progress(tp);
    if (n < 0) return (arbor_status_t)n;
    arbor_status_t status = eq_poll(tp);
    if (status != ARBOR_OK) return status;
    if (g->status != ARBOR_OK) return g->status;
    if (!g->joined) return ARB_ERR_AGAIN;
    g->addr = fi_mc_addr(g->mc);
    return ARBOR_OK;
}

void arb_ofi_group_free(arb_tp_t *tp, arb_tp_group_t *g)
{
    int rc;

    if (g == NULL) return;
    if (!g->joined)
        arb_warn("%s: freeing a collective group whose join never completed", tp->describe);
    if (g->mc && (rc = fi_close(&g->mc->fid)) != 0)
        arb_warn("%s: closing a collective group: %s", tp->describe, fi_strerror(-rc));
    /* util collectives keep a reference on the set while a group uses it; -FI_EBUSY then. */
    if (g->set && (rc = fi_close(&g->set->fid)) != 0 && rc != -FI_EBUSY)
        arb_warn("%s: closing an AV set: %s", tp->describe, fi_strerror(-rc));
    free(g);
}

static void *desc_of(arb_tp_t *tp, const void *buf, size_t len)
{
    void *desc = NULL;
    if (tp->mr_local && len) arb_ofi_local_desc(tp, buf, len, &desc);
    return desc;
}

arbor_status_t arb_ofi_hwcoll_post(arb_tp_t *tp, arb_tp_group_t *g, const arb_tp_hwcoll_args_t *a,
                                   arb_tp_comp_t *comp)
{
    ssize_t rc;

    if (g == NULL || !g->joined) return ARBOR_ERR_INVALID_ARG;
    arb_ofi_coll_t *c = (arb_ofi_coll_t *)(void *)arb_ofi_coll_ctx(tp, comp);
    if (c == NULL) return ARB_ERR_AGAIN;
    int ft = fi_type_of(a->dtype);
    size_t bytes = a->kind == ARB_TP_HW_BARRIER ? 0 : a->count * fi_size(ft);
    switch (a->kind) {
    case ARB_TP_HW_BARRIER:
        rc = fi_barrier(tp->ep, g->addr, c);
        break;
    case ARB_TP_HW_BCAST:
        if (a->count % (size_t)g->n != 0 && strstr(tp->describe, "ofi_rxm") != NULL) {
            /* libfabric's util broadcast scatters ceil(count / n) elements to each member and
             * allgathers them back into the buffer: a count that n does not divide would be
             * written past its end (read in util_coll.c, libfabric 1.17). Broadcast a padded
             * copy instead; the completion copies the payload out. */
            size_t padded = (a->count + (size_t)g->n - 1) / (size_t)g->n * (size_t)g->n;
            c->bounce = calloc(1, padded);
            if (c->bounce == NULL) {
                arb_ofi_coll_ctx_drop(tp, &c->u.trig);
                return ARBOR_ERR_NO_MEMORY;
            }
            memcpy(c->bounce, a->dst, a->count); /* the root's payload; others' is overwritten */
            c->copy_to = a->dst;
            c->copy_len = a->count;
            rc = fi_broadcast(tp->ep, c->bounce, padded, NULL, g->addr, (fi_addr_t)a->root,
                              FI_UINT8, 0, c);
            break;
        }
        rc = fi_broadcast(tp->ep, a->dst, a->count, desc_of(tp, a->dst, bytes), g->addr,
                          (fi_addr_t)a->root, FI_UINT8, 0, c);
        break;
    case ARB_TP_HW_ALLREDUCE:
        rc = fi_allreduce(tp->ep, a->src, a->count, desc_of(tp, a->src, bytes), a->dst,
                          desc_of(tp, a->dst, bytes), g->addr, (enum fi_datatype)ft,
                          (enum fi_op)fi_op_of(a->op, ft), 0, c);
        break;
    default:
        rc = -FI_EINVAL;
    }
    if (rc == 0) return ARBOR_OK;
    free(c->bounce);
    c->bounce = NULL;
    c->comp = NULL;
    comp->pending--;
    if (rc == -FI_EAGAIN) return ARB_ERR_AGAIN;
    arb_error("%s: provider collective %d failed to start: %s", tp->describe, (int)a->kind,
              fi_strerror((int)-rc));
    return ARBOR_ERR_TRANSPORT;
}
