/*
 * UCX backend: put_signal as one active message where the endpoint has no atomic lane (UCX over
 * TCP, where every RMA and atomic is emulated with messages that the target's progress
 * applies). The old path there was a put, an endpoint flush (a round trip) and an emulated
 * atomic add: three messages and a wait. Here the header names the data's place and the signal
 * word, the payload is the data; the target's handler, run by its ucp_worker_progress (who
 * applies emulated atomics today), copies the data and then adds to the signal with a release
 * CPU atomic. UCX's software atomics are CPU atomics on the same words too (amo_sw), and
 * readers load the word, so both kinds of update stay coherent.
 *
 * Remote completion. ucp_ep_flush covers UCX's own emulated RMA (it waits for the target's
 * completion messages) but not a user active message's handler. A fence or a flush after such
 * messages therefore sends a ping on the same endpoint; messages of one endpoint are handled in
 * order (every one is sent eager, UCP_AM_SEND_FLAG_EAGER, so none is a rendezvous whose data
 * lands later), so the pong says every earlier message's data and signal are in place.
 */
#include "transports/ucx/ucx.h"

#include "util/log.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { AM_ID_SIGNAL = 0x41, AM_ID_PING = 0x42, AM_ID_PONG = 0x43 };

/* Header of a put_signal message: data address, signal address, amount, origin rank. */
enum { HDR_DATA, HDR_SIG, HDR_ADD, HDR_ORIGIN, HDR_WORDS };

bool arb_ucx_am_signal_enabled = true;

/* True when [addr, addr + len) lies in the segment or a registered region: a message never
 * writes anywhere else. */
static bool region_ok(arb_tp_t *tp, uint64_t addr, size_t len)
{
    uint64_t seg = (uint64_t)(uintptr_t)tp->seg;

    if (addr >= seg && len <= tp->seg_size && addr - seg <= tp->seg_size - len) return true;
    for (arb_tp_mr_t *mr = tp->mrs; mr != NULL; mr = mr->next) {
        uint64_t base = (uint64_t)(uintptr_t)mr->addr;
        if (addr >= base && len <= mr->len && addr - base <= mr->len - len) return true;
    }
    return false;
}

static void signal_apply(uint64_t sig_addr, uint64_t add)
{
    __atomic_fetch_add((uint64_t *)(uintptr_t)sig_addr, add, __ATOMIC_RELEASE);
}

/* A rendezvous payload (not expected: every message is sent eager) has landed. */
static void rndv_landed(void *req, ucs_status_t status, size_t length, void *user_data)
{
    arb_ucx_amo_ctx_t *ctx = user_data;

    (void)length;
    if (status == UCS_OK)
        signal_apply(ctx->sig_off, ctx->operand);
    else
        arb_error("put_signal message: receiving its data failed: %s", ucs_status_string(status));
    arb_ucx_amo_ctx_put(ctx, UCS_OK);
    ucp_request_free(req);
}

static ucs_status_t rndv_receive(arb_tp_t *tp, void *data, const uint64_t *h, size_t len)
{
    ucp_request_param_t param;
    arb_ucx_amo_ctx_t *ctx = arb_ucx_amo_ctx_get(tp);
    ucs_status_ptr_t req;

    static bool warned;

    if (!warned) {
        warned = true;
        arb_warn("put_signal message from peer %d came as a rendezvous: a later signal may be "
                 "applied before its data lands",
                 (int)h[HDR_ORIGIN]);
    }
    if (ctx == NULL) {
        arb_error("put_signal message from peer %d: out of memory", (int)h[HDR_ORIGIN]);
        return UCS_OK;
    }
    ctx->sig_off = h[HDR_SIG];
    ctx->operand = h[HDR_ADD];
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    param.cb.recv_am = rndv_landed;
    param.user_data = ctx;
    req = ucp_am_recv_data_nbx(tp->worker, data, (void *)(uintptr_t)h[HDR_DATA], len, &param);
    if (UCS_PTR_IS_PTR(req)) return UCS_OK;
    if (UCS_PTR_IS_ERR(req))
        arb_error("put_signal message from peer %d: ucp_am_recv_data_nbx failed: %s",
                  (int)h[HDR_ORIGIN], ucs_status_string(UCS_PTR_STATUS(req)));
    else
        signal_apply(h[HDR_SIG], h[HDR_ADD]);
    arb_ucx_amo_ctx_put(ctx, UCS_OK);
    return UCS_OK;
}

