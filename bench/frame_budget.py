#!/usr/bin/env python3
"""The viewer's frame budget (`--frame-budget MS`, app/frame_budget.h) on the bench flight: first
the level-of-detail flight at each of the bounds the budget steps over (`--lod P`), then the flight
held to each budget (`--frame-budget MS` with `--lod auto`: every level-of-detail frame's own
time moves the bound, the untimed warm-up flight's too), as the viewer flown by hand holds it.

Usage: python3 bench/frame_budget.py [--build DIR] [--frames N] [--window WxH] [--runs R]
                                     [--budgets MS,...] MAP
Each flight runs R times, bounds and budgets in turn; a row gives the median over the runs of
each flight's median frame, with the spread. Needs a display: run it under xvfb-run -a.
"""
import argparse
import os
import re
import statistics

from bench_run import add_common_arguments, number, run_bench

# app/frame_budget.h's kFrameBudgetSteps: the bounds the budget moves over, in pixels.
STEPS = (1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0)

parser = argparse.ArgumentParser()
add_common_arguments(parser, frames=32)
parser.add_argument("--budgets", default="33,100", help="milliseconds, comma-separated")
args = parser.parse_args()
budgets = [int(b) for b in args.budgets.split(",")]


def flight(path, extra):
    """(median frame ms, median triangles, the bounds each timed frame was drawn with)."""
    text, rows = run_bench("frame_budget.py", args, path, ("--bench-lod-only", *extra))
    frame = number("frame_budget.py", r"lod: +median ([\d.]+) ms", text)
    triangles = number("frame_budget.py", r"triangles: median \d+ culled, (\d+) with level", text)
    bounds = [float(r["lod_pixels"]) for r in rows if r["mode"] == "lod"]
    return frame, triangles, bounds


def spread(values, fmt="{:.0f}"):
    values = sorted(values)
    median = statistics.median(values)
    if len(values) == 1:
        return fmt.format(median)
    return f"{fmt.format(median)} ({fmt.format(values[0])}-{fmt.format(values[-1])})"


path = args.maps[0]
fixed = {p: [] for p in STEPS}
held = {b: [] for b in budgets}
for _ in range(args.runs):
    for p in STEPS:
        fixed[p].append(flight(path, ("--lod", f"{p:g}")))
    for b in budgets:
        held[b].append(flight(path, ("--frame-budget", str(b))))

name = os.path.basename(path)
print(f"Frame time against the bound, {name} (`--bench-lod-only --lod P`):")
print()
print("| bound | triangles a frame | frame ms, median over the flight (runs' spread) |")
print("|---|---|---|")
for p in STEPS:
    print(f"| {p:g} px | {statistics.median(r[1] for r in fixed[p]):,.0f} | "
          f"{spread([r[0] for r in fixed[p]])} |")
print()
print(f"The flight held to a budget, {name} (`--bench-lod-only --frame-budget MS`, `--lod` "
      f"auto):")
print()
print("| budget | bound, median over the timed frames (their range) | frame ms, median over the "
      "flight (runs' spread) | held |")
print("|---|---|---|---|")
for b in budgets:
    frames = [r[0] for r in held[b]]
    bounds = [x for r in held[b] for x in r[2]]
    median_bound = statistics.median(bounds)
    if statistics.median(frames) <= b:
        verdict = "within the budget"
    elif median_bound >= STEPS[-1]:
        verdict = f"over it, the bound at its {STEPS[-1]:g} px cap"
    else:
        verdict = "over it"
    print(f"| {b} ms | {median_bound:g} px ({min(bounds):g}-{max(bounds):g}) | {spread(frames)} | "
          f"{verdict} |")
