# Offload hooks (docs/OFFLOAD.md), label offload. hwcoll: barrier, allreduce and bcast through
# libfabric's collectives over tcp;ofi_rxm at P = 2, 3, 4, every result checked, and the test
# fails unless arbor_team_last_collective reports the hook. A transport without provider
# collectives must refuse ARBOR_OFFLOAD=hwcoll at arbor_init with ARBOR_ERR_UNSUPPORTED.
if(ARBOR_WITH_OFI)
  add_executable(arbor-test-offload ${CMAKE_CURRENT_SOURCE_DIR}/test_offload.c)
  target_link_libraries(arbor-test-offload PRIVATE arbor)
  arbor_add_launched_test(NAME offload_hwcoll COMMAND $<TARGET_FILE:arbor-test-offload>
                          LABELS offload TRANSPORTS "ofi:tcp^ofi_rxm" RANKS 2 3 4
                          ENV ARBOR_OFFLOAD=hwcoll ARBOR_TIMEOUT=60)
  set(refusing "ofi:shm")
  if(ARBOR_WITH_UCX)
    list(APPEND refusing ucx)
  endif()
  arbor_add_launched_test(NAME offload_refused COMMAND $<TARGET_FILE:arbor-test-offload> refused
                          LABELS offload TRANSPORTS ${refusing} RANKS 2
                          ENV ARBOR_OFFLOAD=hwcoll ARBOR_TIMEOUT=60)
endif()
