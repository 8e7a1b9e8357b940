/*
 * The threads tier (docs/THREADS.md): arbor at ARBOR_THREAD_MULTIPLE, every byte checked.
 *
 * 1. Collectives: NT threads per rank, each on its own team (split from the world by the main
 *    thread before the threads start, one split per thread, with a rotated key so team ranks
 *    differ from world ranks), issue bcast, allreduce, allgather, barrier and reduce, blocking
 *    and non-blocking, ITERS per thread (NT x ITERS collectives per rank, 10,000 by default).
 *    Every non-blocking handle goes through a small queue to the next thread, which tests it
 *    until it completes and checks the data: handles completed by a thread that did not start
 *    them. A consumer only tests while producers still issue (a wait there could wait for a
 *    peer thread that itself waits), and waits for what is left once its producer is done.
 * 2. One thread waits on a handle while another computes and a third drives arbor_poll.
 * 3. One-sided: every thread of every rank takes tickets with fetch-add on a counter at rank 0
 *    (the tickets must be exactly 0..total-1), puts a pattern into its own slot at the next
 *    rank and gets it back.
 * 4. From inside a user reduction operation an arbor call returns ARBOR_ERR_BUSY.
 * 5. Active messages from every thread: each request handler replies with arbor_am_reply (the
 *    in-handler path: its thread holds the engine lock) and tries a collective (refused); the
 *    reply handlers check every byte and count per sending thread.
 *
 * Usage: arbor-test-threads [iterations per thread] (ARBOR_TEST_THREADS sets NT, default 4).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbor.h"

static int rank, nranks;

#define CHECK(_c, ...)                                                                             \
    do {                                                                                           \
        if (!(_c)) {                                                                               \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s: ", rank, __FILE__, __LINE__, #_c);  \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            abort();                                                                               \
        }                                                                                          \
    } while (0)
#define CHECK_OK(_call)                                                                            \
    do {                                                                                           \
        arbor_status_t _s = (_call);                                                               \
        CHECK(_s == ARBOR_OK, "%s returned %s", #_call, arbor_strerror(_s));                       \
    } while (0)

enum { MAX_THREADS = 16, SLOTS = 8, MAX_BYTES = 9000 };
enum { K_BCAST, K_ALLREDUCE, K_ALLGATHER, K_BARRIER, K_REDUCE, K_KINDS };

/* ---- part 1: collectives ------------------------------------------------------------------ */

typedef struct {
    int kind, iter, root;
    size_t count; /* elements (bytes for bcast) */
    arbor_request_h req;
    uint8_t *send, *recv; /* MAX_BYTES * nranks each */
    atomic_int state;     /* 0 free, 1 in flight (owned by the consumer) */
} op_t;

typedef struct {
    pthread_mutex_t mu;
    op_t *items[SLOTS * 2];
    int head, tail, n;
} queue_t;

typedef struct {
    int id, trank, tsize, iters;
    arbor_team_h team;
    op_t ops[SLOTS];
    queue_t *in, *out;         /* handles handed to us / by us */
    atomic_int *producer_done; /* our producer (the previous thread) finished issuing */
    atomic_int *my_done;
    long blocking, nonblocking, tested_by_other;
} worker_t;

static int nt = 4;
static worker_t workers[MAX_THREADS];
static queue_t queues[MAX_THREADS];
static atomic_int done_flags[MAX_THREADS];

static void q_push(queue_t *q, op_t *op)
{
    pthread_mutex_lock(&q->mu);
    CHECK(q->n < SLOTS * 2, "queue overflow");
    q->items[q->tail] = op;
    q->tail = (q->tail + 1) % (SLOTS * 2);
    q->n++;
    pthread_mutex_unlock(&q->mu);
}

static op_t *q_pop(queue_t *q)
{
    op_t *op = NULL;
    pthread_mutex_lock(&q->mu);
    if (q->n) {
        op = q->items[q->head];
        q->head = (q->head + 1) % (SLOTS * 2);
        q->n--;
    }
    pthread_mutex_unlock(&q->mu);
    return op;
}

