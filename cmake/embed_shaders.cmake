# Writes OUT, a C++ source holding each of the SOURCES (GLSL files, ';'-separated) as a string
# found by file name (render/embedded_shaders.h). Run with cmake -P at build time.
set(body "")
foreach(path ${SOURCES})
  get_filename_component(name ${path} NAME)
  file(READ ${path} text)
  string(APPEND body "    {\"${name}\", R\"qtglsl(${text})qtglsl\"},\n")
endforeach()
file(WRITE ${OUT}.tmp "// Generated from shaders/ by cmake/embed_shaders.cmake: do not edit.
#include \"render/embedded_shaders.h\"

#include <cstring>

namespace qt {
namespace {

struct Embedded {
    const char* name;
    const char* source;
};

const Embedded kShaders[] = {
${body}};

}  // namespace

const char* embeddedShader(const std::string& fileName) {
    for (const Embedded& shader : kShaders) {
        if (fileName == shader.name) {
            return shader.source;
        }
    }
    return nullptr;
}

}  // namespace qt
")
configure_file(${OUT}.tmp ${OUT} COPYONLY)
file(REMOVE ${OUT}.tmp)
