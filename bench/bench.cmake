add_executable(arbor-bench ${CMAKE_CURRENT_SOURCE_DIR}/arbor-bench.c
                           ${CMAKE_CURRENT_SOURCE_DIR}/bench_ops.c
                           ${CMAKE_CURRENT_SOURCE_DIR}/rma_ops.c)
target_link_libraries(arbor-bench PRIVATE arbor_internal m)
