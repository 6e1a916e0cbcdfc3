// The program's own files beside a user's (tree sidecars, code caches and their temporaries):
// which files are its own, and writing, replacing and removing only those.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/base/result.h"

namespace qt {

// The first bytes of every file of one kind that the program writes. A file is the program's own
// when it is a regular file that starts with them, whatever the version after them: an older
// version's sidecar is still the program's to rebuild, while a file that does not start so (a
// user's notes, an empty file) was never written by it.
struct FileMagic {
    char bytes[8];
    const char* kind;  // what such a file is, for messages
};
constexpr size_t kFileMagicBytes = sizeof(FileMagic::bytes);
constexpr FileMagic kTreeSidecarMagic{{'Q', 'T', 'S', 'I', 'D', 'E', 'C', 'R'}, "tree sidecar"};
constexpr FileMagic kCodeCacheMagic{{'Q', 'T', 'C', 'O', 'D', 'E', 'S', '\0'}, "code cache"};
constexpr FileMagic kNodataSidecarMagic{{'Q', 'T', 'N', 'O', 'D', 'A', 'T', 'A'}, "nodata sidecar"};

// What is at a path where the program keeps a file of its own.
struct PathClaim {
    enum Holds { Nothing, Ours, Other };
    Holds holds = Nothing;
    // For Other, what is there, without the path: "a directory", "a symbolic link", "not a regular
    // file", "not a quadterrain tree sidecar" (a file without the magic), "unreadable (...)".
    std::string why;
    bool nothing() const { return holds == Nothing; }
    bool ours() const { return holds == Ours; }
    bool other() const { return holds == Other; }
};

// Looks at `path` without following a symbolic link and without opening anything but a regular
// file (and that with O_NONBLOCK, so that a FIFO put in its place between the look and the open
// cannot block): Nothing when nothing is there, Ours for a regular file that starts with `magic`,
// Other for anything else, which the program leaves alone.
PathClaim claimPath(const std::string& path, const FileMagic& magic);

// Opens `path` read-only when claimPath finds it Ours (the claim in `claim`); -1 otherwise.
int openIfOurs(const std::string& path, const FileMagic& magic, PathClaim& claim);

// Removes `path` when it is Ours; false (and nothing removed) otherwise.
bool removeIfOurs(const std::string& path, const FileMagic& magic);

// The file a writer of `path` (a sidecar, a code cache) fills before renaming it into place:
// path + ".tmp" + this process's id, so that two processes never write the same one.
std::string temporaryPathFor(const std::string& path);

// Creates `path`'s temporary (temporaryPathFor) read-write, new (O_EXCL, never through a symbolic
// link), mode 0644 less the umask, with `magic` written at its start, so that from its first byte
// it is recognisably the program's own. A temporary of ours already at that name (left by a dead
// writer whose process id this one reuses) is replaced; anything else there is kept and the
// creation fails. Returns the descriptor, or one line without the path.
Result<int> createOwnTemporary(const std::string& path, const FileMagic& magic);

// Writes every byte at `offset` (pwrite, again after EINTR); false with errno set when it cannot.
bool writeAllAt(int fd, const void* data, size_t bytes, uint64_t offset);

// Renames a finished temporary onto `path` when what is at `path` is Nothing or Ours; when it is
// Nothing, without replacing a file made there meanwhile (RENAME_NOREPLACE where the file system
// has it). Fails with one line without the path, "left alone (WHY)" for an Other, and leaves the
// temporary to the caller.
Status replaceOwnFile(const std::string& temporary, const std::string& path,
                      const FileMagic& magic);

// Removes the temporary files of `path` (path.tmpPID) that are the program's own (they start with
// `magic`, as createOwnTemporary writes them) and that no running process writes: left when a
// writer was killed before it could rename or remove its file, and up to a map's size each. A
// file whose process still runs is left alone (a process reusing a dead writer's id keeps its
// file, erring on the side of keeping), and so is any file that is not the program's, whatever
// its name. With `keepOneAs`, the first such temporary found is renamed there instead (when
// nothing, or a file of the program's own of that kind, is there): what a killed writer of a
// resumable code cache wrote becomes its partial file. Returns how many were removed or kept.
int removeAbandonedTemporaries(const std::string& path, const FileMagic& magic,
                               const std::string& keepOneAs = {});

// Writes `count` bytes (starting with `magic`) to a temporary beside `path` and renames it over
// `path`, so that a reader sees the old file or the whole new one; a file at `path` that is not
// the program's own is left alone and the write fails. Fails with one line without the path.
Status writeOwnFile(const std::string& path, const FileMagic& magic, const unsigned char* bytes,
                    size_t count);

// Opens the regular file at `path` read-only, never through a symbolic link and without blocking
// (a FIFO there is refused, not waited on); its size in `bytes` when not null. Fails with one line
// without the path: "missing", "not a regular file", "unreadable: ...".
Result<int> openRegularFile(const std::string& path, uint64_t* bytes = nullptr);

// The bytes of the regular file at `path` (never through a symbolic link, never blocking on a
// FIFO), which must hold exactly `expected` bytes: its size is checked before anything is read or
// allocated. Fails with one line without the path: "missing", "truncated", "longer than
// expected", "not a regular file", "unreadable: ...".
Result<std::vector<unsigned char>> readFileOfSize(const std::string& path, uint64_t expected);

}  // namespace qt
