#!/usr/bin/env python3
"""Peak resident memory of a loaded map, in bytes per sample: the viewer end to end (decode, tree,
GPU upload, one frame; llvmpipe keeps the GPU's copy in host memory) and the CPU side alone
(build/load_memory: decode, codes, tree).

Usage: python3 bench/memory.py [--build DIR] [--runs R] [--cpu-only] MAP...
       python3 bench/memory.py --streamed [--budget BYTES] [--band BYTES] MAP.r16...
       python3 bench/memory.py --objects N [--runs R] MAP...
The viewer runs as `quadterrain MAP --stats-json OUT --memory-budget 0` under /usr/bin/time -v
(peak = its "Maximum resident set size", the process's VmHWM); it needs a display: run under
xvfb-run -a, or with DISPLAY set. With --runs R each figure is the median of R runs. A map the
viewer refuses (too big for the GPU path) gets its CPU-side figure only.

--streamed measures the streamed open of a .r16 (load_memory --streamed): the first open, in a
cache folder of its own (a pass over the map, then the sidecar written), and the reopen (the sidecar
read): wall time and peak resident memory of each.

--objects N measures what objects add to the viewer's peak, in bytes an object: MAP with N
objects, a tenth of them (N / 11) balls, three steps and --no-cull (every object drawn, so every
per-frame list is full), against MAP alone, each under /usr/bin/time -v (the figure behind
kObjectBytes in src/app/options.h).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

parser = argparse.ArgumentParser()
parser.add_argument("--build", default="build", help="the build folder (default: build)")
parser.add_argument("--runs", type=int, default=1, help="runs per map; the median is printed")
parser.add_argument("--cpu-only", action="store_true", help="the load_memory harness alone")
parser.add_argument("--streamed", action="store_true", help="first open and reopen of a .r16")
parser.add_argument("--budget", default=str(2 << 30), help="--streamed: memory budget in bytes")
parser.add_argument("--band", default=None, help="--streamed: band cap in bytes")
parser.add_argument("--objects", type=int, default=0, help="bytes an object for N objects")
parser.add_argument("maps", nargs="+")
args = parser.parse_args()


def time_v(command, env=None):
    """Runs command under /usr/bin/time -v; returns (exit code, stdout, peak resident bytes)."""
    result = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True, text=True,
                            env=env)
    match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr)
    peak = int(match.group(1)) * 1024 if match else None
    if result.returncode != 0:
        tail = [line for line in result.stderr.splitlines() if "Command" not in line][:1]
        print("memory.py: %s: exit %d %s" % (command[1], result.returncode, " ".join(tail)),
              file=sys.stderr)
    return result.returncode, result.stdout, peak


def cpu_side(path):
    code, out, peak = time_v([os.path.join(args.build, "load_memory"), path])
    if code != 0:
        return None
    report = json.loads(out)
    return report["samples"], peak, report["decoded"]["peak_bytes"]


def viewer(path, *extra):
    with tempfile.TemporaryDirectory() as folder:
        stats = os.path.join(folder, "stats.json")
        code, _, peak = time_v([os.path.join(args.build, "quadterrain"), path, "--stats-json",
                                stats, "--memory-budget", "0", *extra])
        return peak if code == 0 else None


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def show(value, samples):
    return "%8.2f" % (value / samples) if value else "       -"


def streamed(path):
    command = [os.path.join(args.build, "load_memory"), path, "--streamed", "--budget", args.budget]
    if args.band:
        command += ["--band", args.band]
    figures = []
    # A cache folder of its own: the first open makes the sidecar, the second reads it.
    with tempfile.TemporaryDirectory() as cache_home:
        env = dict(os.environ, XDG_CACHE_HOME=cache_home)
        for _ in range(2):
            code, out, peak = time_v(command, env)
            if code != 0:
                return None
            report = json.loads(out)
            figures.append((report["open_ms"] / 1000.0, peak, report))
    return figures


if args.objects > 0:
    n = args.objects
    scene = ["--objects", str(n), "--moving", str(n // 11), "--steps", "3", "--no-cull"]
    print("%-28s %9s %12s %12s %14s" % ("map", "objects", "alone MB", "with MB", "B/object"))
    for path in args.maps:
        alone, full = [], []
        for _ in range(args.runs):  # interleaved
            alone.append(viewer(path, "--no-cull"))
            full.append(viewer(path, *scene))
        a, f = median(alone), median(full)
        if a is None or f is None:
            continue
        print("%-28s %9d %12.0f %12.0f %14.1f" % (os.path.basename(path)[:28], n, a / 2**20,
                                                  f / 2**20, (f - a) / n))
    sys.exit(0)

if args.streamed:
    print("%-20s %5s %6s %11s %9s %11s %9s" % ("map", "leaf", "errors", "first s", "first MB",
                                               "reopen s", "reopen MB"))
    for path in args.maps:
        figures = streamed(path)
        if figures is None:
            continue
        (first_s, first_peak, report), (again_s, again_peak, again) = figures
        assert not report["sidecar_used"] and again["sidecar_used"]
        print("%-20s %5d %6s %11.2f %9.0f %11.2f %9.0f" % (
            os.path.basename(path)[:20], report["leaf_size"], report["lod_errors"], first_s,
            first_peak / 2**20, again_s, again_peak / 2**20))
    sys.exit(0)

print("%-28s %11s %10s %10s %10s" % ("map", "samples", "decode B/s", "load B/s", "viewer B/s"))
for path in args.maps:
    cpu = [cpu_side(path) for _ in range(args.runs)]
    if any(c is None for c in cpu):
        continue
    samples = cpu[0][0]
    decode = median([c[2] for c in cpu])
    load = median([c[1] for c in cpu])
    shown = None if args.cpu_only else median([viewer(path) for _ in range(args.runs)])
    print("%-28s %11d %10s %10s %10s" % (os.path.basename(path)[:28], samples,
                                          show(decode, samples), show(load, samples),
                                          show(shown, samples)))
