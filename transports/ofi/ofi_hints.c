/*
 * The libfabric backend's default cost hints, chosen by the provider describe() names
 * ("ofi:<provider>"). Every rank derives the same numbers from the same name.
 *
 * - shm: libfabric's shm provider goes through a command queue with manual progress, so we
 *   take a few times the cost of mapped memory: L = 0.5, o = g = 0.3, G = 0.0001 us/B
 *   (10 GB/s), G1 = G / 2 (one copy reads each line once). Gc (cross-memory attach,
 *   core/cma.h) = 0.6 G: a cross-memory read beats a provider put and a copy out from about
 *   64 KiB, where the call's fixed cost stops mattering.
 * - tcp, sockets, net (each also under ofi_rxm): a message over loopback TCP costs tens of
 *   microseconds one way and a few of CPU at each end, so L = 15, o_s = o_r = g = 2,
 *   G = G1 = 0.001 us/B (1 GB/s, loopback TCP: no in-place read over a network).
 * The measurements behind these are in docs/TRANSPORTS.md, "Default costs".
 * - any other provider: no figure of its own (the mapped-memory defaults).
 *
 * Provider collectives: ofi_rxm runs libfabric's util collectives, tagged messages over the
 * same connections scheduled by the provider (recursive doubling for allreduce and barrier,
 * scatter + allgather for broadcast), whose per-call bookkeeping (allocating the operation and
 * its work items, a copy per step) is taken as 10 us (docs/OFFLOAD.md has the measurement).
 * Others: no figure (the switch-offload default of algorithms/logp.h).
 */
#include "transports/ofi/ofi.h"

#include <string.h>

static const arb_tp_loggp_t hints_shm = {
    .L = 0.5, .os = 0.3, .orecv = 0.3, .g = 0.3, .G = 0.0001, .G1 = 0.00005, .Gc = 0.00006};
static const arb_tp_loggp_t hints_net = {
    .L = 15, .os = 2, .orecv = 2, .g = 2, .G = 0.001, .G1 = 0.001};

#define HWCOLL_RXM_US 10.0

static bool has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

void arb_ofi_hints(const char *described, arb_tp_hints_t *out)
{
    if (out == NULL) return;
    *out = (arb_tp_hints_t){0};
    if (described == NULL) return;
    if (has_prefix(described, "ofi:shm")) {
        out->have_intra = true;
        out->intra = hints_shm;
    } else if (has_prefix(described, "ofi:tcp") || has_prefix(described, "ofi:sockets") ||
               has_prefix(described, "ofi:net")) {
        out->have_intra = true;
        out->intra = hints_net;
    }
    if (strstr(described, "ofi_rxm") != NULL) {
        out->hwcoll_us = HWCOLL_RXM_US;
        out->hwcoll_software = true;
    }
}
