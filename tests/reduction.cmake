# Unit tier: the reduction schedule builders run through the in-process schedule simulator.
add_executable(unit_reduction ${CMAKE_CURRENT_LIST_DIR}/unit_reduction.c
                              ${CMAKE_CURRENT_LIST_DIR}/sched_sim.c)
target_link_libraries(unit_reduction PRIVATE arbor_internal m)
add_test(NAME unit.reduction COMMAND unit_reduction)
set_tests_properties(unit.reduction PROPERTIES LABELS unit TIMEOUT 120)
