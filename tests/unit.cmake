# Unit tier: plain executables, no launcher; each prints a summary and
# exits non-zero on a failure.
foreach(t logp calib trees peer_copy heap onecopy sched_hash)
  add_executable(unit_${t} ${CMAKE_CURRENT_LIST_DIR}/unit_${t}.c)
  target_link_libraries(unit_${t} PRIVATE arbor_internal)
  add_test(NAME unit.${t} COMMAND unit_${t})
  set_tests_properties(unit.${t} PROPERTIES LABELS unit TIMEOUT 120)
endforeach()

# arbor-tree smoke tests: good arguments print a tree; bad ones exit 2 (WILL_FAIL).
if(TARGET arbor-tree)
  add_test(NAME unit.arbor-tree.karp
           COMMAND arbor-tree --ranks 16 --root 3 --logp L=6,os=1,or=1,g=2,G=0)
  set_tests_properties(unit.arbor-tree.karp PROPERTIES LABELS unit TIMEOUT 30
                       PASS_REGULAR_EXPRESSION "completion_us 22\n")
  add_test(NAME unit.arbor-tree.all COMMAND arbor-tree --ranks 64 --algorithm all --format json)
  set_tests_properties(unit.arbor-tree.all PROPERTIES LABELS unit TIMEOUT 30
                       PASS_REGULAR_EXPRESSION "\"best\": \"karp\"")
  foreach(bad "--ranks;0" "--root;16" "--algorithm;knomial:1" "--bytes;-1" "--logp;L=x" "--nope")
    string(MAKE_C_IDENTIFIER "${bad}" slug)
    add_test(NAME unit.arbor-tree.bad${slug} COMMAND arbor-tree ${bad})
    set_tests_properties(unit.arbor-tree.bad${slug} PROPERTIES LABELS unit TIMEOUT 30
                         WILL_FAIL TRUE)
  endforeach()
endif()

# The node-aware layer: trees, per-link simulation, schedules in the simulator, selection.
add_executable(unit_topo ${CMAKE_CURRENT_LIST_DIR}/unit_topo.c ${CMAKE_CURRENT_LIST_DIR}/sched_sim.c)
target_link_libraries(unit_topo PRIVATE arbor_internal)
add_test(NAME unit.topo COMMAND unit_topo)
set_tests_properties(unit.topo PROPERTIES LABELS unit TIMEOUT 120)

# Cost functions against the LogGP time of their own schedules (tests/sched_time.c).
add_executable(unit_costsim ${CMAKE_CURRENT_LIST_DIR}/unit_costsim.c
                            ${CMAKE_CURRENT_LIST_DIR}/sched_time.c)
target_link_libraries(unit_costsim PRIVATE arbor_internal)
add_test(NAME unit.costsim COMMAND unit_costsim)
set_tests_properties(unit.costsim PROPERTIES LABELS unit TIMEOUT 120)
