/*
 * UCX backend lifetime: context, worker and segment (open), the connection blob, endpoints and
 * segment keys of every peer (connect), and teardown (close). The ops table lives here too.
 */
#include "transports/ucx/ucx.h"

#include "util/log.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define BLOB_MAGIC 0x41524255u /* "ARBU" */

/* Blob layout: this header, then the worker address, then the packed segment key. */
typedef struct {
    uint32_t magic;
    uint32_t addr_len;
    uint32_t rkey_len;
    uint32_t reserved;
    uint64_t seg_base;
} blob_hdr_t;

static arbor_status_t ctx_init(arb_tp_t *tp, int size)
{
    ucp_params_t params = {0};
    ucp_config_t *config;
    ucs_status_t status;

    status = ucp_config_read(NULL, NULL, &config);
    if (status != UCS_OK) {
        arb_warn("ucp_config_read failed: %s", ucs_status_string(status));
        return ARBOR_ERR_UNSUPPORTED;
    }
    params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS |
                        UCP_PARAM_FIELD_MT_WORKERS_SHARED;
    params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO64 | UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
    params.estimated_num_eps = (size_t)size;
    /* Streams (ucx_stream.c) are workers of this context used by other threads at the same
     * time as the main worker: the context's shared parts (registration cache) need its lock. */
    params.mt_workers_shared = 1;
    status = ucp_init(&params, config, &tp->context);
    tp->wakeup = status == UCS_OK;
    if (!tp->wakeup) { /* no wakeup support: polling only */
        params.features &= ~(uint64_t)UCP_FEATURE_WAKEUP;
        status = ucp_init(&params, config, &tp->context);
    }
    ucp_config_release(config);
    if (status != UCS_OK) {
        arb_warn("ucp_init failed: %s", ucs_status_string(status));
        return ARBOR_ERR_UNSUPPORTED;
    }
    return ARBOR_OK;
}

static arbor_status_t worker_init(arb_tp_t *tp)
{
    ucp_worker_params_t params = {0};
    ucs_status_t status;

    params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    /* arbor serialises every call with its own lock when a progress thread runs */
    params.thread_mode = UCS_THREAD_MODE_SERIALIZED;
    status = ucp_worker_create(tp->context, &params, &tp->worker);
    if (status != UCS_OK) {
        arb_warn("ucp_worker_create failed: %s", ucs_status_string(status));
        return ARBOR_ERR_UNSUPPORTED;
    }
    if (tp->wakeup && ucp_worker_get_efd(tp->worker, &tp->efd) == UCS_OK)
        tp->caps |= ARB_TP_CAP_WAIT_FD;
    else
        tp->efd = -1;
    return ARBOR_OK;
}

/* Clears every page of [base, base + len) that is not already zero. Reading a page that was
 * never written maps the kernel's zero page and commits nothing, so a large fresh segment is
 * not committed at init, while heap memory (with old contents, or an allocator's fill pattern)
 * ends up zero as the contract says. */
static void zero_dirty_pages(uint8_t *base, size_t len)
{
    const size_t page = 4096;
    for (size_t off = 0; off < len; off += page) {
        size_t n = len - off < page ? len - off : page;
        const uint64_t *w = (const uint64_t *)(base + off);
        size_t words = n / sizeof(uint64_t), i = 0;
        while (i < words && w[i] == 0) i++;
        bool dirty = i < words;
        for (size_t b = words * sizeof(uint64_t); !dirty && b < n; b++) dirty = base[off + b] != 0;
        if (dirty) memset(base + off, 0, n);
    }
}

/* True when the mapping holding addr is shared memory that UCX just created (a SysV segment or
 * a /dev/shm file): fresh pages, zero, that a read would commit on tmpfs. */
static bool fresh_shared_mapping(const void *addr)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    bool fresh = false;
    uintptr_t a = (uintptr_t)addr;
    while (f && fgets(line, sizeof(line), f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx", &lo, &hi) != 2 || a < lo || a >= hi) continue;
        fresh = strstr(line, "/dev/shm/") != NULL || strstr(line, "SYSV") != NULL;
        break;
    }
    if (f) fclose(f);
    return fresh;
}

