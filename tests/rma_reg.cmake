# Registered user memory (arbor_mem_register / pack / attach, src/rma/reg.c) and fences that
# cover packed strided puts (active messages): every transport at P = 1, 2, 3, UCX at P = 5.
# Internal header use (the pack path's count): links arbor_internal.
add_executable(arbor-test-rma-reg ${CMAKE_CURRENT_SOURCE_DIR}/test_rma_reg.c)
target_link_libraries(arbor-test-rma-reg PRIVATE arbor_internal)
arbor_add_launched_test(NAME rma_reg COMMAND $<TARGET_FILE:arbor-test-rma-reg> LABELS rma_reg
                        RANKS 1 2 3 TIMEOUT 120)
if(ARBOR_WITH_UCX)
  arbor_add_launched_test(NAME rma_reg COMMAND $<TARGET_FILE:arbor-test-rma-reg> LABELS rma_reg
                          RANKS 5 TRANSPORTS ucx TIMEOUT 120)
endif()
# The libfabric registration cache (ARBOR_REG_CACHE) in the build that forces FI_MR_LOCAL,
# which no provider here asks for (tests/transport_ofi.cmake does the same for the contract).
if(ARBOR_WITH_OFI)
  file(GLOB ARBOR_OFI_SOURCES ${CMAKE_SOURCE_DIR}/transports/ofi/*.c)
  add_executable(arbor-test-rma-reg-mrlocal ${CMAKE_CURRENT_SOURCE_DIR}/test_rma_reg.c
                 ${ARBOR_OFI_SOURCES})
  target_link_libraries(arbor-test-rma-reg-mrlocal PRIVATE arbor_internal PkgConfig::OFI)
  target_compile_definitions(arbor-test-rma-reg-mrlocal PRIVATE ARB_OFI_TEST_MR_LOCAL=1)
  arbor_add_launched_test(NAME rma_reg_mrlocal COMMAND $<TARGET_FILE:arbor-test-rma-reg-mrlocal>
                          LABELS rma_reg RANKS 2 TRANSPORTS "ofi:shm" "ofi:tcp^ofi_rxm"
                          "ofi:sockets" TIMEOUT 120 ENV ARBOR_REG_CACHE=4M)
endif()
# Registered memory between hosts: the simulated cluster of 3 hosts x 2 ranks (tests/cluster,
# as cluster.cmake runs the other one-sided tests), UCX and OFI tcp;ofi_rxm.
# rma_reg_cluster(NAME HOSTS RANKS_PER_HOST TARGET): the program on the simulated cluster over
# UCX and OFI tcp;ofi_rxm.
set(rma_reg_cluster_tps "")
if(ARBOR_WITH_UCX)
  list(APPEND rma_reg_cluster_tps ucx)
endif()
if(ARBOR_WITH_OFI)
  list(APPEND rma_reg_cluster_tps ofi-tcp)
endif()
function(rma_reg_cluster name hosts per_host target)
  if(ARBOR_SANITIZE OR NOT CMAKE_SYSTEM_NAME STREQUAL "Linux")
    return()
  endif()
  set(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ARBOR_TIMEOUT=60
      ARBOR_POLL_YIELD=always)
  foreach(tp IN LISTS rma_reg_cluster_tps)
    if(tp STREQUAL "ucx")
      set(tp_env ARBOR_TRANSPORT=ucx)
    else()
      set(tp_env ARBOR_TRANSPORT=ofi "ARBOR_OFI_PROVIDER=tcp\\;ofi_rxm")
    endif()
    set(test cluster.${name}.${tp}.${hosts}x${per_host})
    add_test(NAME ${test} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cluster/run.sh ${hosts} ${per_host}
                                  $<TARGET_FILE:${target}>)
    set_tests_properties(${test} PROPERTIES
      ENVIRONMENT "${env};${tp_env}" TIMEOUT 300 SKIP_RETURN_CODE 77
      RESOURCE_LOCK simcluster PROCESSORS 2 LABELS "cluster;launched;rma_reg")
  endforeach()
endfunction()
rma_reg_cluster(rma_reg 3 2 arbor-test-rma-reg)
# Registered memory attached by address (arbor_mem_attach_remote): the owner's descriptor
# fetched by an active message, every transport at P = 1, 2, 3.
add_executable(arbor-test-mem-attach-remote ${CMAKE_CURRENT_SOURCE_DIR}/test_mem_attach_remote.c)
target_link_libraries(arbor-test-mem-attach-remote PRIVATE arbor)
arbor_add_launched_test(NAME mem_attach_remote COMMAND $<TARGET_FILE:arbor-test-mem-attach-remote>
                        LABELS rma_reg RANKS 1 2 3 TIMEOUT 60 ENV ARBOR_TIMEOUT=20)
# Node-shared registrations (ARBOR_MEM_NODE_SHARED): static data moved into node-shared pages,
# mapped by node peers, atomics by every path summed exactly, no progress thread on one node;
# with ARBOR_DIRECT=n nothing is mapped and the thread runs; between simulated hosts the remote
# peers go through the transport.
add_executable(arbor-test-reg-shared ${CMAKE_CURRENT_SOURCE_DIR}/test_reg_shared.c)
target_link_libraries(arbor-test-reg-shared PRIVATE arbor)
arbor_add_launched_test(NAME reg_shared COMMAND $<TARGET_FILE:arbor-test-reg-shared> LABELS rma_reg
                        RANKS 1 2 3 TIMEOUT 120 ENV EXPECT_SHARED=1)
if(ARBOR_WITH_UCX)
  arbor_add_launched_test(NAME reg_shared_nodirect COMMAND $<TARGET_FILE:arbor-test-reg-shared>
                          LABELS rma_reg RANKS 2 TRANSPORTS ucx TIMEOUT 120
                          ENV EXPECT_SHARED=0 ARBOR_DIRECT=n)
endif()
rma_reg_cluster(reg_shared 2 2 arbor-test-reg-shared)
