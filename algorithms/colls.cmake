target_sources(arbor_obj PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/sched.c
  ${CMAKE_CURRENT_SOURCE_DIR}/barrier.c
  ${CMAKE_CURRENT_SOURCE_DIR}/bcast.c
  ${CMAKE_CURRENT_SOURCE_DIR}/select.c
  ${CMAKE_CURRENT_SOURCE_DIR}/tune.c)
