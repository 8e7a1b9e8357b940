# One-copy collectives on symmetric buffers (src/coll/coll_direct.h): bcast from every root,
# allgather, alltoall at 1, 48, 49, 64 KiB + 3 and 1 MiB + 7 bytes, the flag on malloc'd
# buffers, symmetric and plain calls in flight together. On one node every rank maps every
# other on every transport (src/runtime/segment.h): the test also checks that the large calls read in
# place (ONECOPY_EXPECT=1), and once more with ARBOR_ONECOPY=always (descriptors down to 49-byte
# chunks). With ARBOR_DIRECT=n nothing is mapped and the path must not be taken
# (ONECOPY_EXPECT=0; ARBOR_CMA=never on ofi:shm, as there the model would take cross-memory
# attach for the large calls: tests/cma.cmake). With
# ARBOR_CHECK=1 a call flagged on one member only is ARBOR_ERR_MISMATCH everywhere.
add_executable(arbor-test-onecopy ${CMAKE_CURRENT_SOURCE_DIR}/test_onecopy.c)
target_link_libraries(arbor-test-onecopy PRIVATE arbor)
if(ARBOR_WITH_UCX)
  arbor_add_launched_test(NAME onecopy COMMAND $<TARGET_FILE:arbor-test-onecopy> LABELS onecopy
                          TRANSPORTS ucx RANKS 1 2 3 4 5 TIMEOUT 180 ENV ONECOPY_EXPECT=1)
  arbor_add_launched_test(NAME onecopy_always COMMAND $<TARGET_FILE:arbor-test-onecopy>
                          LABELS onecopy TRANSPORTS ucx RANKS 2 3 TIMEOUT 180
                          ENV ONECOPY_EXPECT=1 ARBOR_ONECOPY=always)
  arbor_add_launched_test(NAME onecopy_check COMMAND $<TARGET_FILE:arbor-test-onecopy>
                          LABELS onecopy TRANSPORTS ucx RANKS 2 TIMEOUT 180
                          ENV ONECOPY_EXPECT=1 ARBOR_CHECK=1)
  # ARBOR_LOGP_MEASURE measures G1 too (src/group/measure.c): the model line must say so, and
  # every result must be right. Which copy path the measured model picks depends on the load
  # while it measured, so it is not asserted here (onecopy_always and the defaults do that).
  arbor_add_launched_test(NAME onecopy_measured COMMAND $<TARGET_FILE:arbor-test-onecopy>
                          LABELS onecopy TRANSPORTS ucx RANKS 2 TIMEOUT 180
                          ENV ARBOR_LOGP_MEASURE=1 ARBOR_PRINT_ALGORITHM=1)
  set_tests_properties(onecopy_measured.ucx.2 PROPERTIES
    PASS_REGULAR_EXPRESSION "G1=[0-9][^ ]* Gc=[0-9][^ ]* \\(measured\\).*test_onecopy: [0-9]+ checks passed"
    FAIL_REGULAR_EXPRESSION "FAIL")
  # Interrupt-mode progress (docs/PROGRESS.md): a descriptor rings the receiver's doorbell.
  arbor_add_launched_test(NAME onecopy_interrupt COMMAND $<TARGET_FILE:arbor-test-onecopy>
                          LABELS onecopy TRANSPORTS ucx RANKS 3 TIMEOUT 180
                          ENV ONECOPY_EXPECT=1 ARBOR_PROGRESS=interrupt)
  # Nothing mapped: the symmetric path may not be taken. Cross-memory attach needs no mapping
  # and the init's price may choose it (under ASan, whose memcpy is slower, it does): off here.
  arbor_add_launched_test(NAME onecopy_nodirect COMMAND $<TARGET_FILE:arbor-test-onecopy>
                          LABELS onecopy TRANSPORTS ucx RANKS 3 TIMEOUT 180
                          ENV ONECOPY_EXPECT=0 ARBOR_DIRECT=n ARBOR_CMA=never)
