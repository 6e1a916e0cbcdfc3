#!/usr/bin/env python3
"""quadterrain-bake's speed: a map baked into a layout first with an empty cache folder (the tree
sidecar, and a GDAL raster's code cache, made first as the viewer's first streamed open makes
them), then again with it kept (the bake's own work: every level written and compressed as a COG,
every tile's checksum), then the layout verified. Each row is the median of --runs runs, with their spread; samples a second over the wall
clock and over the CPU seconds the bake took (user and system, every thread).

Usage: python3 bench/bake.py [--build DIR] [--runs R] MAP
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def timed(command):
    """(wall seconds, CPU seconds of the child) of one run; exits on failure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"bake.py: {' '.join(command)}: exit {done.returncode}\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def spread(values, fmt):
    values = sorted(values)
    median = statistics.median(values)
    if len(values) == 1:
        return fmt.format(median)
    return f"{fmt.format(median)} ({fmt.format(values[0])}-{fmt.format(values[-1])})"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("map")
    parser.add_argument("--build", default="build")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    bake = os.path.join(args.build, "quadterrain-bake")
    rows = {"first": [], "again, the cache folder kept": [], "--verify": []}
    samples = 0
    size_mib = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.runs):
            cache = os.path.join(tmp, f"cache{run}")
            layout = os.path.join(tmp, f"layout{run}")
            for kind in ("first", "again, the cache folder kept"):
                wall, cpu, out = timed([bake, args.map, layout, "--cache-dir", cache])
                rows[kind].append((wall, cpu))
                # "LAYOUT: W x H samples, ..., M MiB"
                words = out.split(": ", 1)[1].split()
                samples = int(words[0]) * int(words[2].rstrip(","))
                size_mib = float(words[-2])
            rows["--verify"].append(timed([bake, "--verify", layout])[:2])
            shutil.rmtree(layout)
            shutil.rmtree(cache)
    print(f"{os.path.basename(args.map)}: {samples:,} samples, a layout of {size_mib:.1f} MiB "
          f"({size_mib * 1048576 / samples:.2f} bytes a sample, every level)")
    print()
    print("| run | wall s | CPU s | M samples a second | M samples a CPU second |")
    print("|---|---|---|---|---|")
    for kind, runs in rows.items():
        walls = [w for w, _ in runs]
        cpus = [c for _, c in runs]
        print(f"| {kind} | {spread(walls, '{:.2f}')} | {spread(cpus, '{:.2f}')} | "
              f"{spread([samples / w / 1e6 for w in walls], '{:.1f}')} | "
              f"{spread([samples / c / 1e6 for c in cpus], '{:.1f}')} |")


if __name__ == "__main__":
    main()
