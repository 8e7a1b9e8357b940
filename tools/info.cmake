add_executable(arbor-info ${CMAKE_CURRENT_SOURCE_DIR}/arbor-info.c)
target_link_libraries(arbor-info PRIVATE arbor_internal)
target_sources(arbor-info PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/info_landing.c)
