# Reliability: bad input, mismatches, cancellation. Labels reliability / fuzz /
# stress; every launched test here runs in a few seconds.
set(ARB_REL_TRANSPORTS "")
if(ARBOR_WITH_UCX)
  list(APPEND ARB_REL_TRANSPORTS ucx)
endif()
if(ARBOR_WITH_OFI)
  list(APPEND ARB_REL_TRANSPORTS "ofi:shm")
endif()

# More than 100 bad calls over the collective, team, request and op functions, each followed
# by a correct allreduce.
add_executable(arbor-test-badinput ${CMAKE_CURRENT_SOURCE_DIR}/test_badinput.c)
target_link_libraries(arbor-test-badinput PRIVATE arbor)
arbor_add_launched_test(NAME badinput COMMAND $<TARGET_FILE:arbor-test-badinput>
                        LABELS reliability RANKS 1 2 3 TRANSPORTS ${ARB_REL_TRANSPORTS} TIMEOUT 60)

# ARBOR_CHECK=1: every mismatch kind reported on every rank, buffers untouched.
add_executable(arbor-test-mismatch ${CMAKE_CURRENT_SOURCE_DIR}/test_mismatch.c)
target_link_libraries(arbor-test-mismatch PRIVATE arbor)
arbor_add_launched_test(NAME mismatch COMMAND $<TARGET_FILE:arbor-test-mismatch>
                        LABELS reliability RANKS 2 3 TRANSPORTS ${ARB_REL_TRANSPORTS} TIMEOUT 60
                        ENV ARBOR_CHECK=1)
# The bad calls again with the check on: each joins the signature exchange and still returns
# its own code.
arbor_add_launched_test(NAME badinput_check COMMAND $<TARGET_FILE:arbor-test-badinput>
                        LABELS reliability RANKS 3 TRANSPORTS ucx TIMEOUT 60 ENV ARBOR_CHECK=1)

# A timed-out bcast is cancelled: its buffer can be freed at once, late data from the root
# lands nowhere, the world is failed and another team keeps working (about 4 s per run).
add_executable(arbor-test-cancel ${CMAKE_CURRENT_SOURCE_DIR}/test_cancel.c)
target_link_libraries(arbor-test-cancel PRIVATE arbor)
arbor_add_launched_test(NAME cancel COMMAND $<TARGET_FILE:arbor-test-cancel>
                        LABELS reliability RANKS 2 3 TRANSPORTS ${ARB_REL_TRANSPORTS} TIMEOUT 60
                        ENV ARBOR_TIMEOUT=1)

# A rank that finalizes while the others go on is STOPPED to them: ARBOR_ERR_PEER_STOPPED from
# the waits only it could end, its heap still readable, the others go on (a few seconds). On
# the libfabric providers with manual progress too (tcp;ofi_rxm, sockets): finalize's closing
# stages and fence must drive them.
set(ARB_STOPPED_TRANSPORTS ${ARB_REL_TRANSPORTS})
if(ARBOR_WITH_OFI)
  list(APPEND ARB_STOPPED_TRANSPORTS "ofi:tcp^ofi_rxm" "ofi:sockets")
endif()
add_executable(arbor-test-peer-stopped ${CMAKE_CURRENT_SOURCE_DIR}/test_peer_stopped.c)
target_link_libraries(arbor-test-peer-stopped PRIVATE arbor)
arbor_add_launched_test(NAME peer_stopped COMMAND $<TARGET_FILE:arbor-test-peer-stopped>
                        LABELS reliability RANKS 2 3 TRANSPORTS ${ARB_STOPPED_TRANSPORTS}
                        TIMEOUT 60 ENV ARBOR_TIMEOUT=20)

