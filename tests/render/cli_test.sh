#!/usr/bin/env bash
# CLI tests of the quadterrain executable: culled vs --no-cull screenshots are byte-identical,
# --stats-json/--cull-map/--bench/--pick outputs, one-line errors with their exit codes, headless
# runs without a display.
# Usage: cli_test.sh QUADTERRAIN SOURCE_DIR   (run under a display: see with_display.sh)
set -u
exe=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Streamed maps' caches and sidecars go to the cache folder: this run's own, never the home's.
export XDG_CACHE_HOME="$tmp/cache home"
failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# A 129x129 raw 16-bit little-endian map (square size inferred from the length): fast to draw.
python3 - "$tmp/hills.r16" <<'PY'
import math, struct, sys
n = 129
with open(sys.argv[1], "wb") as f:
    for r in range(n):
        for c in range(n):
            v = 0.5 + 0.25 * math.sin(c * 0.11) * math.cos(r * 0.07) + 0.2 * math.sin((c + r) * 0.031)
            f.write(struct.pack("<H", max(0, min(65535, int(v * 65535)))))
PY
map=$tmp/hills.r16

# 1. Culled and unculled screenshots are the same file, for cameras that do cull something.
cameras=("" "--eye 10,60,10 --target 64,0,64" "--eye 64,40,-30 --target 64,10,64 --fov 30"
         "--eye 64,20,64 --target 64,0,65 --fov 120" "--eye -50,10,200 --target 64,30,64")
i=0
for camera in "${cameras[@]}"; do
    # shellcheck disable=SC2086
    "$exe" "$map" $camera --window 200x120 --screenshot "$tmp/c$i.png" --stats-json "$tmp/c$i.json" ||
        fail "culled screenshot, camera '$camera'"
    # shellcheck disable=SC2086
    "$exe" "$map" $camera --window 200x120 --no-cull --screenshot "$tmp/u$i.png" ||
        fail "unculled screenshot, camera '$camera'"
    cmp -s "$tmp/c$i.png" "$tmp/u$i.png" || fail "culled and unculled screenshots differ: '$camera'"
    i=$((i + 1))
done
python3 - "$tmp" "$i" <<'PY' || fail "no camera culled anything: the screenshot comparison proved nothing"
import json, sys
culled = [json.load(open(f"{sys.argv[1]}/c{k}.json"))["leaves_culled"] for k in range(int(sys.argv[2]))]
sys.exit(0 if sum(1 for c in culled if c > 0) >= 3 else 1)
PY

# 2. The default map renders (found in data/ next to the executable or in the source tree).
if [ -f "$src/data/default_1025.png" ]; then
    "$exe" --window 160x90 --screenshot "$tmp/default.png" --eye 100,300,100 --target 512,0,512 ||
        fail "screenshot of the default map"
    "$exe" --window 160x90 --screenshot "$tmp/default_u.png" --eye 100,300,100 \
        --target 512,0,512 --no-cull || fail "unculled screenshot of the default map"
    cmp -s "$tmp/default.png" "$tmp/default_u.png" || fail "default map: culled != unculled"
fi

# 3. --stats-json: the keys, the counts adding up, the dumped leaves, an escaped path.
weird="$tmp/we\"ird map.r16"
cp "$map" "$weird"
"$exe" "$weird" --eye 10,60,10 --target 64,0,64 --stats-json "$tmp/s.json" --dump-leaves ||
    fail "--stats-json run"
python3 - "$tmp/s.json" "$weird" <<'PY' || fail "--stats-json content"
import json, sys
s = json.load(open(sys.argv[1]))
for key in ["map", "world", "camera", "leaf_size", "nodes_total", "leaves_total", "nodes_tested",
            "leaves_drawn", "leaves_culled", "leaves_occluded", "draw_calls", "triangles_drawn", "cull_ms", "frame_ms",
            "visible_leaves"]:
    assert key in s, key
assert s["map"] == {"path": sys.argv[2], "width": 129, "height": 129}, s["map"]
assert set(s["world"]) == {"spacing_x", "spacing_z", "height_scale", "height_offset"}
assert s["georeference"] is None and s["heights"]["metres"] is False
assert set(["eye", "target", "fov_y", "aspect", "near", "far"]) <= set(s["camera"])
assert s["camera"]["eye"] == [10, 60, 10] and s["camera"]["target"] == [64, 0, 64]
assert abs(s["camera"]["fov_y"] - 60) < 1e-3
assert s["leaves_drawn"] + s["leaves_culled"] + s["leaves_occluded"] == s["leaves_total"] == 32 * 32
assert s["leaves_culled"] > 0 and s["draw_calls"] == 1
assert s["synced_draws"] in (True, False)
assert isinstance(s["gl_renderer"], str) and ", " in s["gl_renderer"], s["gl_renderer"]
assert len(s["visible_leaves"]) == s["leaves_drawn"]
assert all(0 <= c < 32 and 0 <= r < 32 for c, r in s["visible_leaves"])
assert s["triangles_drawn"] == 32 * s["leaves_drawn"]
PY
"$exe" "$map" --stats-json "$tmp/n.json" --no-cull --leaf 8 || fail "--no-cull stats"
python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
assert s["leaves_drawn"] == s["leaves_total"] == 16 * 16 and s["leaves_culled"] == 0
assert s["leaves_occluded"] == 0
assert "visible_leaves" not in s and s["leaf_size"] == 8
t = s["camera"]["target"]; e = s["camera"]["eye"]
assert abs(sum((a - b) ** 2 for a, b in zip(t, e)) ** 0.5 - 1) < 1e-3  # 1 unit along forward
' "$tmp/n.json" || fail "--no-cull stats content"
for mode in on off; do
    "$exe" "$map" --stats-json "$tmp/sync_$mode.json" --no-cull --sync-draws $mode ||
        fail "--sync-draws $mode run"
done
python3 -c '
import json, sys
on, off = (json.load(open(p)) for p in sys.argv[1:3])
assert on["synced_draws"] is True and off["synced_draws"] is False
assert on["draw_calls"] == off["draw_calls"] == 1  # 1024 leaves: one batch either way
' "$tmp/sync_on.json" "$tmp/sync_off.json" || fail "--sync-draws stats"
# Back faces: culled from high over the map, unless --back-faces draw; never from outside it.
for run in "auto --eye 40,200,40" "draw --eye 40,200,40" "auto --eye -50,200,-50"; do
    # shellcheck disable=SC2086
    "$exe" "$map" --target 64,0,64 --stats-json "$tmp/faces_${run%% *}_${run##*,}.json" \
        --back-faces $run || fail "--back-faces $run"
done
python3 -c '
import json, sys
over, drawn, outside = (json.load(open(p))["back_faces_culled"] for p in sys.argv[1:4])
assert over is True and drawn is False and outside is False, (over, drawn, outside)
' "$tmp/faces_auto_40.json" "$tmp/faces_draw_40.json" "$tmp/faces_auto_-50.json" ||
    fail "--back-faces stats"

