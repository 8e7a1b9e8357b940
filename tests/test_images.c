/*
 * Launched test of the images ("i") collectives: arbor_images_init (agreement check, a second
 * call, bad tables), then bcasti, scatteri, gatheri, allgatheri and alltoalli with uneven
 * images per rank (rank r has r % 3 + 1), every root image, 0, 1, 7, 4096 and 1 MiB + 3 bytes,
 * LOCAL / SINGLE / default address lists, blocking, _nb with wait / test / ASYNC_FENCE /
 * AGGREGATE / ALLSYNC, several in flight at once, on the world team, a split team (reversed
 * order) and one-rank teams, and bad input. Every destination byte (and a guard byte on each
 * side of every buffer) is checked against values each rank computes itself.
 */
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbor.h"

#define BIG (((size_t)1 << 20) + 3) /* the largest nbytes */

#include "launched_check.h"

static size_t *img; /* images per world rank */

#define CHECK_IS(_call, _want)                                                                     \
    do {                                                                                           \
        arbor_status_t _s = (_call);                                                               \
        CHECK(_s == (_want), "%s returned %s, expected %s", #_call, arbor_strerror(_s),            \
              arbor_strerror(_want));                                                              \
    } while (0)
#define CHECK_OK(_call) CHECK_IS(_call, ARBOR_OK)

/* A team as the test sees it: the images of its members in team order. */
typedef struct {
    arbor_team_h team;
    const char *name;
    int P, me;
    size_t *cnt, *off;
    size_t N, m, first;
} tctx_t;

static void tctx_init(tctx_t *T, arbor_team_h team, const char *name)
{
    memset(T, 0, sizeof(*T));
    T->team = team;
    T->name = name;
    arbor_team_size(team, &T->P);
    arbor_team_rank(team, &T->me);
    int *world = malloc(sizeof(int) * (size_t)T->P);
    CHECK_OK(arbor_allgather(team, &rank, world, 1, ARBOR_INT));
    T->cnt = malloc(sizeof(size_t) * (size_t)T->P);
    T->off = malloc(sizeof(size_t) * (size_t)T->P);
    for (int r = 0; r < T->P; r++) {
        T->cnt[r] = img[world[r]];
        T->off[r] = T->N;
        T->N += T->cnt[r];
    }
    T->m = T->cnt[T->me];
    T->first = T->off[T->me];
    size_t n = 0, first = 99, mine = 0;
    CHECK_OK(arbor_team_images(team, &n, &first, &mine));
    CHECK(n == T->N && first == T->first && mine == T->m,
          "%s: team_images %zu %zu %zu, expected %zu %zu %zu", name, n, first, mine, T->N, T->first,
          T->m);
    free(world);
}

static void tctx_free(tctx_t *T)
{
    free(T->cnt);
    free(T->off);
}

static int owner(const tctx_t *T, size_t image)
{
    int r = 0;
    while (r + 1 < T->P && T->off[r + 1] <= image) r++;
    return r;
}

static uint8_t pat(int salt, size_t a, size_t b, size_t i)
{
    return (uint8_t)(i * 7u + (i >> 8) * 11u + a * 37u + b * 101u + (size_t)salt * 59u + 1u);
}

/* pat(salt, a, b, i) == base[i] + shift(salt, a, b): whole blocks filled and checked in loops
 * the compiler vectorises (the big cases are several hundred MiB over all ranks). */
static uint8_t *base;
static uint8_t shift(int salt, size_t a, size_t b)
{
    return (uint8_t)(a * 37u + b * 101u + (size_t)salt * 59u);
}

/* Buffers with a guard byte on each side. */
#define GUARD 0xA5
static uint8_t *galloc(size_t len, uint8_t fill)
{
    uint8_t *mem = malloc(len + 2);
    mem[0] = mem[len + 1] = GUARD;
    memset(mem + 1, fill, len);
    return mem + 1;
}

