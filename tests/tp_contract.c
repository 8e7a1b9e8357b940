/*
 * Launched contract test of one transport backend (transports/transport.h), for any backend:
 * argv[1] or ARBOR_TRANSPORT names it ("ucx", "ofi"; ARBOR_OFI_PROVIDER picks the provider).
 * Bootstraps with PMIx directly; without PMIx it runs as one rank. Data-path checks never use a
 * PMIx fence: receivers spin on signal words in their segment while driving progress, so the
 * software-emulated paths (which need target progress) are exercised too. Every wait is bounded.
 * Exit 0: pass; 77: backend not built or not runnable here; 1: a check failed.
 */
#include "runtime/config.h"
#include "transports/transport.h"
#ifdef ARBOR_WITH_UCX
#include "transports/ucx/ucx.h" /* the put_signal path switch, and which peers use messages */
#endif

#include <pmix.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* WAIT_S: a wait fails after this long without progress (not in total: a loaded node may
 * starve the ranks for seconds at a time, and the bursts and segmented puts are many messages). */
#define SKIP         77
#define WAIT_S       60.0
#define MAX_RANKS    256
#define SEG_SIZE     (4u << 20)
#define AMO_ITERS    50
#define AMO_FF_ITERS 2000
#define RING_ITERS   1000
#define UB_SIZE      (64u << 10)

/* Segment layout (bytes). */
enum {
    OFF_AMO_ADD = 0,
    OFF_AMO_FADD = 8,
    OFF_AMO_SWAP = 16,
    OFF_AMO_CSWAP = 24,
    OFF_AMO_FF = 32, /* fire-and-forget adds from the left */
    OFF_SIG_PUT = 64,
    OFF_SIG_RING = 72,
    OFF_SIG_MR = 80,
    OFF_SIG_FLUSH = 88,
    OFF_SIG_MR_FLUSH = 96,
    OFF_SIG_BURST = 104, /* two words: from the left, from the right */
    OFF_BAR = 128,       /* 32 barrier rounds */
    OFF_SIG_SC = 384,    /* signal_completion: the signal, then two flags */
    OFF_FLAG_SC = 392,
    OFF_SIG_STREAM = 400, /* streams: the left neighbour's signal, then two atomic words */
    OFF_STREAM_FADD = 408,
    OFF_STREAM_SWAP = 416,
    OFF_SWAPRES = 512,       /* MAX_RANKS words at rank 0 */
    OFF_PP = 4096,           /* MAX_RANKS words: stores through peer_ptr */
    OFF_RING = 8192,         /* ring payload, up to 8 KiB */
    OFF_STREAM = 16384,      /* 8 KiB written through a stream */
    OFF_FLUSH = 32768,       /* 16 KiB */
    OFF_SC = 49152,          /* 8 KiB of signal_completion data */
    OFF_PUT = 65536,         /* put sizes, back to back */
    OFF_GET = 2u << 20,      /* GET_LEN bytes of pattern, source of gets */
    OFF_BURST = 3328u << 10, /* 2 x BURST_BYTES: landing areas from the left, from the right */
};
#define GET_LEN ((1u << 20) + 3 + 16) /* the largest get plus its skew */

static const size_t put_sizes[] = {0, 1, 7, 4096, (1u << 20) + 3};
#define NSIZES (sizeof(put_sizes) / sizeof(put_sizes[0]))

/* The burst: BURST_N put_signals each way, sizes cycling through burst_sizes. */
static const size_t burst_sizes[] = {8, 3000, 40000};
#define BURST_N     24
#define BURST_BYTES (BURST_N / 3 * (8 + 3000 + 40000))

static const arb_tp_ops_t *ops;
static arb_tp_t *tp;
static char *seg;
static int rank, size;
static bool have_pmix;
static pmix_proc_t me;
static const char *tpname = "?";

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void fail(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "tp_contract %s rank %d/%d: FAIL: ", tpname, rank, size);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    if (have_pmix) PMIx_Finalize(NULL, 0);
    exit(1);
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void poll_once(void);

