# Communication contexts (label ctx; threads, so the TSan phase of scripts/test.sh runs it):
# two threads per rank on private contexts at ARBOR_THREAD_MULTIPLE, then team-rank
# addressing, put-with-signal and errors on contexts (tests/test_ctx.c).
add_executable(arbor-test-ctx ${CMAKE_CURRENT_SOURCE_DIR}/test_ctx.c)
target_link_libraries(arbor-test-ctx PRIVATE arbor Threads::Threads)
set(ARBOR_CTX_TRANSPORTS "")
if(ARBOR_WITH_UCX)
  list(APPEND ARBOR_CTX_TRANSPORTS ucx)
endif()
if(ARBOR_WITH_OFI)
  list(APPEND ARBOR_CTX_TRANSPORTS "ofi:shm" "ofi:tcp^ofi_rxm")
endif()
if(ARBOR_CTX_TRANSPORTS)
  arbor_add_launched_test(NAME ctx COMMAND $<TARGET_FILE:arbor-test-ctx> LABELS "rma;ctx;threads"
                          RANKS 1 2 3 TRANSPORTS ${ARBOR_CTX_TRANSPORTS} TIMEOUT 180)
endif()
if(ARBOR_WITH_UCX)
  # Not mapped: every context operation goes through the transport.
  arbor_add_launched_test(NAME ctx_nodirect COMMAND $<TARGET_FILE:arbor-test-ctx>
                          LABELS "rma;ctx;threads" TRANSPORTS ucx RANKS 2 TIMEOUT 180
                          ENV ARBOR_DIRECT=n)
endif()
# Private contexts on their transport streams (tests/test_ctx_stream.c): with ARBOR_DIRECT=n every
# operation to another rank goes through the transport, so on the contexts' streams.
add_executable(arbor-test-ctx-stream ${CMAKE_CURRENT_SOURCE_DIR}/test_ctx_stream.c)
target_link_libraries(arbor-test-ctx-stream PRIVATE arbor Threads::Threads)
if(ARBOR_CTX_TRANSPORTS)
  arbor_add_launched_test(NAME ctx_stream COMMAND $<TARGET_FILE:arbor-test-ctx-stream>
                          LABELS "rma;ctx;threads" RANKS 2 3 TRANSPORTS ${ARBOR_CTX_TRANSPORTS}
                          TIMEOUT 180 ENV ARBOR_DIRECT=n)
endif()
# Waits on sets of words, signal fetch, team layouts and translation (label rma_sets).
add_executable(arbor-test-rma-sets ${CMAKE_CURRENT_SOURCE_DIR}/test_rma_sets.c)
target_link_libraries(arbor-test-rma-sets PRIVATE arbor)
if(ARBOR_CTX_TRANSPORTS)
  arbor_add_launched_test(NAME rma_sets COMMAND $<TARGET_FILE:arbor-test-rma-sets>
                          LABELS "rma;rma_sets" RANKS 1 2 4 5 TRANSPORTS ${ARBOR_CTX_TRANSPORTS}
                          TIMEOUT 180)
endif()
