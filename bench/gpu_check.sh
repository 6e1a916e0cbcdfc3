#!/bin/bash
# The GPU check, on a machine with a GPU but without this project's packages, from the bundle
# bench/gpu_bundle.sh made: every render and offscreen test headless through EGL (eight shards
# side by side), then the GPU figures of docs/figures.md#gpu on a 4097² map made there by
# terrain_gen: the frame at 2 px with and without 1.1 M objects, and a Sun against the fixed
# light at full detail with its sun-moving frames, ROUNDS rounds, each pair interleaved.
# Run from the repository's root (the tests read its shaders and data where the build was
# configured: /work/main here, a link made to this root when that path is free). Results, the
# tests' logs and the flights' CSV files go to OUT.
# Usage: bench/gpu_check.sh BUNDLE.tar.xz OUT [ROUNDS]   (FRAMES: frames a flight, 60)
# GL_DEBS: a folder of Debian packages to unpack first (libegl1, libglvnd0, ... where the
# machine's driver comes without the GL vendor-neutral dispatch).
set -u
[ $# -ge 2 ] || { echo "usage: bench/gpu_check.sh BUNDLE.tar.xz OUT [ROUNDS]" >&2; exit 2; }
bundle=$1 out=$2 rounds=${3:-3}
root=$PWD t0=$(date +%s)
say() { echo "[$(($(date +%s) - t0)) s] $*"; }
mkdir -p "$out"
if [ -n "${GL_DEBS:-}" ]; then
    for f in "$GL_DEBS"/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi
q=$(mktemp -d)
tar -C "$q" -xJf "$bundle" || exit 1
lib=$q/lib
strings /usr/lib/x86_64-linux-gnu/libstdc++.so.6 2>/dev/null | grep -q GLIBCXX_3.4.30 ||
    lib=$lib:$q/libcxx
export LD_LIBRARY_PATH=$lib PROJ_DATA=$q/share/proj GDAL_DATA=$q/share/gdal
export QT_GL_PLATFORM=egl QT_GL_DEBUG=1
unset DISPLAY WAYLAND_DISPLAY
# Only what is missing is put in place: a checkout's own build and a machine's own nginx stay.
[ -e /work/main ] || { mkdir -p /work && ln -s "$root" /work/main; }
[ -e /work/main/build/quadterrain ] ||
    { mkdir -p /work/main/build && cp "$q/bin/quadterrain" /work/main/build/; }
[ -x /usr/sbin/nginx ] || cp "$q/bin/nginx" /usr/sbin/nginx
mkdir -p /var/log/nginx /var/lib/nginx
bin=$q/bin
nvidia-smi --query-gpu=name,driver_version --format=csv 2>/dev/null
ldd "$bin/quadterrain" | grep "not found"
map=$q/gen_4097.png
("$bin/terrain_gen" "$map" --size 4097 --seed 2 >"$q/gen.log" 2>&1) &
gen=$!
say "render tests, 8 shards"
pids=()
for i in 0 1 2 3 4 5 6 7; do
    (cd "$q" && CI=true GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$i timeout 300 \
        "$bin/render_tests" >"$q/render_$i.log" 2>&1
        echo "shard $i exit $?" >>"$q/render_$i.log") &
    pids+=($!)
done
(cd "$q" && CI=true timeout 300 "$bin/offscreen_tests" >"$q/render_off.log" 2>&1
    echo "offscreen exit $?" >>"$q/render_off.log") &
pids+=($!)
wait "${pids[@]}"
cat "$q"/render_*.log >"$out/render.log"
say "render tests done"
grep -h -E "exit|PASSED|FAILED  \]" "$q"/render_*.log
wait $gen || { cat "$q/gen.log"; exit 1; }
mkdir -p "$q/csv"
fly() {  # NAME OPTIONS...
    local name=$1
    shift
    say "$name: $*"
    timeout 120 "$bin/quadterrain" "$map" --frames "${FRAMES:-60}" --bench "$q/csv/$name.csv" "$@" 2>&1 |
        grep -E "renderer|^  (culled|lod|sun-moving)|GPU time|objects \("
}
for r in $(seq 1 "$rounds"); do
    fly "plain_$r" --lod 2 --bench-lod-only
    fly "objects_$r" --lod 2 --bench-lod-only --objects 1100000 --moving 100000
    fly "sun_$r" --sun-azimuth 225 --sun-elevation 30
    fly "fixed_$r"
done
tar -C "$q" -czf "$out/csv.tgz" csv
say done