# 3b. --lod: culled == unculled screenshots at coarse steps, and the stats name the nodes drawn,
# far fewer than the leaves in view from this corner, with one leaf's triangles each.
"$exe" "$map" --window 160x90 --eye 0,60,0 --target 128,0,128 --lod 8 --screenshot "$tmp/l.png" \
    --stats-json "$tmp/l.json" --dump-leaves || fail "--lod run"
"$exe" "$map" --window 160x90 --eye 0,60,0 --target 128,0,128 --lod 8 --no-cull \
    --screenshot "$tmp/l_u.png" || fail "--lod unculled run"
cmp -s "$tmp/l.png" "$tmp/l_u.png" || fail "--lod: culled != unculled"
python3 - "$tmp/l.json" <<'PY' || fail "--lod stats content"
import json, sys
s = json.load(open(sys.argv[1]))
lod = s["lod"]
assert 0 < lod["nodes_drawn"] < s["leaves_drawn"] and lod["deepest_level"] >= 1, lod
assert lod["leaves_covered"] >= s["leaves_drawn"] and s["leaves_occluded"] == 0
# One draw a program the nodes take (qt::programKey: part way through a morph or not, taking
# finer normals or not).
assert s["triangles_drawn"] == 32 * lod["nodes_drawn"] and 1 <= s["draw_calls"] <= 4, s
assert len(s["visible_leaves"]) == s["leaves_drawn"]
PY

# 3c. --page-size: heights in pages of 4 squares (one node a side at every level) draw the same
# pixels as the default pages, culled and unculled, at full detail and with level of detail; the
# stats report the pages and their bytes per sample.
for lod in off 1 8; do
    view="--window 160x90 --eye 0,60,0 --target 128,0,128 --lod $lod"
    # shellcheck disable=SC2086
    "$exe" "$map" $view --screenshot "$tmp/p_$lod.png" || fail "--lod $lod, default pages"
    # shellcheck disable=SC2086
    "$exe" "$map" $view --page-size 4 --screenshot "$tmp/p4_$lod.png" \
        --stats-json "$tmp/p4_$lod.json" || fail "--lod $lod --page-size 4"
    # shellcheck disable=SC2086
    "$exe" "$map" $view --page-size 4 --no-cull --screenshot "$tmp/p4u_$lod.png" ||
        fail "--lod $lod --page-size 4 --no-cull"
    cmp -s "$tmp/p_$lod.png" "$tmp/p4_$lod.png" || fail "--lod $lod: pages of 4 != default pages"
    cmp -s "$tmp/p4_$lod.png" "$tmp/p4u_$lod.png" || fail "--lod $lod pages of 4: culled != unculled"
done
python3 - "$tmp/p4_8.json" <<'PY' || fail "--page-size stats content"
import json, sys
g = json.load(open(sys.argv[1]))["gpu_heights"]
assert g["page_size"] == 4 and g["page_texels"] == 7, g
assert g["pages"] > 1000 and g["levels"] == 6, g
assert g["arrays"] == 1 and g["layers_per_array"] == g["pages"], g
assert 2.0 < g["bytes_per_sample"] < 10.0, g
PY
"$exe" "$map" --page-size 3 --stats-json "$tmp/bad.json" 2>"$tmp/err"
[ $? -eq 2 ] || fail "--page-size 3: expected exit 2"

# 4. --cull-map and --bench write their files.
"$exe" "$map" --eye 10,60,10 --target 64,0,64 --cull-map "$tmp/map.png" || fail "--cull-map"
[ "$(head -c 4 "$tmp/map.png" | tail -c 3)" = "PNG" ] || fail "--cull-map did not write a PNG"
"$exe" "$map" --window 160x90 --bench "$tmp/bench.csv" --frames 4 --sync-draws off \
    --back-faces draw >"$tmp/bench.out" || fail "--bench"
[ "$(wc -l <"$tmp/bench.csv")" -eq 13 ] || fail "--bench: expected a header and 12 rows (3 modes)"
grep -q "unculled / culled" "$tmp/bench.out" || fail "--bench printed no summary"
grep -q "unculled / frustum only" "$tmp/bench.out" || fail "--bench: no frustum-only ratio"
grep -q "draw calls: at most 1 a frame (one a frame)" "$tmp/bench.out" ||
    fail "--bench --sync-draws off: not one draw a frame"
! grep -q "one-draw" "$tmp/bench.out" || fail "--bench --sync-draws off: a one-draw mode"
! grep -q "two-sided" "$tmp/bench.out" || fail "--bench --back-faces draw: a two-sided mode"
# Back faces culled (the default) add the two-sided mode, for what culling them saves.
"$exe" "$map" --window 160x90 --bench "$tmp/bench_faces.csv" --frames 2 --sync-draws off \
    >"$tmp/bench_faces.out" || fail "--bench --back-faces auto"
[ "$(grep -c '^two-sided,' "$tmp/bench_faces.csv")" -eq 2 ] &&
    [ "$(wc -l <"$tmp/bench_faces.csv")" -eq 9 ] ||
    fail "--bench --back-faces auto: expected a header and 8 rows (4 modes), 2 of them two-sided"
grep -q "two-sided / culled" "$tmp/bench_faces.out" || fail "--bench --back-faces auto: no ratio"
# Synchronised draws add the one-draw mode, for the price of the bounded queue.
"$exe" "$map" --window 160x90 --bench "$tmp/bench_sync.csv" --frames 2 --sync-draws on \
    --back-faces draw >"$tmp/bench_sync.out" || fail "--bench --sync-draws on"
[ "$(grep -c '^one-draw,' "$tmp/bench_sync.csv")" -eq 2 ] &&
    [ "$(wc -l <"$tmp/bench_sync.csv")" -eq 9 ] ||
    fail "--bench --sync-draws on: expected a header and 8 rows (4 modes), 2 of them one-draw"
grep -q "culled / one-draw" "$tmp/bench_sync.out" || fail "--bench --sync-draws on: no ratio"
grep -q "(synchronised batches)" "$tmp/bench_sync.out" ||
    fail "--bench --sync-draws on: the draws are not said to be synchronised"
"$exe" "$map" --window 160x90 --bench "$tmp/bench_lod.csv" --frames 2 --lod 2 --sync-draws off \
    --back-faces draw >"$tmp/bench_lod.out" || fail "--bench --lod"
[ "$(grep -c '^lod,' "$tmp/bench_lod.csv")" -eq 2 ] && [ "$(wc -l <"$tmp/bench_lod.csv")" -eq 9 ] ||
    fail "--bench --lod: expected a header and 8 rows (4 modes), 2 of them lod"
grep -q "culled / lod" "$tmp/bench_lod.out" || fail "--bench --lod: no level-of-detail ratio"
grep -q "after the level-of-detail flight" "$tmp/bench_lod.out" ||
    fail "--bench --lod: no level-of-detail memory peak"
