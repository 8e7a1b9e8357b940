/*
 * The reference-chain entry points (coindexed access to allocatable components of derived-type
 * coarrays) and the other parts of the ABI libcaf_arbor does not provide: each reports a clear
 * error (stat set, else error termination) instead of silently doing nothing.
 */
#include "caf_api.h"
#include "caf_state.h"

#define UNSUPPORTED(what) "libcaf_arbor: " what " is not supported by libcaf_arbor"

void _gfortran_caf_get_by_ref(caf_token_t token, int image_index, caf_desc_t *dst, void *refs,
                              int dst_kind, int src_kind, bool may_require_tmp,
                              bool dst_reallocatable, int *stat, int src_type)
{
    (void)token, (void)image_index, (void)dst, (void)refs, (void)dst_kind, (void)src_kind;
    (void)may_require_tmp, (void)dst_reallocatable, (void)src_type;
    caf_report(stat, NULL, 0, CAF_STAT_ERROR,
               UNSUPPORTED("coindexed access to a component (get_by_ref)"));
}

void _gfortran_caf_send_by_ref(caf_token_t token, int image_index, caf_desc_t *src, void *refs,
                               int dst_kind, int src_kind, bool may_require_tmp,
                               bool dst_reallocatable, int *stat, int dst_type)
{
    (void)token, (void)image_index, (void)src, (void)refs, (void)dst_kind, (void)src_kind;
    (void)may_require_tmp, (void)dst_reallocatable, (void)dst_type;
    caf_report(stat, NULL, 0, CAF_STAT_ERROR,
               UNSUPPORTED("coindexed access to a component (send_by_ref)"));
}

void _gfortran_caf_sendget_by_ref(caf_token_t dst_token, int dst_image_index, void *dst_refs,
                                  caf_token_t src_token, int src_image_index, void *src_refs,
                                  int dst_kind, int src_kind, bool may_require_tmp, int *dst_stat,
                                  int *src_stat, int dst_type, int src_type)
{
    (void)dst_token, (void)dst_image_index, (void)dst_refs, (void)src_token;
    (void)src_image_index, (void)src_refs, (void)dst_kind, (void)src_kind;
    (void)may_require_tmp, (void)dst_type, (void)src_type;
    if (src_stat) *src_stat = CAF_STAT_ERROR;
    caf_report(dst_stat, NULL, 0, CAF_STAT_ERROR,
               UNSUPPORTED("coindexed access to a component (sendget_by_ref)"));
}

int _gfortran_caf_is_present(caf_token_t token, int image_index, void *refs)
{
    (void)token, (void)image_index, (void)refs;
    caf_fatal(1, UNSUPPORTED("allocated() of a coindexed component (is_present)"));
}

void _gfortran_caf_random_init(bool repeatable, bool image_distinct)
{
    (void)repeatable, (void)image_distinct;
    caf_fatal(1, UNSUPPORTED("random_init"));
}
