# Google Benchmark micro benchmarks (C++): tree building and simulation. Owners of other
# micro benchmarks add their micro_*.cc to ARBOR_MICRO_SOURCES.
enable_language(CXX)
find_package(benchmark REQUIRED)
set(ARBOR_MICRO_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/micro_main.cc
  ${CMAKE_CURRENT_LIST_DIR}/micro_trees.cc
  ${CMAKE_CURRENT_LIST_DIR}/micro_copy.cc
  ${CMAKE_CURRENT_LIST_DIR}/micro_cache.cc
  ${CMAKE_CURRENT_LIST_DIR}/micro_flag.cc)
add_executable(arbor-micro ${ARBOR_MICRO_SOURCES})
set_target_properties(arbor-micro PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON)
target_link_libraries(arbor-micro PRIVATE benchmark::benchmark arbor_internal)
