#!/usr/bin/env python3
"""Runs `quadterrain --bench` on each map and prints the README's frames and scaling table.

Usage: python3 bench/frames.py [--build DIR] [--frames N] [--window WxH] [--runs R] MAP...
Each map flies the same kind of path (flight_path.cpp) culled alone first (the peak memory of a
culled flight), then draws each camera culled (frustum and occlusion), culled by the frustum
only and unculled in turn, in one process, so every ratio is taken inside one run. Where the
renderer synchronises its draws (software rasterisers), each camera is also drawn culled in one
draw without waits: "culled / one draw" is the price of the bounded queue. With --runs R each
map runs R times: the row is the run with the median culled frame, and the peak memory is the
spread over all R. Needs a display: run it under xvfb-run -a.
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
parser.add_argument("--runs", type=int, default=1)
args = parser.parse_args()


def number(pattern, text):
    match = re.search(pattern, text)
    if not match:
        sys.exit(f"frames.py: '{pattern}' not in the bench output:\n{text}")
    return float(match.group(1))


def bench(path):
    """One --bench run of `path`: its figures as a dict."""
    out_csv = f"/tmp/qt_frames_{os.getpid()}.csv"
    run = subprocess.run(
        [os.path.join(args.build, "quadterrain"), path, "--window", args.window, "--bench",
         out_csv, "--frames", str(args.frames)], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"frames.py: {path}: exit {run.returncode}\n{run.stderr}")
    text = run.stdout
    with open(out_csv) as f:
        every = list(csv.DictReader(f))
    os.remove(out_csv)
    rows = [r for r in every if r["mode"] == "culled"]
    frustum_rows = [r for r in every if r["mode"] == "frustum"]
    side = re.search(r"(\d+)x(\d+) samples", text)
    synced = "one-draw: median" in text
    return {
        "width": int(side.group(1)), "height": int(side.group(2)),
        "leaves": statistics.median(int(r["leaves_drawn"]) for r in rows),
        "total": sum(int(rows[0][k]) for k in ("leaves_drawn", "leaves_culled", "leaves_occluded")),
        "occluded": number(r"occluded: median ([\d.]+)%", text),
        "walk": statistics.median(float(r["cull_ms"]) for r in frustum_rows),
        "cull": statistics.median(float(r["cull_ms"]) for r in rows),
        "culled": number(r"culled: +median ([\d.]+) ms", text),
        "frustum": number(r"frustum: +median ([\d.]+) ms", text),
        "unculled": number(r"unculled: median ([\d.]+) ms", text),
        "one_draw": number(r"one-draw: median ([\d.]+) ms", text) if synced else None,
        "draws": max(int(r["draw_calls"]) for r in every),
        "share": number(r"draw list: median ([\d.]+)%", text),
        "peak": number(r"memory: ([\d.]+) MiB after the culled", text),
        "per": number(r"culled flight \(([\d.]+) bytes", text),
        "peak_all": number(r", ([\d.]+) MiB after the unculled", text),
        "per_all": number(r"unculled frames \(([\d.]+) bytes", text),
        "before": number(r", ([\d.]+) MiB before the first frame", text),
        "load": [number(p, text) / 1000.0 for p in
                 (r"load: ([\d.]+) ms", r"decode ([\d.]+)", r"tree ([\d.]+)", r"upload ([\d.]+)")],
    }


def spread(runs, key, per_key):
    low, high = min(runs, key=lambda r: r[key]), max(runs, key=lambda r: r[key])
    if len(runs) == 1:
        return f"{low[key]:.0f} MiB ({low[per_key]:.1f} B/sample)"
    return (f"{low[key]:.0f}-{high[key]:.0f} MiB ({low[per_key]:.1f}-{high[per_key]:.1f} "
            f"B/sample)")


runs_note = f", {args.runs} runs a map" if args.runs > 1 else ""
print(f"`python3 bench/frames.py --frames {args.frames} --window {args.window}"
      f"{' --runs ' + str(args.runs) if args.runs > 1 else ''} MAPS` (llvmpipe, medians over the "
      f"path{runs_note})")
print()
print("| map | samples | leaves drawn | occluded | cull ms: frustum / with occlusion | "
      "frame ms: culled / frustum only / unculled | speed-up: culled / frustum only | "
      "cull share | draw calls (most) | culled / one draw | peak RSS: before the first frame | "
      "after the culled flight | with the unculled frames | load s (decode / tree / upload) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
each_run = []
for path in args.maps:
    runs = [bench(path) for _ in range(args.runs)]
    r = sorted(runs, key=lambda x: x["culled"])[len(runs) // 2]
    load = r["load"]
    price = f"{r['culled'] / r['one_draw']:.2f}x" if r["one_draw"] else "-"
    print(f"| {os.path.basename(path)} | {r['width']}x{r['height']} | {r['leaves']:.0f} of "
          f"{r['total']} | {r['occluded']:.1f}% | {r['walk']:.3f} / {r['cull']:.2f} | "
          f"{r['culled']:.0f} / {r['frustum']:.0f} / {r['unculled']:.0f} | "
          f"{r['unculled'] / r['culled']:.2f}x / {r['unculled'] / r['frustum']:.2f}x | "
          f"{r['share']:.3f}% | {r['draws']} | {price} | {r['before']:.0f} MiB | "
          f"{spread(runs, 'peak', 'per')} | {spread(runs, 'peak_all', 'per_all')} | "
          f"{load[0]:.2f} ({load[1]:.2f} / {load[2]:.2f} / {load[3]:.2f}) |", flush=True)
    each_run.append(f"{os.path.basename(path)}: " + ", ".join(
        f"{x['unculled'] / x['culled']:.2f}x" for x in runs))
if args.runs > 1:
    print()
    print("Unculled / culled in each run: " + "; ".join(each_run) + ".")
