#!/usr/bin/env python3
"""Runs `quadterrain --bench` on each map and prints the README's frames and scaling table.

Usage: python3 bench/frames.py [--build DIR] [--frames N] [--window WxH] MAP...
Each map flies the same kind of path (flight_path.cpp) culled (frustum and occlusion), then
culled by the frustum only, then unculled, in one process, so every ratio is taken inside one run. Needs a display: run it under xvfb-run -a.
"""
import argparse
import csv
import os
import re
import statistics
import subprocess
import sys

parser = argparse.ArgumentParser()
parser.add_argument("maps", nargs="+")
parser.add_argument("--build", default="build")
parser.add_argument("--frames", type=int, default=32)
parser.add_argument("--window", default="1280x720")
args = parser.parse_args()


def number(pattern, text):
    match = re.search(pattern, text)
    if not match:
        sys.exit(f"frames.py: '{pattern}' not in the bench output:\n{text}")
    return float(match.group(1))


print(f"`python3 bench/frames.py --frames {args.frames} --window {args.window} MAPS` "
      f"(llvmpipe, medians over the path)")
print()
print("| map | samples | leaves drawn | occluded | cull ms: frustum / with occlusion | "
      "frame ms: culled / frustum only / unculled | speed-up: culled / frustum only | "
      "cull share | peak RSS: before the first frame | after the culled flight | "
      "with the unculled frames | load s (decode / tree / upload) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for path in args.maps:
    out_csv = f"/tmp/qt_frames_{os.getpid()}.csv"
    run = subprocess.run(
        [os.path.join(args.build, "quadterrain"), path, "--window", args.window, "--bench",
         out_csv, "--frames", str(args.frames)], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"frames.py: {path}: exit {run.returncode}\n{run.stderr}")
    text = run.stdout
    with open(out_csv) as f:
        every = list(csv.DictReader(f))
    rows = [r for r in every if r["mode"] == "culled"]
    frustum_rows = [r for r in every if r["mode"] == "frustum"]
    os.remove(out_csv)
    side = re.search(r"(\d+)x(\d+) samples", text)
    width, height = int(side.group(1)), int(side.group(2))
    leaves = statistics.median(int(r["leaves_drawn"]) for r in rows)
    total = sum(int(rows[0][k]) for k in ("leaves_drawn", "leaves_culled", "leaves_occluded"))
    occluded = number(r"occluded: median ([\d.]+)%", text)
    walk = statistics.median(float(r["cull_ms"]) for r in frustum_rows)
    cull = statistics.median(float(r["cull_ms"]) for r in rows)
    culled = number(r"culled: +median ([\d.]+) ms", text)
    frustum = number(r"frustum: +median ([\d.]+) ms", text)
    unculled = number(r"unculled: median ([\d.]+) ms", text)
    share = number(r"draw list: median ([\d.]+)%", text)
    peak, per = number(r"memory: ([\d.]+) MiB after the culled", text), number(
        r"culled flight \(([\d.]+) bytes", text)
    peak_all, per_all = number(r", ([\d.]+) MiB after the unculled", text), number(
        r"unculled frames \(([\d.]+) bytes", text)
    before = number(r", ([\d.]+) MiB before the first frame", text)
    load = [number(p, text) / 1000.0 for p in
            (r"load: ([\d.]+) ms", r"decode ([\d.]+)", r"tree ([\d.]+)", r"upload ([\d.]+)")]
    print(f"| {os.path.basename(path)} | {width}x{height} | {leaves:.0f} of {total} | "
          f"{occluded:.1f}% | {walk:.3f} / {cull:.2f} | {culled:.0f} / {frustum:.0f} / "
          f"{unculled:.0f} | {unculled / culled:.2f}x / {unculled / frustum:.2f}x | "
          f"{share:.3f}% | {before:.0f} MiB | {peak:.0f} MiB ({per:.1f} B/sample) | {peak_all:.0f} MiB "
          f"({per_all:.1f} B/sample) | {load[0]:.2f} ({load[1]:.2f} / {load[2]:.2f} / "
          f"{load[3]:.2f}) |", flush=True)