# A frame budget with --lod auto moves the flight's bound as the viewer's does: on a map drawn by
# level of detail (over 1415 a side), 1 ms frames cannot be had, so every timed frame is at the
# 8 px cap; 10 s frames leave it where --lod auto starts (1 px).
python3 - "$tmp/big.r16" <<'PY'
import struct, sys
n = 1500
row = struct.pack("<%dH" % n, *[20000 + (c * 7) % 3000 for c in range(n)])
with open(sys.argv[1], "wb") as f:
    for r in range(n):
        f.write(row)
PY
for budget in 1 10000; do
    "$exe" "$tmp/big.r16" --window 160x90 --bench "$tmp/bench_budget.csv" --frames 4 \
        --bench-lod-only --frame-budget $budget >"$tmp/bench_budget.out" ||
        fail "--bench --frame-budget $budget"
    expected=$([ $budget -eq 1 ] && echo 8.00 || echo 1.00)
    at=$(python3 -c 'import csv, sys
rows = csv.DictReader(open(sys.argv[1]))
print(sum(r["mode"] == "lod" and r["lod_pixels"] == sys.argv[2] for r in rows))' \
        "$tmp/bench_budget.csv" "$expected")
    [ "$at" -eq 4 ] ||
        fail "--bench --frame-budget $budget: expected 4 lod rows at $expected px"
    grep -q "held to a frame budget of $budget ms" "$tmp/bench_budget.out" ||
        fail "--bench --frame-budget $budget: the summary does not name the budget"
done

# 5. Errors: one line on stderr, exit 1 for a failed load, 2 for usage.
"$exe" "$tmp/missing.png" --screenshot "$tmp/x.png" 2>"$tmp/err"
status=$?
[ $status -eq 1 ] || fail "missing file: exit $status, expected 1"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "missing file: expected one line, got: $(cat "$tmp/err")"
grep -q "missing.png" "$tmp/err" || fail "missing file: the error does not name the file"
"$exe" --no-such-option 2>"$tmp/err"
status=$?
[ $status -eq 2 ] || fail "bad option: exit $status, expected 2"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "bad option: expected one line"
# --shaders: a copy of the shaders draws the default picture pixel for pixel; a copy whose
# terrain.frag does not compile fails in one line naming that file of the copy (the driver's log
# on the same line); a path that is not a folder is one line.
cp -r "$src/shaders" "$tmp/shaders copy"
"$exe" "$map" --window 200x120 --shaders "$tmp/shaders copy" --screenshot "$tmp/shaders.png" ||
    fail "--shaders: a copy of the shaders"
cmp -s "$tmp/shaders.png" "$tmp/c0.png" || fail "--shaders: a copy of the shaders drew another picture"
cp -r "$src/shaders" "$tmp/broken shaders"
printf 'not GLSL\n' >>"$tmp/broken shaders/terrain.frag"
"$exe" "$map" --window 200x120 --shaders "$tmp/broken shaders" --screenshot "$tmp/x.png" 2>"$tmp/err"
status=$?
[ $status -eq 1 ] || fail "--shaders with a broken shader: exit $status, expected 1"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "--shaders with a broken shader: expected one line, got: $(cat "$tmp/err")"
grep -q "broken shaders/terrain.frag: compile failed: .*error" "$tmp/err" ||
    fail "--shaders with a broken shader: the error does not name the file and the error: $(cat "$tmp/err")"
"$exe" "$map" --window 200x120 --shaders "$tmp/no such folder" --screenshot "$tmp/x.png" 2>"$tmp/err"
status=$?
[ $status -eq 1 ] || fail "--shaders with no folder: exit $status, expected 1"
[ "$(cat "$tmp/err")" = "quadterrain: --shaders $tmp/no such folder: not a folder" ] ||
    fail "--shaders with no folder: $(cat "$tmp/err")"
"$exe" --help >"$tmp/help" || fail "--help"
grep -q "usage: quadterrain" "$tmp/help" || fail "--help text"

# 6. No display. A run that only writes files renders headless through EGL (llvmpipe here), pixel
#    for pixel as in a hidden window; the viewer itself says how to get a display; a bad
#    QT_GL_PLATFORM and an EGL without any vendor are one line each.
nodisplay() { env -u DISPLAY -u WAYLAND_DISPLAY "$@"; }
camera=(--eye 10,60,10 --target 64,0,64 --window 200x120)
"$exe" "$map" "${camera[@]}" --screenshot "$tmp/window.png" || fail "screenshot in a hidden window"
nodisplay "$exe" "$map" "${camera[@]}" --screenshot "$tmp/headless.png" --stats-json "$tmp/h.json" ||
    fail "headless screenshot without a display"
cmp -s "$tmp/window.png" "$tmp/headless.png" || fail "headless and windowed screenshots differ"
QT_GL_PLATFORM=egl "$exe" "$map" "${camera[@]}" --no-cull --screenshot "$tmp/headless_u.png" ||
    fail "QT_GL_PLATFORM=egl with a display"
cmp -s "$tmp/window.png" "$tmp/headless_u.png" || fail "headless unculled != windowed culled"
nodisplay "$exe" "$map" --frames 1 2>"$tmp/err"
status=$?
[ $status -eq 1 ] || fail "no display: exit $status, expected 1"
grep -q "cannot open a window (no display); run it under a display or with xvfb-run -a" \
    "$tmp/err" || fail "no display message: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "no display: expected one line, got: $(cat "$tmp/err")"
QT_GL_PLATFORM=vulkan "$exe" "$map" --screenshot "$tmp/x.png" 2>"$tmp/err"
status=$?
[ $status -eq 1 ] || fail "bad QT_GL_PLATFORM: exit $status, expected 1"
grep -q "QT_GL_PLATFORM is 'vulkan'; it takes egl (headless) or glfw (a window)" "$tmp/err" ||
    fail "bad QT_GL_PLATFORM message: $(cat "$tmp/err")"
nodisplay __EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent.json "$exe" "$map" --screenshot "$tmp/x.png" \
    2>"$tmp/err"
status=$?
[ $status -eq 1 ] || fail "EGL without a vendor: exit $status, expected 1"
grep -q "no headless OpenGL 3.3 core context through EGL" "$tmp/err" ||
    fail "EGL without a vendor message: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "EGL without a vendor: expected one line: $(cat "$tmp/err")"

# 7. --pick: looking straight down at sample (64, 64) through the centre pixel of a 201x201 window,
#    the hit is that sample, the surface's height there its value; a pixel of sky misses. The map
#    has no georeference: no lonlat, no crs_xy.
"$exe" "$map" --window 201x201 --eye 64,200,64 --target 64,0,64 --stats-json "$tmp/p.json" \
    --pick 100,100 || fail "--pick run"
"$exe" "$map" --window 201x201 --eye -60,40,64 --target 64,40,64 --stats-json "$tmp/sky.json" \
    --pick 100,0 || fail "--pick run at the sky"
python3 - "$tmp/p.json" "$tmp/sky.json" "$map" <<'PY' || fail "--pick content"
import json, struct, sys
pick = json.load(open(sys.argv[1]))["pick"]
assert set(pick) == {"hit", "world", "sample", "height", "lonlat", "crs_xy", "object"}, pick
assert pick["object"] is None and pick["lonlat"] is None and pick["crs_xy"] is None, pick
assert pick["hit"] is True and pick["sample"] == [64, 64], pick
assert abs(pick["world"][0] - 64) < 1e-3 and abs(pick["world"][2] - 64) < 1e-3, pick
data = open(sys.argv[3], "rb").read()
assert abs(pick["height"] - struct.unpack_from("<H", data, 2 * (64 * 129 + 64))[0]) < 0.5, pick
sky = json.load(open(sys.argv[2]))["pick"]
assert sky == {"hit": False, "world": None, "sample": None, "height": None, "lonlat": None,
               "crs_xy": None, "object": None}, sky
PY
# 7a. --pick on a UTM 32N GeoTIFF (30 m samples, its corner at 500,000 E, 5,300,000 N): straight
#     down at sample (32, 20), crs_xy is that pixel's centre, lonlat 9.013032 E, 47.847808 N
#     (gdaltransform's answer for pixel 32.5, 20.5; pick_lonlat_gdal asks it on more rasters),
#     and the height in metres.
python3 - "$tmp/utm.tif" "$src/tests/app" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from tiff16 import geotiff
side = 65
heights = [100 + (c * 7 + r * 3) % 50 for r in range(side) for c in range(side)]
open(sys.argv[1], "wb").write(geotiff(side, side, heights, "int16", cell=30.0,
                                      tie=(500000.0, 5300000.0), epsg=32632))
PY
"$exe" "$tmp/utm.tif" --window 201x201 --eye 960,3000,600 --target 960,0,600 \
    --stats-json "$tmp/utm.json" --pick 100,100 || fail "--pick run on a GeoTIFF"
python3 - "$tmp/utm.json" <<'PY' || fail "--pick content on a GeoTIFF"
import json, sys
pick = json.load(open(sys.argv[1]))["pick"]
assert pick["hit"] is True and pick["sample"] == [32, 20], pick
x, y = pick["crs_xy"]
assert abs(x - (500000 + 32.5 * 30)) < 0.01 and abs(y - (5300000 - 20.5 * 30)) < 0.01, pick
lon, lat = pick["lonlat"]
assert abs(lon - 9.013032209) < 1e-6 and abs(lat - 47.847807791) < 1e-6, pick
assert abs(pick["height"] - (100 + (32 * 7 + 20 * 3) % 50)) < 0.01, pick
PY

# 7b. --dump-objects lists every object once, its states adding up to the counts; --pick over
#     objects: looking straight down at the top of the highest object after three steps, the
#     centre pixel names it, at its top, in front of the terrain (without objects, "object" is
#     null: 7).
"$exe" "$map" --objects 3000 --moving 300 --steps 3 --eye 20,10,120 --target 100,8,30 \
    --dump-objects --stats-json "$tmp/od.json" || fail "--dump-objects run"
python3 - "$tmp/od.json" <<'PY' || fail "--dump-objects content"
import json, sys
from collections import Counter
report = json.load(open(sys.argv[1]))
objects, counts = report["object_list"], report["objects"]
# Every object once, by id, with a box and a state, the states adding up to the counts; this
# view has objects of all three.
assert [o[0] for o in objects] == list(range(3000)), [o[0] for o in objects][:10]
assert counts["total"] == 3000 and counts["moving"] == 300 and counts["steps"] == 3, counts
# What the drawn objects draw and send: each its mesh (40 triangles a tree, 320 a sphere), its
# impostor (2) or both, fewer than as meshes alone (fine, or coarse of 16 or 20 past the band);
# and 4 bytes (a static object's id) to 24 (a whole instance) for each way it is drawn.
assert 2 * counts["drawn"] <= counts["triangles"] < counts["triangles_without_impostors"], counts
assert 4 * counts["drawn"] <= counts["upload_bytes"] <= 48 * counts["drawn"], counts
assert counts["size_scale"] == 1, counts  # room enough at full size
# A map without metres: objects in sample spacings.
assert counts["size_unit_in_metres"] is False and counts["object_scale"] == 1, counts
states = Counter(o[3] for o in objects)
assert set(states) == {"drawn", "culled", "occluded"}, states
assert (states["drawn"], states["culled"], states["occluded"]) == (
    counts["drawn"], counts["culled"], counts["occluded"]), (states, counts)
assert all(all(a <= b for a, b in zip(lo, hi)) for _, lo, hi, _ in objects), "inverted box"
PY
# On the UTM GeoTIFF (metres from its georeference) objects are made in 3 m units, times
# --object-scale.
"$exe" "$tmp/utm.tif" --objects 200 --object-scale 2 --stats-json "$tmp/om.json" ||
    fail "--object-scale on a map in metres"
python3 - "$tmp/om.json" <<'PY' || fail "--object-scale content"
import json, sys
counts = json.load(open(sys.argv[1]))["objects"]
assert counts["size_unit_in_metres"] is True and counts["object_scale"] == 2, counts
assert counts["size_unit"] == 6 and counts["size_scale"] == 1, counts
PY
# A crowded map: 12,000 objects, 2,000 of them balls, over 129 x 129 samples leave the balls no
# room at full size, so every object is made smaller, and the run goes on.
"$exe" "$map" --objects 12000 --moving 2000 --stats-json "$tmp/oc.json" || fail "crowded scatter"
python3 - "$tmp/oc.json" <<'PY' || fail "crowded scatter content"
import json, sys
counts = json.load(open(sys.argv[1]))["objects"]
assert counts["total"] == 12000 and counts["moving"] == 2000, counts
assert 0.25 <= counts["size_scale"] < 1, counts
PY
objects=(--objects 300 --moving 30 --steps 3)
"$exe" "$map" "${objects[@]}" --dump-objects --stats-json "$tmp/o.json" || fail "--dump-objects run"
top=$(python3 - "$tmp/o.json" <<'PY'
import json, sys
objects = json.load(open(sys.argv[1]))["object_list"]
i, lo, hi, state = max(objects, key=lambda o: o[2][1])
cx, cz = (lo[0] + hi[0]) / 2, (lo[2] + hi[2]) / 2
print(i, f"{cx!r},{hi[1] + 20!r},{cz!r}", f"{cx!r},{lo[1] - 1!r},{cz!r}", hi[1])
PY
) || fail "--pick target"
read -r id eye target y <<<"$top"
"$exe" "$map" "${objects[@]}" --window 201x201 --eye "$eye" --target "$target" \
    --stats-json "$tmp/op.json" --pick 100,100 || fail "--pick run over objects"
python3 - "$tmp/op.json" "$id" "$y" <<'PY' || fail "--pick over objects content"
import json, sys
pick = json.load(open(sys.argv[1]))["pick"]
o = pick["object"]
assert o is not None and o["id"] == int(sys.argv[2]), pick
assert o["kind"] in ("tree", "rock", "ball"), o
assert abs(o["world"][1] - float(sys.argv[3])) < 1e-3 * max(1.0, abs(float(sys.argv[3]))), (o, sys.argv[3])
assert pick["hit"] and pick["world"][1] < o["world"][1], pick
PY

# 8. A .r16 opened streamed (--stream, as one over --memory-budget is): its codes mapped, its
#    tree written to its sidecar in the cache folder on the first open (nothing beside the map)
#    and read from it on the second, level 0 streamed;
#    settled, its screenshot is the fully loaded map's (same leaf size, same pages), byte for byte;
#    picking reads the mapping.
python3 - "$tmp/big.r16" <<'PY'
import math, struct, sys
n = 513
rows = []
for r in range(n):
    rows.append(struct.pack("<%dH" % n, *[max(0, min(65535, int(32768 + 12000 * math.sin(c * 0.043)
        * math.cos(r * 0.037) + 6000 * math.sin((c - 2 * r) * 0.011)))) for c in range(n)]))
open(sys.argv[1], "wb").write(b"".join(rows))
PY
big_view="--window 240x160 --eye 60,60,60 --target 256,10,256 --lod 2 --page-size 8"
for run in first second; do
    # shellcheck disable=SC2086
    "$exe" "$tmp/big.r16" $big_view --stream --screenshot "$tmp/big_$run.png" \
        --stats-json "$tmp/big_$run.json" --pick 120,80 || fail "streamed .r16, $run open"
done
[ ! -e "$tmp/big.r16.qtree" ] || fail "streamed .r16: a sidecar written beside the map"
leaf=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['leaf_size'])" "$tmp/big_first.json")
# shellcheck disable=SC2086
"$exe" "$tmp/big.r16" $big_view --leaf "$leaf" --screenshot "$tmp/big_full.png" \
    --stats-json "$tmp/big_full.json" --pick 120,80 || fail "fully loaded .r16"