/* Byte i of team rank r's contribution at iteration it of thread id. */
static uint8_t pat(int id, int it, int r, size_t i)
{
    return (uint8_t)(id * 31 + it * 7 + r * 13 + i * 3 + 1);
}

static uint64_t wpat(int id, int it, int r, size_t i)
{
    return ((uint64_t)(id + 1) << 40) + ((uint64_t)it << 20) + (uint64_t)r * 1000003u + i;
}

static void fill(worker_t *w, op_t *op)
{
    int me = w->trank, P = w->tsize;
    switch (op->kind) {
    case K_BCAST:
        for (size_t i = 0; i < op->count; i++)
            op->recv[i] = me == op->root ? pat(w->id, op->iter, op->root, i) : 0xEE;
        break;
    case K_ALLREDUCE:
    case K_REDUCE:
        for (size_t i = 0; i < op->count; i++)
            ((uint64_t *)op->send)[i] = wpat(w->id, op->iter, me, i);
        memset(op->recv, 0xEE, op->count * 8);
        break;
    case K_ALLGATHER:
        for (size_t i = 0; i < op->count; i++) op->send[i] = pat(w->id, op->iter, me, i);
        memset(op->recv, 0xEE, op->count * (size_t)P);
        break;
    default:
        break;
    }
}

static void verify(const worker_t *w, const op_t *op)
{
    int me = w->trank, P = w->tsize;
    switch (op->kind) {
    case K_BCAST:
        for (size_t i = 0; i < op->count; i++)
            CHECK(op->recv[i] == pat(w->id, op->iter, op->root, i), "bcast t%d it%d byte %zu",
                  w->id, op->iter, i);
        break;
    case K_ALLREDUCE:
    case K_REDUCE:
        if (op->kind == K_REDUCE && me != op->root) {
            for (size_t i = 0; i < op->count * 8; i++)
                CHECK(op->recv[i] == 0xEE, "reduce wrote a non-root's buffer");
            break;
        }
        for (size_t i = 0; i < op->count; i++) {
            uint64_t want = 0;
            for (int r = 0; r < P; r++) want += wpat(w->id, op->iter, r, i);
            CHECK(((uint64_t *)op->recv)[i] == want, "%s t%d it%d element %zu",
                  op->kind == K_REDUCE ? "reduce" : "allreduce", w->id, op->iter, i);
        }
        break;
    case K_ALLGATHER:
        for (int r = 0; r < P; r++)
            for (size_t i = 0; i < op->count; i++)
                CHECK(op->recv[(size_t)r * op->count + i] == pat(w->id, op->iter, r, i),
                      "allgather t%d it%d from %d byte %zu", w->id, op->iter, r, i);
        break;
    default:
        break;
    }
}

static arbor_status_t start(worker_t *w, op_t *op, arbor_request_h *req)
{
    arbor_team_h t = w->team;
    switch (op->kind) {
    case K_BCAST:
        return req ? arbor_bcast_nb(t, op->recv, op->count, op->root, NULL, req)
                   : arbor_bcast(t, op->recv, op->count, op->root);
    case K_ALLREDUCE:
        return req ? arbor_allreduce_nb(t, op->send, op->recv, op->count, ARBOR_UINT64, ARBOR_SUM,
                                        NULL, req)
                   : arbor_allreduce(t, op->send, op->recv, op->count, ARBOR_UINT64, ARBOR_SUM);
    case K_ALLGATHER:
        return req ? arbor_allgather_nb(t, op->send, op->recv, op->count, ARBOR_BYTE, NULL, req)
                   : arbor_allgather(t, op->send, op->recv, op->count, ARBOR_BYTE);
    case K_BARRIER:
        return req ? arbor_barrier_nb(t, NULL, req) : arbor_barrier(t);
    default:
        return req ? arbor_reduce_nb(t, op->send, op->recv, op->count, ARBOR_UINT64, ARBOR_SUM,
                                     op->root, NULL, req)
                   : arbor_reduce(t, op->send, op->recv, op->count, ARBOR_UINT64, ARBOR_SUM,
                                  op->root);
    }
}

