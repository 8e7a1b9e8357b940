/*
 * Bootstrap: who am I, how many are we, and an exchange of small blobs (endpoint addresses,
 * remote keys, model parameters) through the launcher's PMIx server. Never the data path.
 * Without a PMIx server the process is a one-rank job (singleton), like an MPI singleton.
 */
#ifndef ARB_BOOTSTRAP_BOOTSTRAP_H
#define ARB_BOOTSTRAP_BOOTSTRAP_H

#include <stddef.h>

#include "arbor.h"

typedef struct arb_boot arb_boot_t;

typedef struct arb_boot_ops {
    const char *name;
    int (*rank)(arb_boot_t *b);
    int (*size)(arb_boot_t *b);
    /* Ranks of the job on this node, in increasing order (array owned by the bootstrap). */
    void (*local_ranks)(arb_boot_t *b, const int **ranks_p, int *n_p);
    /* Publish a blob under key; visible to others after commit + fence. */
    arbor_status_t (*put)(arb_boot_t *b, const char *key, const void *data, size_t len);
    arbor_status_t (*commit)(arb_boot_t *b);
    /* Collective over the job: every rank's committed blobs become readable. */
    arbor_status_t (*fence)(arb_boot_t *b);
    /* Copy of peer's blob under key (malloc'd, caller frees). */
    arbor_status_t (*get)(arb_boot_t *b, int peer, const char *key, void **data_p, size_t *len_p);
    void (*finalize)(arb_boot_t *b);
    /* Ranks the launcher reported gone (process-termination events), counted: callers poll
     * losses() cheaply and ask lost(rank) only when it changed. Any thread may raise them. */
    unsigned (*losses)(arb_boot_t *b);
    int (*lost)(arb_boot_t *b, int rank);
    /* Ask the launcher to end every rank of the job with exit status code; returns only if the
     * launcher could not be asked (the caller then exits alone). */
    void (*abort)(arb_boot_t *b, int code, const char *msg);
} arb_boot_ops_t;

struct arb_boot {
    const arb_boot_ops_t *ops;
    /* Bound of fence and get (ARBOR_TIMEOUT; 0 = none): a rank that never joins makes them
     * return ARBOR_ERR_TIMEOUT instead of hanging init or finalize. */
    double timeout_s;
    /* Called between the naps of a waiting fence when set (any thread that fences; the caller
     * sets and clears it): finalize drives its transport there, because a peer's last writes
     * may still sit in our provider's queue until we progress it (libfabric's manual progress),
     * and that peer may wait for them before it joins the fence. */
    void (*idle)(void *arg);
    void *idle_arg;
};

/* Connects to the PMIx server or falls back to a singleton; timeout_s bounds every fence and
 * get. */
arbor_status_t arb_boot_open(arb_boot_t **boot_p, double timeout_s);

/* A transport saw rank's process gone (an error on its endpoint or completion queue): later
 * losses() / lost(rank) of the open bootstrap report it, exactly as a launcher's termination
 * event would. Any thread; a no-op without an open multi-rank bootstrap. */
void arb_boot_peer_lost(int rank);
/* The same for a rank that announced its own failure (rma/depart.c); how says what saw it
 * in the warning. */
void arb_boot_peer_gone(int rank, const char *how);

/* put + commit + fence + get from every rank: blobs_p[i] / lens_p[i] are malloc'd (free with
 * arb_boot_free_all). */
arbor_status_t arb_boot_allgather(arb_boot_t *b, const char *key, const void *data, size_t len,
                                  void ***blobs_p, size_t **lens_p);
void arb_boot_free_all(arb_boot_t *b, void **blobs, size_t *lens);

#endif /* ARB_BOOTSTRAP_BOOTSTRAP_H */
