add_executable(arbor-info ${CMAKE_CURRENT_SOURCE_DIR}/arbor-info.c)
target_link_libraries(arbor-info PRIVATE arbor)
