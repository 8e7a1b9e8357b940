/*
 * Private contexts on their transport streams (docs/ONESIDED.md, "Contexts"): at
 * ARBOR_THREAD_MULTIPLE, NTHREADS threads per rank (argument 2), each on its own private
 * context, to every rank and for several rounds: a put then a get of the same words with no
 * quiet between (location order: the get sees the put), two overlapping puts (the later one
 * stays), fetch-adds (blocking: results strictly increase) and implicit adds on a counter per
 * thread, swap / compare-and-swap / fetch / set on a word per (source, thread), a put then an
 * add on one word (the add applies after the put), a 32-bit add
 * (a loop the stream does not carry: the locked path, after the stream's operations), fence,
 * quiet, then a read back. After a barrier every rank checks what it received: the last
 * round's words and the counter sums. Run with ARBOR_DIRECT=n (nothing mapped but self) the
 * operations to other ranks go through the transport, on the contexts' streams from their
 * first quiet on. Last, one thread: a context's stream translation ends with its allocation
 * (a put to a freed range fails, also when a smaller allocation took its place).
 * Usage: arbor-test-ctx-stream [rounds] [threads]
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbor.h"

#define MAXTHREADS 4
#define WORDS      32   /* per (source rank, thread) block */
#define BIGW       8192 /* words of the large put an add follows (past eager sizes) */

static int rank, size, rounds = 30, nthreads = 2;
static atomic_int failures, checks;
static uint64_t *buf; /* [size][nthreads][WORDS]: block (src, t) written by rank src's thread t */
static uint64_t *counter; /* [nthreads] adds from every rank's thread t */
static uint64_t *words;   /* [size][nthreads][3]: swap, set, put-then-add words of (src, t) */
static uint32_t *small;   /* [nthreads * 2]: 32-bit adds from every rank's thread t */
static uint64_t *big;     /* [size][nthreads][BIGW]: a large put, then an add on its last word */
static arbor_mem_h mb, mc, mw, ms, mg;
static uint64_t *bigsrc[MAXTHREADS]; /* each thread's source of the large put */

