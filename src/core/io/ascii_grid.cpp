// The text of an ESRI ASCII grid checked token by token, a chunk at a time, before GDAL reads it.
#include "core/io/ascii_grid.h"

#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <cpl_conv.h>
#include <cpl_vsi.h>

#include "core/base/text.h"

namespace qt {
namespace {

constexpr const char* kWhat = "ESRI ASCII grid: ";
// Tokens longer than this are not numbers GDAL reads (it stops at 498 characters).
constexpr size_t kMaxToken = 400;

// Bytes of the file through GDAL's file layer, a chunk at a time.
class TextReader {
public:
    explicit TextReader(const std::string& gdalPath)
        : file_(VSIFOpenL(gdalPath.c_str(), "rb")), chunk_(size_t(1) << 20) {}
    ~TextReader() {
        if (file_ != nullptr) {
            VSIFCloseL(file_);
        }
    }
    TextReader(const TextReader&) = delete;
    TextReader& operator=(const TextReader&) = delete;

    bool opened() const { return file_ != nullptr; }

    // The next byte, or -1 at the end.
    int next() {
        if (at_ == size_) {
            size_ = VSIFReadL(chunk_.data(), 1, chunk_.size(), file_);
            at_ = 0;
            if (size_ == 0) {
                return -1;
            }
        }
        return static_cast<unsigned char>(chunk_[at_++]);
    }
    // The next byte, left to be read again.
    int peek() {
        const int c = next();
        if (c >= 0) {
            --at_;
        }
        return c;
    }

private:
    VSILFILE* file_;
    std::vector<char> chunk_;
    size_t size_ = 0;
    size_t at_ = 0;
};

bool isSpace(int c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::string shown(const std::string& token) {
    const std::string text = escapedText(token.size() > 40 ? token.substr(0, 37) + "..." : token);
    return "'" + text + "'";
}

bool equalsIgnoringCase(const char* a, const char* b) {
    for (; *a != 0 && *b != 0; ++a, ++b) {
        if (std::tolower(static_cast<unsigned char>(*a)) !=
            std::tolower(static_cast<unsigned char>(*b))) {
            return false;
        }
    }
    return *a == *b;
}

enum class Kind { Bad, Whole, Decimal, Special };

// What a token is: [+-]digits (Whole); [+-] digits with one '.' or ',' and an exponent
// (Decimal); [+-]nan, inf or infinity in any case, or "null" (Special); else Bad.
Kind kindOf(const std::string& t, bool& exponent) {
    exponent = false;
    size_t i = t.size() > 0 && (t[0] == '+' || t[0] == '-') ? 1 : 0;
    const char* rest = t.c_str() + i;
    if (t == "null") {
        return Kind::Special;
    }
    if (equalsIgnoringCase(rest, "nan") || equalsIgnoringCase(rest, "inf") ||
        equalsIgnoringCase(rest, "infinity")) {
        return Kind::Special;
    }
    size_t digits = 0;
    bool point = false;
    for (; i < t.size(); ++i) {
        const char c = t[i];
        if (c >= '0' && c <= '9') {
            ++digits;
        } else if ((c == '.' || c == ',') && !point) {
            point = true;
        } else {
            break;
        }
    }
    if (digits == 0) {
        return Kind::Bad;
    }
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
        exponent = true;
        ++i;
        if (i < t.size() && (t[i] == '+' || t[i] == '-')) {
            ++i;
        }
        const size_t start = i;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
            ++i;
        }
        if (i == start) {
            return Kind::Bad;
        }
        point = true;
    }
    if (i != t.size()) {
        return Kind::Bad;
    }
    return point ? Kind::Decimal : Kind::Whole;
}

// Whether a whole-number token is within 32-bit integers (atoi's range).
bool fitsInt32(const std::string& t) {
    const bool negative = !t.empty() && t[0] == '-';
    size_t i = !t.empty() && (t[0] == '+' || t[0] == '-') ? 1 : 0;
    while (i + 1 < t.size() && t[i] == '0') {
        ++i;
    }
    const std::string digits = t.substr(i);
    const std::string limit = negative ? "2147483648" : "2147483647";
    return digits.size() < limit.size() || (digits.size() == limit.size() && digits <= limit);
}

// The header's names GDAL reads; every other line before the samples is refused.
bool knownName(const std::string& name) {
    for (const char* known : {"ncols", "nrows", "xllcorner", "yllcorner", "xllcenter", "yllcenter",
                              "cellsize", "dx", "dy", "nodata_value"}) {
        if (equalsIgnoringCase(name.c_str(), known)) {
            return true;
        }
    }
    return false;
}

}  // namespace

uint64_t asciiGridLeastBytes(int width, int height) {
    return 2 * uint64_t(width) * uint64_t(height) - 1;
}

