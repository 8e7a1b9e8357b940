/*
 * The transports arbor knows: the only list of them. Adding one takes its folder (its
 * arb_tp_ops_t, with describe() and hints()) and one line in each table below
 * (docs/TRANSPORTS.md, "Adding a transport").
 */
#include "transports/transport.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#ifdef ARBOR_WITH_UCX
extern const arb_tp_ops_t arb_ucx_ops;
#endif
#ifdef ARBOR_WITH_OFI
extern const arb_tp_ops_t arb_ofi_ops;
#endif

/* The backends compiled in, in the order "auto" tries them. */
const arb_tp_ops_t *const arb_tp_registry[] = {
#ifdef ARBOR_WITH_UCX
    &arb_ucx_ops,
#endif
#ifdef ARBOR_WITH_OFI
    &arb_ofi_ops,
#endif
    NULL};

/* Every name ARBOR_TRANSPORT accepts besides auto, compiled in or not: a build without one
 * answers "not supported" for it, not "no such transport". */
static const char *const known[] = {"ucx", "ofi", NULL};

arbor_status_t arb_tp_lookup(const char *name, const arb_tp_ops_t **ops_p)
{
    if (name == NULL || ops_p == NULL) return ARBOR_ERR_INVALID_ARG;
    *ops_p = NULL;
    for (const arb_tp_ops_t *const *o = arb_tp_registry; *o; o++)
        if (!strcasecmp(name, (*o)->name)) {
            *ops_p = *o;
            return ARBOR_OK;
        }
    for (const char *const *k = known; *k; k++)
        if (!strcasecmp(name, *k)) return ARBOR_ERR_UNSUPPORTED;
    return ARBOR_ERR_CONFIG;
}

void arb_tp_hints_by_name(const char *described, arb_tp_hints_t *out)
{
    if (out == NULL) return;
    *out = (arb_tp_hints_t){0};
    if (described == NULL) return;
    for (const arb_tp_ops_t *const *o = arb_tp_registry; *o; o++) {
        size_t n = strlen((*o)->name);
        if (!strncmp(described, (*o)->name, n) && (described[n] == '\0' || described[n] == ':')) {
            (*o)->hints(described, out);
            return;
        }
    }
}

void arb_tp_names(char *buf, size_t len)
{
    size_t used = 0;
    if (buf == NULL || len == 0) return;
    buf[0] = '\0';
    for (const char *const *k = known; *k && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", k == known ? "" : "|", *k);
}