/* Fails unless status is ARBOR_OK; ARB_ERR_AGAIN asks to progress and retry (the macro). */
static bool check(arbor_status_t status, const char *what, int line, double deadline)
{
    if (status == ARB_ERR_AGAIN && now_s() < deadline) {
        poll_once();
        return false;
    }
    if (status != ARBOR_OK) fail("line %d: %s returned %d", line, what, (int)status);
    return true;
}
#define CHECK(_call)                                                                               \
    do {                                                                                           \
        double _deadline = now_s() + WAIT_S;                                                       \
        while (!check((_call), #_call, __LINE__, _deadline)) continue;                             \
    } while (0)

static uint8_t pat(unsigned a, unsigned b, size_t i)
{
    return (uint8_t)(a * 131u + b * 31u + i * 7u + (i >> 8) * 13u + 1u);
}

static uint64_t *seg_word(size_t off)
{
    return (uint64_t *)(seg + off);
}

static void poll_once(void)
{
    if (ops->progress(tp) < 0) fail("progress returned an error");
    sched_yield();
}

/* Spins until the local segment word at off reaches target. */
static void wait_word(size_t off, uint64_t target, const char *what)
{
    double deadline = now_s() + WAIT_S;

    while (__atomic_load_n(seg_word(off), __ATOMIC_ACQUIRE) < target) {
        poll_once();
        if (now_s() > deadline)
            fail("%s: signal word at %zu is %llu after %.0f s, want %llu", what, off,
                 (unsigned long long)__atomic_load_n(seg_word(off), __ATOMIC_ACQUIRE), WAIT_S,
                 (unsigned long long)target);
    }
}

static void wait_comp(arb_tp_comp_t *comp, const char *what)
{
    double deadline = now_s() + WAIT_S;

    int64_t last = arb_tp_comp_pending(comp);

    while (arb_tp_comp_pending(comp) > 0) {
        poll_once();
        if (arb_tp_comp_pending(comp) != last) {
            last = arb_tp_comp_pending(comp);
            deadline = now_s() + WAIT_S;
        }
        if (now_s() > deadline)
            fail("%s: %lld ops still pending, none completed for %.0f s", what,
                 (long long)arb_tp_comp_pending(comp), WAIT_S);
    }
    if (arb_tp_comp_pending(comp) < 0)
        fail("%s: pending went negative (%lld)", what, (long long)arb_tp_comp_pending(comp));
    if (comp->status != ARBOR_OK) fail("%s: completed with status %d", what, (int)comp->status);
}

static arb_tp_rkey_t *seg_key(int peer)
{
    arb_tp_rkey_t *key = ops->seg_rkey(tp, peer);

    if (key == NULL) fail("seg_rkey(%d) returned NULL after connect", peer);
    return key;
}

/* Dissemination barrier over the transport: signals only, every wait drives progress. It returns
 * only once its own signals are complete: under manual progress (libfabric sockets, tcp) an op
 * may leave this rank only while it drives progress, and a rank that went on into a PMIx fence
 * with its last signal still queued would hold its peers in the barrier (the contract promises
 * completion through comp or flush, nothing more). */
static void tp_barrier(void)
{
    static uint64_t epoch;
    arb_tp_comp_t comp = {0, ARBOR_OK};
    int round = 0;

    epoch++;
    for (int dist = 1; dist < size; dist <<= 1, round++) {
        int peer = (rank + dist) % size;
        CHECK(ops->put_signal(tp, NULL, 0, seg_key(peer), 0, seg_key(peer),
                              OFF_BAR + 8u * (unsigned)round, 1, &comp));
        wait_word(OFF_BAR + 8u * (unsigned)round, epoch, "barrier");
    }
    wait_comp(&comp, "barrier signals");
}

/* All-gather of one byte string per rank through PMIx (out[i] malloc'd). */
static void exchange(const char *key, const void *data, size_t len, void **out, size_t *out_len)
{
    pmix_value_t val, *got;
    pmix_info_t info;
    pmix_proc_t proc;
    bool collect = true;

    if (!have_pmix) {
        out[0] = malloc(len);
        memcpy(out[0], data, len);
        out_len[0] = len;
        return;
    }
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = (char *)data;
    val.data.bo.size = len;
    if (PMIx_Put(PMIX_GLOBAL, key, &val) != PMIX_SUCCESS || PMIx_Commit() != PMIX_SUCCESS)
        fail("PMIx_Put/Commit of %s failed", key);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    if (PMIx_Fence(NULL, 0, &info, 1) != PMIX_SUCCESS) fail("PMIx_Fence for %s failed", key);
    PMIX_INFO_DESTRUCT(&info);
    for (int p = 0; p < size; p++) {
        PMIX_PROC_LOAD(&proc, me.nspace, (pmix_rank_t)p);
        if (PMIx_Get(&proc, key, NULL, 0, &got) != PMIX_SUCCESS || got->type != PMIX_BYTE_OBJECT)
            fail("PMIx_Get of %s from %d failed", key, p);
        out[p] = malloc(got->data.bo.size);
        memcpy(out[p], got->data.bo.bytes, got->data.bo.size);
        out_len[p] = got->data.bo.size;
        PMIX_VALUE_RELEASE(got);
    }
}

static void free_all(void **bufs)
{
    for (int p = 0; p < size; p++) free(bufs[p]);
}

static void bootstrap(void)
{
    pmix_value_t *val;
    pmix_proc_t wild;

    rank = 0;
    size = 1;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) return; /* not launched: one rank */
    have_pmix = true;
    rank = (int)me.rank;
    PMIX_PROC_LOAD(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val) != PMIX_SUCCESS)
        fail("PMIx_Get of the job size failed");
    size = (int)val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    if (size > MAX_RANKS) fail("%d ranks: this test handles at most %d", size, MAX_RANKS);
}

static void skip(const char *why)
{
    if (rank == 0) printf("tp_contract %s: skipped: %s\n", tpname, why);
    if (have_pmix) PMIx_Finalize(NULL, 0);
    exit(SKIP);
}

static void open_and_connect(arb_config_t *cfg)
{
    /* The launched tests run every rank on this host. */
    arb_tp_params_t params = {.rank = rank,
                              .size = size,
                              .segment_size = SEG_SIZE,
                              .nlocal = size,
                              .provider = cfg->ofi_provider,
                              .timeout_s = cfg->timeout_s,
                              .yield = cfg->poll_yield != ARB_YIELD_NEVER};
    void *blobs[MAX_RANKS];
    size_t lens[MAX_RANKS];
    const void *blob;
    size_t len;
    arbor_status_t status;

    status = ops->open(&params, &tp);
    if (status == ARBOR_ERR_UNSUPPORTED) skip("open returned ARBOR_ERR_UNSUPPORTED");
    check(status, "open", __LINE__, 0);
    seg = ops->seg_base(tp);
    if (seg == NULL) fail("seg_base returned NULL");
    for (size_t i = 0; i < SEG_SIZE; i += 4096)
        if (seg[i] != 0 || seg[SEG_SIZE - 1] != 0) fail("segment not zero-filled at %zu", i);
    /* Source of the get test, written before anyone connects. */
    for (size_t i = 0; i < GET_LEN; i++) seg[OFF_GET + i] = (char)pat((unsigned)rank, 1000, i);
    CHECK(ops->blob(tp, &blob, &len));
    exchange("arb.tp_contract.blob", blob, len, blobs, lens);
    CHECK(ops->connect(tp, (const void *const *)blobs, lens));
    free_all(blobs);
    if (ops->describe(tp) == NULL) fail("describe returned NULL");
}

