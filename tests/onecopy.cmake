# One-copy collectives on symmetric buffers (core/coll_direct.h): bcast from every root,
# allgather, alltoall at 1, 48, 49, 64 KiB + 3 and 1 MiB + 7 bytes, the flag on malloc'd
# buffers, symmetric and plain calls in flight together. On ucx every rank maps every other:
# the test also checks that the large calls read in place (ONECOPY_EXPECT=1), and once more with
# ARBOR_ONECOPY=always (descriptors down to 49-byte chunks). On ofi:shm nothing is mapped and
# the path must not be taken (ONECOPY_EXPECT=0); likewise ucx with ARBOR_DIRECT=n. With
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
  arbor_add_launched_test(NAME onecopy_nodirect COMMAND $<TARGET_FILE:arbor-test-onecopy>
                          LABELS onecopy TRANSPORTS ucx RANKS 3 TIMEOUT 180
                          ENV ONECOPY_EXPECT=0 ARBOR_DIRECT=n)
endif()
if(ARBOR_WITH_OFI)
  arbor_add_launched_test(NAME onecopy COMMAND $<TARGET_FILE:arbor-test-onecopy> LABELS onecopy
                          TRANSPORTS "ofi:shm" RANKS 1 2 3 4 5 TIMEOUT 180 ENV ONECOPY_EXPECT=0)
endif()
