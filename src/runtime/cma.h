/*
 * Cross-memory attach (CMA): one copy between processes of one node without a shared mapping.
 * The receiver of a chunk calls process_vm_readv on the sender's process and copies straight
 * from the sender's malloc'd buffer into its own, after the sender handed over a descriptor
 * (the buffer's address) in the channel (coll/coll_direct.h). The kernel pins the sender's
 * pages one at a time, so per byte it may cost more than two pipelined memcpys through a
 * landing slot: the LogGP model prices it with its own per-byte term (logp.h, Gc) and decides.
 *
 * Permission is checked at init, by every rank reading a word of every other rank on its node
 * (ptrace access: same user, Yama ptrace_scope, a container's seccomp filter), and agreed by all
 * ranks: one refusal anywhere turns the path off for the whole job, and the two-copy pipeline
 * carries every byte. ARBOR_CMA=refuse simulates the refusal (the probe's system call answers
 * EPERM without being made; everything after it is the real fallback).
 */
#ifndef ARB_CORE_CMA_H
#define ARB_CORE_CMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arbor.h"

/* The probe and agreement at init: group/cma_probe.h. */
void arb_cma_fini(void);
/* Whether every rank may read every other with CMA (agreed at init; the same on every rank). */
bool arb_cma_usable(void);
/* Why not, for messages ("permitted" when usable). */
const char *arb_cma_why(void);
/* Copies len bytes at addr in world rank r's process to dst; 0 or an errno. */
int arb_cma_read(int r, void *dst, uintptr_t addr, size_t len);
/* The same from process pid (the probe, before the agreement). */
int arb_cma_read_pid(uint64_t pid, void *dst, uintptr_t addr, size_t len);
/* Calls smaller than this take cross-memory attach only when forced (ARBOR_CMA=always): one
 * process_vm_readv costs about 1.5 us besides its pages, more than a whole two-copy call. */
#define ARB_CMA_MIN_BYTES 4096
/* The same for reductions (a reduce_scatter's block): reading into a bounce buffer and combining
 * from there measured slower than the slots at 64 KiB on ofi:shm, even or faster from 128 KiB
 * (docs/PERFORMANCE.md, "Large reductions through cross-memory attach"). */
#define ARB_CMA_REDUCE_MIN_BYTES (128 * 1024)
/* The span init times a process_vm_readv and a memcpy of (group/cma_probe.c): small enough that
 * both stay in a core's cache. The ratio measured there is the price of the two paths for blocks
 * up to this size (coll/coll_direct.c). */
#define ARB_CMA_MEASURE_BYTES (256 * 1024)
/* A reduction reads a peer's span into a bounce buffer and combines it from there
 * (coll/executor.c), this many chunks at a time. */
#define ARB_CMA_COMBINE_CHUNKS 4
/* The process's bounce buffer, at least len bytes (kept until arb_cma_fini; NULL when out of
 * memory). Used under the engine lock only, like every executor step. */
uint8_t *arb_cma_bounce(size_t len);
/* Adopts the agreed state (group/cma_probe.c): pid[world size] (taken over) when usable, NULL
 * when not, and why for messages. */
void arb_cma_adopt(uint64_t *pid, const char *why);

#endif /* ARB_CORE_CMA_H */
