# arbor_mem_alloc_any (src/group/outside.c): allocations the heap has no room for, in a 1 MiB
# segment, at 1, 2 and 3 ranks on UCX and OFI shm, and through the transport (ARBOR_DIRECT=n)
# on UCX (label rma).
add_executable(arbor-test-mem-alloc-any ${CMAKE_CURRENT_SOURCE_DIR}/test_mem_alloc_any.c)
target_link_libraries(arbor-test-mem-alloc-any PRIVATE arbor)
arbor_add_launched_test(NAME mem_alloc_any COMMAND $<TARGET_FILE:arbor-test-mem-alloc-any>
                        RANKS 1 2 3 TRANSPORTS ucx "ofi:shm" LABELS rma TIMEOUT 120
                        ENV ARBOR_SEGMENT_SIZE=1M)
arbor_add_launched_test(NAME mem_alloc_any_nodirect COMMAND $<TARGET_FILE:arbor-test-mem-alloc-any>
                        RANKS 2 3 TRANSPORTS ucx LABELS rma TIMEOUT 120
                        ENV ARBOR_SEGMENT_SIZE=1M ARBOR_DIRECT=n)
