// The one include of the OpenGL 3.3 core loader (glad, generated into the build tree).
#pragma once

#include <glad/gl.h>
