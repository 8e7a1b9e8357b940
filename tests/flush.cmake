# Flushes (docs/TRANSPORTS.md, docs/PROGRESS.md "Flushes"). In interrupt mode a flush whose
# target stops serving (SIGSTOP for 2 s) sleeps: under 10% of the wait in CPU, on the
# transports whose one-sided operations need the target's progress and that give a wait
# descriptor (UCX over TCP, OFI tcp;ofi_rxm), with ARBOR_DIRECT=n: on one node arbor maps the
# peer's segment otherwise, and the put completes with no transport at all. About 3 s per run. The flush of some peers itself
# is checked by tp_contract (every backend) and the spin_* tests (a team free).
add_executable(arbor-test-flush-stall ${CMAKE_CURRENT_SOURCE_DIR}/test_flush_stall.c)
target_link_libraries(arbor-test-flush-stall PRIVATE arbor Threads::Threads)
if(ARBOR_WITH_UCX)
  arbor_add_launched_test(NAME flush_stall_tcp COMMAND $<TARGET_FILE:arbor-test-flush-stall>
                          LABELS "interrupt;reliability" RANKS 2 3 TRANSPORTS ucx TIMEOUT 60
                          ENV ARBOR_PROGRESS=interrupt UCX_TLS=tcp,self ARBOR_DIRECT=n)
endif()
if(ARBOR_WITH_OFI)
  arbor_add_launched_test(NAME flush_stall COMMAND $<TARGET_FILE:arbor-test-flush-stall>
                          LABELS "interrupt;reliability" RANKS 2 TRANSPORTS "ofi:tcp^ofi_rxm"
                          TIMEOUT 60 ENV ARBOR_PROGRESS=interrupt ARBOR_DIRECT=n)
endif()
