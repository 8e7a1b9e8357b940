# Interrupt-mode progress (ARBOR_PROGRESS=interrupt, docs/PROGRESS.md), label interrupt: a rank
# waiting 2 s for a late peer in an allreduce and in notify_wait uses under 5% of that time in
# CPU, with the wake-up latency printed; and the collective suites in interrupt mode.
add_executable(arbor-test-interrupt ${CMAKE_CURRENT_SOURCE_DIR}/test_interrupt.c)
target_link_libraries(arbor-test-interrupt PRIVATE arbor)
set(ARBOR_INTERRUPT_TRANSPORTS "")
if(ARBOR_WITH_UCX)
  list(APPEND ARBOR_INTERRUPT_TRANSPORTS ucx)
endif()
if(ARBOR_WITH_OFI)
  list(APPEND ARBOR_INTERRUPT_TRANSPORTS "ofi:tcp^ofi_rxm")
endif()
if(ARBOR_WITH_UCX)
  arbor_add_launched_test(NAME interrupt COMMAND $<TARGET_FILE:arbor-test-interrupt>
                          LABELS interrupt RANKS 2 3 TRANSPORTS ucx TIMEOUT 120
                          ENV ARBOR_PROGRESS=interrupt)
endif()
# On OFI a symmetric allocation starts the progress thread (passive targets): --thread checks
# that it sleeps too while the rank computes with a collective in flight.
if(ARBOR_WITH_OFI)
  arbor_add_launched_test(NAME interrupt COMMAND $<TARGET_FILE:arbor-test-interrupt> --thread
                          LABELS interrupt RANKS 2 3 TRANSPORTS "ofi:tcp^ofi_rxm" TIMEOUT 120
                          ENV ARBOR_PROGRESS=interrupt)
endif()
if(ARBOR_INTERRUPT_TRANSPORTS)
  arbor_add_launched_test(NAME coll_interrupt COMMAND $<TARGET_FILE:arbor-test-coll>
                          LABELS "interrupt;coll" RANKS 2 3 4
                          TRANSPORTS ${ARBOR_INTERRUPT_TRANSPORTS} ENV ARBOR_PROGRESS=interrupt)
  arbor_add_launched_test(NAME colls_interrupt COMMAND $<TARGET_FILE:arbor-test-colls>
                          LABELS "interrupt;colls" RANKS 2 3 4
                          TRANSPORTS ${ARBOR_INTERRUPT_TRANSPORTS} ENV ARBOR_PROGRESS=interrupt)
endif()
# UCX without arbor's mapped path: transport operations within the node ring the doorbell.
if(ARBOR_WITH_UCX)
  arbor_add_launched_test(NAME interrupt_nodirect COMMAND $<TARGET_FILE:arbor-test-interrupt>
                          LABELS interrupt RANKS 2 TRANSPORTS ucx TIMEOUT 120
                          ENV ARBOR_PROGRESS=interrupt ARBOR_DIRECT=n)
endif()
# ARBOR_TIMEOUT still holds in interrupt mode (sleeps are sliced): a timed-out bcast is cancelled.
if(ARBOR_WITH_UCX)
  arbor_add_launched_test(NAME cancel_interrupt COMMAND $<TARGET_FILE:arbor-test-cancel>
                          LABELS "interrupt;reliability" RANKS 3 TRANSPORTS ucx TIMEOUT 60
                          ENV ARBOR_TIMEOUT=1 ARBOR_PROGRESS=interrupt)
endif()
# Where the transport gives no wait descriptor (ofi:shm, docs/TRANSPORTS.md): one warning, thread
# mode, right results (the CPU ratio is printed, not checked).
if(ARBOR_WITH_OFI)
  arbor_add_launched_test(NAME interrupt_fallback COMMAND $<TARGET_FILE:arbor-test-interrupt>
                          --expect-fallback LABELS interrupt RANKS 2 TRANSPORTS ofi:shm
                          TIMEOUT 120 ENV ARBOR_PROGRESS=interrupt)
endif()
