// Every file GDAL would open for a raster, checked before it opens one: regular files only, the
// map's sidecars and a VRT's sources (read from its XML) included.
#include "core/io/gdal_inputs.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_minixml.h>
#include <cpl_string.h>
#include <cpl_vsi.h>
#include <cpl_vsi_error.h>

#include "core/base/text.h"

namespace qt {
namespace {

bool startsWith(const std::string& s, const char* prefix) {
    return s.compare(0, std::strlen(prefix), prefix) == 0;
}

std::string lowerCase(std::string s) {
    for (char& c : s) {
        c = char(std::tolower(static_cast<unsigned char>(c)));
    }
    return s;
}

// GDAL's network file systems: a path in one of them is read over the network.
constexpr const char* kNetworkPrefixes[] = {"/vsicurl/", "/vsis3/", "/vsigs/", "/vsiaz/",
                                            "/vsiadls/"};

bool isUrl(const std::string& path) {
    const std::string lower = lowerCase(path.substr(0, 8));
    return startsWith(lower, "http://") || startsWith(lower, "https://");
}

// Why GDAL found a network path missing, from the error its stat set: "HTTP 404", or curl's
// line ("CURL error: Failed to connect to ...").
std::string serverProblem() {
    std::string why = VSIGetLastErrorMsg();
    if (why.empty()) {
        why = CPLGetLastErrorMsg();
    }
    // GDAL's "HTTP response code on URL: N": the URL is already the line's own.
    const size_t colon = why.rfind(": ");
    if (why.compare(0, 18, "HTTP response code") == 0 && colon != std::string::npos) {
        return "HTTP " + escapedText(why.substr(colon + 2));
    }
    return why.empty() ? "not found" : escapedText(why);
}

// The real file a GDAL path reads: the path itself, or the archive or gzip file under a /vsizip/,
// /vsitar/ or /vsigzip/ path; "" for a /vsimem/ path (memory: nothing to check). Fails for the
// other virtual file systems (standard input and the rest; the network's are checked apart) and
// for one nested in another.
Result<std::string> realFile(const std::string& gdalPath) {
    using R = Result<std::string>;
    if (startsWith(gdalPath, "/vsimem/")) {
        return std::string();
    }
    for (const char* prefix : {"/vsigzip/", "/vsizip/", "/vsitar/"}) {
        if (!startsWith(gdalPath, prefix)) {
            continue;
        }
        const std::string rest = gdalPath.substr(std::strlen(prefix));
        if (startsWith(rest, "/vsimem/")) {
            return std::string();
        }
        if (startsWith(rest, "/vsi")) {
            return R::failure("reads one GDAL virtual file system through another");
        }
        if (!rest.empty() && rest[0] == '{') {  // /vsizip/{archive}/member
            const size_t close = rest.find('}');
            return close == std::string::npos ? R::failure("has an unclosed { in its path")
                                              : R(rest.substr(1, close - 1));
        }
        if (std::strcmp(prefix, "/vsigzip/") == 0) {
            return rest;
        }
        // The archive is the first part of the path that is not a folder.
        for (size_t slash = rest.find('/', 1); slash != std::string::npos;
             slash = rest.find('/', slash + 1)) {
            const std::string part = rest.substr(0, slash);
            struct stat st {};
            if (::stat(part.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
                return part;
            }
        }
        return rest;
    }
    if (startsWith(gdalPath, "/vsi")) {
        const size_t end = gdalPath.find('/', 1);
        return R::failure("is read through GDAL's " + escapedText(gdalPath.substr(0, end + 1)) +
                          ", which quadterrain does not follow (files and network paths only)");
    }
    return gdalPath;
}

// The first bytes of a file through GDAL's own reader (it reads /vsigzip/ and /vsimem/ paths);
// at most `limit`, and `whole` says whether that was all of it.
std::string readStart(const std::string& gdalPath, size_t limit, bool& whole) {
    std::string text;
    whole = false;
    VSILFILE* file = VSIFOpenL(gdalPath.c_str(), "rb");
    if (file == nullptr) {
        return text;
    }
    std::vector<char> chunk(size_t(1) << 16);
    while (text.size() < limit) {
        const size_t want = std::min(chunk.size(), limit - text.size());
        const size_t got = VSIFReadL(chunk.data(), 1, want, file);
        text.append(chunk.data(), got);
        if (got < want) {
            whole = true;
            break;
        }
    }
    if (!whole) {  // exactly `limit` read: one more byte says whether there is more
        char extra = 0;
        whole = VSIFReadL(&extra, 1, 1, file) == 0;
    }
    VSIFCloseL(file);
    return text;
}

// GDAL takes a file for a VRT when "<VRTDataset" is in its first 1024 bytes (VRTDataset::Identify).
bool looksLikeVrt(const std::string& start) {
    const std::string head = start.substr(0, std::min<size_t>(start.size(), 1024));
    return std::strstr(head.c_str(), "<VRTDataset") != nullptr;
}

struct XmlFree {
    void operator()(CPLXMLNode* node) const { CPLDestroyXMLNode(node); }
};
using XmlTree = std::unique_ptr<CPLXMLNode, XmlFree>;

// The text of an element or attribute node; "" when it has none.
const char* nodeText(const CPLXMLNode* node) {
    for (const CPLXMLNode* child = node->psChild; child != nullptr; child = child->psNext) {
        if (child->eType == CXT_Text && child->pszValue != nullptr) {
            return child->pszValue;
        }
    }
    return "";
}

// The value of an element's attribute, or nullptr (names compared as GDAL does, ignoring case).
const char* attribute(const CPLXMLNode* element, const char* name) {
    for (const CPLXMLNode* child = element->psChild; child != nullptr; child = child->psNext) {
        if (child->eType == CXT_Attribute && EQUAL(child->pszValue, name)) {
            return nodeText(child);
        }
    }
    return nullptr;
}

class InputCheck {
public:
    Status map(const std::string& gdalPath) {
        Result<bool> exists = file(gdalPath, 0, "", false);
        if (!exists) {
            return Status::failure(exists.error());
        }
        return exists.value() ? Status() : Status::failure(missing_);
    }

private:
    // Checks a file GDAL opens (`what` names it in the line: "" for the map, "VRT source PATH"
    // for others); false when it does not exist.
    Result<bool> file(const std::string& gdalPath, int depth, const std::string& what,
                      bool fromNetwork) {
        using R = Result<bool>;
        const bool network = isNetworkPath(gdalPath);
        if (isUrl(gdalPath)) {  // GDAL's HTTP driver would download it whole into memory
            return R::failure(what + " is a URL without /vsicurl/ (GDAL would read it whole)");
        }
        if (fromNetwork && !network) {
            return R::failure(what + " is a local file, named by a VRT read over the network");
        }
        std::string key = gdalPath;
        if (network) {
            // GDAL's stat of a network path asks the server (a HEAD or a ranged GET) and sets
            // the error that says why one is missing: the HTTP status, or curl's line. GDAL
            // keeps what it learnt of a URL: a miss is asked again past that, so that the line
            // is this answer's and a server back up is seen.
            VSIStatBufL st{};
            CPLPushErrorHandler(CPLQuietErrorHandler);  // the line below says it
            int failed = VSIStatExL(gdalPath.c_str(), &st, VSI_STAT_EXISTS_FLAG);
            if (failed != 0) {
                VSICurlPartialClearCache(gdalPath.c_str());
                CPLErrorReset();
                VSIErrorReset();
                failed = VSIStatExL(gdalPath.c_str(), &st,
                                    VSI_STAT_EXISTS_FLAG | VSI_STAT_SET_ERROR_FLAG);
            }
            CPLPopErrorHandler();
            if (failed != 0) {
                missing_ = "cannot be read from its server: " + serverProblem();
                return false;
            }
            if (VSI_ISDIR(st.st_mode)) {
                return R::failure(what.empty() ? "is a directory, not a heightmap file"
                                               : what + " is a directory");
            }
        } else {
            // A file is known by its device and inode when GDAL reads it directly (however the
            // VRTs spell its path), else by its GDAL path.
            const Result<std::string> real = realFile(gdalPath);
            if (!real) {
                return R::failure(what.empty() ? real.error() : what + " " + real.error());
            }
            if (!real.value().empty()) {
                struct stat st {};
                if (::stat(real.value().c_str(), &st) != 0) {
                    if (errno == ENOENT || errno == ENOTDIR) {
                        missing_ = "no such file";
                        return false;
                    }
                    return R::failure((what.empty() ? "" : what + ": ") + std::strerror(errno));
                }
                if (S_ISDIR(st.st_mode)) {
                    return R::failure(what.empty() ? "is a directory, not a heightmap file"
                                                   : what + " is a directory");
                }
                if (!S_ISREG(st.st_mode)) {
                    return R::failure(what.empty() ? "not a regular file"
                                                   : what + " is not a regular file");
                }
                if (real.value() == gdalPath) {
                    key = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
                }
                if (checked_.count(key) == 0 && open_.count(key) == 0) {
                    if (Status sidecars = checkSidecars(real.value()); !sidecars) {
                        return R::failure(sidecars.error());
                    }
                }
            }
        }
        if (checked_.count(key) != 0) {
            return true;
        }
        if (!open_.insert(key).second) {
            return R::failure(what + " is a VRT that names itself, directly or through others");
        }
        if (Status sources = vrtSources(gdalPath, depth, network); !sources) {
            return R::failure(sources.error());
        }
        open_.erase(key);
        checked_.insert(key);
        return true;
    }

    // The entries of a folder that a read would wait on or never finish: FIFOs and devices
    // (symbolic links followed). Listed once per folder.
    const std::vector<std::string>& blockingEntries(const std::string& folder) {
        const auto found = blocking_.find(folder);
        if (found != blocking_.end()) {
            return found->second;
        }
        std::vector<std::string>& names = blocking_[folder];
        DIR* dir = ::opendir(folder.c_str());
        if (dir == nullptr) {
            return names;
        }
        while (const dirent* entry = ::readdir(dir)) {
            unsigned type = entry->d_type;
            if (type == DT_LNK || type == DT_UNKNOWN) {
                struct stat st {};
                if (::fstatat(::dirfd(dir), entry->d_name, &st, 0) != 0) {
                    continue;
                }
                type = IFTODT(st.st_mode);
            }
            if (type == DT_FIFO || type == DT_CHR || type == DT_BLK) {
                names.emplace_back(entry->d_name);
            }
        }
        ::closedir(dir);
        return names;
    }

    // Refuses a FIFO or device beside `real` whose name GDAL may take for one of its sidecars.
    Status checkSidecars(const std::string& real) {
        const size_t slash = real.find_last_of('/');
        const std::string folder = slash == std::string::npos ? "." : real.substr(0, slash + 1);
        const std::string name = lowerCase(real.substr(slash == std::string::npos ? 0 : slash + 1));
        const std::string stem = name.substr(0, name.find_last_of('.'));
        for (const std::string& entry : blockingEntries(folder)) {
            const std::string e = lowerCase(entry);
            // quadterrain's own files beside the map: their readers check them.
            if (e.find(".qtree") != std::string::npos || e.find(".qtcodes") != std::string::npos) {
                continue;
            }
            if (e.size() > stem.size() && e.compare(0, stem.size(), stem) == 0 &&
                (e[stem.size()] == '.' || e[stem.size()] == '_')) {
                const std::string path = slash == std::string::npos ? entry : folder + entry;
                return Status::failure("sidecar " + escapedPath(path) +
                                       " is not a regular file (GDAL would open it)");
            }
        }
        return {};
    }

    // When the file is a VRT, every source it names.
    Status vrtSources(const std::string& gdalPath, int depth, bool network) {
        bool whole = false;
        std::string text = readStart(gdalPath, 1024, whole);
        if (!looksLikeVrt(text)) {
            return {};
        }
        const std::string name = depth == 0 ? "VRT" : "VRT " + escapedPath(gdalPath);
        if (!whole) {
            text = readStart(gdalPath, size_t(kMaxVrtBytes), whole);
            if (!whole) {
                return Status::failure(name + " is over the limit of " +
                                       std::to_string(kMaxVrtBytes >> 20) + " MiB of XML");
            }
        }
        return xmlSources(text, CPLGetPath(gdalPath.c_str()), depth, name, network);
    }

    // The sources in a VRT's XML; `base` is the folder sources relative to the VRT are in;
    // `network`: the VRT was read over the network.
    Status xmlSources(const std::string& xml, const std::string& base, int depth,
                      const std::string& name, bool network) {
        if (depth >= kMaxVrtDepth) {
            return Status::failure("VRTs name VRTs more than " + std::to_string(kMaxVrtDepth) +
                                   " deep");
        }
        CPLPushErrorHandler(CPLQuietErrorHandler);  // the line below says it
        const XmlTree tree(CPLParseXMLString(xml.c_str()));
        CPLPopErrorHandler();
        if (!tree) {
            return Status::failure(name + " is not well-formed XML");
        }
        std::vector<const CPLXMLNode*> stack{tree.get()};  // no recursion: XML may nest deep
        while (!stack.empty()) {
            const CPLXMLNode* node = stack.back();
            stack.pop_back();
            for (; node != nullptr; node = node->psNext) {
                if (node->eType != CXT_Element) {
                    continue;
                }
                if (EQUAL(node->pszValue, "SourceFilename") ||
                    EQUAL(node->pszValue, "SourceDataset")) {
                    if (Status s = source(nodeText(node), attribute(node, "relativeToVRT"), base,
                                          depth, network);
                        !s) {
                        return s;
                    }
                }
                if (node->psChild != nullptr) {
                    stack.push_back(node->psChild);
                }
            }
        }
        return {};
    }

    // One source: an inline VRT, or a file relative to the VRT or not as GDAL's parsers of
    // relativeToVRT read it (atoi for sources, a boolean for raw bands, whose default is
    // relative): every reading is checked, and at least one must exist.
    Status source(const std::string& text, const char* relative, const std::string& base, int depth,
                  bool network) {
        if (text.find("<VRTDataset") != std::string::npos) {
            return xmlSources(text, base, depth + 1, "inline VRT source", network);
        }
        std::string path = text;
        if (startsWith(lowerCase(path), "vrt://")) {
            path = path.substr(
                6, path.find('?') == std::string::npos ? std::string::npos : path.find('?') - 6);
        }
        const bool mayBeRelative =
            relative == nullptr || std::atoi(relative) != 0 || CPLTestBool(relative);
        const bool mayBeAsGiven =
            relative == nullptr || std::atoi(relative) == 0 || !CPLTestBool(relative);
        std::vector<std::string> candidates;
        if (mayBeRelative) {
            candidates.emplace_back(CPLProjectRelativeFilename(base.c_str(), path.c_str()));
        }
        if (mayBeAsGiven && (candidates.empty() || candidates.front() != path)) {
            candidates.push_back(path);
        }
        bool found = false;
        for (const std::string& candidate : candidates) {
            Result<bool> exists =
                file(candidate, depth + 1, "VRT source " + escapedPath(candidate), network);
            if (!exists) {
                return Status::failure(exists.error());
            }
            found = found || exists.value();
        }
        if (!found) {
            return Status::failure(
                "VRT source " + escapedPath(candidates.front()) +
                (isNetworkPath(candidates.front()) ? " " + missing_ : " does not exist"));
        }
        return {};
    }

    std::map<std::string, std::vector<std::string>> blocking_;
    std::set<std::string> checked_;  // files found good (a mosaic names some many times)
    std::set<std::string> open_;     // files whose sources are being checked: one named again loops
    std::string missing_;            // why the last file found missing is: its line
};

}  // namespace

bool isNetworkPath(const std::string& path) {
    return isUrl(path) || std::any_of(std::begin(kNetworkPrefixes), std::end(kNetworkPrefixes),
                                      [&](const char* prefix) { return startsWith(path, prefix); });
}

std::string networkGdalPath(const std::string& path) {
    return isUrl(path) ? "/vsicurl/" + path : path;
}

Status checkGdalInputs(const std::string& gdalPath) {
    InputCheck check;
    return check.map(gdalPath);
}

}  // namespace qt
