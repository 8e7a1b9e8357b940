# arbor-copybound: the best a two-copy pipeline through shared landing slots can do on this
# machine against one memcpy (docs/PERFORMANCE.md, "The two-copy bound"). Linux only; run by hand.
if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  add_executable(arbor-copybound ${CMAKE_CURRENT_LIST_DIR}/copybound.c)
endif()