#define CHECK(_cond, ...)                                                                          \
    do {                                                                                           \
        atomic_fetch_add(&checks, 1);                                                              \
        if (!(_cond) && atomic_fetch_add(&failures, 1) < 20) {                                     \
            fprintf(stderr, "rank %d: FAIL %s:%d: ", rank, __FILE__, __LINE__);                    \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)
#define OK(_call)                                                                                  \
    do {                                                                                           \
        arbor_status_t s_ = (_call);                                                               \
        CHECK(s_ == ARBOR_OK, "%s: %s", #_call, arbor_strerror(s_));                               \
    } while (0)

/* The address on rank r of local address p in allocation m. */
static void *at(arbor_mem_h m, void *base, int r, void *p)
{
    void *rb = NULL;
    arbor_mem_addr(m, r, &rb, NULL);
    return (uint8_t *)rb + ((uint8_t *)p - (uint8_t *)base);
}

static uint64_t value(int src, int t, int round, int i, int phase)
{
    return ((uint64_t)src << 48) | ((uint64_t)t << 40) | ((uint64_t)round << 16) |
           ((uint64_t)phase << 12) | (uint64_t)i;
}

/* One round from thread t to rank r. */
static void round_to(arbor_ctx_h ctx, int t, int round, int r)
{
    uint64_t a[WORDS], b[WORDS], back[WORDS];
    size_t blk = ((size_t)rank * (size_t)nthreads + (size_t)t);
    uint64_t *dst = at(mb, buf, r, buf + blk * WORDS);
    uint64_t *cnt = at(mc, counter, r, &counter[t]);
    uint64_t *sw = at(mw, words, r, &words[blk * 3]);
    uint32_t *sm = at(ms, small, r, &small[t * 2]);
    /* put, then get of the same words, no quiet between: the get sees the put */
    for (int i = 0; i < WORDS; i++) a[i] = value(rank, t, round, i, 1);
    OK(arbor_ctx_put_nbi(ctx, r, dst, a, sizeof(a)));
    memset(back, 0, sizeof(back));
    OK(arbor_ctx_get(ctx, r, back, dst, sizeof(back)));
    for (int i = 0; i < WORDS; i++)
        CHECK(back[i] == a[i], "thread %d round %d rank %d: get after put, word %d: %llx != %llx",
              t, round, r, i, (unsigned long long)back[i], (unsigned long long)a[i]);
    /* overlapping puts: the later one stays */
    for (int i = 0; i < WORDS; i++) b[i] = value(rank, t, round, i, 2);
    OK(arbor_ctx_put_nbi(ctx, r, dst, a, sizeof(a)));
    OK(arbor_ctx_put_nbi(ctx, r, dst + WORDS / 4, b + WORDS / 4, sizeof(b) / 2));
    OK(arbor_ctx_put(ctx, r, dst + WORDS / 2, b + WORDS / 2, sizeof(b) / 2));
    OK(arbor_ctx_put_nbi(ctx, r, dst, b, sizeof(b) / 4));
    /* atomics: implicit adds, then blocking fetch-adds whose results increase */
    uint64_t one = 1, prev = 0;
    for (int j = 0; j < 4; j++)
        OK(arbor_ctx_atomic_nbi(ctx, r, cnt, ARBOR_AMO_ADD, ARBOR_UINT64, &one, NULL, NULL));
    for (int j = 0; j < 2; j++) {
        uint64_t got = UINT64_MAX;
        OK(arbor_ctx_atomic(ctx, r, cnt, ARBOR_AMO_FADD, ARBOR_UINT64, &one, NULL, &got));
        CHECK(got != UINT64_MAX && (j == 0 || got > prev), "thread %d: fetch-add %llu after %llu",
              t, (unsigned long long)got, (unsigned long long)prev);
        prev = got;
    }
    /* swap, compare-and-swap, fetch on the word only this thread writes at r */
    uint64_t want = value(rank, t, round, 0, 3), old = 0, seen = 0, next = want + 1;
    OK(arbor_ctx_atomic(ctx, r, sw, ARBOR_AMO_SWAP, ARBOR_UINT64, &want, NULL, &old));
    CHECK(round == 0 ? old == 0 : old == value(rank, t, round - 1, 0, 3) + 1,
          "thread %d round %d rank %d: swap returned %llx", t, round, r, (unsigned long long)old);
    OK(arbor_ctx_atomic(ctx, r, sw, ARBOR_AMO_CSWAP, ARBOR_UINT64, &next, &want, &seen));
    CHECK(seen == want, "thread %d: compare-and-swap saw %llx, not %llx", t,
          (unsigned long long)seen, (unsigned long long)want);
    OK(arbor_ctx_atomic(ctx, r, sw, ARBOR_AMO_FETCH, ARBOR_UINT64, NULL, NULL, &seen));
    CHECK(seen == next, "thread %d: fetch after compare-and-swap %llx", t,
          (unsigned long long)seen);
    uint64_t setv = value(rank, t, round, 1, 4);
    OK(arbor_ctx_atomic_nbi(ctx, r, sw + 1, ARBOR_AMO_SET, ARBOR_UINT64, &setv, NULL, NULL));
    /* a put, then an add on the same word, no fence: the add applies after the put; the same
     * after a large put (a transport may send it by another protocol than the atomic) */
    uint64_t putv = value(rank, t, round, 2, 5), three = 3;
    OK(arbor_ctx_put_nbi(ctx, r, sw + 2, &putv, sizeof(putv)));
    OK(arbor_ctx_atomic_nbi(ctx, r, sw + 2, ARBOR_AMO_ADD, ARBOR_UINT64, &three, NULL, NULL));
    uint64_t *bs = bigsrc[t], *bd = at(mg, big, r, big + blk * BIGW);
    for (int i = 0; i < BIGW; i++) bs[i] = value(rank, t, round, i, 6);
    OK(arbor_ctx_put_nbi(ctx, r, bd, bs, BIGW * sizeof(uint64_t)));
    OK(arbor_ctx_atomic_nbi(ctx, r, bd + BIGW - 1, ARBOR_AMO_ADD, ARBOR_UINT64, &three, NULL,
                            NULL));
    /* a 32-bit add: a compare-and-swap loop on the locked path, after the stream's operations */
    uint32_t one32 = 1;
    OK(arbor_ctx_atomic(ctx, r, sm, ARBOR_AMO_ADD, ARBOR_UINT32, &one32, NULL, NULL));
    OK(arbor_ctx_fence(ctx));
    OK(arbor_ctx_quiet(ctx));
    uint64_t pa = 0;
    OK(arbor_ctx_get(ctx, r, &pa, sw + 2, sizeof(pa)));
    CHECK(pa == putv + 3, "thread %d round %d rank %d: put then add left %llx, want %llx", t, round,
          r, (unsigned long long)pa, (unsigned long long)(putv + 3));
    OK(arbor_ctx_get(ctx, r, &pa, bd + BIGW - 1, sizeof(pa)));
    CHECK(pa == bs[BIGW - 1] + 3, "thread %d round %d rank %d: large put then add left %llx", t,
          round, r, (unsigned long long)pa);
    OK(arbor_ctx_get(ctx, r, back, dst, sizeof(back)));
    for (int i = 0; i < WORDS; i++) {
        uint64_t expect = b[i]; /* every word's last put was b's */
        CHECK(back[i] == expect, "thread %d round %d rank %d: word %d %llx != %llx", t, round, r, i,
              (unsigned long long)back[i], (unsigned long long)expect);
    }
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    arbor_ctx_h ctx;
    OK(arbor_ctx_create(ARBOR_TEAM_WORLD, ARBOR_CTX_PRIVATE, &ctx));
    for (int round = 0; round < rounds; round++)
        for (int k = 0; k < size; k++) round_to(ctx, t, round, (rank + k) % size);
    OK(arbor_ctx_destroy(&ctx));
    return NULL;
}

/* A stream translation ends with its allocation: after a free and a smaller allocation at the
 * same place, a put beyond the new one fails, on the context that had learnt the old one. */
static void stale_translation_check(void)
{
    uint64_t *p, *q;
    arbor_mem_h m1, m2;
    int r = (rank + 1) % size;
    arbor_ctx_h ctx;
    OK(arbor_ctx_create(ARBOR_TEAM_WORLD, ARBOR_CTX_PRIVATE, &ctx));
    OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, 4096, &m1, (void **)&p));
    uint64_t *far = at(m1, p, r, p + 400), v = 7;
    for (int i = 0; i < 3; i++) { /* learnt, then on the stream after the first quiet */
        OK(arbor_ctx_put(ctx, r, far, &v, sizeof(v)));
        OK(arbor_ctx_quiet(ctx));
    }
    OK(arbor_barrier(ARBOR_TEAM_WORLD));
    OK(arbor_mem_free(&m1));
    OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, 64, &m2, (void **)&q));
    arbor_status_t s = arbor_ctx_put(ctx, r, far, &v, sizeof(v));
    CHECK(size == 1 || s == ARBOR_ERR_ADDRESS, "put to a freed range: %s", arbor_strerror(s));
    OK(arbor_ctx_quiet(ctx));
    OK(arbor_barrier(ARBOR_TEAM_WORLD));
    OK(arbor_mem_free(&m2));
    OK(arbor_ctx_destroy(&ctx));
}

