// Text for one-line messages: user-given strings (paths, arguments) with control bytes escaped, so
// that a newline in a file name cannot split an error over two lines.
#pragma once

#include <cstdio>
#include <string>

namespace qt {

// The text with every control byte (below 0x20, and 0x7F) written as \xNN; other bytes, UTF-8
// included, kept.
inline std::string escapedText(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (const unsigned char c : text) {
        if (c < 0x20 || c == 0x7F) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
            out += escaped;
        } else {
            out += char(c);
        }
    }
    return out;
}

// A path as every message that names it prints it.
inline std::string escapedPath(const std::string& path) {
    return escapedText(path);
}

}  // namespace qt
