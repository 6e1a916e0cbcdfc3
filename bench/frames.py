#!/usr/bin/env python3
"""Runs `quadterrain --bench` on each map; prints docs/figures.md's frames and scaling table.

Usage: python3 bench/frames.py [--build DIR] [--frames N] [--window WxH] [--runs R] MAP...
Each map flies the same kind of path (flight_path.cpp) culled alone first (the peak memory of a
culled flight), then draws each camera culled (frustum and occlusion), culled by the frustum
only and unculled in turn, in one process, so every ratio is taken inside one run. Where the
renderer synchronises its draws (software rasterisers), each camera is also drawn culled in one
draw without waits: "culled / one draw" is the price of the bounded queue. Where back faces are
culled (the default), each camera is also drawn culled with its back faces: "two-sided / culled"
is what culling them saves. With --runs R each map runs R times: the row is the run with the
median culled frame, the peak memory is the spread over all R, and a last line takes the median
frames over all R runs' frames together. Needs a display: run it under xvfb-run -a.
"""
import argparse
import os
import re
import statistics

from bench_run import add_common_arguments, memory_spread, number, run_bench

parser = argparse.ArgumentParser()
add_common_arguments(parser, frames=32)
args = parser.parse_args()


def bench(path):
    """One --bench run of `path`: its figures as a dict."""
    text, every = run_bench("frames.py", args, path)
    rows = [r for r in every if r["mode"] == "culled"]
    frustum_rows = [r for r in every if r["mode"] == "frustum"]
    side = re.search(r"(\d+)x(\d+) samples", text)
    synced = "one-draw: median" in text
    faces = "two-sided: median" in text

    def find(pattern):
        return number("frames.py", pattern, text)

    return {
        "width": int(side.group(1)), "height": int(side.group(2)),
        "leaves": statistics.median(int(r["leaves_drawn"]) for r in rows),
        "total": sum(int(rows[0][k]) for k in ("leaves_drawn", "leaves_culled", "leaves_occluded")),
        "occluded": find(r"occluded: median ([\d.]+)%"),
        "walk": statistics.median(float(r["cull_ms"]) for r in frustum_rows),
        "cull": statistics.median(float(r["cull_ms"]) for r in rows),
        "culled": find(r"culled: +median ([\d.]+) ms"),
        "frustum": find(r"frustum: +median ([\d.]+) ms"),
        "unculled": find(r"unculled: median ([\d.]+) ms"),
        "one_draw": find(r"one-draw: median ([\d.]+) ms") if synced else None,
        "two_sided": find(r"two-sided: median ([\d.]+) ms") if faces else None,
        "draws": max(int(r["draw_calls"]) for r in every),
        "culled_ms": [float(r["frame_ms"]) for r in rows],
        "unculled_ms": [float(r["frame_ms"]) for r in every if r["mode"] == "unculled"],
        "share": find(r"draw list: median ([\d.]+)%"),
        "peak": find(r"memory: ([\d.]+) MiB after the culled"),
        "per": find(r"culled flight \(([\d.]+) bytes"),
        "peak_all": find(r", ([\d.]+) MiB after the unculled"),
        "per_all": find(r"unculled frames \(([\d.]+) bytes"),
        "before": find(r", ([\d.]+) MiB before the first frame"),
        "load": [find(p) / 1000.0 for p in
                 (r"load: ([\d.]+) ms", r"decode ([\d.]+)", r"tree ([\d.]+)", r"upload ([\d.]+)")],
    }


runs_note = f", {args.runs} runs a map" if args.runs > 1 else ""
print(f"`python3 bench/frames.py --frames {args.frames} --window {args.window}"
      f"{' --runs ' + str(args.runs) if args.runs > 1 else ''} MAPS` (llvmpipe, medians over the "
      f"path{runs_note})")
print()
print("| map | samples | leaves drawn | occluded | cull ms: frustum / with occlusion | "
      "frame ms: culled / frustum only / unculled | speed-up: culled / frustum only | "
      "cull share | draw calls (most) | culled / one draw | two-sided / culled | "
      "peak RSS: before the first frame | after the culled flight | with the unculled frames | "
      "load s (decode / tree / upload) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
each_run = []
pooled = []
for path in args.maps:
    runs = [bench(path) for _ in range(args.runs)]
    r = sorted(runs, key=lambda x: x["culled"])[len(runs) // 2]
    load = r["load"]
    price = f"{r['culled'] / r['one_draw']:.2f}x" if r["one_draw"] else "-"
    faces = f"{r['two_sided'] / r['culled']:.2f}x" if r["two_sided"] else "-"
    print(f"| {os.path.basename(path)} | {r['width']}x{r['height']} | {r['leaves']:.0f} of "
          f"{r['total']} | {r['occluded']:.1f}% | {r['walk']:.3f} / {r['cull']:.2f} | "
          f"{r['culled']:.0f} / {r['frustum']:.0f} / {r['unculled']:.0f} | "
          f"{r['unculled'] / r['culled']:.2f}x / {r['unculled'] / r['frustum']:.2f}x | "
          f"{r['share']:.3f}% | {r['draws']} | {price} | {faces} | {r['before']:.0f} MiB | "
          f"{memory_spread(runs, 'peak', 'per')} | {memory_spread(runs, 'peak_all', 'per_all')} | "
          f"{load[0]:.2f} ({load[1]:.2f} / {load[2]:.2f} / {load[3]:.2f}) |", flush=True)
    each_run.append(f"{os.path.basename(path)}: " + ", ".join(
        f"{x['unculled'] / x['culled']:.2f}x" for x in runs) + (
        " (two-sided / culled: " + ", ".join(f"{x['two_sided'] / x['culled']:.2f}x" for x in runs)
        + ")" if all(x["two_sided"] for x in runs) else ""))
    culled = statistics.median(t for x in runs for t in x["culled_ms"])
    unculled = statistics.median(t for x in runs for t in x["unculled_ms"])
    pooled.append(f"{os.path.basename(path)}: {culled:.0f} / {unculled:.0f} ms, "
                  f"{unculled / culled:.2f}x")
if args.runs > 1:
    print()
    print("Unculled / culled in each run: " + "; ".join(each_run) + ".")
    print()
    print(f"Every run's frames together ({args.runs} flights of the same path), median culled / "
          "unculled frame: " + "; ".join(pooled) + ".")
