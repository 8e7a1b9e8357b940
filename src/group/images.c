/*
 * Images: the "i" collectives of the GASNet collectives note for clients with several images
 * (threads) per rank. Each call runs one byte-vector collective of the team (bcast, scatterv,
 * gatherv, allgatherv, alltoallv) whose per-rank byte counts come from the images table:
 * this rank's sources are copied into a staging buffer when the call starts, and the results
 * are copied out of the staging buffer to every image's destination by the instance's
 * completion hook (executor.h), which also frees the staging. A rank with one image reads or
 * writes that image's buffer directly where the layouts coincide.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "coll/coll.h"
#include "util/log.h"
#include "coll/team.h"
#include "group/team.h"
#include "runtime/lock.h"

#ifndef SSIZE_MAX
#define SSIZE_MAX LONG_MAX
#endif

#define MAX_BYTES ((size_t)1 << 48) /* as in coll_start.c */

enum { I_BCAST, I_SCATTER, I_GATHER, I_ALLGATHER, I_ALLTOALL };

/* The team's images as this call sees them. */
typedef struct {
    int P, me;
    size_t *cnt, *off;  /* per team rank: its images and the team index of its first */
    size_t N, m, first; /* NImages(team), this rank's images and its first image */
    size_t maxm;        /* the most images of any member */
    bool single;        /* ARBOR_SINGLE: lists have N entries */
    uint64_t flags;
} img_team_t;

/* What the completion hook delivers: results at from (NULL: already in place). */
typedef struct {
    int kind;
    size_t nbytes, N, m;
    const uint8_t *from;
    void *stage[2]; /* freed at completion */
    uint8_t *dst[]; /* this rank's m destinations */
} img_op_t;

static void deliver(const img_op_t *op)
{
    size_t b = op->nbytes, N = op->N, m = op->m;
    for (size_t k = 0; k < m; k++) {
        uint8_t *d = op->dst[k];
        switch (op->kind) {
        case I_BCAST:
            if (d != op->from) memmove(d, op->from, b);
            break;
        case I_SCATTER:
            if (d != op->from + k * b) memmove(d, op->from + k * b, b);
            break;
        case I_ALLGATHER:
            memcpy(d, op->from, b * N);
            break;
        case I_ALLTOALL: /* block s of image k came from image s: at (s * m + k) * b */
            for (size_t s = 0; s < N; s++) memcpy(d + s * b, op->from + (s * m + k) * b, b);
            break;
        }
    }
}

static void img_done(void *arg, arbor_status_t status)
{
    img_op_t *op = arg;
    if (status == ARBOR_OK && op->from && op->nbytes) deliver(op);
    free(op->stage[0]);
    free(op->stage[1]);
    free(op);
}

static void team_release(img_team_t *T)
{
    free(T->cnt);
    T->cnt = T->off = NULL;
}

/* The checks every "i" call makes first, in the order of the other collectives, and the
 * team's images table. */
static arbor_status_t prologue(arbor_team_h team, const arbor_op_params_t *params,
                               arbor_request_h *req_p, int blocking, img_team_t *T)
{
    memset(T, 0, sizeof(*T));
    if (!arb_initialized() || !arb_ctx.images) return ARBOR_ERR_NOT_INITIALIZED;
    struct arbor_team *t = arb_team_lookup(team);
    if (!t) return ARBOR_ERR_TEAM;
    uint64_t flags;
    arbor_status_t status = arb_coll_flags_of(params, blocking, req_p, &flags);
    if (status != ARBOR_OK) return status;

    T->P = t->size;
    T->me = t->rank;
    T->flags = flags;
    T->single = flags & ARBOR_SINGLE;
    T->cnt = malloc(2 * sizeof(size_t) * (size_t)T->P);
    if (!T->cnt) return ARBOR_ERR_NO_MEMORY;
    T->off = T->cnt + T->P;
    for (int r = 0; r < T->P; r++) {
        T->cnt[r] = arb_ctx.images[t->world[r]];
        T->off[r] = T->N;
        T->N += T->cnt[r];
        if (T->cnt[r] > T->maxm) T->maxm = T->cnt[r];
    }
    T->m = T->cnt[T->me];
    T->first = T->off[T->me];
    return ARBOR_OK;
}