/* Every choice depends only on (thread, iteration): the same on every rank. */
static void shape(worker_t *w, op_t *op, int it)
{
    static const size_t sizes[] = {1, 8, 24, 64, 200, 1000, 4096, MAX_BYTES};
    unsigned h = (unsigned)it * 2654435761u ^ (unsigned)w->id * 40503u;
    op->iter = it;
    op->kind = (int)((h >> 7) % K_KINDS);
    op->root = (int)((h >> 13) % (unsigned)w->tsize);
    size_t bytes = sizes[(h >> 17) % 8];
    op->count = op->kind == K_ALLREDUCE || op->kind == K_REDUCE ? (bytes + 7) / 8 : bytes;
}

/* Tests what other threads handed us; with finish, waits for it instead. Returns how many
 * completed. */
static int consume(worker_t *w, bool finish)
{
    static _Thread_local op_t *held[SLOTS * MAX_THREADS];
    static _Thread_local int nheld;
    int n = 0;
    op_t *op;
    while ((op = q_pop(w->in))) held[nheld++] = op;
    for (int i = 0; i < nheld;) {
        op_t *o = held[i];
        arbor_status_t s = finish ? arbor_wait(&o->req) : arbor_test(&o->req);
        if (s == ARBOR_INPROGRESS) {
            i++;
            continue;
        }
        CHECK(s == ARBOR_OK, "completing a handed-over handle: %s", arbor_strerror(s));
        CHECK(o->req == NULL, "a completed handle is not cleared");
        verify(&workers[(w->id + nt - 1) % nt], o);
        atomic_store_explicit(&o->state, 0, memory_order_release);
        held[i] = held[--nheld];
        w->tested_by_other++;
        n++;
    }
    return n;
}

static void *coll_main(void *arg)
{
    worker_t *w = arg;
    op_t blocking_op;
    blocking_op.send = malloc((size_t)MAX_BYTES * (size_t)nranks + 8);
    blocking_op.recv = malloc((size_t)MAX_BYTES * (size_t)nranks + 8);
    CHECK(blocking_op.send && blocking_op.recv, "malloc");
    for (int it = 0; it < w->iters; it++) {
        consume(w, false);
        /* Every third operation non-blocking, when one of our slots is free (the same choice
         * on every rank would need the slots to free up alike: so a non-blocking start with
         * no free slot completes here instead, by this thread). */
        op_t *op = NULL;
        bool nb = it % 3 == 1;
        if (nb) {
            for (int i = 0; i < SLOTS && !op; i++)
                if (atomic_load_explicit(&w->ops[i].state, memory_order_acquire) == 0)
                    op = &w->ops[i];
        }
        if (nb) {
            op_t *use = op ? op : &blocking_op;
            shape(w, use, it);
            fill(w, use);
            arbor_request_h req = NULL;
            CHECK_OK(start(w, use, &req));
            CHECK(req != NULL, "no handle");
            w->nonblocking++;
            if (op) {
                op->req = req;
                atomic_store_explicit(&op->state, 1, memory_order_relaxed);
                q_push(w->out, op);
            } else {
                CHECK_OK(arbor_wait(&req));
                verify(w, use);
            }
        } else {
            shape(w, &blocking_op, it);
            fill(w, &blocking_op);
            CHECK_OK(start(w, &blocking_op, NULL));
            verify(w, &blocking_op);
            w->blocking++;
        }
    }
    atomic_store_explicit(w->my_done, 1, memory_order_release);
    /* What our producer hands over from now on: waited for (every rank's producer finished
     * issuing or will, without waiting for us). */
    while (!atomic_load_explicit(w->producer_done, memory_order_acquire)) {
        if (!consume(w, false)) sched_yield();
    }
    consume(w, true);
    consume(w, true);
    /* Our own handed-over slots come back once the next thread waited for them. */
    for (int i = 0; i < SLOTS; i++)
        while (atomic_load_explicit(&w->ops[i].state, memory_order_acquire)) sched_yield();
    free(blocking_op.send);
    free(blocking_op.recv);
    return NULL;
}

