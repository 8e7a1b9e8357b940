/*
 * Communication contexts (arbor_ctx_*): at ARBOR_THREAD_MULTIPLE, two threads per rank, each
 * on its own private context, put to every rank with the implicit and blocking forms, quiet
 * their context only, then read back through it (a get after the quiet sees the puts), and
 * fetch-add a counter with the implicit atomic whose results the quiet writes; after a barrier
 * every rank checks every word it received. Then, from one thread: a context on a reversed
 * split team (team-rank addressing), put-with-signal and strided put / get on a context,
 * fence, the default context
 * through ARBOR_CTX_DEFAULT, and the argument errors; a private context's own translations of
 * mapped allocations end with the allocation (a put to a freed range fails, also when a smaller
 * allocation took its place). Every value is checked.
 * Usage: arbor-test-ctx [rounds]
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbor.h"

#define NTHREADS 2
#define WORDS    64 /* per (source rank, thread) block */

static int rank, size, rounds = 20;
static atomic_int failures, checks;
static uint64_t *buf; /* [size][NTHREADS][WORDS]: block (src, t) written by rank src's thread t */
static uint64_t *counter;  /* [NTHREADS] fetch-add targets */
static arbor_mem_h mb, mc; /* their allocations (peers' addresses: arbor_mem_addr) */

/* The address on rank r (world) of local address p in allocation m. */
static void *at(arbor_mem_h m, void *base, int r, void *p)
{
    void *rb = NULL;
    arbor_mem_addr(m, r, &rb, NULL);
    return (uint8_t *)rb + ((uint8_t *)p - (uint8_t *)base);
}

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

static uint64_t value(int src, int t, int round, int i)
{
    return ((uint64_t)src << 48) | ((uint64_t)t << 40) | ((uint64_t)round << 16) | (uint64_t)i;
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    arbor_ctx_h ctx;
    OK(arbor_ctx_create(ARBOR_TEAM_WORLD, ARBOR_CTX_PRIVATE, &ctx));
    uint64_t src[WORDS], back[WORDS], fetched[8];
    for (int round = 0; round < rounds; round++) {
        for (int i = 0; i < WORDS; i++) src[i] = value(rank, t, round, i);
        for (int k = 0; k < size; k++) {
            int r = (rank + k) % size;
            uint64_t *dst = at(mb, buf, r, buf + ((size_t)rank * NTHREADS + (size_t)t) * WORDS);
            uint64_t *cnt = at(mc, counter, r, &counter[t]);
            /* half the block word by word (implicit), half in one blocking put */
            for (int i = 0; i < WORDS / 2; i++)
                OK(arbor_ctx_put_nbi(ctx, r, dst + i, &src[i], sizeof(uint64_t)));
            OK(arbor_ctx_put(ctx, r, dst + WORDS / 2, &src[WORDS / 2],
                             WORDS / 2 * sizeof(uint64_t)));
            uint64_t one = 1;
            memset(fetched, 0xff, sizeof(fetched));
            for (int j = 0; j < 8; j++)
                OK(arbor_ctx_atomic_nbi(ctx, r, cnt, ARBOR_AMO_FADD, ARBOR_UINT64, &one, NULL,
                                        &fetched[j]));
            OK(arbor_ctx_quiet(ctx));
            for (int j = 1; j < 8; j++)
                CHECK(fetched[j] > fetched[j - 1] && fetched[j] != UINT64_MAX,
                      "thread %d: fetch-add results not increasing at %d", t, j);
            /* complete at the target: the same context reads it back */
            OK(arbor_ctx_get(ctx, r, back, dst, sizeof(back)));
            for (int i = 0; i < WORDS; i++)
                CHECK(back[i] == src[i], "thread %d round %d: rank %d word %d %llx != %llx", t,
                      round, r, i, (unsigned long long)back[i], (unsigned long long)src[i]);
        }
    }
    OK(arbor_ctx_destroy(&ctx));
    CHECK(ctx == NULL, "destroy clears the handle");
    return NULL;
}

