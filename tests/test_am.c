/*
 * Launched test of the active messages (arbor_am_*): ping-pong with checked payloads of 0 bytes
 * up to arbor_am_max_payload() to the next rank, replies arriving in request order; an
 * all-to-one storm (every rank sends STORM requests to rank 0, each handled exactly once and in
 * issue order per origin); the handler rules (a second reply, a request inside a handler, a
 * reply from a reply handler, a token used after its handler); and bad input with its specific
 * codes. With ARBOR_PROGRESS=thread it adds a busy target: rank 0 computes without calling
 * arbor until the progress thread has run every request aimed at it, and the senders get their
 * replies meanwhile.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arbor.h"

#include "launched_check.h"

#define CHECK_IS(_call, _want)                                                                     \
    do {                                                                                           \
        arbor_status_t _s = (_call);                                                               \
        CHECK(_s == (_want), "%s returned %s, expected %s", #_call, arbor_strerror(_s),            \
              arbor_strerror(_want));                                                              \
    } while (0)
#define CHECK_OK(_call) CHECK_IS(_call, ARBOR_OK)

enum { H_PING, H_PONG, H_STORM, H_BUSY, H_BUSY_ACK, H_RULES, H_RULES_ACK, H_UNUSED = 63 };
#define STORM      1000
#define BUSY_REQS  50
#define DEADLINE_S 30.0

static size_t sizes[16];
static int nsizes;

/* pongs: what came back, in order */
static int pongs, pong_bad;
/* storm at rank 0 */
static uint64_t *storm_next; /* [size] next sequence number expected from each origin */
static int storm_handled, storm_bad;
/* busy target */
static volatile int busy_handled;
static volatile int busy_acks;
/* handler rules */
static arbor_status_t rules_codes[4], rules_ack_code = ARBOR_OK;
static arbor_am_token_h stale_token;
static int rules_acks;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static unsigned char pat(int origin, size_t len, size_t i)
{
    return (unsigned char)(origin * 31 + len * 7 + i);
}

/* Polls until *counter reaches want or the deadline passes. */
static void poll_until(volatile int *counter, int want)
{
    double end = now_s() + DEADLINE_S;
    while (*counter < want && now_s() < end) arbor_poll();
}

static void on_ping(arbor_am_token_h tok, int src, void *payload, size_t nbytes, void *arg)
{
    (void)arg;
    unsigned char *p = payload, out[8192];
    int ok = nbytes <= sizeof(out) && (nbytes == 0 || p != NULL);
    for (size_t i = 0; ok && i < nbytes; i++) ok = p[i] == pat(src, nbytes, i);
    for (size_t i = 0; ok && i < nbytes; i++) out[i] = (unsigned char)(p[i] + 1);
    /* A bad ping is answered with one byte more than it had: the origin sees the mismatch. */
    size_t n = ok ? nbytes : (nbytes < arbor_am_max_payload() ? nbytes + 1 : 0);
    if (!ok) memset(out, 0, sizeof(out));
    arbor_am_reply(tok, H_PONG, out, n);
}

static void on_pong(arbor_am_token_h tok, int src, void *payload, size_t nbytes, void *arg)
{
    (void)tok, (void)arg;
    const unsigned char *p = payload;
    int me = rank, want_src = (rank + 1) % size;
    bool ok = src == want_src && pongs < nsizes && nbytes == sizes[pongs];
    for (size_t i = 0; ok && i < nbytes; i++) ok = p[i] == (unsigned char)(pat(me, nbytes, i) + 1);
    if (!ok) pong_bad++;
    pongs++;
}

static void on_storm(arbor_am_token_h tok, int src, void *payload, size_t nbytes, void *arg)
{
    (void)tok, (void)arg;
    uint64_t m[2] = {UINT64_MAX, UINT64_MAX};
    if (nbytes == sizeof(m)) memcpy(m, payload, sizeof(m));
    if (src < 0 || src >= size || m[0] != (uint64_t)src || m[1] != storm_next[src])
        storm_bad++;
    else
        storm_next[src]++;
    storm_handled++;
}

static void on_busy(arbor_am_token_h tok, int src, void *payload, size_t nbytes, void *arg)
{
    (void)arg;
    int64_t v = 0;
    if (nbytes == sizeof(v)) memcpy(&v, payload, sizeof(v));
    v = v * 2 + src;
    __atomic_add_fetch(&busy_handled, 1, __ATOMIC_RELEASE);
    arbor_am_reply(tok, H_BUSY_ACK, &v, sizeof(v));
}