cmp -s "$tmp/big_first.png" "$tmp/big_full.png" || fail "streamed .r16: settled != fully loaded"
cmp -s "$tmp/big_second.png" "$tmp/big_full.png" || fail "streamed .r16 from its sidecar != fully loaded"
python3 - "$tmp" <<'PY' || fail "streamed .r16 stats content"
import json, os, sys
first, second, full = (json.load(open(f"{sys.argv[1]}/big_{k}.json")) for k in ("first", "second", "full"))
assert first["streaming"]["mapped"] is True and first["streaming"]["sidecar"] == "written", first["streaming"]
assert second["streaming"]["sidecar"] == "read", second["streaming"]
tree = first["streaming"]["cache"]["tree"]
assert tree.startswith(f"{sys.argv[1]}/cache home/quadterrain/big.r16.") and os.path.isfile(tree), tree
assert second["streaming"]["cache"] == {"codes": None, "tree": tree}, second["streaming"]
assert "streaming" not in full, full.get("streaming")
assert first["streaming"]["resident"] > 0 and first["streaming"]["requested"] == 0, first["streaming"]
assert first["pick"] == full["pick"] == second["pick"] and full["pick"]["hit"], (first["pick"], full["pick"])
assert first["lod_errors"] == full["lod_errors"] == "exact", (first["lod_errors"], full["lod_errors"])
PY
# The same map under a Sun: streamed, its light kept in unnamed scratch files and paged beside
# its heights, it draws the fully loaded map's picture, byte for byte.
for how in streamed full; do
    opts="--stream"
    [ "$how" = full ] && opts="--leaf $leaf"
    # shellcheck disable=SC2086
    "$exe" "$tmp/big.r16" $big_view $opts --sun-azimuth 250 --sun-elevation 12 \
        --screenshot "$tmp/big_sun_$how.png" || fail "$how .r16 under a Sun"
