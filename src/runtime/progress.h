/*
 * The progress engine (progress.c): drives the transport and what the layers above registered
 * (the one-sided layer's per-poll work, the collectives in flight), and the progress thread.
 * It names no layer above it: they register hooks. The waits for a collective instance are the
 * collective layer's (coll/wait.h).
 */
#ifndef ARB_CORE_PROGRESS_H
#define ARB_CORE_PROGRESS_H

#include <stdbool.h>

#include "arbor.h"

/* The progress engine: transport progress + every active instance once. */
int arb_progress_all(void);
/* arb_progress_all, yielding the CPU when nothing moved on an oversubscribed node. */
int arb_progress_turn(void);

/* What the progress thread does for a hook while no collective is in flight: nothing, drive the
 * transport (targets that must progress for operations aimed at them), or drive it and run the
 * hook's poll too. Ordered: the thread does the most any hook asks. */
typedef enum { ARB_IDLE_SLEEP, ARB_IDLE_SERVE, ARB_IDLE_POLL } arb_idle_t;

/* A layer's work in the engine, registered by that layer (a static object: the engine keeps
 * the pointer). poll runs on every turn after the transport, in registration order, and
 * returns how much moved; idle, or NULL, is asked by the progress thread at its idle wakes. */
typedef struct {
    int (*poll)(void);
    arb_idle_t (*idle)(void);
} arb_progress_hook_t;

/* Registers hook once (again: nothing happens); ARBOR_ERR_NO_MEMORY past the table's room. */
arbor_status_t arb_progress_hook_add(const arb_progress_hook_t *hook);

#endif /* ARB_CORE_PROGRESS_H */
