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
