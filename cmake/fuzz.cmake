# libFuzzer harnesses (clang only): configure with
#   CC=clang CXX=clang++ cmake -B build-fuzz -DQT_BUILD_FUZZ=ON -DQT_BUILD_VIEWER=OFF
#   -DQT_BUILD_BENCH=OFF -DQT_BUILD_TESTS=OFF
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "QT_BUILD_FUZZ needs clang (CXX=clang++)")
endif()
foreach(target quadterrain_core quadterrain_cli)
  target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link,address,undefined)
endforeach()
foreach(harness fuzz_heightmap fuzz_options fuzz_object_tree)
  add_executable(${harness} ${CMAKE_SOURCE_DIR}/tests/fuzz/${harness}.cpp)
  target_link_libraries(${harness} PRIVATE quadterrain_cli)
  target_compile_options(${harness} PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_options(${harness} PRIVATE -fsanitize=fuzzer,address,undefined)
endforeach()