done
cmp -s "$tmp/big_sun_streamed.png" "$tmp/big_sun_full.png" ||
    fail "streamed .r16 under a Sun: settled != fully loaded"
cmp -s "$tmp/big_sun_streamed.png" "$tmp/big_first.png" && fail "streamed .r16: the Sun drew the fixed light"
# Its light with nowhere for its scratch files (the cache folder a file, TMPDIR missing): lit
# from the Sun without shadows, said in one line, the picture still drawn.
: > "$tmp/not_a_folder"
# shellcheck disable=SC2086
TMPDIR="$tmp/missing" "$exe" "$tmp/big.r16" $big_view --stream --cache-dir "$tmp/not_a_folder" \
    --sun-azimuth 250 --sun-elevation 12 --screenshot "$tmp/big_sun_noscratch.png" \
    --stats-json "$tmp/big_sun_noscratch.json" 2>"$tmp/noscratch.err" ||
    fail "streamed .r16 under a Sun without scratch files: exit"
[ "$(grep -c '^quadterrain: shadows off: cannot create a scratch file: ' "$tmp/noscratch.err")" = 1 ] ||
    fail "streamed .r16 without scratch files: the line ($(cat "$tmp/noscratch.err"))"
python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['sun']['shadows'] is False" \
    "$tmp/big_sun_noscratch.json" || fail "streamed .r16 without scratch files: stats"

# 9. GeoTIFFs opened streamed: a signed band with voids (read as floats, voids filled, quantised
#    into the code cache) and an unsigned one (read straight into the cache). The first open writes
#    the code cache, its sidecar and the voids' mask in the cache folder, the second maps them;
#    settled, both screenshots are the fully loaded map's, byte for byte, voids drawn as holes in
#    both, and so are the picks. With --fill-nodata, loaded whole, the voids are drawn filled.
python3 "$src/tests/app/tiff16.py" "$tmp/voids.tif" 300 --signed --tile 32 --voids
python3 "$src/tests/app/tiff16.py" "$tmp/plain.tif" 257
tif_view="--window 240x160 --eye 500,2500,500 --target 4500,1000,4500 --lod 2 --page-size 8"
for tif in voids plain; do
    for run in first second; do
        # shellcheck disable=SC2086
        "$exe" "$tmp/$tif.tif" $tif_view --stream --screenshot "$tmp/${tif}_$run.png" \
            --stats-json "$tmp/${tif}_$run.json" --pick 120,80 || fail "streamed $tif.tif, $run open"
    done
    [ ! -e "$tmp/$tif.tif.qtcodes" ] && [ ! -e "$tmp/$tif.tif.qtcodes.qtree" ] ||
        fail "streamed $tif.tif: a code cache or sidecar written beside the map"
    leaf=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['leaf_size'])" \
        "$tmp/${tif}_first.json")
    # shellcheck disable=SC2086
    "$exe" "$tmp/$tif.tif" $tif_view --leaf "$leaf" --screenshot "$tmp/${tif}_full.png" \
        --stats-json "$tmp/${tif}_full.json" --pick 120,80 --fill-nodata ||
        fail "fully loaded $tif.tif"
    # shellcheck disable=SC2086
    "$exe" "$tmp/$tif.tif" $tif_view --leaf "$leaf" --screenshot "$tmp/${tif}_holes.png" \
        --stats-json "$tmp/${tif}_holes.json" --pick 120,80 || fail "fully loaded $tif.tif with holes"
    cmp -s "$tmp/${tif}_first.png" "$tmp/${tif}_holes.png" ||
        fail "streamed $tif.tif, cache written: settled != fully loaded"
    cmp -s "$tmp/${tif}_second.png" "$tmp/${tif}_holes.png" ||
        fail "streamed $tif.tif from its cache != fully loaded"
    python3 - "$tmp" "$tif" <<'PY' || fail "streamed $tif.tif stats content"
