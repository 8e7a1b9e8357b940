# Barrier and broadcast over every transport at every rank count.
add_executable(arbor-test-coll ${CMAKE_CURRENT_SOURCE_DIR}/test_coll.c)
target_link_libraries(arbor-test-coll PRIVATE arbor)
arbor_add_launched_test(NAME coll COMMAND $<TARGET_FILE:arbor-test-coll> LABELS coll)
if(ARBOR_WITH_UCX)
  # The RMA path (put-with-signal, atomic credits) instead of mapped segments, and UCX over TCP
  # (software-emulated RMA that needs the target's progress).
  arbor_add_launched_test(NAME coll_rma COMMAND $<TARGET_FILE:arbor-test-coll> LABELS coll
                          TRANSPORTS ucx RANKS 2 3 5 ENV ARBOR_DIRECT=n)
  arbor_add_launched_test(NAME coll_tcp COMMAND $<TARGET_FILE:arbor-test-coll> LABELS coll
                          TRANSPORTS ucx RANKS 2 4 ENV UCX_TLS=tcp,self)
  # A forced algorithm must be the one arbor_team_last_collective reports.
  arbor_add_launched_test(NAME coll_forced COMMAND $<TARGET_FILE:arbor-test-coll> LABELS coll
                          TRANSPORTS ucx RANKS 3 ENV ARBOR_BCAST_ALGORITHM=binomial)
endif()

add_executable(arbor-test-config ${CMAKE_CURRENT_SOURCE_DIR}/test_config.c)
target_link_libraries(arbor-test-config PRIVATE arbor_internal)
add_test(NAME unit.config COMMAND arbor-test-config)
set_tests_properties(unit.config PROPERTIES LABELS unit TIMEOUT 60)

add_executable(arbor-test-select ${CMAKE_CURRENT_SOURCE_DIR}/test_select.c)
target_link_libraries(arbor-test-select PRIVATE arbor_internal)
add_test(NAME unit.select COMMAND arbor-test-select)
set_tests_properties(unit.select PROPERTIES LABELS unit TIMEOUT 60)

# README's configuration table must be what arbor-info prints from the library's own table
# (arbor-info is a tool: not built with -DARBOR_BUILD_BENCH=OFF).
if(TARGET arbor-info)
  add_test(NAME unit.readme_config COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/check_readme.sh
    $<TARGET_FILE:arbor-info> ${CMAKE_SOURCE_DIR}/README.md)
  set_tests_properties(unit.readme_config PROPERTIES LABELS unit TIMEOUT 30)
endif()

# README's first example compiles as written without a warning and prints its result (the
# plain build: a sanitized library needs its runtime linked into the example too).
if(NOT ARBOR_SANITIZE AND NOT ARBOR_TSAN)
  add_test(NAME readme_example COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/check_readme_example.sh
    ${CMAKE_C_COMPILER} ${CMAKE_SOURCE_DIR}/include $<TARGET_FILE_DIR:arbor>
    ${CMAKE_SOURCE_DIR}/README.md ${ARBOR_TEST_LAUNCHER} ${ARBOR_TEST_LAUNCHER_FLAGS})
  set_tests_properties(readme_example PROPERTIES ENVIRONMENT "${ARBOR_TEST_ENV}" TIMEOUT 60
    LABELS launched)
endif()

# The whole collective set (types, ops, roots, sizes, flags, teams) on every transport.
add_executable(arbor-test-colls ${CMAKE_CURRENT_SOURCE_DIR}/test_colls.c)
target_link_libraries(arbor-test-colls PRIVATE arbor m)
arbor_add_launched_test(NAME colls COMMAND $<TARGET_FILE:arbor-test-colls> LABELS colls
                        TIMEOUT 600)

# The same with every family forced off its usual choice, in sets that between them run every
# algorithm (a forced one that cannot serve a case falls back to the model's choice).
arbor_add_launched_test(NAME colls_alt1 COMMAND $<TARGET_FILE:arbor-test-colls> LABELS colls
  TRANSPORTS ucx RANKS 3 4 8 TIMEOUT 600 ENV ARBOR_BARRIER_ALGORITHM=flat ARBOR_BCAST_ALGORITHM=binomial
  ARBOR_SCATTER_ALGORITHM=flat ARBOR_GATHER_ALGORITHM=flat ARBOR_ALLGATHER_ALGORITHM=bruck
  ARBOR_ALLTOALL_ALGORITHM=bruck ARBOR_REDUCE_ALGORITHM=karp ARBOR_ALLREDUCE_ALGORITHM=ring
  ARBOR_REDUCE_SCATTER_ALGORITHM=recursive_halving ARBOR_SCAN_ALGORITHM=linear
  ARBOR_EXSCAN_ALGORITHM=linear)
arbor_add_launched_test(NAME colls_alt2 COMMAND $<TARGET_FILE:arbor-test-colls> LABELS colls
  TRANSPORTS ucx RANKS 3 4 8 TIMEOUT 600 ENV ARBOR_BARRIER_ALGORITHM=direct ARBOR_BCAST_ALGORITHM=knomial
  ARBOR_SCATTER_ALGORITHM=binomial ARBOR_GATHER_ALGORITHM=binomial ARBOR_ALLGATHER_ALGORITHM=ring
  ARBOR_ALLTOALL_ALGORITHM=pairwise ARBOR_REDUCE_ALGORITHM=flat
  ARBOR_ALLREDUCE_ALGORITHM=rabenseifner ARBOR_REDUCE_SCATTER_ALGORITHM=pairwise
  ARBOR_SCAN_ALGORITHM=recursive_doubling ARBOR_EXSCAN_ALGORITHM=recursive_doubling)
arbor_add_launched_test(NAME colls_alt3 COMMAND $<TARGET_FILE:arbor-test-colls> LABELS colls
  TRANSPORTS ucx RANKS 5 8 TIMEOUT 600 ENV ARBOR_BCAST_ALGORITHM=binary
  ARBOR_ALLGATHER_ALGORITHM=recursive_doubling ARBOR_ALLGATHERV_ALGORITHM=direct
  ARBOR_REDUCE_ALGORITHM=knomial ARBOR_ALLREDUCE_ALGORITHM=direct ARBOR_SCAN_ALGORITHM=direct
  ARBOR_EXSCAN_ALGORITHM=direct)

# Figure 1 of the UPC collectives paper (EX2 needs the progress thread).
add_executable(arbor-test-figure1 ${CMAKE_CURRENT_SOURCE_DIR}/test_figure1.c)
target_link_libraries(arbor-test-figure1 PRIVATE arbor)
arbor_add_launched_test(NAME figure1 COMMAND $<TARGET_FILE:arbor-test-figure1> LABELS colls
                        RANKS 2 3 4 ENV ARBOR_PROGRESS=thread ARBOR_TIMEOUT=30)

# Tiny calls: runs of small blocking bcasts and allreduces (no instance) against the general
# path, calls in flight, credits running out, either end late; on the world and on a split team.
# Up to 4 ranks (an exchange needs 2, a tree 3 or 4) on every transport.
add_executable(arbor-test-tiny ${CMAKE_CURRENT_SOURCE_DIR}/test_tiny.c)
target_link_libraries(arbor-test-tiny PRIVATE arbor)
arbor_add_launched_test(NAME tiny COMMAND $<TARGET_FILE:arbor-test-tiny> LABELS coll TIMEOUT 120
                        RANKS 1 2 3 4)
