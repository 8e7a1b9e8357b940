/*
 * libfabric backend lifetime: fabric, domain, AV, CQ and endpoint (open), the segment, the
 * connection blob (endpoint name + segment base and key), the AV entries and segment keys of
 * every peer (connect), and teardown in reverse order (close). The ops table lives here too.
 */
#include "transports/ofi/ofi.h"

#include "util/log.h"
#include "util/map.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#define BLOB_MAGIC    0x4152424fu /* "ARBO" */
#define PROV_NAME_MAX 32

/* Blob layout: this header, then the endpoint name. */
typedef struct {
    uint32_t magic;
    uint32_t name_len;
    uint64_t seg_base;
    uint64_t seg_key;
    char prov[PROV_NAME_MAX]; /* every rank must run the same provider */
} blob_hdr_t;

/* The 64-bit integer atomics the contract needs; float / double sums only decide a cap. */
static arbor_status_t atomics_check(arb_tp_t *tp)
{
    static const struct {
        enum fi_op op;
        uint64_t flags;
        const char *name;
    } need[] = {{FI_SUM, 0, "add"},
                {FI_SUM, FI_FETCH_ATOMIC, "fetch-add"},
                {FI_ATOMIC_WRITE, FI_FETCH_ATOMIC, "swap"},
                {FI_CSWAP, FI_COMPARE_ATOMIC, "compare-swap"}};
    struct fi_atomic_attr attr;

    for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
        int rc = fi_query_atomic(tp->domain, FI_UINT64, need[i].op, &attr, need[i].flags);
        if (rc != 0 || attr.count < 1) {
            arb_error("libfabric provider %s has no 64-bit %s atomic (%s)",
                      tp->info->fabric_attr->prov_name, need[i].name,
                      rc != 0 ? fi_strerror(-rc) : "count 0");
            return ARBOR_ERR_UNSUPPORTED;
        }
    }
    if (fi_query_atomic(tp->domain, FI_DOUBLE, FI_SUM, &attr, 0) == 0 && attr.count >= 1 &&
        fi_query_atomic(tp->domain, FI_FLOAT, FI_SUM, &attr, 0) == 0 && attr.count >= 1)
        tp->caps |= ARB_TP_CAP_FLOAT_ATOMICS;
    return ARBOR_OK;
}

static void modes_read(arb_tp_t *tp)
{
    const struct fi_info *info = tp->info;
    uint64_t mr_mode = (uint64_t)info->domain_attr->mr_mode;

    tp->mr_virt = (mr_mode & FI_MR_VIRT_ADDR) != 0;
    tp->mr_prov = (mr_mode & FI_MR_PROV_KEY) != 0;
    tp->mr_ep = (mr_mode & FI_MR_ENDPOINT) != 0;
    tp->mr_local = (mr_mode & FI_MR_LOCAL) != 0;
    /* Remote CQ data orders the signal after its data (the target's completion follows the
     * write), and write-after-write order puts it after the earlier writes too. FI_FENCE would
     * do without the target's help, but sockets, the only provider with it in 1.17, deadlocks:
     * a fenced operation takes the connection before it waits, so an earlier write still
     * sending on that connection never finishes (found with two ranks sending both ways). */
    tp->cq_signal = info->domain_attr->cq_data_size >= sizeof(uint64_t) &&
                    (info->tx_attr->msg_order & FI_ORDER_RMA_WAW) != 0;
#ifdef ARB_OFI_TEST_NO_CQ_DATA /* test builds: delivery-complete-then-signal everywhere */
    tp->cq_signal = false;
#endif
    if (tp->cq_signal) tp->caps |= ARB_TP_CAP_REMOTE_CQ_DATA;
    tp->max_msg = info->ep_attr->max_msg_size;
    tp->inject_size = info->tx_attr->inject_size;
#ifdef ARB_OFI_TEST_MR_LOCAL /* test builds: the FI_MR_LOCAL paths on providers without it */
    tp->mr_local = true;
#endif
#ifdef ARB_OFI_TEST_MAX_MSG /* test builds: split transfers on providers with huge maxima */
    if (tp->max_msg > ARB_OFI_TEST_MAX_MSG) tp->max_msg = ARB_OFI_TEST_MAX_MSG;
#endif
    if (tp->max_msg == 0) tp->max_msg = 1;
    tp->next_key = 1;
    snprintf(tp->describe, sizeof(tp->describe), "ofi:%s", info->fabric_attr->prov_name);
    arb_debug("%s: domain %s, mr_mode 0x%llx, put_signal by %s, max message %zu, inject %zu, "
              "progress %d/%d",
              tp->describe, info->domain_attr->name, (unsigned long long)mr_mode,
              tp->cq_signal ? "remote CQ data" : "delivery complete, then atomic", tp->max_msg,
              tp->inject_size, (int)info->domain_attr->control_progress,
              (int)info->domain_attr->data_progress);
}

