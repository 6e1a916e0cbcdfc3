#!/usr/bin/env python3
"""A baked layout's first frame, opened streamed: by tiles (nothing of level 0 read at open; the
view's pages fetch their tiles) against level 0 read whole into the code cache at open (as with
--objects, which stands objects on every sample), from the local folder and by URL from nginx on
127.0.0.1 (byte ranges). Each run opens with an empty cache folder and takes one scripted frame
(--stats-json) at 1280x720 from the default overview camera and from a low camera over the map's
middle; the runs of each way are interleaved. Each row: the median of --runs runs and their
spread, of the process's wall clock, the viewer's own first-frame time (load, tree, upload and
pages: --stats-json's first_frame_ms), its peak resident memory (its rusage, from wait4), the
tiles it read, and the bytes the server sent (its access log's ranges) of level 0's file against its size, and of every
file (the layout's manifest, tree and coarse levels too).

Usage: python3 bench/layout_open.py [--build DIR] [--runs R] MAP
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

from served import bake_to_serve, measured, nginx, spread

HERE = os.path.dirname(os.path.abspath(__file__))

parser = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("map", help="a raster quadterrain-bake reads (a .r16 or a GDAL raster)")
parser.add_argument("--build", default="build", help="the build folder (default: build)")
parser.add_argument("--runs", type=int, default=3, help="runs of each way (default: 3)")
args = parser.parse_args()
viewer = os.path.join(args.build, "quadterrain")
bake = os.path.join(args.build, "quadterrain-bake")


def served_bytes(log, start):
    """The bytes of the ranges served from offset `start` of the access log on, of level 0's file
    and of every file; and the log's end."""
    with open(log) as f:
        f.seek(start)
        text = f.read()
        end = f.tell()
    level0 = every = 0
    for line in text.splitlines():
        if "bytes=" in line:
            first, last = line.split("bytes=")[1].split("-")
            sent = int(last) - int(first) + 1
            every += sent
            level0 += sent if " /layout/heights-0.tif " in line else 0
    return (level0, every), end


def open_once(source, whole, camera, cache, out):
    """(wall s, first frame ms, peak MiB, tiles read) of one scripted frame with an empty cache."""
    shutil.rmtree(cache, ignore_errors=True)
    command = [viewer, source, "--stream", "--cache-dir", cache, "--window", "1280x720",
               "--stats-json", out, *camera] + (["--objects", "1"] if whole else [])
    wall, _, usage = measured(command, "layout_open.py")
    with open(out) as f:
        stats = json.load(f)
    streaming = stats["streaming"]
    expected = "written" if whole else "by tiles"
    if streaming["code_cache"] != expected:
        sys.exit(f"layout_open.py: {source}: code cache {streaming['code_cache']}, not {expected}")
    tiles = streaming.get("tiles", {}).get("read")
    return wall, stats["load"]["first_frame_ms"], usage.ru_maxrss / 1024.0, tiles


with tempfile.TemporaryDirectory() as tmp:
    root, layout = bake_to_serve(bake, args.map, tmp, "layout_open.py")
    with open(os.path.join(layout, "layout.json")) as f:
        manifest = json.load(f)
    level0 = os.path.getsize(os.path.join(layout, "heights-0.tif"))
    width, height = manifest["width"], manifest["height"]
    side = manifest.get("pageSize", 256)
    tiles_total = -(-width // side) * -(-height // side)
    prefix = os.path.join(tmp, "nginx")
    os.makedirs(prefix)
    server, url, log = nginx(root, prefix, "layout_open.py")
    # The layout's world from a first frame's stats: how far the map reaches, how high.
    probe = os.path.join(tmp, "probe.json")
    open_once(layout, False, [], os.path.join(tmp, "cache"), probe)
    with open(probe) as f:
        stats = json.load(f)
    world, heights = stats["world"], stats["heights"]
    size_x = world["spacing_x"] * (width - 1)
    size_z = world["spacing_z"] * (height - 1)
    low = world["height_scale"] * heights["min"] + world["height_offset"]
    high = world["height_scale"] * heights["max"] + world["height_offset"]
    low_y = high + 0.02 * max(size_x, size_z)
    cameras = [("overview", []),
               ("low", ["--eye", f"{0.4 * size_x},{low_y},{0.4 * size_z}",
                        "--target", f"{0.5 * size_x},{low},{0.5 * size_z}"])]
    ways = [(name, cam, source, whole)
            for name, cam in cameras
            for source in ("local", "url")
            for whole in (False, True)]
    results = {i: [] for i in range(len(ways))}
    offset = 0
    for _ in range(args.runs):
        for i, (name, cam, source, whole) in enumerate(ways):
            _, offset = served_bytes(log, offset)
            path = layout if source == "local" else url + "layout"
            run = open_once(path, whole, cam, os.path.join(tmp, "cache"), os.path.join(tmp, "s.json"))
            sent, offset = served_bytes(log, offset)
            results[i].append((*run, sent))
    server.kill()
    server.wait()

print(f"{os.path.basename(args.map)} baked: {width} x {height} samples, "
      f"{tiles_total} level-0 tiles of {side}², level 0's file {level0 / 1048576:.1f} MiB; "
      f"{args.runs} runs each, interleaved")
print()
print("| view | from | level 0 | wall s | first frame ms | peak MiB | tiles read | "
      "level 0's bytes sent / its file | MiB sent, every file |")
print("|---|---|---|---|---|---|---|---|---|")
for i, (name, cam, source, whole) in enumerate(ways):
    rows = results[i]
    tiles = [r[3] for r in rows if r[3] is not None]
    sent = [r[4][0] / level0 for r in rows]
    every = [r[4][1] / 1048576 for r in rows]
    print(f"| {name} | {'folder' if source == 'local' else 'nginx'} | "
          f"{'read at open' if whole else 'by tiles'} | {spread([r[0] for r in rows], 2)} | "
          f"{spread([r[1] for r in rows], 0)} | {spread([r[2] for r in rows], 0)} | "
          f"{spread(tiles, 0) + f' of {tiles_total}' if tiles else 'all'} | "
          f"{spread(sent, 3) if source == 'url' else '-'} | "
          f"{spread(every, 2) if source == 'url' else '-'} |")
