# Active messages (src/rma/am.c): ping-pong with checked payloads up to the maximum, an
# all-to-one storm, the handler rules and bad input, on every transport; and a busy target
# served by the progress thread (ARBOR_PROGRESS=thread) at P = 2 and 4.
add_executable(arbor-test-am ${CMAKE_CURRENT_SOURCE_DIR}/test_am.c)
target_link_libraries(arbor-test-am PRIVATE arbor)
arbor_add_launched_test(NAME am COMMAND $<TARGET_FILE:arbor-test-am> LABELS am RANKS 1 2 3 4
                        TIMEOUT 120)
if(ARBOR_WITH_UCX)
  arbor_add_launched_test(NAME am COMMAND $<TARGET_FILE:arbor-test-am> LABELS am RANKS 8
                          TRANSPORTS ucx TIMEOUT 120)
endif()
arbor_add_launched_test(NAME am_busy COMMAND $<TARGET_FILE:arbor-test-am> LABELS am RANKS 2 4
                        TIMEOUT 120 ENV ARBOR_PROGRESS=thread)
# The strided pack path over active messages (internal calls: the one-sided layer chooses it).
add_executable(arbor-test-am-strided ${CMAKE_CURRENT_SOURCE_DIR}/test_am_strided.c)
target_link_libraries(arbor-test-am-strided PRIVATE arbor_internal)
arbor_add_launched_test(NAME am_strided COMMAND $<TARGET_FILE:arbor-test-am-strided>
                        LABELS am RANKS 1 2 3 TIMEOUT 120)
# arbor_finalize runs every request sent before it (rank 0 never polls before finalizing).
add_executable(arbor-test-am-finalize ${CMAKE_CURRENT_SOURCE_DIR}/test_am_finalize.c)
target_link_libraries(arbor-test-am-finalize PRIVATE arbor)
arbor_add_launched_test(NAME am_finalize COMMAND $<TARGET_FILE:arbor-test-am-finalize> LABELS am
                        RANKS 2 3 TIMEOUT 120)
