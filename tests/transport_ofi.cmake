# libfabric paths that no provider on this machine takes by itself, forced in test builds of the
# OFI backend (transports/ofi/ofi_fabric.c): FI_MR_LOCAL (local descriptors, staging through
# registered bounce slots) and a small maximum message size (transfers split into many chunks,
# more chunks than operation contexts, so requests queue and drain). The contract test runs on
# top of each, for every provider. The backend's sources are compiled into the executable with
# the test switches; its symbols then come from there, not from the archive.
if(ARBOR_WITH_OFI)
  file(GLOB ARBOR_OFI_SOURCES ${CMAKE_SOURCE_DIR}/transports/ofi/*.c)
  foreach(variant mrlocal maxmsg)
    set(exe arbor-tp-contract-ofi-${variant})
    add_executable(${exe} ${CMAKE_CURRENT_SOURCE_DIR}/tp_contract.c ${ARBOR_OFI_SOURCES})
    target_link_libraries(${exe} PRIVATE arbor_internal PkgConfig::OFI)
    arbor_add_launched_test(NAME tp_contract_${variant} COMMAND $<TARGET_FILE:${exe}> ofi
                            RANKS 2 3 TRANSPORTS "ofi:shm" "ofi:tcp^ofi_rxm" "ofi:sockets"
                            TIMEOUT 180 LABELS transport)
  endforeach()
  # 1000 bytes: not a power of two, so chunk offsets that assume one show up.
  target_compile_definitions(arbor-tp-contract-ofi-mrlocal PRIVATE ARB_OFI_TEST_MR_LOCAL=1)
  target_compile_definitions(arbor-tp-contract-ofi-maxmsg PRIVATE ARB_OFI_TEST_MAX_MSG=1000)
endif()
