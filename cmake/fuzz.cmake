# libFuzzer harnesses (clang only): configure with
#   CC=clang CXX=clang++ cmake -B build-fuzz -DQT_BUILD_FUZZ=ON -DQT_BUILD_VIEWER=OFF
#   -DQT_BUILD_BENCH=OFF -DQT_BUILD_TESTS=OFF
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "QT_BUILD_FUZZ needs clang (CXX=clang++)")
endif()
foreach(target quadterrain_core quadterrain_object_baselines quadterrain_cli)
  target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link,address,undefined)
endforeach()
# stb_image (and stb_rect_pack, stb_dxt) built here with the harnesses, with the sanitizers and the
# fuzzer's coverage, rather than Debian's uninstrumented libstb.so: its definitions in the
# executable take the place of the shared library's, so the fuzzers see the decoders' memory
# errors and steer into their branches.
add_library(qt_stb_fuzz OBJECT ${CMAKE_SOURCE_DIR}/tests/fuzz/stb_image_impl.c)
target_link_libraries(qt_stb_fuzz PRIVATE PkgConfig::STB)
target_compile_options(qt_stb_fuzz PRIVATE -fsanitize=fuzzer-no-link,address,undefined)
foreach(harness fuzz_heightmap fuzz_options fuzz_object_tree fuzz_tree_sidecar)
  add_executable(${harness} ${CMAKE_SOURCE_DIR}/tests/fuzz/${harness}.cpp
                            $<TARGET_OBJECTS:qt_stb_fuzz>)
  target_link_libraries(${harness} PRIVATE quadterrain_cli quadterrain_object_baselines)
  target_compile_options(${harness} PRIVATE -fsanitize=fuzzer,address,undefined ${QT_FP_FLAGS})
  # --as-needed drops libstb.so, whose every symbol the instrumented copy above defines.
  target_link_options(${harness} PRIVATE -fsanitize=fuzzer,address,undefined -Wl,--as-needed)
endforeach()
