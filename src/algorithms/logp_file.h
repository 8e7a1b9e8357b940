/*
 * The calibration file (ARBOR_LOGP_FILE, written by `arbor-info --calibrate -o FILE`): the LogGP
 * parameters measured once on a machine, per level and path, so that a job loads them instead
 * of measuring at every start. Text, one item per line, '#' starts a comment line:
 *
 *   arbor-calibration 2
 *   transport ucx
 *   intra mapped L=0.12,os=0.05,or=0.05,g=0.05,G=8e-05,G1=2e-05,Gop=3e-05,call=0.1
 *   intra rma    L=0.9,os=0.3,or=0.3,g=0.3,G=0.0001,G1=0.0001,Gop=3e-05,call=0.1
 *   inter rma    L=20,os=2,or=2,g=2,G=0.001,G1=0.001,Gop=3e-05,call=0.1
 *
 * A model line is a level (intra: between ranks of one node; inter: between nodes), the path
 * the landing channels take there (mapped: loads and stores into a peer's mapped segment; rma:
 * the transport's put and atomics), and the ARBOR_LOGP keys: L, os, or, g and G required, G1,
 * Gop, Gc and call optional (0: not known, logp.h says what stands in). Between nodes the path
 * is rma. The parser is strict: every error names its line.
 * Version 2 added call, the per-call cost (logp.h); a version 1 file (written before it) still
 * loads, with call = 0: the model its figures were measured for (version in arb_calib_t).
 */
#ifndef ARB_ALGORITHMS_LOGP_FILE_H
#define ARB_ALGORITHMS_LOGP_FILE_H

#include <stdint.h>

#include "algorithms/logp.h"

enum { ARB_CALIB_INTRA_MAPPED = 0, ARB_CALIB_INTRA_RMA, ARB_CALIB_INTER_RMA, ARB_CALIB_PATHS };
#define ARB_CALIB_VERSION 2

typedef struct {
    char transport[32]; /* the transport it was measured on ("ucx", "ofi:shm", ...) */
    unsigned have;      /* bit p: m[p] was given */
    int version;        /* the format version the text had (1 or ARB_CALIB_VERSION) */
    arb_logp_t m[ARB_CALIB_PATHS];
} arb_calib_t;

/* "intra mapped", "intra rma", "inter rma" */
const char *arb_calib_path_name(int path);

/* ARBOR_ERR_CONFIG with "line N: why" in err on anything but a well-formed file. */
arbor_status_t arb_calib_parse(const char *text, arb_calib_t *out, char *err, size_t errlen);

/* The file's text (header comment, version, transport and one line per given path, values
 * exact): what arb_calib_parse reads back to the same struct. Returns the length it needs
 * (snprintf's rule: the text is cut when len is smaller). */
size_t arb_calib_format(const arb_calib_t *c, char *buf, size_t len);

/* A digest of the values (not of the text: comments and spacing do not count), for checking
 * that every rank loaded the same calibration. Never 0. */
uint64_t arb_calib_digest(const arb_calib_t *c);

#endif /* ARB_ALGORITHMS_LOGP_FILE_H */
