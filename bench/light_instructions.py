#!/usr/bin/env python3
"""What the Sun costs a frame in instructions: one scripted frame, lit by a Sun and by the fixed
light, counted by callgrind (a figure that repeats, where bench/light.py's frame times on a busy
machine spread wider than a shader's change).

Usage: python3 bench/light_instructions.py [--build DIR] [--window WxH] [--eye X,Y,Z]
                                           [--target X,Y,Z] [--azimuth DEG] [--elevation DEG] MAP
`quadterrain MAP --screenshot OUT --frames N` draws N frames at one camera after the exact
level-of-detail errors and the Sun's shadows are ready; callgrind counts the instructions of its
`renderFrame` calls (llvmpipe, one thread: LP_NUM_THREADS=0; Mesa's shader disk cache off, so that
both runs compile the same shaders). Frames 6 less frames 2, over 4, is one frame's count without
the first frames' shader compilation. Split by where the instructions run: the shaders' code that
llvmpipe compiles (callgrind's unnamed objects), the rasteriser's own (swrast_dri.so), LLVM's
(compiling; about 0 once the shaders are compiled) and the rest (quadterrain, the GL calls).
The defaults are the bench flight's first camera (qt::flightPath) over gen_2049.png
(`terrain_gen gen_2049.png --size 2049 --seed 2`). Needs valgrind and a display (xvfb-run -a).
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

parser = argparse.ArgumentParser()
parser.add_argument("map")
parser.add_argument("--build", default="build")
parser.add_argument("--window", default="640x360")
parser.add_argument("--eye", default="1740.8,250.88,1024")
parser.add_argument("--target", default="1740.8,180,524")
parser.add_argument("--azimuth", type=float, default=225.0)
parser.add_argument("--elevation", type=float, default=30.0)
args = parser.parse_args()

FEW, MANY = 2, 6
BUCKETS = ("shaders", "rasteriser", "llvm", "rest")


def bucket(line):
    if "libLLVM" in line:
        return "llvm"
    if re.search(r"\?\?\?:0x[0-9a-f]+ \[\?\?\?\]", line):
        return "shaders"
    if "swrast_dri" in line:
        return "rasteriser"
    return "rest"


def counts(sun, frames, folder):
    """Instructions in renderFrame by bucket, over `frames` frames."""
    name = f"{'sun' if sun else 'fixed'}_{frames}"
    out = os.path.join(folder, name + ".out")
    light = ["--sun-azimuth", f"{args.azimuth:g}", "--sun-elevation", f"{args.elevation:g}"]
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
               "--toggle-collect=*renderFrame*", os.path.join(args.build, "quadterrain"), args.map,
               "--window", args.window, "--eye", args.eye, "--target", args.target,
               "--frames", str(frames), "--screenshot", os.path.join(folder, name + ".png"),
               *(light if sun else [])]
    env = dict(os.environ, LP_NUM_THREADS="0", MESA_SHADER_CACHE_DISABLE="true")
    run = subprocess.run(command, capture_output=True, text=True, env=env)
    if run.returncode != 0:
        sys.exit(f"light_instructions.py: {' '.join(command)}: exit {run.returncode}\n"
                 f"{run.stderr[-3000:]}")
    report = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100", out],
                            capture_output=True, text=True, check=True).stdout
    total = dict.fromkeys(BUCKETS, 0)
    for line in report.splitlines():
        match = re.match(r"\s*([\d,]+) \(", line)
        if match and "PROGRAM TOTALS" not in line:
            total[bucket(line)] += int(match.group(1).replace(",", ""))
    return total


with tempfile.TemporaryDirectory() as folder:
    runs = [(sun, frames) for sun in (False, True) for frames in (FEW, MANY)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        done = dict(zip(runs, pool.map(lambda r: counts(*r, folder), runs)))
per_frame = {sun: {b: (done[(sun, MANY)][b] - done[(sun, FEW)][b]) / (MANY - FEW) / 1e6
                   for b in BUCKETS} for sun in (False, True)}

print(f"`python3 bench/light_instructions.py --window {args.window} --eye {args.eye} "
      f"--target {args.target} --azimuth {args.azimuth:g} --elevation {args.elevation:g} "
      f"{os.path.basename(args.map)}` (callgrind, llvmpipe on one thread; millions of "
      "instructions a frame)")
print()
print("| light | shaders' code | rasteriser | LLVM | the rest | frame |")
print("|---|---|---|---|---|---|")
for sun, label in ((False, "fixed"), (True, "Sun, shadows, sky light, haze")):
    p = per_frame[sun]
    print(f"| {label} | {p['shaders']:.1f} | {p['rasteriser']:.1f} | {p['llvm']:.1f} | "
          f"{p['rest']:.1f} | {sum(p.values()):.1f} |")
fixed, lit = per_frame[False], per_frame[True]
print(f"| Sun / fixed | {lit['shaders'] / fixed['shaders']:.3f}x | "
      f"{lit['rasteriser'] / fixed['rasteriser']:.3f}x | | | "
      f"**{sum(lit.values()) / sum(fixed.values()):.3f}x** |")
