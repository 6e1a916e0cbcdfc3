#!/usr/bin/env python3
"""A streamed map's figures: its first open (the pass over the map that writes its sidecar, or for a
GDAL raster the pass through GDAL that writes its code cache and the cache's sidecar),
its reopen (from the sidecar, and the cache) to the first frame, and a flight over it, each with
the process's peak resident memory.

Usage: python3 bench/stream.py [--build DIR] [--frames N] [--window WxH] [--lod PIXELS]
                               [--memory-budget MB] [--keep-sidecar] MAP.r16|MAP.tif|MAP.vrt...
1. Unless --keep-sidecar (which uses the cache folder, $XDG_CACHE_HOME/quadterrain), the sidecar
   and a raster's code cache go to an empty cache folder of the run's own (--cache-dir) and
   `quadterrain MAP --stream --stats-json OUT` opens it: the banded pass over the map, the
   sidecar (and cache) written, one settled frame.
2. The same again: the tree comes from the sidecar (the codes from the cache);
   `load.first_frame_ms` is the time from the start of the load to the first frame's draw (read
   the sidecar, map the codes, upload the coarse levels); the process's wall time includes the
   window and the settled frame.
3. `quadterrain MAP --stream --lod PIXELS --bench-lod-only --bench CSV --frames N`: the fixed
   bench flight by level of detail, pages arriving as the eye moves (a bench frame does not wait
   for them); each frame's time, the median, the spread, the worst and worst / median.
With --imagery IMAGE every run drapes it, its pages streamed too (a bench frame waits for the
imagery pages it reads), stored as --imagery-compression says (none, the default, or bc3). Peaks are /usr/bin/time -v's "Maximum resident set size" (VmHWM):
llvmpipe keeps the GPU's pages in host memory, so they are in it. Needs a display: run under xvfb-run -a, or set DISPLAY.
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

parser = argparse.ArgumentParser()
parser.add_argument("map")
parser.add_argument("--build", default="build")
parser.add_argument("--frames", type=int, default=120)
parser.add_argument("--window", default="1280x720")
parser.add_argument("--lod", default="2")
parser.add_argument("--keep-sidecar", action="store_true")
parser.add_argument("--memory-budget", default=None, help="MiB, passed to quadterrain")
parser.add_argument("--imagery", default=None, help="imagery draped in every run")
parser.add_argument("--imagery-compression", default="none", choices=("none", "bc3"))
args = parser.parse_args()

binary = os.path.join(args.build, "quadterrain")
budget = ["--memory-budget", args.memory_budget] if args.memory_budget else []
if args.imagery:
    budget += ["--imagery", args.imagery, "--imagery-compression", args.imagery_compression]


def run(command):
    """Runs command under /usr/bin/time -v: (wall seconds, peak resident MiB); exits on failure."""
    start = time.monotonic()
    result = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True, text=True)
    wall = time.monotonic() - start
    if result.returncode != 0:
        sys.exit("stream.py: %s: exit %d\n%s" % (" ".join(command), result.returncode,
                                                 result.stderr[-2000:]))
    match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr)
    return wall, int(match.group(1)) / 1024.0


def stats_run(label, folder):
    stats = os.path.join(folder, label + ".json")
    wall, peak = run([binary, args.map, "--stream", "--lod", args.lod, "--window", args.window,
                      "--stats-json", stats, *budget, *caches(folder)])
    with open(stats) as f:
        report = json.load(f)
    load = report["load"]
    streaming = report.get("streaming", {})
    print("%-8s wall %6.2f s, peak %7.0f MiB; load: decode %.0f ms, tree %.0f ms, upload %.0f ms,"
          " first frame %.0f ms; lod_errors %s; codes from %s (cache %s), sidecar %s" %
          (label, wall, peak, load["decode_ms"], load["tree_ms"], load["upload_ms"],
           load["first_frame_ms"], report.get("lod_errors"), streaming.get("codes"),
           streaming.get("code_cache"), streaming.get("sidecar")))
    imagery = report.get("imagery")
    if imagery:
        print("         imagery %dx%d texels, %d pages; pool %d layers, %.0f MiB; %d pages read "
              "by the frame; opened in %.0f ms" %
              (imagery["texels"][0], imagery["texels"][1], imagery["pages"],
               imagery["pool_layers"], imagery["gpu_bytes"] / 1048576.0,
               imagery["pages_wanted"], load["imagery_ms"]))
    return report


def caches(folder):
    """The cache folder's option: the run's own under FOLDER, or none with --keep-sidecar."""
    return [] if args.keep_sidecar else ["--cache-dir", os.path.join(folder, "cache")]


with tempfile.TemporaryDirectory() as folder:
    stats_run("open", folder)
    stats_run("reopen", folder)

    out_csv = os.path.join(folder, "flight.csv")
    wall, peak = run([binary, args.map, "--stream", "--lod", args.lod, "--bench-lod-only",
                      "--window", args.window, "--bench", out_csv, "--frames", str(args.frames), *budget,
                      *caches(folder)])
    with open(out_csv) as f:
        frames = [float(r["frame_ms"]) for r in csv.DictReader(f) if r["mode"] == "lod"]
    if not frames:
        sys.exit("stream.py: no level-of-detail frames in the bench CSV")
    median = statistics.median(frames)
    q = statistics.quantiles(frames, n=4) if len(frames) > 1 else [median, median, median]
    worst = max(frames)
    print("flight   wall %6.2f s, peak %7.0f MiB; %d frames: median %.1f ms (IQR %.1f-%.1f), "
          "worst %.1f ms, worst / median %.2f" %
          (wall, peak, len(frames), median, q[0], q[2], worst, worst / median))
