/* stb_image's implementation, compiled into the fuzz harnesses with AddressSanitizer and the
 * fuzzer's coverage in place of Debian's uninstrumented libstb.so, so that the fuzzers see the
 * decoders' memory errors and steer into their branches. */
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>
