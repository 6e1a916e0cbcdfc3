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

// Text of several lines (a driver's compile log after a shader's name) as one line: each line's
// ends trimmed, empty lines dropped, the lines joined by "; " (by a space after a line that ends
// with a colon).
inline std::string joinedLines(const std::string& text) {
    std::string out;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find('\n', start);
        end = end == std::string::npos ? text.size() : end;
        size_t first = start, last = end;
        while (first < last && (text[first] == ' ' || text[first] == '\t' || text[first] == '\r'))
            ++first;
        while (last > first &&
               (text[last - 1] == ' ' || text[last - 1] == '\t' || text[last - 1] == '\r'))
            --last;
        if (first < last) {
            if (!out.empty())
                out += out.back() == ':' ? " " : "; ";
            out.append(text, first, last - first);
        }
        start = end + 1;
    }
    return out;
}

// A path as every message that names it prints it.
inline std::string escapedPath(const std::string& path) {
    return escapedText(path);
}

}  // namespace qt
