# arbor-mpi-bench: arbor-bench's MPI twin for bench/compare, built only when an MPI C library is
# found. It links MPI, not libarbor. bench/CMakeLists.txt includes this file (OPTIONAL).
find_package(MPI COMPONENTS C QUIET)
if(MPI_C_FOUND)
  add_executable(arbor-mpi-bench ${CMAKE_CURRENT_LIST_DIR}/mpi-bench.c
                                 ${CMAKE_CURRENT_LIST_DIR}/mpi_rma.c)
  target_link_libraries(arbor-mpi-bench PRIVATE MPI::MPI_C)
  message(STATUS "arbor-mpi-bench: MPI ${MPI_C_VERSION} (${MPI_C_LIB_NAMES})")
else()
  message(STATUS "arbor-mpi-bench: no MPI C library found, not built")
endif()

# MPICH flavour for bench/compare --mpi mpich: Debian's mpich installs mpicc.mpich next to Open
# MPI's mpicc, and one CMake configure finds only one MPI, so this one is compiled directly.
find_program(ARBOR_MPICC_MPICH mpicc.mpich)
if(ARBOR_MPICC_MPICH)
  set(_out ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})
  if(NOT _out)
    set(_out ${CMAKE_BINARY_DIR}/bin)
  endif()
  add_custom_command(OUTPUT ${_out}/arbor-mpi-bench-mpich
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_out}
    COMMAND ${ARBOR_MPICC_MPICH} -std=c11 -O2 -g -Wall -Wextra -D_GNU_SOURCE
            -o ${_out}/arbor-mpi-bench-mpich ${CMAKE_CURRENT_LIST_DIR}/mpi-bench.c
            ${CMAKE_CURRENT_LIST_DIR}/mpi_rma.c
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/mpi-bench.c ${CMAKE_CURRENT_LIST_DIR}/mpi_rma.c
            ${CMAKE_CURRENT_LIST_DIR}/bench_timing.h ${CMAKE_CURRENT_LIST_DIR}/clock_id.h
    COMMENT "Building arbor-mpi-bench-mpich with mpicc.mpich" VERBATIM)
  add_custom_target(arbor-mpi-bench-mpich ALL DEPENDS ${_out}/arbor-mpi-bench-mpich)
endif()
