// Light bytes on the heap or in a mapped scratch file.
#include "core/light/light_buffer.h"

#include <utility>

namespace qt {

LightBuffer LightBuffer::onHeap(size_t count) {
    LightBuffer b;
    b.heap_.resize(count);
    b.data_ = b.heap_.data();
    b.size_ = count;
    return b;
}

Result<LightBuffer> LightBuffer::inFile(const std::string& dir, size_t count) {
    using R = Result<LightBuffer>;
    Result<ByteScratch> file = ByteScratch::create(dir, count);
    if (!file) {
        return R::failure(file.error());
    }
    LightBuffer b;
    b.file_ = std::move(file).value();
    Result<uint8_t*> mapped = b.file_.map();
    if (!mapped) {
        return R::failure(mapped.error());
    }
    b.data_ = mapped.value();
    b.size_ = count;
    return b;
}

}  // namespace qt