/* The CQ, with a wait descriptor where the provider has one. */
static arbor_status_t cq_open(arb_tp_t *tp)
{
    struct fi_cq_attr attr = {0};
    int rc;

    attr.format = FI_CQ_FORMAT_DATA; /* flags and data of remote-CQ-data signals */
    /* Our completions (at most one per context) plus peers' signals not read yet: each peer
     * keeps few of those in flight to us (the core's credits bound them). */
    attr.size = 4 * ARB_OFI_NCTX;
    attr.wait_obj = FI_WAIT_FD;
    rc = fi_cq_open(tp->domain, &attr, &tp->cq, NULL);
    if (rc == 0 && fi_control(&tp->cq->fid, FI_GETWAIT, &tp->wait_fd) == 0 && tp->wait_fd >= 0) {
        tp->caps |= ARB_TP_CAP_WAIT_FD;
        return ARBOR_OK;
    }
    tp->wait_fd = -1;
    if (rc == 0) fi_close(&tp->cq->fid);
    attr.wait_obj = FI_WAIT_NONE;
    rc = fi_cq_open(tp->domain, &attr, &tp->cq, NULL);
    if (rc != 0) {
        tp->cq = NULL;
        arb_error("fi_cq_open: %s", fi_strerror(-rc));
        return ARBOR_ERR_TRANSPORT;
    }
    return ARBOR_OK;
}

/* The shm provider names its region after the endpoint's source address, by default the pid.
 * A region left in /dev/shm by a killed process then collides with whichever later process
 * gets that pid back (pid_max is 32768 here, so a long test run wraps), and fi_enable fails
 * with EBUSY because the region's recorded owner, now us, is alive. A name with a clock
 * nonce cannot be reused. */
void arb_ofi_unique_shm_name(struct fi_info *info)
{
    static unsigned serial; /* streams open several endpoints in one nanosecond's reach */
    struct timespec ts;
    char name[96];

    if (strcmp(info->fabric_attr->prov_name, "shm") != 0 || info->addr_format != FI_ADDR_STR)
        return;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    snprintf(name, sizeof(name), "fi_shm://arbor-%d-%llx-%x", (int)getpid(),
             (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec,
             __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED));
    char *copy = strdup(name);
    if (!copy) return; /* keep the provider's default name */
    free(info->src_addr);
    info->src_addr = copy;
    info->src_addrlen = strlen(copy) + 1;
}

static arbor_status_t objects_open(arb_tp_t *tp)
{
    struct fi_av_attr av_attr = {0};
    arbor_status_t status;
    const char *what;
    int rc;

    what = "fi_fabric";
    rc = fi_fabric(tp->info->fabric_attr, &tp->fabric, NULL);
    if (rc != 0) goto err;
    what = "fi_domain";
    rc = fi_domain(tp->fabric, tp->info, &tp->domain, NULL);
    if (rc != 0) goto err;
    modes_read(tp);
    status = atomics_check(tp);
    if (status != ARBOR_OK) return status;
    what = "fi_av_open";
    av_attr.type = FI_AV_TABLE;
    av_attr.count = (size_t)tp->size;
    rc = fi_av_open(tp->domain, &av_attr, &tp->av, NULL);
    if (rc != 0) goto err;
    status = cq_open(tp);
    if (status != ARBOR_OK) return status;
    what = "fi_endpoint";
    arb_ofi_unique_shm_name(tp->info);
    rc = fi_endpoint(tp->domain, tp->info, &tp->ep, NULL);
    if (rc != 0) goto err;
    what = "fi_ep_bind (AV)";
    rc = fi_ep_bind(tp->ep, &tp->av->fid, 0);
    if (rc != 0) goto err;
    what = "fi_ep_bind (CQ)";
    rc = fi_ep_bind(tp->ep, &tp->cq->fid, FI_TRANSMIT | FI_RECV);
    if (rc != 0) goto err;
    status = arb_ofi_coll_open(tp);
    if (status != ARBOR_OK) return status;
    what = "fi_enable";
    rc = fi_enable(tp->ep);
    if (rc != 0) goto err;
    return ARBOR_OK;
err:
    arb_error("%s (provider %s): %s", what, tp->info->fabric_attr->prov_name, fi_strerror(-rc));
    return ARBOR_ERR_TRANSPORT;
}

