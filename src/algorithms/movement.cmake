# Data-movement collectives: scatter(v), gather(v), allgather(v), alltoall(v) schedule builders.
target_sources(arbor_obj PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/scatter.c
  ${CMAKE_CURRENT_LIST_DIR}/gather.c
  ${CMAKE_CURRENT_LIST_DIR}/allgather.c
  ${CMAKE_CURRENT_LIST_DIR}/allgather_node.c
  ${CMAKE_CURRENT_LIST_DIR}/alltoall.c)