static void single_thread_checks(void)
{
    /* A context on the world in reverse order: team rank i is world rank size-1-i. */
    arbor_team_h rev;
    OK(arbor_team_split(ARBOR_TEAM_WORLD, 0, size - rank, &rev));
    arbor_ctx_h ctx;
    OK(arbor_ctx_create(rev, 0, &ctx));
    int me = -1, n = -1;
    OK(arbor_ctx_rank(ctx, &me, &n));
    CHECK(me == size - 1 - rank && n == size, "ctx rank %d size %d", me, n);
    OK(arbor_team_free(&rev)); /* the context keeps its rank table */
    uint64_t *words;
    arbor_mem_h mem;
    OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, (2 * (size_t)size + 1 + 128 * (size_t)size) * 8, &mem,
                       (void **)&words));
    uint64_t *sig = words + 2 * size;
    uint64_t *tw = at(mem, words, size - 1, words); /* words on world rank size-1 */
    uint64_t *tsig = tw + 2 * size;
    uint64_t *nw = at(mem, words, (rank + 1) % size, words); /* on the next world rank */
    /* team rank 0 = world rank size-1: every rank puts its world rank into slot rank there,
     * with a signal add */
    uint64_t v = 1000 + (uint64_t)rank;
    OK(arbor_ctx_put_signal_nbi(ctx, 0, &tw[rank], &v, sizeof(v), tsig, 1, ARBOR_SIGNAL_ADD));
    OK(arbor_ctx_fence(ctx));
    uint64_t w = 2000 + (uint64_t)rank;
    OK(arbor_ctx_put_signal(ctx, 0, &tw[size + rank], &w, sizeof(w), tsig, 1, ARBOR_SIGNAL_ADD));
    OK(arbor_ctx_quiet(ctx));
    if (rank == size - 1) {
        uint64_t seen = 0;
        OK(arbor_wait_until(sig, ARBOR_CMP_EQ, 2 * (uint64_t)size, &seen));
        for (int r = 0; r < size; r++)
            CHECK(words[r] == 1000 + (uint64_t)r && words[size + r] == 2000 + (uint64_t)r,
                  "signalled slot %d: %llu %llu", r, (unsigned long long)words[r],
                  (unsigned long long)words[size + r]);
    }
    OK(arbor_barrier(ARBOR_TEAM_WORLD));
    /* Strided on the context: 64 words to every other word of this rank's region at team
     * rank 0 (many small pieces: packed where the target is not mapped), quiet, read back. */
    uint64_t sv[64], back[64];
    for (int i = 0; i < 64; i++) sv[i] = ((uint64_t)rank << 32) | (uint64_t)i;
    uint64_t *region = tw + 2 * size + 1 + 128 * (size_t)rank;
    ptrdiff_t dstr[1] = {16}, sstr[1] = {8};
    size_t cnt[2] = {8, 64};
    OK(arbor_ctx_put_strided(ctx, 0, region, dstr, sv, sstr, cnt, 1));
    OK(arbor_ctx_quiet(ctx));
    memset(back, 0, sizeof(back));
    OK(arbor_ctx_get_strided(ctx, 0, back, sstr, region, dstr, cnt, 1));
    for (int i = 0; i < 64; i++)
        CHECK(back[i] == sv[i], "strided on a context: word %d %llx", i,
              (unsigned long long)back[i]);
    OK(arbor_barrier(ARBOR_TEAM_WORLD));
    if (rank == size - 1)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < 64; i++) {
                uint64_t *reg = words + 2 * size + 1 + 128 * (size_t)r;
                CHECK(reg[2 * i] == (((uint64_t)r << 32) | (uint64_t)i) && reg[2 * i + 1] == 0,
                      "strided region of rank %d word %d", r, i);
            }
    OK(arbor_barrier(ARBOR_TEAM_WORLD));
    /* The default context through the context calls: world ranks. */
    uint64_t x = 77, y = 0;
    OK(arbor_ctx_put(ARBOR_CTX_DEFAULT, (rank + 1) % size, &nw[0], &x, sizeof(x)));
    OK(arbor_ctx_quiet(ARBOR_CTX_DEFAULT));
    OK(arbor_ctx_get(ARBOR_CTX_DEFAULT, (rank + 1) % size, &y, &nw[0], sizeof(y)));
    CHECK(y == 77, "default context put / get: %llu", (unsigned long long)y);
    OK(arbor_ctx_rank(ARBOR_CTX_DEFAULT, &me, &n));
    CHECK(me == rank && n == size, "default ctx rank");
    /* Errors. */
    arbor_ctx_h bad = ARBOR_CTX_DEFAULT;
    CHECK(arbor_ctx_create(ARBOR_TEAM_WORLD, 1u << 5, &bad) == ARBOR_ERR_FLAGS && !bad, "flags");
    CHECK(arbor_ctx_create(ARBOR_TEAM_NULL, 0, &bad) == ARBOR_ERR_TEAM, "team");
    CHECK(arbor_ctx_create(ARBOR_TEAM_WORLD, 0, NULL) == ARBOR_ERR_INVALID_ARG, "NULL ctx_p");
    CHECK(arbor_ctx_destroy(&bad) == ARBOR_ERR_HANDLE, "destroy default");
    CHECK(arbor_ctx_put(ctx, size, &tw[0], &x, 8) == ARBOR_ERR_RANK, "rank out of team");
    CHECK(arbor_ctx_put(ctx, -1, &tw[0], &x, 8) == ARBOR_ERR_RANK, "negative rank");
    CHECK(arbor_ctx_atomic(ctx, 0, &tw[0], ARBOR_AMO_ADD, ARBOR_FLOAT, &x, NULL, NULL) ==
              ARBOR_ERR_DATATYPE,
          "atomic type");
    CHECK(arbor_ctx_put(ctx, 0, &x, &y, 8) == ARBOR_ERR_ADDRESS, "not symmetric");
    OK(arbor_barrier(ARBOR_TEAM_WORLD));
    OK(arbor_ctx_destroy(&ctx));
    OK(arbor_mem_free(&mem));
}