static void verify(const char *what, const char *got, unsigned a, unsigned b, size_t skew,
                   size_t len)
{
    for (size_t i = 0; i < len; i++)
        if ((uint8_t)got[i] != pat(a, b, i + skew))
            fail("%s: byte %zu of %zu is 0x%02x, want 0x%02x", what, i, len, (uint8_t)got[i],
                 pat(a, b, i + skew));
}

static char *pattern_buf(size_t len, unsigned a, unsigned b)
{
    char *buf = malloc(len + 1);

    if (buf == NULL) fail("out of memory");
    for (size_t i = 0; i < len; i++) buf[i] = (char)pat(a, b, i);
    return buf;
}

/* Puts of every size to the right neighbour; odd ones by hand (put, fence, add). */
static void test_put(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    arb_tp_comp_t comp = {0, ARBOR_OK};
    char *bufs[NSIZES];
    size_t offs[NSIZES];

    for (size_t k = 0; k < NSIZES; k++) offs[k] = k == 0 ? OFF_PUT : offs[k - 1] + put_sizes[k - 1];
    for (size_t k = 0; k < NSIZES; k++) {
        bufs[k] = pattern_buf(put_sizes[k], (unsigned)rank, (unsigned)k);
        if (k % 2 == 0) {
            CHECK(ops->put_signal(tp, bufs[k], put_sizes[k], seg_key(right), offs[k],
                                  seg_key(right), OFF_SIG_PUT, 1, &comp));
        } else {
            CHECK(ops->put(tp, bufs[k], put_sizes[k], seg_key(right), offs[k], &comp));
            CHECK(ops->fence(tp, right));
            CHECK(ops->amo(tp, ARB_TP_AMO_ADD, seg_key(right), OFF_SIG_PUT, 1, 0, NULL, &comp));
        }
    }
    for (size_t k = 0; k < NSIZES; k++) {
        char what[64];
        snprintf(what, sizeof(what), "put of %zu bytes from rank %d", put_sizes[k], left);
        wait_word(OFF_SIG_PUT, k + 1, what);
        verify(what, seg + offs[k], (unsigned)left, (unsigned)k, 0, put_sizes[k]);
    }
    wait_comp(&comp, "puts");
    for (size_t k = 0; k < NSIZES; k++) free(bufs[k]);
}

/* Gets of every size from the left neighbour's pattern; the last one completed by flush. */
static void test_get(void)
{
    int left = (rank + size - 1) % size;
    arb_tp_comp_t comp = {0, ARBOR_OK};

    for (size_t k = 0; k < NSIZES; k++) {
        size_t len = put_sizes[k], skew = k * 5 % 11;
        char *dst = malloc(len + 1), what[64];
        bool last = k + 1 == NSIZES;

        snprintf(what, sizeof(what), "get of %zu bytes from rank %d", len, left);
        CHECK(ops->get(tp, dst, len, seg_key(left), OFF_GET + skew, last ? NULL : &comp));
        if (last)
            CHECK(ops->flush(tp));
        else
            wait_comp(&comp, what);
        verify(what, dst, (unsigned)left, 1000, skew, len);
        free(dst);
    }
}

static uint64_t amo_wait(arb_tp_amo_t op, uint64_t off, uint64_t operand, uint64_t compare)
{
    arb_tp_comp_t comp = {0, ARBOR_OK};
    uint64_t result = 0xdeadbeef;

    CHECK(ops->amo(tp, op, seg_key(0), off, operand, compare, &result, &comp));
    wait_comp(&comp, "atomic");
    return result;
}

/* All four atomics on words at rank 0 from every rank; rank 0 checks the totals. */
static void test_amo(void)
{
    uint64_t prev = 0, guess = 0, swapped, n = (uint64_t)size;
    arb_tp_comp_t comp = {0, ARBOR_OK};

    CHECK(ops->amo(tp, ARB_TP_AMO_ADD, seg_key(0), OFF_AMO_ADD, (uint64_t)rank + 1, 0, NULL, NULL));
    for (int i = 0; i < AMO_ITERS; i++) {
        uint64_t v = amo_wait(ARB_TP_AMO_FADD, OFF_AMO_FADD, 1, 0);
        if (v >= n * AMO_ITERS || (i > 0 && v <= prev))
            fail("fetch-add %d returned %llu after %llu", i, (unsigned long long)v,
                 (unsigned long long)prev);
        prev = v;
    }
    for (int done = 0; done < AMO_ITERS;) {
        uint64_t seen = amo_wait(ARB_TP_AMO_CSWAP, OFF_AMO_CSWAP, guess + 1, guess);
        if (seen == guess) done++;
        if (seen < guess || seen > n * AMO_ITERS)
            fail("compare-swap saw %llu", (unsigned long long)seen);
        guess = seen == guess ? guess + 1 : seen;
    }
    if (amo_wait(ARB_TP_AMO_CSWAP, OFF_AMO_CSWAP, 7, UINT64_MAX) == UINT64_MAX)
        fail("compare-swap against an impossible value matched");
    swapped = amo_wait(ARB_TP_AMO_SWAP, OFF_AMO_SWAP, (uint64_t)rank + 1, 0);
    CHECK(ops->put(tp, &swapped, 8, seg_key(0), OFF_SWAPRES + 8u * (unsigned)rank, &comp));
    wait_comp(&comp, "swap result put");
    CHECK(ops->flush(tp));
    tp_barrier();
    if (rank != 0) return;
    if (*seg_word(OFF_AMO_ADD) != n * (n + 1) / 2)
        fail("add: %llu, want %llu", (unsigned long long)*seg_word(OFF_AMO_ADD),
             (unsigned long long)(n * (n + 1) / 2));
    if (*seg_word(OFF_AMO_FADD) != n * AMO_ITERS)
        fail("fetch-add: %llu, want %llu", (unsigned long long)*seg_word(OFF_AMO_FADD),
             (unsigned long long)(n * AMO_ITERS));
    if (*seg_word(OFF_AMO_CSWAP) != n * AMO_ITERS)
        fail("compare-swap: %llu, want %llu", (unsigned long long)*seg_word(OFF_AMO_CSWAP),
             (unsigned long long)(n * AMO_ITERS));
    /* The swap chain: the old values plus the final one are 0..size, each once. */
    bool seen[MAX_RANKS + 1] = {false};
    for (int p = 0; p <= size; p++) {
        uint64_t v = p < size ? *seg_word(OFF_SWAPRES + 8u * (unsigned)p) : *seg_word(OFF_AMO_SWAP);
        if (v > n || seen[v])
            fail("swap chain: value %llu repeated or out of range", (unsigned long long)v);
        seen[v] = true;
    }
}

