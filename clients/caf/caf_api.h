/*
 * The entry points of libcaf_arbor: the _gfortran_caf_* functions gfortran 8-14 call for
 * -fcoarray=lib (the only symbols the library exports; everything else is hidden).
 */
#ifndef CAF_API_H
#define CAF_API_H

#include <stdbool.h>
#include <stddef.h>

#include "caf_abi.h"

#define CAF_API __attribute__((visibility("default")))

/* Start and end, image queries, termination (caf_init.c). */
CAF_API void _gfortran_caf_init(int *argc, char ***argv);
CAF_API void _gfortran_caf_finalize(void);
CAF_API int _gfortran_caf_this_image(int distance);
CAF_API int _gfortran_caf_num_images(int distance, int failed);
CAF_API _Noreturn void _gfortran_caf_stop_numeric(int code, bool quiet);
CAF_API _Noreturn void _gfortran_caf_stop_str(const char *str, size_t len, bool quiet);
CAF_API _Noreturn void _gfortran_caf_error_stop(int code, bool quiet);
CAF_API _Noreturn void _gfortran_caf_error_stop_str(const char *str, size_t len, bool quiet);
CAF_API _Noreturn void _gfortran_caf_fail_image(void);
CAF_API int _gfortran_caf_image_status(int image, caf_team_t *team);
CAF_API void _gfortran_caf_failed_images(caf_desc_t *array, caf_team_t *team, int *kind);
CAF_API void _gfortran_caf_stopped_images(caf_desc_t *array, caf_team_t *team, int *kind);
CAF_API bool _gfortran_caf_is_contiguous(caf_desc_t *desc);

/* Coarrays (caf_register.c). */
CAF_API void _gfortran_caf_register(size_t size, int type, caf_token_t *token, caf_desc_t *desc,
                                    int *stat, char *errmsg, size_t errmsg_len);
CAF_API void _gfortran_caf_deregister(caf_token_t *token, int type, int *stat, char *errmsg,
                                      size_t errmsg_len);

/* Coindexed access (caf_transfer.c). */
CAF_API void _gfortran_caf_get(caf_token_t token, size_t offset, int image_index, caf_desc_t *src,
                               caf_vector_t *src_vector, caf_desc_t *dest, int src_kind,
                               int dst_kind, bool may_require_tmp, int *stat);
CAF_API void _gfortran_caf_send(caf_token_t token, size_t offset, int image_index, caf_desc_t *dest,
                                caf_vector_t *dst_vector, caf_desc_t *src, int dst_kind,
                                int src_kind, bool may_require_tmp, int *stat);
CAF_API void _gfortran_caf_sendget(caf_token_t dst_token, size_t dst_offset, int dst_image_index,
                                   caf_desc_t *dest, caf_vector_t *dst_vector,
                                   caf_token_t src_token, size_t src_offset, int src_image_index,
                                   caf_desc_t *src, caf_vector_t *src_vector, int dst_kind,
                                   int src_kind, bool may_require_tmp, int *stat);

/* Collective subroutines (caf_coll.c). */
CAF_API void _gfortran_caf_co_sum(caf_desc_t *a, int result_image, int *stat, char *errmsg,
                                  size_t errmsg_len);
CAF_API void _gfortran_caf_co_min(caf_desc_t *a, int result_image, int *stat, char *errmsg,
                                  int a_len, size_t errmsg_len);
CAF_API void _gfortran_caf_co_max(caf_desc_t *a, int result_image, int *stat, char *errmsg,
                                  int a_len, size_t errmsg_len);
CAF_API void _gfortran_caf_co_broadcast(caf_desc_t *a, int source_image, int *stat, char *errmsg,
                                        size_t errmsg_len);
CAF_API void _gfortran_caf_co_reduce(caf_desc_t *a, void *(*opr)(void *, void *), int opr_flags,
                                     int result_image, int *stat, char *errmsg, int a_len,
                                     size_t errmsg_len);

/* Image control (caf_sync.c). */
CAF_API void _gfortran_caf_sync_all(int *stat, char *errmsg, size_t errmsg_len);
CAF_API void _gfortran_caf_sync_images(int count, int images[], int *stat, char *errmsg,
                                       size_t errmsg_len);
CAF_API void _gfortran_caf_sync_memory(int *stat, char *errmsg, size_t errmsg_len);

/* Atomics, locks, events (caf_atomic.c). */
CAF_API void _gfortran_caf_atomic_define(caf_token_t token, size_t offset, int image_index,
                                         void *value, int *stat, int type, int kind);
CAF_API void _gfortran_caf_atomic_ref(caf_token_t token, size_t offset, int image_index,
                                      void *value, int *stat, int type, int kind);
CAF_API void _gfortran_caf_atomic_cas(caf_token_t token, size_t offset, int image_index, void *old,
                                      void *compare, void *new_val, int *stat, int type, int kind);
CAF_API void _gfortran_caf_atomic_op(int op, caf_token_t token, size_t offset, int image_index,
                                     void *value, void *old, int *stat, int type, int kind);
CAF_API void _gfortran_caf_lock(caf_token_t token, size_t index, int image_index,
                                int *acquired_lock, int *stat, char *errmsg, size_t errmsg_len);
CAF_API void _gfortran_caf_unlock(caf_token_t token, size_t index, int image_index, int *stat,
                                  char *errmsg, size_t errmsg_len);
CAF_API void _gfortran_caf_event_post(caf_token_t token, size_t index, int image_index, int *stat,
                                      char *errmsg, size_t errmsg_len);
CAF_API void _gfortran_caf_event_wait(caf_token_t token, size_t index, int until_count, int *stat,
                                      char *errmsg, size_t errmsg_len);
CAF_API void _gfortran_caf_event_query(caf_token_t token, size_t index, int image_index, int *count,
                                       int *stat);

/* Teams (caf_team.c). */
CAF_API void _gfortran_caf_form_team(int team_no, caf_team_t *team, int index);
CAF_API void _gfortran_caf_change_team(caf_team_t *team, int coselector);
CAF_API void _gfortran_caf_end_team(caf_team_t *team);
CAF_API void _gfortran_caf_sync_team(caf_team_t *team, int unused);
CAF_API int _gfortran_caf_team_number(caf_team_t *team);
/* OpenCoarrays' extension (its module opencoarrays binds get_communicator to it): the Fortran
 * handle of the MPI communicator of the current team, or of *team_ptr's team (caf_mpi.c). */
CAF_API int _gfortran_caf_get_communicator(void **team_ptr);

/* Reference chains: components and array references applied in turn (caf_byref.c). */
CAF_API void _gfortran_caf_get_by_ref(caf_token_t token, int image_index, caf_desc_t *dst,
                                      void *refs, int dst_kind, int src_kind, bool may_require_tmp,
                                      bool dst_reallocatable, int *stat, int src_type);
CAF_API void _gfortran_caf_send_by_ref(caf_token_t token, int image_index, caf_desc_t *src,
                                       void *refs, int dst_kind, int src_kind, bool may_require_tmp,
                                       bool dst_reallocatable, int *stat, int dst_type);
CAF_API void _gfortran_caf_sendget_by_ref(caf_token_t dst_token, int dst_image_index,
                                          void *dst_refs, caf_token_t src_token,
                                          int src_image_index, void *src_refs, int dst_kind,
                                          int src_kind, bool may_require_tmp, int *dst_stat,
                                          int *src_stat, int dst_type, int src_type);
CAF_API int _gfortran_caf_is_present(caf_token_t token, int image_index, void *refs);
CAF_API void _gfortran_caf_random_init(bool repeatable, bool image_distinct);

#endif /* CAF_API_H */
