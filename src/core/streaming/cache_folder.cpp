// The cache folder's place and names, and making it on demand.
#include "core/streaming/cache_folder.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace qt {
namespace {

// FNV-1a over the path's bytes: the cache folder's names stay as they were for maps reached
// without symbolic links.
uint64_t pathHash(const std::string& text) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char c : text) {
        h = (h ^ uint64_t(static_cast<unsigned char>(c))) * 0x100000001b3ull;
    }
    return h;
}

std::string absoluteEnv(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && value[0] == '/' ? std::string(value) : std::string();
}

}  // namespace

std::string cacheFolder(const std::string& dir) {
    if (!dir.empty()) {
        return dir;
    }
    if (const std::string xdg = absoluteEnv("XDG_CACHE_HOME"); !xdg.empty()) {
        return xdg + "/quadterrain";
    }
    if (const std::string home = absoluteEnv("HOME"); !home.empty()) {
        return home + "/.cache/quadterrain";
    }
    return "";
}

std::string canonicalMapPath(const std::string& mapPath) {
    std::error_code error;
    const std::filesystem::path absolute = std::filesystem::absolute(mapPath, error);
    if (error) {
        return mapPath;
    }
    const std::filesystem::path canonical = std::filesystem::weakly_canonical(absolute, error);
    return (error ? absolute : canonical).lexically_normal().string();
}

std::string pathInCacheFolder(const std::string& folder, const std::string& mapPath,
                              const std::string& suffix) {
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx",
                  static_cast<unsigned long long>(pathHash(canonicalMapPath(mapPath))));
    const std::string name = std::filesystem::path(mapPath).filename().string();
    return folder + "/" + name + "." + hash + suffix;
}

std::vector<CachePlace> cachePlaces(const std::string& mapPath, const std::string& suffix,
                                    const std::string& dir, bool beside) {
    std::vector<CachePlace> places;
    const std::string folder = cacheFolder(dir);
    const CachePlace besideMap{mapPath + suffix, beside, false};
    if (beside) {
        places.push_back(besideMap);
    }
    if (!folder.empty()) {
        places.push_back({pathInCacheFolder(folder, mapPath, suffix), true, true});
    }
    if (!beside) {
        places.push_back(besideMap);
    }
    return places;
}

Status makeCacheFolder(const std::string& folder) {
    struct stat st {};
    if (::stat(folder.c_str(), &st) != 0) {
        // Missing parents first, each private to the user as the folder is.
        const std::string parent = std::filesystem::path(folder).parent_path().string();
        if (!parent.empty() && parent != folder && ::stat(parent.c_str(), &st) != 0) {
            if (Status made = makeCacheFolder(parent); !made) {
                return made;
            }
        }
        if (::mkdir(folder.c_str(), 0700) != 0 && errno != EEXIST) {
            return Status::failure(std::string("cannot be created (") + std::strerror(errno) + ")");
        }
        if (::stat(folder.c_str(), &st) != 0) {
            return Status::failure(std::string("cannot be created (") + std::strerror(errno) + ")");
        }
    }
    if (!S_ISDIR(st.st_mode)) {
        return Status::failure("is not a directory");
    }
    if (::access(folder.c_str(), W_OK | X_OK) != 0) {
        return Status::failure(std::string("is not writable (") + std::strerror(errno) + ")");
    }
    return {};
}

std::string scratchFolder() {
    const std::string tmp = absoluteEnv("TMPDIR");
    return tmp.empty() ? "/tmp" : tmp;
}

}  // namespace qt