/* A token goes round the ring RING_ITERS times as put_signal; the data must be there. */
static void test_ring(void)
{
    static const size_t lens[] = {8, 200, 8192};
    int right = (rank + 1) % size;
    arb_tp_comp_t comp = {0, ARBOR_OK};
    char *buf = malloc(8192);

    for (unsigned it = 0; it <= RING_ITERS; it++) {
        size_t len = lens[it % 3];
        const char *src = seg + OFF_RING;
        char what[64];

        if (rank != 0 || it > 0) { /* receive token it (rank 0: token it - 1 coming back) */
            unsigned want = rank == 0 ? it - 1 : it;
            if (rank != 0 && it == RING_ITERS) break;
            snprintf(what, sizeof(what), "ring iteration %u", want);
            wait_word(OFF_SIG_RING, (uint64_t)want + 1, what);
            verify(what, seg + OFF_RING, want, 7, 0, lens[want % 3]);
        }
        if (it == RING_ITERS) break;
        if (rank == 0) { /* from a private buffer; the others forward from their segment */
            wait_comp(&comp, "ring put");
            for (size_t i = 0; i < len; i++) buf[i] = (char)pat(it, 7, i);
            src = buf;
        }
        CHECK(ops->put_signal(tp, src, len, seg_key(right), OFF_RING, seg_key(right), OFF_SIG_RING,
                              1, &comp));
    }
    wait_comp(&comp, "ring puts");
    free(buf);
}

/* Registered user memory (unaligned, malloc'd): put_signal into it, get from it. */
static void test_mem_reg(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    char *raw = calloc(1, UB_SIZE + 8), *ub = raw + 1, *dst, *src;
    void *packed, *keys[MAX_RANKS], *msg;
    size_t packed_len, lens[MAX_RANKS];
    arb_tp_rkey_t *rk_right, *rk_left;
    arb_tp_comp_t comp = {0, ARBOR_OK};
    arb_tp_mr_t *mr;
    uint64_t base;

    for (size_t i = UB_SIZE / 2; i < UB_SIZE; i++) ub[i] = (char)pat((unsigned)rank, 99, i);
    CHECK(ops->mem_reg(tp, ub, UB_SIZE, &mr, &packed, &packed_len));
    msg = malloc(8 + packed_len);
    base = (uint64_t)(uintptr_t)ub;
    memcpy(msg, &base, 8);
    memcpy((char *)msg + 8, packed, packed_len);
    CHECK(ops->flush(tp));
    tp_barrier(); /* nobody needs anyone's progress while PMIx fences */
    exchange("arb.tp_contract.mr", msg, 8 + packed_len, keys, lens);
    free(msg);
    memcpy(&base, keys[right], 8);
    CHECK(ops->rkey_unpack(tp, right, (char *)keys[right] + 8, lens[right] - 8, base, &rk_right));
    memcpy(&base, keys[left], 8);
    CHECK(ops->rkey_unpack(tp, left, (char *)keys[left] + 8, lens[left] - 8, base, &rk_left));
    free_all(keys);

    src = pattern_buf(5000, (unsigned)rank, 77);
    CHECK(ops->put_signal(tp, src, 5000, rk_right, 100, seg_key(right), OFF_SIG_MR, 1, &comp));
    wait_word(OFF_SIG_MR, 1, "put_signal into registered memory");
    verify("put into registered memory", ub + 100, (unsigned)left, 77, 0, 5000);
    dst = malloc(30000);
    CHECK(ops->get(tp, dst, 30000, rk_left, UB_SIZE / 2 + 5, &comp));
    wait_comp(&comp, "get from registered memory");
    verify("get from registered memory", dst, (unsigned)left, 99, UB_SIZE / 2 + 5, 30000);
    /* put, fence, signal by hand: the fence must order emulated and direct operations */
    free(src);
    src = pattern_buf(3000, (unsigned)rank, 78);
    CHECK(ops->put(tp, src, 3000, rk_right, 6000, &comp));
    CHECK(ops->fence(tp, right));
    CHECK(ops->amo(tp, ARB_TP_AMO_ADD, seg_key(right), OFF_SIG_MR, 1, 0, NULL, &comp));
    wait_word(OFF_SIG_MR, 2, "fenced signal after a put into registered memory");
    verify("fenced put into registered memory", ub + 6000, (unsigned)left, 78, 0, 3000);
    wait_comp(&comp, "fenced put into registered memory");
    /* fire-and-forget put_signal, flush, unfenced flag: flush covers the signal too */
    CHECK(ops->put_signal(tp, src, 3000, rk_right, 9000, seg_key(right), OFF_SIG_MR, 1, NULL));
    CHECK(ops->flush(tp));
    CHECK(ops->amo(tp, ARB_TP_AMO_ADD, seg_key(right), OFF_SIG_MR_FLUSH, 1, 0, NULL, NULL));
    wait_word(OFF_SIG_MR_FLUSH, 1, "flag after a flushed put_signal");
    if (__atomic_load_n(seg_word(OFF_SIG_MR), __ATOMIC_ACQUIRE) != 3)
        fail("flush did not complete a put_signal into registered memory (signal %llu, want 3)",
             (unsigned long long)__atomic_load_n(seg_word(OFF_SIG_MR), __ATOMIC_ACQUIRE));
    verify("flushed put_signal into registered memory", ub + 9000, (unsigned)left, 78, 0, 3000);
    CHECK(ops->flush(tp));
    tp_barrier(); /* the right neighbour's get from us is done */
    ops->rkey_release(tp, rk_right);
    ops->rkey_release(tp, rk_left);
    ops->mem_dereg(tp, mr);
    free(src);
    free(dst);
    free(raw);
}

