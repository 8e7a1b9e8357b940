# The two-copy pipeline through landing slots on malloc'd buffers (docs/PERFORMANCE.md, "The
# two-copy bound"), label slotcopy: bcast from every root and allreduce at odd sizes up to 2 MiB,
# every byte checked, ARBOR_CMA=never so that every byte lands in a slot. Default geometry: the
# depth grows from 4 to 32 slots of 64 KiB (ARBOR_CHANNEL_BYTES=2M) and 64 KiB chunks go with
# plain stores (SLOT_EXPECT_DEPTH checks the depth through arbor_team_landing_bytes; with more ranks
# than cores it grows to half as far, 16, SLOT_OVERSUB_DEPTH); =0: 4 slots,
# every chunk streamed (the geometry before); 4 KiB slots and 64K: 16 slots, plain stores at
# 4 KiB, a message wrapping the channel many times.
add_executable(arbor-test-slotcopy ${CMAKE_CURRENT_SOURCE_DIR}/test_slotcopy.c)
target_link_libraries(arbor-test-slotcopy PRIVATE arbor)
set(_slot_tps)
if(ARBOR_WITH_UCX)
  list(APPEND _slot_tps ucx)
endif()
if(ARBOR_WITH_OFI)
  list(APPEND _slot_tps "ofi:shm")
endif()
if(_slot_tps)
  arbor_add_launched_test(NAME slotcopy COMMAND $<TARGET_FILE:arbor-test-slotcopy>
                          LABELS slotcopy TRANSPORTS ${_slot_tps} RANKS 1 2 3 4 5 TIMEOUT 180
                          ENV ARBOR_CMA=never SLOT_EXPECT_DEPTH=32
                              SLOT_OVERSUB_DEPTH=16)
  arbor_add_launched_test(NAME slotcopy_streamed COMMAND $<TARGET_FILE:arbor-test-slotcopy>
                          LABELS slotcopy TRANSPORTS ${_slot_tps} RANKS 2 3 TIMEOUT 180
                          ENV ARBOR_CMA=never ARBOR_CHANNEL_BYTES=0 SLOT_EXPECT_DEPTH=4
                              SLOT_OVERSUB_DEPTH=4)
  arbor_add_launched_test(NAME slotcopy_small COMMAND $<TARGET_FILE:arbor-test-slotcopy>
                          LABELS slotcopy TRANSPORTS ${_slot_tps} RANKS 2 3 TIMEOUT 180
                          ENV ARBOR_CMA=never ARBOR_CHUNK_SIZE=4K ARBOR_CHANNEL_BYTES=64K
                              SLOT_EXPECT_DEPTH=16 SLOT_OVERSUB_DEPTH=8)
endif()
