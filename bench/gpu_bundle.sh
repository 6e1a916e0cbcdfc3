#!/bin/bash
# Packs a build for a GPU machine that lacks this project's Debian packages: the viewer, the
# render and offscreen tests and the terrain generator (stripped), every library they load but
# glibc's and the GL's own (libGL, libEGL and their dispatch: the machine's driver brings those),
# nginx for the tests that serve maps, PROJ's database and GDAL's data. bench/gpu_check.sh runs
# it there.
# Usage: bench/gpu_bundle.sh [BUILD] OUT_DIR   (BUILD: build; OUT_DIR gets bundle.tar.xz)
set -euo pipefail
build=build
[ $# -eq 2 ] && { build=$1; shift; }
[ $# -eq 1 ] || { echo "usage: bench/gpu_bundle.sh [BUILD] OUT_DIR" >&2; exit 2; }
out=$1
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$stage/libcxx" "$stage/share/proj" "$out"
for b in quadterrain render_tests offscreen_tests terrain_gen; do
    cp "$build/$b" "$stage/bin/"
    strip "$stage/bin/$b"
done
cp /usr/sbin/nginx "$stage/bin/"
for b in "$stage"/bin/*; do ldd "$b" | awk '/=> \//{print $3}'; done | sort -u |
    grep -v -E '/(libc|libm|libdl|libpthread|librt|libresolv|libGL|libEGL|libGLX|libGLdispatch|libOpenGL|libstdc\+\+|libgcc_s)\.so' |
    xargs -I{} cp -L {} "$stage/lib/"
# C++ runtime apart: used there only when the machine's is older than this build's.
cp -L "$(ldd "$stage/bin/quadterrain" | awk '/libstdc\+\+/{print $3}')" \
    "$(ldd "$stage/bin/quadterrain" | awk '/libgcc_s/{print $3}')" "$stage/libcxx/"
cp /usr/share/proj/proj.db "$stage/share/proj/"
cp -r /usr/share/gdal "$stage/share/"
tar -C "$stage" -cf - . | xz -T0 -6 >"$out/bundle.tar.xz"
echo "bench/gpu_bundle.sh: $out/bundle.tar.xz, $(du -h "$out/bundle.tar.xz" | cut -f1)"