/* The team rank that owns image i (i < N). */
static int owner(const img_team_t *T, size_t i)
{
    int r = 0;
    while (r + 1 < T->P && T->off[r + 1] <= i) r++;
    return r;
}

/* This rank's k-th entry of an address list. */
static void *entry(const img_team_t *T, void *const list[], size_t k)
{
    return list[T->single ? T->first + k : k];
}

static arbor_status_t check_list(const img_team_t *T, void *const list[], size_t nbytes)
{
    if (!nbytes) return ARBOR_OK;
    if (!list) return ARBOR_ERR_BUFFER;
    for (size_t k = 0; k < T->m; k++)
        if (!entry(T, list, k)) return ARBOR_ERR_BUFFER;
    return ARBOR_OK;
}

/* The checks of a rooted call (bcasti, scatteri, gatheri), in the order every call reports
 * them: the root image, the total size (limit), this rank's list, the root's own buffer. */
static arbor_status_t check_rooted(const img_team_t *T, size_t image, size_t nbytes, size_t limit,
                                   void *const list[], const void *rootbuf, int *root_p)
{
    if (image >= T->N) return ARBOR_ERR_ROOT;
    *root_p = owner(T, image);
    if (nbytes > limit) return ARBOR_ERR_COUNT;
    arbor_status_t status = check_list(T, list, nbytes);
    if (status != ARBOR_OK) return status;
    return T->me == *root_p && nbytes && !rootbuf ? ARBOR_ERR_BUFFER : ARBOR_OK;
}

/* The checks of an unrooted call (allgatheri, alltoalli), in the order both report them: the
 * total size (limit), then this rank's two lists. */
static arbor_status_t check_pair(const img_team_t *T, size_t nbytes, size_t limit,
                                 void *const dstlist[], void *const srclist[])
{
    if (nbytes > limit) return ARBOR_ERR_COUNT;
    arbor_status_t status = check_list(T, dstlist, nbytes);
    return status != ARBOR_OK ? status : check_list(T, srclist, nbytes);
}

static img_op_t *op_new(const img_team_t *T, int kind, size_t nbytes, void *const dstlist[])
{
    img_op_t *op = calloc(1, sizeof(*op) + T->m * sizeof(uint8_t *));
    if (!op) return NULL;
    op->kind = kind;
    op->nbytes = nbytes;
    op->N = T->N;
    op->m = T->m;
    for (size_t k = 0; dstlist && nbytes && k < T->m; k++) op->dst[k] = entry(T, dstlist, k);
    return op;
}

/* Byte counts and displacements per team rank: scale x (images, first image) x nbytes. */
static size_t *byte_vectors(const img_team_t *T, size_t scale, size_t nbytes)
{
    size_t *v = malloc(2 * sizeof(size_t) * (size_t)T->P);
    for (int r = 0; v && r < T->P; r++) {
        v[r] = scale * T->cnt[r] * nbytes;
        v[T->P + r] = scale * T->off[r] * nbytes;
    }
    return v;
}

/* Copies this rank's m sources, nbytes each, into one contiguous staging buffer. */
static void *stage_sources(const img_team_t *T, void *const srclist[], size_t nbytes)
{
    uint8_t *s = malloc(T->m * nbytes + 1);
    for (size_t k = 0; s && k < T->m; k++) memcpy(s + k * nbytes, entry(T, srclist, k), nbytes);
    return s;
}

/* A collective for an entry point that already holds the engine lock (the lock is not
 * recursive): resolves the handle and runs the call. */
