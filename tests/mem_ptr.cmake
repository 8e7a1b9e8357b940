# arbor_mem_ptr (src/rma/ptr.c): the load/store pointer to a peer's memory, on UCX (mapped
# peers on one node, every transport), at 1, 2 and 4 ranks (label rma).
add_executable(arbor-test-mem-ptr ${CMAKE_CURRENT_SOURCE_DIR}/test_mem_ptr.c)
target_link_libraries(arbor-test-mem-ptr PRIVATE arbor)
arbor_add_launched_test(NAME mem_ptr COMMAND $<TARGET_FILE:arbor-test-mem-ptr> RANKS 1 2 4
                        TRANSPORTS ucx "ofi:shm" LABELS rma TIMEOUT 120)
