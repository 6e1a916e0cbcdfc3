# The viewer: glad loader generated at configure time, GLFW window, ImGui HUD, GL renderer.
find_package(glfw3 3.3 REQUIRED)
# EGL (glvnd's libEGL, Debian's libegl-dev) makes headless contexts for runs without a display.
find_package(OpenGL REQUIRED COMPONENTS OpenGL EGL)
pkg_check_modules(IMGUI REQUIRED IMPORTED_TARGET imgui)

# ---- glad: OpenGL 3.3 core loader (all extensions), generated once into the build tree ----
set(QT_GLAD_DIR ${CMAKE_BINARY_DIR}/glad)
if(NOT EXISTS ${QT_GLAD_DIR}/src/gl.c)
  find_program(QT_GLAD_EXECUTABLE glad)
  if(NOT QT_GLAD_EXECUTABLE)
    message(FATAL_ERROR "glad (the GL loader generator) was not found: install python3-glad "
                        "(Debian) or 'pip install glad2', or configure with -DQT_BUILD_VIEWER=OFF")
  endif()
  execute_process(
    COMMAND ${QT_GLAD_EXECUTABLE} --api gl:core=3.3 --out-path ${QT_GLAD_DIR} --reproducible c
    RESULT_VARIABLE QT_GLAD_RESULT
    OUTPUT_VARIABLE QT_GLAD_OUTPUT
    ERROR_VARIABLE QT_GLAD_OUTPUT)
  if(NOT QT_GLAD_RESULT EQUAL 0 OR NOT EXISTS ${QT_GLAD_DIR}/src/gl.c)
    message(FATAL_ERROR "glad failed to generate the GL loader in ${QT_GLAD_DIR}:\n"
                        "${QT_GLAD_OUTPUT}")
  endif()
endif()
add_library(quadterrain_glad STATIC ${QT_GLAD_DIR}/src/gl.c)
target_include_directories(quadterrain_glad SYSTEM PUBLIC $<BUILD_INTERFACE:${QT_GLAD_DIR}/include>)
target_link_libraries(quadterrain_glad PUBLIC ${CMAKE_DL_LIBS})
set_target_properties(quadterrain_glad PROPERTIES POSITION_INDEPENDENT_CODE ON)

