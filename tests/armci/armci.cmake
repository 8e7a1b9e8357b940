# tests/armci: the ARMCI test program and a small Global Arrays program, each built twice:
# against libarmci_arbor (clients/armci) and against Debian's ARMCI-MPI (libarmci-mpi-dev).
# Both run under mpirun at P = 1..4 (label armci): the ARMCI-MPI twins prove the tests, the
# arbor ones run on ucx and ofi:shm. Included from tests/CMakeLists.txt.
set(_armci_dir ${CMAKE_CURRENT_LIST_DIR})
find_package(MPI COMPONENTS C QUIET)
find_library(ARMCI_MPI_LIB NAMES armci-openmpi armci)
find_library(GA_LIB NAMES ga-openmpi ga)
find_library(GA_SCALAPACK_LIB NAMES scalapack-openmpi scalapack)
find_library(GA_LAPACK_LIB lapack)
find_library(GA_BLAS_LIB blas)
find_library(GA_GFORTRAN_LIB NAMES gfortran libgfortran.so.5)
find_path(GA_INCLUDE_DIR ga.h)
if(NOT MPI_C_FOUND OR NOT ARMCI_INCLUDE_DIR)
  message(STATUS "tests/armci: MPI or armci.h missing, not built")
  return()
endif()
set(_ga_ok OFF)
if(GA_LIB AND GA_INCLUDE_DIR AND GA_SCALAPACK_LIB AND GA_LAPACK_LIB AND GA_BLAS_LIB
   AND GA_GFORTRAN_LIB)
  set(_ga_ok ON)
  # libga.a's own dependencies (ga-config --libs), after the ARMCI that serves it.
  set(_ga_tail ${GA_SCALAPACK_LIB} ${GA_LAPACK_LIB} ${GA_BLAS_LIB} ${GA_GFORTRAN_LIB} m)
else()
  message(STATUS "tests/armci: Global Arrays (libglobalarrays-dev, libscalapack-openmpi-dev) "
                 "missing, the GA programs are not built")
endif()

# MPI and GA keep their allocations to exit: LeakSanitizer (ARBOR_SANITIZE builds) is off for
# the programs that initialise MPI, on for the arbor ARMCI test.
set(_no_leaks ASAN_OPTIONS=detect_leaks=0)

# The ARMCI-MPI twins, one ctest entry per P (they do not use arbor's transports): P = 1..4,
# or the RANKS given after the executable.
function(armci_add_mpi_test name exe)
  set(ranks ${ARGN})
  if(NOT ranks)
    set(ranks 1 2 3 4)
  endif()
  foreach(p ${ranks})
    add_test(NAME ${name}.${p} COMMAND ${ARBOR_TEST_LAUNCHER} ${ARBOR_TEST_LAUNCHER_FLAGS}
             ${ARBOR_TEST_NPROC_FLAG} ${p} $<TARGET_FILE:${exe}>)
    set_tests_properties(${name}.${p} PROPERTIES ENVIRONMENT "${ARBOR_TEST_ENV};${_no_leaks}"
                         TIMEOUT 120
                         PROCESSORS 1 LABELS "launched;armci;armci-mpi")
  endforeach()
endfunction()

if(ARMCI_MPI_LIB)
  add_executable(armci-test-mpi ${_armci_dir}/test_armci.c)
  target_compile_definitions(armci-test-mpi PRIVATE ARMCI_TEST_WITH_MPI)
  target_include_directories(armci-test-mpi PRIVATE ${ARMCI_INCLUDE_DIR})
  target_link_libraries(armci-test-mpi PRIVATE ${ARMCI_MPI_LIB} MPI::MPI_C m)
  armci_add_mpi_test(armci_mpi armci-test-mpi)
  if(_ga_ok)
    add_executable(armci-test-ga-mpi ${_armci_dir}/test_ga.c)
    target_include_directories(armci-test-ga-mpi PRIVATE ${GA_INCLUDE_DIR})
    target_link_libraries(armci-test-ga-mpi PRIVATE ${GA_LIB} ${ARMCI_MPI_LIB} ${_ga_tail}
                                                    MPI::MPI_C)
    armci_add_mpi_test(armci_ga_mpi armci-test-ga-mpi)
  endif()
  # The ARMCIX / profiling / tagged-message test, at 2 and 4 ranks like its arbor twin.
  add_executable(armcix-test-mpi ${_armci_dir}/test_armcix.c)
  target_compile_definitions(armcix-test-mpi PRIVATE ARMCI_TEST_WITH_MPI)
  target_include_directories(armcix-test-mpi PRIVATE ${ARMCI_INCLUDE_DIR})
  target_link_libraries(armcix-test-mpi PRIVATE ${ARMCI_MPI_LIB} MPI::MPI_C m)
  armci_add_mpi_test(armcix_mpi armcix-test-mpi 2 4)