static arbor_status_t run_held(arbor_team_h team, const arb_call_t *call,
                               const arbor_op_params_t *params, arbor_request_h *req_p,
                               int blocking)
{
    bool started = false;
    struct arbor_team *t = arb_team_lookup(team);
    arbor_status_t status =
        t ? arb_coll_run_user(t, call, params, req_p, blocking, &started) : ARBOR_ERR_TEAM;
    if (!started && call->done) call->done(call->done_arg, status);
    return status;
}

static arbor_status_t start(arbor_team_h team, arb_call_t *c, img_op_t *op, const img_team_t *T,
                            arbor_request_h *req_p, int blocking)
{
    arbor_op_params_t p = {.field_mask = ARBOR_OP_PARAM_FLAGS, .flags = T->flags};
    c->dtype = ARBOR_BYTE;
    c->done = img_done;
    c->done_arg = op;
    return run_held(team, c, &p, blocking ? NULL : req_p, blocking);
}

static arbor_status_t bcasti(arbor_team_h team, void *const dstlist[], size_t srcimage,
                             const void *src, size_t nbytes, const arbor_op_params_t *params,
                             arbor_request_h *req_p, int blocking)
{
    img_team_t T;
    arbor_status_t status = prologue(team, params, req_p, blocking, &T);
    if (status != ARBOR_OK) goto out;
    int root;
    if ((status = check_rooted(&T, srcimage, nbytes, MAX_BYTES, dstlist, src, &root)) != ARBOR_OK)
        goto out;

    status = ARBOR_ERR_NO_MEMORY;
    img_op_t *op = op_new(&T, I_BCAST, nbytes, dstlist);
    if (!op) goto out;
    void *buf = NULL;
    if (!nbytes) {
    } else if (T.me == root) { /* the root's src is only read */
        buf = (void *)(uintptr_t)src;
        op->from = src;
    } else if (T.m == 1) {
        buf = op->dst[0];
    } else if (!(buf = op->stage[0] = malloc(nbytes))) {
        img_done(op, status);
        goto out;
    } else {
        op->from = buf;
    }
    arb_call_t c = {.coll = ARB_COLL_BCAST, .recvbuf = buf, .count = nbytes, .root = root};
    status = start(team, &c, op, &T, req_p, blocking);
out:
    team_release(&T);
    return status;
}

static arbor_status_t scatteri(arbor_team_h team, void *const dstlist[], size_t srcimage,
                               const void *src, size_t nbytes, const arbor_op_params_t *params,
                               arbor_request_h *req_p, int blocking)
{
    img_team_t T;
    size_t *v = NULL;
    arbor_status_t status = prologue(team, params, req_p, blocking, &T);
    if (status != ARBOR_OK) goto out;
    int root;
    if ((status = check_rooted(&T, srcimage, nbytes, MAX_BYTES / T.N, dstlist, src, &root)) !=
        ARBOR_OK)
        goto out;

    status = ARBOR_ERR_NO_MEMORY;
    img_op_t *op = op_new(&T, I_SCATTER, nbytes, dstlist);
    if (!op) goto out;
    if (!(v = byte_vectors(&T, 1, nbytes))) {
        img_done(op, status);
        goto out;
    }
    void *recv = NULL;
    if (!nbytes) {
    } else if (T.m == 1) {
        recv = op->dst[0];
    } else if (T.me == root) { /* this rank's blocks stay in src until delivered */
        recv = ARBOR_IN_PLACE;
        op->from = (const uint8_t *)src + T.first * nbytes;
    } else if (!(recv = op->stage[0] = malloc(T.m * nbytes))) {
        img_done(op, status);
        goto out;
    } else {
        op->from = recv;
    }
    arb_call_t c = {.coll = ARB_COLL_SCATTERV,
                    .sendbuf = src,
                    .counts = v,
                    .displs = v + T.P,
                    .recvbuf = recv,
                    .own = T.m * nbytes,
                    .root = root};
    status = start(team, &c, op, &T, req_p, blocking);
out:
    free(v);
    team_release(&T);
    return status;
}

