// Where a streamed map's own files go (its code cache, its tree sidecar): the cache folder by
// default, beside the map when asked, under names that two maps never share.
#pragma once

#include <string>
#include <vector>

#include "core/base/result.h"

namespace qt {

// The cache folder: `dir`, or for "" $XDG_CACHE_HOME/quadterrain, else $HOME/.cache/quadterrain
// ("" when neither is set to an absolute path).
std::string cacheFolder(const std::string& dir);

// The map's path made absolute, normal and free of symbolic links as far as it exists: the key a
// map's files in the cache folder are named by, so that one map reached by two paths shares them.
std::string canonicalMapPath(const std::string& mapPath);

// The path of a map's file in the cache folder `folder`: the map's file name, a hash of its
// canonical path and `suffix` (".qtree": "N47E009.tif.3fa2c1d04be8a917.qtree"), so that maps of
// one name in different folders never share one.
std::string pathInCacheFolder(const std::string& folder, const std::string& mapPath,
                              const std::string& suffix);

// A place where one of a map's own files may be.
struct CachePlace {
    std::string path;
    // Written (made, replaced) there; else only read, when the program's own and valid.
    bool writable = false;
    bool inCacheFolder = false;  // in the cache folder (made on demand), not beside the map
};

// The places of a map's file ending in `suffix`, in the order tried. By default the cache folder
// (writable), then beside the map (mapPath + suffix, read only: a file written there with
// --cache-beside, used when it is the program's own and valid, never written). With `beside`,
// beside the map, then the cache folder (both writable: the cache folder takes what the map's
// folder cannot). No cache folder place when cacheFolder(dir) is "".
std::vector<CachePlace> cachePlaces(const std::string& mapPath, const std::string& suffix,
                                    const std::string& dir, bool beside);

// Makes the cache folder `folder` when missing (its missing parents too, mode 0700) and checks
// that it is a folder this process may write in. Fails with one line without the path, to follow
// "cache folder": "cannot be created (...)", "is not a directory", "is not writable (...)".
Status makeCacheFolder(const std::string& folder);

// The folder of unnamed scratch files when no cache folder can take them: $TMPDIR, else /tmp.
std::string scratchFolder();

}  // namespace qt