static int64_t busy_sum;
static void on_busy_ack(arbor_am_token_h tok, int src, void *payload, size_t nbytes, void *arg)
{
    (void)tok, (void)src, (void)arg;
    int64_t v = -1;
    if (nbytes == sizeof(v)) memcpy(&v, payload, sizeof(v));
    busy_sum += v;
    __atomic_add_fetch(&busy_acks, 1, __ATOMIC_RELEASE);
}

static void on_rules(arbor_am_token_h tok, int src, void *payload, size_t nbytes, void *arg)
{
    (void)payload, (void)nbytes, (void)arg;
    int32_t v = src;
    rules_codes[0] = arbor_am_reply(tok, H_RULES_ACK, &v, sizeof(v));
    rules_codes[1] = arbor_am_reply(tok, H_RULES_ACK, &v, sizeof(v));
    rules_codes[2] = arbor_am_request(src, H_RULES_ACK, &v, sizeof(v));
    rules_codes[3] = arbor_am_reply(NULL, H_RULES_ACK, NULL, 0);
    stale_token = tok;
}

static void on_rules_ack(arbor_am_token_h tok, int src, void *payload, size_t nbytes, void *arg)
{
    (void)src, (void)payload, (void)nbytes, (void)arg;
    rules_ack_code = arbor_am_reply(tok, H_RULES_ACK, NULL, 0);
    rules_acks++;
}

static void nop(arbor_am_token_h tok, int src, void *payload, size_t nbytes, void *arg)
{
    (void)tok, (void)src, (void)payload, (void)nbytes, (void)arg;
}

static void test_bad_input(void)
{
    size_t max = arbor_am_max_payload();
    unsigned char *big = calloc(1, max + 1);
    CHECK(max >= 1024, "max payload %zu", max);
    CHECK_IS(arbor_am_register(-1, nop, NULL), ARBOR_ERR_INVALID_ARG);
    CHECK_IS(arbor_am_register(ARBOR_AM_MAX_HANDLERS, nop, NULL), ARBOR_ERR_INVALID_ARG);
    CHECK_IS(arbor_am_register(10, NULL, NULL), ARBOR_ERR_INVALID_ARG);
    CHECK_IS(arbor_am_register(H_PING, nop, NULL), ARBOR_ERR_BUSY);
    CHECK_IS(arbor_am_request(size, H_PING, big, 1), ARBOR_ERR_RANK);
    CHECK_IS(arbor_am_request(-1, H_PING, big, 1), ARBOR_ERR_RANK);
    CHECK_IS(arbor_am_request(0, H_UNUSED, big, 1), ARBOR_ERR_INVALID_ARG);
    CHECK_IS(arbor_am_request(0, -1, big, 1), ARBOR_ERR_INVALID_ARG);
    CHECK_IS(arbor_am_request(0, ARBOR_AM_MAX_HANDLERS, big, 1), ARBOR_ERR_INVALID_ARG);
    CHECK_IS(arbor_am_request(0, H_STORM, big, max + 1), ARBOR_ERR_COUNT);
    CHECK_IS(arbor_am_request(0, H_STORM, NULL, 16), ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_am_reply(NULL, H_PONG, big, 1), ARBOR_ERR_HANDLE);
    free(big);
}

static void test_ping_pong(void)
{
    size_t max = arbor_am_max_payload();
    size_t want[] = {0, 1, 7, 8, 64, 1000, 1024, max - 1, max, 3};
    nsizes = (int)(sizeof(want) / sizeof(want[0]));
    memcpy(sizes, want, sizeof(want));
    unsigned char *buf = malloc(max);
    int to = (rank + 1) % size;
    for (int k = 0; k < nsizes; k++) {
        for (size_t i = 0; i < sizes[k]; i++) buf[i] = pat(rank, sizes[k], i);
        CHECK_OK(arbor_am_request(to, H_PING, buf, sizes[k]));
        memset(buf, 0, max); /* the payload was copied: the handler must not see this */
    }
    poll_until(&pongs, nsizes);
    CHECK(pongs == nsizes && pong_bad == 0, "%d of %d pongs, %d wrong", pongs, nsizes, pong_bad);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    free(buf);
}

