/*
 * In-process schedule simulator for unit tests: runs every rank's schedule of one collective
 * together, as coll/executor.c would (rounds, dependencies, per-channel ticket order), over
 * in-memory FIFO channels, on real buffers, so a builder's result can be checked byte by byte
 * for every P without a launcher. It reports a SEND/RECV size mismatch, a message left
 * unreceived, and deadlock (no rank can move).
 */
#ifndef ARB_TESTS_SCHED_SIM_H
#define ARB_TESTS_SCHED_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/sched.h"

typedef struct {
    uint8_t *buf[3]; /* SRC, DST, SCRATCH (SCRATCH is allocated by the simulator if NULL) */
    size_t block;    /* bytes per schedule block */
} arb_sim_rank_t;

/* inout = inout op in (order ARB_COMBINE_AFTER) or in op inout (ARB_COMBINE_BEFORE) */
typedef void (*arb_sim_combine_fn_t)(void *inout, const void *in, size_t bytes, int order,
                                     void *arg);

/* 0 on success; otherwise -1 with a message in err. */
int arb_sim_run(int size, const arb_sched_t *scheds, arb_sim_rank_t *ranks,
                arb_sim_combine_fn_t combine, void *arg, char *err, size_t errlen);

/* The same as the one-copy path runs it (coll/coll_direct.h): a SEND from SRC or DST hands over
 * a reference, and the receiver reads the sender's buffer when its RECV runs, as late as the
 * schedules allow (receives wait until nothing else can move, then go one at a time), so a
 * schedule that rewrites a region a peer has yet to read gives wrong results here. */
int arb_sim_run_one_copy(int size, const arb_sched_t *scheds, arb_sim_rank_t *ranks,
                         arb_sim_combine_fn_t combine, void *arg, char *err, size_t errlen);

#endif /* ARB_TESTS_SCHED_SIM_H */
