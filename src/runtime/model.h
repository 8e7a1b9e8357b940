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

/*
 * Cross-memory attach priced from this machine (docs/PERFORMANCE.md, "Cross-memory attach"):
 * at init every rank times a process_vm_readv of a span of a node peer against a memcpy of the
 * same span (group/cma_probe.c), and the ranks agree one ratio, which scales the model's Gc.
 * The transport defaults' Gc were fitted on a machine where this measurement gives about
 * ARB_CMA_RATIO_FIT (docs/PERFORMANCE.md, "Priced at init": a memcpy in cache against a read of
 * pages the peer's core holds). A ratio outside [ARB_CMA_RATIO_MIN, ARB_CMA_RATIO_MAX]
 * is no reading of the copy path (a read cannot beat a copy in cache; a rank descheduled in
 * every one of its reads) and is discarded.
 */
#define ARB_CMA_RATIO_FIT 9.0
#define ARB_CMA_RATIO_MIN 1.0
#define ARB_CMA_RATIO_MAX 32.0

/* The agreed ratio of n ranks' ratios (the same array on every rank, so the same answer): the
 * median of those within the sane range, or 0 when fewer than half of the n are (the model
 * keeps its Gc). *discarded (may be NULL): how many were out of range or not measured. */
double arb_model_cma_agree(const double *ratio, int n, int *discarded);

/* Gc scaled by an agreed ratio: the model's Gc (1.25 G where it has none, as arb_logp_cma
 * prices it) times ratio / ARB_CMA_RATIO_FIT. */
double arb_model_cma_gc(const arb_logp_t *m, double ratio);

/* Whether this job's intra-node Gc was given (an ARBOR_LOGP_FILE line with Gc, ARBOR_LOGP's
 * Gc key, or ARBOR_LOGP_MEASURE, which measures it): then the init measurement is not taken.
 * The same on every rank (uniform settings, agreed file). After arb_model_compose. */
bool arb_model_gc_given(void);

/* Adopts the agreed ratio of n ranks (> 0): Gc scaled (arb_model_cma_gc), model.source and
 * gc_source say so. */
void arb_model_cma_measured(double ratio, int n);

/* Says why Gc kept its composed value (the init measurement off, discarded, ...). */
void arb_model_gc_note(const char *why);

#endif /* ARB_CORE_MODEL_H */