static arbor_status_t gatheri(arbor_team_h team, size_t dstimage, void *dst, void *const srclist[],
                              size_t nbytes, const arbor_op_params_t *params,
                              arbor_request_h *req_p, int blocking)
{
    img_team_t T;
    size_t *v = NULL;
    arbor_status_t status = prologue(team, params, req_p, blocking, &T);
    if (status != ARBOR_OK) goto out;
    int root;
    if ((status = check_rooted(&T, dstimage, nbytes, MAX_BYTES / T.N, srclist, dst, &root)) !=
        ARBOR_OK)
        goto out;

    status = ARBOR_ERR_NO_MEMORY;
    img_op_t *op = op_new(&T, I_GATHER, nbytes, NULL);
    if (!op) goto out;
    const void *send = NULL;
    if (!(v = byte_vectors(&T, 1, nbytes))) {
        img_done(op, status);
        goto out;
    }
    if (!nbytes) {
    } else if (T.m == 1) {
        send = entry(&T, srclist, 0);
    } else if (!(send = op->stage[0] = stage_sources(&T, srclist, nbytes))) {
        img_done(op, status);
        goto out;
    }
    arb_call_t c = {.coll = ARB_COLL_GATHERV,
                    .sendbuf = send,
                    .own = T.m * nbytes,
                    .recvbuf = nbytes ? dst : NULL,
                    .counts = v,
                    .displs = v + T.P,
                    .root = root};
    status = start(team, &c, op, &T, req_p, blocking);
out:
    free(v);
    team_release(&T);
    return status;
}

static arbor_status_t allgatheri(arbor_team_h team, void *const dstlist[], void *const srclist[],
                                 size_t nbytes, const arbor_op_params_t *params,
                                 arbor_request_h *req_p, int blocking)
{
    img_team_t T;
    size_t *v = NULL;
    arbor_status_t status = prologue(team, params, req_p, blocking, &T);
    if (status != ARBOR_OK) goto out;
    if ((status = check_pair(&T, nbytes, MAX_BYTES / T.N, dstlist, srclist)) != ARBOR_OK) goto out;

    status = ARBOR_ERR_NO_MEMORY;
    img_op_t *op = op_new(&T, I_ALLGATHER, nbytes, dstlist);
    if (!op) goto out;
    const void *send = NULL;
    void *recv = NULL;
    if (!(v = byte_vectors(&T, 1, nbytes))) {
        img_done(op, status);
        goto out;
    }
    if (nbytes && T.m == 1) {
        send = entry(&T, srclist, 0);
        recv = op->dst[0];
    } else if (nbytes) {
        send = op->stage[0] = stage_sources(&T, srclist, nbytes);
        recv = op->stage[1] = malloc(T.N * nbytes);
        if (!send || !recv) {
            img_done(op, status);
            goto out;
        }
        op->from = recv;
    }
    arb_call_t c = {.coll = ARB_COLL_ALLGATHERV,
                    .sendbuf = send,
                    .own = T.m * nbytes,
                    .recvbuf = recv,
                    .counts = v,
                    .displs = v + T.P};
    status = start(team, &c, op, &T, req_p, blocking);
out:
    free(v);
    team_release(&T);
    return status;
}

