#!/usr/bin/env python3
"""quadterrain-bake's speed: each map baked into a layout by regions on one thread
(--threads 1) and on two (--threads 2, one a core here), interleaved run by run, then the layout
verified. The bake reads the input by regions and writes every level as a COG with its tiles'
checksums and the tree. Each row is the median of --runs runs, with their spread; samples a
second over the wall clock and over the CPU seconds the bake took (user and system, every
thread), and the bake's peak resident memory (its own rusage, from wait4); and what a global 30 m
model of 1.3 x 10^12 samples would take at the one-thread rate: core-hours and stored bytes.

With --jobs N, each run also bakes the map as a bake by jobs would on N machines: --plan, then N
jobs of one thread each as N processes side by side (the row's wall clock is the slowest job's,
its CPU seconds every job's, its peak the largest job's), then --join; the joined layout's tiles
and tree are held to the one-process bake's. With --jobs-only, the bake by jobs alone, its
joined layout then verified (for a map too big to bake three times over: bench/giant.py's).

Usage: python3 bench/bake.py [--build DIR] [--runs R] [--jobs N [--jobs-only]] MAP [MAP ...]
"""
import json
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

GLOBAL_SAMPLES = 1.3e12


def timed(command):
    """(wall seconds, CPU seconds, peak resident MiB, stdout) of one run; exits on failure."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(child.pid, 0)  # this child's own rusage
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            sys.exit(f"bake.py: {' '.join(command)}: exit {child.returncode}\n{err.read()}")
        return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, out.read()


def timed_together(commands):
    """(slowest wall seconds, CPU seconds of all, largest peak MiB) of commands run side by side."""
    start = time.perf_counter()
    children = []
    for command in commands:
        out = tempfile.TemporaryFile("w+")
        children.append((subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                          text=True), out, command))
    cpu = 0.0
    peak = 0.0
    for child, out, command in children:
        _, status, usage = os.wait4(child.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            out.seek(0)
            sys.exit(f"bake.py: {' '.join(command)}: failed\n{out.read()}")
        out.close()
        cpu += usage.ru_utime + usage.ru_stime
        peak = max(peak, usage.ru_maxrss / 1024.0)
    return time.perf_counter() - start, cpu, peak


def same_layout(a, b):
    """Whether two layouts hold the same tiles (their checksums) and the same tree bytes."""
    manifests = []
    for folder in (a, b):
        with open(os.path.join(folder, "layout.json")) as f:
            manifests.append([entry["tiles"] for entry in json.load(f)["files"]])
    with open(os.path.join(a, "tree.qtree"), "rb") as f, \
            open(os.path.join(b, "tree.qtree"), "rb") as g:
        return manifests[0] == manifests[1] and f.read() == g.read()


def spread(values, fmt):
    values = sorted(values)
    median = statistics.median(values)
    if len(values) == 1:
        return fmt.format(median)
    return f"{fmt.format(median)} ({fmt.format(values[0])}-{fmt.format(values[-1])})"


def bench_jobs(bake, path, runs, jobs):
    """The bake by jobs alone: --plan, the jobs side by side, --join, --verify of its layout."""
    kind = f"{jobs} jobs of one thread, side by side (--job I/{jobs})"
    rows = {"--plan": [], kind: [], "--join": [], "--verify": []}
    samples = 0
    first = how = ""
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(path))) as tmp:
        for run in range(runs):
            split = os.path.join(tmp, f"jobs{run}")
            rows["--plan"].append(timed([bake, path, split, "--plan"])[:3])
            rows[kind].append(
                timed_together([[bake, path, split, "--threads", "1", "--job", f"{j}/{jobs}"]
                                for j in range(1, jobs + 1)]))
            wall, cpu, peak, out = timed([bake, "--join", split])
            rows["--join"].append((wall, cpu, peak))
            first, how = out.splitlines()[:2]
            words = first.split(": ", 1)[1].split()
            samples = int(words[0]) * int(words[2].rstrip(","))
            rows["--verify"].append(timed([bake, "--verify", split])[:3])
            shutil.rmtree(split)
    print(f"{os.path.basename(path)}: {samples:,} samples; {first.split(': ', 1)[1]}; {how}")
    print()
    table(rows, samples)


def table(rows, samples):
    print("| run | wall s | CPU s | M samples a second | M samples a CPU second | peak MiB |")
    print("|---|---|---|---|---|---|")
    for kind, measured in rows.items():
        walls = [w for w, _, _ in measured]
        cpus = [c for _, c, _ in measured]
        peaks = [p for _, _, p in measured]
        print(f"| {kind} | {spread(walls, '{:.2f}')} | {spread(cpus, '{:.2f}')} | "
              f"{spread([samples / w / 1e6 for w in walls], '{:.1f}')} | "
              f"{spread([samples / c / 1e6 for c in cpus], '{:.1f}')} | "
              f"{spread(peaks, '{:.0f}')} |")


def bench_map(bake, path, runs, jobs):
    rows = {"one thread (--threads 1)": [], "two threads (--threads 2)": [], "--verify": []}
    if jobs:
        rows.update({"--plan": [], f"{jobs} jobs of one thread, side by side (--job I/{jobs})": [],
                     "--join": []})
    samples = 0
    size_mib = 0.0
    how = ""
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(runs):
            for kind, threads in (("one thread (--threads 1)", "1"),
                                  ("two threads (--threads 2)", "2")):
                layout = os.path.join(tmp, f"layout{run}-{threads}")
                wall, cpu, peak, out = timed([bake, path, layout, "--threads", threads])
                rows[kind].append((wall, cpu, peak))
                # "LAYOUT: W x H samples, ..., M MiB", then "read in N regions of ..."
                first, how = out.splitlines()[:2]
                words = first.split(": ", 1)[1].split()
                samples = int(words[0]) * int(words[2].rstrip(","))
                size_mib = float(words[-2])
            rows["--verify"].append(timed([bake, "--verify", layout])[:3])
            if jobs:
                split = os.path.join(tmp, f"jobs{run}")
                rows["--plan"].append(timed([bake, path, split, "--plan"])[:3])
                rows[f"{jobs} jobs of one thread, side by side (--job I/{jobs})"].append(
                    timed_together([[bake, path, split, "--threads", "1", "--job", f"{j}/{jobs}"]
                                    for j in range(1, jobs + 1)]))
                rows["--join"].append(timed([bake, "--join", split])[:3])
                if not same_layout(split, os.path.join(tmp, f"layout{run}-1")):
                    sys.exit(f"bake.py: {path}: the joined layout is not the one-process bake's")
                shutil.rmtree(split)
            for threads in ("1", "2"):
                shutil.rmtree(os.path.join(tmp, f"layout{run}-{threads}"))
    print(f"{os.path.basename(path)}: {samples:,} samples, a layout of {size_mib:.1f} MiB "
          f"({size_mib * 1048576 / samples:.2f} bytes a sample, every level); {how}")
    print()
    table(rows, samples)
    one = [w for w, _, _ in rows["one thread (--threads 1)"]]
    two = [w for w, _, _ in rows["two threads (--threads 2)"]]
    print()
    ratios = spread([a / b for a, b in zip(one, two)], "{:.2f}x")
    print(f"Speed-up from one thread to two: {ratios} (each run's pair of wall times)")
    # A global 30 m model (1.3 x 10^12 samples) at this map's rates: the CPU seconds a sample of
    # the one-thread runs (the bake's work, whatever the jobs), the layout's bytes a sample.
    cpu_per_sample = statistics.median(c for _, c, _ in rows["one thread (--threads 1)"]) / samples
    stored = size_mib * 1048576 / samples
    print(f"Projected for {GLOBAL_SAMPLES:.1e} samples (a global 30 m model) at these rates: "
          f"{GLOBAL_SAMPLES * cpu_per_sample / 3600:,.0f} core-hours, "
          f"{GLOBAL_SAMPLES * stored / 1e12:.2f} TB stored")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("maps", nargs="+")
    parser.add_argument("--build", default="build")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=0)
    parser.add_argument("--jobs-only", action="store_true")
    args = parser.parse_args()
    if args.jobs_only and args.jobs < 1:
        parser.error("--jobs-only wants --jobs N")
    bake = os.path.join(args.build, "quadterrain-bake")
    for i, path in enumerate(args.maps):
        if i > 0:
            print()
        if args.jobs_only:
            bench_jobs(bake, path, args.runs, args.jobs)
        else:
            bench_map(bake, path, args.runs, args.jobs)


if __name__ == "__main__":
    main()