static void gfree(uint8_t *p, size_t len, const char *what)
{
    if (!p) return;
    CHECK(p[-1] == GUARD && p[len] == GUARD, "%s: guard byte overwritten", what);
    free(p - 1);
}

/* A buffer of nblocks blocks of b bytes: byte i of block j is pat(salt, A, B, i) with A or B
 * the block index (VARY_A / VARY_B) or the constants a, bb. Fills it, or checks it and says
 * where the first difference is. */
enum { VARY_NONE, VARY_A, VARY_B };
static int pattern(uint8_t *buf, size_t nblocks, size_t b, int salt, size_t a, size_t bb, int vary,
                   bool check, const char *what, const char *role)
{
    for (size_t j = 0; buf && j < nblocks; j++) {
        size_t A = vary == VARY_A ? j : a, B = vary == VARY_B ? j : bb;
        uint8_t *p = buf + j * b, k = shift(salt, A, B), diff = 0;
        if (!check) {
            for (size_t i = 0; i < b; i++) p[i] = (uint8_t)(base[i] + k);
            continue;
        }
        for (size_t i = 0; i < b; i++) diff |= (uint8_t)(p[i] ^ (uint8_t)(base[i] + k));
        for (size_t i = 0; diff && i < b; i++) {
            if (p[i] != pat(salt, A, B, i)) {
                CHECK(0, "%s: %s block %zu byte %zu is %u, expected %u", what, role, j, i, p[i],
                      pat(salt, A, B, i));
                return 1;
            }
        }
    }
    if (check) checks++;
    return 0;
}

enum { K_BCAST, K_SCATTER, K_GATHER, K_ALLGATHER, K_ALLTOALL, NKINDS };
static const char *const kind_name[] = {"bcasti", "scatteri", "gatheri", "allgatheri", "alltoalli"};
enum { A_DEFAULT, A_LOCAL, A_SINGLE, NADDR };
enum { M_BLOCKING, M_WAIT, M_TEST, M_FENCE, M_AGGREGATE, M_ALLSYNC, NMODES };
static const char *const mode_name[] = {"blocking", "nb+wait",   "nb+test",
                                        "fence",    "aggregate", "allsync"};

typedef struct {
    const tctx_t *T;
    int kind, addr, mode, salt;
    size_t nbytes, root;
    bool null_lists;
    uint8_t *one; /* bcast / scatter: the root's src; gather: the root's dst */
    size_t one_len;
    uint8_t **src, **dst; /* per local image */
    size_t src_len, dst_len;
    void **sl, **dl;  /* the lists passed: m entries, or N (SINGLE) */
    uint64_t *raw[2]; /* SINGLE: this rank's addresses, then everyone's */
    arbor_request_h list_req[2];
    arbor_request_h req;
    char what[160];
} case_t;

/* Roles of a case's buffers: blocks, and what varies with the block index. */
static void layout(const case_t *c, int role, size_t image, size_t *nblocks, size_t *a, size_t *bb,
                   int *vary)
{
    size_t N = c->T->N, root = c->root;
    *nblocks = 1, *vary = VARY_NONE;
    switch (c->kind * 3 + role) { /* role 0: the root's single buffer, 1: src, 2: dst */
    case K_BCAST * 3 + 0:
    case K_BCAST * 3 + 2:
        *a = root, *bb = 0;
        break;
    case K_SCATTER * 3 + 0:
        *nblocks = N, *a = root, *vary = VARY_B;
        break;
    case K_SCATTER * 3 + 2:
        *a = root, *bb = image;
        break;
    case K_GATHER * 3 + 0:
        *nblocks = N, *bb = root, *vary = VARY_A;
        break;
    case K_GATHER * 3 + 1:
        *a = image, *bb = root;
        break;
    case K_ALLGATHER * 3 + 1:
        *a = image, *bb = N;
        break;
    case K_ALLGATHER * 3 + 2:
        *nblocks = N, *bb = N, *vary = VARY_A;
        break;
    case K_ALLTOALL * 3 + 1:
        *nblocks = N, *a = image, *vary = VARY_B;
        break;
    default:
        *nblocks = N, *bb = image, *vary = VARY_A;
        break; /* alltoall dst */
    }
}