static void part_collectives(int iters)
{
    pthread_t th[MAX_THREADS];
    for (int i = 0; i < nt; i++) {
        worker_t *w = &workers[i];
        memset(w, 0, sizeof(*w));
        w->id = i;
        w->iters = iters;
        /* One split per thread, by the main thread, before any thread starts: splits are
         * collective over the world and must come in the same order everywhere. */
        CHECK_OK(arbor_team_split(ARBOR_TEAM_WORLD, 0, (rank + i) % nranks, &w->team));
        CHECK_OK(arbor_team_rank(w->team, &w->trank));
        CHECK_OK(arbor_team_size(w->team, &w->tsize));
        CHECK(w->trank == (rank + i) % nranks, "team %d rank %d", i, w->trank);
        for (int s = 0; s < SLOTS; s++) {
            w->ops[s].send = malloc((size_t)MAX_BYTES * (size_t)nranks + 8);
            w->ops[s].recv = malloc((size_t)MAX_BYTES * (size_t)nranks + 8);
            CHECK(w->ops[s].send && w->ops[s].recv, "malloc");
            atomic_init(&w->ops[s].state, 0);
        }
        pthread_mutex_init(&queues[i].mu, NULL);
        atomic_init(&done_flags[i], 0);
    }
    for (int i = 0; i < nt; i++) {
        workers[i].out = &queues[(i + 1) % nt]; /* thread i + 1 completes our handles */
        workers[i].in = &queues[i];
        workers[i].my_done = &done_flags[i];
        workers[i].producer_done = &done_flags[(i + nt - 1) % nt];
    }
    for (int i = 0; i < nt; i++)
        CHECK(!pthread_create(&th[i], NULL, coll_main, &workers[i]), "thread");
    long total = 0, other = 0;
    for (int i = 0; i < nt; i++) {
        pthread_join(th[i], NULL);
        total += workers[i].blocking + workers[i].nonblocking;
        other += workers[i].tested_by_other;
    }
    CHECK(total == (long)nt * iters, "%ld collectives, expected %ld", total, (long)nt * iters);
    CHECK(nt == 1 || other > 0, "no handle was completed by another thread");
    for (int i = 0; i < nt; i++) {
        CHECK_OK(arbor_team_free(&workers[i].team));
        for (int s = 0; s < SLOTS; s++) free(workers[i].ops[s].send), free(workers[i].ops[s].recv);
        pthread_mutex_destroy(&queues[i].mu);
    }
    if (rank == 0)
        printf("threads: %d threads x %d = %ld collectives per rank, %ld non-blocking handles "
               "completed by another thread\n",
               nt, iters, total, other);
}

/* ---- part 2: a waiter, a computer and a poller ------------------------------------------------
 */

static atomic_int poll_stop;
static atomic_long poll_calls;
static volatile double compute_sink;

static void *poller(void *arg)
{
    (void)arg;
    while (!atomic_load(&poll_stop)) {
        CHECK_OK(arbor_poll());
        atomic_fetch_add(&poll_calls, 1);
    }
    return NULL;
}

static void *computer(void *arg)
{
    (void)arg;
    double x = 1.0;
    while (!atomic_load(&poll_stop))
        for (int i = 0; i < 100000; i++) x = x * 1.0000001 + 1e-9;
    compute_sink = x;
    return NULL;
}

typedef struct {
    arbor_request_h req;
} wait_arg_t;

static void *waiter(void *arg)
{
    wait_arg_t *a = arg;
    CHECK_OK(arbor_wait(&a->req));
    return NULL;
}

