# Unit tests of the core (GoogleTest, registered with CTest).
find_package(GTest REQUIRED)
include(GoogleTest)

file(GLOB QT_CORE_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/core/*.cpp
  ${CMAKE_SOURCE_DIR}/tests/app/*.cpp)
# heap_count.cpp replaces operator new, so that the tests can see that a frame allocates nothing.
add_executable(core_tests ${QT_CORE_TESTS} ${CMAKE_SOURCE_DIR}/src/app/heap_count.cpp)
# GDAL's own API writes the test rasters (GeoTIFF, ESRI ASCII grid, VRT) that the loader reads.
target_link_libraries(core_tests PRIVATE quadterrain_cli GDAL::GDAL GTest::gtest GTest::gtest_main)
target_compile_options(core_tests PRIVATE ${QT_WARNINGS})
target_compile_definitions(core_tests PRIVATE
  QT_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
  QT_SHARED_HEIGHTMAPS="${CMAKE_SOURCE_DIR}/../shared/heightmaps")
gtest_discover_tests(core_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS unit)