static int role_pattern(case_t *c, int role, uint8_t *buf, size_t image, bool check)
{
    size_t nblocks, a = 0, bb = 0;
    int vary;
    layout(c, role, image, &nblocks, &a, &bb, &vary);
    static const char *const roles[] = {"root buffer", "source", "destination"};
    return pattern(buf, nblocks, c->nbytes, c->salt, a, bb, vary, check, c->what, roles[role]);
}

/* SINGLE lists: every rank's m addresses, gathered (non-blocking) so that every rank holds
 * the same N entries. */
static void single_start(case_t *c, int i, uint8_t **local)
{
    const tctx_t *T = c->T;
    c->raw[i] = malloc(8 * (T->m + T->N));
    for (size_t k = 0; k < T->m; k++) c->raw[i][k] = (uint64_t)(uintptr_t)local[k];
    CHECK_OK(arbor_allgatherv_nb(T->team, c->raw[i], T->m, c->raw[i] + T->m, T->cnt, T->off,
                                 ARBOR_UINT64, NULL, &c->list_req[i]));
}

static void **single_finish(case_t *c, int i)
{
    void **list = malloc(sizeof(void *) * c->T->N);
    for (size_t j = 0; j < c->T->N; j++) list[j] = (void *)(uintptr_t)c->raw[i][c->T->m + j];
    free(c->raw[i]);
    return list;
}

static void case_prepare(case_t *c)
{
    const tctx_t *T = c->T;
    size_t b = c->nbytes, N = T->N, m = T->m;
    bool is_root = c->kind <= K_GATHER && owner(T, c->root) == T->me;
    snprintf(c->what, sizeof(c->what), "%s %s %s root %zu nbytes %zu %s", T->name,
             kind_name[c->kind], mode_name[c->mode], c->root, b,
             c->addr == A_SINGLE  ? "SINGLE"
             : c->addr == A_LOCAL ? "LOCAL"
                                  : "default");
    c->src_len = c->kind == K_ALLTOALL ? N * b : b;
    c->dst_len = c->kind == K_ALLGATHER || c->kind == K_ALLTOALL ? N * b : b;
    c->one_len = c->kind == K_BCAST ? b : N * b;
    c->src = calloc(m, sizeof(uint8_t *));
    c->dst = calloc(m, sizeof(uint8_t *));
    if (is_root && c->kind != K_GATHER) {
        c->one = galloc(c->one_len, 0);
        role_pattern(c, 0, c->one, 0, false);
    } else if (is_root) {
        c->one = galloc(c->one_len, 0xEE);
    }
    for (size_t k = 0; k < m; k++) {
        if (c->kind != K_BCAST && c->kind != K_SCATTER) {
            c->src[k] = galloc(c->src_len, 0);
            role_pattern(c, 1, c->src[k], T->first + k, false);
        }
        if (c->kind != K_GATHER) c->dst[k] = galloc(c->dst_len, 0xEE);
    }
    c->null_lists = b == 0 && c->salt % 2;
    c->sl = (void **)c->src;
    c->dl = (void **)c->dst;
    if (c->addr == A_SINGLE) {
        if (c->kind != K_BCAST && c->kind != K_SCATTER) single_start(c, 0, c->src);
        if (c->kind != K_GATHER) single_start(c, 1, c->dst);
    }
}