/* A private context keeps its own translations of mapped allocations (so that its puts take no
 * lock at THREAD_MULTIPLE): freeing the allocation must end them, so a put to the freed range,
 * even where a smaller allocation now starts at the same place, is refused, not copied. */
static void private_translation_checks(void)
{
    arbor_ctx_h ctx;
    OK(arbor_ctx_create(ARBOR_TEAM_WORLD, ARBOR_CTX_PRIVATE, &ctx));
    int next = (rank + 1) % size;
    uint64_t *big, *small, v = 5;
    arbor_mem_h mbig, msmall;
    OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, 4096, &mbig, (void **)&big));
    uint64_t *far = at(mbig, big, next, big + 400);
    uint64_t one = 1, old = 0;
    uint64_t *far_word = at(mbig, big, next, big + 401);
    for (int i = 0; i < 3; i++) {
        OK(arbor_ctx_put(ctx, next, far, &v, sizeof(v)));
        OK(arbor_ctx_atomic(ctx, next, far_word, ARBOR_AMO_FADD, ARBOR_UINT64, &one, NULL, &old));
        CHECK(old == (uint64_t)i, "private context fetch-add %d: %llu", i, (unsigned long long)old);
    }
    OK(arbor_ctx_quiet(ctx));
    OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK(big[400] == 5 && big[401] == 3, "private context put, fetch-add: %llu %llu",
          (unsigned long long)big[400], (unsigned long long)big[401]);
    OK(arbor_barrier(ARBOR_TEAM_WORLD));
    OK(arbor_mem_free(&mbig));
    OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, 64, &msmall, (void **)&small));
    CHECK(arbor_ctx_put(ctx, next, far, &v, sizeof(v)) == ARBOR_ERR_ADDRESS,
          "a put to a freed allocation through a private context's translation");
    CHECK(arbor_ctx_atomic(ctx, next, far_word, ARBOR_AMO_FADD, ARBOR_UINT64, &one, NULL, &old) ==
              ARBOR_ERR_ADDRESS,
          "an atomic on a freed allocation through a private context's translation");
    uint64_t *near = at(msmall, small, next, small + 1);
    v = 6;
    OK(arbor_ctx_put(ctx, next, near, &v, sizeof(v)));
    OK(arbor_ctx_quiet(ctx));
    OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK(small[1] == 6, "private context put after a new allocation: %llu",
          (unsigned long long)small[1]);
    OK(arbor_barrier(ARBOR_TEAM_WORLD));
    OK(arbor_ctx_destroy(&ctx));
    OK(arbor_mem_free(&msmall));
}

int main(int argc, char **argv)
{
    if (argc > 1) rounds = atoi(argv[1]);
    int provided = 0;
    if (arbor_init_thread(ARBOR_THREAD_MULTIPLE, &provided) != ARBOR_OK) return 1;
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    if (provided != ARBOR_THREAD_MULTIPLE) {
        if (rank == 0) printf("ARBOR_THREAD_MULTIPLE not provided: skipped\n");
        arbor_finalize();
        return 77;
    }
    OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, (size_t)size * NTHREADS * WORDS * sizeof(uint64_t), &mb,
                       (void **)&buf));
    OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, NTHREADS * sizeof(uint64_t), &mc, (void **)&counter));
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
    OK(arbor_quiet());
    OK(arbor_barrier(ARBOR_TEAM_WORLD));
    for (int src = 0; src < size; src++)
        for (int t = 0; t < NTHREADS; t++)
            for (int i = 0; i < WORDS; i++) {
                uint64_t got = buf[((size_t)src * NTHREADS + (size_t)t) * WORDS + (size_t)i];
                CHECK(got == value(src, t, rounds - 1, i), "from rank %d thread %d word %d: %llx",
                      src, t, i, (unsigned long long)got);
            }
    for (int t = 0; t < NTHREADS; t++)
        CHECK(counter[t] == 8 * (uint64_t)rounds * (uint64_t)size, "counter %d: %llu", t,
              (unsigned long long)counter[t]);
    OK(arbor_barrier(ARBOR_TEAM_WORLD));
    single_thread_checks();
    private_translation_checks();
    OK(arbor_mem_free(&mb));
    OK(arbor_mem_free(&mc));
    int f = atomic_load(&failures), all = 0;
    arbor_allreduce(ARBOR_TEAM_WORLD, &f, &all, 1, ARBOR_INT32, ARBOR_SUM);
    if (rank == 0)
        printf("test_ctx: %d ranks, %d checks on rank 0, %d failures in all\n", size,
               atomic_load(&checks), all);
    arbor_finalize();
    return all ? 1 : 0;
}
