/* Bootstrap selection (PMIx, else singleton) and the allgather built on put/commit/fence/get. */
#include <stdlib.h>

#include "bootstrap/bootstrap.h"

arbor_status_t arb_pmix_open(arb_boot_t **boot_p);
arbor_status_t arb_singleton_open(arb_boot_t **boot_p);

arbor_status_t arb_boot_open(arb_boot_t **boot_p, double timeout_s)
{
    arbor_status_t status = arb_pmix_open(boot_p);
    if (status == ARBOR_ERR_UNSUPPORTED) status = arb_singleton_open(boot_p);
    if (status == ARBOR_OK) (*boot_p)->timeout_s = timeout_s;
    return status;
}

void arb_boot_free_all(arb_boot_t *b, void **blobs, size_t *lens)
{
    int n = b->ops->size(b);
    for (int i = 0; blobs && i < n; i++) free(blobs[i]);
    free(blobs);
    free(lens);
}

arbor_status_t arb_boot_allgather(arb_boot_t *b, const char *key, const void *data, size_t len,
                                  void ***blobs_p, size_t **lens_p)
{
    int n = b->ops->size(b);
    arbor_status_t status;
    if ((status = b->ops->put(b, key, data, len)) != ARBOR_OK ||
        (status = b->ops->commit(b)) != ARBOR_OK || (status = b->ops->fence(b)) != ARBOR_OK)
        return status;
    void **blobs = calloc((size_t)n, sizeof(*blobs));
    size_t *lens = calloc((size_t)n, sizeof(*lens));
    if (!blobs || !lens) {
        free(blobs);
        free(lens);
        return ARBOR_ERR_NO_MEMORY;
    }
    for (int i = 0; i < n; i++) {
        if ((status = b->ops->get(b, i, key, &blobs[i], &lens[i])) != ARBOR_OK) {
            arb_boot_free_all(b, blobs, lens);
            return status;
        }
    }
    *blobs_p = blobs;
    *lens_p = lens;
    return ARBOR_OK;
}