static arbor_status_t case_start(case_t *c)
{
    const tctx_t *T = c->T;
    if (c->addr == A_SINGLE) {
        CHECK_OK(arbor_wait_all(2, c->list_req));
        c->sl = c->raw[0] ? single_finish(c, 0) : NULL;
        c->dl = c->raw[1] ? single_finish(c, 1) : NULL;
    }
    arbor_op_params_t p = {.field_mask = ARBOR_OP_PARAM_FLAGS};
    const arbor_op_params_t *pp = &p;
    if (c->addr == A_LOCAL) p.flags |= ARBOR_LOCAL;
    if (c->addr == A_SINGLE) p.flags |= ARBOR_SINGLE;
    if (c->mode == M_FENCE) p.flags |= ARBOR_ASYNC_FENCE;
    if (c->mode == M_AGGREGATE) p.flags |= ARBOR_AGGREGATE;
    if (c->mode == M_ALLSYNC) p.flags |= ARBOR_IN_ALLSYNC | ARBOR_OUT_ALLSYNC;
    if (!p.flags && c->salt % 3 == 0) pp = NULL;
    bool blocking = c->mode == M_BLOCKING || c->mode == M_ALLSYNC;
    arbor_request_h *r = c->mode == M_FENCE || c->mode == M_AGGREGATE ? NULL : &c->req;
    void *const *sl = c->null_lists ? NULL : c->sl, *const *dl = c->null_lists ? NULL : c->dl;
    void *one = c->null_lists ? NULL : c->one;
    size_t b = c->nbytes;
    c->req = NULL;
    switch (c->kind) {
    case K_BCAST:
        return blocking ? arbor_bcasti(T->team, dl, c->root, one, b, pp)
                        : arbor_bcasti_nb(T->team, dl, c->root, one, b, pp, r);
    case K_SCATTER:
        return blocking ? arbor_scatteri(T->team, dl, c->root, one, b, pp)
                        : arbor_scatteri_nb(T->team, dl, c->root, one, b, pp, r);
    case K_GATHER:
        return blocking ? arbor_gatheri(T->team, c->root, one, sl, b, pp)
                        : arbor_gatheri_nb(T->team, c->root, one, sl, b, pp, r);
    case K_ALLGATHER:
        return blocking ? arbor_allgatheri(T->team, dl, sl, b, pp)
                        : arbor_allgatheri_nb(T->team, dl, sl, b, pp, r);
    default:
        return blocking ? arbor_alltoalli(T->team, dl, sl, b, pp)
                        : arbor_alltoalli_nb(T->team, dl, sl, b, pp, r);
    }
}

/* Checks every byte, the guards and that the sources are unchanged; frees the case. */
static void case_check(case_t *c)
{
    const tctx_t *T = c->T;
    int bad = 0;
    for (size_t k = 0; k < T->m; k++) {
        if (!bad && c->dst[k]) bad = role_pattern(c, 2, c->dst[k], T->first + k, true);
        if (!bad && c->src[k]) bad = role_pattern(c, 1, c->src[k], T->first + k, true);
        gfree(c->src[k], c->src_len, c->what);
        gfree(c->dst[k], c->dst_len, c->what);
    }
    if (!bad && c->one) role_pattern(c, 0, c->one, 0, true);
    gfree(c->one, c->one_len, c->what);
    free(c->src);
    free(c->dst);
    if (c->addr == A_SINGLE) {
        free(c->sl);
        free(c->dl);
    }
}

/* Runs n cases of one team together: all prepared, all started (blocking ones complete on
 * the spot, the others stay in flight), then completed (handles in reverse order, some by
 * test, the fence, a handle for a trailing aggregate) and checked. */