endif()

if(NOT TARGET armci_arbor)
  return()
endif()
set(_armci_transports ucx "ofi:shm")
# The drop-in promise, symbol by symbol (the rule for "public" is in symbols.sh).
if(ARMCI_MPI_LIB)
  add_test(NAME armci.symbols COMMAND ${_armci_dir}/symbols.sh ${ARMCI_MPI_LIB}
           $<TARGET_FILE:armci_arbor> ${ARMCI_INCLUDE_DIR})
  set_tests_properties(armci.symbols PROPERTIES LABELS armci TIMEOUT 60)
endif()
add_executable(armci-test-arbor ${_armci_dir}/test_armci.c)
target_compile_definitions(armci-test-arbor PRIVATE ARMCI_TEST_ARBOR)
target_include_directories(armci-test-arbor PRIVATE ${ARMCI_INCLUDE_DIR} ${MPI_C_INCLUDE_DIRS})
target_link_libraries(armci-test-arbor PRIVATE armci_arbor arbor m)
arbor_add_launched_test(NAME armci COMMAND $<TARGET_FILE:armci-test-arbor> RANKS 1 2 3 4
                        TRANSPORTS ${_armci_transports} LABELS armci TIMEOUT 120)
add_executable(armcix-test-arbor ${_armci_dir}/test_armcix.c)
target_compile_definitions(armcix-test-arbor PRIVATE ARMCI_TEST_ARBOR)
target_include_directories(armcix-test-arbor PRIVATE ${ARMCI_INCLUDE_DIR} ${MPI_C_INCLUDE_DIRS})
target_link_libraries(armcix-test-arbor PRIVATE armci_arbor arbor m)
arbor_add_launched_test(NAME armcix COMMAND $<TARGET_FILE:armcix-test-arbor> RANKS 2 4
                        TRANSPORTS ${_armci_transports} LABELS armci TIMEOUT 120)
if(_ga_ok)
  add_executable(armci-test-ga-arbor ${_armci_dir}/test_ga.c)
  target_include_directories(armci-test-ga-arbor PRIVATE ${GA_INCLUDE_DIR} ${ARMCI_INCLUDE_DIR})
  target_link_libraries(armci-test-ga-arbor PRIVATE ${GA_LIB} armci_arbor arbor ${_ga_tail}
                                                      MPI::MPI_C)
  arbor_add_launched_test(NAME armci_ga COMMAND $<TARGET_FILE:armci-test-ga-arbor>
                          RANKS 1 2 3 4 TRANSPORTS ${_armci_transports} LABELS armci TIMEOUT 120
                          ENV ${_no_leaks})
  # The same program in a 4 MiB segment: its 16 MiB array does not fit the heap (ARMCI_Malloc
  # then takes memory of each rank's own, as ARMCI-MPI's windows have no bound).
  arbor_add_launched_test(NAME armci_ga_small_segment COMMAND $<TARGET_FILE:armci-test-ga-arbor>
                          RANKS 1 2 4 TRANSPORTS ${_armci_transports} LABELS armci TIMEOUT 120
                          ENV ${_no_leaks} ARBOR_SEGMENT_SIZE=4M)
endif()

