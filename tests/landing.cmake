# Landing memory (docs/PROTOCOL.md "Landing channels"): channels open on first use, so a rank's
# landing bytes grow with the peers its schedules receive from. Labels unit / memory.

# P = 64 without a launcher: every collective's selected schedules, the real channel
# bookkeeping of every rank, the bound, exhaustion; prints the bytes per rank.
add_executable(unit_landing ${CMAKE_CURRENT_LIST_DIR}/unit_landing.c)
target_link_libraries(unit_landing PRIVATE arbor_internal)
add_test(NAME unit.landing COMMAND unit_landing)
set_tests_properties(unit.landing PROPERTIES LABELS "unit;memory" TIMEOUT 120)

# Launched: channels after a binomial bcast < after a pairwise alltoall, a suite of every
# collective with the bytes checked, and team free returning every byte (40 teams' channels
# through an 8 MiB segment).
add_executable(arbor-test-landing ${CMAKE_CURRENT_LIST_DIR}/test_landing.c)
target_link_libraries(arbor-test-landing PRIVATE arbor)
set(ARB_LANDING_TRANSPORTS "")
if(ARBOR_WITH_UCX)
  list(APPEND ARB_LANDING_TRANSPORTS ucx)
endif()
if(ARBOR_WITH_OFI)
  list(APPEND ARB_LANDING_TRANSPORTS "ofi:shm")
endif()
arbor_add_launched_test(NAME landing COMMAND $<TARGET_FILE:arbor-test-landing>
                        LABELS memory RANKS 3 8 TRANSPORTS ${ARB_LANDING_TRANSPORTS} TIMEOUT 120
                        ENV ARBOR_BCAST_ALGORITHM=binomial ARBOR_ALLTOALL_ALGORITHM=pairwise
                            ARBOR_SEGMENT_SIZE=8M)

# arbor-tree --memory: the landing-memory table at scale (docs/TOPOLOGY.md); a tree bcast opens
# one channel per rank, and bad arguments exit 2.
if(TARGET arbor-tree)
  add_test(NAME unit.arbor-tree.memory COMMAND arbor-tree --memory 1024,65536)
  set_tests_properties(unit.arbor-tree.memory PROPERTIES LABELS "unit;memory" TIMEOUT 60
    PASS_REGULAR_EXPRESSION "\\| 65536 \\| bcast, binomial tree \\| 1 \\| 1.00 \\| 4.252 \\|")
  foreach(bad "--memory;1" "--memory;8,x" "--depth;4" "--memory;64;--nodes;2")
    string(MAKE_C_IDENTIFIER "${bad}" slug)
    add_test(NAME unit.arbor-tree.memory_bad${slug} COMMAND arbor-tree ${bad})
    set_tests_properties(unit.arbor-tree.memory_bad${slug} PROPERTIES LABELS "unit;memory"
                         TIMEOUT 30 WILL_FAIL TRUE)
  endforeach()
endif()

# Exhaustion: rank 0 without room for a channel; a flat gather to it fails with
# ARBOR_ERR_NO_MEMORY on every rank (the refusal reaches every sender: no ARBOR_TIMEOUT wait).
arbor_add_launched_test(NAME landing_exhaust COMMAND $<TARGET_FILE:arbor-test-landing> exhaust
                        LABELS memory RANKS 3 TRANSPORTS ${ARB_LANDING_TRANSPORTS} TIMEOUT 60
                        ENV ARBOR_GATHER_ALGORITHM=flat ARBOR_SEGMENT_SIZE=8M)