static void run_batch(case_t *c, int n)
{
    arbor_team_h team = c[0].T->team;
    bool fence = false, aggregate = false;
    for (int i = 0; i < n; i++) case_prepare(&c[i]);
    for (int i = 0; i < n; i++) {
        arbor_status_t st = case_start(&c[i]);
        CHECK(st == ARBOR_OK, "%s: %s", c[i].what, arbor_strerror(st));
        fence |= c[i].mode == M_FENCE;
        aggregate = c[i].mode == M_AGGREGATE || (aggregate && !c[i].req);
    }
    for (int i = n - 1; i >= 0; i--) {
        arbor_status_t st;
        if (c[i].mode == M_TEST) {
            /* yield between tests: ranks outnumber cores in these runs */
            while ((st = arbor_test(&c[i].req)) == ARBOR_INPROGRESS) sched_yield();
            CHECK(st == ARBOR_OK && c[i].req == NULL, "%s: test %s", c[i].what, arbor_strerror(st));
        } else if (c[i].req) {
            CHECK_OK(arbor_wait(&c[i].req));
        }
    }
    if (fence) CHECK_OK(arbor_coll_fence(team));
    if (aggregate) { /* the aggregate completes under the next call's handle */
        arbor_request_h h;
        CHECK_OK(arbor_barrier_nb(team, NULL, &h));
        CHECK_OK(arbor_wait(&h));
    }
    for (int i = 0; i < n; i++) case_check(&c[i]);
}

static void run_case(const tctx_t *T, int kind, size_t nbytes, size_t root, int mode, int addr,
                     int salt)
{
    case_t c = {.T = T,
                .kind = kind,
                .nbytes = nbytes,
                .root = root,
                .mode = mode,
                .addr = addr,
                .salt = salt};
    run_batch(&c, 1);
}

/* Every kind, every root image, the small sizes, every mode and address list (rotating). */
static void test_sweep(const tctx_t *T)
{
    static const size_t sizes[] = {0, 1, 7, 4096};
    int salt = 0;
    case_t *c = calloc(T->N > NMODES ? T->N : NMODES, sizeof(case_t));
    for (int s = 0; s < 4; s++)
        for (int kind = 0; kind < NKINDS; kind++) {
            size_t n = kind <= K_GATHER ? T->N : NMODES;
            for (size_t i = 0; i < n; i++, salt++)
                c[i] = (case_t){.T = T,
                                .kind = kind,
                                .nbytes = sizes[s],
                                .root = kind <= K_GATHER ? i : 0,
                                .mode = (int)((i + (size_t)s + (size_t)kind) % NMODES),
                                .addr = (int)((i + (size_t)s) % NADDR),
                                .salt = salt};
            run_batch(c, (int)n);
        }
    free(c);
}

/* 1 MiB + 3 bytes per image. */
static void test_large(const tctx_t *T, bool rooted)
{
    size_t n = BIG;
    case_t r[] = {
        {.T = T, .kind = K_BCAST, .nbytes = n, .root = 0, .mode = M_BLOCKING, .salt = 101},
        {.T = T,
         .kind = K_BCAST,
         .nbytes = n,
         .root = T->N - 1,
         .mode = M_WAIT,
         .addr = A_SINGLE,
         .salt = 102},
        {.T = T,
         .kind = K_SCATTER,
         .nbytes = n,
         .root = T->N / 2,
         .mode = M_TEST,
         .addr = A_LOCAL,
         .salt = 103},
        {.T = T,
         .kind = K_GATHER,
         .nbytes = n,
         .root = T->N - 1,
         .mode = M_FENCE,
         .addr = A_SINGLE,
         .salt = 104},
    };
    case_t u[] = {
        {.T = T, .kind = K_ALLGATHER, .nbytes = n, .mode = M_WAIT, .addr = A_LOCAL, .salt = 105},
        {.T = T,
         .kind = K_ALLTOALL,
         .nbytes = n,
         .mode = M_AGGREGATE,
         .addr = A_SINGLE,
         .salt = 106},
    };
    if (rooted)
        run_batch(r, 4);
    else
        run_batch(u, 2);
}

/* All five kinds (twice) in flight at once. */
static void test_inflight(const tctx_t *T)
{
    enum { NC = 2 * NKINDS };
    case_t c[NC];
    for (int i = 0; i < NC; i++)
        c[i] = (case_t){.T = T,
                        .kind = i % NKINDS,
                        .nbytes = i < NKINDS ? 7 : 4096 + 5,
                        .root = (size_t)i % T->N,
                        .mode = M_WAIT + i % 2,
                        .addr = i % NADDR,
                        .salt = 200 + i};
    run_batch(c, NC);
}