import json, os, sys
first, second, full = (json.load(open(f"{sys.argv[1]}/{sys.argv[2]}_{k}.json"))
                       for k in ("first", "second", "full"))
s1, s2 = first["streaming"], second["streaming"]
assert s1["codes"] == "code cache" and s1["code_cache"] == "written" and s1["sidecar"] == "written", s1
assert s2["codes"] == "code cache" and s2["code_cache"] == "read" and s2["sidecar"] == "read", s2
codes = s1["cache"]["codes"]
assert codes.startswith(f"{sys.argv[1]}/cache home/quadterrain/{sys.argv[2]}.tif.") and os.path.isfile(codes), s1
assert s1["cache"] == s2["cache"] == {"codes": codes, "tree": codes + ".qtree"}, (s1, s2)
assert os.path.isfile(codes + ".qtree"), codes
assert "streaming" not in full, full.get("streaming")
assert s1["resident"] > 0 and s1["requested"] == 0, s1
holes = json.load(open(f"{sys.argv[1]}/{sys.argv[2]}_holes.json"))
assert first["pick"] == holes["pick"] == second["pick"] and holes["pick"]["hit"], (first["pick"], holes["pick"])
assert first["heights"] == full["heights"] == second["heights"] == holes["heights"], (first["heights"], full["heights"])
voids = sys.argv[2] == "voids"
for j in (first, second, holes):
    assert j["nodata"]["samples"] == full["nodata"]["samples"] and not j["nodata"]["filled"], j["nodata"]
assert (full["nodata"]["samples"] > 0) == voids and full["nodata"]["filled"] == voids, full["nodata"]
mask = codes + ".qtnodata"
assert os.path.isfile(mask) == voids, mask
PY
    if [ "$tif" = voids ]; then
        ! cmp -s "$tmp/${tif}_holes.png" "$tmp/${tif}_full.png" || fail "voids.tif: no holes drawn"
    else
        cmp -s "$tmp/${tif}_holes.png" "$tmp/${tif}_full.png" || fail "plain.tif: --fill-nodata changed it"
    fi
done
# 9b. voids.tif baked (quadterrain-bake, one region) and its layout opened whole: level 0 read
#     once with each tile held to its checksum, the bake's tree flown with no pass over the map.
#     Culled = unculled, and the picture and pick are the GeoTIFF's own (holes drawn), byte for byte;
#     streamed through its own code cache (made from the checked tiles), settled, the same picture.
"$(dirname "$exe")/quadterrain-bake" "$tmp/voids.tif" "$tmp/voids layout" >/dev/null ||
    fail "quadterrain-bake voids.tif"
for cull in "" --no-cull; do
    # shellcheck disable=SC2086
    "$exe" "$tmp/voids layout" $tif_view --leaf 4 $cull --screenshot "$tmp/layout$cull.png" \
        --stats-json "$tmp/layout$cull.json" --pick 120,80 || fail "voids layout $cull"
done
"$exe" "$tmp/voids.tif" $tif_view --leaf 4 --screenshot "$tmp/voids_leaf4.png" \
    --stats-json "$tmp/voids_leaf4.json" --pick 120,80 || fail "voids.tif, leaves of 4"
# shellcheck disable=SC2086
"$exe" "$tmp/voids layout" $tif_view --leaf 4 --stream --screenshot "$tmp/layout_streamed.png" \
    --stats-json "$tmp/layout_streamed.json" || fail "voids layout --stream"
cmp -s "$tmp/layout.png" "$tmp/layout--no-cull.png" || fail "voids layout: culled != unculled"
cmp -s "$tmp/layout.png" "$tmp/voids_leaf4.png" || fail "voids layout != voids.tif"
cmp -s "$tmp/layout.png" "$tmp/layout_streamed.png" || fail "voids layout streamed, settled != whole"
python3 - "$tmp" <<'PY' || fail "voids layout stats content"
import json, sys
layout, tif = (json.load(open(f"{sys.argv[1]}/{k}.json")) for k in ("layout", "voids_leaf4"))
# The bake's one region holds every level's nodes: its tree's errors are exact, made by the bake.
assert layout["lod_errors"] == tif["lod_errors"] == "exact", (layout["lod_errors"], tif["lod_errors"])
assert layout["load"]["errors_ms"] == 0 and tif["load"]["errors_ms"] > 0, (layout["load"], tif["load"])
assert layout["pick"] == tif["pick"] and layout["pick"]["hit"], (layout["pick"], tif["pick"])
assert layout["nodata"] == tif["nodata"] and layout["nodata"]["samples"] > 0, layout["nodata"]
assert layout["heights"] == tif["heights"], (layout["heights"], tif["heights"])
s = json.load(open(f"{sys.argv[1]}/layout_streamed.json"))["streaming"]
assert s["code_cache"] == "written" and s["sidecar"] == "read", s
assert s["cache"]["codes"].endswith(".layout.qtcodes"), s
PY
# 9c. plain.tif baked: a layout without holes opened streamed fetches its level 0 by tiles as the
#     view asks for them, none at open. Settled, the picture and the pick (its tiles fetched first)
#     are the GeoTIFF's byte for byte, culled = unculled. Under a Sun the light's job fetches every
#     tile first (lit as the GeoTIFF streamed under the same Sun); with every tile present the
#     code cache is finished, and the next open maps it with no tile read.
"$(dirname "$exe")/quadterrain-bake" "$tmp/plain.tif" "$tmp/plain layout" >/dev/null ||
    fail "quadterrain-bake plain.tif"
for cull in "" --no-cull; do
    # shellcheck disable=SC2086
    "$exe" "$tmp/plain layout" $tif_view --leaf 4 --stream $cull --cache-dir "$tmp/tiles" \
        --screenshot "$tmp/tiles$cull.png" --stats-json "$tmp/tiles$cull.json" --pick 120,80 ||
        fail "plain layout by tiles $cull"
done
"$exe" "$tmp/plain.tif" $tif_view --leaf 4 --screenshot "$tmp/plain_leaf4.png" \
    --stats-json "$tmp/plain_leaf4.json" --pick 120,80 || fail "plain.tif, leaves of 4"