/* Direct pointers: loads see the peer's data, stores reach the peer. */
static int test_peer_ptr(void)
{
    bool any = false;
    int mapped = 0;

    if (ops->peer_ptr(tp, rank) != seg) fail("peer_ptr(self) is not the segment base");
    for (int p = 0; p < size; p++) {
        char *ptr = ops->peer_ptr(tp, p);
        if (p == rank || ptr == NULL) continue;
        any = true;
        mapped++;
        verify("load through peer_ptr", ptr + OFF_GET, (unsigned)p, 1000, 0, 4096);
        __atomic_store_n((uint64_t *)(ptr + OFF_PP + 8u * (unsigned)rank),
                         1000u * (uint64_t)(rank + 1) + (uint64_t)p, __ATOMIC_RELEASE);
    }
    if (any != ((ops->caps(tp) & ARB_TP_CAP_DIRECT_MAP) != 0))
        fail("ARB_TP_CAP_DIRECT_MAP is %s but %d peers map",
             (ops->caps(tp) & ARB_TP_CAP_DIRECT_MAP) ? "set" : "clear", mapped);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    tp_barrier();
    for (int q = 0; q < size; q++) {
        uint64_t v = __atomic_load_n(seg_word(OFF_PP + 8u * (unsigned)q), __ATOMIC_ACQUIRE);
        uint64_t want = 1000u * (uint64_t)(q + 1) + (uint64_t)rank;
        if (q == rank) continue;
        if ((ops->peer_ptr(tp, q) != NULL && v != want) || (v != 0 && v != want))
            fail("store from rank %d through its peer_ptr: %llu, want %llu", q,
                 (unsigned long long)v, (unsigned long long)want);
    }
    return mapped;
}

static size_t burst_off(int k)
{
    size_t off = 0;

    for (int j = 0; j < k; j++) off += burst_sizes[j % 3];
    return off;
}

/* Checks the burst messages [from, to) that arrived from rank src into the area at base. */
static void burst_verify(const char *dir, int src, size_t base, int from, int to)
{
    for (int k = from; k < to; k++) {
        char what[96];
        snprintf(what, sizeof(what), "burst message %d from rank %d (%s), signal at %d", k, src,
                 dir, to);
        verify(what, seg + base + burst_off(k), (unsigned)src, 200u + (unsigned)k, 0,
               burst_sizes[k % 3]);
    }
}

/* Both neighbours at once, both ways, nothing waited for in between: put_signals of mixed sizes
 * cross on every connection, as a pipelined collective makes them (FI_FENCE on libfabric 1.17's
 * sockets provider deadlocks here). Whenever the signal word reads c, messages 0 .. c-1 must all
 * be in place: the core's executor counts a peer's chunks this way, so a signal may not overtake
 * the data of the put_signals before it either. */
static void test_burst(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    arb_tp_comp_t comp = {0, ARBOR_OK};
    char *bufs[BURST_N];
    int seen[2] = {0, 0};
    double deadline = now_s() + WAIT_S;

    for (int k = 0; k < BURST_N; k++) {
        size_t off = burst_off(k), len = burst_sizes[k % 3];
        bufs[k] = pattern_buf(len, (unsigned)rank, 200u + (unsigned)k);
        /* to the right lands in its "from the left" area, and the other way round */
        CHECK(ops->put_signal(tp, bufs[k], len, seg_key(right), OFF_BURST + off, seg_key(right),
                              OFF_SIG_BURST, 1, &comp));
        CHECK(ops->put_signal(tp, bufs[k], len, seg_key(left), OFF_BURST + BURST_BYTES + off,
                              seg_key(left), OFF_SIG_BURST + 8, 1, &comp));
    }
    while (seen[0] < BURST_N || seen[1] < BURST_N) {
        for (int d = 0; d < 2; d++) {
            int c =
                (int)__atomic_load_n(seg_word(OFF_SIG_BURST + 8u * (unsigned)d), __ATOMIC_ACQUIRE);
            if (c > BURST_N) fail("burst: signal word %d reads %d, want at most %d", d, c, BURST_N);
            burst_verify(d ? "from the right" : "from the left", d ? right : left,
                         OFF_BURST + (d ? BURST_BYTES : 0), seen[d], c);
            if (c != seen[d]) deadline = now_s() + WAIT_S;
            seen[d] = c;
        }
        poll_once();
        if (now_s() > deadline)
            fail("burst: %d and %d of %d signals, none new for %.0f s", seen[0], seen[1], BURST_N,
                 WAIT_S);
    }
    wait_comp(&comp, "burst");
    for (int k = 0; k < BURST_N; k++) free(bufs[k]);
}

/* Fire-and-forget puts, flush, then an unfenced signal: flush means complete at the target. */
/* A fence or a flush after a fire-and-forget put_signal orders it before a later plain atomic:
 * the target that sees the atomic sees the put_signal's data and signal. On UCX over TCP the
 * put_signal is one active message, which an endpoint flush alone does not cover (ucx_am.c). */
