/* The transports compiled in, in the order "auto" tries them. */
#include "transports/transport.h"

#ifdef ARBOR_WITH_UCX
extern const arb_tp_ops_t arb_ucx_ops;
#endif
#ifdef ARBOR_WITH_OFI
extern const arb_tp_ops_t arb_ofi_ops;
#endif

const arb_tp_ops_t *const arb_tp_registry[] = {
#ifdef ARBOR_WITH_UCX
    &arb_ucx_ops,
#endif
#ifdef ARBOR_WITH_OFI
    &arb_ofi_ops,
#endif
    NULL};