endif()
# One-copy reductions (tests/test_onecopy_reduce.c): allreduce, reduce from every root and
# reduce_scatter for built-in ops on every kind of type and user ops (non-commutative too), in
# place and not, counts 0, 1, 3 P + 1, 64 KiB and 1 MiB; on ucx the 1 MiB calls must choose one
# copy and read in place (reduce up to P = 3: above, the model may prefer a two-copy tree); with
# ARBOR_ONECOPY=always every call whose algorithm allows it does, down to 49-byte chunks.
add_executable(arbor-test-onecopy-reduce ${CMAKE_CURRENT_SOURCE_DIR}/test_onecopy_reduce.c)
target_link_libraries(arbor-test-onecopy-reduce PRIVATE arbor)
if(ARBOR_WITH_UCX)
  arbor_add_launched_test(NAME onecopy_reduce COMMAND $<TARGET_FILE:arbor-test-onecopy-reduce>
                          LABELS onecopy TRANSPORTS ucx RANKS 1 2 3 4 8 TIMEOUT 300
                          ENV ONECOPY_EXPECT=1)
  arbor_add_launched_test(NAME onecopy_reduce_always
                          COMMAND $<TARGET_FILE:arbor-test-onecopy-reduce> LABELS onecopy
                          TRANSPORTS ucx RANKS 2 3 4 8 TIMEOUT 300 ENV ONECOPY_EXPECT=1
                          ARBOR_ONECOPY=always)
  arbor_add_launched_test(NAME onecopy_reduce_interrupt
                          COMMAND $<TARGET_FILE:arbor-test-onecopy-reduce> LABELS onecopy
                          TRANSPORTS ucx RANKS 3 TIMEOUT 300 ENV ONECOPY_EXPECT=1
                          ARBOR_PROGRESS=interrupt)
  arbor_add_launched_test(NAME onecopy_reduce_nodirect
                          COMMAND $<TARGET_FILE:arbor-test-onecopy-reduce> LABELS onecopy
                          TRANSPORTS ucx RANKS 3 TIMEOUT 300 ENV ONECOPY_EXPECT=0 ARBOR_DIRECT=n
                          ARBOR_CMA=never)
endif()
if(ARBOR_WITH_OFI)
  arbor_add_launched_test(NAME onecopy_reduce COMMAND $<TARGET_FILE:arbor-test-onecopy-reduce>
                          LABELS onecopy TRANSPORTS "ofi:shm" RANKS 1 2 3 4 8 TIMEOUT 300
                          ENV ONECOPY_EXPECT=1)
  arbor_add_launched_test(NAME onecopy COMMAND $<TARGET_FILE:arbor-test-onecopy> LABELS onecopy
                          TRANSPORTS "ofi:shm" RANKS 1 2 3 4 5 TIMEOUT 180
                          ENV ONECOPY_EXPECT=1)
  arbor_add_launched_test(NAME onecopy_reduce_nodirect
                          COMMAND $<TARGET_FILE:arbor-test-onecopy-reduce> LABELS onecopy
                          TRANSPORTS "ofi:shm" RANKS 3 TIMEOUT 300
                          ENV ONECOPY_EXPECT=0 ARBOR_DIRECT=n ARBOR_CMA=never)
  arbor_add_launched_test(NAME onecopy_nodirect COMMAND $<TARGET_FILE:arbor-test-onecopy>
                          LABELS onecopy TRANSPORTS "ofi:shm" RANKS 3 TIMEOUT 180
                          ENV ONECOPY_EXPECT=0 ARBOR_DIRECT=n ARBOR_CMA=never)
endif()
# Smoke test of bench/compare --symmetric (label perf): one round of a 64 KiB bcast on 2 ranks,
# malloc'd against symmetric buffers (ucx, where the model chooses one copy at that size).
# Passes on a bcast row whose symmetric run reports one copy and a ratio.
find_program(ARBOR_PYTHON3 python3)
if(ARBOR_PYTHON3 AND ARBOR_WITH_UCX AND NOT ARBOR_SANITIZE)
  set(_bin ${CMAKE_BINARY_DIR}/bin)
  add_test(NAME compare_symmetric_smoke
    COMMAND sh -c "test -x '${_bin}/arbor-bench' || { echo 'arbor-bench not built'; exit 77; }
out=$('${ARBOR_PYTHON3}' '${CMAKE_SOURCE_DIR}/bench/compare' --build '${CMAKE_BINARY_DIR}' --symmetric --ranks 2 --ops bcast --sizes 64K --iters 20 --rounds 1 --timeout 120) || { rc=$?; echo \"$out\"; echo \"bench/compare exited $rc\"; exit 1; }
echo \"$out\"
echo \"$out\" | grep -Eq '^bcast +65536 +2 +[0-9]+[.][0-9]+ +[0-9]+[.][0-9]+ +[a-z_]+[+]1copy .* [0-9]+[.][0-9]+ ' || { echo 'no one-copy bcast row'; exit 1; }")
  set_tests_properties(compare_symmetric_smoke PROPERTIES LABELS "perf;onecopy"
    SKIP_RETURN_CODE 77 TIMEOUT 300 RUN_SERIAL TRUE
    ENVIRONMENT "ARBOR_TIMEOUT=60;ARBOR_TRANSPORT=ucx;OMPI_MCA_rmaps_base_oversubscribe=1")
endif()
# The algorithms written for the one-copy path (allreduce reduce_scatter_allgather, reduce
# direct) forced on the colls suite, two copies on malloc'd buffers: every type and op,
# non-commutative ones, in place, every root (priced only on the one-copy path, so no other
# entry runs them there).
if(ARBOR_WITH_UCX)
  arbor_add_launched_test(NAME colls_onecopy_algs COMMAND $<TARGET_FILE:arbor-test-colls>
                          LABELS onecopy TRANSPORTS ucx RANKS 3 5 TIMEOUT 600
                          ENV ARBOR_ALLREDUCE_ALGORITHM=reduce_scatter_allgather
                          ARBOR_REDUCE_ALGORITHM=direct)
endif()