Status checkAsciiGrid(const std::string& gdalPath, int width, int height, bool integers) {
    auto fail = [](const std::string& problem) {
        return Status::failure(std::string(kWhat) + problem);
    };
    TextReader text(gdalPath);
    if (!text.opened()) {
        return fail("cannot open the text");
    }
    // The header: lines that start with a letter, as GDAL finds where the samples start (a line
    // that starts with D12's "null " holds samples).
    std::string nodata;
    std::string firstSamples;  // a line of samples read while looking for the header's end
    for (;;) {
        int c = text.peek();
        while (c == '\n' || c == '\r') {
            text.next();
            c = text.peek();
        }
        if (c < 0 || !std::isalpha(c)) {
            break;
        }
        std::string line;
        while ((c = text.next()) >= 0 && c != '\n' && c != '\r') {
            if (line.size() <= kMaxToken) {
                line += char(c);
            }
            if (line == "null ") {
                break;  // samples: the rest of the line is read as samples
            }
        }
        if (line == "null ") {
            firstSamples = line;
            break;
        }
        std::vector<std::string> words;
        for (size_t at = 0; at < line.size();) {
            while (at < line.size() && isSpace(line[at])) {
                ++at;
            }
            const size_t start = at;
            while (at < line.size() && !isSpace(line[at])) {
                ++at;
            }
            if (at > start) {
                words.push_back(line.substr(start, at - start));
            }
        }
        if (words.size() != 2 || !knownName(words[0])) {
            return fail("header line " + shown(line) +
                        " is not a name GDAL reads (ncols, nrows, xllcorner, yllcorner, "
                        "xllcenter, yllcenter, cellsize, dx, dy, NODATA_value) and its value");
        }
        bool exponent = false;
        const Kind kind = kindOf(words[1], exponent);
        const bool count = equalsIgnoringCase(words[0].c_str(), "ncols") ||
                           equalsIgnoringCase(words[0].c_str(), "nrows");
        const bool isNodata = equalsIgnoringCase(words[0].c_str(), "nodata_value");
        const bool fits = count ? kind == Kind::Whole && words[1][0] != '-'
                                : kind == Kind::Whole || kind == Kind::Decimal ||
                                      (isNodata && kind == Kind::Special);
        if (!fits) {
            return fail("header line " + shown(line) + " does not end in " +
                        (count ? "a whole number" : "a number"));
        }
        if (isNodata) {
            nodata = words[1];
        }
    }
    const bool hasNodataValue = !nodata.empty() && nodata != "null";
    const double nodataValue = hasNodataValue ? CPLAtofM(nodata.c_str()) : 0.0;
    // The samples, whitespace apart.
    const uint64_t expected = uint64_t(width) * uint64_t(height);
    uint64_t index = 0;
    std::string token;
    size_t pending = 0;  // the next byte of firstSamples
    auto next = [&] {
        return pending < firstSamples.size()
                   ? int(static_cast<unsigned char>(firstSamples[pending++]))
                   : text.next();
    };
    for (;;) {
        int c = next();
        while (c >= 0 && isSpace(c)) {
            c = next();
        }
        if (c < 0) {
            break;
        }
        token.clear();
        while (c >= 0 && !isSpace(c)) {
            if (token.size() <= kMaxToken) {
                token += char(c);
            }
            c = next();
        }
        if (index == expected) {
            return fail("the text holds more than the " + std::to_string(width) + "x" +
                        std::to_string(height) + " samples its header gives");
        }
        const std::string where = "row " + std::to_string(index / uint64_t(width) + 1) +
                                  ", column " + std::to_string(index % uint64_t(width) + 1);
        bool exponent = false;
        const Kind kind = token.size() > kMaxToken ? Kind::Bad : kindOf(token, exponent);
        if (kind == Kind::Bad) {
            return fail(where + " holds " + shown(token) + ", not a number");
        }
        if (integers && kind != Kind::Whole) {
            return fail(where + " holds " + shown(token) +
                        ", not a whole number as GDAL reads this grid (it would read 0)");
        }
        if (integers && !fitsInt32(token)) {
            return fail(where + " holds " + shown(token) +
                        ", beyond 32-bit integers (GDAL reads this grid as integers)");
        }
        if (!integers && kind != Kind::Special && (exponent || token.size() > 38)) {
            // Float's range: GDAL would make the sample infinite, a void.
            const double value = CPLAtofM(token.c_str());
            if (!(std::fabs(value) <= double(std::numeric_limits<float>::max())) &&
                !(hasNodataValue && value == nodataValue)) {
                return fail(where + " holds " + shown(token) + ", beyond a float's range");
            }
        }
        ++index;
    }
    if (index != expected) {
        return fail("truncated: the text holds " + std::to_string(index) + " of the " +
                    std::to_string(width) + "x" + std::to_string(height) + " samples");
    }
    return {};
}

}  // namespace qt