static ucs_status_t signal_arrived(void *arg, const void *header, size_t header_length, void *data,
                                   size_t length, const ucp_am_recv_param_t *param)
{
    arb_tp_t *tp = arg;
    uint64_t h[HDR_WORDS];

    if (header_length != sizeof(h)) {
        arb_error("put_signal message with a header of %zu bytes dropped", header_length);
        return UCS_OK;
    }
    memcpy(h, header, sizeof(h));
    if (!region_ok(tp, h[HDR_DATA], length) || h[HDR_SIG] % sizeof(uint64_t) != 0 ||
        !region_ok(tp, h[HDR_SIG], sizeof(uint64_t))) {
        arb_error("put_signal message from peer %d (%zu bytes at 0x%llx, signal 0x%llx) outside "
                  "registered memory: dropped",
                  (int)h[HDR_ORIGIN], length, (unsigned long long)h[HDR_DATA],
                  (unsigned long long)h[HDR_SIG]);
        return UCS_OK;
    }
    if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) return rndv_receive(tp, data, h, length);
    if (length > 0) memcpy((void *)(uintptr_t)h[HDR_DATA], data, length);
    signal_apply(h[HDR_SIG], h[HDR_ADD]);
    return UCS_OK;
}

/* Sends a header-only message (ping or pong) to peer; the header is tp->rank, which outlives
 * the send, so the request can be dropped. */
static arbor_status_t send_rank(arb_tp_t *tp, int peer, unsigned id)
{
    ucp_request_param_t param;
    ucs_status_ptr_t req;

    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = UCP_AM_SEND_FLAG_EAGER;
    req = ucp_am_send_nbx(tp->eps[peer], id, &tp->rank, sizeof(tp->rank), NULL, 0, &param);
    if (UCS_PTR_IS_ERR(req)) {
        arb_error("%s to peer %d failed: %s", id == AM_ID_PING ? "ping" : "pong", peer,
                  ucs_status_string(UCS_PTR_STATUS(req)));
        return arb_ucx_status(UCS_PTR_STATUS(req));
    }
    if (req != NULL) ucp_request_free(req);
    return ARBOR_OK;
}

static int header_rank(arb_tp_t *tp, const void *header, size_t header_length)
{
    int rank;

    if (header_length != sizeof(rank)) return -1;
    memcpy(&rank, header, sizeof(rank));
    return rank >= 0 && rank < tp->size && tp->eps != NULL && tp->eps[rank] != NULL ? rank : -1;
}

/* Every message sent before the ping has been handled: answer. */
static ucs_status_t ping_arrived(void *arg, const void *header, size_t header_length, void *data,
                                 size_t length, const ucp_am_recv_param_t *param)
{
    arb_tp_t *tp = arg;
    int origin = header_rank(tp, header, header_length);

    (void)data, (void)length, (void)param;
    if (origin < 0)
        arb_error("ping with a bad header dropped");
    else
        send_rank(tp, origin, AM_ID_PONG);
    return UCS_OK;
}

static ucs_status_t pong_arrived(void *arg, const void *header, size_t header_length, void *data,
                                 size_t length, const ucp_am_recv_param_t *param)
{
    arb_tp_t *tp = arg;
    int peer = header_rank(tp, header, header_length);

    (void)data, (void)length, (void)param;
    if (peer < 0 || tp->peers[peer].pings <= 0) {
        arb_error("unexpected pong (peer %d) dropped", peer);
        return UCS_OK;
    }
    if (tp->peers[peer].pings > 0) {
        tp->peers[peer].pings--;
        tp->peers[peer].fencing--;
        tp->pings_waiting--;
    }
    return UCS_OK;
}

arbor_status_t arb_ucx_am_init(arb_tp_t *tp)
{
    static const struct {
        unsigned id;
        ucp_am_recv_callback_t cb;
    } handlers[] = {
        {AM_ID_SIGNAL, signal_arrived}, {AM_ID_PING, ping_arrived}, {AM_ID_PONG, pong_arrived}};
    ucp_am_handler_param_t param;
    ucs_status_t status;

    for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++) {
        param.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                           UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
        param.id = handlers[i].id;
        param.cb = handlers[i].cb;
        param.arg = tp;
        param.flags = UCP_AM_FLAG_WHOLE_MSG;
        status = ucp_worker_set_am_recv_handler(tp->worker, &param);
        if (status != UCS_OK) {
            arb_error("ucp_worker_set_am_recv_handler failed: %s", ucs_status_string(status));
            return arb_ucx_status(status);
        }
    }
    return ARBOR_OK;
}

