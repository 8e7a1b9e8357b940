/*
 * The strided pack path over active messages (ARMCI's alternative to one operation per
 * contiguous piece): the pieces are numbered in ARMCI order (level 1 fastest) and concatenated
 * into one packed stream; a message carries a byte range of that stream with the remote shape,
 * and its handler copies the range between the stream and the target's memory. Puts pack here
 * and unpack there; gets ask for ranges that the target packs into its replies.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "rma/am.h"
#include "rma/rma.h"
#include "rma/rma_impl.h"

enum { H_PUT = ARBOR_AM_MAX_HANDLERS, H_GET, H_GET_DATA };

static uint64_t packed_calls; /* strided calls that went this way */
static arbor_status_t pack_path(const arb_rma_strided_desc_t *d, arbor_request_h *req_p,
                                bool blocking);

/* The remote side of a transfer: where, which shape, which bytes of the stream. */
typedef struct {
    uint64_t remote; /* the remote base address, in the target's address space */
    uint64_t first;  /* first byte of the packed stream in this message */
    uint64_t op;     /* gets: the origin's operation, echoed in the replies */
    uint32_t nbytes; /* stream bytes in this message (puts: they follow the header) */
    uint32_t levels; /* stride levels */
    uint64_t count[ARBOR_MAX_STRIDE_LEVELS + 1];
    int64_t stride[ARBOR_MAX_STRIDE_LEVELS];
} am_strided_hdr_t;

typedef struct {
    uint64_t op, first;
    uint32_t nbytes, pad;
} am_get_data_t;

typedef struct {
    int levels;
    const size_t *count;
    const ptrdiff_t *stride;
} shape_t;

/* A get in flight at the origin: where its replies go. */
typedef struct {
    unsigned char *dst;
    shape_t local;
    size_t left; /* stream bytes not yet arrived */
} get_op_t;

static size_t chunk_bytes(void)
{
    return arb_am_max_payload() - sizeof(am_strided_hdr_t);
}

static size_t stream_bytes(const size_t count[], int levels)
{
    size_t n = count[0];
    for (int i = 1; i <= levels; i++) n *= count[i];
    return n;
}

static ptrdiff_t piece_offset(const shape_t *s, size_t piece)
{
    ptrdiff_t off = 0;
    for (int i = 1; i <= s->levels; i++) {
        off += (ptrdiff_t)(piece % s->count[i]) * s->stride[i - 1];
        piece /= s->count[i];
    }
    return off;
}

/* Copies stream bytes [first, first + n) between @p buf and the strided memory at @p base. */
static void copy_range(const shape_t *s, unsigned char *base, unsigned char *buf, size_t first,
                       size_t n, bool to_strided)
{
    size_t piece = first / s->count[0], in = first % s->count[0];
    while (n) {
        size_t k = s->count[0] - in < n ? s->count[0] - in : n;
        unsigned char *mem = base + piece_offset(s, piece) + in;
        memcpy(to_strided ? mem : buf, to_strided ? buf : mem, k);
        buf += k, n -= k, piece++, in = 0;
    }
}

static shape_t hdr_shape(const am_strided_hdr_t *h, size_t count[], ptrdiff_t stride[])
{
    for (uint32_t i = 0; i <= h->levels; i++) count[i] = (size_t)h->count[i];
    for (uint32_t i = 0; i < h->levels; i++) stride[i] = (ptrdiff_t)h->stride[i];
    return (shape_t){(int)h->levels, count, stride};
}

/* Lowest and one past the highest byte of a strided region (strides may be negative). */
static void extent(const shape_t *s, ptrdiff_t *lo, ptrdiff_t *hi)
{
    *lo = 0, *hi = (ptrdiff_t)s->count[0];
    for (int i = 1; i <= s->levels; i++) {
        ptrdiff_t span = (ptrdiff_t)(s->count[i] - 1) * s->stride[i - 1];
        if (span < 0)
            *lo += span;
        else
            *hi += span;
    }
}

