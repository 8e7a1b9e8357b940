# Installation and packaging: libarbor.so / libarbor.a, include/arbor.h, arbor.pc, and the CMake
# package (find_package(arbor CONFIG) -> arbor::arbor, the shared library, and
# arbor::arbor_static, the archive).
#
# The static archive needs PMIx, UCX and libfabric at link time. In the build tree it links the
# PkgConfig:: imported targets (BUILD_INTERFACE); in the installed package it links
# arbor::arbor_deps instead, an interface target that arborConfig.cmake creates from pkg-config,
# so a user of the shared library needs neither pkg-config nor the dependencies' .pc files.
include(CMakePackageConfigHelpers)

set(ARBOR_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/arbor)
set_target_properties(arbor_static PROPERTIES EXPORT_NAME arbor_static)
set_property(TARGET arbor_static APPEND PROPERTY
  INTERFACE_LINK_LIBRARIES $<INSTALL_INTERFACE:arbor::arbor_deps>)

install(TARGETS arbor arbor_static EXPORT arborTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/arbor.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT arborTargets NAMESPACE arbor:: FILE arborTargets.cmake DESTINATION ${ARBOR_CMAKE_DIR})

# pkg-config modules the static archive needs (also listed by arborConfig.cmake).
set(ARBOR_PC_REQUIRES_PRIVATE pmix)
if(ARBOR_WITH_UCX)
  list(APPEND ARBOR_PC_REQUIRES_PRIVATE ucx)
endif()
if(ARBOR_WITH_OFI)
  list(APPEND ARBOR_PC_REQUIRES_PRIVATE libfabric)
endif()

# arbor.pc: paths relative to the .pc file (${pcfiledir}), so the installed tree is relocatable
# and `cmake --install --prefix <any>` yields a working file.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(ARBOR_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(ARBOR_PC_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}")
  set(ARBOR_PC_INCLUDEDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
else()
  file(RELATIVE_PATH _arbor_up "/arbor-root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/arbor-root")
  string(REGEX REPLACE "/$" "" _arbor_up "${_arbor_up}")
  set(ARBOR_PC_PREFIX "\${pcfiledir}/${_arbor_up}")
  set(ARBOR_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(ARBOR_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
string(REPLACE ";" " " ARBOR_PC_REQUIRES_PRIVATE_STR "${ARBOR_PC_REQUIRES_PRIVATE}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/arbor.pc.in ${PROJECT_BINARY_DIR}/arbor.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/arbor.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# arborConfig.cmake + arborConfigVersion.cmake
set(ARBOR_CONFIG_WITH_UCX ${ARBOR_WITH_UCX})
set(ARBOR_CONFIG_WITH_OFI ${ARBOR_WITH_OFI})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/arborConfig.cmake.in
  ${PROJECT_BINARY_DIR}/arborConfig.cmake INSTALL_DESTINATION ${ARBOR_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/arborConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/arborConfig.cmake ${PROJECT_BINARY_DIR}/arborConfigVersion.cmake
  DESTINATION ${ARBOR_CMAKE_DIR})
