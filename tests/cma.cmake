# One copy on malloc'd buffers through cross-memory attach (src/runtime/cma.h, docs/PERFORMANCE.md):
# bcast, scatter, gather from / to every root, allgather and alltoall, plain and in place, at
# odd sizes, allreduce, reduce and reduce_scatter (uint32 sums, read into a bounce buffer and
# combined from there), and calls in flight together, every byte checked. ARBOR_CMA=always forces the path
# (CMA_EXPECT=1: each rank checks the large calls read their bytes from the senders' buffers), on
# ucx (descriptors in the channel line) and on ofi:shm (descriptors in the landing slot), at
# P = 1..5 and 8. ARBOR_CMA=never and ARBOR_CMA=refuse (the init probe answers EPERM: the real
# fallback, agreed by every rank and printed under ARBOR_PRINT_ALGORITHM) must not take it
# (CMA_EXPECT=0). With ARBOR_CMA=auto the model decides: priced cheap through ARBOR_LOGP's Gc
# it must choose one copy for the calls of 64 KiB blocks and more; ARBOR_LOGP_MEASURE measures Gc;
# by default each init times cross-memory attach against memcpy and scales Gc (cma_price).
add_executable(arbor-test-cma ${CMAKE_CURRENT_SOURCE_DIR}/test_cma.c)
target_link_libraries(arbor-test-cma PRIVATE arbor)
set(_cma_tps)
if(ARBOR_WITH_UCX)
  list(APPEND _cma_tps ucx)
endif()
if(ARBOR_WITH_OFI)
  list(APPEND _cma_tps "ofi:shm")
endif()
if(_cma_tps AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
  arbor_add_launched_test(NAME cma COMMAND $<TARGET_FILE:arbor-test-cma> LABELS cma
                          TRANSPORTS ${_cma_tps} RANKS 1 2 3 4 5 8 TIMEOUT 240
                          ENV CMA_EXPECT=1 ARBOR_CMA=always)
  arbor_add_launched_test(NAME cma_never COMMAND $<TARGET_FILE:arbor-test-cma> LABELS cma
                          TRANSPORTS ${_cma_tps} RANKS 2 TIMEOUT 180
                          ENV CMA_EXPECT=0 ARBOR_CMA=never)
  arbor_add_launched_test(NAME cma_refused COMMAND $<TARGET_FILE:arbor-test-cma> LABELS cma
                          TRANSPORTS ${_cma_tps} RANKS 3 TIMEOUT 180
                          ENV CMA_EXPECT=0 ARBOR_CMA=refuse ARBOR_PRINT_ALGORITHM=1)
  foreach(tp IN LISTS _cma_tps)
    string(REPLACE ":" "-" slug "${tp}")
    set_tests_properties(cma_refused.${slug}.3 PROPERTIES
      PASS_REGULAR_EXPRESSION "cross-memory attach refused at rank [0-9]+: .*simulated.*test_cma: [0-9]+ checks passed"
      FAIL_REGULAR_EXPRESSION "FAIL")
  endforeach()
  arbor_add_launched_test(NAME cma_model COMMAND $<TARGET_FILE:arbor-test-cma> LABELS cma
                          TRANSPORTS ${_cma_tps} RANKS 2 TIMEOUT 180
                          ENV CMA_EXPECT=1 CMA_MIN=65536 ARBOR_LOGP=Gc=0.000001)
  # Interrupt-mode progress (docs/PROGRESS.md): a descriptor and the credit that settles the
  # sender ring doorbells, as on the symmetric path.
  arbor_add_launched_test(NAME cma_interrupt COMMAND $<TARGET_FILE:arbor-test-cma> LABELS cma
                          TRANSPORTS ucx RANKS 3 TIMEOUT 180
                          ENV CMA_EXPECT=1 ARBOR_CMA=always ARBOR_PROGRESS=interrupt)
  # Reductions through cross-memory attach on every kind of type and user ops, non-commutative
  # too (tests/test_onecopy_reduce.c on buffers whose peers are not mapped, forced): ofi:shm and
  # ucx, both with ARBOR_DIRECT=n (on one node arbor maps every peer otherwise).
  if(TARGET arbor-test-onecopy-reduce)
    set(_cma_red_tps)
    if(ARBOR_WITH_OFI)
      list(APPEND _cma_red_tps "ofi:shm")
    endif()
    if(_cma_red_tps)
      arbor_add_launched_test(NAME cma_reduce COMMAND $<TARGET_FILE:arbor-test-onecopy-reduce>
                              LABELS cma TRANSPORTS ${_cma_red_tps} RANKS 2 3 5 TIMEOUT 300
                              ENV ONECOPY_EXPECT=1 ARBOR_CMA=always ARBOR_DIRECT=n)
    endif()
    if(ARBOR_WITH_UCX)
      arbor_add_launched_test(NAME cma_reduce_nodirect
                              COMMAND $<TARGET_FILE:arbor-test-onecopy-reduce> LABELS cma
                              TRANSPORTS ucx RANKS 2 4 TIMEOUT 300
                              ENV ONECOPY_EXPECT=1 ARBOR_CMA=always ARBOR_DIRECT=n)
    endif()
  endif()
  # Gc priced at init (runtime/model.h, ARBOR_CMA_MEASURE): agreed on every rank, scaled from
  # the default, overridden by ARBOR_LOGP's Gc, off with ARBOR_CMA_MEASURE=n (the default Gc:
  # the mapped peers' 1e-4, and ofi:shm's own 0.6 G = 6e-5 where nothing is mapped).
  add_executable(arbor-test-cma-measure ${CMAKE_CURRENT_SOURCE_DIR}/test_cma_measure.c)
  target_link_libraries(arbor-test-cma-measure PRIVATE arbor m)
  arbor_add_launched_test(NAME cma_price COMMAND $<TARGET_FILE:arbor-test-cma-measure>
                          LABELS cma TRANSPORTS ${_cma_tps} RANKS 2 3 TIMEOUT 180
                          ENV CMA_DEFAULT_GC=0.0001)
  if(ARBOR_WITH_OFI)
    arbor_add_launched_test(NAME cma_price_nodirect COMMAND $<TARGET_FILE:arbor-test-cma-measure>
                            LABELS cma TRANSPORTS "ofi:shm" RANKS 2 TIMEOUT 180
                            ENV CMA_DEFAULT_GC=0.00006 ARBOR_DIRECT=n)
  endif()
  arbor_add_launched_test(NAME cma_measured COMMAND $<TARGET_FILE:arbor-test-cma> LABELS cma
                          TRANSPORTS ucx RANKS 2 TIMEOUT 180
                          ENV ARBOR_LOGP_MEASURE=1 ARBOR_PRINT_ALGORITHM=1)
  set_tests_properties(cma_measured.ucx.2 PROPERTIES
    PASS_REGULAR_EXPRESSION "Gc=[0-9][^ ]* \\(measured\\); cross-memory attach permitted.*test_cma: [0-9]+ checks passed"
    FAIL_REGULAR_EXPRESSION "FAIL")
endif()
