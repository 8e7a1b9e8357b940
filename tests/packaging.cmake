# Packaging tests (label "packaging"): install this build into a scratch prefix, then build and
# run a client of the installed package with CMake (find_package) and with pkg-config.
# tests/client/run.sh does the work; the install step is a fixture of the two client tests.
set(ARBOR_PACKAGING_SCRATCH ${CMAKE_CURRENT_BINARY_DIR}/packaging)
set(ARBOR_PACKAGING_ENV "")
if(ARBOR_SANITIZE)
  # A client of a sanitized libarbor must load the sanitizer runtimes first.
  set(ARBOR_PACKAGING_ENV "ARBOR_CLIENT_CFLAGS=-fsanitize=address,undefined")
endif()
foreach(step install cmake pkgconfig)
  add_test(NAME packaging.${step}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/client/run.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR}
            ${ARBOR_PACKAGING_SCRATCH} ${step})
  set_tests_properties(packaging.${step} PROPERTIES LABELS packaging TIMEOUT 300
    ENVIRONMENT "${ARBOR_PACKAGING_ENV}")
endforeach()
set_tests_properties(packaging.install PROPERTIES FIXTURES_SETUP arbor_installed)
set_tests_properties(packaging.cmake packaging.pkgconfig PROPERTIES FIXTURES_REQUIRED arbor_installed)
