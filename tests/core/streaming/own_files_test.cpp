// The program's own files: what a path holds (nothing, a file of its own, anything else), and that
// only its own are replaced or removed, whatever else sits at their paths (never opened so that a
// FIFO could block).
#include "core/streaming/own_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test_files.h"

namespace qt {
namespace {

using test::TempDir;

std::vector<uint8_t> ownBytes(const FileMagic& magic, const std::vector<uint8_t>& after = {9, 9}) {
    std::vector<uint8_t> bytes;
    for (const char c : magic.bytes) {
        bytes.push_back(uint8_t(c));
    }
    for (const uint8_t b : after) {
        bytes.push_back(b);
    }
    return bytes;
}

const std::vector<uint8_t> kNotes = {'n', 'o', 't', 'e', 's', '\n'};

// Fails the test (by SIGALRM) rather than hanging it, should anything open a FIFO and block.
struct NoHang {
    NoHang() { ::alarm(60); }
    ~NoHang() { ::alarm(0); }
};

std::string linkTarget(const std::string& path) {
    char target[4096] = {};
    const ssize_t n = ::readlink(path.c_str(), target, sizeof target - 1);
    return n < 0 ? "" : std::string(target, size_t(n));
}

// Everything that can sit at a path the program writes, made in `dir`; `check` says it is still
// there as it was.
struct Occupant {
    std::string name;
    std::string why;  // what claimPath says is there
    std::function<void(const std::string&)> make;
    std::function<void(const std::string&)> check;
};

std::vector<Occupant> occupants(const TempDir& dir) {
    const std::string ours = dir.path("real.qtree");
    test::writeBytes(ours, ownBytes(kTreeSidecarMagic));
    const auto keepsBytes = [](std::vector<uint8_t> bytes) {
        return [bytes](const std::string& path) {
            struct stat st {};
            ASSERT_EQ(::lstat(path.c_str(), &st), 0) << path;
            EXPECT_TRUE(S_ISREG(st.st_mode)) << path;
            EXPECT_EQ(test::readBytes(path), bytes) << path;
        };
    };
    const auto isA = [](mode_t type) {
        return [type](const std::string& path) {
            struct stat st {};
            ASSERT_EQ(::lstat(path.c_str(), &st), 0) << path;
            EXPECT_EQ(st.st_mode & S_IFMT, type) << path;
        };
    };
    const auto linksTo = [](std::string target) {
        return [target](const std::string& path) { EXPECT_EQ(linkTarget(path), target) << path; };
    };
    const std::vector<uint8_t> foreignMagic = {'Q', 'T', 'C', 'O', 'D', 'E', 'S', '\0', 1};
    return {
        {"notes", "not a quadterrain tree sidecar",
         [](const std::string& p) { test::writeBytes(p, kNotes); }, keepsBytes(kNotes)},
        {"read-only notes", "not a quadterrain tree sidecar",
         [](const std::string& p) {
             test::writeBytes(p, kNotes);
             ASSERT_EQ(::chmod(p.c_str(), 0444), 0);
         },
         [keepsBytes](const std::string& p) {
             keepsBytes(kNotes)(p);
             struct stat st {};
             ASSERT_EQ(::stat(p.c_str(), &st), 0);
             EXPECT_EQ(st.st_mode & 0777, 0444u);
         }},
        {"empty file", "not a quadterrain tree sidecar",
         [](const std::string& p) { test::writeBytes(p, {}); }, keepsBytes({})},
        {"the magic's first half", "not a quadterrain tree sidecar",
         [](const std::string& p) {
             test::writeBytes(p, {'Q', 'T', 'S', 'I'});
         },
         keepsBytes({'Q', 'T', 'S', 'I'})},
        {"another kind of the program's files", "not a quadterrain tree sidecar",
         [foreignMagic](const std::string& p) { test::writeBytes(p, foreignMagic); },
         keepsBytes(foreignMagic)},
        {"directory", "a directory",
         [](const std::string& p) { ASSERT_EQ(::mkdir(p.c_str(), 0755), 0); }, isA(S_IFDIR)},
        {"FIFO", "not a regular file",
         [](const std::string& p) { ASSERT_EQ(::mkfifo(p.c_str(), 0644), 0); }, isA(S_IFIFO)},
        {"link to a file of the program's", "a symbolic link",
         [ours](const std::string& p) { ASSERT_EQ(::symlink(ours.c_str(), p.c_str()), 0); },
         linksTo(ours)},
        {"link to nothing", "a symbolic link",
         [](const std::string& p) { ASSERT_EQ(::symlink("nowhere", p.c_str()), 0); },
         linksTo("nowhere")},
    };
}

TEST(OwnFiles, ClaimSaysWhatIsThere) {
    const NoHang noHang;
    TempDir dir;
    const std::string path = dir.path("m.r16.qtree");
    EXPECT_TRUE(claimPath(path, kTreeSidecarMagic).nothing());
    EXPECT_TRUE(claimPath(dir.path("no folder/m.qtree"), kTreeSidecarMagic).nothing());
    test::writeBytes(dir.path("file"), kNotes);
    EXPECT_TRUE(claimPath(dir.path("file/m.qtree"), kTreeSidecarMagic).nothing());
    // Its own, of any version and any length after the magic.
    test::writeBytes(path, ownBytes(kTreeSidecarMagic));
    EXPECT_TRUE(claimPath(path, kTreeSidecarMagic).ours());
    test::writeBytes(path, ownBytes(kTreeSidecarMagic, {}));
    EXPECT_TRUE(claimPath(path, kTreeSidecarMagic).ours());
    ASSERT_EQ(::unlink(path.c_str()), 0);
    for (const Occupant& o : occupants(dir)) {
        SCOPED_TRACE(o.name);
        o.make(path);
        const PathClaim claim = claimPath(path, kTreeSidecarMagic);
        EXPECT_TRUE(claim.other());
        EXPECT_EQ(claim.why, o.why);
        o.check(path);
        ASSERT_EQ(std::system(("rm -rf '" + path + "'").c_str()), 0);
    }
}

TEST(OwnFiles, OnlyItsOwnFilesAreReplacedOrRemoved) {
    const NoHang noHang;
    TempDir dir;
    const std::string path = dir.path("m.r16.qtree");
    const auto temporary = [&] {
        const Result<int> fd = createOwnTemporary(path, kTreeSidecarMagic);
        EXPECT_TRUE(fd.ok()) << fd.error();
        if (fd.ok()) {
            ::close(fd.value());
        }
        EXPECT_EQ(test::readBytes(temporaryPathFor(path)), ownBytes(kTreeSidecarMagic, {}));
        return temporaryPathFor(path);
    };
    // Nothing there, then its own: placed.
    ASSERT_TRUE(replaceOwnFile(temporary(), path, kTreeSidecarMagic).ok());
    EXPECT_TRUE(claimPath(path, kTreeSidecarMagic).ours());
    ASSERT_TRUE(replaceOwnFile(temporary(), path, kTreeSidecarMagic).ok());
    EXPECT_EQ(::access(temporaryPathFor(path).c_str(), F_OK), -1);
    EXPECT_TRUE(removeIfOurs(path, kTreeSidecarMagic));
    EXPECT_FALSE(removeIfOurs(path, kTreeSidecarMagic));
    for (const Occupant& o : occupants(dir)) {
        SCOPED_TRACE(o.name);
        o.make(path);
        const std::string made = temporary();
        const Status placed = replaceOwnFile(made, path, kTreeSidecarMagic);
        ASSERT_FALSE(placed.ok());
        EXPECT_EQ(placed.error(), "left alone (" + o.why + ")");
        EXPECT_EQ(::access(made.c_str(), F_OK), 0);  // the caller's to remove
        ASSERT_EQ(::unlink(made.c_str()), 0);
        EXPECT_FALSE(removeIfOurs(path, kTreeSidecarMagic));
        o.check(path);
        // At the temporary's own name too: not taken over, the creation fails.
        o.make(temporaryPathFor(path));
        const Result<int> blocked = createOwnTemporary(path, kTreeSidecarMagic);
        ASSERT_FALSE(blocked.ok());
        EXPECT_EQ(blocked.error(), "cannot create: File exists");
        o.check(temporaryPathFor(path));
        ASSERT_EQ(std::system(("rm -rf '" + path + "' '" + temporaryPathFor(path) + "'").c_str()),
                  0);
    }
    // A temporary of its own left at its name (a dead writer whose id this process has) is
    // taken over.
    test::writeBytes(temporaryPathFor(path), ownBytes(kTreeSidecarMagic, {1, 2, 3, 4}));
    ASSERT_TRUE(replaceOwnFile(temporary(), path, kTreeSidecarMagic).ok());
}

}  // namespace
}  // namespace qt
