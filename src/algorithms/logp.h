/*
 * LogGP model (docs/PERFORMANCE.md): a message of m bytes sent at t is usable by its receiver at
 * t + T(m), T(m) = o_s + L + m*G + o_r; a node can start a new send every s(m) = max(o_s, g, m*G).
 * All times in microseconds, G in microseconds per byte.
 */
#ifndef ARB_ALGORITHMS_LOGP_H
#define ARB_ALGORITHMS_LOGP_H

#include <stddef.h>

#include "arbor.h"

/* G is the per-byte cost of a message through the channel: on one node, a copy into the peer's
 * landing slot and a copy out of it, pipelined chunk by chunk. G1 is the per-byte cost of one
 * copy, the receiver reading straight from the sender's buffer (the one-copy path of
 * symmetric buffers, coll/coll_direct.c); 0 means not known, taken as G / 2. Gop is the
 * per-byte cost of combining a received payload into the accumulator (a reduction's op); 0
 * means not known, taken as G (it reads two operands and writes one, as a message's copies
 * move its bytes through memory). */
typedef struct {
    double L, os, orecv, g, G;
    double G1;
    double Gop;
    /* Gc: per byte of one copy through the kernel's cross-memory attach (process_vm_readv from
     * a peer's malloc'd buffer, runtime/cma.c): it pins the peer's pages one by one, so it can
     * cost more than the two pipelined copies through a slot. 0 means not known. */
    double Gc;
    /* call: what one collective call costs besides its messages (entry and argument checks,
     * the schedule cache, the request, completion), added once to every candidate's time
     * (the choice does not depend on it, the prediction does). Measured by ARBOR_LOGP_MEASURE
     * as a 1-rank collective (group/measure.c); 0 in the transport defaults, whose L and o were
     * fitted to whole calls and so hold it already (algorithms/logp.c). */
    double call;
} arb_logp_t;

static inline double arb_logp_arrival(const arb_logp_t *m, size_t bytes)
{
    return m->os + m->L + (double)bytes * m->G + m->orecv;
}

static inline double arb_logp_gap(const arb_logp_t *m, size_t bytes)
{
    double s = m->os > m->g ? m->os : m->g;
    double bg = (double)bytes * m->G;
    return s > bg ? s : bg;
}

/* The model of the one-copy path: every chunk costs one copy (G1 per byte) instead of two. The
 * sender also waits for its readers' completion signal before its call completes, one more
 * latency: arb_logp_one_copy_settle. Combining keeps its own price: a one-copy receiver
 * combines straight from the sender's buffer, which saves the copy into the slot but not the
 * op (so a reduction gains less from one copy than a broadcast does). */
static inline arb_logp_t arb_logp_one_copy(const arb_logp_t *m)
{
    arb_logp_t c = *m;
    c.G = m->G1 > 0 ? m->G1 : m->G / 2;
    c.Gop = m->Gop > 0 ? m->Gop : m->G;
    return c;
}

/* The model of one copy through cross-memory attach: Gc per byte (not known: 1.25 G, what a
 * 1 MiB read measured against a 1 MiB bcast through the slots, docs/PERFORMANCE.md), and each
 * message's receiver pays one system call (ARB_LOGP_CMA_CALL_US) on top of o_r. */
#define ARB_LOGP_CMA_CALL_US 1.5
static inline arb_logp_t arb_logp_cma(const arb_logp_t *m)
{
    arb_logp_t c = *m;
    c.G = m->Gc > 0 ? m->Gc : 1.25 * m->G;
    c.orecv += ARB_LOGP_CMA_CALL_US;
    return c;
}

static inline double arb_logp_one_copy_settle(const arb_logp_t *m)
{
    return m->L + m->orecv;
}

/* Reductions: combining a payload into the accumulator, Gop per byte (G when not known: like
 * moving it once more through memory). */
static inline double arb_logp_combine(const arb_logp_t *m, size_t bytes)
{
    return (double)bytes * (m->Gop > 0 ? m->Gop : m->G);
}

/* One round in which every rank sends its bytes to each of the P - 1 others (one latency plus
 * P - 2 gaps) and then combines `combines` vectors of that size: the "direct" algorithms. */
static inline double arb_logp_direct(const arb_logp_t *m, int P, size_t bytes, int combines)
{
    if (P < 2) return 0;
    return arb_logp_arrival(m, bytes) + (P - 2) * arb_logp_gap(m, bytes) +
           combines * arb_logp_combine(m, bytes);
}

/* Parses "L=2.1,os=0.4,or=0.4,g=0.6,G=0.0001,G1=0.00005,Gop=0.0001,Gc=0.0001,call=0.1" (any subset;
 * others keep *out's values). ARBOR_ERR_CONFIG with a message in err on a bad key or number. */
arbor_status_t arb_logp_parse(const char *text, arb_logp_t *out, char *err, size_t errlen);
/* "L=...,os=...,or=...,g=...,G=...,G1=...,Gop=..." with every value exact (%.17g), which
 * arb_logp_parse reads back to the same doubles. */
void arb_logp_format(const arb_logp_t *m, char *buf, size_t len);

/* Two levels: "intra:L=0.3,os=0.1;inter:L=20,g=2" (either level may be left out, keys as
 * above); text without a level prefix sets the intra-node model alone. */
arbor_status_t arb_logp_parse_levels(const char *text, arb_logp_t *intra, arb_logp_t *inter,
                                     char *err, size_t errlen);
/* The defaults that belong to no transport (logp.c says where the numbers come from): loads
 * and stores through mapped node-shared memory, and a network between hosts (TCP). A
 * transport's own figures come from its hints (transports/transport.h), through core/model.c. */
void arb_logp_default_mapped(arb_logp_t *out);
void arb_logp_default_inter(arb_logp_t *out);

/* The per-call cost of a provider collective (arb_coll_args_t.hwcoll_us) where the transport
 * gives no figure: a provider with switch offload (Slingshot cxi) costs its call and about one
 * network latency whatever P. */
#define ARB_LOGP_HWCOLL_CALL_US 2.0

#endif /* ARB_ALGORITHMS_LOGP_H */