# ---- renderer: GL context, shaders, terrain, debug lines, offscreen framebuffer ----
# shaders/ compiled into the renderer (a renderer made with no shader folder uses them), made
# again whenever a shader changes.
file(GLOB QT_SHADERS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/shaders/*.vert ${CMAKE_SOURCE_DIR}/shaders/*.comp
     ${CMAKE_SOURCE_DIR}/shaders/*.frag ${CMAKE_SOURCE_DIR}/shaders/*.glsl)
set(QT_EMBEDDED_SHADERS ${CMAKE_BINARY_DIR}/generated/embedded_shaders.cpp)
add_custom_command(OUTPUT ${QT_EMBEDDED_SHADERS}
  COMMAND ${CMAKE_COMMAND} "-DSOURCES=${QT_SHADERS}" -DOUT=${QT_EMBEDDED_SHADERS}
          -P ${CMAKE_SOURCE_DIR}/cmake/embed_shaders.cmake
  DEPENDS ${QT_SHADERS} ${CMAKE_SOURCE_DIR}/cmake/embed_shaders.cmake
  COMMENT "Compiling shaders/ into the renderer" VERBATIM)
add_library(quadterrain_render STATIC
  ${QT_EMBEDDED_SHADERS}
  src/render/gl_context.cpp
  src/render/shader.cpp
  src/render/terrain_renderer.cpp
  src/render/object_renderer.cpp
  src/render/terrain.cpp
  src/render/debug_lines.cpp
  src/render/framebuffer.cpp
  src/render/terrain_view.cpp
  src/render/terrain_sun.cpp src/render/sky.cpp
  src/render/imagery_gpu.cpp
  src/render/terrain_imagery.cpp
  src/render/offscreen.cpp)
add_library(quadterrain::render ALIAS quadterrain_render)
set_target_properties(quadterrain_render PROPERTIES EXPORT_NAME render POSITION_INDEPENDENT_CODE ON)
target_link_libraries(quadterrain_render PUBLIC quadterrain_core quadterrain_glad glfw OpenGL::GL
                                                 OpenGL::EGL)
target_compile_options(quadterrain_render PRIVATE ${QT_WARNINGS} ${QT_FP_FLAGS})

# ---- the viewer executable ----
add_executable(quadterrain
  src/app/main.cpp
  src/app/session.cpp
  src/app/resources.cpp
  src/app/viewer.cpp
  src/app/viewer_input.cpp
  src/app/fly_control.cpp
  src/app/hud.cpp
  src/app/hud_cursor.cpp
  src/app/hud_overlay.cpp
  src/app/minimap.cpp
  src/app/scripted.cpp
  src/app/bench_flight.cpp
  src/app/soak.cpp
  src/app/heap_count.cpp
  src/app/stats_json.cpp)
target_link_libraries(quadterrain PRIVATE quadterrain_render quadterrain_cli PkgConfig::IMGUI)
target_compile_options(quadterrain PRIVATE ${QT_WARNINGS} ${QT_FP_FLAGS})
target_include_directories(quadterrain PRIVATE ${QT_SOURCE_PATHS_DIR})

# The viewer reads its shaders at run time (R reloads them): copy them next to the executable
# after every build.
add_custom_command(TARGET quadterrain POST_BUILD
  COMMAND ${CMAKE_COMMAND} -E make_directory $<TARGET_FILE_DIR:quadterrain>/shaders
  COMMAND ${CMAKE_COMMAND} -E copy_if_different ${QT_SHADERS} $<TARGET_FILE_DIR:quadterrain>/shaders
  VERBATIM)

# ---- render tests: need a display; run under xvfb-run -a when none is set ----
if(QT_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
  set(QT_WITH_DISPLAY ${CMAKE_SOURCE_DIR}/tests/render/with_display.sh)
  set(QT_RENDER_TEST_ENV QT_GL_DEBUG=1)
  if(QT_SANITIZE)
    # Leak checking is off for the render tests: at exit LeakSanitizer's tracer (GCC 12's
    # libsanitizer) faults reading another thread's state while llvmpipe's threads are still
    # going ("Tracer caught signal 11"), on a busy machine in a render test of one run in a few.
    # Address and UB errors are still fatal; our own leaks are covered by the unit tests, which
    # run with LeakSanitizer on. (Mesa and Xlib keep allocations alive until exit: lsan.supp
    # names them, for a run with ASAN_OPTIONS=detect_leaks=1 by hand.)
    list(APPEND QT_RENDER_TEST_ENV ASAN_OPTIONS=detect_leaks=0
         LSAN_OPTIONS=suppressions=${CMAKE_SOURCE_DIR}/tests/render/lsan.supp:print_suppressions=0)
  endif()
  # Tests that run the executable. Under the sanitizers, leak checking is off for them too: Mesa
  # dlcloses its driver before the exit-time leak check, so the driver's few leftover allocations
  # have no module to suppress by. Address and UB errors are still fatal.
  set(QT_PROCESS_TEST_ENV QT_GL_DEBUG=1)
  if(QT_SANITIZE)
    list(APPEND QT_PROCESS_TEST_ENV ASAN_OPTIONS=detect_leaks=0)
  endif()

  # With the core tests' baked layouts (a layout streamed by tiles, drawn).
  add_executable(render_tests tests/render/render_test.cpp tests/core/test_files.cpp
                              tests/core/http_server.cpp tests/core/fault_proxy.cpp
                              tests/core/test_rasters.cpp tests/core/streaming/layout_fixtures.cpp)
  target_link_libraries(render_tests PRIVATE quadterrain_render GDAL::GDAL GTest::gtest
                                             GTest::gtest_main)
  target_compile_options(render_tests PRIVATE ${QT_WARNINGS} ${QT_FP_FLAGS})
  target_include_directories(render_tests PRIVATE ${CMAKE_SOURCE_DIR}/tests/core
                                                  ${QT_SOURCE_PATHS_DIR})
  # Discovery only lists names (no window); each test then runs through the display wrapper, with
  # its environment set by env: gtest_discover_tests keeps only the first item of a list property.
  set_target_properties(render_tests PROPERTIES
                        CROSSCOMPILING_EMULATOR "env;${QT_RENDER_TEST_ENV};${QT_WITH_DISPLAY}")
  gtest_discover_tests(render_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS render TIMEOUT 300)

  # A headless context (EGL, no display at all) runs the same GL: the shaders' transform
  # feedback, height pages across page and array borders, streamed pages, culled = unculled.
  add_test(NAME render_tests_headless
    COMMAND env -u DISPLAY -u WAYLAND_DISPLAY $<TARGET_FILE:render_tests>
            "--gtest_filter=LodMesh.*:HeightPages.*:StreamedTerrain.*:Sizes/SyntheticMaps.CulledFramesEqualUnculledFrames/*:ObjectsOnTerrain.CulledFramesEqualUnculledFramesOnASyntheticMap")
  set_tests_properties(render_tests_headless PROPERTIES LABELS render TIMEOUT 300
                       ENVIRONMENT "QT_GL_PLATFORM=egl;${QT_RENDER_TEST_ENV}")

  # The library's offscreen renderer in a process of its own (it makes its own headless context
  # current): culled = unculled, objects, and its pictures equal to the viewer's --screenshot.
  add_executable(offscreen_tests tests/render/offscreen_test.cpp)
  target_link_libraries(offscreen_tests PRIVATE quadterrain_render PkgConfig::STB GTest::gtest
                                                GTest::gtest_main)
  target_compile_options(offscreen_tests PRIVATE ${QT_WARNINGS} ${QT_FP_FLAGS})
  target_compile_definitions(offscreen_tests PRIVATE QT_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
                                                     QT_VIEWER="$<TARGET_FILE:quadterrain>")
  add_dependencies(offscreen_tests quadterrain)
  set_target_properties(offscreen_tests PROPERTIES CROSSCOMPILING_EMULATOR
                        "env;-u;DISPLAY;-u;WAYLAND_DISPLAY;QT_GL_PLATFORM=egl;${QT_PROCESS_TEST_ENV}")
  gtest_discover_tests(offscreen_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS render TIMEOUT 300
                       TEST_FILTER "-Offscreen.WithoutAContextOpeningIsOneLine")
  # With no EGL driver at all (the vendor-neutral loader pointed at a list of none), opening the
  # offscreen renderer fails in one line, without a crash.
  add_test(NAME offscreen_no_context
    COMMAND env -u DISPLAY -u WAYLAND_DISPLAY QT_GL_PLATFORM=egl QT_TEST_NO_CONTEXT=1
            __EGL_VENDOR_LIBRARY_FILENAMES=${CMAKE_BINARY_DIR}/no-egl-vendor.json
            $<TARGET_FILE:offscreen_tests> --gtest_filter=Offscreen.WithoutAContextOpeningIsOneLine)
  set_tests_properties(offscreen_no_context PROPERTIES LABELS render TIMEOUT 60)

  add_test(NAME render_cli
    COMMAND ${QT_WITH_DISPLAY} ${CMAKE_SOURCE_DIR}/tests/render/cli_test.sh
            $<TARGET_FILE:quadterrain> ${CMAKE_SOURCE_DIR})
  # Both run the real executable a few hundred times: under ASan each start costs about half a
  # second, so their timeouts leave room for a sanitized build on a busy machine.
  set_tests_properties(render_cli PROPERTIES LABELS render ENVIRONMENT "${QT_PROCESS_TEST_ENV}"
                                             TIMEOUT 900)

  # The catalogue of bad inputs: exact one-line errors and exit codes of the real executable.
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  add_test(NAME bad_input_catalogue
    COMMAND ${QT_WITH_DISPLAY} ${Python3_EXECUTABLE}
            ${CMAKE_SOURCE_DIR}/tests/app/bad_input_catalogue.py $<TARGET_FILE:quadterrain>)
  set_tests_properties(bad_input_catalogue PROPERTIES LABELS render
                                           ENVIRONMENT "${QT_PROCESS_TEST_ENV}" TIMEOUT 900)

  # --pick's lonlat and crs_xy on geographic, UTM and polar-stereographic GeoTIFFs against
  # gdaltransform and gdallocationinfo -wgs84. Exit 77: skipped (no gdal-bin).
  add_test(NAME pick_lonlat_gdal
    COMMAND ${QT_WITH_DISPLAY} ${Python3_EXECUTABLE}
            ${CMAKE_SOURCE_DIR}/tests/app/pick_lonlat_test.py $<TARGET_FILE:quadterrain>)
  set_tests_properties(pick_lonlat_gdal PROPERTIES LABELS render SKIP_RETURN_CODE 77
                                        ENVIRONMENT "${QT_PROCESS_TEST_ENV}" TIMEOUT 300)

  # --imagery placed by GDAL's warper: colours from heights and a UTM marker at a pick's
  # longitude and latitude (gdal-bin's tools make the imagery; exit 77 without them).
  add_test(NAME imagery_placement
    COMMAND ${QT_WITH_DISPLAY} ${Python3_EXECUTABLE}
            ${CMAKE_SOURCE_DIR}/tests/app/imagery_test.py $<TARGET_FILE:quadterrain>)
  set_tests_properties(imagery_placement PROPERTIES LABELS render SKIP_RETURN_CODE 77
                                         ENVIRONMENT "${QT_PROCESS_TEST_ENV}" TIMEOUT 300)

  # The real window driven by synthetic X input (xdotool): picking terrain and objects, the
  # screenshot key, Enter in the path box (and quick taps at 2 frames a second), movement at 1
  # and 60 frames a second, double-click flights, the ground floor and ground-follow, minimap
  # clicks, a path typed right after a click into the path box reaching the box and no shortcut,
  # Esc in the box never quitting, the HUD's layout at 1280x720 and 1920x1080, the Sun's keys,
  # the frame budget's bound, frames going on while a map is read from a slow server (nginx), a
  # layout streamed by tiles from nginx, a new map's objects scattered off the frame's thread.
  # Exit 77: skipped (no xdotool).
  foreach(input_case pick pick_object screenshot enter slow_keys move1 move60 fly ground minimap
                     text_focus layout sun_keys frame_budget slow_load tiles objects_load)
    add_test(NAME input_${input_case}
      COMMAND ${QT_WITH_DISPLAY} ${Python3_EXECUTABLE}
              ${CMAKE_SOURCE_DIR}/tests/render/input_test.py
              ${input_case} $<TARGET_FILE:quadterrain>)
    set_tests_properties(input_${input_case} PROPERTIES LABELS render SKIP_RETURN_CODE 77
                                             ENVIRONMENT "${QT_PROCESS_TEST_ENV}" TIMEOUT 120)
  endforeach()

  # Soak: thousands of frames of teleports, resizes to 0x0, toggles and reloads, with checks.
  # Resident memory is judged only without sanitizers (ASan's quarantine grows it by design).
  if(QT_SANITIZE)
    set(QT_SOAK_MEMORY heap-only)
  else()
    set(QT_SOAK_MEMORY rss)
  endif()
  add_test(NAME soak
    COMMAND ${QT_WITH_DISPLAY} ${Python3_EXECUTABLE}
            ${CMAKE_SOURCE_DIR}/tests/app/soak_test.py $<TARGET_FILE:quadterrain> 6000
            ${QT_SOAK_MEMORY})
  set_tests_properties(soak PROPERTIES LABELS render ENVIRONMENT "${QT_PROCESS_TEST_ENV}"
                                       TIMEOUT 600)
endif()
