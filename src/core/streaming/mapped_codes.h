// A .r16 file's codes as a read-only memory map: the map's samples without reading it whole.
#pragma once

#include <cstdint>
#include <string>

#include "core/base/result.h"
#include "core/terrain/code_array.h"

namespace qt {

// What identifies a version of a file: its length and last modification time.
struct FileStamp {
    uint64_t bytes = 0;
    int64_t mtimeNs = 0;  // nanoseconds since the epoch
};

struct MappedCodes {
    CodeArray codes;  // a view: codes[i] is the file's little-endian sample i
    FileStamp stamp;  // of the file mapped
};

// Whether codes can be mapped from a little-endian file as they are: on little-endian hosts.
bool canMapCodes();

// The file's stamp, or the problem with it (without the path).
Result<FileStamp> fileStamp(const std::string& path);

// A mapped file made shorter by another process (the map or its code cache truncated or rewritten
// in place while in use) raises SIGBUS at the next read of a page it lost, on whichever thread
// reads it. Installs, once per process, a handler that says so in one line on stderr and exits
// with status 1 rather than dying of the signal. Opt-in: a process-wide handler is the program's
// choice, not the library's; the viewer installs it at start, and nothing in the core does.
void guardMappedReads();

// Maps the whole file read-only, as the `(expectedBytes - headerBytes) / 2` codes that follow its
// first headerBytes; fails (one line, without the path) when it cannot be opened or mapped, when
// it is not a regular file (opened without blocking, so a FIFO is refused, never waited on), when
// its length is not `expectedBytes`, or on a big-endian host. headerBytes is a multiple of 2.
// Installs no signal handler (guardMappedReads is the caller's).
Result<MappedCodes> mapCodes(const std::string& path, uint64_t expectedBytes,
                             uint64_t headerBytes = 0);

// The same for a file already open (`fd`, which stays the caller's to close).
Result<MappedCodes> mapCodesOf(int fd, uint64_t expectedBytes, uint64_t headerBytes = 0);

}  // namespace qt
