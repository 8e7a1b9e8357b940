/* The job's LogGP model: sources and their precedence (model.c), ARBOR_LOGP_FILE. */
#ifndef ARB_CORE_MODEL_H
#define ARB_CORE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "algorithms/logp.h"
#include "arbor.h"
#include "transports/transport.h"

enum { ARB_LOGP_FILE_NONE = 0, ARB_LOGP_FILE_LOADED, ARB_LOGP_FILE_FAILED };

/* Reads and parses ARBOR_LOGP_FILE into arb_ctx (state and digest); on failure says why on
 * this rank and marks it failed, so that the wire-up fails on every rank. */
void arb_model_load_file(void);

/* After the wire-up exchange (states and digests of every rank, n ranks): ARBOR_ERR_CONFIG on
 * every rank, with the reason, when any rank failed to load its file or they differ. */
arbor_status_t arb_model_check_files(const uint64_t *states, const uint64_t *digests, int n);

/* The default models a transport's hints give (transports/transport.h): intra for node peers
 * (mapped: the peers' segments are mapped, so loads and stores whatever the transport) and
 * inter between nodes. Either output may be NULL. */
void arb_model_defaults(const arb_tp_hints_t *h, bool mapped, arb_logp_t *intra, arb_logp_t *inter);
/* The same for the transport a describe() text names ("ucx", "ofi:tcp;ofi_rxm", ...), node
 * peers not mapped: for tools and tests that price a transport without opening it. */
void arb_model_defaults_by_name(const char *described, arb_logp_t *intra, arb_logp_t *inter);

/* Composes arb_ctx.model and model_inter from the sources (model.c's header). Needs the
 * transport and the node numbering. oversubscribed: add the ARBOR_OVERSUB_WAKE term. */
arbor_status_t arb_model_compose(bool oversubscribed);

/* The oversubscription term: what waiting for a descheduled peer adds to the intra model. */
void arb_model_oversubscribed(arb_logp_t *intra, double wake_us);

/* After ARBOR_LOGP_MEASURE replaced the model: ARBOR_LOGP's keys on top again. */
void arb_model_logp_over_measured(void);

#endif /* ARB_CORE_MODEL_H */
