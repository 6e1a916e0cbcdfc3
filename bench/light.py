#!/usr/bin/env python3
"""What the Sun costs a frame: the same map flown with a Sun and with the fixed light.

Usage: python3 bench/light.py [--build DIR] [--frames N] [--window WxH] [--runs R]
                              [--azimuth DEG] [--elevation DEG] MAP...
`quadterrain --bench` flies each MAP with `--sun-azimuth/--sun-elevation` (cast shadows, the
daylight sky and its haze) and without (the fixed light, flat sky and fog), the two interleaved
R times, so that the ratio of their median culled frames is taken run by run. The shadows are
computed before the first frame (scripted runs wait for them): this is the frame's cost of the
light, not of computing it. Needs a display: run it under xvfb-run -a.
"""
import argparse
import os
import statistics

from bench_run import add_common_arguments, number, run_bench

parser = argparse.ArgumentParser()
add_common_arguments(parser, frames=16)
parser.add_argument("--azimuth", type=float, default=225.0)
parser.add_argument("--elevation", type=float, default=30.0)
args = parser.parse_args()


def culled_median(path, extra):
    text, _ = run_bench("light.py", args, path, extra)
    return number("light.py", r"culled: +median ([\d.]+) ms", text)


print(f"`python3 bench/light.py --frames {args.frames} --window {args.window} --runs {args.runs} "
      f"--azimuth {args.azimuth:g} --elevation {args.elevation:g} MAPS` (llvmpipe; medians of the "
      "culled frames over the bench path)")
print()
print("| map | frame ms: Sun / fixed light (each run) | Sun / fixed light: median ratio (spread) |")
print("|---|---|---|")
sun = ("--sun-azimuth", f"{args.azimuth:g}", "--sun-elevation", f"{args.elevation:g}")
for path in args.maps:
    pairs = []
    for _ in range(args.runs):
        pairs.append((culled_median(path, sun), culled_median(path, ())))
    ratios = sorted(s / f for s, f in pairs)
    each = ", ".join(f"{s:.0f} / {f:.0f}" for s, f in pairs)
    print(f"| {os.path.basename(path)} | {each} | {statistics.median(ratios):.3f}x "
          f"({ratios[0]:.3f}-{ratios[-1]:.3f}) |", flush=True)
