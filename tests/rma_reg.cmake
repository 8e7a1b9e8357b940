# Registered user memory (arbor_mem_register / pack / attach, core/rma/reg.c) and fences that
# cover packed strided puts (active messages): every transport at P = 1, 2, 3, UCX at P = 5.
# Internal header use (the pack path's count): links arbor_internal.
add_executable(arbor-test-rma-reg ${CMAKE_CURRENT_SOURCE_DIR}/test_rma_reg.c)
target_link_libraries(arbor-test-rma-reg PRIVATE arbor_internal)
arbor_add_launched_test(NAME rma_reg COMMAND $<TARGET_FILE:arbor-test-rma-reg> LABELS rma_reg
                        RANKS 1 2 3 TIMEOUT 120)
if(ARBOR_WITH_UCX)
  arbor_add_launched_test(NAME rma_reg COMMAND $<TARGET_FILE:arbor-test-rma-reg> LABELS rma_reg
                          RANKS 5 TRANSPORTS ucx TIMEOUT 120)
endif()
