# The installed package: the libraries, the public headers of src/public_headers.txt under
# include/quadterrain/, and quadterrainConfig.cmake, so that a program does
#   find_package(quadterrain REQUIRED)
#   target_link_libraries(app PRIVATE quadterrain::core)     # or quadterrain::render
# and includes <quadterrain/core/...> (or "core/...": both folders are on the include path).
include(CMakePackageConfigHelpers)
set(QT_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/quadterrain)

file(STRINGS ${CMAKE_SOURCE_DIR}/src/public_headers.txt QT_PUBLIC_HEADERS REGEX "^[a-z]")
# A header added to the list is installed by the next build, without configuring by hand.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${CMAKE_SOURCE_DIR}/src/public_headers.txt)
set(QT_INSTALLED_TARGETS quadterrain_core)
if(TARGET quadterrain_render)
  list(APPEND QT_INSTALLED_TARGETS quadterrain_render quadterrain_glad)
  set(QT_PACKAGE_HAS_RENDER ON)
else()
  list(FILTER QT_PUBLIC_HEADERS EXCLUDE REGEX "^render/")
  set(QT_PACKAGE_HAS_RENDER OFF)
endif()
foreach(header ${QT_PUBLIC_HEADERS})
  get_filename_component(folder ${header} DIRECTORY)
  install(FILES ${CMAKE_SOURCE_DIR}/src/${header}
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/quadterrain/${folder})
endforeach()

install(TARGETS ${QT_INSTALLED_TARGETS} EXPORT quadterrainTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT quadterrainTargets NAMESPACE quadterrain:: DESTINATION ${QT_PACKAGE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/quadterrainConfig.cmake.in
  ${CMAKE_BINARY_DIR}/quadterrainConfig.cmake INSTALL_DESTINATION ${QT_PACKAGE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/quadterrainConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/quadterrainConfig.cmake
              ${CMAKE_BINARY_DIR}/quadterrainConfigVersion.cmake
        DESTINATION ${QT_PACKAGE_DIR})
