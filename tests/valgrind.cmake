# Valgrind memcheck on single-rank runs (label valgrind; scripts/test.sh runs it as its own
# phase, about a minute on 2 cores): quick unit binaries, arbor-info, the config test, and the
# launched suites at P = 1 as singletons (no launcher: arbor_init finds no PMIx server) on UCX
# and OFI shm. Any invalid access, use of uninitialised memory or definite leak fails the test
# (exit 99); known leaks outside arbor are suppressed in tests/valgrind.supp, each with its
# reason. Not in sanitizer builds (valgrind cannot run ASan binaries). Long binaries (unit_trees,
# unit_reduction: a minute or more under memcheck) are left to a run by hand:
#   valgrind --leak-check=full --suppressions=tests/valgrind.supp build/bin/unit_trees
find_program(ARBOR_VALGRIND valgrind)
if(ARBOR_VALGRIND AND NOT ARBOR_SANITIZE)
  set(vg ${ARBOR_VALGRIND} --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
      --show-leak-kinds=definite --num-callers=30
      --suppressions=${CMAKE_CURRENT_SOURCE_DIR}/valgrind.supp)
  function(arbor_add_valgrind_test name)
    cmake_parse_arguments(V "" "" "COMMAND;ENV" ${ARGN})
    add_test(NAME valgrind.${name} COMMAND ${vg} ${V_COMMAND})
    set_tests_properties(valgrind.${name} PROPERTIES TIMEOUT 300 LABELS "valgrind"
      ENVIRONMENT "${V_ENV}")
  endfunction()
  foreach(t logp heap peer_copy topo movement dtype)
    if(TARGET unit_${t})
      arbor_add_valgrind_test(unit.${t} COMMAND $<TARGET_FILE:unit_${t}>)
    endif()
  endforeach()
  if(TARGET arbor-info)
    arbor_add_valgrind_test(arbor-info COMMAND $<TARGET_FILE:arbor-info>)
  endif()
  arbor_add_valgrind_test(config COMMAND $<TARGET_FILE:arbor-test-config>)
  set(vg_transports "")
  if(ARBOR_WITH_UCX)
    list(APPEND vg_transports ucx)
  endif()
  if(ARBOR_WITH_OFI)
    list(APPEND vg_transports ofi-shm)
  endif()
  foreach(tp IN LISTS vg_transports)
    if(tp STREQUAL "ucx")
      set(tp_env ARBOR_TRANSPORT=ucx)
    else()
      set(tp_env ARBOR_TRANSPORT=ofi ARBOR_OFI_PROVIDER=shm)
    endif()
    foreach(prog coll rma badinput am stress)
      arbor_add_valgrind_test(${prog}.${tp}.1 COMMAND $<TARGET_FILE:arbor-test-${prog}>
                              ENV ${tp_env})
    endforeach()
  endforeach()
endif()
