/*
 * libFuzzer target: the schedule builders (algorithms/). The input picks a collective, an
 * algorithm, P (1..40), a root, a block size, a slot size and a LogGP model; every rank's
 * schedule is built and all of them run together in the simulator (tests/sched_sim.h), which
 * fails on a send without its receive, a message left over, or no rank able to move
 * (termination). Every byte of every destination must then be what the collective defines:
 * delivered, exactly once (a duplicate in a sum shows as a wrong value), and nowhere else.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "algorithms/coll.h"
#include "tests/sched_sim.h"

enum { SENT = 0xA5 };

static const arb_coll_t colls[] = {ARB_COLL_BARRIER, ARB_COLL_BCAST,     ARB_COLL_SCATTER,
                                   ARB_COLL_GATHER,  ARB_COLL_ALLGATHER, ARB_COLL_ALLTOALL,
                                   ARB_COLL_REDUCE,  ARB_COLL_ALLREDUCE};

static uint8_t pattern(int rank, size_t i)
{
    uint32_t x = (uint32_t)rank * 2654435761u + (uint32_t)i * 40503u + 977u;
    uint8_t v = (uint8_t)(x ^ (x >> 11));
    return v == SENT ? 0 : v;
}

/* Byte-wise sum mod 256: commutative and associative, so a byte combined twice or not at
 * all shows. */
static void add_bytes(void *inout, const void *in, size_t bytes, int order, void *arg)
{
    (void)order, (void)arg;
    for (size_t i = 0; i < bytes; i++) ((uint8_t *)inout)[i] += ((const uint8_t *)in)[i];
}

static uint8_t take(const uint8_t **d, size_t *n)
{
    if (!*n) return 0;
    (*n)--;
    return *(*d)++;
}

int arb_fuzz_sched(const uint8_t *data, size_t size)
{
    const uint8_t *d = data;
    size_t n = size;
    arb_coll_t coll = colls[take(&d, &n) % (sizeof(colls) / sizeof(colls[0]))];
    int nalg;
    const arb_alg_desc_t *tab = arb_alg_table(coll, &nalg);
    const arb_alg_desc_t *alg = &tab[1 + take(&d, &n) % (uint8_t)(nalg - 1)];
    int P = 1 + take(&d, &n) % 40, root = take(&d, &n) % P;
    size_t b = take(&d, &n) % 200, chunk = 64 * (1 + take(&d, &n) % 16);
    arb_logp_t m = {.L = take(&d, &n) / 8.0,
                    .os = take(&d, &n) / 16.0,
                    .orecv = take(&d, &n) / 16.0,
                    .g = take(&d, &n) / 16.0,
                    .G = take(&d, &n) / 4096.0};
    bool reduction = coll == ARB_COLL_REDUCE || coll == ARB_COLL_ALLREDUCE;
    size_t blocks_in = coll == ARB_COLL_SCATTER || coll == ARB_COLL_ALLTOALL ? (size_t)P : 1;
    size_t blocks_out =
        coll == ARB_COLL_GATHER || coll == ARB_COLL_ALLGATHER || coll == ARB_COLL_ALLTOALL
            ? (size_t)P
            : 1;

    arb_sched_t *s = calloc((size_t)P, sizeof(*s));
    arb_sim_rank_t *rk = calloc((size_t)P, sizeof(*rk));
    uint8_t **src = calloc((size_t)P, sizeof(*src)), **dst = calloc((size_t)P, sizeof(*dst));
    bool run = true;
    for (int r = 0; r < P; r++) {
        arb_coll_args_t a = {.coll = coll,
                             .rank = r,
                             .size = P,
                             .root = root,
                             .bytes = b,
                             .chunk = chunk,
                             .count = b,
                             .commutative = 1};
        arb_sched_init(&s[r]);
        arbor_status_t st = alg->build(alg, &a, &m, &s[r]);
        if (st == ARBOR_ERR_UNSUPPORTED) {
            run = false; /* e.g. recursive doubling at P not a power of two */
            continue;
        }
        if (st != ARBOR_OK || !arb_sched_ok(&s[r])) {
            fprintf(stderr, "%s/%s P=%d rank %d: build %d\n", arb_coll_name(coll), alg->name, P, r,
                    (int)st);
            abort();
        }
        src[r] = malloc(b * blocks_in + 1);
        dst[r] = malloc(b * blocks_out + 1);
        for (size_t i = 0; i < b * blocks_in; i++) src[r][i] = pattern(r, i);
        memset(dst[r], SENT, b * blocks_out + 1);
        /* bcast runs in one buffer: the root's holds the data (coll/coll_start.c). */
        if (coll == ARB_COLL_BCAST && r == root) memcpy(dst[r], src[r], b);
        rk[r].buf[ARB_BUF_SRC] = coll == ARB_COLL_BCAST ? dst[r] : src[r];
        rk[r].buf[ARB_BUF_DST] = dst[r];
        rk[r].block = reduction ? 1 : b;
    }
    if (run) {
        char err[256];
        if (arb_sim_run(P, s, rk, reduction ? add_bytes : NULL, NULL, err, sizeof(err)) != 0) {
            fprintf(stderr, "%s/%s P=%d root=%d b=%zu chunk=%zu: %s\n", arb_coll_name(coll),
                    alg->name, P, root, b, chunk, err);
            abort();
        }
        for (int r = 0; r < P; r++) {
            for (size_t i = 0; i < b * blocks_out; i++) {
                size_t q = i / (b ? b : 1), k = i % (b ? b : 1);
                int want = SENT;
                switch (coll) {
                case ARB_COLL_BCAST:
                    want = pattern(root, i);
                    break;
                case ARB_COLL_SCATTER:
                    want = pattern(root, (size_t)r * b + i);
                    break;
                case ARB_COLL_GATHER:
                    want = r == root ? pattern((int)q, k) : SENT;
                    break;
                case ARB_COLL_ALLGATHER:
                    want = pattern((int)q, k);
                    break;
                case ARB_COLL_ALLTOALL:
                    want = pattern((int)q, (size_t)r * b + k);
                    break;
                case ARB_COLL_REDUCE:
                case ARB_COLL_ALLREDUCE: {
                    uint8_t sum = 0;
                    for (int x = 0; x < P; x++) sum = (uint8_t)(sum + pattern(x, i));
                    want = coll == ARB_COLL_REDUCE && r != root ? SENT : sum;
                    break;
                }
                default:
                    break;
                }
                if (dst[r][i] != want) {
                    fprintf(stderr,
                            "%s/%s P=%d root=%d b=%zu chunk=%zu: rank %d byte %zu is %u, "
                            "want %d\n",
                            arb_coll_name(coll), alg->name, P, root, b, chunk, r, i, dst[r][i],
                            want);
                    abort();
                }
            }
        }
    }
    for (int r = 0; r < P; r++) {
        arb_sched_free(&s[r]);
        free(src[r]);
        free(dst[r]);
    }
    free(s), free(rk), free(src), free(dst);
    return 0;
}