static void test_signal_completion(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    char *src = pattern_buf(8192, (unsigned)rank, 91);

    CHECK(ops->put_signal(tp, src, 4096, seg_key(right), OFF_SC, seg_key(right), OFF_SIG_SC, 1,
                          NULL));
    CHECK(ops->fence(tp, right));
    CHECK(ops->amo(tp, ARB_TP_AMO_ADD, seg_key(right), OFF_FLAG_SC, 1, 0, NULL, NULL));
    wait_word(OFF_FLAG_SC, 1, "flag after a fenced put_signal");
    /* the left neighbour may have gone on to its second put_signal already */
    if (__atomic_load_n(seg_word(OFF_SIG_SC), __ATOMIC_ACQUIRE) < 1)
        fail("fence did not order a put_signal before an atomic (signal %llu, want 1)",
             (unsigned long long)*seg_word(OFF_SIG_SC));
    verify("fenced put_signal", seg + OFF_SC, (unsigned)left, 91, 0, 4096);
    CHECK(ops->put_signal(tp, src + 4096, 4096, seg_key(right), OFF_SC + 4096, seg_key(right),
                          OFF_SIG_SC, 1, NULL));
    CHECK(ops->flush(tp));
    CHECK(ops->amo(tp, ARB_TP_AMO_ADD, seg_key(right), OFF_FLAG_SC, 1, 0, NULL, NULL));
    wait_word(OFF_FLAG_SC, 2, "flag after a flushed put_signal");
    if (__atomic_load_n(seg_word(OFF_SIG_SC), __ATOMIC_ACQUIRE) != 2)
        fail("flush did not complete a put_signal (signal %llu, want 2)",
             (unsigned long long)*seg_word(OFF_SIG_SC));
    verify("fenced and flushed put_signals", seg + OFF_SC, (unsigned)left, 91, 0, 8192);
    free(src);
}

/* Which put_signal path UCX took: TP_CONTRACT_UCX_SIGNAL=flush selects the old one (put, endpoint
 * flush, emulated atomic) before open; TP_CONTRACT_EXPECT_AM=1 / 0 fails unless every other peer
 * uses / none uses one active message per put_signal. */
static void ucx_signal_path(bool before_open)
{
#ifdef ARBOR_WITH_UCX
    const char *path = getenv("TP_CONTRACT_UCX_SIGNAL"), *expect = getenv("TP_CONTRACT_EXPECT_AM");
    int am = 0;

    if (strcmp(tpname, "ucx") != 0) return;
    if (before_open) {
        if (path != NULL && strcmp(path, "flush") == 0) arb_ucx_am_signal_enabled = false;
        return;
    }
    for (int p = 0; p < size; p++) am += tp->peers[p].am_signal;
    if (expect != NULL && atoi(expect) == 1 && am != size - 1)
        fail("%d of %d peers send put_signal as one message, want all", am, size - 1);
    if (expect != NULL && atoi(expect) == 0 && am != 0)
        fail("%d peers send put_signal as one message, want none", am);
    if (rank == 0) printf("ucx: %d of %d peers send put_signal as one message\n", am, size - 1);
#else
    (void)before_open;
#endif
}

static void test_flush(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    char *src = pattern_buf(16384, (unsigned)rank, 55);
    int fd = -1;

    for (int i = 0; i < 4; i++)
        CHECK(ops->put(tp, src + 4096 * i, 4096, seg_key(right), OFF_FLUSH + 4096u * (unsigned)i,
                       NULL));
    CHECK(ops->flush(tp));
    CHECK(ops->amo(tp, ARB_TP_AMO_ADD, seg_key(right), OFF_SIG_FLUSH, 1, 0, NULL, NULL));
    wait_word(OFF_SIG_FLUSH, 1, "signal after flush");
    verify("put completed by flush", seg + OFF_FLUSH, (unsigned)left, 55, 0, 16384);
    free(src);
    if (ops->caps(tp) & ARB_TP_CAP_WAIT_FD) {
        arbor_status_t status;
        CHECK(ops->wait_fd(tp, &fd));
        if (fd < 0) fail("wait_fd gave %d", fd);
        status = ops->arm(tp);
        if (status != ARBOR_OK && status != ARB_ERR_AGAIN) fail("arm returned %d", (int)status);
    }
}

/* Runs a flush of peers[0..n) (peers NULL: all) to completion, bounded by WAIT_S. */
static void flush_peers(const int *peers, int n, const char *what)
{
    double deadline = now_s() + WAIT_S;
    arb_tp_flush_t *f = NULL;
    arbor_status_t status;

    CHECK(ops->flush_start(tp, peers, n, &f));
    if (f == NULL) fail("%s: flush_start gave no flush", what);
    while ((status = ops->flush_test(tp, f)) == ARB_ERR_AGAIN) {
        sched_yield();
        if (now_s() > deadline) fail("%s: not complete after %.0f s", what, WAIT_S);
    }
    ops->flush_end(tp, f);
    if (status != ARBOR_OK) fail("%s: flush_test returned %d", what, (int)status);
}

/* The flush of some peers: fire-and-forget puts (and a put_signal, an atomic) to the right
 * neighbour, completed at the target by a flush of that neighbour alone, then a signal; the
 * right neighbour checks every byte. Also the empty set and every peer. */
