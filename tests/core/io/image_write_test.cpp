// Whole-file writes: a file is replaced only once the new one is complete; a failed write leaves
// nothing partial and an existing file as it was; devices are written in place.
#include "core/io/image_write.h"

#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test_files.h"

namespace qt {
namespace {

using test::TempDir;

// The names in a folder, but for . and ..
std::vector<std::string> namesIn(const std::string& folder) {
    std::vector<std::string> names;
    if (DIR* dir = ::opendir(folder.c_str())) {
        while (const dirent* entry = ::readdir(dir)) {
            const std::string name = entry->d_name;
            if (name != "." && name != "..") {
                names.push_back(name);
            }
        }
        ::closedir(dir);
    }
    return names;
}

// writeFile in a child whose files may not grow past `limit` bytes (writes past it fail with
// EFBIG, SIGXFSZ ignored): its error line, or "" when it succeeded.
std::string writeLimited(const std::string& path, const std::vector<uint8_t>& bytes, rlim_t limit) {
    int pipeFds[2];
    if (::pipe(pipeFds) != 0) {
        return "no pipe";
    }
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(pipeFds[0]);
        std::signal(SIGXFSZ, SIG_IGN);
        const rlimit cap{limit, limit};
        ::setrlimit(RLIMIT_FSIZE, &cap);
        const Status written = writeFile(path, bytes.data(), bytes.size());
        const std::string line = written ? "" : written.error();
        const ssize_t sent = ::write(pipeFds[1], line.data(), line.size());
        ::_exit(sent == ssize_t(line.size()) ? 0 : 1);
    }
    ::close(pipeFds[1]);
    std::string line;
    char buffer[512];
    for (ssize_t n; (n = ::read(pipeFds[0], buffer, sizeof buffer)) > 0;) {
        line.append(buffer, size_t(n));
    }
    ::close(pipeFds[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    return line;
}

TEST(WriteFile, WritesNewFilesAndReplacesOldOnesWhole) {
    TempDir dir;
    const std::string path = dir.path("out.json");
    const std::vector<uint8_t> first(3000, 'a'), second(10, 'b');
    ASSERT_TRUE(writeFile(path, first.data(), first.size()).ok());
    EXPECT_EQ(test::readBytes(path), first);
    ASSERT_EQ(::chmod(path.c_str(), 0604), 0);
    ASSERT_TRUE(writeFile(path, second.data(), second.size()).ok());
    EXPECT_EQ(test::readBytes(path), second);
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0604u);  // the replaced file's permissions kept
    EXPECT_EQ(namesIn(dir.path("")), std::vector<std::string>{"out.json"});
    // Through a symbolic link: the file it names is replaced, the link stays a link.
    const std::string link = dir.path("link.json");
    ASSERT_EQ(::symlink("out.json", link.c_str()), 0);
    ASSERT_TRUE(writeFile(link, first.data(), first.size()).ok());
    EXPECT_EQ(test::readBytes(path), first);
    ASSERT_EQ(::lstat(link.c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode));
}

// A write that fails part way (a file size limit: EFBIG, as a full disk gives ENOSPC) says so in
// one line and leaves no file and no temporary; an existing file is untouched.
TEST(WriteFile, AFailedWriteLeavesNothingPartialAndTheOldFileAsItWas) {
    TempDir dir;
    const std::string path = dir.path("shot.png");
    const std::vector<uint8_t> big(100000, 'x');
    EXPECT_EQ(writeLimited(path, big, 4096), path + ": cannot write the file (File too large)");
    EXPECT_TRUE(namesIn(dir.path("")).empty());
    const std::vector<uint8_t> precious = {'p', 'r', 'e', 'c', 'i', 'o', 'u', 's'};
    test::writeBytes(path, precious);
    EXPECT_EQ(writeLimited(path, big, 4096), path + ": cannot write the file (File too large)");
    EXPECT_EQ(test::readBytes(path), precious);
    EXPECT_EQ(namesIn(dir.path("")), std::vector<std::string>{"shot.png"});
    EXPECT_EQ(writeLimited(path, std::vector<uint8_t>(100, 'y'), 4096), "");
    EXPECT_EQ(test::readBytes(path), std::vector<uint8_t>(100, 'y'));
}

// A file of someone else's at the temporary's name is neither used nor removed.
TEST(WriteFile, ATemporaryNameInUseIsPassedOver) {
    TempDir dir;
    const std::string path = dir.path("out.csv");
    const std::string taken = path + ".tmp" + std::to_string(::getpid());
    const std::vector<uint8_t> theirs = {'t', 'h', 'e', 'i', 'r', 's'}, ours(50, 'o');
    test::writeBytes(taken, theirs);
    ASSERT_TRUE(writeFile(path, ours.data(), ours.size()).ok());
    EXPECT_EQ(test::readBytes(path), ours);
    EXPECT_EQ(test::readBytes(taken), theirs);
    EXPECT_EQ(namesIn(dir.path("")).size(), 2u);
}

// What is not a regular file is written in place or refused as before: a device, a directory, a
// missing folder.
TEST(WriteFile, DevicesAreWrittenInPlaceAndOtherPathsRefusedInOneLine) {
    TempDir dir;
    const std::vector<uint8_t> bytes(10, 'z');
    ASSERT_TRUE(writeFile("/dev/null", bytes.data(), bytes.size()).ok());
    const Status full = writeFile("/dev/full", bytes.data(), bytes.size());
    ASSERT_FALSE(full.ok());
    EXPECT_EQ(full.error(), "/dev/full: cannot write the file (No space left on device)");
    const Status folder = writeFile(dir.path(""), bytes.data(), bytes.size());
    ASSERT_FALSE(folder.ok());
    EXPECT_EQ(folder.error(), dir.path("") + ": cannot create the file (Is a directory)");
    const Status missing = writeFile(dir.path("none/out\n.png"), bytes.data(), bytes.size());
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error(), dir.path("none/out\\x0a.png") +
                                   ": cannot create the file (No such file or directory)");
    EXPECT_TRUE(namesIn(dir.path("")).empty());
}

}  // namespace
}  // namespace qt
