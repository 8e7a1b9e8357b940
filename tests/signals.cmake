# Signals (docs/PROTOCOL.md, "Signals"): barriers of every algorithm interleaved with small
# allreduces between the same pairs; fails if a signal is lost (timeout) or counted twice (a
# barrier passed before its late member entered). Label signals.
add_executable(arbor-test-signals ${CMAKE_CURRENT_SOURCE_DIR}/test_signals.c)
target_link_libraries(arbor-test-signals PRIVATE arbor)
set(ARBOR_SIGNALS_TRANSPORTS "")
if(ARBOR_WITH_UCX)
  list(APPEND ARBOR_SIGNALS_TRANSPORTS ucx)
endif()
if(ARBOR_WITH_OFI)
  list(APPEND ARBOR_SIGNALS_TRANSPORTS "ofi:shm" "ofi:tcp^ofi_rxm")
endif()
arbor_add_launched_test(NAME signals COMMAND $<TARGET_FILE:arbor-test-signals> RANKS 2 3 5
                        TRANSPORTS ${ARBOR_SIGNALS_TRANSPORTS} TIMEOUT 180 LABELS signals)
# UCX over TCP on one host: every signal goes through the transport (put_signal as one active
# message), as between hosts.
if(ARBOR_WITH_UCX)
  arbor_add_launched_test(NAME signals_tcp COMMAND $<TARGET_FILE:arbor-test-signals> RANKS 3
                          TRANSPORTS ucx TIMEOUT 180 LABELS signals ENV UCX_TLS=tcp,self)
endif()
# On the simulated cluster (tests/cluster.cmake: 3 hosts x 2 ranks, inter-host messages over
# TCP), where the node-aware barriers (karp_node, two_level, leader_dissem) run as such.
if(NOT ARBOR_SANITIZE AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
  foreach(tp ucx ofi-tcp)
    if(tp STREQUAL "ucx" AND ARBOR_WITH_UCX)
      set(tp_env ARBOR_TRANSPORT=ucx)
    elseif(tp STREQUAL "ofi-tcp" AND ARBOR_WITH_OFI)
      set(tp_env ARBOR_TRANSPORT=ofi "ARBOR_OFI_PROVIDER=tcp\\;ofi_rxm")
    else()
      continue()
    endif()
    add_test(NAME cluster.signals.${tp}.3x2 COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cluster/run.sh 3 2
             $<TARGET_FILE:arbor-test-signals>)
    set_tests_properties(cluster.signals.${tp}.3x2 PROPERTIES
      ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;ARBOR_TIMEOUT=60;ARBOR_POLL_YIELD=always;${tp_env}"
      TIMEOUT 300 SKIP_RETURN_CODE 77 RESOURCE_LOCK simcluster PROCESSORS 2
      LABELS "cluster;launched;signals")
  endforeach()
endif()