/* UCX 1.13 has no query for an endpoint's lanes; its printed configuration names each lane's
 * roles, "amo#N" for an atomic lane. None: atomics are emulated with messages. */
bool arb_ucx_am_signal_wanted(arb_tp_t *tp, ucp_ep_h ep)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f;
    bool emulated;

    (void)tp;
    if (!arb_ucx_am_signal_enabled || (f = open_memstream(&text, &len)) == NULL) return false;
    ucp_ep_print_info(ep, f);
    fclose(f);
    emulated = text != NULL && strstr(text, "lane[") != NULL && strstr(text, " amo#") == NULL;
    free(text);
    return emulated;
}

static void signal_sent(void *req, ucs_status_t status, void *user_data)
{
    if (status != UCS_OK)
        arb_debug("put_signal message completed with %s", ucs_status_string(status));
    arb_ucx_amo_ctx_put(user_data, status);
    ucp_request_free(req);
}

arbor_status_t arb_ucx_am_put_signal(arb_tp_t *tp, const void *src, size_t len, arb_tp_rkey_t *rkey,
                                     uint64_t off, arb_tp_rkey_t *sig_rkey, uint64_t sig_off,
                                     uint64_t sig_add, arb_tp_comp_t *comp)
{
    arb_ucx_peer_t *peer = &tp->peers[rkey->peer];
    ucp_request_param_t param;
    arb_ucx_amo_ctx_t *ctx;
    ucs_status_ptr_t req;

    if (sig_rkey->peer != rkey->peer) {
        arb_error("put_signal: data key of peer %d, signal key of peer %d", rkey->peer,
                  sig_rkey->peer);
        return ARBOR_ERR_INVALID_ARG;
    }
    if (peer->fencing) return ARB_ERR_AGAIN;
    if ((ctx = arb_ucx_amo_ctx_get(tp)) == NULL) return ARBOR_ERR_NO_MEMORY;
    ctx->am_hdr[HDR_DATA] = rkey->base + off;
    ctx->am_hdr[HDR_SIG] = sig_rkey->base + sig_off;
    ctx->am_hdr[HDR_ADD] = sig_add;
    ctx->am_hdr[HDR_ORIGIN] = (uint64_t)tp->rank;
    param.op_attr_mask =
        UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
    param.cb.send = signal_sent;
    param.user_data = ctx;
    param.flags = UCP_AM_SEND_FLAG_EAGER; /* handled in order: see the top of the file */
    req =
        ucp_am_send_nbx(rkey->ep, AM_ID_SIGNAL, ctx->am_hdr, sizeof(ctx->am_hdr), src, len, &param);
    if (req == NULL || UCS_PTR_IS_ERR(req)) {
        arb_ucx_amo_ctx_put(ctx, UCS_OK); /* done or refused: comp untouched */
        if (req == NULL) peer->am_dirty = true;
        return arb_ucx_posted(req, NULL, "put_signal message", rkey->peer);
    }
    /* In flight: signal_sent releases ctx (never dropped here, it holds the header). */
    ctx->comp = comp;
    if (comp != NULL) arb_tp_comp_begin(comp);
    peer->am_dirty = true;
    return ARBOR_OK;
}

/* Pings peer if put_signal messages went since the last ping; the pong ends the fence part. */
arbor_status_t arb_ucx_am_ping(arb_tp_t *tp, int peer)
{
    arb_ucx_peer_t *p = &tp->peers[peer];
    arbor_status_t status;

    if (!p->am_dirty || p->lost) return ARBOR_OK;
    status = send_rank(tp, peer, AM_ID_PING);
    if (status != ARBOR_OK) return status;
    p->am_dirty = false;
    p->pings++;
    p->fencing++;
    tp->pings_waiting++;
    return ARBOR_OK;
}

void arb_ucx_am_peer_lost(arb_tp_t *tp, int peer)
{
    arb_ucx_peer_t *p = &tp->peers[peer];

    p->lost = true;
    p->fencing -= p->pings;
    tp->pings_waiting -= p->pings;
    p->pings = 0;
}
