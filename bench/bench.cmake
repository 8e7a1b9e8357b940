# arbor-bench is a client of the public API: it links the shared library (whose only visible
# symbols are arbor.h's) and includes nothing of the library but arbor.h (check-layering.sh).
add_executable(arbor-bench ${CMAKE_CURRENT_SOURCE_DIR}/arbor-bench.c
                           ${CMAKE_CURRENT_SOURCE_DIR}/bench_ops.c
                           ${CMAKE_CURRENT_SOURCE_DIR}/rma_ops.c)
target_include_directories(arbor-bench PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(arbor-bench PRIVATE arbor m)