/* A rank with no buffers for its images: a rooted call's single buffer on a one-rank team. */
static void test_self_team(void)
{
    arbor_team_h self;
    CHECK_OK(arbor_team_split(ARBOR_TEAM_WORLD, rank, 0, &self));
    tctx_t T;
    tctx_init(&T, self, "self");
    uint8_t b[8] = {0};
    void *list[3] = {b, b, b};
    CHECK_IS(arbor_bcasti(self, list, 0, NULL, 8, NULL), ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_scatteri(self, list, 0, NULL, 1, NULL), ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_gatheri(self, 0, NULL, list, 1, NULL), ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_bcasti(self, list, T.N, b, 8, NULL), ARBOR_ERR_ROOT);
    for (int kind = 0; kind < NKINDS; kind++)
        for (size_t root = 0; root < T.N; root++)
            run_case(&T, kind, 7, root, (int)(root % NMODES), (int)root % NADDR, 300 + kind);
    tctx_free(&T);
    CHECK_OK(arbor_team_free(&self));
}

static void test_init(void)
{
    size_t *bad = malloc(sizeof(size_t) * (size_t)size);
    uint8_t b[8] = {0};
    void *list[3] = {b, b, b};
    arbor_request_h h = NULL;
    CHECK_IS(arbor_bcasti(ARBOR_TEAM_WORLD, list, 0, b, 1, NULL), ARBOR_ERR_NOT_INITIALIZED);
    CHECK_IS(arbor_alltoalli_nb(ARBOR_TEAM_WORLD, list, list, 1, NULL, &h),
             ARBOR_ERR_NOT_INITIALIZED);
    CHECK_IS(arbor_team_images(ARBOR_TEAM_WORLD, NULL, NULL, NULL), ARBOR_ERR_NOT_INITIALIZED);
    CHECK_IS(arbor_images_init(NULL), ARBOR_ERR_INVALID_ARG);
    memcpy(bad, img, sizeof(size_t) * (size_t)size);
    bad[size - 1] = 0; /* a zero entry, the same everywhere */
    CHECK_IS(arbor_images_init(bad), ARBOR_ERR_INVALID_ARG);
    if (size > 1) {
        memcpy(bad, img, sizeof(size_t) * (size_t)size);
        if (rank == 1) bad[0]++; /* one rank disagrees */
        CHECK_IS(arbor_images_init(bad), ARBOR_ERR_INVALID_ARG);
        memcpy(bad, img, sizeof(size_t) * (size_t)size);
        if (rank == size - 1) bad[0] = 0; /* one rank's table is bad, the others' fine */
        CHECK_IS(arbor_images_init(bad), ARBOR_ERR_INVALID_ARG);
        memcpy(bad, img, sizeof(size_t) * (size_t)size);
        if (rank == 0) bad = (free(bad), NULL); /* one rank passes NULL */
        CHECK_IS(arbor_images_init(bad), ARBOR_ERR_INVALID_ARG);
    }
    CHECK_IS(arbor_team_images(ARBOR_TEAM_WORLD, NULL, NULL, NULL), ARBOR_ERR_NOT_INITIALIZED);
    CHECK_OK(arbor_images_init(img));
    CHECK_IS(arbor_images_init(img), ARBOR_ERR_BUSY);
    CHECK_IS(arbor_team_images((arbor_team_h)(uintptr_t)0x42, NULL, NULL, NULL), ARBOR_ERR_TEAM);
    free(bad);
}

