/* stb_image's implementation, compiled into the fuzz harnesses with AddressSanitizer and the
 * fuzzer's coverage in place of Debian's uninstrumented libstb.so, so that the fuzzers see the
 * decoders' memory errors and steer into their branches; with stb_rect_pack's and stb_dxt's (the
 * imagery's tail and compressed pages), so that the harnesses need nothing of libstb.so. */
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>
#define STB_RECT_PACK_IMPLEMENTATION
#include <stb/stb_rect_pack.h>
#define STB_DXT_IMPLEMENTATION
#include <stb/stb_dxt.h>
