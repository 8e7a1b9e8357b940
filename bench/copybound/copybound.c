/*
 * The best a two-copy pipeline through shared landing slots can do on this machine, against one
 * memcpy of the same bytes (docs/PERFORMANCE.md, "The two-copy bound"). No arbor code: two
 * processes (fork) share a POSIX shared-memory object holding `depth` slots of `chunk` bytes and
 * two counters on their own cache lines. The writer copies chunk k of its private source into
 * slot k % depth once the reader has drained chunk k - depth (the `consumed` counter, an acquire
 * load), then publishes it (`posted`, a release store); the reader waits for `posted`, copies
 * the slot out into its private destination and returns the slot (`consumed`, a release store):
 * the landing-slot protocol of docs/PROTOCOL.md with nothing around it. One iteration is one
 * message: the writer notes the clock when it starts, the reader when its last chunk is out
 * (CLOCK_MONOTONIC is one clock for both processes); the reader starts the next iteration.
 * Writer stores: plain memcpy, or streaming (non-temporal) stores as runtime/peer_copy.c does.
 * Also the writer's own time in its copies (us per KiB: what arb_peer_copy_pick compares).
 * Hot: the same source and destination every iteration (a benchmark loop, arbor-bench's case);
 * cold: rotating through 64 MiB pools, larger than the 32 MiB L3. The memcpy reference runs in
 * the writer, interleaved with the pipeline runs in every round, on the same buffers.
 * usage: arbor-copybound [--bytes N] [--iters N] [--rounds N] [--chunks 8K,16K,..] [--depths 2,4]
 *                        [--cold] [--no-pin]
 * Linux, x86-64 for the streaming variant; run by hand.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

enum { LINE = 64, MAX_ITERS = 5000, MAX_CFG = 64, POOL = 64 << 20 };

typedef struct {
    _Alignas(LINE) uint64_t posted;   /* writer: chunks published, over all iterations */
    _Alignas(LINE) uint64_t consumed; /* reader: chunks drained */
    _Alignas(LINE) uint64_t go;       /* reader: iteration the writer may start (+1) */
    _Alignas(LINE) double t0;         /* writer's clock at the start of the iteration */
    uint64_t quit;
    double lat[MAX_ITERS]; /* reader: end - t0, us */
} ctl_t;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static inline void relax(void)
{
#if defined(__x86_64__)
    _mm_pause();
#endif
}

static void wait_at_least(const uint64_t *w, uint64_t v)
{
    while (__atomic_load_n(w, __ATOMIC_ACQUIRE) < v) relax();
}

