# arbor-wake-bell: wake-up latency of the doorbell's datagram socket against a futex and a pipe
# (docs/PROGRESS.md). Linux only; run by hand.
if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  add_executable(arbor-wake-bell ${CMAKE_CURRENT_LIST_DIR}/wake_bell.c)
endif()
