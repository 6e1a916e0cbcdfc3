# Google Benchmark suite for the core: walk vs brute force, tree build, heightmap load.
find_package(benchmark REQUIRED)
file(GLOB QT_BENCH_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/bench/*.cpp)
if(QT_BENCH_SOURCES)
  add_executable(core_bench ${QT_BENCH_SOURCES})
  target_link_libraries(core_bench PRIVATE quadterrain_core benchmark::benchmark)
  target_compile_options(core_bench PRIVATE ${QT_WARNINGS})
  target_compile_definitions(core_bench PRIVATE QT_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
endif()
