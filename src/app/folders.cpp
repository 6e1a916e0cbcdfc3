// The screenshot key's folder: the option, the XDG pictures folder, ~/Pictures or here.
#include "app/folders.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

namespace qt {

bool isDirectory(const std::string& path) {
    struct stat info;
    return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

namespace {

std::string environment(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

// XDG_PICTURES_DIR="..." in user-dirs.dirs, "$HOME" expanded; "" when absent.
std::string userDirsPictures(const std::string& home) {
    std::string config = environment("XDG_CONFIG_HOME");
    if (config.empty()) {
        config = home.empty() ? "" : home + "/.config";
    }
    if (config.empty()) {
        return "";
    }
    std::ifstream file(config + "/user-dirs.dirs");
    std::string line;
    const std::string key = "XDG_PICTURES_DIR=\"";
    while (std::getline(file, line)) {
        if (line.compare(0, key.size(), key) != 0 || line.size() < key.size() + 1 ||
            line.back() != '"') {
            continue;
        }
        std::string value = line.substr(key.size(), line.size() - key.size() - 1);
        if (value.compare(0, 5, "$HOME") == 0) {
            value = home + value.substr(5);
        }
        return value;
    }
    return "";
}

}  // namespace

std::string picturesFolder(const std::string& given) {
    if (!given.empty()) {
        return given;
    }
    const std::string home = environment("HOME");
    const std::string candidates[] = {environment("XDG_PICTURES_DIR"), userDirsPictures(home),
                                      home.empty() ? "" : home + "/Pictures"};
    for (const std::string& dir : candidates) {
        if (!dir.empty() && isDirectory(dir)) {
            return dir;
        }
    }
    return ".";
}

}  // namespace qt
