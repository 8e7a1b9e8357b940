# bench/shmem: shmem-bench over libshmem_arbor (shmem-bench-arbor). bench/shmem/compare builds
# the same source with Open MPI's oshcc and runs both side by side. Included from
# bench/CMakeLists.txt.
if(NOT TARGET shmem_arbor)
  return()
endif()
add_executable(shmem-bench-arbor ${CMAKE_CURRENT_LIST_DIR}/shmem_bench.c)
set_target_properties(shmem-bench-arbor PROPERTIES C_STANDARD 11)
target_link_libraries(shmem-bench-arbor PRIVATE shmem_arbor)
add_executable(shmem-ctx-bench-arbor ${CMAKE_CURRENT_LIST_DIR}/shmem_ctx_bench.c)
set_target_properties(shmem-ctx-bench-arbor PROPERTIES C_STANDARD 11)
target_link_libraries(shmem-ctx-bench-arbor PRIVATE shmem_arbor Threads::Threads)
