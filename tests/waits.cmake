# Waits reached only through the test calls (docs/THREADS.md, "Tests that spin"): a rank that
# spins on arbor_test / _all / _some gets ARBOR_ERR_TIMEOUT or ARBOR_ERR_PEER_LOST as a waiter
# does. Label reliability; about 6 s per timeout run, 1-2 s per peerlost run.
set(ARB_WAITS_TRANSPORTS "")
if(ARBOR_WITH_UCX)
  list(APPEND ARB_WAITS_TRANSPORTS ucx)
endif()
if(ARBOR_WITH_OFI)
  list(APPEND ARB_WAITS_TRANSPORTS "ofi:shm")
endif()

add_executable(arbor-test-spin-fail ${CMAKE_CURRENT_SOURCE_DIR}/test_spin_fail.c)
target_link_libraries(arbor-test-spin-fail PRIVATE arbor)
arbor_add_launched_test(NAME spin_timeout COMMAND $<TARGET_FILE:arbor-test-spin-fail> timeout
                        LABELS reliability RANKS 2 3 TRANSPORTS ${ARB_WAITS_TRANSPORTS}
                        TIMEOUT 60 ENV ARBOR_TIMEOUT=2)
# The killed rank: Open MPI must keep the job alive (as for peerlost, reliability.cmake), and
# mpirun then exits 0 whatever the ranks do: the verdict is in the output.
arbor_add_launched_test(NAME spin_peerlost COMMAND $<TARGET_FILE:arbor-test-spin-fail> peerlost
                        LABELS reliability RANKS 2 3 TRANSPORTS ${ARB_WAITS_TRANSPORTS}
                        TIMEOUT 60 ENV ARBOR_TIMEOUT=30 OMPI_MCA_orte_enable_recovery=1
                        OMPI_MCA_orte_abort_on_non_zero_status=0)
foreach(tp IN LISTS ARB_WAITS_TRANSPORTS)
  string(REPLACE ":" "-" tpslug "${tp}")
  foreach(p 2 3)
    set_tests_properties(spin_peerlost.${tpslug}.${p} PROPERTIES
      PASS_REGULAR_EXPRESSION "spin_fail rank 0: [0-9]+ checks, 0 failures"
      FAIL_REGULAR_EXPRESSION "FAIL|ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error")
  endforeach()
endforeach()

# Interrupt mode: a sender whose active-message credit wait stalls (the target computes for 2 s)
# sleeps instead of spinning: under 10% of the wait in CPU (about 2 s per run).
add_executable(arbor-test-am-stall ${CMAKE_CURRENT_SOURCE_DIR}/test_am_stall.c)
target_link_libraries(arbor-test-am-stall PRIVATE arbor)
if(ARBOR_WITH_UCX)
  arbor_add_launched_test(NAME am_stall_interrupt COMMAND $<TARGET_FILE:arbor-test-am-stall>
                          LABELS "interrupt;am" RANKS 2 3 TRANSPORTS ucx TIMEOUT 60
                          ENV ARBOR_PROGRESS=interrupt)
endif()
