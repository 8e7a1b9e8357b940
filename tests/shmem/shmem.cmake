# tests/shmem: OpenSHMEM programs over libshmem_arbor (clients/shmem), each checking its own
# results, launched by mpirun at 1, 2 and 4 PEs on UCX and OFI shm (label shmem). Included
# from tests/CMakeLists.txt.
if(NOT TARGET shmem_arbor)
  return()
endif()
set(_shmem_dir ${CMAKE_CURRENT_LIST_DIR})
foreach(t rma amo coll threads)
  add_executable(shmem-test-${t} ${_shmem_dir}/test_shmem_${t}.c)
  set_target_properties(shmem-test-${t} PROPERTIES C_STANDARD 11)
  target_link_libraries(shmem-test-${t} PRIVATE shmem_arbor m Threads::Threads)
  arbor_add_launched_test(NAME shmem_${t} COMMAND $<TARGET_FILE:shmem-test-${t}> RANKS 1 2 4
                          TRANSPORTS ucx "ofi:shm" LABELS shmem TIMEOUT 120)
endforeach()
# OFI over TCP (ofi_rxm): 2 PEs, the RMA, AMO and collective programs.
if(ARBOR_WITH_OFI)
  foreach(t rma amo coll)
    arbor_add_launched_test(NAME shmem_${t} COMMAND $<TARGET_FILE:shmem-test-${t}> RANKS 2
                            TRANSPORTS "ofi:tcp^ofi_rxm" LABELS shmem TIMEOUT 180)
  endforeach()
endif()
# Nothing mapped (ARBOR_DIRECT=n): OFI over TCP carries every operation between PEs, and the
# segments are the transport's own (shmem_align's alignments must still agree).
if(ARBOR_WITH_OFI)
  arbor_add_launched_test(NAME shmem_rma_nodirect COMMAND $<TARGET_FILE:shmem-test-rma> RANKS 2
                          TRANSPORTS "ofi:tcp^ofi_rxm" LABELS shmem TIMEOUT 180
                          ENV ARBOR_DIRECT=n)
endif()
# The same programs with every call through arbor (no loads / stores / CPU atomics through the
# mapped heap), where the transport maps peers.
foreach(t rma amo)
  arbor_add_launched_test(NAME shmem_${t}_through_arbor COMMAND $<TARGET_FILE:shmem-test-${t}>
                          RANKS 2 TRANSPORTS ucx LABELS shmem TIMEOUT 120
                          ENV SHMEM_MAPPED_BYPASS=0)
endforeach()

# A C99 program: the header without generic selections.
add_executable(shmem-test-c99 ${_shmem_dir}/test_shmem_c99.c)
set_target_properties(shmem-test-c99 PROPERTIES C_STANDARD 99 C_EXTENSIONS OFF)
target_link_libraries(shmem-test-c99 PRIVATE shmem_arbor)
arbor_add_launched_test(NAME shmem_c99 COMMAND $<TARGET_FILE:shmem-test-c99> RANKS 2
                        TRANSPORTS ucx LABELS shmem TIMEOUT 60)

# shmem_global_exit: the job ends with the status passed (the wrapper checks it is 7 and that
# the job did not hang).
add_executable(shmem-test-exit ${_shmem_dir}/test_shmem_exit.c)
target_link_libraries(shmem-test-exit PRIVATE shmem_arbor)
foreach(p 1 2 4)
  add_test(NAME shmem_global_exit.${p}
           COMMAND sh -c "timeout 60 \"$@\"; rc=$?; echo exit status $rc; [ $rc -eq 7 ]" sh
                   ${ARBOR_TEST_LAUNCHER} ${ARBOR_TEST_LAUNCHER_FLAGS} ${ARBOR_TEST_NPROC_FLAG} ${p}
                   $<TARGET_FILE:shmem-test-exit>)
  set_tests_properties(shmem_global_exit.${p} PROPERTIES ENVIRONMENT "${ARBOR_TEST_ENV}"
                       TIMEOUT 90 PROCESSORS 1 LABELS "launched;shmem")
endforeach()

# Packaging: arbor-oshcc, pkg-config shmem-arbor and find_package(arbor COMPONENTS
# shmem_arbor) on an installed copy of this build; one PE without a launcher, 2 under mpirun.
add_test(NAME shmem_packaging
         COMMAND ${_shmem_dir}/packaging.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/shmem-packaging)
set(_shmem_client_flags "")
if(ARBOR_SANITIZE)
  set(_shmem_client_flags "-fsanitize=address,undefined")
endif()
set_tests_properties(shmem_packaging PROPERTIES LABELS "shmem;packaging" TIMEOUT 600
                     ENVIRONMENT "${ARBOR_TEST_ENV};SHMEM_CLIENT_FLAGS=${_shmem_client_flags}")
