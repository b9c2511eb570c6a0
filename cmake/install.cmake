# Installs the libraries and headers so another CMake project can
#   find_package(backsweep) and link backsweep::solvers, backsweep::io, ...
include(CMakePackageConfigHelpers)

foreach(folder models solvers adjoint io fit)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${folder}/
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/backsweep/${folder}
    FILES_MATCHING PATTERN "*.hpp")
endforeach()

install(EXPORT backsweepTargets NAMESPACE backsweep::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/backsweep)
configure_package_config_file(cmake/backsweepConfig.cmake.in
  ${PROJECT_BINARY_DIR}/backsweepConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/backsweep)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/backsweepConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/backsweepConfig.cmake
  ${PROJECT_BINARY_DIR}/backsweepConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/backsweep)
