# The one-sided layer (core/rma/): added to the library's object target.
target_sources(arbor_obj PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/mem.c
  ${CMAKE_CURRENT_LIST_DIR}/reg.c
  ${CMAKE_CURRENT_LIST_DIR}/rma.c
  ${CMAKE_CURRENT_LIST_DIR}/atomic.c
  ${CMAKE_CURRENT_LIST_DIR}/notify.c
  ${CMAKE_CURRENT_LIST_DIR}/acc.c
  ${CMAKE_CURRENT_LIST_DIR}/strided.c)
# Active messages and the strided pack path over them (docs/AM.md).
target_sources(arbor_obj PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/am.c
  ${CMAKE_CURRENT_LIST_DIR}/am_strided.c)
