# Reduction collectives: reduce, allreduce, reduce_scatter, scan and exscan schedule builders.
target_sources(arbor_obj PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/reduce.c
  ${CMAKE_CURRENT_LIST_DIR}/allreduce.c
  ${CMAKE_CURRENT_LIST_DIR}/reduce_scatter.c
  ${CMAKE_CURRENT_LIST_DIR}/scan.c)
