/* The job's LogGP model: sources and their precedence (model.c), ARBOR_LOGP_FILE. */
#ifndef ARB_CORE_MODEL_H
#define ARB_CORE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "algorithms/logp.h"
#include "arbor.h"

enum { ARB_LOGP_FILE_NONE = 0, ARB_LOGP_FILE_LOADED, ARB_LOGP_FILE_FAILED };

/* Reads and parses ARBOR_LOGP_FILE into arb_ctx (state and digest); on failure says why on
 * this rank and marks it failed, so that the wire-up fails on every rank. */
void arb_model_load_file(void);

/* After the wire-up exchange (states and digests of every rank, n ranks): ARBOR_ERR_CONFIG on
 * every rank, with the reason, when any rank failed to load its file or they differ. */
arbor_status_t arb_model_check_files(const uint64_t *states, const uint64_t *digests, int n);

/* Composes arb_ctx.model and model_inter from the sources (model.c's header). Needs the
 * transport and the node numbering. oversubscribed: add the ARBOR_OVERSUB_WAKE term. */
arbor_status_t arb_model_compose(bool oversubscribed);

/* The oversubscription term: what waiting for a descheduled peer adds to the intra model. */
void arb_model_oversubscribed(arb_logp_t *intra, double wake_us);

/* After ARBOR_LOGP_MEASURE replaced the model: ARBOR_LOGP's keys on top again. */
void arb_model_logp_over_measured(void);

#endif /* ARB_CORE_MODEL_H */
