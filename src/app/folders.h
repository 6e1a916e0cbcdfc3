// Folders the viewer writes into: GL-free, so unit-tested.
#pragma once

#include <string>

namespace qt {

// Whether path is a folder (following links).
bool isDirectory(const std::string& path);

// Where the screenshot key saves: `given` (--screenshot-dir) when set; else $XDG_PICTURES_DIR;
// else XDG_PICTURES_DIR in $XDG_CONFIG_HOME/user-dirs.dirs (or ~/.config's), "$HOME/" expanded,
// as xdg-user-dirs writes it; else ~/Pictures; the first that is a folder, or "." (the current
// folder). The freedesktop.org file is a few lines of shell assignments: read here rather than
// through a library (no Debian package parses it for C++).
std::string picturesFolder(const std::string& given);

}  // namespace qt
