# Nothing left in /dev/shm (label shm_clean): a normal run and one whose last rank is killed
# mid-run (the others leave without finalize), on ucx and ofi:shm at P = 3; tests/shm_clean.sh
# checks that no object named after the job's pids is left and that a stale one of a dead pid
# was swept at init.
add_executable(arbor-test-shm-clean ${CMAKE_CURRENT_SOURCE_DIR}/test_shm_clean.c)
target_link_libraries(arbor-test-shm-clean PRIVATE arbor)
if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  set(_shm_clean_tps)
  if(ARBOR_WITH_UCX)
    list(APPEND _shm_clean_tps "ucx")
  endif()
  if(ARBOR_WITH_OFI)
    list(APPEND _shm_clean_tps "ofi:shm")
  endif()
  foreach(tp IN LISTS _shm_clean_tps)
    string(REPLACE ":" ";" parts "${tp}")
    list(GET parts 0 tpname)
    set(env ${ARBOR_TEST_ENV} ARBOR_TRANSPORT=${tpname})
    if(tp STREQUAL "ofi:shm")
      list(APPEND env ARBOR_OFI_PROVIDER=shm)
    endif()
    string(REPLACE ":" "-" slug "${tp}")
    foreach(mode normal kill)
      add_test(NAME shm_clean_${mode}.${slug}.3
               COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/shm_clean.sh ${mode} ${ARBOR_TEST_LAUNCHER}
                       ${ARBOR_TEST_LAUNCHER_FLAGS} ${ARBOR_TEST_NPROC_FLAG} 3
                       $<TARGET_FILE:arbor-test-shm-clean>)
      set_tests_properties(shm_clean_${mode}.${slug}.3 PROPERTIES ENVIRONMENT "${env}"
        TIMEOUT 150 PROCESSORS 1 LABELS "launched;${tpname};shm_clean")
    endforeach()
  endforeach()
endif()