static arbor_status_t check_remote(int rank, const void *base, const shape_t *s)
{
    ptrdiff_t lo, hi;
    arb_rma_target_t t;
    extent(s, &lo, &hi);
    return arb_rma_translate(rank, (const unsigned char *)base + lo, (size_t)(hi - lo), false, &t);
}

static void fill_hdr(am_strided_hdr_t *h, const void *remote, const shape_t *s)
{
    memset(h, 0, sizeof(*h));
    h->remote = (uint64_t)(uintptr_t)remote;
    h->levels = (uint32_t)s->levels;
    for (int i = 0; i <= s->levels; i++) h->count[i] = s->count[i];
    for (int i = 0; i < s->levels; i++) h->stride[i] = s->stride[i];
}

/* ---- handlers --------------------------------------------------------------------------- */

static void on_put(arbor_am_token_h tok, int src, void *payload, size_t nbytes, void *arg)
{
    (void)tok, (void)src, (void)arg;
    am_strided_hdr_t h;
    size_t count[ARBOR_MAX_STRIDE_LEVELS + 1];
    ptrdiff_t stride[ARBOR_MAX_STRIDE_LEVELS];
    if (nbytes < sizeof(h)) return;
    memcpy(&h, payload, sizeof(h));
    shape_t s = hdr_shape(&h, count, stride);
    copy_range(&s, (unsigned char *)(uintptr_t)h.remote, (unsigned char *)payload + sizeof(h),
               h.first, h.nbytes, true);
}

static void on_get(arbor_am_token_h tok, int src, void *payload, size_t nbytes, void *arg)
{
    (void)src, (void)arg;
    am_strided_hdr_t h;
    size_t count[ARBOR_MAX_STRIDE_LEVELS + 1];
    ptrdiff_t stride[ARBOR_MAX_STRIDE_LEVELS];
    unsigned char out[4096];
    if (nbytes < sizeof(h)) return;
    memcpy(&h, payload, sizeof(h));
    shape_t s = hdr_shape(&h, count, stride);
    am_get_data_t d = {h.op, h.first, h.nbytes, 0};
    memcpy(out, &d, sizeof(d));
    copy_range(&s, (unsigned char *)(uintptr_t)h.remote, out + sizeof(d), h.first, h.nbytes, false);
    arb_am_send_reply(tok, H_GET_DATA, out, sizeof(d) + h.nbytes);
}

static void on_get_data(arbor_am_token_h tok, int src, void *payload, size_t nbytes, void *arg)
{
    (void)tok, (void)src, (void)arg;
    am_get_data_t d;
    if (nbytes < sizeof(d)) return;
    memcpy(&d, payload, sizeof(d));
    get_op_t *op = (get_op_t *)(uintptr_t)d.op;
    copy_range(&op->local, op->dst, (unsigned char *)payload + sizeof(d), d.first, d.nbytes, true);
    op->left -= d.nbytes;
}

void arb_am_strided_init(void)
{
    arb_am_set_internal(H_PUT, on_put, NULL);
    arb_am_set_internal(H_GET, on_get, NULL);
    arb_am_set_internal(H_GET_DATA, on_get_data, NULL);
    packed_calls = 0;
    arb_rma_strided_pack_register(pack_path);
    arb_rma_fence_register(arb_am_onesided_complete);
}

void arb_am_strided_fini(void)
{
    arb_rma_strided_pack_register(NULL);
    arb_rma_fence_register(NULL);
}

/* ---- the calls -------------------------------------------------------------------------- */

