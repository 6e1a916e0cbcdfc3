# Google Benchmark suite for the core: walk vs brute force, tree build, heightmap load, the object
# quadtree against a grid, brute force and Box2D's broad phase.
find_package(benchmark REQUIRED)
file(GLOB QT_BENCH_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/bench/*.cpp)
# libsquish (Debian's libsquish-dev) only in the imagery compression benchmark: it decodes the
# blocks stb_dxt encodes (stb has no decoder) and is the cluster-fit encoder they are compared
# with; without it that benchmark is left out.
# (Found by hand: Debian 12's libsquish.pc has an empty prefix.)
find_path(SQUISH_INCLUDE_DIR squish.h)
find_library(SQUISH_LIBRARY squish)
if(SQUISH_INCLUDE_DIR AND SQUISH_LIBRARY)
  set(SQUISH_FOUND TRUE)
else()
  set(SQUISH_FOUND FALSE)
  list(REMOVE_ITEM QT_BENCH_SOURCES ${CMAKE_SOURCE_DIR}/bench/imagery_bench.cpp)
  message(STATUS "libsquish not found: core_bench runs without the imagery compression benchmark")
endif()
if(QT_BENCH_SOURCES)
  add_executable(core_bench ${QT_BENCH_SOURCES})
  if(SQUISH_FOUND)
    target_include_directories(core_bench PRIVATE ${SQUISH_INCLUDE_DIR})
    target_link_libraries(core_bench PRIVATE ${SQUISH_LIBRARY})
  endif()
  # GDAL writes the benchmark's GeoTIFF and times its own read of it beside the loader's.
  target_link_libraries(core_bench PRIVATE quadterrain_core quadterrain_object_baselines PkgConfig::STB GDAL::GDAL benchmark::benchmark)
  target_compile_options(core_bench PRIVATE ${QT_WARNINGS} ${QT_FP_FLAGS})
  target_include_directories(core_bench PRIVATE ${CMAKE_SOURCE_DIR}/tests/core  # shared_maps.h
                                                ${QT_SOURCE_PATHS_DIR})
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