# Location consistency (label armci_order): put, three accumulates and a get to the same
# locations with no fence between them, every form and accumulate type, on every transport.
# ARMCI_ORDER_ROUNDS raises the rounds for a long run by hand.
if(ARMCI_MPI_LIB)
  add_executable(armci-test-order-mpi ${_armci_dir}/test_armci_order.c)
  target_compile_definitions(armci-test-order-mpi PRIVATE ARMCI_TEST_WITH_MPI)
  target_include_directories(armci-test-order-mpi PRIVATE ${ARMCI_INCLUDE_DIR})
  target_link_libraries(armci-test-order-mpi PRIVATE ${ARMCI_MPI_LIB} MPI::MPI_C m)
  foreach(p 2 4)
    add_test(NAME armci_order_mpi.${p} COMMAND ${ARBOR_TEST_LAUNCHER} ${ARBOR_TEST_LAUNCHER_FLAGS}
             ${ARBOR_TEST_NPROC_FLAG} ${p} $<TARGET_FILE:armci-test-order-mpi>)
    set_tests_properties(armci_order_mpi.${p} PROPERTIES ENVIRONMENT
                         "${ARBOR_TEST_ENV};${_no_leaks}" TIMEOUT 120 PROCESSORS 1
                         LABELS "launched;armci;armci-mpi;armci_order")
  endforeach()
endif()
add_executable(armci-test-order-arbor ${_armci_dir}/test_armci_order.c)
target_include_directories(armci-test-order-arbor PRIVATE ${ARMCI_INCLUDE_DIR}
                                                          ${MPI_C_INCLUDE_DIRS})
target_link_libraries(armci-test-order-arbor PRIVATE armci_arbor arbor m)
arbor_add_launched_test(NAME armci_order COMMAND $<TARGET_FILE:armci-test-order-arbor>
                        RANKS 2 4 TRANSPORTS ${ARBOR_TEST_TRANSPORTS} LABELS armci armci_order
                        TIMEOUT 180)
arbor_add_launched_test(NAME armci_order COMMAND $<TARGET_FILE:armci-test-order-arbor>
                        RANKS 8 TRANSPORTS ucx "ofi:shm" LABELS armci armci_order TIMEOUT 240)

# The installed package: pkg-config and CMake clients of libarmci_arbor (label packaging too).
set(_armci_packaging_flags "")
if(ARBOR_SANITIZE)
  set(_armci_packaging_flags "-fsanitize=address,undefined")
endif()
set(_armci_ga_line "")
if(_ga_ok)
  foreach(l ${GA_LIB} ${_ga_tail})
    if(IS_ABSOLUTE "${l}")
      string(APPEND _armci_ga_line " ${l}")
    else()
      string(APPEND _armci_ga_line " -l${l}")
    endif()
  endforeach()
  string(STRIP "${_armci_ga_line}" _armci_ga_line)
endif()
add_test(NAME armci.packaging COMMAND ${_armci_dir}/packaging.sh ${CMAKE_BINARY_DIR}
         ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/armci-packaging "${_armci_ga_line}")
set_tests_properties(armci.packaging PROPERTIES LABELS "armci;packaging" TIMEOUT 300
  ENVIRONMENT "ARMCI_CLIENT_FLAGS=${_armci_packaging_flags};ARBOR_TIMEOUT=60;${_no_leaks}")

# Nodes that differ: the ARMCIX test and the GA program on the simulated cluster (3 hosts x 2
# ranks, tests/cluster), where SMP domains, SCOPE_NODE / SCOPE_MASTERS and GA's cluster queries
# see 3 nodes of 2. Skipped (77) where network namespaces are not allowed.
if(NOT ARBOR_SANITIZE AND CMAKE_SYSTEM_NAME STREQUAL "Linux" AND ARBOR_WITH_UCX)
  set(_armci_cluster_env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ARBOR_TIMEOUT=60
      ARBOR_POLL_YIELD=always ARBOR_TRANSPORT=ucx)
  set(_armci_cluster_progs armcix-test-arbor)
  if(_ga_ok)
    list(APPEND _armci_cluster_progs armci-test-ga-arbor)
  endif()
  foreach(prog ${_armci_cluster_progs})
    string(REGEX REPLACE "-test|-arbor" "" _name ${prog})
    string(REPLACE "-" "_" _name ${_name})
    add_test(NAME cluster.${_name}.ucx.3x2
             COMMAND ${PROJECT_SOURCE_DIR}/tests/cluster/run.sh 3 2 $<TARGET_FILE:${prog}>)
    set_tests_properties(cluster.${_name}.ucx.3x2 PROPERTIES
      ENVIRONMENT "${_armci_cluster_env};${_no_leaks}" TIMEOUT 300 SKIP_RETURN_CODE 77
      RESOURCE_LOCK simcluster PROCESSORS 2 LABELS "cluster;launched;armci")
  endforeach()
endif()