static void test_bad_input(const tctx_t *T)
{
    size_t m = T->m, N = T->N;
    uint8_t *b = calloc(1, 64 * N + 64);
    void **list = malloc(sizeof(void *) * N);
    for (size_t i = 0; i < N; i++) list[i] = b;
    arbor_team_h W = ARBOR_TEAM_WORLD, bogus = (arbor_team_h)(uintptr_t)0x42;
    arbor_op_params_t p = {.field_mask = ARBOR_OP_PARAM_FLAGS};
    arbor_request_h h = NULL;

    CHECK_IS(arbor_bcasti(bogus, list, 0, b, 1, NULL), ARBOR_ERR_TEAM);
    p.flags = ARBOR_SINGLE | ARBOR_LOCAL;
    CHECK_IS(arbor_bcasti(W, list, 0, b, 1, &p), ARBOR_ERR_FLAGS);
    CHECK_IS(arbor_allgatheri_nb(W, list, list, 1, &p, &h), ARBOR_ERR_FLAGS);
    p.flags = ARBOR_ASYNC_FENCE;
    CHECK_IS(arbor_gatheri(W, 0, b, list, 1, &p), ARBOR_ERR_FLAGS);
    p.flags = ARBOR_AGGREGATE | ARBOR_LOCAL;
    CHECK_IS(arbor_alltoalli(W, list, list, 1, &p), ARBOR_ERR_FLAGS);
    p.flags = 1u << 30;
    CHECK_IS(arbor_scatteri_nb(W, list, 0, b, 1, &p, &h), ARBOR_ERR_FLAGS);
    arbor_op_params_t q = {.field_mask = 1u << 5};
    CHECK_IS(arbor_scatteri_nb(W, list, 0, b, 1, &q, &h), ARBOR_ERR_INVALID_ARG);
    CHECK_IS(arbor_bcasti_nb(W, list, 0, b, 1, NULL, NULL), ARBOR_ERR_INVALID_ARG);
    CHECK_IS(arbor_bcasti(W, list, N, b, 1, NULL), ARBOR_ERR_ROOT);
    CHECK_IS(arbor_scatteri_nb(W, list, SIZE_MAX, b, 1, NULL, &h), ARBOR_ERR_ROOT);
    CHECK_IS(arbor_gatheri(W, N + 5, b, list, 1, NULL), ARBOR_ERR_ROOT);
    size_t huge = (size_t)1 << 50;
    CHECK_IS(arbor_bcasti(W, list, 0, b, huge, NULL), ARBOR_ERR_COUNT);
    CHECK_IS(arbor_scatteri(W, list, 0, b, huge, NULL), ARBOR_ERR_COUNT);
    CHECK_IS(arbor_gatheri(W, 0, b, list, huge, NULL), ARBOR_ERR_COUNT);
    CHECK_IS(arbor_allgatheri(W, list, list, huge, NULL), ARBOR_ERR_COUNT);
    CHECK_IS(arbor_alltoalli(W, list, list, ((size_t)1 << 48) / N + 1, NULL), ARBOR_ERR_COUNT);
    if (size >= 3) /* the most images of a rank (3) counts: each of them sends N blocks */
        CHECK_IS(arbor_alltoalli(W, list, list, ((size_t)1 << 48) / N / 3 + 1, NULL),
                 ARBOR_ERR_COUNT);
    CHECK_IS(arbor_bcasti(W, NULL, 0, b, 1, NULL), ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_scatteri_nb(W, NULL, 0, b, 1, NULL, &h), ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_gatheri(W, 0, b, NULL, 1, NULL), ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_allgatheri(W, list, NULL, 1, NULL), ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_allgatheri(W, NULL, list, 1, NULL), ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_alltoalli_nb(W, NULL, list, 1, NULL, &h), ARBOR_ERR_BUFFER);
    /* a NULL entry among this rank's images: LOCAL (last local entry), SINGLE (own entry) */
    list[m - 1] = NULL;
    CHECK_IS(arbor_allgatheri(W, list, list, 1, NULL), ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_bcasti(W, list, 0, b, 1, NULL), ARBOR_ERR_BUFFER);
    list[m - 1] = b;
    list[T->first + m - 1] = NULL;
    p.flags = ARBOR_SINGLE;
    CHECK_IS(arbor_alltoalli(W, list, list, 1, &p), ARBOR_ERR_BUFFER);
    CHECK_IS(arbor_gatheri_nb(W, 0, b, list, 1, &p, &h), ARBOR_ERR_BUFFER);
    list[T->first + m - 1] = b;
    CHECK(h == NULL, "a failed call set the handle");

    /* The other collectives accept SINGLE and LOCAL (and change nothing); not both. */
    int64_t v = rank + 1, sum = 0;
    p.flags = ARBOR_SINGLE;
    CHECK_OK(arbor_allreduce_nb(W, &v, &sum, 1, ARBOR_INT64, ARBOR_SUM, &p, &h));
    CHECK_OK(arbor_wait(&h));
    CHECK(sum == (int64_t)size * (size + 1) / 2, "allreduce with SINGLE: %lld", (long long)sum);
    p.flags = ARBOR_LOCAL | ARBOR_OUT_ALLSYNC;
    CHECK_OK(arbor_bcast_nb(W, &v, sizeof(v), 0, &p, &h));
    CHECK_OK(arbor_wait(&h));
    CHECK(v == 1, "bcast with LOCAL: %lld", (long long)v);
    p.flags = ARBOR_LOCAL | ARBOR_SINGLE;
    CHECK_IS(arbor_barrier_nb(W, &p, &h), ARBOR_ERR_FLAGS);

    /* everything still works */
    run_case(T, K_ALLTOALL, 3, 0, M_WAIT, A_LOCAL, 77);
    free(list);
    free(b);
}

