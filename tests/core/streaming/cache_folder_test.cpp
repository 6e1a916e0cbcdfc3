// The cache folder: where it is by the environment, names that two maps never share, and making
// it on demand.
#include "core/streaming/cache_folder.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "test_files.h"

namespace qt {
namespace {

using test::TempDir;

// Sets an environment variable (unsets it for nullopt) for the scope, then puts it back.
class ScopedEnv {
public:
    ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
        if (const char* old = std::getenv(name)) {
            old_ = old;
        }
        value ? ::setenv(name, value->c_str(), 1) : ::unsetenv(name);
    }
    ~ScopedEnv() { old_ ? ::setenv(name_, old_->c_str(), 1) : ::unsetenv(name_); }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

TEST(CacheFolder, FromTheOptionThenXdgCacheHomeThenHome) {
    EXPECT_EQ(cacheFolder("/given"), "/given");
    {
        const ScopedEnv xdg("XDG_CACHE_HOME", std::string("/x/cache"));
        const ScopedEnv home("HOME", std::string("/home/u"));
        EXPECT_EQ(cacheFolder(""), "/x/cache/quadterrain");
    }
    {
        // A relative XDG_CACHE_HOME is ignored, as the XDG base directory specification says.
        const ScopedEnv xdg("XDG_CACHE_HOME", std::string("relative"));
        const ScopedEnv home("HOME", std::string("/home/u"));
        EXPECT_EQ(cacheFolder(""), "/home/u/.cache/quadterrain");
    }
    {
        const ScopedEnv xdg("XDG_CACHE_HOME", std::nullopt);
        const ScopedEnv home("HOME", std::nullopt);
        EXPECT_EQ(cacheFolder(""), "");
        EXPECT_EQ(cachePlaces("/maps/m.tif", ".qtcodes", "", false).size(), 1u);
    }
}

TEST(CacheFolder, NamesDifferForMapsOfOneNameAndAgreeForOneMapByTwoPaths) {
    TempDir dir;
    ASSERT_EQ(::mkdir(dir.path("a").c_str(), 0755), 0);
    ASSERT_EQ(::mkdir(dir.path("b").c_str(), 0755), 0);
    test::writeBytes(dir.path("a/m.tif"), {1});
    test::writeBytes(dir.path("b/m.tif"), {2});
    ASSERT_EQ(::symlink(dir.path("a").c_str(), dir.path("link").c_str()), 0);
    const std::string a = pathInCacheFolder("/c", dir.path("a/m.tif"), ".qtree");
    const std::string b = pathInCacheFolder("/c", dir.path("b/m.tif"), ".qtree");
    EXPECT_NE(a, b);
    EXPECT_EQ(a.rfind("/c/m.tif.", 0), 0u) << a;
    EXPECT_EQ(a.size(), std::string("/c/m.tif.").size() + 16 + std::string(".qtree").size());
    EXPECT_EQ(pathInCacheFolder("/c", dir.path("link/m.tif"), ".qtree"), a);
    EXPECT_EQ(pathInCacheFolder("/c", dir.path("b/../a/m.tif"), ".qtree"), a);
}

TEST(CacheFolder, PlacesInTheOrderTried) {
    const std::vector<CachePlace> byDefault = cachePlaces("/maps/m.r16", ".qtree", "/c", false);
    ASSERT_EQ(byDefault.size(), 2u);
    EXPECT_EQ(byDefault[0].path, pathInCacheFolder("/c", "/maps/m.r16", ".qtree"));
    EXPECT_TRUE(byDefault[0].writable && byDefault[0].inCacheFolder);
    EXPECT_EQ(byDefault[1].path, "/maps/m.r16.qtree");
    EXPECT_FALSE(byDefault[1].writable);
    const std::vector<CachePlace> beside = cachePlaces("/maps/m.r16", ".qtree", "/c", true);
    ASSERT_EQ(beside.size(), 2u);
    EXPECT_EQ(beside[0].path, "/maps/m.r16.qtree");
    EXPECT_TRUE(beside[0].writable && !beside[0].inCacheFolder);
    EXPECT_TRUE(beside[1].writable && beside[1].inCacheFolder);
}

TEST(CacheFolder, MadeOnDemandPrivateOrOneLine) {
    TempDir dir;
    const std::string folder = dir.path("x/y/quadterrain");
    ASSERT_TRUE(makeCacheFolder(folder).ok());
    struct stat st {};
    ASSERT_EQ(::stat(folder.c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    EXPECT_TRUE(makeCacheFolder(folder).ok());  // already there
    test::writeBytes(dir.path("file"), {'x'});
    EXPECT_EQ(makeCacheFolder(dir.path("file")).error(), "is not a directory");
    EXPECT_EQ(makeCacheFolder(dir.path("file/quadterrain")).error(),
              "cannot be created (Not a directory)");
}

}  // namespace
}  // namespace qt
