# The one-sided layer (core/rma/): added to the library's object target.
target_sources(arbor_obj PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/mem.c
  ${CMAKE_CURRENT_LIST_DIR}/reg.c
  ${CMAKE_CURRENT_LIST_DIR}/rma.c
  ${CMAKE_CURRENT_LIST_DIR}/order.c
  ${CMAKE_CURRENT_LIST_DIR}/atomic.c
  ${CMAKE_CURRENT_LIST_DIR}/notify.c
  ${CMAKE_CURRENT_LIST_DIR}/depart.c
  ${CMAKE_CURRENT_LIST_DIR}/acc.c
  ${CMAKE_CURRENT_LIST_DIR}/strided.c
  ${CMAKE_CURRENT_LIST_DIR}/ptr.c
  ${CMAKE_CURRENT_LIST_DIR}/ctx.c)
# Active messages and the strided pack path over them (docs/AM.md).
target_sources(arbor_obj PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/am.c
  ${CMAKE_CURRENT_LIST_DIR}/am_strided.c)
# gcc vectorizes at -O2 only with its "very cheap" cost model (gcc >= 12), which leaves the
# accumulate's combine loops (x[i] += scale * y[i]) scalar: as the reduction kernels
# (core/dtype.cmake), acc.c gets the vectorizer with the dynamic cost model.
if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/acc.c TARGET_DIRECTORY arbor_obj
    PROPERTIES COMPILE_OPTIONS "-ftree-vectorize;-fvect-cost-model=dynamic")
endif()
