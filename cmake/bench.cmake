# Google Benchmark suite for the core: walk vs brute force, tree build, heightmap load, the object
# quadtree against a grid, brute force and Box2D's broad phase.
find_package(benchmark REQUIRED)
file(GLOB QT_BENCH_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/bench/*.cpp)
if(QT_BENCH_SOURCES)
  add_executable(core_bench ${QT_BENCH_SOURCES})
  # GDAL writes the benchmark's GeoTIFF and times its own read of it beside the loader's.
  target_link_libraries(core_bench PRIVATE quadterrain_core quadterrain_object_baselines PkgConfig::STB GDAL::GDAL benchmark::benchmark)
  target_compile_options(core_bench PRIVATE ${QT_WARNINGS} ${QT_FP_FLAGS})
  target_include_directories(core_bench PRIVATE ${CMAKE_SOURCE_DIR}/tests/core)  # shared_maps.h
  target_compile_definitions(core_bench PRIVATE QT_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
                             QT_SHARED_HEIGHTMAPS="${QT_SHARED_HEIGHTMAPS}")
  # Box2D (Debian's libbox2d-dev) only as the object benchmark's reference: found and linked
  # here alone; without it those benchmarks are left out.
  find_package(box2d QUIET)
  if(box2d_FOUND)
    target_link_libraries(core_bench PRIVATE box2d::box2d)
    target_compile_definitions(core_bench PRIVATE QT_HAVE_BOX2D=1)
  else()
    message(STATUS "box2d not found: the object benchmarks run without Box2D's broad phase")
  endif()
endif()