static void part_wait_poll(void)
{
    enum { N = 4096, ROUNDS = 20 };
    uint64_t *send = malloc(N * 8), *recv = malloc(N * 8);
    CHECK(send && recv, "malloc");
    pthread_t pt, ct;
    atomic_store(&poll_stop, 0);
    CHECK(!pthread_create(&pt, NULL, poller, NULL), "thread");
    CHECK(!pthread_create(&ct, NULL, computer, NULL), "thread");
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < N; i++) send[i] = (uint64_t)(rank + 1) * (uint64_t)(i + round);
        memset(recv, 0, N * 8);
        wait_arg_t a = {NULL};
        CHECK_OK(arbor_allreduce_nb(ARBOR_TEAM_WORLD, send, recv, N, ARBOR_UINT64, ARBOR_SUM, NULL,
                                    &a.req));
        pthread_t wt;
        CHECK(!pthread_create(&wt, NULL, waiter, &a), "thread");
        pthread_join(wt, NULL);
        CHECK(a.req == NULL, "handle not cleared");
        uint64_t ranks_sum = (uint64_t)nranks * (uint64_t)(nranks + 1) / 2;
        for (int i = 0; i < N; i++)
            CHECK(recv[i] == ranks_sum * (uint64_t)(i + round), "allreduce element %d", i);
    }
    atomic_store(&poll_stop, 1);
    pthread_join(pt, NULL);
    pthread_join(ct, NULL);
    free(send);
    free(recv);
    if (rank == 0)
        printf("threads: %d waits on a waiter thread beside a computing thread and a poller "
               "(%ld polls)\n",
               ROUNDS, (long)atomic_load(&poll_calls));
}

/* ---- part 3: one-sided ---------------------------------------------------------------------- */

enum { TICKETS = 200, SLOT_BYTES = 512 };

typedef struct {
    int id;
    uint8_t *base;    /* this rank's allocation */
    void *remote_ctr; /* the counter at rank 0 */
    void *next_slot;  /* our slot at the next rank */
    uint64_t tickets[TICKETS];
} rma_worker_t;

static arbor_mem_h rma_mem;

static void *rma_main(void *arg)
{
    rma_worker_t *w = arg;
    uint64_t one = 1;
    for (int k = 0; k < TICKETS; k++)
        CHECK_OK(arbor_atomic(0, w->remote_ctr, ARBOR_AMO_FADD, ARBOR_UINT64, &one, NULL,
                              &w->tickets[k]));
    uint8_t out[SLOT_BYTES], back[SLOT_BYTES];
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < SLOT_BYTES; i++) out[i] = (uint8_t)(rank * 17 + w->id * 5 + round + i);
        int next = (rank + 1) % nranks;
        CHECK_OK(arbor_put(next, w->next_slot, out, SLOT_BYTES));
        CHECK_OK(arbor_fence(next));
        memset(back, 0, sizeof(back));
        CHECK_OK(arbor_get(next, back, w->next_slot, SLOT_BYTES));
        CHECK(!memcmp(out, back, SLOT_BYTES), "put/get round trip t%d round %d", w->id, round);
    }
    return NULL;
}

static void part_onesided(void)
{
    size_t bytes = 64 + (size_t)nt * SLOT_BYTES;
    void *local;
    CHECK_OK(arbor_mem_alloc(ARBOR_TEAM_WORLD, bytes, &rma_mem, &local));
    void *base0, *next_base;
    CHECK_OK(arbor_mem_addr(rma_mem, 0, &base0, NULL));
    CHECK_OK(arbor_mem_addr(rma_mem, (rank + 1) % nranks, &next_base, NULL));
    rma_worker_t *w = calloc((size_t)nt, sizeof(*w));
    pthread_t th[MAX_THREADS];
    CHECK(w, "calloc");
    for (int i = 0; i < nt; i++) {
        w[i].id = i;
        w[i].base = local;
        w[i].remote_ctr = base0;
        w[i].next_slot = (uint8_t *)next_base + 64 + (size_t)i * SLOT_BYTES;
        CHECK(!pthread_create(&th[i], NULL, rma_main, &w[i]), "thread");
    }
    for (int i = 0; i < nt; i++) pthread_join(th[i], NULL);
    CHECK_OK(arbor_quiet());
    /* Every ticket 0..total-1 taken exactly once, across every thread of every rank. */
    size_t mine = (size_t)nt * TICKETS, total = mine * (size_t)nranks;
    uint64_t *my = malloc(mine * 8), *all = malloc(total * 8);
    uint8_t *seen = calloc(total, 1);
    CHECK(my && all && seen, "malloc");
    for (int i = 0; i < nt; i++) memcpy(my + (size_t)i * TICKETS, w[i].tickets, TICKETS * 8);
    CHECK_OK(arbor_allgather(ARBOR_TEAM_WORLD, my, all, mine, ARBOR_UINT64));
    for (size_t i = 0; i < total; i++) {
        CHECK(all[i] < total, "ticket %llu out of range", (unsigned long long)all[i]);
        CHECK(!seen[all[i]], "ticket %llu taken twice", (unsigned long long)all[i]);
        seen[all[i]] = 1;
    }
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    if (rank == 0) {
        uint64_t v;
        memcpy(&v, local, 8);
        CHECK(v == total, "counter %llu, expected %zu", (unsigned long long)v, total);
    }
    /* The slots the previous rank's threads wrote last hold their last round. */
    for (int i = 0; i < nt; i++) {
        int prev = (rank + nranks - 1) % nranks;
        const uint8_t *s = (const uint8_t *)local + 64 + (size_t)i * SLOT_BYTES;
        for (int b = 0; b < SLOT_BYTES; b++)
            CHECK(s[b] == (uint8_t)(prev * 17 + i * 5 + 19 + b), "slot %d byte %d", i, b);
    }
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK_OK(arbor_mem_free(&rma_mem));
    free(my), free(all), free(seen), free(w);
    if (rank == 0)
        printf("threads: %zu fetch-add tickets exact, put/get from %d threads per rank\n", total,
               nt);
}

