#!/usr/bin/env python3
"""What the Sun costs a frame: the same map flown with a Sun and with the fixed light.

Usage: python3 bench/light.py [--build DIR] [--frames N] [--window WxH] [--runs R]
                              [--azimuth DEG] [--elevation DEG] [--stream]
                              [--against-shaders DIR] MAP...
`quadterrain --bench` flies each MAP with `--sun-azimuth/--sun-elevation` (cast shadows, the
daylight sky and its haze) and without (the fixed light, flat sky and fog), the two interleaved
R times, so that the ratio of their median culled frames is taken run by run. The shadows are
computed before the first frame (scripted runs wait for them): this is the frame's cost of the
light, not of computing it. The Sun's runs also fly the bench's sun-moving mode, interleaved with
its culled frames: each asks for a new direction's shadows as it starts (computed behind it, at a
lower priority) and uploads the last ones finished; its median against the culled median is
the second table. With --stream every run streams its map (its light in scratch files and paged
beside its heights). With --against-shaders DIR both runs of a pair fly the Sun, the second
with the shaders of DIR (`quadterrain --shaders DIR`): an edited copy of shaders/ judged by the
flight, interleaved, against the build's own. Needs a display: run it under xvfb-run -a.
"""
import argparse
import os
import statistics

from bench_run import add_common_arguments, number, run_bench

parser = argparse.ArgumentParser()
add_common_arguments(parser, frames=16)
parser.add_argument("--azimuth", type=float, default=225.0)
parser.add_argument("--elevation", type=float, default=30.0)
parser.add_argument("--stream", action="store_true")
parser.add_argument("--against-shaders", metavar="DIR")
args = parser.parse_args()
streamed = ["--stream"] if args.stream else []


def medians(path, extra):
    """The culled frames' median, and with a Sun the sun-moving frames' (else None)."""
    text, _ = run_bench("light.py", args, path, (*extra, *streamed))
    culled = number("light.py", r"culled: +median ([\d.]+) ms", text)
    moving = number("light.py", r"sun-moving: +median ([\d.]+) ms", text) if extra else None
    return culled, moving


sun = ("--sun-azimuth", f"{args.azimuth:g}", "--sun-elevation", f"{args.elevation:g}")
if args.against_shaders:
    print(f"`python3 bench/light.py --frames {args.frames} --window {args.window} --runs "
          f"{args.runs} --azimuth {args.azimuth:g} --elevation {args.elevation:g}"
          f"{' --stream' if args.stream else ''} --against-shaders DIR MAPS` (llvmpipe; medians of "
          "the culled frames over the bench path, under the Sun)")
    print()
    print("| map | frame ms: DIR's shaders / the build's (each run) | median ratio (spread) |")
    print("|---|---|---|")
    for path in args.maps:
        pairs = []
        for _ in range(args.runs):
            (ours, _), (theirs, _) = (medians(path, sun),
                                      medians(path, (*sun, "--shaders", args.against_shaders)))
            pairs.append((theirs, ours))
        ratios = sorted(t / o for t, o in pairs)
        print(f"| {os.path.basename(path)} | {', '.join(f'{t:.0f} / {o:.0f}' for t, o in pairs)} "
              f"| {statistics.median(ratios):.3f}x ({ratios[0]:.3f}-{ratios[-1]:.3f}) |")
    raise SystemExit(0)

print(f"`python3 bench/light.py --frames {args.frames} --window {args.window} --runs {args.runs} "
      f"--azimuth {args.azimuth:g} --elevation {args.elevation:g}{' --stream' if args.stream else ''} "
      "MAPS` (llvmpipe; medians of the culled frames over the bench path)")
print()
print("| map | frame ms: Sun / fixed light (each run) | Sun / fixed light: median ratio (spread) |")
print("|---|---|---|")
moving_rows = []
for path in args.maps:
    pairs, moving = [], []
    for _ in range(args.runs):
        (lit, lit_moving), (fixed, _) = medians(path, sun), medians(path, ())
        pairs.append((lit, fixed))
        moving.append((lit_moving, lit))
    ratios = sorted(s / f for s, f in pairs)
    each = ", ".join(f"{s:.0f} / {f:.0f}" for s, f in pairs)
    print(f"| {os.path.basename(path)} | {each} | {statistics.median(ratios):.3f}x "
          f"({ratios[0]:.3f}-{ratios[-1]:.3f}) |", flush=True)
    moving_ratios = sorted(m / c for m, c in moving)
    moving_rows.append(
        f"| {os.path.basename(path)} | {', '.join(f'{m:.0f} / {c:.0f}' for m, c in moving)} | "
        f"{statistics.median(moving_ratios):.3f}x "
        f"({moving_ratios[0]:.3f}-{moving_ratios[-1]:.3f}) |")
print()
print("Frames while the shadows of a new Sun direction are computed (the bench's sun-moving frames) "
      "against the same Sun's culled frames, interleaved in each Sun run:")
print()
print("| map | frame ms: Sun moving / still (each run) | moving / still: median ratio (spread) |")
print("|---|---|---|")
for row in moving_rows:
    print(row)