int main(void)
{
    if (arbor_images_init(NULL) != ARBOR_ERR_NOT_INITIALIZED) failures++;
    arbor_status_t st = arbor_init();
    if (st != ARBOR_OK) {
        fprintf(stderr, "arbor_init: %s\n", arbor_strerror(st));
        return st == ARBOR_ERR_UNSUPPORTED ? 77 : 1;
    }
    arbor_team_rank(ARBOR_TEAM_WORLD, &rank);
    arbor_team_size(ARBOR_TEAM_WORLD, &size);
    base = malloc(BIG);
    for (size_t i = 0; i < BIG; i++) base[i] = pat(0, 0, 0, i);
    img = malloc(sizeof(size_t) * (size_t)size);
    for (int r = 0; r < size; r++) img[r] = (size_t)(r % 3) + 1;

    test_init();
    tctx_t W;
    tctx_init(&W, ARBOR_TEAM_WORLD, "world");
    test_bad_input(&W);
    test_sweep(&W);
    test_inflight(&W);
    test_large(&W, true);

    /* The unrooted kinds at 1 MiB + 3 on ranks 0 and 1 (1 and 2 images): their data grows
     * with NImages squared, which the whole world at P = 8 would make slow. */
    arbor_team_h two;
    CHECK_OK(arbor_team_split(ARBOR_TEAM_WORLD, rank < 2 ? 0 : -1, 0, &two));
    if (two) {
        tctx_t F;
        tctx_init(&F, two, "first2");
        test_large(&F, false);
        tctx_free(&F);
        CHECK_OK(arbor_team_free(&two));
    }

    /* same parity, reversed order: uneven images in a different order */
    arbor_team_h half;
    CHECK_OK(arbor_team_split(ARBOR_TEAM_WORLD, rank % 2, -rank, &half));
    tctx_t H;
    tctx_init(&H, half, "split");
    test_sweep(&H);
    test_inflight(&H);
    run_case(&H, K_SCATTER, BIG, H.N - 1, M_FENCE, A_LOCAL, 401);
    tctx_free(&H);
    CHECK_OK(arbor_team_free(&half));
    test_self_team();
    tctx_free(&W);

    CHECK_OK(arbor_finalize());
    free(img);
    free(base);
    if (rank == 0 || failures)
        printf("rank %d of %d: %d checks, %d failures: %s\n", rank, size, checks, failures,
               failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
