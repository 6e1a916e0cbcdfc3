#!/usr/bin/env python3
"""Runs the core benchmarks and prints the README's figures table (Markdown).

Usage: python3 bench/figures.py [BUILD_DIR] [--callgrind]   (default: build)
--callgrind adds instruction counts per culled frame (valgrind), stable on a noisy machine.
Every ratio is taken inside one run, on the same cameras, so machine noise cancels.
"""
import json
import os
import subprocess
import sys

args = [a for a in sys.argv[1:] if not a.startswith("--")]
build = args[0] if args else "build"
bench = os.path.join(build, "core_bench")
out = subprocess.run(
    [bench, "--benchmark_format=json", "--benchmark_repetitions=5",
     "--benchmark_enable_random_interleaving=true",
     "--benchmark_report_aggregates_only=true", "--benchmark_min_time=0.2"],
    check=True, capture_output=True, text=True).stdout
rows = {}
for b in json.loads(out)["benchmarks"]:
    if b.get("aggregate_name") == "median":
        rows[b["run_name"]] = b


def frame_ms(name):
    """Median milliseconds per culled frame (one iteration culls every camera of the path)."""
    return 1000.0 / rows[name]["items_per_second"]


print("| map, path | walk ms/frame | brute force ms/frame | walk speed-up | nodes tested: walk | "
      "no masking/whole | ratio | leaves drawn |")
print("|---|---|---|---|---|---|---|---|")
for side, frames in ((1025, 64), (4097, 64), (4097, 1024)):
    arg = f"{side}/{frames}"
    w, n, b = f"BM_Walk/{arg}", f"BM_WalkNoMaskingNoWhole/{arg}", f"BM_BruteForce/{arg}"
    path = "64 cameras round the circle" if frames == 64 else f"{frames}-frame flight"
    if n in rows:
        nodes = (f"{rows[n]['nodes_tested']:.0f} | "
                 f"{rows[n]['nodes_tested'] / rows[w]['nodes_tested']:.1f}x fewer")
    else:
        nodes = "- | -"
    print(f"| {side}x{side}, {path} | {frame_ms(w):.3f} | {frame_ms(b):.3f} | "
          f"{frame_ms(b) / frame_ms(w):.0f}x | {rows[w]['nodes_tested']:.0f} | "
          f"{nodes} | {rows[w]['leaves_drawn']:.0f} of "
          f"{rows[w]['leaves_drawn'] + rows[w]['leaves_culled']:.0f} |")
print()
print("| map, path: walk and brute force on each camera in turn | walk ms/frame | brute force ms/frame "
      "| walk speed-up |")
print("|---|---|---|---|")
for side, frames in ((1025, 64), (4097, 64), (4097, 1024)):
    p = rows[f"BM_WalkVsBruteForce/{side}/{frames}/iterations:2"]
    path = "64 cameras round the circle" if frames == 64 else f"{frames}-frame flight"
    print(f"| {side}x{side}, {path} | {p['walk_ms']:.3f} | {p['brute_ms']:.3f} | "
          f"{p['speedup']:.0f}x |")
print()
print("| occlusion stage (walk's leaves in, 720-pixel viewport) | ms/frame | leaves in | occluded |")
print("|---|---|---|---|")
for side in (1025, 4097):
    o = rows[f"BM_Occlusion/{side}/64"]
    print(f"| {side}x{side}, 64 cameras round the circle | {frame_ms(f'BM_Occlusion/{side}/64'):.2f} | "
          f"{o['candidates']:.0f} | {100.0 * o['occluded_share']:.1f}% |")
print()
print("| step | median |")
print("|---|---|")
for side in (1025, 4097):
    print(f"| tree build {side}x{side} | {rows[f'BM_BuildTree/{side}']['real_time']:.1f} ms |")
load, decode = rows["BM_LoadHeightmap"]["real_time"], rows["BM_StbDecodeOnly"]["real_time"]
print(f"| load data/default_1025.png (ours) | {load:.1f} ms |")
print(f"| stb_image decode alone | {decode:.1f} ms ({load / decode:.2f}x) |")


def instructions_per_frame(benchmark, function):
    """Instructions inside `function` per culled frame, counted by callgrind (stable figures)."""
    out_file = "/tmp/qt_callgrind.out"
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}",
         f"--toggle-collect={function}", bench, f"--benchmark_filter=^{benchmark}$",
         "--benchmark_min_time=0.01", "--benchmark_format=json"],
        check=True, capture_output=True, text=True)
    iterations = json.loads(run.stdout)["benchmarks"][0]["iterations"]
    with open(out_file) as f:
        total = next(int(line.split()[1]) for line in f if line.startswith("summary:"))
    return total / (iterations * 64)


if "--callgrind" in sys.argv:
    print()
    print("| map | instructions per walk | per brute force | ratio |")
    print("|---|---|---|---|")
    for side in (1025, 4097):
        walk = instructions_per_frame(f"BM_Walk/{side}/64", "qt::cullQuadtree*")
        brute = instructions_per_frame(f"BM_BruteForce/{side}/64", "qt::cullBruteForce*")
        print(f"| {side}x{side} | {walk:,.0f} | {brute:,.0f} | {brute / walk:.0f}x |")