/* ---- part 4: a callback calling arbor ----------------------------------------------------- */

static atomic_int callback_status;

static void sum_calling_arbor(void *in, void *inout, size_t count, arbor_dtype_t dtype)
{
    (void)dtype;
    for (size_t i = 0; i < count; i++) ((uint64_t *)inout)[i] += ((const uint64_t *)in)[i];
    atomic_store(&callback_status, (int)arbor_barrier(ARBOR_TEAM_WORLD));
}

static void part_callback(void)
{
    if (nranks < 2) return;
    arbor_op_t op;
    CHECK_OK(arbor_op_create(sum_calling_arbor, 1, &op));
    uint64_t x = (uint64_t)rank + 1, y = 0;
    atomic_store(&callback_status, 1);
    CHECK_OK(arbor_allreduce(ARBOR_TEAM_WORLD, &x, &y, 1, ARBOR_UINT64, op));
    CHECK(y == (uint64_t)nranks * (uint64_t)(nranks + 1) / 2, "sum %llu", (unsigned long long)y);
    /* Every rank combines at least once in an allreduce of two or more ranks. */
    CHECK(atomic_load(&callback_status) == ARBOR_ERR_BUSY,
          "arbor_barrier inside a reduction returned %d, expected ARBOR_ERR_BUSY",
          atomic_load(&callback_status));
    CHECK_OK(arbor_op_free(op));
}

/* ---- part 5: active messages from every thread --------------------------------------------- */

enum { AM_REQ = 0, AM_REP = 1, AM_PER_THREAD = 100, AM_BYTES = 256 };
static atomic_long am_replies[MAX_THREADS];
static atomic_int am_refused, am_reply_failed;

static void am_fill(uint8_t *b, int src, int id, int k, int salt)
{
    for (int i = 0; i < AM_BYTES; i++) b[i] = (uint8_t)(src * 7 + id * 11 + k * 3 + i + salt);
}

static void on_request(arbor_am_token_h token, int src, void *payload, size_t nbytes, void *arg)
{
    (void)arg;
    const uint8_t *p = payload;
    CHECK(nbytes == AM_BYTES + 8, "request of %zu bytes", nbytes);
    int id = p[0], k = p[1] | p[2] << 8;
    uint8_t want[AM_BYTES], out[AM_BYTES + 8];
    am_fill(want, src, id, k, 0);
    CHECK(!memcmp(p + 8, want, AM_BYTES), "request payload from %d t%d #%d", src, id, k);
    if (k == 0 && arbor_barrier(ARBOR_TEAM_WORLD) == ARBOR_ERR_BUSY)
        atomic_fetch_add(&am_refused, 1);
    memcpy(out, p, 8);
    am_fill(out + 8, rank, id, k, 1);
    if (arbor_am_reply(token, AM_REP, out, sizeof(out)) != ARBOR_OK)
        atomic_fetch_add(&am_reply_failed, 1);
}

