# Unit tier: the data-movement schedule builders run through the in-process schedule simulator.
add_executable(unit_movement ${CMAKE_CURRENT_LIST_DIR}/unit_movement.c
                             ${CMAKE_CURRENT_LIST_DIR}/sched_sim.c)
target_link_libraries(unit_movement PRIVATE arbor_internal)
add_test(NAME unit.movement COMMAND unit_movement)
set_tests_properties(unit.movement PROPERTIES LABELS unit TIMEOUT 120)