# libFuzzer targets (a few seconds each in CI; tests/fuzz/fuzz.cmake says how to run them long).
include(${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz.cmake OPTIONAL)

# A rank killed with SIGKILL: the others get ARBOR_ERR_PEER_LOST at once (the probe of ranks on
# this node; Open MPI 4.1 sends no PMIx termination events) and finalize without waiting for
# it. Open MPI must keep the job alive after the kill.
add_executable(arbor-test-peerlost ${CMAKE_CURRENT_SOURCE_DIR}/test_peerlost.c)
target_link_libraries(arbor-test-peerlost PRIVATE arbor)
arbor_add_launched_test(NAME peerlost COMMAND $<TARGET_FILE:arbor-test-peerlost>
                        LABELS reliability RANKS 3 TRANSPORTS ${ARB_REL_TRANSPORTS} TIMEOUT 60
                        ENV ARBOR_TIMEOUT=30 OMPI_MCA_orte_enable_recovery=1
                        OMPI_MCA_orte_abort_on_non_zero_status=0)
# With recovery on, mpirun exits 0 whatever the ranks do: the verdict is in the output.
foreach(tp IN LISTS ARB_REL_TRANSPORTS)
  string(REPLACE ":" "-" tpslug "${tp}")
  set_tests_properties(peerlost.${tpslug}.3 PROPERTIES
    PASS_REGULAR_EXPRESSION "peerlost rank 0: [0-9]+ checks, 0 failures"
    FAIL_REGULAR_EXPRESSION "FAIL|ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error")
endforeach()

# arbor_init after arbor_finalize, four cycles (failed in about 1 run of 5 before PMIx stayed
# up for the process and keys carried the session number).
add_executable(arbor-test-reinit ${CMAKE_CURRENT_SOURCE_DIR}/test_reinit.c)
target_link_libraries(arbor-test-reinit PRIVATE arbor)
arbor_add_launched_test(NAME reinit COMMAND $<TARGET_FILE:arbor-test-reinit>
                        LABELS reliability RANKS 1 3 TRANSPORTS ${ARB_REL_TRANSPORTS} TIMEOUT 60)

# Stress: 3000 random non-blocking collectives, 32 in flight, on the world and a split team,
# every result checked, RSS printed (about 1 s). By hand: ARB_STRESS_OPS=100000.
add_executable(arbor-test-stress ${CMAKE_CURRENT_SOURCE_DIR}/test_stress.c)
target_link_libraries(arbor-test-stress PRIVATE arbor)
arbor_add_launched_test(NAME stress COMMAND $<TARGET_FILE:arbor-test-stress>
                        LABELS stress RANKS 3 TRANSPORTS ${ARB_REL_TRANSPORTS} TIMEOUT 120)

# Ranks that leave a split and stop calling arbor (blocked in MPI) while others keep working on
# a team of their own: the workers must not stall until the sleepers return (about 5 s per run).
add_executable(arbor-test-split-leave ${CMAKE_CURRENT_SOURCE_DIR}/test_split_leave.c)
target_link_libraries(arbor-test-split-leave PRIVATE arbor)
arbor_add_launched_test(NAME split_leave COMMAND $<TARGET_FILE:arbor-test-split-leave>
                        LABELS reliability RANKS 2 3 4 TRANSPORTS ${ARB_REL_TRANSPORTS} TIMEOUT 60)

# A rank that never joins: the others' arbor_init returns ARBOR_ERR_TIMEOUT (the bootstrap's
# fence and gets are bounded by ARBOR_TIMEOUT), and finalize without a late rank returns an
# error instead of waiting for it (about 12 s per run: the late rank's sleep).
add_executable(arbor-test-late-rank ${CMAKE_CURRENT_SOURCE_DIR}/test_late_rank.c)
target_link_libraries(arbor-test-late-rank PRIVATE arbor)
foreach(mode init finalize)
  arbor_add_launched_test(NAME late_${mode} COMMAND $<TARGET_FILE:arbor-test-late-rank> ${mode}
                          LABELS reliability RANKS 3 TRANSPORTS ${ARB_REL_TRANSPORTS} TIMEOUT 60
                          ENV ARBOR_TIMEOUT=2)
endforeach()

# One verdict per collective at default settings: calls one rank's argument rules refuse and
# another's accept end with the same error everywhere (args); a rank arriving at a barrier the
# others cancelled fails it too (late, about 8 s); ranks one call apart at finalize are told so
# within seconds, not after ARBOR_TIMEOUT (apart).
add_executable(arbor-test-verdict ${CMAKE_CURRENT_SOURCE_DIR}/test_verdict.c)
target_link_libraries(arbor-test-verdict PRIVATE arbor)
arbor_add_launched_test(NAME verdict_args COMMAND $<TARGET_FILE:arbor-test-verdict> args
                        LABELS reliability RANKS 2 3 TRANSPORTS ${ARB_REL_TRANSPORTS} TIMEOUT 60
                        ENV ARBOR_TIMEOUT=10)
# The messages' signatures, and the words that say which call waits for what, travel between
# mapped peers: every node peer, on every transport (one node here).
arbor_add_launched_test(NAME verdict_mismatch COMMAND $<TARGET_FILE:arbor-test-verdict> mismatch
                        LABELS reliability RANKS 2 3 TRANSPORTS ${ARB_REL_TRANSPORTS} TIMEOUT 120
                        ENV ARBOR_TIMEOUT=5)
# The same after matched calls of the others' kind, so that small bcasts run as tiny calls
# (no instance, no stray look at the call start).
arbor_add_launched_test(NAME verdict_mismatch_warm COMMAND $<TARGET_FILE:arbor-test-verdict>
                        mismatch_warm LABELS reliability RANKS 2 3 TRANSPORTS ${ARB_REL_TRANSPORTS}
                        TIMEOUT 120 ENV ARBOR_TIMEOUT=5)
# Through the transport (nothing mapped, as between nodes) a step's first message of at most
# 48 bytes carries the signature in the receiver's line, and a stalled wait tells its members
# which call waits: every kind fails with ARBOR_ERR_MISMATCH, roots and barriers included
# (within milliseconds; ARBOR_TIMEOUT=10 so that a rank starved on a loaded node under ASan
# does not time out first: no kind may end in a timeout).
arbor_add_launched_test(NAME verdict_mismatch_transport
                        COMMAND $<TARGET_FILE:arbor-test-verdict> mismatch_transport
                        LABELS reliability RANKS 2 3 TRANSPORTS ${ARB_REL_TRANSPORTS} TIMEOUT 180
                        ENV ARBOR_TIMEOUT=10 ARBOR_DIRECT=n)
# A late rank is told of the cancellation only where the others map its segment (through the
# transport they do not write to a rank that makes no progress: src/coll/coll_verdict.h).
arbor_add_launched_test(NAME verdict_late COMMAND $<TARGET_FILE:arbor-test-verdict> late
                        LABELS reliability RANKS 2 3 TRANSPORTS ${ARB_REL_TRANSPORTS} TIMEOUT 60
                        ENV ARBOR_TIMEOUT=2)
arbor_add_launched_test(NAME verdict_apart COMMAND $<TARGET_FILE:arbor-test-verdict> apart
                        LABELS reliability RANKS 2 3 TRANSPORTS ${ARB_REL_TRANSPORTS} TIMEOUT 60
                        ENV ARBOR_TIMEOUT=30)