int main(int argc, char **argv)
{
    if (argc > 1) rounds = atoi(argv[1]);
    if (argc > 2) nthreads = atoi(argv[2]);
    if (rounds < 1) rounds = 1;
    if (nthreads < 1 || nthreads > MAXTHREADS) nthreads = 2;
    int provided = 0;
    if (arbor_init_thread(ARBOR_THREAD_MULTIPLE, &provided) != ARBOR_OK) return 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    if (provided != ARBOR_THREAD_MULTIPLE) {
        if (rank == 0) printf("ARBOR_THREAD_MULTIPLE not provided: skipped\n");
        arbor_finalize();
        return 77;
    }
    size_t nb = (size_t)size * (size_t)nthreads;
    OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, nb * WORDS * sizeof(uint64_t), &mb, (void **)&buf));
    OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, (size_t)nthreads * sizeof(uint64_t), &mc,
                       (void **)&counter));
    OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, nb * 3 * sizeof(uint64_t), &mw, (void **)&words));
    OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, (size_t)nthreads * 2 * sizeof(uint32_t), &ms,
                       (void **)&small));
    OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, nb * BIGW * sizeof(uint64_t), &mg, (void **)&big));
    for (int t = 0; t < nthreads; t++)
        if (!(bigsrc[t] = malloc(BIGW * sizeof(uint64_t)))) return 1;
    pthread_t th[MAXTHREADS];
    for (int t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
    OK(arbor_quiet());
    OK(arbor_barrier(ARBOR_TEAM_WORLD));
    int last = rounds - 1;
    for (int src = 0; src < size; src++)
        for (int t = 0; t < nthreads; t++) {
            size_t blk = (size_t)src * (size_t)nthreads + (size_t)t;
            for (int i = 0; i < WORDS; i++) {
                uint64_t got = buf[blk * WORDS + (size_t)i];
                CHECK(got == value(src, t, last, i, 2), "from rank %d thread %d word %d: %llx", src,
                      t, i, (unsigned long long)got);
            }
            CHECK(words[blk * 3] == value(src, t, last, 0, 3) + 1,
                  "swap word of rank %d thread %d: %llx", src, t,
                  (unsigned long long)words[blk * 3]);
            CHECK(words[blk * 3 + 1] == value(src, t, last, 1, 4),
                  "set word of rank %d thread %d: %llx", src, t,
                  (unsigned long long)words[blk * 3 + 1]);
            CHECK(words[blk * 3 + 2] == value(src, t, last, 2, 5) + 3,
                  "put-then-add word of rank %d thread %d: %llx", src, t,
                  (unsigned long long)words[blk * 3 + 2]);
        }
    for (int t = 0; t < nthreads; t++) {
        CHECK(counter[t] == 6 * (uint64_t)rounds * (uint64_t)size, "counter %d: %llu", t,
              (unsigned long long)counter[t]);
        CHECK(small[t * 2] == (uint32_t)rounds * (uint32_t)size && small[t * 2 + 1] == 0,
              "32-bit counter %d: %u %u", t, small[t * 2], small[t * 2 + 1]);
    }
    OK(arbor_barrier(ARBOR_TEAM_WORLD));
    stale_translation_check();
    OK(arbor_mem_free(&mb));
    OK(arbor_mem_free(&mc));
    OK(arbor_mem_free(&mw));
    OK(arbor_mem_free(&ms));
    OK(arbor_mem_free(&mg));
    for (int t = 0; t < nthreads; t++) free(bigsrc[t]);
    int f = atomic_load(&failures), all = 0;
    arbor_allreduce(ARBOR_TEAM_WORLD, &f, &all, 1, ARBOR_INT32, ARBOR_SUM);
    if (rank == 0)
        printf("test_ctx_stream: %d ranks, %d threads, %d checks on rank 0, %d failures in all\n",
               size, nthreads, atomic_load(&checks), all);
    arbor_finalize();
    return all ? 1 : 0;
}
