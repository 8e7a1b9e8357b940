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
  # The collective suites with the hook forced: what the provider runs goes through it, the
  # rest (other collectives, types, ops, sizes) through software, every result checked.
  arbor_add_launched_test(NAME colls_hwcoll COMMAND $<TARGET_FILE:arbor-test-colls>
                          LABELS offload TRANSPORTS "ofi:tcp^ofi_rxm" RANKS 3
                          ENV ARBOR_OFFLOAD=hwcoll ARBOR_TIMEOUT=60)
  # P = 8: util broadcast's scatter then sends several pieces in one message (docs/OFFLOAD.md).
  arbor_add_launched_test(NAME coll_hwcoll COMMAND $<TARGET_FILE:arbor-test-coll>
                          LABELS offload TRANSPORTS "ofi:tcp^ofi_rxm" RANKS 3 8
                          ENV ARBOR_OFFLOAD=hwcoll ARBOR_TIMEOUT=60)
  set(refusing "ofi:shm")
  if(ARBOR_WITH_UCX)
    list(APPEND refusing ucx)
  endif()
  arbor_add_launched_test(NAME offload_refused COMMAND $<TARGET_FILE:arbor-test-offload> refused
                          LABELS offload TRANSPORTS ${refusing} RANKS 2
                          ENV ARBOR_OFFLOAD=hwcoll ARBOR_TIMEOUT=60)
  # triggered: bcast from every root and barriers over the sockets provider while the ranks
  # that forward compute without calling arbor; refused where there are no triggered writes.
  arbor_add_launched_test(NAME offload_triggered COMMAND $<TARGET_FILE:arbor-test-offload>
                          triggered LABELS offload TRANSPORTS ofi:sockets RANKS 2 3 4
                          ENV ARBOR_OFFLOAD=triggered ARBOR_TIMEOUT=60)
  arbor_add_launched_test(NAME offload_trig_refused COMMAND $<TARGET_FILE:arbor-test-offload>
                          refused LABELS offload TRANSPORTS "ofi:tcp^ofi_rxm" RANKS 2
                          ENV ARBOR_OFFLOAD=triggered ARBOR_TIMEOUT=60)
endif()

# What a triggered hook would stand on (docs/OFFLOAD.md): the sockets provider forwards a
# triggered RMA write gated on a remote-write counter while the forwarding process computes,
# under FI_PROGRESS_AUTO, and does not under FI_PROGRESS_MANUAL (the progress arbor asks for).
# Standalone libfabric program (fork + socketpair), no launcher.
if(ARBOR_WITH_OFI)
  add_executable(arbor-probe-trigger ${CMAKE_CURRENT_SOURCE_DIR}/probe_trigger.c)
  target_link_libraries(arbor-probe-trigger PRIVATE PkgConfig::OFI)
  add_test(NAME offload.probe_trigger_auto COMMAND arbor-probe-trigger 1 1)
  add_test(NAME offload.probe_trigger_manual COMMAND arbor-probe-trigger 2 0)
  # The probe exits (both forked halves) with its fabric objects open: what it checks is the
  # provider's behaviour, so LeakSanitizer's view of libfabric's allocations is switched off.
  set_tests_properties(offload.probe_trigger_auto offload.probe_trigger_manual PROPERTIES
    LABELS offload TIMEOUT 30 SKIP_RETURN_CODE 77
    ENVIRONMENT "FI_SOCKETS_IFACE=lo;ASAN_OPTIONS=detect_leaks=0")
endif()
