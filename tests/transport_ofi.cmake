# libfabric paths that no provider on this machine takes by itself, forced in test builds of the
# OFI backend (transports/ofi/ofi_fabric.c): FI_MR_LOCAL (local descriptors, staging through
# registered bounce slots), a small maximum message size (transfers split into many chunks,
# more chunks than operation contexts, so requests queue and drain) and put_signal without
# remote CQ data (the signal atomic waits until the data is delivery-complete; shm then also
# keeps FI_MR_VIRT_ADDR, which it drops when asked for write-after-write order). The contract
# test runs on top of each, for every provider. The backend's sources are compiled into the
# executable with the test switches; its symbols then come from there, not from the archive.
if(ARBOR_WITH_OFI)
  file(GLOB ARBOR_OFI_SOURCES ${CMAKE_SOURCE_DIR}/transports/ofi/*.c)
  foreach(variant mrlocal maxmsg dcsignal)
    set(exe arbor-tp-contract-ofi-${variant})
    add_executable(${exe} ${CMAKE_CURRENT_SOURCE_DIR}/tp_contract.c ${ARBOR_OFI_SOURCES})
    target_link_libraries(${exe} PRIVATE arbor_internal PkgConfig::OFI Threads::Threads)
    arbor_add_launched_test(NAME tp_contract_${variant} COMMAND $<TARGET_FILE:${exe}> ofi
                            RANKS 2 3 TRANSPORTS "ofi:shm" "ofi:tcp^ofi_rxm" "ofi:sockets"
                            TIMEOUT 300 LABELS transport)
  endforeach()
  # 1000 bytes: not a power of two, so chunk offsets that assume one show up.
  target_compile_definitions(arbor-tp-contract-ofi-mrlocal PRIVATE ARB_OFI_TEST_MR_LOCAL=1)
  target_compile_definitions(arbor-tp-contract-ofi-maxmsg PRIVATE ARB_OFI_TEST_MAX_MSG=1000)
  target_compile_definitions(arbor-tp-contract-ofi-dcsignal PRIVATE ARB_OFI_TEST_NO_CQ_DATA=1)
  # The collectives' pipelined traffic (many put_signals in flight both ways, atomic credits)
  # over the fallback put_signal, which no provider here takes by itself.
  add_executable(arbor-test-coll-ofi-dcsignal ${CMAKE_CURRENT_SOURCE_DIR}/test_coll.c
                 ${ARBOR_OFI_SOURCES})
  target_link_libraries(arbor-test-coll-ofi-dcsignal PRIVATE arbor_internal PkgConfig::OFI)
  target_compile_definitions(arbor-test-coll-ofi-dcsignal PRIVATE ARB_OFI_TEST_NO_CQ_DATA=1)
  arbor_add_launched_test(NAME coll_dcsignal COMMAND $<TARGET_FILE:arbor-test-coll-ofi-dcsignal>
                          RANKS 2 3 5 TRANSPORTS "ofi:shm" "ofi:tcp^ofi_rxm" "ofi:sockets"
                          LABELS coll)
endif()