static arbor_status_t alltoalli(arbor_team_h team, void *const dstlist[], void *const srclist[],
                                size_t nbytes, const arbor_op_params_t *params,
                                arbor_request_h *req_p, int blocking)
{
    img_team_t T;
    size_t *v = NULL;
    arbor_status_t status = prologue(team, params, req_p, blocking, &T);
    if (status != ARBOR_OK) goto out;
    if ((status = check_pair(&T, nbytes, MAX_BYTES / T.N / T.maxm, dstlist, srclist)) != ARBOR_OK)
        goto out;

    status = ARBOR_ERR_NO_MEMORY;
    img_op_t *op = op_new(&T, I_ALLTOALL, nbytes, dstlist);
    if (!op) goto out;
    size_t m = T.m, b = nbytes;
    const void *send = NULL;
    void *recv = NULL;
    /* Rank-level exchange: to rank r go, for each of our images k, the cnt[r] blocks of image
     * k's src meant for r's images (at (m * off[r] + k * cnt[r]) * b); from rank r come, for
     * each of its images s, our m blocks (at (s * m + j) * b for our image j). Both sides'
     * counts and displacements are m x (images, first image) x nbytes. With one image the
     * layouts are the image's own buffers. */
    if (!(v = byte_vectors(&T, m, b))) {
        img_done(op, status);
        goto out;
    }
    if (b && m == 1) {
        send = entry(&T, srclist, 0);
        recv = op->dst[0];
    } else if (b) {
        uint8_t *s = op->stage[0] = malloc(m * T.N * b);
        recv = op->stage[1] = malloc(m * T.N * b);
        if (!s || !recv) {
            img_done(op, status);
            goto out;
        }
        for (size_t k = 0; k < m; k++) {
            const uint8_t *src = entry(&T, srclist, k);
            for (int r = 0; r < T.P; r++)
                memcpy(s + (m * T.off[r] + k * T.cnt[r]) * b, src + T.off[r] * b, T.cnt[r] * b);
        }
        send = s;
        op->from = recv;
    }
    arb_call_t c = {.coll = ARB_COLL_ALLTOALLV,
                    .sendbuf = send,
                    .counts = v,
                    .displs = v + T.P,
                    .recvbuf = recv,
                    .rcounts = v,
                    .rdispls = v + T.P};
    status = start(team, &c, op, &T, req_p, blocking);
out:
    free(v);
    team_release(&T);
    return status;
}

/* ---------------------------------------------------------------------------------------- */

static arbor_status_t images_init(const size_t images[])
{
    if (arb_ctx.images) {
        arb_debug("arbor_images_init: the images were already declared (one call per "
                  "arbor_init)");
        return ARBOR_ERR_BUSY;
    }
    int P = arb_ctx.size;
    /* Every rank joins the check, whatever its table holds: a rank that returned early would
     * leave the others waiting. [0] max hash, [1] ~min hash, [2] bad table, [3] no memory. */
    uint64_t mine[4] = {1469598103934665603ull, 0, images == NULL, 0}, all[4];
    size_t sum = 0;
    for (int r = 0; images && r < P; r++) {
        if (images[r] == 0 || images[r] > (size_t)SSIZE_MAX - sum)
            mine[2] = 1;
        else
            sum += images[r];
        mine[0] = (mine[0] ^ (uint64_t)images[r]) * 1099511628211ull;
    }
    mine[1] = ~mine[0];
    size_t *copy = malloc(sizeof(size_t) * (size_t)P);
    mine[3] = copy == NULL;
    arbor_status_t status =
        arb_coll_allreduce_internal(arb_ctx.world, mine, all, 4, ARBOR_UINT64, ARBOR_MAX);
    if (status == ARBOR_OK && all[3]) status = ARBOR_ERR_NO_MEMORY;
    if (status == ARBOR_OK && (all[2] || all[0] != ~all[1])) {
        if (arb_ctx.rank == 0)
            arb_error("arbor_images_init: %s", all[2] ? "a table is NULL, has a zero entry or "
                                                        "sums past SSIZE_MAX"
                                                      : "the tables differ between ranks");
        status = ARBOR_ERR_INVALID_ARG;
    }
    if (status != ARBOR_OK) {
        free(copy);
        return status;
    }
    memcpy(copy, images, sizeof(size_t) * (size_t)P);
    arb_ctx.images = copy;
    return ARBOR_OK;
}

arbor_status_t arbor_images_init(const size_t images[])
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    ARB_ENTER();
    arbor_status_t status = images_init(images);
    arb_unlock();
    return status;
}

