# tests/shmem: OpenSHMEM programs over libshmem_arbor (clients/shmem), each checking its own
# results, launched by mpirun at 1, 2 and 4 PEs on UCX and OFI shm (label shmem). Included
# from tests/CMakeLists.txt.
if(NOT TARGET shmem_arbor)
  return()
endif()
set(_shmem_dir ${CMAKE_CURRENT_LIST_DIR})
foreach(t rma amo coll)
  add_executable(shmem-test-${t} ${_shmem_dir}/test_shmem_${t}.c)
  set_target_properties(shmem-test-${t} PROPERTIES C_STANDARD 11)
  target_link_libraries(shmem-test-${t} PRIVATE shmem_arbor m)
  arbor_add_launched_test(NAME shmem_${t} COMMAND $<TARGET_FILE:shmem-test-${t}> RANKS 1 2 4
                          TRANSPORTS ucx "ofi:shm" LABELS shmem TIMEOUT 120)
endforeach()
