# Smoke test of bench/fidelity (label bench): one round of bcast at 8 bytes on 2 ranks, the
# default against every forced algorithm. Passes when the script exits 0 and prints a bcast row
# with a chosen algorithm, a ratio, a pooled ratio of 1.00 (at P = 2 every tree is the same single
# message: one schedule, whose pooled rounds are compared with themselves), a prediction and the
# spread of rounds, the karp and binomial trees in one pooled group (and with equal fingerprints
# in the CSV), and the summary line by schedule and by name; skipped (77) when
# arbor-bench or arbor-info is not built. tests/CMakeLists.txt includes this file (OPTIONAL).
find_program(ARBOR_PYTHON3 python3)
if(ARBOR_PYTHON3)
  set(_bin ${CMAKE_BINARY_DIR}/bin)
  add_test(NAME fidelity_smoke
    COMMAND sh -c "test -x '${_bin}/arbor-bench' && test -x '${_bin}/arbor-info' || { echo 'arbor-bench or arbor-info not built'; exit 77; }
out=$('${ARBOR_PYTHON3}' '${CMAKE_SOURCE_DIR}/bench/fidelity' --build '${CMAKE_BINARY_DIR}' --ranks 2 --ops bcast --sizes 8 --iters 20 --warmup 5 --rounds 1 --timeout 120 --csv '${CMAKE_BINARY_DIR}/fidelity_smoke.csv') || { rc=$?; echo \"$out\"; echo \"bench/fidelity exited $rc\"; exit 1; }
echo \"$out\"
echo \"$out\" | grep -Eq '^bcast +8 +2 +[a-z_]+ +[0-9.]+ +[a-z_]+ +[0-9.]+ +[0-9]+[.][0-9]+ +1[.]00 +[a-z_]+[(][0-9]+[)] +1/[0-9]+[*] +[0-9.]+ +[0-9]+[.][0-9]+ +[0-9.]+ +[0-9]+[.][0-9]+ +([0-9]+[.][0-9]|-) +([0-9]+[.][0-9]+|-)$' || { echo 'no bcast row with a ratio, a pooled ratio of 1.00 over one schedule, a prediction, a spread, runq_us and inv'; exit 1; }
echo \"$out\" | grep -Eq '^#   bcast 8 B P=2: [^;]*binomial = [^;]*karp' || { echo 'karp and binomial not pooled at P = 2'; exit 1; }
grep -Eq '^bcast,8,2,.*binomial=([0-9a-f]{16}) .*karp=\\1( |$)' '${CMAKE_BINARY_DIR}/fidelity_smoke.csv' || { echo 'no equal karp and binomial fingerprints in the CSV'; cat '${CMAKE_BINARY_DIR}/fidelity_smoke.csv'; exit 1; }
if [ $(nproc) -ge 2 ]; then want='window(/window>span)?'; else want=span; fi
echo \"$out\" | grep -Eq \"^# timing per P: P=2 $want\\$\" || { echo \"P = 2 not timed with $want\"; exit 1; }
echo \"$out\" | grep -Eq '^# summary: within 10%: 1 of 1 by schedule, [0-9]+ of 1 by name' || { echo 'no summary line'; exit 1; }")
  set_tests_properties(fidelity_smoke PROPERTIES LABELS bench SKIP_RETURN_CODE 77 TIMEOUT 300
    RUN_SERIAL TRUE ENVIRONMENT "ARBOR_TIMEOUT=60;OMPI_MCA_rmaps_base_oversubscribe=1")
  # The pooling of identical schedules on made-up runs (no launcher, nothing built).
  add_test(NAME fidelity_pool COMMAND ${ARBOR_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/fidelity_pool.py)
  set_tests_properties(fidelity_pool PROPERTIES LABELS unit TIMEOUT 60)
endif()

# The benchmarks' shared timing code on made-up data (no launcher): the margin, the wait for T,
# median / p99 over valid iterations and the fall-back to span, unknown scheduler values printed
# empty, never 0.
add_executable(unit_bench_timing ${CMAKE_CURRENT_LIST_DIR}/unit_bench_timing.c)
target_include_directories(unit_bench_timing PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(unit_bench_timing PRIVATE m)
add_test(NAME unit.bench_timing COMMAND unit_bench_timing)
set_tests_properties(unit.bench_timing PROPERTIES LABELS "unit;bench" TIMEOUT 30)

# arbor-bench's timings (bench/clock_id.h, bench/bench_timing.h): first start to last end, and the slowest rank's
# own call; arbor-bench exits non-zero when a row's data check fails. A bad --timing is refused
# before init. Only where the benchmarks are built (the TSan build turns them off).
if(NOT TARGET arbor-bench)
  return()
endif()
foreach(_timing span rank)
  arbor_add_launched_test(NAME bench_timing_${_timing} LABELS bench RANKS 3 TRANSPORTS ucx
    TIMEOUT 120 COMMAND $<TARGET_FILE:arbor-bench> --op scan,bcast --sizes 8,100000 --iters 20
    --warmup 2 --timing ${_timing} --format csv)
endforeach()
add_test(NAME bench_timing_refused COMMAND sh -c "! '$<TARGET_FILE:arbor-bench>' --timing wall")
set_tests_properties(bench_timing_refused PROPERTIES LABELS bench TIMEOUT 30)
# --timing window (bench/bench_timing.h) on 2 ranks (a core each here) and 4 (two per core: the
# oversubscribed case, where rows may fall back to span and must say so), arbor-bench on ucx and
# its MPI twin where built: every row checked, the invalid fraction in [0, 1], the scheduler
# columns numbers or empty (tests/bench_window_check.sh). No time is asserted.
if(ARBOR_WITH_UCX)
  foreach(_p 2 4)
    add_test(NAME bench_timing_window.ucx.${_p}
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/bench_window_check.sh $<TARGET_FILE:arbor-bench>
              ${_p} ${ARBOR_TEST_LAUNCHER} ${ARBOR_TEST_LAUNCHER_FLAGS})
    set_tests_properties(bench_timing_window.ucx.${_p} PROPERTIES LABELS "bench;launched;ucx"
      TIMEOUT 120 PROCESSORS 1 ENVIRONMENT "${ARBOR_TEST_ENV};ARBOR_TRANSPORT=ucx")
  endforeach()
endif()
if(TARGET arbor-mpi-bench AND NOT ARBOR_SANITIZE)
  foreach(_p 2 4)
    add_test(NAME bench_timing_window.mpi.${_p}
      COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/bench_window_check.sh
              $<TARGET_FILE:arbor-mpi-bench> ${_p} ${ARBOR_TEST_LAUNCHER} ${ARBOR_TEST_LAUNCHER_FLAGS})
    set_tests_properties(bench_timing_window.mpi.${_p} PROPERTIES LABELS "bench;launched"
      TIMEOUT 120 PROCESSORS 1 ENVIRONMENT "${ARBOR_TEST_ENV}")
  endforeach()
endif()
# A bad --window-slack is refused before init.
add_test(NAME bench_window_slack_refused
  COMMAND sh -c "! '$<TARGET_FILE:arbor-bench>' --timing window --window-slack -1")
set_tests_properties(bench_window_slack_refused PROPERTIES LABELS bench TIMEOUT 30)