/* Where UCX allocates the segment: a free address that is a multiple of the smallest power of
 * two >= len (at most 1 GiB), as a hint, so that symmetric offsets give addresses aligned alike
 * on every rank, as the core's own segment (src/util/map.c) and OFI's are (OpenSHMEM's
 * shmem_align needs it). NULL (UCX chooses) where no such range is free; UCX may also ignore
 * the hint, which costs only the alignment. */
static void *aligned_hint(size_t len)
{
    size_t align = 1;
    while (align < len && align < ((size_t)1 << 30)) align <<= 1;
    if (len > SIZE_MAX - align) return NULL;
    void *res =
        mmap(NULL, len + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (res == MAP_FAILED) return NULL;
    munmap(res, len + align); /* the range is free again; UCX maps there next */
    return (void *)(((uintptr_t)res + align - 1) & ~(uintptr_t)(align - 1));
}

static arbor_status_t seg_init(arb_tp_t *tp, void *given, size_t len)
{
    ucp_mem_map_params_t params = {0};
    ucp_mem_attr_t attr = {0};
    ucs_status_t status;

    params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                        UCP_MEM_MAP_PARAM_FIELD_FLAGS;
    params.address = given ? given : aligned_hint(len);
    params.length = len;
    params.flags = given ? 0 : UCP_MEM_MAP_ALLOCATE;
    /* The core's memory (transport.h) is registered, not allocated: UCX serves RMA on it over
     * shared memory with cross-memory attach or emulation through the target's progress, and
     * ucp_rkey_ptr cannot map it, so peer_ptr maps nobody and the core's own mapping serves
     * the node; its atomics are no longer CPU atomics on the peer's memory. */
    tp->seg_given = given != NULL;
    if (given) tp->caps &= ~(uint32_t)ARB_TP_CAP_MAPPED_CPU_AMO;
    status = ucp_mem_map(tp->context, &params, &tp->seg_memh);
    if (status != UCS_OK) {
        arb_error("segment of %zu bytes: ucp_mem_map failed: %s", len, ucs_status_string(status));
        return ARBOR_ERR_NO_MEMORY;
    }
    attr.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS | UCP_MEM_ATTR_FIELD_LENGTH;
    status = ucp_mem_query(tp->seg_memh, &attr);
    if (status != UCS_OK) {
        arb_error("segment: ucp_mem_query failed: %s", ucs_status_string(status));
        ucp_mem_unmap(tp->context, tp->seg_memh);
        tp->seg_memh = NULL;
        return ARBOR_ERR_NO_MEMORY;
    }
    tp->seg = attr.address;
    tp->seg_size = len;
    if (given) return ARBOR_OK; /* zero-filled by the core */
    /* UCX allocates with shmget / shm_open+ftruncate / mmap (fresh zero pages) before its last
     * resort, the heap (UCX_TLS=tcp,self: malloc'd memory is not zero, and under ASan it holds
     * a fill pattern that looked like posted signals). Writing the whole segment would commit
     * every page at init (4 GiB took 12 s), so only pages that are not zero are cleared. */
    if (!fresh_shared_mapping(tp->seg)) zero_dirty_pages(tp->seg, len);
    return ARBOR_OK;
}

static arbor_status_t blob_init(arb_tp_t *tp)
{
    ucp_address_t *addr;
    size_t addr_len, rkey_len;
    void *rkey;
    blob_hdr_t hdr = {BLOB_MAGIC, 0, 0, 0, (uint64_t)(uintptr_t)tp->seg};
    arbor_status_t ret = ARBOR_OK;
    ucs_status_t status;

    status = ucp_worker_get_address(tp->worker, &addr, &addr_len);
    if (status != UCS_OK) {
        arb_error("ucp_worker_get_address failed: %s", ucs_status_string(status));
        return ARBOR_ERR_TRANSPORT;
    }
    status = ucp_rkey_pack(tp->context, tp->seg_memh, &rkey, &rkey_len);
    if (status != UCS_OK) {
        arb_error("segment: ucp_rkey_pack failed: %s", ucs_status_string(status));
        ret = ARBOR_ERR_TRANSPORT;
        goto out_addr;
    }
    hdr.addr_len = (uint32_t)addr_len;
    hdr.rkey_len = (uint32_t)rkey_len;
    tp->blob_len = sizeof(hdr) + addr_len + rkey_len;
    tp->blob = malloc(tp->blob_len);
    if (tp->blob == NULL) {
        arb_error("blob of %zu bytes: out of memory", tp->blob_len);
        ret = ARBOR_ERR_NO_MEMORY;
        goto out_rkey;
    }
    memcpy(tp->blob, &hdr, sizeof(hdr));
    memcpy((char *)tp->blob + sizeof(hdr), addr, addr_len);
    memcpy((char *)tp->blob + sizeof(hdr) + addr_len, rkey, rkey_len);
out_rkey:
    ucp_rkey_buffer_release(rkey);
out_addr:
    ucp_worker_release_address(tp->worker, addr);
    return ret;
}

static void ucx_close(arb_tp_t *tp);

static arbor_status_t ucx_open(const arb_tp_params_t *params, arb_tp_t **tp_p)
{
    arb_tp_t *tp;
    arbor_status_t status;

    if ((status = arb_tp_params_check(params)) != ARBOR_OK) return status;
    tp = calloc(1, sizeof(*tp));
    if (tp == NULL) return ARBOR_ERR_NO_MEMORY;
    tp->rank = params->rank;
    tp->size = params->size;
    tp->peer_lost = params->peer_lost;
    if (params->local != NULL && params->nlocal > 0 && params->nlocal < params->size &&
        (tp->off_node = malloc((size_t)params->size * sizeof(bool))) != NULL) {
        for (int r = 0; r < params->size; r++) tp->off_node[r] = true;
        for (int i = 0; i < params->nlocal; i++)
            if (params->local[i] >= 0 && params->local[i] < params->size)
                tp->off_node[params->local[i]] = false;
    }
    tp->timeout_s = params->timeout_s;
    tp->yield = params->yield;
    tp->caps |= ARB_TP_CAP_MAPPED_CPU_AMO; /* shared-memory transports do CPU atomics */
    tp->efd = -1;

    status = ctx_init(tp, params->size);
    if (status == ARBOR_OK) status = worker_init(tp);
    if (status == ARBOR_OK) status = arb_ucx_am_init(tp);
    if (status == ARBOR_OK) status = seg_init(tp, params->segment_base, params->segment_size);
    if (status == ARBOR_OK) status = blob_init(tp);
    if (status != ARBOR_OK) {
        ucx_close(tp);
        return status;
    }
    *tp_p = tp;
    return ARBOR_OK;
}

static arbor_status_t ucx_blob(arb_tp_t *tp, const void **blob_p, size_t *len_p)
{
    *blob_p = tp->blob;
    *len_p = tp->blob_len;
    return ARBOR_OK;
}

/* UCX's thread or progress: the endpoint to a peer off this node failed (connection reset,
 * keepalive timeout): its process is gone or unreachable. Only reported; the endpoint is
 * released with the worker at close. */
static void ep_error(void *arg, ucp_ep_h ep, ucs_status_t status)
{
    arb_tp_t *tp = arg;
    for (int peer = 0; tp->eps != NULL && peer < tp->size; peer++) {
        if (tp->eps[peer] != ep) continue;
        arb_warn("endpoint to peer %d failed: %s: peer reported lost", peer,
                 ucs_status_string(status));
        if (tp->peers != NULL) arb_ucx_am_peer_lost(tp, peer);
        if (tp->peer_lost != NULL) tp->peer_lost(peer);
        return;
    }
}

/* Endpoint, segment key and direct pointer of one peer. */
static arbor_status_t peer_connect(arb_tp_t *tp, int peer, const void *blob, size_t len)
{
    ucp_ep_params_t params = {0};
    arb_tp_rkey_t *key = &tp->seg_rkeys[peer];
    blob_hdr_t hdr;
    const char *p = blob;
    ucs_status_t status;

    if (blob == NULL || len < sizeof(hdr)) goto err_blob;
    memcpy(&hdr, blob, sizeof(hdr));
    if (hdr.magic != BLOB_MAGIC || len != sizeof(hdr) + (size_t)hdr.addr_len + hdr.rkey_len)
        goto err_blob;
    params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    params.address = (const ucp_address_t *)(p + sizeof(hdr));
    /* Peer error handling only off this node: it makes put_signal 25-50 times slower over
     * shared memory (see ucx_close), and a peer on this node is watched by the bootstrap's
     * PID probe anyway. Off-node peers go over a network transport, where it costs little. */
    if (tp->off_node != NULL && tp->off_node[peer]) {
        params.field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
        params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
        params.err_handler.cb = ep_error;
        params.err_handler.arg = tp;
    }
    status = ucp_ep_create(tp->worker, &params, &tp->eps[peer]);
    if (status != UCS_OK) {
        tp->eps[peer] = NULL;
        arb_error("peer %d: ucp_ep_create failed: %s", peer, ucs_status_string(status));
        return arb_ucx_status(status);
    }
    status = ucp_ep_rkey_unpack(tp->eps[peer], p + sizeof(hdr) + hdr.addr_len, &key->rkey);
    if (status != UCS_OK) {
        key->rkey = NULL;
        arb_error("peer %d: segment key: ucp_ep_rkey_unpack failed: %s", peer,
                  ucs_status_string(status));
        return arb_ucx_status(status);
    }
    key->ep = tp->eps[peer];
    key->base = hdr.seg_base;
    key->peer = peer;
    /* Registered (the core's) memory: RMA to it may be emulated (ucx_rma.c orders that). */
    key->emulated = tp->seg_given;
    if (peer == tp->rank) {
        tp->peers[peer].ptr = tp->seg;
    } else if (tp->seg_given) {
        tp->peers[peer].ptr = NULL;
    } else if (ucp_rkey_ptr(key->rkey, hdr.seg_base, &tp->peers[peer].ptr) != UCS_OK) {
        tp->peers[peer].ptr = NULL;
    } else if (tp->peers[peer].ptr != NULL) {
        tp->caps |= ARB_TP_CAP_DIRECT_MAP;
    }
    tp->peers[peer].am_signal =
        peer != tp->rank && tp->peers[peer].ptr == NULL && arb_ucx_am_signal_wanted(tp, key->ep);
    /* Streams connect their own endpoints to the same worker address, with the same key. */
    if ((tp->peers[peer].wire = malloc((size_t)hdr.addr_len + hdr.rkey_len)) == NULL)
        return ARBOR_ERR_NO_MEMORY;
    memcpy(tp->peers[peer].wire, p + sizeof(hdr), (size_t)hdr.addr_len + hdr.rkey_len);
    tp->peers[peer].wire_rkey = (const char *)tp->peers[peer].wire + hdr.addr_len;
    return ARBOR_OK;
err_blob:
    arb_error("peer %d: malformed connection blob (%zu bytes)", peer, len);
    return ARBOR_ERR_TRANSPORT;
}

static arbor_status_t ucx_connect(arb_tp_t *tp, const void *const *blobs, const size_t *lens)
{
    arbor_status_t status;

    if (tp->eps != NULL) {
        arb_error("connect called twice");
        return ARBOR_ERR_INVALID_ARG;
    }
    tp->eps = calloc((size_t)tp->size, sizeof(*tp->eps));
    tp->seg_rkeys = calloc((size_t)tp->size, sizeof(*tp->seg_rkeys));
    tp->peers = calloc((size_t)tp->size, sizeof(*tp->peers));
    if (tp->eps == NULL || tp->seg_rkeys == NULL || tp->peers == NULL) {
        arb_error("connect: out of memory for %d peers", tp->size);
        return ARBOR_ERR_NO_MEMORY; /* close frees the partial state */
    }
    for (int peer = 0; peer < tp->size; peer++) {
        status = peer_connect(tp, peer, blobs[peer], lens[peer]);
        if (status != ARBOR_OK) return status;
    }
    return ARBOR_OK;
}

/* Endpoints are not closed one by one: ucp_ep_close_nbx in flush mode fails (and UCX prints
 * errors) over tcp once the peer has closed its side, and force mode needs
 * UCP_ERR_HANDLING_MODE_PEER, which makes put_signal 25-50 times slower on shared memory.
 * ucp_worker_destroy releases the endpoints without talking to peers. Keys go first: UCX wants
 * them destroyed before their endpoint. */
static void rkeys_destroy(arb_tp_t *tp)
{
    for (int peer = 0; peer < tp->size; peer++)
        if (tp->seg_rkeys[peer].rkey != NULL) ucp_rkey_destroy(tp->seg_rkeys[peer].rkey);
}

static void ucx_close(arb_tp_t *tp)
{
    if (tp == NULL) return;
    if (tp->user_rkeys != 0) arb_warn("close: %ld remote keys were not released", tp->user_rkeys);
    if (tp->mrs != NULL) arb_warn("close: registered memory was not released");
    /* No pings here: a peer may have closed its worker already (the core's own flush, before
     * its closing barrier, is the one that needs remote completion). What is still in flight
     * went to a peer that is gone or out of step (an operation UCX emulates at a target that
     * died never completes): wait for it briefly, not a whole timeout. */
    if (tp->timeout_s <= 0 || tp->timeout_s > 2) tp->timeout_s = 2;
    if (tp->worker != NULL && tp->eps != NULL) arb_ucx_flush_sends(tp);
    if (tp->seg_rkeys != NULL) rkeys_destroy(tp);
    free(tp->eps);
    free(tp->seg_rkeys);
    for (int peer = 0; tp->peers != NULL && peer < tp->size; peer++) free(tp->peers[peer].wire);
    free(tp->peers);
    free(tp->off_node);
    free(tp->blob);
    arb_ucx_amo_ctx_free_all(tp);
    free(tp->spare_flush);
    if (tp->seg_memh != NULL) ucp_mem_unmap(tp->context, tp->seg_memh);
    if (tp->worker != NULL) ucp_worker_destroy(tp->worker);
    if (tp->context != NULL) ucp_cleanup(tp->context);
    free(tp);
}

static void *ucx_seg_base(arb_tp_t *tp)
{
    return tp->seg;
}

static arb_tp_rkey_t *ucx_seg_rkey(arb_tp_t *tp, int peer)
{
    if (tp->seg_rkeys == NULL || peer < 0 || peer >= tp->size) return NULL;
    return &tp->seg_rkeys[peer];
}

static void *ucx_peer_ptr(arb_tp_t *tp, int peer)
{
    if (peer == tp->rank) return tp->seg;
    if (tp->peers == NULL || peer < 0 || peer >= tp->size) return NULL;
    return tp->peers[peer].ptr;
}

static uint32_t ucx_caps(arb_tp_t *tp)
{
    return tp->caps;
}

static const char *ucx_describe(arb_tp_t *tp)
{
    (void)tp;
    return "ucx";
}

/* UCX moves node-local data through shared memory (its sm transports) and crosses hosts over
 * its network transports: the mapped-memory and network defaults are its own figures, and it
 * has no provider collectives. */
static void ucx_hints(const char *described, arb_tp_hints_t *out)
{
    (void)described;
    if (out) *out = (arb_tp_hints_t){0};
}

const arb_tp_ops_t arb_ucx_ops = {
    .name = "ucx",
    .open = ucx_open,
    .close = ucx_close,
    .blob = ucx_blob,
    .connect = ucx_connect,
    .seg_base = ucx_seg_base,
    .seg_rkey = ucx_seg_rkey,
    .peer_ptr = ucx_peer_ptr,
    .mem_reg = arb_ucx_mem_reg,
    .mem_dereg = arb_ucx_mem_dereg,
    .rkey_unpack = arb_ucx_rkey_unpack,
    .rkey_release = arb_ucx_rkey_release,
    .put = arb_ucx_put,
    .get = arb_ucx_get,
    .amo = arb_ucx_amo,
    .put_signal = arb_ucx_put_signal,
    .fence = arb_ucx_fence,
    .flush = arb_ucx_flush,
    .flush_start = arb_ucx_flush_start,
    .flush_test = arb_ucx_flush_test,
    .flush_end = arb_ucx_flush_end,
    .progress = arb_ucx_progress,
    .wait_fd = arb_ucx_wait_fd,
    .arm = arb_ucx_arm,
    .caps = ucx_caps,
    .describe = ucx_describe,
    .hints = ucx_hints,
    .stream_open = arb_ucx_stream_open,
    .stream_close = arb_ucx_stream_close,
    .stream_put = arb_ucx_stream_put,
    .stream_get = arb_ucx_stream_get,
    .stream_amo = arb_ucx_stream_amo,
    .stream_fence = arb_ucx_stream_fence,
    .stream_flush = arb_ucx_stream_flush,
    .stream_progress = arb_ucx_stream_progress,
};
