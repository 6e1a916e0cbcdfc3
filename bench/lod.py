#!/usr/bin/env python3
"""Runs `quadterrain --bench --lod P` on each map and grid step; prints the README's level-of-detail
table.

Usage: python3 bench/lod.py [--build DIR] [--frames N] [--window WxH] [--runs R] [--lod P,P,...]
                            MAP...
Each run flies the path with level of detail alone first (its peak resident memory), then draws
each camera culled at full detail, culled by the frustum only, unculled, and culled by level of
detail, in turn: the ratios are taken inside one run. With --runs R each map and step runs R
times; the table gives the run with the median level-of-detail frame and the spread of peak
memory over all R. Needs a display: run it under xvfb-run -a.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

parser = argparse.ArgumentParser()
parser.add_argument("maps", nargs="+")
parser.add_argument("--build", default="build")
parser.add_argument("--frames", type=int, default=16)
parser.add_argument("--window", default="1280x720")
parser.add_argument("--runs", type=int, default=1)
parser.add_argument("--lod", default="1,2,4", help="grid steps in pixels, comma-separated")
args = parser.parse_args()
steps = [float(p) for p in args.lod.split(",")]


def number(pattern, text):
    match = re.search(pattern, text)
    if not match:
        sys.exit(f"lod.py: '{pattern}' not in the bench output:\n{text}")
    return float(match.group(1))


def bench(path, pixels):
    out_csv = f"/tmp/qt_lod_{os.getpid()}.csv"
    run = subprocess.run(
        [os.path.join(args.build, "quadterrain"), path, "--window", args.window, "--bench",
         out_csv, "--frames", str(args.frames), "--lod", str(pixels)],
        capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"lod.py: {path}: exit {run.returncode}\n{run.stderr}")
    os.remove(out_csv)
    text = run.stdout
    tri = re.search(r"triangles: median (\d+) culled, (\d+) with level of detail", text)
    return {
        "culled": number(r"culled: +median ([\d.]+) ms", text),
        "unculled": number(r"unculled: median ([\d.]+) ms", text),
        "lod": number(r"lod: +median ([\d.]+) ms", text),
        "tri_culled": int(tri.group(1)),
        "tri_lod": int(tri.group(2)),
        "share": number(r"median ([\d.]+)% of a level-of-detail frame", text),
        "peak": number(r"memory: ([\d.]+) MiB after the level-of-detail flight", text),
        "per": number(r"level-of-detail flight \(([\d.]+) bytes", text),
    }


print(f"`python3 bench/lod.py --frames {args.frames} --window {args.window} --runs {args.runs} "
      f"--lod {args.lod} MAPS` (llvmpipe, medians over the path)")
print()
print("| map | grid step | triangles: culled / level of detail | frame ms: culled / unculled / "
      "level of detail | culled / level of detail | selection share | peak RSS after the "
      "level-of-detail flight |")
print("|---|---|---|---|---|---|---|")
for path in args.maps:
    for pixels in steps:
        runs = sorted((bench(path, pixels) for _ in range(args.runs)), key=lambda r: r["lod"])
        r = runs[len(runs) // 2]
        peaks = [x["peak"] for x in runs]
        pers = [x["per"] for x in runs]
        peak = (f"{min(peaks):.0f} MiB ({min(pers):.1f} B/sample)" if len(runs) == 1 else
                f"{min(peaks):.0f}-{max(peaks):.0f} MiB ({min(pers):.1f}-{max(pers):.1f} "
                f"B/sample) over {len(runs)} runs")
        print(f"| {os.path.basename(path)} | {pixels:g} px | {r['tri_culled']:,} / "
              f"{r['tri_lod']:,} | {r['culled']:.0f} / {r['unculled']:.0f} / {r['lod']:.0f} | "
              f"{r['culled'] / r['lod']:.2f}x | {r['share']:.2f}% | {peak} |", flush=True)
