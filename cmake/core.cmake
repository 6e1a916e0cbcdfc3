# The GL-free core, by folder in rank order: a folder's files include their own folder, lower
# ranks, base/ and config.h only (tests/tools/include_order.py checks every #include).
set(QT_CORE_DIR ${CMAKE_SOURCE_DIR}/src/core)
set(QT_CORE_SOURCES
  # base: results, text, callables, the worker pool
  base/worker_pool.cpp base/scratch_array.cpp
  # terrain: the heightmap type, its coding, the world mapping, vertex grid, quadtree, pages
  terrain/heightmap.cpp terrain/quantise.cpp terrain/sample_range.cpp terrain/sample_presence.cpp terrain/code_array.cpp
  terrain/georeference.cpp terrain/geo_transform.cpp terrain/world.cpp terrain/vertex_grid.cpp terrain/surface.cpp
  terrain/quadtree.cpp terrain/leaf_ranges.cpp terrain/height_pages.cpp terrain/synthetic.cpp
  terrain/nodata.cpp
  # light: the Sun's position, exact cast shadows, the disc's soft edge, the open sky
  light/sun_position.cpp light/sun_lines.cpp light/sunlight.cpp light/sky_light.cpp
  light/sunlight_job.cpp light/daylight_sky.cpp light/light_buffer.cpp
  # io: every loader and the header checks before them
  io/load.cpp io/stb_image_load.cpp io/pnm.cpp io/raw16.cpp io/voids.cpp io/png_gray16.cpp
  io/image_header.cpp io/image_header_png.cpp io/image_header_rle.cpp io/image_header_gif.cpp
  io/gdal_raster.cpp io/gdal_inputs.cpp io/gdal_capacity.cpp io/ascii_grid.cpp
  io/heightmap_gdal.cpp io/memory_budget.cpp io/image_write.cpp io/imagery.cpp
  # view: camera, frustum, fitting, flights
  view/camera.cpp view/camera_fit.cpp view/camera_flight.cpp view/flight_path.cpp
  view/frustum.cpp
  # cull: the frustum walk, occlusion, back faces, picking
  cull/cull.cpp cull/occlusion.cpp cull/pick.cpp cull/slope_levels.cpp
  # lod: the selection and its error bounds
  lod/lod.cpp lod/lod_residency.cpp lod/lod_error.cpp lod/lod_reference.cpp
  # objects: the loose object tree, the scene on the terrain, meshes, instances, picking, the
  # scatter off the caller's thread
  objects/index.cpp objects/loose_tree.cpp objects/loose_tree_query.cpp objects/scene.cpp objects/mesh.cpp
  objects/instances.cpp objects/pick.cpp objects/static_runs.cpp objects/scatter_job.cpp
  # streaming: maps bigger than memory, code caches, sidecars, the page streamer
  streaming/open_map.cpp streaming/streamed_map.cpp streaming/streamed_gdal.cpp
  streaming/code_cache.cpp streaming/tree_sidecar.cpp streaming/nodata_sidecar.cpp streaming/mapped_codes.cpp
  streaming/page_streamer.cpp streaming/rows_ahead.cpp streaming/imagery_streamer.cpp
  streaming/coarse_error_job.cpp streaming/own_files.cpp streaming/cache_folder.cpp streaming/bake.cpp
  streaming/layout.cpp streaming/layout_tiles.cpp streaming/layout_stream_access.cpp streaming/sample_asker.cpp
  streaming/bake_input.cpp
  # frame: the per-frame pipeline
  frame/frame.cpp)
list(TRANSFORM QT_CORE_SOURCES PREPEND ${QT_CORE_DIR}/)

add_library(quadterrain_core STATIC ${QT_CORE_SOURCES})
add_library(quadterrain::core ALIAS quadterrain_core)
# Position-independent, so that a shared object (the Python module, a program's plugin) can link
# the static library: 0.65% more instructions in the walk (BM_Walk/N/64 under callgrind).
set_target_properties(quadterrain_core PROPERTIES EXPORT_NAME core OUTPUT_NAME quadterrain_core
                                                  POSITION_INDEPENDENT_CODE ON)
target_include_directories(quadterrain_core PUBLIC $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/src>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/quadterrain>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(quadterrain_core PUBLIC glm::glm PRIVATE PkgConfig::STB ZLIB::ZLIB GDAL::GDAL PROJ::proj
                                        Threads::Threads)
target_compile_options(quadterrain_core PRIVATE ${QT_WARNINGS} ${QT_FP_FLAGS})

# No errno from sqrt and no floating-point traps to preserve (the results are the same, bit for
# bit), so that the occlusion pass's per-leaf loops, the loaders' void checks and quantisation
# of every sample, the tree's leaf ranges and the height pages' strided gathers run in SIMD lanes.
# GCC's -O2 only vectorizes loops it needs no remainder or alias check for: these need both.
set(QT_SIMD_SOURCES cull/occlusion.cpp terrain/heightmap.cpp terrain/quantise.cpp
  io/load.cpp io/stb_image_load.cpp io/pnm.cpp io/raw16.cpp io/voids.cpp io/heightmap_gdal.cpp
  io/gdal_raster.cpp lod/lod_error.cpp terrain/quadtree.cpp terrain/leaf_ranges.cpp
  terrain/height_pages.cpp)
list(TRANSFORM QT_SIMD_SOURCES PREPEND ${QT_CORE_DIR}/)
set_source_files_properties(${QT_SIMD_SOURCES} PROPERTIES
  COMPILE_OPTIONS "-fno-math-errno;-fno-trapping-math;$<$<CXX_COMPILER_ID:GNU>:-fvect-cost-model=dynamic>")
# The samples' range: its inputs are finite by contract and the sign of a zero does not matter,
# which lets the min/max reductions run in SIMD lanes. Nothing else is compiled so.
set_source_files_properties(${QT_CORE_DIR}/terrain/sample_range.cpp PROPERTIES
  COMPILE_OPTIONS "-fno-math-errno;-fno-trapping-math;-ffinite-math-only;-fno-signed-zeros;$<$<CXX_COMPILER_ID:GNU>:-fvect-cost-model=dynamic>")

# The object indexes the loose tree is measured against (the every-leaf tree, the tree rebuilt
# each frame, a uniform grid) and the brute-force answers every index must equal: linked by the
# tests, benchmarks and fuzzers only, never installed.
add_library(quadterrain_object_baselines STATIC
  ${QT_CORE_DIR}/objects/baselines/every_leaf_tree.cpp
  ${QT_CORE_DIR}/objects/baselines/every_leaf_tree_query.cpp
  ${QT_CORE_DIR}/objects/baselines/rebuilt_tree.cpp
  ${QT_CORE_DIR}/objects/baselines/uniform_grid.cpp
  ${QT_CORE_DIR}/objects/baselines/brute_force.cpp)
target_link_libraries(quadterrain_object_baselines PUBLIC quadterrain_core)
target_compile_options(quadterrain_object_baselines PRIVATE ${QT_WARNINGS} ${QT_FP_FLAGS})