arbor_status_t arb_am_put_strided_packed(int rank, void *dst, const ptrdiff_t dst_stride[],
                                         const void *src, const ptrdiff_t src_stride[],
                                         const size_t count[], int levels)
{
    shape_t remote = {levels, count, dst_stride}, local = {levels, count, src_stride};
    arbor_status_t st = check_remote(rank, dst, &remote);
    size_t total = stream_bytes(count, levels), chunk = chunk_bytes();
    unsigned char msg[4096];
    am_strided_hdr_t h;
    fill_hdr(&h, dst, &remote);
    for (size_t first = 0; st == ARBOR_OK && first < total; first += chunk) {
        h.first = first;
        h.nbytes = (uint32_t)(total - first < chunk ? total - first : chunk);
        memcpy(msg, &h, sizeof(h));
        copy_range(&local, (unsigned char *)(uintptr_t)src, msg + sizeof(h), first, h.nbytes,
                   false);
        st = arb_am_send_onesided(rank, H_PUT, msg, sizeof(h) + h.nbytes);
    }
    return st;
}

static bool get_done(void *arg)
{
    return ((volatile get_op_t *)arg)->left == 0;
}

arbor_status_t arb_am_get_strided_packed(int rank, void *dst, const ptrdiff_t dst_stride[],
                                         const void *src, const ptrdiff_t src_stride[],
                                         const size_t count[], int levels)
{
    shape_t remote = {levels, count, src_stride};
    arbor_status_t st = check_remote(rank, src, &remote);
    size_t total = stream_bytes(count, levels), chunk = chunk_bytes();
    get_op_t op = {dst, {levels, count, dst_stride}, total};
    am_strided_hdr_t h;
    fill_hdr(&h, src, &remote);
    h.op = (uint64_t)(uintptr_t)&op;
    for (size_t first = 0; st == ARBOR_OK && first < total; first += chunk) {
        h.first = first;
        h.nbytes = (uint32_t)(total - first < chunk ? total - first : chunk);
        st = arb_am_send_request(rank, H_GET, &h, sizeof(h));
    }
    /* Replies of a failed call may still come: wait for those of the requests that went out. */
    if (st != ARBOR_OK) return st;
    return arb_am_wait(get_done, &op, "packed strided get");
}

/* ---- the one-sided layer's pack hook ------------------------------------------------------- */

/* arb_rma_strided_choose picked packing for a validated pattern (rma/strided.c). A packed
 * put is locally complete once its messages are queued at the target (the data is copied
 * into them): the blocking call returns then, an _nb handle comes back complete, and the
 * remote completion is arbor_fence's / arbor_quiet's, which wait for the messages to have run
 * (arb_am_onesided_complete), like every other put. Under ARBOR_RMA_ORDERED every operation
 * completes in issue order, so there the put waits for its messages before returning.
 * Accumulates go by pieces (their atomicity is the one-sided layer's). */
static arbor_status_t pack_path(const arb_rma_strided_desc_t *d, arbor_request_h *req_p,
                                bool blocking)
{
    (void)blocking;
    if (d->kind == 2 || d->levels > ARBOR_MAX_STRIDE_LEVELS) return ARBOR_ERR_UNSUPPORTED;
    size_t count[ARBOR_MAX_STRIDE_LEVELS + 1] = {d->piece};
    for (int i = 0; i < d->levels; i++) count[i + 1] = d->count[i];
    void *remote = (void *)(uintptr_t)d->remote; /* heap or registered memory alike */
    arbor_status_t st = arb_rma_order_packed(d->rank, d->kind == 0);
    if (st != ARBOR_OK) return st;
    if (d->kind == 0) {
        st = arb_am_put_strided_packed(d->rank, remote, d->rstride, d->local, d->lstride, count,
                                       d->levels);
        if (st == ARBOR_OK && arb_ctx.cfg.rma_ordered) st = arb_am_onesided_complete(d->rank);
    } else {
        st = arb_am_get_strided_packed(d->rank, d->local, d->lstride, remote, d->rstride, count,
                                       d->levels);
    }
    if (st == ARBOR_OK) packed_calls++;
    if (st == ARBOR_OK && req_p) st = arb_rma_req_done_handle(d->rank, req_p);
    return st;
}

uint64_t arb_am_strided_packed_calls(void)
{
    return packed_calls;
}
