# Smoke test of bench/compare (label perf): one round of barrier and bcast at 8 bytes on 2 ranks,
# arbor-bench against arbor-mpi-bench. Passes when the script exits 0 and prints a bcast row with
# a ratio and a verdict; skipped (77) when arbor-bench or arbor-mpi-bench (MPI found by
# bench/mpi.cmake) is not built. tests/CMakeLists.txt includes this file (OPTIONAL).
# Not in sanitizer builds: the MPI twin would be instrumented too, and LeakSanitizer fails it on
# the MPI library's own allocations, which are not ours to fix.
find_program(ARBOR_PYTHON3 python3)
if(ARBOR_PYTHON3 AND NOT ARBOR_SANITIZE)
  set(_bin ${CMAKE_BINARY_DIR}/bin)
  add_test(NAME compare_smoke
    COMMAND sh -c "test -x '${_bin}/arbor-bench' && test -x '${_bin}/arbor-mpi-bench' || { echo 'arbor-bench or arbor-mpi-bench not built'; exit 77; }
out=$('${ARBOR_PYTHON3}' '${CMAKE_SOURCE_DIR}/bench/compare' --build '${CMAKE_BINARY_DIR}' --ranks 2 --ops barrier,bcast --sizes 8 --iters 20 --rounds 1 --timeout 120) || { rc=$?; echo \"$out\"; echo \"bench/compare exited $rc\"; exit 1; }
echo \"$out\"
echo \"$out\" | grep -Eq '^bcast +8 +2 .* [0-9]+[.][0-9]+ +[0-9]+[.][0-9]+ +0[.]80 +(PASS|MISS)( +([0-9]+[.][0-9]+|-))*$' || { echo 'no bcast ratio row'; exit 1; }")
  set_tests_properties(compare_smoke PROPERTIES LABELS perf SKIP_RETURN_CODE 77 TIMEOUT 300
    RUN_SERIAL TRUE ENVIRONMENT "ARBOR_TIMEOUT=60;OMPI_MCA_rmaps_base_oversubscribe=1")
endif()
# The one-sided set (bench/compare --onesided): put and fetch_add at 8 bytes on 2 ranks, one
# round; passes on a put row with a ratio and a verdict.
if(ARBOR_PYTHON3 AND NOT ARBOR_SANITIZE)
  add_test(NAME compare_onesided_smoke
    COMMAND sh -c "test -x '${_bin}/arbor-bench' && test -x '${_bin}/arbor-mpi-bench' || { echo 'arbor-bench or arbor-mpi-bench not built'; exit 77; }
out=$('${ARBOR_PYTHON3}' '${CMAKE_SOURCE_DIR}/bench/compare' --build '${CMAKE_BINARY_DIR}' --onesided --ops put,fetch_add --sizes 8 --iters 50 --warmup 10 --rounds 1 --timeout 120) || { rc=$?; echo \"$out\"; echo \"bench/compare exited $rc\"; exit 1; }
echo \"$out\"
echo \"$out\" | grep -Eq '^put +8 +2 .* [0-9]+[.][0-9]+ +[0-9]+[.][0-9]+ +0[.]80 +(PASS|MISS)( +([0-9]+[.][0-9]+|-))*$' || { echo 'no put ratio row'; exit 1; }")
  set_tests_properties(compare_onesided_smoke PROPERTIES LABELS perf SKIP_RETURN_CODE 77
    TIMEOUT 300 RUN_SERIAL TRUE ENVIRONMENT "ARBOR_TIMEOUT=60;OMPI_MCA_rmaps_base_oversubscribe=1")
endif()
