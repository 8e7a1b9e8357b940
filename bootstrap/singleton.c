/* The one-rank bootstrap used when no PMIx server is reachable: blobs are kept in memory. */
#include <stdlib.h>
#include <string.h>

#include "bootstrap/bootstrap.h"

typedef struct blob {
    struct blob *next;
    char key[64];
    size_t len;
    unsigned char data[];
} blob_t;

typedef struct {
    arb_boot_t super;
    blob_t *blobs;
    int zero;
} single_t;

static int s_rank(arb_boot_t *b)
{
    return (void)b, 0;
}
static int s_size(arb_boot_t *b)
{
    return (void)b, 1;
}

static void s_local_ranks(arb_boot_t *b, const int **ranks_p, int *n_p)
{
    *ranks_p = &((single_t *)b)->zero;
    *n_p = 1;
}

static arbor_status_t s_put(arb_boot_t *b, const char *key, const void *data, size_t len)
{
    single_t *s = (single_t *)b;
    blob_t *n = malloc(sizeof(*n) + len);
    if (!n || strlen(key) >= sizeof(n->key)) {
        free(n);
        return n ? ARBOR_ERR_INVALID_ARG : ARBOR_ERR_NO_MEMORY;
    }
    strcpy(n->key, key);
    n->len = len;
    memcpy(n->data, data, len);
    n->next = s->blobs;
    s->blobs = n;
    return ARBOR_OK;
}

static arbor_status_t s_nop(arb_boot_t *b)
{
    return (void)b, ARBOR_OK;
}

static arbor_status_t s_get(arb_boot_t *b, int peer, const char *key, void **data_p, size_t *len_p)
{
    if (peer != 0) return ARBOR_ERR_RANK;
    for (blob_t *n = ((single_t *)b)->blobs; n; n = n->next) {
        if (strcmp(n->key, key)) continue;
        void *copy = malloc(n->len ? n->len : 1);
        if (!copy) return ARBOR_ERR_NO_MEMORY;
        memcpy(copy, n->data, n->len);
        *data_p = copy;
        *len_p = n->len;
        return ARBOR_OK;
    }
    return ARBOR_ERR_BOOTSTRAP;
}

static void s_finalize(arb_boot_t *b)
{
    single_t *s = (single_t *)b;
    while (s->blobs) {
        blob_t *n = s->blobs->next;
        free(s->blobs);
        s->blobs = n;
    }
    free(s);
}

static unsigned s_losses(arb_boot_t *b)
{
    (void)b;
    return 0;
}

static int s_lost(arb_boot_t *b, int rank)
{
    (void)b, (void)rank;
    return 0;
}

/* A one-rank job is this process: the caller's exit ends it. */
static void s_abort(arb_boot_t *b, int code, const char *msg)
{
    (void)b;
    (void)code;
    (void)msg;
}

static const arb_boot_ops_t single_ops = {
    .name = "singleton",
    .rank = s_rank,
    .size = s_size,
    .local_ranks = s_local_ranks,
    .put = s_put,
    .commit = s_nop,
    .fence = s_nop,
    .get = s_get,
    .finalize = s_finalize,
    .losses = s_losses,
    .lost = s_lost,
    .abort = s_abort,
};

arbor_status_t arb_singleton_open(arb_boot_t **boot_p)
{
    single_t *s = calloc(1, sizeof(*s));
    if (!s) return ARBOR_ERR_NO_MEMORY;
    s->super.ops = &single_ops;
    *boot_p = &s->super;
    return ARBOR_OK;
}
