// Finds shaders/ and data/: next to the executable first, then in the source tree.
#pragma once

#include <string>

namespace qt {

// The directory holding `name` (e.g. "shaders"), or "" when neither place has it.
std::string findResourceDir(const std::string& name);

// data/default_1025.png wherever data/ is; a path that names the missing file otherwise.
std::string defaultHeightmapPath();

}  // namespace qt
