// Fixed-width fields read from and written to byte buffers (the sidecar and code cache headers):
// memcpy, so that no field needs its natural alignment; in the machine's byte order.
#pragma once

#include <cstring>

namespace qt {

template <class T>
void putField(unsigned char* at, T value) {
    std::memcpy(at, &value, sizeof value);
}

template <class T>
T getField(const unsigned char* at) {
    T value;
    std::memcpy(&value, at, sizeof value);
    return value;
}

}  // namespace qt
