#!/usr/bin/env python3
"""Time per step (move every ball, find every candidate pair) against object count, for brute
force, the uniform grid, the object quadtree (every-leaf and loose, incremental; every-leaf rebuilt
every step) and Box2D's broad phase: runs bench/object_bench.cpp's BM_Step* benchmarks and plots
them (a remake of the scaling figure in
"Why Algorithms Matter: Quad Tree Example", Java Programmer Notes 2015, docs/references.md).

Brute force runs only where a whole step is sane (BM_StepBrute is registered up to 100,000
objects, about three seconds a step there); it is never extrapolated past its last measured size.

  /usr/bin/python3 bench/objects_plot.py [--bench build/core_bench] [--out objects_scaling.png]
      [--sizes 1000,10000,100000,1100000,5000000] [--min-time 0.5] [--json steps.json]

Times are the benchmarks' CPU time (one thread each): on a shared machine wall time also counts
the turns other processes take. The PNG needs matplotlib (Debian's python3-matplotlib, for
/usr/bin/python3). --json keeps the benchmark's results; --from-json plots saved results without
running anything.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

SERIES = [  # benchmark name, label, colour
    ("BM_StepBrute", "brute force (all pairs)", "tab:red"),
    ("BM_StepGrid", "uniform grid (4-unit cells)", "tab:green"),
    ("BM_StepTree", "object quadtree (every leaf), incremental", "tab:blue"),
    ("BM_StepLoose", "loose object quadtree, incremental", "tab:purple"),
    ("BM_StepRebuilt", "object quadtree (every leaf), rebuilt every step", "tab:cyan"),
    ("BM_StepBox2D", "Box2D 2.4.1 b2BroadPhase", "tab:orange"),
]
BRUTE_SIZES = {1000, 10000, 100000}  # those BM_StepBrute registers


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", default="build/core_bench")
    parser.add_argument("--sizes", default="1000,10000,100000,1100000,5000000",
                        help="object counts, among 1000,10000,100000,1100000,5000000")
    parser.add_argument("--out", default="objects_scaling.png")
    parser.add_argument("--min-time", default="0.5", help="--benchmark_min_time per run, seconds")
    parser.add_argument("--json", help="also keep the benchmark's JSON results here")
    parser.add_argument("--from-json", help="plot these saved results instead of running")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    names = "|".join(name for name, _, _ in SERIES)
    counts = "|".join(str(s) for s in sizes)
    skipped = [s for s in sizes if s not in BRUTE_SIZES]
    if skipped:
        print(f"brute force stops at {max(BRUTE_SIZES):,} objects (a whole step takes about three "
              f"seconds there and grows as N^2): not run at {', '.join(f'{s:,}' for s in skipped)}")

    if args.from_json:
        with open(args.from_json) as f:
            runs = json.load(f)["benchmarks"]
    else:
        with tempfile.TemporaryDirectory() as tmp:
            out = args.json or os.path.join(tmp, "steps.json")
            command = [args.bench, f"--benchmark_filter=^({names})/({counts})$",
                       f"--benchmark_min_time={args.min_time}", "--benchmark_format=console",
                       "--benchmark_out_format=json", f"--benchmark_out={out}"]
            print(" ".join(command), flush=True)
            subprocess.run(command, check=True)
            with open(out) as f:
                runs = json.load(f)["benchmarks"]

    points = {name: [] for name, _, _ in SERIES}
    for run in runs:
        name, _, size = run["name"].partition("/")
        if name in points:
            ms = run["cpu_time"] * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[run["time_unit"]]
            points[name].append((int(size), ms, run.get("pairs", 0)))
    print(f"{'objects':>10}  " + "  ".join(f"{n[3:]:>12}" for n, _, _ in SERIES) + "   (CPU ms a step)")
    for s in sizes:
        row = []
        for name, _, _ in SERIES:
            hit = [ms for size, ms, _ in points[name] if size == s]
            row.append(f"{hit[0]:12.3f}" if hit else f"{'-':>12}")
        print(f"{s:>10,}  " + "  ".join(row))

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("objects_plot: python3-matplotlib is needed for the PNG "
                 "(apt-get install python3-matplotlib)")
    fig, ax = plt.subplots(figsize=(8, 5.5), dpi=120)
    for name, label, colour in SERIES:
        data = sorted(points[name])
        if data:
            ax.plot([d[0] for d in data], [d[1] for d in data], "o-", label=label, color=colour)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("objects (10 static to 1 rolling ball, over 4097 x 4097 units)")
    ax.set_ylabel("CPU time per step, ms (move every ball, find every candidate pair)")
    ax.set_title("Candidate pairs per step: brute force stops where it stops being sane")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