cmp -s "$tmp/tiles.png" "$tmp/tiles--no-cull.png" || fail "plain layout by tiles: culled != unculled"
cmp -s "$tmp/tiles.png" "$tmp/plain_leaf4.png" || fail "plain layout by tiles != plain.tif"
for how in "plain layout" plain.tif; do
    # shellcheck disable=SC2086
    "$exe" "$tmp/$how" $tif_view --leaf 4 --stream --cache-dir "$tmp/tiles" --sun-azimuth 250 \
        --sun-elevation 12 --screenshot "$tmp/$how sun.png" --stats-json "$tmp/$how sun.json" ||
        fail "$how streamed under a Sun"
done
cmp -s "$tmp/plain layout sun.png" "$tmp/plain.tif sun.png" ||
    fail "plain layout by tiles under a Sun != plain.tif streamed under it"
"$exe" "$tmp/plain layout" $tif_view --leaf 4 --stream --cache-dir "$tmp/tiles" \
    --stats-json "$tmp/tiles_again.json" || fail "plain layout, its cache finished"
# A tile the view reads damaged at rest: the scripted frame is not taken from the coarser level
# but refused, in one line naming level 0's file, exit 1.
cp -r "$tmp/plain layout" "$tmp/damaged layout"
python3 - "$tmp/damaged layout/heights-0.tif" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(0, 2)
    middle = f.tell() // 2
    f.seek(middle)
    data = bytearray(f.read(64))
    f.seek(middle)
    f.write(bytes(b ^ 0x5A for b in data))
PY
# shellcheck disable=SC2086
"$exe" "$tmp/damaged layout" $tif_view --leaf 4 --stream --cache-dir "$tmp/damaged" \
    --stats-json "$tmp/damaged.json" 2>"$tmp/damaged.err"
status=$?
[ "$status" = 1 ] || fail "a damaged tile the view reads: exit $status, not 1"
[ "$(wc -l < "$tmp/damaged.err")" = 1 ] &&
    grep -q '^quadterrain: heights the view reads are unread: heights-0.tif: tile (0, 0) ' \
        "$tmp/damaged.err" || fail "a damaged tile the view reads: $(cat "$tmp/damaged.err")"
python3 - "$tmp" <<'PY' || fail "plain layout by tiles stats content"
import json, sys
tiles, whole, sun, again = (json.load(open(f"{sys.argv[1]}/{k}.json"))
                            for k in ("tiles", "plain_leaf4", "plain layout sun", "tiles_again"))
s = tiles["streaming"]
assert s["code_cache"] == "by tiles" and s["sidecar"] == "read", s
t = s["tiles"]
assert 0 < t["present"] == t["read"] <= t["total"] and t["failed"] == 0 and t["kept"] == 0, t
assert tiles["pick"] == whole["pick"] and whole["pick"]["hit"], (tiles["pick"], whole["pick"])
assert tiles["heights"] == whole["heights"], (tiles["heights"], whole["heights"])
t = sun["streaming"]["tiles"]
assert sun["sun"]["shadows"] is True and t["present"] == t["total"] and t["cache_kept"], (sun["sun"], t)
s = again["streaming"]
assert s["code_cache"] == "read" and "tiles" not in s and s["cache"]["codes"].endswith(".layout.qtcodes"), s
PY
# 10. The .r16 of 8 read into memory with its level-0 pages on demand: the first view waits for its
#     own pages, so the screenshot is the whole upload's byte for byte, and so is a frame without
#     level of detail (which makes the heights whole first); picking is unchanged.
for upload in whole on-demand; do
    # shellcheck disable=SC2086
    "$exe" "$tmp/big.r16" $big_view --upload $upload --screenshot "$tmp/up_$upload.png" \
        --stats-json "$tmp/up_$upload.json" --pick 120,80 || fail "--upload $upload"
    # shellcheck disable=SC2086
    "$exe" "$tmp/big.r16" $big_view --upload $upload --lod off --screenshot "$tmp/upoff_$upload.png" ||
        fail "--upload $upload --lod off"
