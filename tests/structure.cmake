# The core's structure: the layering rules, no call of the public API inside the
# library, no dependency cycle between core's files (scripts/check-layering.sh).
add_test(NAME unit.layering COMMAND ${CMAKE_SOURCE_DIR}/scripts/check-layering.sh)
set_tests_properties(unit.layering PROPERTIES LABELS "unit")
# The docs stand alone: every relative link resolves and none leaves the repository.
add_test(NAME unit.doc_links COMMAND python3 ${CMAKE_SOURCE_DIR}/scripts/check-doc-links.py)
set_tests_properties(unit.doc_links PROPERTIES LABELS "unit")

# Settings that must agree (F_UNIFORM rows) differ between the two ranks of an MPMD launch:
# init fails on both, each naming the variable, its value and the other rank's. One numeric
# (CHUNK_SIZE), one enum (BCAST_ALGORITHM) and one string (TUNE) row.
add_executable(arbor-test-uniform ${CMAKE_CURRENT_SOURCE_DIR}/test_uniform.c)
target_link_libraries(arbor-test-uniform PRIVATE arbor)
set(arb_uniform_cases "ARBOR_CHUNK_SIZE|65536|32768" "ARBOR_BCAST_ALGORITHM|flat|binomial"
                      "ARBOR_TUNE|bcast:0-inf:@flat|bcast:0-inf:@binomial")
set(arb_uniform_transports "")
if(ARBOR_WITH_UCX)
  list(APPEND arb_uniform_transports ucx)
endif()
if(ARBOR_WITH_OFI)
  list(APPEND arb_uniform_transports ofi)
endif()
foreach(tp IN LISTS arb_uniform_transports)
  foreach(case IN LISTS arb_uniform_cases)
    string(REPLACE "|" ";" parts "${case}")
    list(GET parts 0 var)
    list(GET parts 1 a)
    list(GET parts 2 b)
    string(REPLACE "ARBOR_" "" slug "${var}")
    string(TOLOWER "${slug}" slug)
    set(tname uniform_${slug}.${tp}.2)
    if(tp STREQUAL "ofi")
      set(tname uniform_${slug}.ofi-shm.2)
    endif()
    add_test(NAME ${tname} COMMAND ${ARBOR_TEST_LAUNCHER} ${ARBOR_TEST_LAUNCHER_FLAGS}
             ${ARBOR_TEST_NPROC_FLAG} 1 env ${var}=${a} $<TARGET_FILE:arbor-test-uniform> ${var} 0 "${b}"
             : ${ARBOR_TEST_NPROC_FLAG} 1 env ${var}=${b} $<TARGET_FILE:arbor-test-uniform> ${var} 1 "${a}")
    set(env ${ARBOR_TEST_ENV} ARBOR_TRANSPORT=${tp})
    if(tp STREQUAL "ofi")
      list(APPEND env ARBOR_OFI_PROVIDER=shm)
    endif()
    set_tests_properties(${tname} PROPERTIES ENVIRONMENT "${env}" TIMEOUT 60 PROCESSORS 1
      LABELS "launched;${tp};reliability")
  endforeach()
endforeach()

# arbor_info_get, the public introspection arbor-info is built on (singleton, no launcher).
add_executable(arbor-test-info ${CMAKE_CURRENT_SOURCE_DIR}/test_info.c)
target_link_libraries(arbor-test-info PRIVATE arbor)
add_test(NAME unit.info COMMAND arbor-test-info)
set_tests_properties(unit.info PROPERTIES LABELS unit TIMEOUT 60 ENVIRONMENT "${ARBOR_TEST_ENV}")
