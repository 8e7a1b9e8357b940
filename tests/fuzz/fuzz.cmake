# libFuzzer targets: the ARBOR_* parser, ARBOR_LOGP, ARBOR_TUNE, the schedule
# builders and the calibration file (ARBOR_LOGP_FILE), in one binary (bin/arbor-fuzz, target
# chosen by ARB_FUZZ_TARGET). libFuzzer comes with clang only, so the binary is built by clang
# whatever compiles the library: the sources it needs (src/algorithms/, src/runtime/config.c,
# src/util/status.c) are compiled again, with -fsanitize=fuzzer,address,undefined. Without a clang
# there are no fuzz tests.
#
# CI runs each target for a few seconds on the corpus in tests/fuzz/corpus/<target> (new
# inputs go to the build folder, never into the tree). A long run, from the build folder:
#   mkdir -p fuzz/long-sched
#   ARB_FUZZ_TARGET=sched bin/arbor-fuzz -max_total_time=3600 -jobs=2 fuzz/long-sched \
#       ../tests/fuzz/corpus/sched
# and, to add what it found to the tree's corpus (only inputs that add coverage):
#   ARB_FUZZ_TARGET=sched bin/arbor-fuzz -merge=1 ../tests/fuzz/corpus/sched fuzz/long-sched
# A crash leaves crash-<sha1> in the current folder; replay it with
#   ARB_FUZZ_TARGET=sched bin/arbor-fuzz crash-<sha1>
if(CMAKE_C_COMPILER_ID MATCHES "Clang")
  set(ARB_FUZZ_CC ${CMAKE_C_COMPILER})
else()
  find_program(ARB_FUZZ_CC NAMES clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14)
endif()
if(NOT ARB_FUZZ_CC)
  message(STATUS "no clang found: the fuzz targets are not built")
  return()
endif()

set(ARB_FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR})
file(GLOB ARB_FUZZ_LIB_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/algorithms/*.c)
list(APPEND ARB_FUZZ_LIB_SOURCES ${CMAKE_SOURCE_DIR}/src/runtime/config.c ${CMAKE_SOURCE_DIR}/src/util/status.c
     ${CMAKE_SOURCE_DIR}/tests/sched_sim.c)
set(ARB_FUZZ_SOURCES ${ARB_FUZZ_DIR}/fuzz_main.c ${ARB_FUZZ_DIR}/fuzz_config.c
    ${ARB_FUZZ_DIR}/fuzz_logp.c ${ARB_FUZZ_DIR}/fuzz_tune.c ${ARB_FUZZ_DIR}/fuzz_sched.c
    ${ARB_FUZZ_DIR}/fuzz_calib.c)
set(ARB_FUZZ_BIN ${CMAKE_BINARY_DIR}/bin/arbor-fuzz)
add_custom_command(OUTPUT ${ARB_FUZZ_BIN}
  COMMAND ${ARB_FUZZ_CC} -std=c11 -D_GNU_SOURCE -DARBOR_VERSION_STRING="fuzz" -g -O1
          -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
          -Wall -Wextra -Werror
          -I${CMAKE_SOURCE_DIR}/include -I${CMAKE_SOURCE_DIR}/src -I${CMAKE_SOURCE_DIR}
          ${ARB_FUZZ_SOURCES} ${ARB_FUZZ_LIB_SOURCES} -lm -o ${ARB_FUZZ_BIN}
  DEPENDS ${ARB_FUZZ_SOURCES} ${ARB_FUZZ_LIB_SOURCES} ${ARB_FUZZ_DIR}/fuzz.h
  COMMENT "Building arbor-fuzz with ${ARB_FUZZ_CC}"
  VERBATIM)
add_custom_target(arbor-fuzz ALL DEPENDS ${ARB_FUZZ_BIN})

foreach(t config logp tune sched calib)
  add_test(NAME fuzz.${t}
           COMMAND sh -c "mkdir -p fuzz/new-${t} && exec \"$0\" -max_total_time=3 -timeout=10 -print_final_stats=1 fuzz/new-${t} \"$1\""
                   ${ARB_FUZZ_BIN} ${ARB_FUZZ_DIR}/corpus/${t}
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  set_tests_properties(fuzz.${t} PROPERTIES LABELS fuzz TIMEOUT 60
                       ENVIRONMENT "ARB_FUZZ_TARGET=${t}")
endforeach()
