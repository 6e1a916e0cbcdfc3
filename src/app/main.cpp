// quadterrain: parses the command line, opens the session, runs the viewer or a scripted mode.
#include <malloc.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "app/options.h"
#include "app/scripted.h"
#include "app/session.h"
#include "app/soak.h"
#include "app/viewer.h"
#include "core/streaming/mapped_codes.h"
#include "render/gl_context.h"

namespace {

int run(const std::vector<std::string>& args) {
    qt::Result<qt::ViewerOptions> options = qt::parseOptions(args);
    if (!options) {
        std::fprintf(stderr, "quadterrain: %s\n", options.error().c_str());
        return qt::kExitUsage;
    }
    if (options.value().help) {
        std::fputs(qt::usageText().c_str(), stdout);
        return 0;
    }
    // A map file or code cache cut short under a streamed map: one line and exit status 1.
    qt::guardMappedReads();
    bool usage = false;
    qt::Result<qt::Session> created = qt::Session::create(options.value(), &usage);
    if (!created) {
        std::fprintf(stderr, "quadterrain: %s\n", created.error().c_str());
        return usage ? qt::kExitUsage : qt::kExitFailure;
    }
    qt::Session& session = created.value();
    const qt::ViewerOptions& o = session.options;
    // Scripted runs draw the given Sun's shadows from their first frame.
    session.applySun(o.soakFrames > 0 || !o.benchCsvPath.empty() || !o.screenshotPath.empty() ||
                     !o.statsJsonPath.empty() || !o.cullMapPath.empty() ||
                     !o.windowShotPath.empty());
    int status = 0;
    if (o.soakFrames > 0) {
        status = qt::runSoak(session);
    } else if (!o.benchCsvPath.empty()) {
        status = qt::runBench(session);
    } else if (!o.screenshotPath.empty() || !o.statsJsonPath.empty() || !o.cullMapPath.empty()) {
        status = qt::runOneShot(session);
    } else {
        status = qt::runViewer(session);
    }
    session.context.checkErrors("the last frame");
    session.destroy();
    if (const int errors = qt::glErrorCount(); errors > 0) {
        std::fprintf(stderr, "quadterrain: %d OpenGL error(s) were reported (see above)\n", errors);
        status = status ? status : qt::kExitFailure;
    }
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    // One malloc arena for every thread, set before any starts. The viewer's threads that
    // allocate (the page streamer's and the coarse levels' readers, GDAL's, llvmpipe's) would
    // each get one of up to 64 MiB that keeps the freed buffers of what that thread decoded;
    // sharing one, they reuse them. The frame's threads allocate nothing, so nothing waits on
    // its lock per frame. A 65537² layout's flight from nginx peaked 80-87 MiB lower
    // (docs/design/streaming.md).
    mallopt(M_ARENA_MAX, 1);
    try {
        return run(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "quadterrain: %s\n", e.what());
    } catch (...) {
        std::fprintf(stderr, "quadterrain: unexpected failure\n");
    }
    return qt::kExitFailure;
}
