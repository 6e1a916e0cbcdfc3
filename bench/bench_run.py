"""Shared by bench/frames.py and bench/lod.py: their common options, one `quadterrain --bench` run,
and the numbers read from its summary."""
import csv
import os
import re
import subprocess
import sys


def add_common_arguments(parser, frames):
    """MAP..., --build, --frames (default `frames`), --window and --runs."""
    parser.add_argument("maps", nargs="+")
    parser.add_argument("--build", default="build")
    parser.add_argument("--frames", type=int, default=frames)
    parser.add_argument("--window", default="1280x720")
    parser.add_argument("--runs", type=int, default=1)


def number(tool, pattern, text):
    """The first group of `pattern` in `text` as a float; exits naming `tool` when it is absent."""
    match = re.search(pattern, text)
    if not match:
        sys.exit(f"{tool}: '{pattern}' not in the bench output:\n{text}")
    return float(match.group(1))


def run_bench(tool, args, path, extra=()):
    """One `quadterrain --bench` run of `path`: its printed summary and its CSV rows as dicts."""
    out_csv = f"/tmp/qt_{tool}_{os.getpid()}.csv"
    run = subprocess.run(
        [os.path.join(args.build, "quadterrain"), path, "--window", args.window, "--bench",
         out_csv, "--frames", str(args.frames), *extra], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"{tool}: {path}: exit {run.returncode}\n{run.stderr}")
    with open(out_csv) as f:
        rows = list(csv.DictReader(f))
    os.remove(out_csv)
    return run.stdout, rows


def memory_spread(runs, key, per_key):
    """Peak memory over the runs: one figure, or the lowest and highest."""
    low, high = min(r[key] for r in runs), max(r[key] for r in runs)
    per_low, per_high = min(r[per_key] for r in runs), max(r[per_key] for r in runs)
    if len(runs) == 1:
        return f"{low:.0f} MiB ({per_low:.1f} B/sample)"
    return f"{low:.0f}-{high:.0f} MiB ({per_low:.1f}-{per_high:.1f} B/sample)"
