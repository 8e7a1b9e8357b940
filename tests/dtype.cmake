# Unit test of datatypes, reduction kernels and user ops (src/runtime/dtype.c). Included from
# tests/CMakeLists.txt; needs no launcher and no arbor_init.
add_executable(unit_dtype ${CMAKE_CURRENT_LIST_DIR}/unit_dtype.c)
target_link_libraries(unit_dtype PRIVATE arbor_internal)
add_test(NAME unit.dtype COMMAND unit_dtype)
set_tests_properties(unit.dtype PROPERTIES LABELS unit TIMEOUT 120)