static void on_reply(arbor_am_token_h token, int src, void *payload, size_t nbytes, void *arg)
{
    (void)token, (void)arg;
    const uint8_t *p = payload;
    CHECK(nbytes == AM_BYTES + 8, "reply of %zu bytes", nbytes);
    int id = p[0], k = p[1] | p[2] << 8;
    uint8_t want[AM_BYTES];
    am_fill(want, src, id, k, 1);
    CHECK(src == (rank + 1) % nranks, "reply from %d", src);
    CHECK(id < nt && !memcmp(p + 8, want, AM_BYTES), "reply payload t%d #%d", id, k);
    atomic_fetch_add(&am_replies[id], 1);
}

static void *am_main(void *arg)
{
    int id = (int)(intptr_t)arg, target = (rank + 1) % nranks;
    uint8_t msg[AM_BYTES + 8] = {0};
    for (int k = 0; k < AM_PER_THREAD; k++) {
        msg[0] = (uint8_t)id, msg[1] = (uint8_t)k, msg[2] = (uint8_t)(k >> 8);
        am_fill(msg + 8, rank, id, k, 0);
        CHECK_OK(arbor_am_request(target, AM_REQ, msg, sizeof(msg)));
    }
    while (atomic_load(&am_replies[id]) < AM_PER_THREAD) CHECK_OK(arbor_poll());
    return NULL;
}

static void part_am(void)
{
    pthread_t th[MAX_THREADS];
    CHECK_OK(arbor_am_register(AM_REQ, on_request, NULL));
    CHECK_OK(arbor_am_register(AM_REP, on_reply, NULL));
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD)); /* handlers everywhere before any request */
    for (int i = 0; i < nt; i++)
        CHECK(!pthread_create(&th[i], NULL, am_main, (void *)(intptr_t)i), "thread");
    for (int i = 0; i < nt; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < nt; i++)
        CHECK(atomic_load(&am_replies[i]) == AM_PER_THREAD, "t%d got %ld replies", i,
              (long)atomic_load(&am_replies[i]));
    /* Our requests were served by the previous rank's handlers: count ours as target there. */
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    CHECK(atomic_load(&am_reply_failed) == 0, "%d replies failed", atomic_load(&am_reply_failed));
    CHECK(atomic_load(&am_refused) == nt, "%d of %d collectives refused in handlers",
          atomic_load(&am_refused), nt);
    if (rank == 0)
        printf("threads: %d active messages per rank from %d threads, replied from handlers\n",
               nt * AM_PER_THREAD, nt);
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 0;
    const char *env = getenv("ARBOR_TEST_THREADS");
    if (env && atoi(env) > 0) nt = atoi(env) < MAX_THREADS ? atoi(env) : MAX_THREADS;
    if (iters <= 0) iters = (10000 + nt - 1) / nt;
    int provided = -1;
    CHECK_OK(arbor_init_thread(ARBOR_THREAD_MULTIPLE, &provided));
    CHECK(provided == ARBOR_THREAD_MULTIPLE, "provided %d", provided);
    int level = -1;
    CHECK_OK(arbor_query_thread(&level));
    CHECK(level == ARBOR_THREAD_MULTIPLE, "query %d", level);
    CHECK(arbor_init_thread(7, &provided) == ARBOR_ERR_INVALID_ARG, "bad level accepted");
    CHECK(arbor_init_thread(ARBOR_THREAD_SINGLE, NULL) == ARBOR_ERR_INVALID_ARG, "NULL accepted");
    CHECK_OK(arbor_team_rank(ARBOR_TEAM_WORLD, &rank));
    CHECK_OK(arbor_team_size(ARBOR_TEAM_WORLD, &nranks));

    part_collectives(iters);
    part_wait_poll();
    part_onesided();
    part_callback();
    part_am();

    CHECK_OK(arbor_finalize());
    if (rank == 0) printf("threads: OK\n");
    return 0;
}