done
cmp -s "$tmp/up_whole.png" "$tmp/up_on-demand.png" || fail "--upload on-demand != whole"
cmp -s "$tmp/upoff_whole.png" "$tmp/upoff_on-demand.png" || fail "--upload on-demand --lod off != whole"
python3 - "$tmp" <<'PY' || fail "--upload on-demand stats content"
import json, sys
whole, lazy = (json.load(open(f"{sys.argv[1]}/up_{k}.json")) for k in ("whole", "on-demand"))
assert "streaming" not in whole and whole["load"]["pages_ms"] == 0, whole["load"]
s = lazy["streaming"]
assert s["on_demand"] is True and s["mapped"] is False and s["requested"] == 0, s
ps = lazy["gpu_heights"]["page_size"]
assert 0 < s["resident"] <= s["pool"] <= (512 // ps) ** 2 + (256 // ps) ** 2, s  # levels 0 and 1
assert lazy["load"]["pages_ms"] > 0, lazy["load"]
assert lazy["pick"] == whole["pick"] and whole["pick"]["hit"], (lazy["pick"], whole["pick"])
assert lazy["triangles_drawn"] == whole["triangles_drawn"], (lazy["triangles_drawn"], whole["triangles_drawn"])
PY

# 11. Streamed views of every shape settle to the fully loaded map's pixels, run after run: wide
#     and short windows at wide angles over a map rough at the sample scale, whose coarse errors
#     reach further than the pool sized from the view allows for (7 layers where 32 are asked
#     for), and a view not culled. The pool doubles until nothing is asked for before the frame.
python3 - "$tmp/rough.r16" <<'PY'
import math, struct, sys
w, h = 2048, 1024
def v(c, r):
    x = 30000 + 14000 * math.sin(c * 0.021) * math.cos(r * 0.017) + 9000 * math.sin((3 * c - r) * 0.0071)
    x += 6000 * math.sin(c * 1.7 + r * 0.3) * math.cos(r * 2.3)
    return max(0, min(65535, int(x)))
open(sys.argv[1], "wb").write(b"".join(struct.pack("<%dH" % w, *[v(c, r) for c in range(w)])
                                       for r in range(h)))
PY
views=("--window 1200x100 --fov 120 --lod 4 --eye 300,40000,300 --target 1500,0,700"
       "--window 1200x100 --fov 120 --lod 2 --eye 100,30000,500 --target 1900,0,500"
       "--window 600x60 --fov 110 --lod 4 --eye 1000,20000,-100 --target 1000,0,1000"
       "--window 60x600 --fov 10 --lod 1 --eye -60,30000,-60 --target 1500,0,700 --no-cull")
for i in "${!views[@]}"; do
    # shellcheck disable=SC2086
    "$exe" "$tmp/rough.r16" --size 2048x1024 ${views[$i]} --screenshot "$tmp/rough_full_$i.png" ||
        fail "rough .r16 loaded, view $i"
    for run in 1 2; do
        # shellcheck disable=SC2086
        "$exe" "$tmp/rough.r16" --size 2048x1024 --stream ${views[$i]} \
            --screenshot "$tmp/rough_${i}_${run}.png" --stats-json "$tmp/rough_${i}_${run}.json" ||
            fail "rough .r16 streamed, view $i, run $run"
        cmp -s "$tmp/rough_full_$i.png" "$tmp/rough_${i}_${run}.png" ||
            fail "rough .r16 streamed, view $i, run $run: settled != fully loaded"
    done
done
python3 - "$tmp" <<'PY' || fail "rough .r16 streamed: requests outstanding"
import glob, json, sys
for f in glob.glob(f"{sys.argv[1]}/rough_*_*.json"):
    s = json.load(open(f))["streaming"]
    assert s["requested"] == 0 and s["resident"] <= s["pool"], (f, s)
PY

# 12. Fog: off draws the far terrain in its own colours, a start past the far plane is off, a
#     start at the eye fogs more than the default; culling equals no culling with the fog off.
far="--eye -50,10,200 --target 64,30,64 --window 200x120"
for fog in on off 1e30 0; do
    # shellcheck disable=SC2086
    "$exe" "$map" $far --fog "$fog" --screenshot "$tmp/fog_$fog.png" || fail "--fog $fog"
done
# shellcheck disable=SC2086
"$exe" "$map" $far --fog off --no-cull --screenshot "$tmp/fog_off_unculled.png" ||
    fail "--fog off --no-cull"
cmp -s "$tmp/fog_off.png" "$tmp/fog_1e30.png" || fail "--fog 1e30 (past the far plane) != --fog off"
cmp -s "$tmp/fog_off.png" "$tmp/fog_off_unculled.png" || fail "--fog off: culled != unculled"
python3 - "$tmp" <<'PY' || fail "fog: off, on and from the eye are not ordered by how sky-coloured they are"
import sys, zlib, struct
def pixels(path):
    data = open(path, "rb").read()
    w, h = struct.unpack(">II", data[16:24])
    idat, i = b"", 8
    while i < len(data):
        n = struct.unpack(">I", data[i:i + 4])[0]
        if data[i + 4:i + 8] == b"IDAT":
            idat += data[i + 8:i + 8 + n]
        i += 12 + n
    raw = zlib.decompress(idat)
    stride, out, prev = w * 3, [], bytearray(w * 3)
    for r in range(h):
        f, line = raw[r * (stride + 1)], bytearray(raw[r * (stride + 1) + 1:(r + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - 3] if x >= 3 else 0
            b, c = prev[x], prev[x - 3] if x >= 3 else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.append(bytes(line)); prev = line
    return b"".join(out)
sky = (158, 189, 219)  # kSkyColour
def distance(path):
    p = pixels(path)
    return sum(abs(p[i] - sky[0]) + abs(p[i + 1] - sky[1]) + abs(p[i + 2] - sky[2])
               for i in range(0, len(p), 3))
off, on, eye = (distance(f"{sys.argv[1]}/fog_{k}.png") for k in ("off", "on", "0"))
print(f"fog: distance from the sky colour off {off}, on {on}, from the eye {eye}")
sys.exit(0 if off > on > eye else 1)
PY

# 13. Contours: lines change the picture, 0 and off draw none, culled equals unculled with them on,
#     and a bad interval is refused.
# shellcheck disable=SC2086
"$exe" "$map" $far --fog off --contours 5000 --screenshot "$tmp/contours.png" || fail "--contours 5000"
# shellcheck disable=SC2086
"$exe" "$map" $far --fog off --contours 5000 --no-cull --screenshot "$tmp/contours_unculled.png" ||
    fail "--contours 5000 --no-cull"
# shellcheck disable=SC2086
"$exe" "$map" $far --fog off --contours 0 --screenshot "$tmp/contours_0.png" || fail "--contours 0"
cmp -s "$tmp/contours.png" "$tmp/contours_unculled.png" || fail "--contours 5000: culled != unculled"
cmp -s "$tmp/contours_0.png" "$tmp/fog_off.png" || fail "--contours 0 != no contours"
cmp -s "$tmp/contours.png" "$tmp/fog_off.png" && fail "--contours 5000 drew no lines"
if "$exe" "$map" --contours -1 --screenshot "$tmp/bad.png" 2>/dev/null; then
    fail "--contours -1 should be refused"
fi

# 14. The Sun: lit and shadowed from where it is, unlike the fixed light and unlike the opposite
# Sun; culled == unculled with it, at full detail and by level of detail.
sunView="--window 160x90 --eye 0,60,0 --target 128,0,128"
# shellcheck disable=SC2086
"$exe" "$map" $sunView --screenshot "$tmp/sun_none.png" || fail "no Sun"
for lod in off 4; do
    # shellcheck disable=SC2086
    "$exe" "$map" $sunView --lod $lod --sun-azimuth 270 --sun-elevation 10 \
        --screenshot "$tmp/sun_west_$lod.png" || fail "--sun-azimuth 270, --lod $lod"
    # shellcheck disable=SC2086
    "$exe" "$map" $sunView --lod $lod --sun-azimuth 270 --sun-elevation 10 --no-cull \
        --screenshot "$tmp/sun_west_u_$lod.png" || fail "--sun-azimuth 270 --no-cull, --lod $lod"
    cmp -s "$tmp/sun_west_$lod.png" "$tmp/sun_west_u_$lod.png" ||
        fail "Sun, --lod $lod: culled != unculled"
done
# shellcheck disable=SC2086
"$exe" "$map" $sunView --sun-azimuth 90 --sun-elevation 10 --screenshot "$tmp/sun_east.png" ||
    fail "--sun-azimuth 90"
cmp -s "$tmp/sun_west_off.png" "$tmp/sun_none.png" && fail "the Sun in the west drew the fixed light"
cmp -s "$tmp/sun_west_off.png" "$tmp/sun_east.png" && fail "Suns in the west and east drew alike"
# The stats say whether the shadows are drawn: yes for a map in memory and for one streamed.
"$exe" "$map" --sun-azimuth 270 --stats-json "$tmp/sun.json" || fail "--sun-azimuth stats"
"$exe" "$map" --stream --sun-azimuth 270 --stats-json "$tmp/sun_streamed.json" ||
    fail "--sun-azimuth --stream stats"
python3 - "$tmp/sun.json" "$tmp/sun_streamed.json" <<'PY' || fail "the Sun's shadows in the stats"
import json, sys
assert json.load(open(sys.argv[1]))["sun"]["shadows"] is True
assert json.load(open(sys.argv[2]))["sun"]["shadows"] is True
PY

if [ $failures -gt 0 ]; then
    echo "cli_test: $failures failure(s)" >&2
    exit 1
fi
echo "cli_test: all passed"
