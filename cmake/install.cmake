# cmake --install: the public headers (include/auris), libauris.so and libauris.a, the CUDA plugin
# where it is built, the CMake package and auris.pc. Relocatable: `cmake --install BUILD --prefix DIR`
# works for any DIR.
#   find_package(auris CONFIG)                     auris::auris, the shared library: its dependencies
#                                                  stay inside it, nothing more to find
#   find_package(auris CONFIG COMPONENTS static)   also auris::auris_static, which needs the libraries
#                                                  auris was built with; the package finds them
#   pkg-config --cflags --libs auris               the shared library (--static: the static one)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY include/auris DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")

set(AURIS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/auris)
set_target_properties(auris_shared PROPERTIES EXPORT_NAME auris)
set_target_properties(auris PROPERTIES EXPORT_NAME auris_static)
install(TARGETS auris_shared EXPORT aurisTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS auris EXPORT aurisStaticTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The CUDA plugin beside libauris.so, where Model::load(..., Device::kCuda) looks for it.
if(TARGET auris_cuda)
  install(TARGETS auris_cuda LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(EXPORT aurisTargets NAMESPACE auris:: DESTINATION ${AURIS_CMAKE_DIR})
install(EXPORT aurisStaticTargets NAMESPACE auris:: DESTINATION ${AURIS_CMAKE_DIR})
configure_package_config_file(cmake/aurisConfig.cmake.in ${CMAKE_BINARY_DIR}/aurisConfig.cmake
                              INSTALL_DESTINATION ${AURIS_CMAKE_DIR})
# 0.x: a new minor version may change the C++ API.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/aurisConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/aurisConfig.cmake ${CMAKE_BINARY_DIR}/aurisConfigVersion.cmake
        DESTINATION ${AURIS_CMAKE_DIR})

# auris.pc: its prefix is where the file lies (${pcfiledir}), so it is right wherever it is installed.
string(REPLACE ";" " " AURIS_PC_OPENMP "${OpenMP_CXX_FLAGS}")
file(RELATIVE_PATH AURIS_PC_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" AURIS_PC_PREFIX "${AURIS_PC_PREFIX}")
configure_file(cmake/auris.pc.in ${CMAKE_BINARY_DIR}/auris.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/auris.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
