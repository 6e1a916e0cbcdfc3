# The Python module `quadterrain` (pybind11, numpy at run time): python/quadterrain/ with the
# compiled _quadterrain next to its __init__.py, in build/python, so that
#   PYTHONPATH=build/python python3 -c "import quadterrain"
# works from the build tree; installed under QT_PYTHON_INSTALL_DIR. Its tests: tests/python.
find_package(Python3 COMPONENTS Interpreter Development.Module)
find_package(pybind11 CONFIG)
if(NOT Python3_Development.Module_FOUND OR NOT pybind11_FOUND)
  message(STATUS "Python module left out: needs pybind11-dev and python3-dev "
                 "(bash .ci/install-deps installs them)")
  return()
endif()
pybind11_add_module(quadterrain_python MODULE ${CMAKE_SOURCE_DIR}/python/module.cpp)
set(QT_PYTHON_BUILD_DIR ${CMAKE_BINARY_DIR}/python/quadterrain)
set_target_properties(quadterrain_python PROPERTIES OUTPUT_NAME _quadterrain
                      LIBRARY_OUTPUT_DIRECTORY ${QT_PYTHON_BUILD_DIR})
target_link_libraries(quadterrain_python PRIVATE quadterrain_render)
target_compile_options(quadterrain_python PRIVATE ${QT_WARNINGS} ${QT_FP_FLAGS})
add_custom_command(TARGET quadterrain_python POST_BUILD
  COMMAND ${CMAKE_COMMAND} -E copy_if_different ${CMAKE_SOURCE_DIR}/python/quadterrain/__init__.py
          ${QT_PYTHON_BUILD_DIR}/__init__.py VERBATIM)

set(QT_PYTHON_INSTALL_DIR
    ${CMAKE_INSTALL_LIBDIR}/python${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}/site-packages
    CACHE PATH "Where the Python module is installed, relative to the prefix")
if(QT_INSTALL)
  install(TARGETS quadterrain_python LIBRARY DESTINATION ${QT_PYTHON_INSTALL_DIR}/quadterrain)
  install(FILES ${CMAKE_SOURCE_DIR}/python/quadterrain/__init__.py
          DESTINATION ${QT_PYTHON_INSTALL_DIR}/quadterrain)
endif()

if(QT_BUILD_TESTS)
  # pytest over the module in the build tree, headless (EGL: no display needed).
  add_test(NAME python_module
    COMMAND env -u DISPLAY -u WAYLAND_DISPLAY PYTHONPATH=${CMAKE_BINARY_DIR}/python
            QT_SOURCE_DIR=${CMAKE_SOURCE_DIR} ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider
            ${CMAKE_SOURCE_DIR}/tests/python)
  set_tests_properties(python_module PROPERTIES LABELS render TIMEOUT 300
                       ENVIRONMENT "QT_GL_PLATFORM=egl")
  # The installed package, from a fresh prefix: headers, examples/ built against it, the module.
  # Not under the sanitizers: the examples are built plainly against the installed libraries.
  if(QT_INSTALL AND NOT QT_SANITIZE)
    add_test(NAME install_examples_python
      COMMAND ${CMAKE_SOURCE_DIR}/tests/tools/install_test.sh ${CMAKE_BINARY_DIR}
              ${CMAKE_SOURCE_DIR} ${Python3_EXECUTABLE} ${QT_PYTHON_INSTALL_DIR})
    set_tests_properties(install_examples_python PROPERTIES LABELS "install;render" TIMEOUT 600
                         ENVIRONMENT "QT_GL_PLATFORM=egl")
  endif()
endif()