static void test_flush_peers(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    char *src = pattern_buf(16384, (unsigned)rank, 57);
    uint64_t before = *seg_word(OFF_SIG_FLUSH); /* before the barrier lets the left one add */

    tp_barrier(); /* the right neighbour has checked what test_flush put there */
    flush_peers(&right, 0, "flush of no peer");
    for (int i = 0; i < 3; i++)
        CHECK(ops->put(tp, src + 4096 * i, 4096, seg_key(right), OFF_FLUSH + 4096u * (unsigned)i,
                       NULL));
    CHECK(ops->put_signal(tp, src + 4096 * 3, 4096, seg_key(right), OFF_FLUSH + 4096u * 3,
                          seg_key(right), OFF_SIG_MR, 0, NULL));
    CHECK(ops->amo(tp, ARB_TP_AMO_ADD, seg_key(right), OFF_AMO_ADD, 0, 0, NULL, NULL));
    flush_peers(&right, 1, "flush of the right neighbour");
    CHECK(ops->amo(tp, ARB_TP_AMO_ADD, seg_key(right), OFF_SIG_FLUSH, 1, 0, NULL, NULL));
    wait_word(OFF_SIG_FLUSH, before + 1, "signal after a flush of one peer");
    verify("put completed by a flush of its target", seg + OFF_FLUSH, (unsigned)left, 57, 0, 16384);
    flush_peers(NULL, 0, "flush of every peer");
    free(src);
}

/* Many fire-and-forget atomics (no comp) to the right neighbour, completed by a flush of it:
 * the total must be exact, and the backend must release what each one held (the UCX context of
 * one still in flight leaked before: the ASan build's LeakSanitizer checks it at exit). */
static void test_amo_fire_forget(void)
{
    int right = (rank + 1) % size;

    for (int i = 0; i < AMO_FF_ITERS; i++)
        CHECK(ops->amo(tp, ARB_TP_AMO_ADD, seg_key(right), OFF_AMO_FF, 1, 0, NULL, NULL));
    flush_peers(&right, 1, "flush after fire-and-forget atomics");
    tp_barrier();
    if (*seg_word(OFF_AMO_FF) != AMO_FF_ITERS)
        fail("fire-and-forget adds: %llu, want %d", (unsigned long long)*seg_word(OFF_AMO_FF),
             AMO_FF_ITERS);
}

/* ---- streams: another thread's operations beside the main thread's progress ---------------- */

#define STREAM_LEN 8192
static arb_tp_stream_t *strm;
static _Atomic int stream_done; /* 1: the thread finished; 2: it failed (message printed) */
static char stream_err[160];

/* Retries while the stream pushes back (driving it), bounded; false with stream_err set. */
static bool stream_ok(arbor_status_t status_first, arbor_status_t (*again)(void *), void *arg,
                      const char *what)
{
    double deadline = now_s() + WAIT_S;
    arbor_status_t status = status_first;

    while (status == ARB_ERR_AGAIN && now_s() < deadline) {
        ops->stream_progress(strm);
        status = again(arg);
    }
    if (status != ARBOR_OK)
        snprintf(stream_err, sizeof(stream_err), "%s returned %d", what, (int)status);
    return status == ARBOR_OK;
}

typedef struct {
    int kind; /* 0 put, 1 get, 2 fetch-add, 3 swap, 4 compare-and-swap, 5 fence, 6 flush */
    int peer;
    uint64_t off;
    void *buf;
    size_t len;
    uint64_t operand, compare, *result;
    arb_tp_comp_t *comp;
} stream_op_t;

static arbor_status_t stream_call(void *arg)
{
    stream_op_t *o = arg;
    switch (o->kind) {
    case 0:
        return ops->stream_put(strm, o->peer, o->off, o->buf, o->len, o->comp);
    case 1:
        return ops->stream_get(strm, o->peer, o->off, o->buf, o->len, o->comp);
    case 2:
        return ops->stream_amo(strm, o->peer, o->off, ARB_TP_AMO_FADD, o->operand, 0, o->result,
                               o->comp);
    case 3:
        return ops->stream_amo(strm, o->peer, o->off, ARB_TP_AMO_SWAP, o->operand, 0, o->result,
                               o->comp);
    case 4:
        return ops->stream_amo(strm, o->peer, o->off, ARB_TP_AMO_CSWAP, o->operand, o->compare,
                               o->result, o->comp);
    case 5:
        return ops->stream_fence(strm, o->peer);
    default:
        return ops->stream_flush(strm);
    }
}

static bool stream_do(stream_op_t o, const char *what)
{
    return stream_ok(stream_call(&o), stream_call, &o, what);
}

/* The stream thread: a put of STREAM_LEN bytes to the right neighbour, fenced, then read back
 * from there; a get of the left neighbour's pattern; fetch-add, swap and compare-and-swap on
 * the right neighbour's words; a flush. The main thread progresses tp meanwhile. */
static void *stream_thread(void *arg)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    char *src = arg, *back = malloc(STREAM_LEN), *got = malloc(4096);
    arb_tp_comp_t comp = {0, ARBOR_OK};
    uint64_t old = 1, swapped = 1, cas = 1;
    bool ok = back != NULL && got != NULL;

    ok = ok && stream_do((stream_op_t){0, right, OFF_STREAM, src, STREAM_LEN, 0, 0, NULL, &comp},
                         "stream_put");
    ok = ok && stream_do((stream_op_t){5, right, 0, NULL, 0, 0, 0, NULL, NULL}, "stream_fence");
    ok = ok && stream_do((stream_op_t){1, right, OFF_STREAM, back, STREAM_LEN, 0, 0, NULL, &comp},
                         "stream_get (after a fenced put)");
    ok = ok &&
         stream_do((stream_op_t){1, left, OFF_GET + 3, got, 4096, 0, 0, NULL, &comp}, "stream_get");
    ok = ok && stream_do((stream_op_t){2, right, OFF_STREAM_FADD, NULL, 0, 5, 0, &old, &comp},
                         "stream_amo FADD");
    ok = ok && stream_do((stream_op_t){3, right, OFF_STREAM_SWAP, NULL, 0, 77, 0, &swapped, &comp},
                         "stream_amo SWAP");
    ok = ok && stream_do((stream_op_t){5, right, 0, NULL, 0, 0, 0, NULL, NULL}, "stream_fence");
    ok = ok && stream_do((stream_op_t){4, right, OFF_STREAM_SWAP, NULL, 0, 99, 77, &cas, &comp},
                         "stream_amo CSWAP");
    ok = ok && stream_do((stream_op_t){6, 0, 0, NULL, 0, 0, 0, NULL, NULL}, "stream_flush");
    if (ok && (arb_tp_comp_pending(&comp) != 0 || comp.status != ARBOR_OK))
        snprintf(stream_err, sizeof(stream_err), "after the flush: %lld pending, status %d",
                 (long long)arb_tp_comp_pending(&comp), (int)comp.status),
            ok = false;
    for (size_t i = 0; ok && i < STREAM_LEN; i++)
        if (back[i] != src[i])
            snprintf(stream_err, sizeof(stream_err), "read back byte %zu: 0x%02x, want 0x%02x", i,
                     (uint8_t)back[i], (uint8_t)src[i]),
                ok = false;
    for (size_t i = 0; ok && i < 4096; i++)
        if ((uint8_t)got[i] != pat((unsigned)left, 1000, i + 3))
            snprintf(stream_err, sizeof(stream_err), "get byte %zu: 0x%02x", i, (uint8_t)got[i]),
                ok = false;
    if (ok && (old != 0 || swapped != 0 || cas != 77))
        snprintf(stream_err, sizeof(stream_err), "atomics fetched %llu %llu %llu, want 0 0 77",
                 (unsigned long long)old, (unsigned long long)swapped, (unsigned long long)cas),
            ok = false;
    free(back);
    free(got);
    atomic_store(&stream_done, ok ? 1 : 2);
    return NULL;
}