static void test_storm(void)
{
    for (uint64_t s = 0; s < STORM; s++) {
        uint64_t m[2] = {(uint64_t)rank, s};
        arbor_status_t st = arbor_am_request(0, H_STORM, m, sizeof(m));
        CHECK(st == ARBOR_OK, "storm request %llu: %s", (unsigned long long)s, arbor_strerror(st));
        if (st != ARBOR_OK) break;
    }
    if (rank == 0) {
        poll_until(&storm_handled, STORM * size);
        CHECK(storm_handled == STORM * size && storm_bad == 0,
              "storm: %d of %d handled, %d out of order or malformed", storm_handled, STORM * size,
              storm_bad);
        for (int r = 0; r < size; r++)
            CHECK(storm_next[r] == STORM, "storm: %llu requests from rank %d",
                  (unsigned long long)storm_next[r], r);
    }
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
}

static void test_rules(void)
{
    int32_t v = rank;
    CHECK_OK(arbor_am_request((rank + 1) % size, H_RULES, &v, sizeof(v)));
    poll_until(&rules_acks, 1);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD)); /* every H_RULES has run here too */
    CHECK(rules_acks == 1, "rules: %d acks", rules_acks);
    CHECK(rules_codes[0] == ARBOR_OK, "first reply: %s", arbor_strerror(rules_codes[0]));
    CHECK(rules_codes[1] == ARBOR_ERR_HANDLE, "second reply: %s", arbor_strerror(rules_codes[1]));
    CHECK(rules_codes[2] == ARBOR_ERR_BUSY, "request in a handler: %s",
          arbor_strerror(rules_codes[2]));
    CHECK(rules_codes[3] == ARBOR_ERR_HANDLE, "NULL token: %s", arbor_strerror(rules_codes[3]));
    CHECK(rules_ack_code == ARBOR_ERR_HANDLE, "reply from a reply handler: %s",
          arbor_strerror(rules_ack_code));
    CHECK_IS(arbor_am_reply(stale_token, H_RULES_ACK, NULL, 0), ARBOR_ERR_HANDLE);
}

/* Rank 0 computes without calling arbor; only the progress thread can serve it. */
static void test_busy_target(void)
{
    int want = BUSY_REQS * (size - 1);
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
    if (rank == 0) {
        double end = now_s() + DEADLINE_S, x = 1;
        while (__atomic_load_n(&busy_handled, __ATOMIC_ACQUIRE) < want && now_s() < end)
            for (int i = 0; i < 10000; i++) x = x * 1.0000001 + 1e-9;
        int served = __atomic_load_n(&busy_handled, __ATOMIC_ACQUIRE);
        CHECK(served == want, "busy target served %d of %d (x %g)", served, want, x);
    } else {
        int64_t expect = 0;
        for (int64_t k = 0; k < BUSY_REQS; k++) {
            CHECK_OK(arbor_am_request(0, H_BUSY, &k, sizeof(k)));
            expect += 2 * k + rank; /* the handler answers 2 v + origin */
        }
        poll_until(&busy_acks, BUSY_REQS);
        CHECK(busy_acks == BUSY_REQS && busy_sum == expect, "busy: %d replies, sum %lld of %lld",
              busy_acks, (long long)busy_sum, (long long)expect);
    }
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD));
}

int main(void)
{
    if (arbor_am_request(0, 0, NULL, 0) != ARBOR_ERR_NOT_INITIALIZED) failures++;
    arbor_status_t st = arbor_init();
    if (st != ARBOR_OK) {
        fprintf(stderr, "arbor_init: %s\n", arbor_strerror(st));
        return st == ARBOR_ERR_UNSUPPORTED ? 77 : 1;
    }
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    storm_next = calloc((size_t)size, sizeof(uint64_t));
    CHECK_OK(arbor_am_register(H_PING, on_ping, NULL));
    CHECK_OK(arbor_am_register(H_PONG, on_pong, NULL));
    CHECK_OK(arbor_am_register(H_STORM, on_storm, NULL));
    CHECK_OK(arbor_am_register(H_BUSY, on_busy, NULL));
    CHECK_OK(arbor_am_register(H_BUSY_ACK, on_busy_ack, NULL));
    CHECK_OK(arbor_am_register(H_RULES, on_rules, NULL));
    CHECK_OK(arbor_am_register(H_RULES_ACK, on_rules_ack, NULL));
    CHECK_OK(arbor_barrier(ARBOR_TEAM_WORLD)); /* registered everywhere before any message */

    test_bad_input();
    test_ping_pong();
    test_storm();
    test_rules();
    const char *prog = getenv("ARBOR_PROGRESS");
    if (prog && !strcmp(prog, "thread") && size > 1) test_busy_target();

    CHECK_OK(arbor_finalize());
    free(storm_next);
    if (rank == 0 || failures)
        printf("rank %d of %d: %d checks, %d failures: %s\n", rank, size, checks, failures,
               failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
