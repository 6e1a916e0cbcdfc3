// Resource lookup: the executable's directory (shaders are copied there) and QT_SOURCE_DIR.
#include "app/resources.h"

#include <unistd.h>

#include <climits>

#include "app/folders.h"
#include "qt_source_paths.h"

namespace qt {

namespace {

std::string executableDir() {
    char buffer[PATH_MAX];
    const ssize_t length = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
    if (length <= 0) {
        return "";
    }
    const std::string path(buffer, size_t(length));
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? "" : path.substr(0, slash);
}

}  // namespace

std::string findResourceDir(const std::string& name) {
    const std::string candidates[] = {executableDir() + "/" + name,
                                      std::string(QT_SOURCE_DIR) + "/" + name};
    for (const std::string& dir : candidates) {
        if (isDirectory(dir)) {
            return dir;
        }
    }
    return "";
}

std::string defaultHeightmapPath() {
    const std::string dir = findResourceDir("data");
    return (dir.empty() ? std::string(QT_SOURCE_DIR) + "/data" : dir) + "/default_1025.png";
}

}  // namespace qt
