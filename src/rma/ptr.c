/*
 * arbor_mem_ptr: a load/store pointer to a peer's symmetric or registered memory where this
 * process maps it, so that a runtime (shmem_ptr, UPC++ local(), Chapel's wide pointers on the
 * node) can bypass the call for peers it reaches with plain loads and stores.
 *
 * The translation is the one every one-sided call uses (arb_rma_translate): a heap address of a
 * mapped peer comes back with its mapped pointer, and so does registered memory of a node peer
 * that registered it node-shared (ARBOR_MEM_NODE_SHARED) and mapped here; other registered
 * memory is reached only through the transport (docs/ONESIDED.md, "Registered memory"), so it
 * has none. This rank's own memory is always reachable at its own address.
 */
#include <stdint.h>

#include "runtime/context.h"
#include "runtime/lock.h"
#include "rma/rma_impl.h"

arbor_status_t arbor_mem_ptr(int rank, const void *remote_addr, void **local_p)
{
    if (!local_p) return ARBOR_ERR_INVALID_ARG;
    *local_p = NULL;
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (!remote_addr) return ARBOR_ERR_BUFFER;
    ARB_ENTER();
    arb_rma_target_t tgt;
    arbor_status_t status = arb_rma_translate(rank, remote_addr, 1, false, &tgt);
    if (status == ARBOR_OK) {
        if (rank == arb_ctx.rank)
            *local_p = (void *)(uintptr_t)remote_addr; /* own memory, heap or registered */
        else if (tgt.ptr)
            *local_p = tgt.ptr;
    }
    arb_unlock();
    return status;
}
