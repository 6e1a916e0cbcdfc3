#!/usr/bin/env python3
"""Runs `quadterrain --bench --lod P` on each map and grid step; prints docs/figures.md's
level-of-detail table.

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

from bench_run import add_common_arguments, memory_spread, number, run_bench

parser = argparse.ArgumentParser()
add_common_arguments(parser, frames=16)
parser.add_argument("--lod", default="1,2,4", help="grid steps in pixels, comma-separated")
args = parser.parse_args()
steps = [float(p) for p in args.lod.split(",")]


def bench(path, pixels):
    text, _ = run_bench("lod.py", args, path, ("--lod", str(pixels)))

    def find(pattern):
        return number("lod.py", pattern, text)

    tri = re.search(r"triangles: median (\d+) culled, (\d+) with level of detail", text)
    return {
        "culled": find(r"culled: +median ([\d.]+) ms"),
        "unculled": find(r"unculled: median ([\d.]+) ms"),
        "lod": find(r"lod: +median ([\d.]+) ms"),
        "tri_culled": int(tri.group(1)),
        "tri_lod": int(tri.group(2)),
        "share": find(r"median ([\d.]+)% of a level-of-detail frame"),
        "peak": find(r"memory: ([\d.]+) MiB after the level-of-detail flight"),
        "per": find(r"level-of-detail flight \(([\d.]+) bytes"),
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
        peak = memory_spread(runs, "peak", "per") + (
            f" over {len(runs)} runs" if len(runs) > 1 else "")
        print(f"| {os.path.basename(path)} | {pixels:g} px | {r['tri_culled']:,} / "
              f"{r['tri_lod']:,} | {r['culled']:.0f} / {r['unculled']:.0f} / {r['lod']:.0f} | "
              f"{r['culled'] / r['lod']:.2f}x | {r['share']:.2f}% | {peak} |", flush=True)
