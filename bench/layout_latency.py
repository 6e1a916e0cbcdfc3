#!/usr/bin/env python3
"""A baked layout flown from nginx on 127.0.0.1 by tiles, straight and through a relay that holds
each request for a delay (bench/latency_relay.py: 100 ms, as a far object store answers): the
bench flight (quadterrain --bench, level of detail alone at --lod PIXELS, 1280x720), its level-0
pages fetched by the streamer's worker as the eye moves, never by the frame. Each row: the medians
of --runs runs (interleaved) and their spread, of the time to the first frame (the tree, the coarse
levels read and uploaded at open, then the first view's tiles), the flight's median and worst frame
and their ratio, the viewer's peak resident memory (its own rusage), the disk its code cache took,
and the requests and bytes the server answered (its access log), level 0's apart (its file's, or a
layout by jobs' regions').

With --baked, MAP is a layout folder already baked (quadterrain-bake's, for a map too big to bake
each time: bench/giant.py's), served as it is.

Usage: python3 bench/layout_latency.py [--build DIR] [--runs R] [--frames N] [--lod PIXELS]
                                       [--delays MS,MS] [--baked] MAP
"""
import argparse
import csv
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

from served import bake_to_serve, measured, nginx, spread

HERE = os.path.dirname(os.path.abspath(__file__))

parser = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("map", help="a raster quadterrain-bake reads (a .r16 or a GDAL raster)")
parser.add_argument("--build", default="build", help="the build folder (default: build)")
parser.add_argument("--runs", type=int, default=3, help="runs of each delay (default: 3)")
parser.add_argument("--frames", type=int, default=120, help="timed frames (default: 120)")
parser.add_argument("--lod", default="4", help="the level of detail's PIXELS (default: 4)")
parser.add_argument("--delays", default="0,100", help="ms a request is held (default: 0,100)")
parser.add_argument("--baked", action="store_true", help="MAP is a baked layout folder")
args = parser.parse_args()
viewer = os.path.join(args.build, "quadterrain")
bake = os.path.join(args.build, "quadterrain-bake")
delays = [int(d) for d in args.delays.split(",")]


def relay(server_port, delay):
    """bench/latency_relay.py in front of the server: (process, its port)."""
    process = subprocess.Popen([sys.executable, os.path.join(HERE, "latency_relay.py"),
                                str(server_port), str(delay)], stdout=subprocess.PIPE, text=True)
    return process, int(process.stdout.readline())


LEVEL0_REGION = re.compile(r" /layout/regions/[0-9]+-[0-9]+/heights-0\.tif ")


def disk_bytes(folder):
    """The bytes of disk the files under `folder` hold (their blocks: a file may be sparse)."""
    total = 0
    for path, _, names in os.walk(folder):
        for name in names:
            total += os.lstat(os.path.join(path, name)).st_blocks * 512
    return total


def served(log, start):
    """(requests, bytes; level 0's requests, bytes) from offset `start` of the access log on, and
    the log's end."""
    with open(log) as f:
        f.seek(start)
        text = f.read()
        end = f.tell()
    counts = [0, 0, 0, 0]
    for line in text.splitlines():
        sent = 0
        if "bytes=" in line:
            first, last = line.split("bytes=")[1].split("-")
            sent = int(last) - int(first) + 1
        level0 = " /layout/heights-0.tif " in line or LEVEL0_REGION.search(line) is not None
        counts[0] += 1
        counts[1] += sent
        counts[2] += 1 if level0 else 0
        counts[3] += sent if level0 else 0
    return counts, end


def fly(url, cache, out_csv):
    """(first frame ms, median frame ms, worst frame ms) of one bench flight with an empty cache."""
    shutil.rmtree(cache, ignore_errors=True)
    command = [viewer, url, "--stream", "--cache-dir", cache, "--window", "1280x720", "--lod",
               args.lod, "--bench-lod-only", "--bench", out_csv, "--frames", str(args.frames)]
    _, stdout, usage = measured(command, "layout_latency.py")
    first = re.search(r"load: ([0-9.]+) ms to the first frame", stdout)
    if not first:
        sys.exit(f"layout_latency.py: no load line in the bench output:\n{stdout}")
    with open(out_csv) as f:
        frames = [float(r["frame_ms"]) for r in csv.DictReader(f) if r["mode"] == "lod"]
    cache_bytes = disk_bytes(cache)
    shutil.rmtree(cache, ignore_errors=True)
    return (float(first.group(1)), statistics.median(frames), max(frames),
            usage.ru_maxrss / 1024, cache_bytes / 1048576)


with tempfile.TemporaryDirectory() as tmp:
    if args.baked:
        root = os.path.join(tmp, "served")
        os.makedirs(root)
        os.symlink(os.path.abspath(args.map), os.path.join(root, "layout"))
    else:
        root, _ = bake_to_serve(bake, args.map, tmp, "layout_latency.py")
    prefix = os.path.join(tmp, "nginx")
    os.makedirs(prefix)
    server, url, log = nginx(root, prefix, "layout_latency.py")
    relays = {}
    try:  # the server and relays end with the bench, whatever ends it
        port = int(url.rsplit(":", 1)[1].strip("/"))
        for d in delays:
            relays[d] = relay(port, d)
        results = {d: [] for d in delays}
        offset = 0
        for _ in range(args.runs):
            for d in delays:
                _, offset = served(log, offset)
                run = fly(f"http://127.0.0.1:{relays[d][1]}/layout", os.path.join(tmp, "cache"),
                          os.path.join(tmp, "flight.csv"))
                counts, offset = served(log, offset)
                results[d].append((*run, *counts))
    finally:
        for process in [p for p, _ in relays.values()] + [server]:
            process.kill()
            process.wait()

print(f"{os.path.basename(os.path.normpath(args.map))} baked, flown by tiles from nginx on 127.0.0.1: "
      f"{args.frames} frames at --lod {args.lod}, 1280x720, {args.runs} runs each, interleaved")
print()
print("| delay a request, ms | first frame ms | median frame ms | worst frame ms | worst / median | "
      "peak resident MiB | code cache's disk MiB | requests (level 0's) | MiB sent (level 0's) |")
print("|---|---|---|---|---|---|---|---|---|")
for d in delays:
    rows = results[d]
    print(f"| {d} | {spread([r[0] for r in rows], 0)} | {spread([r[1] for r in rows], 1)} | "
          f"{spread([r[2] for r in rows], 1)} | {spread([r[2] / r[1] for r in rows], 2)} | "
          f"{spread([r[3] for r in rows], 0)} | {spread([r[4] for r in rows], 0)} | "
          f"{spread([r[5] for r in rows], 0)} ({spread([r[7] for r in rows], 0)}) | "
          f"{spread([r[6] / 1048576 for r in rows], 1)} "
          f"({spread([r[8] / 1048576 for r in rows], 1)}) |")
