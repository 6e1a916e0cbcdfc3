#!/usr/bin/env bash
# The measuring picture of docs/screenshots.md: the viewer over the default map, a measuring drag between two
# points driven by xdotool, saved by the F12 key (the window with its HUD and cursor bar).
# Usage: xvfb-run -a -s "-screen 0 1280x1024x24" bash bench/measure_picture.sh BUILD_DIR OUT.png
set -eu
build=$1
out=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
src=$(cd "$(dirname "$0")/.." && pwd)
exe=$(cd "$build" && pwd)/quadterrain
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$src"
"$exe" data/default_1025.png --window 1280x720 --eye 300,260,1000 --target 600,60,600 --lod 1 \
    --state-json "$tmp/state.json" >"$tmp/out.txt" &
pid=$!
for _ in $(seq 600); do grep -q ready "$tmp/out.txt" && break; sleep 0.1; done
window=$(xdotool search --sync --pid "$pid" | head -1)
xdotool mousemove --window "$window" 620 420 sleep 1 mousedown 1 sleep 1 \
    mousemove --window "$window" 950 520 sleep 1.5 mouseup 1 sleep 1.5 key F12 sleep 2 key Escape
wait "$pid"
shot=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["screenshot"])' "$tmp/state.json")
mv "$shot" "$out"
echo "measure_picture: $out"