static arbor_status_t seg_init(arb_tp_t *tp, void *given, size_t len)
{
    long page = sysconf(_SC_PAGESIZE);
    void *seg = NULL;

    if (page <= 0) page = 4096;
    len = (len + (size_t)page - 1) / (size_t)page * (size_t)page;
    if (given) { /* the core's node-shared memory (transport.h): register it only */
        tp->seg = given;
        tp->seg_size = len;
        tp->seg_given = true;
        return arb_ofi_reg(tp, given, len, FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE,
                           &tp->seg_mr);
    }
    /* Anonymous pages are zero and committed only when touched, so a large segment costs
     * nothing at init (posix_memalign + memset committed all of it). */
    /* at an address aligned like the core's own segment (util/map.h): symmetric offsets then
     * give addresses aligned alike on every rank, which OpenSHMEM's shmem_align needs */
    seg = arb_map_aligned(len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
    if (seg == MAP_FAILED) {
        arb_error("segment of %zu bytes: mmap failed: %s", len, strerror(errno));
        return ARBOR_ERR_NO_MEMORY;
    }
    tp->seg = seg;
    tp->seg_size = len;
    return arb_ofi_reg(tp, seg, len, FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE,
                       &tp->seg_mr);
}

static arbor_status_t blob_init(arb_tp_t *tp)
{
    blob_hdr_t hdr = {0};
    size_t name_len = 0;
    int rc;

    rc = fi_getname(&tp->ep->fid, NULL, &name_len);
    if (rc != -FI_ETOOSMALL || name_len == 0) {
        arb_error("fi_getname: %s", fi_strerror(-rc));
        return ARBOR_ERR_TRANSPORT;
    }
    tp->blob_len = sizeof(hdr) + name_len;
    tp->blob = calloc(1, tp->blob_len);
    if (tp->blob == NULL) return ARBOR_ERR_NO_MEMORY;
    rc = fi_getname(&tp->ep->fid, (char *)tp->blob + sizeof(hdr), &name_len);
    if (rc != 0) {
        arb_error("fi_getname: %s", fi_strerror(-rc));
        return ARBOR_ERR_TRANSPORT;
    }
    hdr.magic = BLOB_MAGIC;
    hdr.name_len = (uint32_t)name_len;
    hdr.seg_base = tp->seg_mr.packed[1];
    hdr.seg_key = tp->seg_mr.packed[0];
    snprintf(hdr.prov, sizeof(hdr.prov), "%s", tp->info->fabric_attr->prov_name);
    memcpy(tp->blob, &hdr, sizeof(hdr));
    return ARBOR_OK;
}

static void ofi_close(arb_tp_t *tp);

static arbor_status_t ofi_open(const arb_tp_params_t *params, arb_tp_t **tp_p)
{
    arb_tp_t *tp;
    arbor_status_t status;

    if ((status = arb_tp_params_check(params)) != ARBOR_OK) return status;
    tp = calloc(1, sizeof(*tp));
    if (tp == NULL) return ARBOR_ERR_NO_MEMORY;
    tp->rank = params->rank;
    tp->size = params->size;
    /* The bootstrap knows the node's ranks (PMIx local peers): every rank local means one node. */
    tp->all_local = params->size <= 1 || params->nlocal == params->size;
    tp->peer_lost = params->peer_lost;
    tp->timeout_s = params->timeout_s;
    tp->yield = params->yield;
    tp->rc.limit = params->reg_cache_bytes;
    tp->wait_fd = -1;
    tp->offload_want = params->offload_want;
    tp->active_head = -1;
    tp->async_status = ARBOR_OK;

    status = arb_ofi_select(tp, params->provider ? params->provider : "", &tp->info);
    if (status == ARBOR_OK) status = objects_open(tp);
    if (status == ARBOR_OK) status = arb_ofi_scratch_init(tp);
    if (status == ARBOR_OK) status = seg_init(tp, params->segment_base, params->segment_size);
    if (status == ARBOR_OK) status = arb_ofi_trig_open(tp);
    if (status == ARBOR_OK) status = blob_init(tp);
    if (status != ARBOR_OK) {
        ofi_close(tp);
        return status;
    }
    *tp_p = tp;
    return ARBOR_OK;
}

static arbor_status_t ofi_blob(arb_tp_t *tp, const void **blob_p, size_t *len_p)
{
    *blob_p = tp->blob;
    *len_p = tp->blob_len;
    return ARBOR_OK;
}

static arbor_status_t peer_connect(arb_tp_t *tp, int peer, const void *blob, size_t len)
{
    blob_hdr_t hdr;
    uint64_t packed[2];
    int rc;

    if (blob == NULL || len < sizeof(hdr)) goto err_blob;
    memcpy(&hdr, blob, sizeof(hdr));
    if (hdr.magic != BLOB_MAGIC || len != sizeof(hdr) + hdr.name_len) goto err_blob;
    hdr.prov[PROV_NAME_MAX - 1] = '\0';
    if (strncmp(hdr.prov, tp->info->fabric_attr->prov_name, PROV_NAME_MAX - 1) != 0) {
        arb_error("peer %d runs libfabric provider %s, this rank %s", peer, hdr.prov,
                  tp->info->fabric_attr->prov_name);
        return ARBOR_ERR_TRANSPORT;
    }
    rc = fi_av_insert(tp->av, (const char *)blob + sizeof(hdr), 1, &tp->peers[peer].addr, 0, NULL);
    if (rc != 1) {
        arb_error("peer %d: fi_av_insert: %s", peer, rc < 0 ? fi_strerror(-rc) : "not inserted");
        return ARBOR_ERR_TRANSPORT;
    }
    if ((tp->peers[peer].name = malloc(hdr.name_len)) == NULL) return ARBOR_ERR_NO_MEMORY;
    memcpy(tp->peers[peer].name, (const char *)blob + sizeof(hdr), hdr.name_len);
    packed[0] = hdr.seg_key;
    packed[1] = hdr.seg_base;
    arb_ofi_key_set(tp, &tp->seg_rkeys[peer], peer, packed, hdr.seg_base);
    tp->peers[peer].next_active = -1;
    return ARBOR_OK;
err_blob:
    arb_error("peer %d: malformed connection blob (%zu bytes)", peer, len);
    return ARBOR_ERR_TRANSPORT;
}

static arbor_status_t ofi_connect(arb_tp_t *tp, const void *const *blobs, const size_t *lens)
{
    arbor_status_t status;

    if (tp->peers != NULL) {
        arb_error("connect called twice");
        return ARBOR_ERR_INVALID_ARG;
    }
    tp->peers = calloc((size_t)tp->size, sizeof(*tp->peers));
    tp->seg_rkeys = calloc((size_t)tp->size, sizeof(*tp->seg_rkeys));
    if (tp->peers == NULL || tp->seg_rkeys == NULL) {
        arb_error("connect: out of memory for %d peers", tp->size);
        free(tp->peers);
        tp->peers = NULL;
        return ARBOR_ERR_NO_MEMORY;
    }
    for (int peer = 0; peer < tp->size; peer++) {
        status = peer_connect(tp, peer, blobs[peer], lens[peer]);
        if (status != ARBOR_OK) {
            for (int r = 0; r <= peer; r++) free(tp->peers[r].name);
            free(tp->peers);
            tp->peers = NULL;
            return status;
        }
    }
    return ARBOR_OK;
}

static void fid_close(struct fid *fid, const char *what)
{
    int rc;

    if (fid == NULL) return;
    rc = fi_close(fid);
    if (rc != 0) arb_warn("closing the %s: %s", what, fi_strerror(-rc));
}

static void ofi_close(arb_tp_t *tp)
{
    if (tp == NULL) return;
    if (tp->user_rkeys != 0) arb_warn("close: %ld remote keys were not released", tp->user_rkeys);
    /* Finalize flushed already; what is still in flight here went to a peer that is gone or
     * out of step (finalize after a failure): wait for it briefly, not a whole timeout. */
    if (tp->timeout_s <= 0 || tp->timeout_s > 2) tp->timeout_s = 2;
    if (tp->ep != NULL && tp->peers != NULL && arb_ofi_flush(tp) != ARBOR_OK)
        arb_warn("close: flush failed; closing anyway");
    if (tp->mrs != NULL) arb_warn("close: memory registrations were not released");
    while (tp->mrs != NULL) arb_ofi_mem_dereg(tp, tp->mrs);
    arb_ofi_rc_fini(tp);
    arb_ofi_unreg(&tp->seg_mr);
    arb_ofi_trig_close(tp);
    arb_ofi_scratch_fini(tp);
    fid_close(tp->ep ? &tp->ep->fid : NULL, "endpoint");
    arb_ofi_coll_close(tp);
    fid_close(tp->av ? &tp->av->fid : NULL, "address vector");
    fid_close(tp->cq ? &tp->cq->fid : NULL, "completion queue");
    fid_close(tp->domain ? &tp->domain->fid : NULL, "domain");
    fid_close(tp->fabric ? &tp->fabric->fid : NULL, "fabric");
    if (tp->info != NULL) fi_freeinfo(tp->info);
    arb_ofi_req_free_all(tp);
    free(tp->spare_flush);
    if (tp->seg && !tp->seg_given) munmap(tp->seg, tp->seg_size);
    free(tp->blob);
    for (int peer = 0; tp->peers != NULL && peer < tp->size; peer++) free(tp->peers[peer].name);
    free(tp->peers);
    free(tp->seg_rkeys);
    free(tp);
}

static void *ofi_seg_base(arb_tp_t *tp)
{
    return tp->seg;
}

static arb_tp_rkey_t *ofi_seg_rkey(arb_tp_t *tp, int peer)
{
    if (tp->peers == NULL || peer < 0 || peer >= tp->size) return NULL;
    return &tp->seg_rkeys[peer];
}

/* libfabric maps no peer's memory into ours: only our own segment. The core maps its node
 * peers' segments itself (runtime/segment.h). */
static void *ofi_peer_ptr(arb_tp_t *tp, int peer)
{
    return peer == tp->rank ? tp->seg : NULL;
}

/* libfabric's shm provider keeps its region in /dev/shm under the endpoint's name (ours:
 * arb_ofi_unique_shm_name) until the endpoint closes, so a killed rank's region stayed there for
 * good. Peers map a region when they insert its address into their AV (connect), so once every rank
 * has connected nobody opens it by name again, and the name can go (the mappings stay). */
static void ofi_all_connected(arb_tp_t *tp)
{
    static const char prefix[] = "fi_shm://";
    const char *name = (const char *)tp->blob + sizeof(blob_hdr_t);
    const blob_hdr_t *hdr = tp->blob;
    char path[256];

    if (tp->blob == NULL || strcmp(tp->info->fabric_attr->prov_name, "shm") != 0 ||
        hdr->name_len < sizeof(prefix) || strncmp(name, prefix, sizeof(prefix) - 1) != 0)
        return;
    snprintf(path, sizeof(path), "/%.*s", (int)(hdr->name_len - (sizeof(prefix) - 1)),
             name + sizeof(prefix) - 1);
    if (shm_unlink(path) != 0 && errno != ENOENT)
        arb_debug("removing the shm provider's name %s: %s", path, strerror(errno));
}

static uint32_t ofi_caps(arb_tp_t *tp)
{
    return tp->caps;
}

static const char *ofi_describe(arb_tp_t *tp)
{
    return tp->describe;
}

/* The offload hooks: provider collectives (ofi_coll.c) and triggered writes (ofi_trigger.c). */
const arb_tp_offload_ops_t arb_ofi_offload_ops = {
    .hwcoll_query = arb_ofi_hwcoll_query,
    .group_join = arb_ofi_group_join,
    .group_test = arb_ofi_group_test,
    .group_free = arb_ofi_group_free,
    .hwcoll_post = arb_ofi_hwcoll_post,
    .trig_region = arb_ofi_trig_region,
    .trig_count = arb_ofi_trig_count,
    .trig_post = arb_ofi_trig_post,
};

const arb_tp_ops_t arb_ofi_ops = {
    .name = "ofi",
    .open = ofi_open,
    .close = ofi_close,
    .blob = ofi_blob,
    .connect = ofi_connect,
    .seg_base = ofi_seg_base,
    .seg_rkey = ofi_seg_rkey,
    .peer_ptr = ofi_peer_ptr,
    .mem_reg = arb_ofi_mem_reg,
    .mem_dereg = arb_ofi_mem_dereg,
    .rkey_unpack = arb_ofi_rkey_unpack,
    .rkey_release = arb_ofi_rkey_release,
    .put = arb_ofi_put,
    .get = arb_ofi_get,
    .amo = arb_ofi_amo,
    .put_signal = arb_ofi_put_signal,
    .fence = arb_ofi_fence,
    .flush = arb_ofi_flush,
    .flush_start = arb_ofi_flush_start,
    .flush_test = arb_ofi_flush_test,
    .flush_end = arb_ofi_flush_end,
    .progress = arb_ofi_progress,
    .wait_fd = arb_ofi_wait_fd,
    .arm = arb_ofi_arm,
    .all_connected = ofi_all_connected,
    .caps = ofi_caps,
    .describe = ofi_describe,
    .hints = arb_ofi_hints,
    .offload = &arb_ofi_offload_ops,
    .stream_open = arb_ofi_stream_open,
    .stream_close = arb_ofi_stream_close,
    .stream_put = arb_ofi_stream_put,
    .stream_get = arb_ofi_stream_get,
    .stream_amo = arb_ofi_stream_amo,
    .stream_fence = arb_ofi_stream_fence,
    .stream_flush = arb_ofi_stream_flush,
    .stream_progress = arb_ofi_stream_progress,
};
