# The one-sided fast path (docs/ONESIDED.md, "Performance"): the translation cache and the
# lock-free entry points for mapped targets, tickets under contention mixing every form of the
# call, fence then flag (label rma). UCX maps its peers (the fast path); OFI shm does not (the
# same results by the normal path); ARBOR_THREADS=multiple takes the lock on every call.
add_executable(arbor-test-rma-fast ${CMAKE_CURRENT_SOURCE_DIR}/test_rma_fast.c)
target_link_libraries(arbor-test-rma-fast PRIVATE arbor)
set(ARBOR_RMA_FAST_TRANSPORTS "")
if(ARBOR_WITH_UCX)
  list(APPEND ARBOR_RMA_FAST_TRANSPORTS ucx)
endif()
if(ARBOR_WITH_OFI)
  list(APPEND ARBOR_RMA_FAST_TRANSPORTS "ofi:shm")
endif()
if(ARBOR_RMA_FAST_TRANSPORTS)
  arbor_add_launched_test(NAME rma_fast COMMAND $<TARGET_FILE:arbor-test-rma-fast> LABELS rma
                          RANKS 1 3 4 TRANSPORTS ${ARBOR_RMA_FAST_TRANSPORTS} TIMEOUT 120)
  arbor_add_launched_test(NAME rma_fast_mt COMMAND $<TARGET_FILE:arbor-test-rma-fast>
                          LABELS rma RANKS 3 TRANSPORTS ${ARBOR_RMA_FAST_TRANSPORTS} TIMEOUT 120
                          ENV ARBOR_THREADS=multiple)
endif()

# The atomics rule per allocation (docs/ONESIDED.md, "Atomics: one mechanism per word"): the
# same answer on every member, CPU exactly where every member maps every other, and atomics,
# accumulates and signals from every member add up (label rma; the cluster bed runs it across
# simulated hosts, where the node's allocation is CPU and the world's the transport's).
add_executable(arbor-test-mem-atomics ${CMAKE_CURRENT_SOURCE_DIR}/test_mem_atomics.c)
target_link_libraries(arbor-test-mem-atomics PRIVATE arbor)
if(ARBOR_RMA_FAST_TRANSPORTS)
  arbor_add_launched_test(NAME mem_atomics COMMAND $<TARGET_FILE:arbor-test-mem-atomics>
                          LABELS rma RANKS 1 3 TRANSPORTS ${ARBOR_RMA_FAST_TRANSPORTS} TIMEOUT 120)
  arbor_add_launched_test(NAME mem_atomics_unmapped COMMAND $<TARGET_FILE:arbor-test-mem-atomics>
                          LABELS rma RANKS 3 TRANSPORTS ${ARBOR_RMA_FAST_TRANSPORTS} TIMEOUT 120
                          ENV ARBOR_DIRECT=n)
endif()
