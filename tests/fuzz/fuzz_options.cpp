// libFuzzer harness for the command-line parser: NUL-separated arguments.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app/options.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<std::string> args(1);
    for (size_t i = 0; i < size; ++i) {
        if (data[i] == 0) {
            args.emplace_back();
        } else {
            args.back().push_back(char(data[i]));
        }
    }
    const qt::Result<qt::ViewerOptions> options = qt::parseOptions(args);
    if (options.ok()) {
        const qt::ViewerOptions& o = options.value();
        // What the parser accepts, the viewer relies on.
        if ((o.spacingX && !(*o.spacingX > 0.0f && std::isfinite(*o.spacingX))) ||
            (o.spacingZ && !(*o.spacingZ > 0.0f && std::isfinite(*o.spacingZ))) ||
            !(o.exaggeration > 0.0f && std::isfinite(o.exaggeration)) ||
            !(o.fovDegrees > 1.0f && o.fovDegrees < 179.0f) || o.windowWidth < 1 ||
            o.windowHeight < 1 || int64_t(o.windowWidth) * o.windowHeight > qt::kMaxWindowPixels ||
            (o.eye && *o.eye == *o.target) || o.maxFps < 0 || o.maxFps > 1000 ||
            (o.pick && ((*o.pick)[0] < 0 || (*o.pick)[1] < 0 || (*o.pick)[0] >= o.windowWidth ||
                        (*o.pick)[1] >= o.windowHeight || o.statsJsonPath.empty()))) {
            __builtin_trap();
        }
    } else if (options.error().empty() || options.error().find('\n') != std::string::npos) {
        __builtin_trap();
    }
    return 0;
}
