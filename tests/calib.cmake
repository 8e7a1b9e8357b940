# The calibration file (label calib): arbor-info --calibrate writes it, ARBOR_LOGP_FILE loads it
# (the same parameters on each path), and bad, different and one-sided files fail init on every
# rank with the reason (tests/calib_check.sh). On ucx at P = 2: the path that maps peers and,
# with ARBOR_DIRECT=n, the transport's RMA. The parser alone: unit.calib (unit.cmake).
if(TARGET arbor-info AND "ucx" IN_LIST ARBOR_TEST_TRANSPORTS)
  add_test(NAME calib.ucx.2
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/calib_check.sh $<TARGET_FILE:arbor-info>
            ${CMAKE_CURRENT_BINARY_DIR}/calib_check ${ARBOR_TEST_LAUNCHER} ${ARBOR_TEST_LAUNCHER_FLAGS})
  set_tests_properties(calib.ucx.2 PROPERTIES LABELS "calib;launched;ucx" TIMEOUT 240
    ENVIRONMENT "${ARBOR_TEST_ENV};ARBOR_TRANSPORT=ucx" PROCESSORS 1)
endif()