/* Streams: opened from tp, used by another thread without any lock while this thread drives
 * tp's progress (the target side: tcp;ofi_rxm connects there). The right neighbour checks what
 * landed once a signal through tp says the stream was flushed. */
static void test_stream(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    arbor_status_t status;
    pthread_t th;

    if (ops->stream_open == NULL) {
        if (rank == 0) printf("tp_contract %s: no streams\n", tpname);
        return;
    }
    status = ops->stream_open(tp, &strm);
    if (status == ARBOR_ERR_UNSUPPORTED) {
        if (rank == 0)
            printf("tp_contract %s (%s): streams not supported\n", tpname, ops->describe(tp));
        return;
    }
    if (status != ARBOR_OK) fail("stream_open returned %d", (int)status);
    char *src = pattern_buf(STREAM_LEN, (unsigned)rank, 71);
    tp_barrier(); /* every rank's stream is open, and its words at 0 */
    if (pthread_create(&th, NULL, stream_thread, src) != 0) fail("pthread_create failed");
    double deadline = now_s() + 3 * WAIT_S;
    while (atomic_load(&stream_done) == 0) {
        poll_once();
        if (now_s() > deadline) fail("the stream thread did not finish in %.0f s", 3 * WAIT_S);
    }
    pthread_join(th, NULL);
    if (atomic_load(&stream_done) != 1) fail("stream: %s", stream_err);
    CHECK(ops->amo(tp, ARB_TP_AMO_ADD, seg_key(right), OFF_SIG_STREAM, 1, 0, NULL, NULL));
    wait_word(OFF_SIG_STREAM, 1, "signal after the left neighbour's stream flush");
    verify("put through a stream", seg + OFF_STREAM, (unsigned)left, 71, 0, STREAM_LEN);
    if (*seg_word(OFF_STREAM_FADD) != 5 || *seg_word(OFF_STREAM_SWAP) != 99)
        fail("stream atomics left %llu and %llu, want 5 and 99",
             (unsigned long long)*seg_word(OFF_STREAM_FADD),
             (unsigned long long)*seg_word(OFF_STREAM_SWAP));
    tp_barrier(); /* no rank closes its stream while a peer's may still need it */
    ops->stream_close(tp, strm);
    strm = NULL;
    free(src);
}

int main(int argc, char **argv)
{
    arb_config_t cfg;
    const char *prov = getenv("ARBOR_OFI_PROVIDER");
    int mapped;

    setvbuf(stdout, NULL, _IONBF, 0);
    tpname = argc > 1 ? argv[1] : getenv("ARBOR_TRANSPORT");
    if (tpname == NULL || tpname[0] == '\0') tpname = "ucx";
    bootstrap();
    for (int i = 0; arb_tp_registry[i] != NULL; i++)
        if (strcmp(arb_tp_registry[i]->name, tpname) == 0) ops = arb_tp_registry[i];
    if (ops == NULL) skip("backend not built");

    memset(&cfg, 0, sizeof(cfg));
    cfg.log_level = ARB_LOG_WARN;
    snprintf(cfg.transport, sizeof(cfg.transport), "%s", tpname);
    if (prov != NULL) snprintf(cfg.ofi_provider, sizeof(cfg.ofi_provider), "%s", prov);
    cfg.segment_size = SEG_SIZE;
    cfg.timeout_s = WAIT_S;
    cfg.poll_yield = ARB_YIELD_ALWAYS;
    cfg.direct = true;

    ucx_signal_path(true);
    open_and_connect(&cfg);
    ucx_signal_path(false);
    test_put();
    test_get();
    test_amo();
    test_ring();
    test_burst();
    test_mem_reg();
    mapped = test_peer_ptr();
    test_flush();
    test_flush_peers();
    test_amo_fire_forget();
    test_signal_completion();
    test_stream();

    CHECK(ops->flush(tp));
    tp_barrier();
    if (have_pmix && PMIx_Fence(NULL, 0, NULL, 0) != PMIX_SUCCESS) fail("final PMIx_Fence failed");
    if (rank == 0)
        printf("tp_contract %s (%s): %d ranks passed, rank 0 maps %d peers\n", tpname,
               ops->describe(tp), size, mapped);
    ops->close(tp);
    if (have_pmix) PMIx_Finalize(NULL, 0);
    return 0;
}
