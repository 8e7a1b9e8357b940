# The core's structure (issue 10): the layering rules, no call of the public API inside the
# library, no dependency cycle between core's files (scripts/check-layering.sh).
add_test(NAME unit.layering COMMAND ${CMAKE_SOURCE_DIR}/scripts/check-layering.sh)
set_tests_properties(unit.layering PROPERTIES LABELS "unit")
