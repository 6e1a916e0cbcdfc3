// Where the shared real heightmaps are: tests and benchmarks on real maps look for them there and
// skip, saying so, where they are absent.
#pragma once

#include <cstdlib>
#include <string>

#include "qt_source_paths.h"

namespace qt::test {

// $QT_SHARED_HEIGHTMAPS when set, else the folder CMake's QT_SHARED_HEIGHTMAPS names
// (../shared/heightmaps beside the checkout, or beside the checkout a local clone was made from,
// unless configured otherwise).
inline std::string sharedHeightmapsFolder() {
    const char* set = std::getenv("QT_SHARED_HEIGHTMAPS");
    return set != nullptr && *set != '\0' ? std::string(set) : std::string(QT_SHARED_HEIGHTMAPS);
}

}  // namespace qt::test
