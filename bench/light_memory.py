#!/usr/bin/env python3
"""What a streamed map's light holds in memory while it is computed.

Usage: python3 bench/light_memory.py [--build DIR] [--window WxH] [--runs R]
                                     [--azimuth DEG] [--elevation DEG] MAP
Streams MAP (`quadterrain MAP --stream --stats-json OUT`, which waits for the map's exact errors
and, with a Sun, for its shadows and sky light before its one frame) with `--sun-azimuth/
--sun-elevation` and without, the two interleaved R times, and samples the viewer's
/proc/PID/status every 0.1 s while it runs: the peak file-backed resident memory (RssFile: the
map's mapped codes and, with a Sun, the light's scratch files: its bytes, the sky fraction's sums)
and the peak anonymous memory (RssAnon: the heap, and on llvmpipe the GPU's textures). The
difference between the two runs' RssFile is what computing the light holds of its files; the
files' own size is the most of the cache folder's files mapped at once (/proc/PID/maps). Needs a
display: run it under xvfb-run -a.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

parser = argparse.ArgumentParser()
parser.add_argument("map")
parser.add_argument("--build", default="build")
parser.add_argument("--window", default="640x360")
parser.add_argument("--runs", type=int, default=2)
parser.add_argument("--azimuth", type=float, default=250.0)
parser.add_argument("--elevation", type=float, default=12.0)
args = parser.parse_args()


def status_mib(pid):
    """RssFile and RssAnon of `pid` in MiB, or None once it has gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        return (int(fields["RssFile"].split()[0]) / 1024.0,
                int(fields["RssAnon"].split()[0]) / 1024.0)
    except (OSError, KeyError, ValueError):
        return None


def mapped_mib(pid, folder):
    """MiB of `pid`'s mappings of files in `folder` (the light's unnamed scratch files), or 0."""
    total = 0
    try:
        with open(f"/proc/{pid}/maps") as f:
            for line in f:
                fields = line.split(None, 5)
                if len(fields) == 6 and fields[5].startswith(folder):
                    start, end = (int(x, 16) for x in fields[0].split("-"))
                    total += end - start
    except OSError:
        return 0.0
    return total / 1048576.0


def peaks(extra):
    """One streamed run: (peak RssFile, peak RssAnon, most MiB of the cache folder's files mapped
    at once); exits on failure."""
    with tempfile.TemporaryDirectory() as folder:
        command = [os.path.join(args.build, "quadterrain"), args.map, "--stream", "--window",
                   args.window, "--stats-json", os.path.join(folder, "stats.json"),
                   "--cache-dir", folder, *extra]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   text=True)
        file_peak = anon_peak = mapped_peak = 0.0
        while process.poll() is None:
            sample = status_mib(process.pid)
            if sample:
                file_peak, anon_peak = max(file_peak, sample[0]), max(anon_peak, sample[1])
            mapped_peak = max(mapped_peak, mapped_mib(process.pid, folder))
            time.sleep(0.1)
        if process.returncode != 0:
            sys.exit(f"light_memory.py: {' '.join(command)}: exit {process.returncode}\n"
                     f"{process.stderr.read()}")
    return file_peak, anon_peak, mapped_peak


sun = ("--sun-azimuth", f"{args.azimuth:g}", "--sun-elevation", f"{args.elevation:g}")
runs = []
for _ in range(args.runs):
    runs.append((peaks(sun), peaks(())))
size = os.path.getsize(args.map) / 2.0


def spread(values):
    values = sorted(values)
    middle = statistics.median(values)
    return f"{middle:.0f}" if len(values) == 1 else f"{middle:.0f} ({values[0]:.0f}-{values[-1]:.0f})"


print(f"`python3 bench/light_memory.py --window {args.window} --runs {args.runs} "
      f"--azimuth {args.azimuth:g} --elevation {args.elevation:g} {os.path.basename(args.map)}` "
      f"({size / 1e6:.1f} M samples, streamed; peaks sampled every 0.1 s, MiB, median of the runs "
      "and their range)")
print()
print("| run | peak RssFile (mapped codes, light files) | peak RssAnon |")
print("|---|---|---|")
for label, k in ((f"Sun {args.azimuth:g} / {args.elevation:g}: shadows and sky light", 0),
                 ("fixed light", 1)):
    print(f"| {label} | {spread(r[k][0] for r in runs)} | {spread(r[k][1] for r in runs)} |")
light = statistics.median(r[0][0] - r[1][0] for r in runs)
files = statistics.median(r[0][2] for r in runs)
print()
print(f"The light's files held while it is computed: {light:.0f} MiB ({light * 1048576.0 / size:.2f} "
      f"bytes a sample) over the fixed light's RssFile, of {files:.0f} MiB of scratch files mapped "
      f"({files * 1048576.0 / size:.2f} bytes a sample: the light's bytes, the sky's, their sums "
      "while the sky is computed, the pyramid's pages).")
