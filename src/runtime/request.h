/* The public test / wait calls on request handles of every kind (request.c). */
#ifndef ARB_CORE_REQUEST_H
#define ARB_CORE_REQUEST_H

#include <stdbool.h>
#include <stdint.h>

#include "arbor.h"

/* A kind of request handle, registered by the layer that owns the operations behind it (a
 * static object: the table keeps the pointer). owns: whether a handle is of this kind (the
 * kinds are asked in registration order; a kind encodes its handles so that no other kind's
 * can pass). valid (NULL: every owned handle is): whether it is live. The others are asked of
 * valid handles only: complete; wait (bounded by ARBOR_TIMEOUT; ARBOR_ERR_TIMEOUT may leave it
 * incomplete); test_idle (a test call's idle point after a turn that left it incomplete, moved:
 * whether the turn moved anything; returns a verdict or ARBOR_OK); release (a complete handle:
 * its status, the handle set to NULL). mark (NULL: the table compares the list instead): whether
 * the handle was listed already in the check of this pass, marking it; forget_marks: the pass
 * counter wrapped. live (NULL: none): handles not yet released; cleanup (NULL: none): finalize
 * frees what is left. */
typedef struct {
    bool (*owns)(arbor_request_h h);
    bool (*valid)(arbor_request_h h);
    bool (*complete)(arbor_request_h h);
    arbor_status_t (*wait)(arbor_request_h h);
    arbor_status_t (*test_idle)(arbor_request_h h, bool moved);
    arbor_status_t (*release)(arbor_request_h *h);
    bool (*mark)(arbor_request_h h, uint32_t pass);
    void (*forget_marks)(void);
    int (*live)(void);
    void (*cleanup)(void);
} arb_req_kind_t;

/* Registers kind once (again: nothing happens); ARBOR_ERR_NO_MEMORY past the table's room. */
arbor_status_t arb_req_kind_add(const arb_req_kind_t *kind);
int arb_req_live(void);     /* handles not yet completed by test / wait, of every kind */
void arb_req_cleanup(void); /* finalize: every kind frees what is left */

#endif /* ARB_CORE_REQUEST_H */
