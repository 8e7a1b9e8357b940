# Reliability (issue 13): bad input, mismatches, cancellation. Labels reliability / fuzz /
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