arbor_status_t arbor_team_images(arbor_team_h team, size_t *nimages_p, size_t *first_p,
                                 size_t *mine_p)
{
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    ARB_ENTER();
    arbor_status_t status = ARBOR_ERR_NOT_INITIALIZED;
    struct arbor_team *t = arb_team_lookup(team);
    if (arb_ctx.images && !t) status = ARBOR_ERR_TEAM;
    if (arb_ctx.images && t) {
        size_t n = 0, first = 0;
        for (int r = 0; r < t->size; r++) {
            if (r == t->rank) first = n;
            n += arb_ctx.images[t->world[r]];
        }
        if (nimages_p) *nimages_p = n;
        if (first_p) *first_p = first;
        if (mine_p) *mine_p = arb_ctx.images[t->world[t->rank]];
        status = ARBOR_OK;
    }
    arb_unlock();
    return status;
}

/* Entry points: with the engine lock on, one caller at a time (docs/THREADS.md). */
#define LOCKED(_call)                                                                              \
    do {                                                                                           \
        ARB_ENTER();                                                                               \
        arbor_status_t _status = (_call);                                                          \
        arb_unlock();                                                                              \
        return _status;                                                                            \
    } while (0)

arbor_status_t arbor_bcasti(arbor_team_h team, void *const dstlist[], size_t srcimage,
                            const void *src, size_t nbytes, const arbor_op_params_t *params)
{
    LOCKED(bcasti(team, dstlist, srcimage, src, nbytes, params, NULL, 1));
}

arbor_status_t arbor_bcasti_nb(arbor_team_h team, void *const dstlist[], size_t srcimage,
                               const void *src, size_t nbytes, const arbor_op_params_t *params,
                               arbor_request_h *req_p)
{
    LOCKED(bcasti(team, dstlist, srcimage, src, nbytes, params, req_p, 0));
}

arbor_status_t arbor_scatteri(arbor_team_h team, void *const dstlist[], size_t srcimage,
                              const void *src, size_t nbytes, const arbor_op_params_t *params)
{
    LOCKED(scatteri(team, dstlist, srcimage, src, nbytes, params, NULL, 1));
}

arbor_status_t arbor_scatteri_nb(arbor_team_h team, void *const dstlist[], size_t srcimage,
                                 const void *src, size_t nbytes, const arbor_op_params_t *params,
                                 arbor_request_h *req_p)
{
    LOCKED(scatteri(team, dstlist, srcimage, src, nbytes, params, req_p, 0));
}

arbor_status_t arbor_gatheri(arbor_team_h team, size_t dstimage, void *dst, void *const srclist[],
                             size_t nbytes, const arbor_op_params_t *params)
{
    LOCKED(gatheri(team, dstimage, dst, srclist, nbytes, params, NULL, 1));
}

arbor_status_t arbor_gatheri_nb(arbor_team_h team, size_t dstimage, void *dst,
                                void *const srclist[], size_t nbytes,
                                const arbor_op_params_t *params, arbor_request_h *req_p)
{
    LOCKED(gatheri(team, dstimage, dst, srclist, nbytes, params, req_p, 0));
}

arbor_status_t arbor_allgatheri(arbor_team_h team, void *const dstlist[], void *const srclist[],
                                size_t nbytes, const arbor_op_params_t *params)
{
    LOCKED(allgatheri(team, dstlist, srclist, nbytes, params, NULL, 1));
}

arbor_status_t arbor_allgatheri_nb(arbor_team_h team, void *const dstlist[], void *const srclist[],
                                   size_t nbytes, const arbor_op_params_t *params,
                                   arbor_request_h *req_p)
{
    LOCKED(allgatheri(team, dstlist, srclist, nbytes, params, req_p, 0));
}

arbor_status_t arbor_alltoalli(arbor_team_h team, void *const dstlist[], void *const srclist[],
                               size_t nbytes, const arbor_op_params_t *params)
{
    LOCKED(alltoalli(team, dstlist, srclist, nbytes, params, NULL, 1));
}

arbor_status_t arbor_alltoalli_nb(arbor_team_h team, void *const dstlist[], void *const srclist[],
                                  size_t nbytes, const arbor_op_params_t *params,
                                  arbor_request_h *req_p)
{
    LOCKED(alltoalli(team, dstlist, srclist, nbytes, params, req_p, 0));
}
