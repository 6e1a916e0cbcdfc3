# Unit tests of the core (GoogleTest, registered with CTest).
find_package(GTest REQUIRED)
include(GoogleTest)

# tests/core mirrors src/core's folders; its root holds the helpers they share.
file(GLOB_RECURSE QT_CORE_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/core/*.cpp)
file(GLOB QT_APP_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/app/*.cpp)
# heap_count.cpp replaces operator new, so that the tests can see that a frame allocates nothing.
add_executable(core_tests ${QT_CORE_TESTS} ${QT_APP_TESTS}
  ${CMAKE_SOURCE_DIR}/src/app/heap_count.cpp)
# GDAL's own API writes the test rasters (GeoTIFF, ESRI ASCII grid, VRT) that the loader reads.
target_link_libraries(core_tests PRIVATE quadterrain_cli quadterrain_object_baselines GDAL::GDAL GTest::gtest GTest::gtest_main)
target_include_directories(core_tests PRIVATE ${CMAKE_SOURCE_DIR}/tests/core
                                              ${QT_SOURCE_PATHS_DIR})
target_compile_options(core_tests PRIVATE ${QT_WARNINGS} ${QT_FP_FLAGS})
gtest_discover_tests(core_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS unit)

# The core's folders keep their ranks: every #include checked, and a violation of each kind
# planted in a copy of the tree must be caught.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_test(NAME include_order
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/tools/include_order.py
          ${CMAKE_SOURCE_DIR}/src)
add_test(NAME include_order_catches_violations
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/tools/include_order.py
          ${CMAKE_SOURCE_DIR}/src --self-test)
set_tests_properties(include_order include_order_catches_violations PROPERTIES LABELS "unit;tools"
                     TIMEOUT 60)