static void copy_stream(uint8_t *dst, const uint8_t *src, size_t len)
{
#if defined(__x86_64__)
    size_t head = (LINE - ((uintptr_t)dst & (LINE - 1))) & (LINE - 1);
    if (head > len) head = len;
    memcpy(dst, src, head);
    dst += head, src += head, len -= head;
    size_t lines = len & ~(size_t)(LINE - 1);
    for (size_t i = 0; i < lines; i += LINE) {
        __m128i a = _mm_loadu_si128((const __m128i *)(src + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(src + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(src + i + 32));
        __m128i d = _mm_loadu_si128((const __m128i *)(src + i + 48));
        _mm_stream_si128((__m128i *)(dst + i), a);
        _mm_stream_si128((__m128i *)(dst + i + 16), b);
        _mm_stream_si128((__m128i *)(dst + i + 32), c);
        _mm_stream_si128((__m128i *)(dst + i + 48), d);
    }
    memcpy(dst + lines, src + lines, len - lines);
    _mm_sfence();
#else
    memcpy(dst, src, len);
#endif
}

typedef struct {
    size_t chunk;
    int depth, stream;
} cfg_t;

static size_t bytes = 1 << 20;
static int iters = 200, rounds = 3, cold = 0, pin = 1;
static cfg_t cfgs[MAX_CFG];
static int ncfg;

static void pin_to(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (pin && sched_setaffinity(0, sizeof set, &set) != 0) perror("sched_setaffinity");
}

/* The buffer of iteration i: the same one when hot, the next one of the pool when cold. */
static uint8_t *buf_of(uint8_t *pool, int i)
{
    size_t n = cold ? POOL / bytes : 1;
    return pool + (size_t)(i % (int)n) * bytes;
}

/* The writer's own time in its copies, us per KiB, median over the iterations of the last run
 * (what runtime/peer_copy.c's arb_peer_copy_pick sees when it chooses between plain and streaming
 * stores). */
static double writer_us_per_kib;
static double copy_us[MAX_ITERS];
static double median(double *v, int n);

static void writer(ctl_t *c, uint8_t *slots, uint8_t *pool, const cfg_t *cf, uint64_t *ticket,
                   uint64_t *iter)
{
    uint64_t nchunks = (bytes + cf->chunk - 1) / cf->chunk;
    for (int i = 0; i < iters; i++) {
        wait_at_least(&c->go, ++*iter);
        double in_copy = 0;
        c->t0 = now_us(); /* published by the release store of posted below */
        const uint8_t *src = buf_of(pool, i);
        for (uint64_t k = 0; k < nchunks; k++) {
            uint64_t t = *ticket + k;
            if (t >= (uint64_t)cf->depth) wait_at_least(&c->consumed, t - cf->depth + 1);
            size_t off = k * cf->chunk, len = bytes - off < cf->chunk ? bytes - off : cf->chunk;
            uint8_t *slot = slots + (t % (uint64_t)cf->depth) * cf->chunk;
            double t0 = now_us();
            if (cf->stream)
                copy_stream(slot, src + off, len);
            else
                memcpy(slot, src + off, len);
            in_copy += now_us() - t0;
            __atomic_store_n(&c->posted, t + 1, __ATOMIC_RELEASE);
        }
        *ticket += nchunks;
        copy_us[i] = in_copy;
    }
    writer_us_per_kib = median(copy_us, iters) / ((double)bytes / 1024.0);
}

static void reader(ctl_t *c, const uint8_t *slots, uint8_t *pool, const cfg_t *cf, uint64_t *ticket,
                   uint64_t *iter)
{
    uint64_t nchunks = (bytes + cf->chunk - 1) / cf->chunk;
    for (int i = 0; i < iters; i++) {
        __atomic_store_n(&c->go, ++*iter, __ATOMIC_RELEASE);
        uint8_t *dst = buf_of(pool, i);
        for (uint64_t k = 0; k < nchunks; k++) {
            uint64_t t = *ticket + k;
            wait_at_least(&c->posted, t + 1);
            size_t off = k * cf->chunk, len = bytes - off < cf->chunk ? bytes - off : cf->chunk;
            memcpy(dst + off, slots + (t % (uint64_t)cf->depth) * cf->chunk, len);
            __atomic_store_n(&c->consumed, t + 1, __ATOMIC_RELEASE);
        }
        c->lat[i] = now_us() - c->t0;
        *ticket += nchunks;
    }
    /* Every byte: the source pattern of iteration 0 must have landed (the first buffer). */
    for (size_t b = 0; b < bytes; b++)
        if (pool[b] != (uint8_t)(b * 7 + 3)) {
            fprintf(stderr, "copybound: byte %zu wrong (chunk %zu depth %d)\n", b, cf->chunk,
                    cf->depth);
            exit(1);
        }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static size_t parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (*end == 'K' || *end == 'k') v *= 1024;
    if (*end == 'M' || *end == 'm') v *= 1024 * 1024;
    return (size_t)v;
}

/* One memcpy of `bytes` per iteration in this process, median of `iters` (us). */
static double memcpy_median(uint8_t *src_pool, uint8_t *dst_pool)
{
    static double t[MAX_ITERS];
    for (int i = 0; i < iters; i++) {
        uint8_t *d = buf_of(dst_pool, i + 1); /* not the reader's buffer of iteration 0 */
        const uint8_t *s = buf_of(src_pool, i);
        double t0 = now_us();
        memcpy(d, s, bytes);
        __asm__ volatile("" ::: "memory");
        t[i] = now_us() - t0;
    }
    return median(t, iters);
}

int main(int argc, char **argv)
{
    const char *chunks = "8K,16K,32K,64K,128K,256K", *depths = "2,4,8";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bytes") && i + 1 < argc)
            bytes = parse_size(argv[++i]);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--chunks") && i + 1 < argc)
            chunks = argv[++i];
        else if (!strcmp(argv[i], "--depths") && i + 1 < argc)
            depths = argv[++i];
        else if (!strcmp(argv[i], "--cold"))
            cold = 1;
        else if (!strcmp(argv[i], "--no-pin"))
            pin = 0;
        else {
            fprintf(stderr,
                    "usage: %s [--bytes N] [--iters N] [--rounds N] [--chunks 8K,..] "
                    "[--depths 2,4,..] [--cold] [--no-pin]\n",
                    argv[0]);
            return 2;
        }
    }
    if (iters < 1 || iters > MAX_ITERS || rounds < 1 || bytes < 1 || bytes > POOL) {
        fprintf(stderr, "copybound: iters 1..%d, rounds >= 1, bytes 1..%d\n", MAX_ITERS, POOL);
        return 2;
    }
    size_t maxchunk = 0, maxdepth = 0;
    for (const char *c = chunks; *c; c = strchr(c, ',') ? strchr(c, ',') + 1 : "") {
        for (const char *d = depths; *d; d = strchr(d, ',') ? strchr(d, ',') + 1 : "") {
            for (int s = 0; s < 2 && ncfg < MAX_CFG; s++) {
                cfg_t cf = {parse_size(c), atoi(d), s};
                if (cf.chunk < LINE || cf.depth < 1) {
                    fprintf(stderr, "copybound: bad chunk or depth\n");
                    return 2;
                }
                if (cf.chunk > maxchunk) maxchunk = cf.chunk;
                if ((size_t)cf.depth > maxdepth) maxdepth = (size_t)cf.depth;
                cfgs[ncfg++] = cf;
            }
        }
    }

    char name[64];
    snprintf(name, sizeof name, "/arbor-copybound-%d", (int)getpid());
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        perror("shm_open");
        return 1;
    }
    size_t shm_bytes = sizeof(ctl_t) + LINE + maxchunk * maxdepth;
    if (ftruncate(fd, (off_t)shm_bytes) != 0) {
        perror("ftruncate");
        return 1;
    }
    uint8_t *shm = mmap(NULL, shm_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    shm_unlink(name);
    if (shm == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    ctl_t *c = (ctl_t *)shm;
    uint8_t *slots = shm + ((sizeof(ctl_t) + LINE - 1) & ~(size_t)(LINE - 1));
    size_t pool_bytes = cold ? POOL : 2 * bytes;
    uint8_t *pool = aligned_alloc(4096, pool_bytes); /* private to each process after fork */
    if (!pool) return 1;
    for (size_t b = 0; b < pool_bytes; b++) pool[b] = (uint8_t)(b * 7 + 3);

    static double med[MAX_CFG][16], mc[16], wcopy[MAX_CFG][16];
    int rd[2], wr[2]; /* per-configuration handshake: parent (writer) <-> child (reader) */
    if (pipe(rd) || pipe(wr)) return 1;
    pid_t pid = fork();
    if (pid < 0) return 1;
    uint64_t ticket = 0, iter = 0;
    if (pid == 0) {
        pin_to(1);
        memset(pool, 0, pool_bytes);
        int k;
        while (read(wr[0], &k, sizeof k) == sizeof k && k >= 0) {
            reader(c, slots, pool, &cfgs[k], &ticket, &iter);
            memset(pool, 0, bytes);
            if (write(rd[1], &k, sizeof k) != sizeof k) return 1;
        }
        return 0;
    }
    pin_to(0);
    uint8_t *dst_pool = aligned_alloc(4096, pool_bytes);
    if (!dst_pool) return 1;
    memset(dst_pool, 0, pool_bytes);
    if (rounds > 16) rounds = 16;
    for (int r = 0; r < rounds; r++) {
        mc[r] = memcpy_median(pool, dst_pool);
        for (int k = 0; k < ncfg; k++) {
            if (write(wr[1], &k, sizeof k) != sizeof k) return 1;
            writer(c, slots, pool, &cfgs[k], &ticket, &iter);
            int back;
            if (read(rd[0], &back, sizeof back) != sizeof back) return 1; /* child failed */
            med[k][r] = median(c->lat, iters);
            wcopy[k][r] = writer_us_per_kib;
        }
    }
    int stop = -1;
    if (write(wr[1], &stop, sizeof stop) != sizeof stop) return 1;
    int wst;
    waitpid(pid, &wst, 0);

    double m = median(mc, rounds);
    printf("# %zu bytes, %s buffers, %d rounds x %d iterations, %s; medians over rounds of "
           "per-iteration medians (us)\n",
           bytes, cold ? "cold (64 MiB pools)" : "hot", rounds, iters,
           pin ? "writer on cpu 0, reader on cpu 1" : "not pinned");
    printf("# one memcpy of %zu bytes: %.2f us\n", bytes, m);
    printf("%-8s %-6s %-10s %10s %12s %18s\n", "chunk", "depth", "writer", "pipeline", "x memcpy",
           "writer us/KiB");
    for (int k = 0; k < ncfg; k++) {
        double p = median(med[k], rounds);
        printf("%-8zu %-6d %-10s %10.2f %12.2f %18.4f\n", cfgs[k].chunk, cfgs[k].depth,
               cfgs[k].stream ? "streaming" : "memcpy", p, p / m, median(wcopy[k], rounds));
    }
    return 0;
}
