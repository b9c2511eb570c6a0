# Installs the libraries and headers so another CMake project can
#   find_package(backsweep) and link backsweep::solvers, backsweep::io, ...
include(CMakePackageConfigHelpers)

foreach(folder platform models solvers adjoint io fit)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${folder}/
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/backsweep/${folder}
    FILES_MATCHING PATTERN "*.hpp"
    PATTERN "cvodes_parts.hpp" EXCLUDE)  # SUNDIALS' headers: for solvers/ itself only
endforeach()

# One export set a library, so that find_package(backsweep COMPONENTS ...) loads (and
# finds the dependencies of) only the libraries asked for and those they build on.
foreach(component platform models solvers adjoint fit io)
  install(EXPORT backsweep_${component}_targets NAMESPACE backsweep::
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/backsweep)
endforeach()
configure_package_config_file(cmake/backsweepConfig.cmake.in
  ${PROJECT_BINARY_DIR}/backsweepConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/backsweep)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/backsweepConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/backsweepConfig.cmake
  ${PROJECT_BINARY_DIR}/backsweepConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/backsweep)
