# Barrier and broadcast over every transport at every rank count.
add_executable(arbor-test-coll ${CMAKE_CURRENT_SOURCE_DIR}/test_coll.c)
target_link_libraries(arbor-test-coll PRIVATE arbor)
arbor_add_launched_test(NAME coll COMMAND $<TARGET_FILE:arbor-test-coll> LABELS coll)

add_executable(arbor-test-config ${CMAKE_CURRENT_SOURCE_DIR}/test_config.c)
target_link_libraries(arbor-test-config PRIVATE arbor_internal)
add_test(NAME unit.config COMMAND arbor-test-config)
set_tests_properties(unit.config PROPERTIES LABELS unit TIMEOUT 60)

add_executable(arbor-test-select ${CMAKE_CURRENT_SOURCE_DIR}/test_select.c)
target_link_libraries(arbor-test-select PRIVATE arbor_internal)
add_test(NAME unit.select COMMAND arbor-test-select)
set_tests_properties(unit.select PROPERTIES LABELS unit TIMEOUT 60)
