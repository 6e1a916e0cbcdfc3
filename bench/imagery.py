#!/usr/bin/env python3
"""What imagery costs: the same map flown with and without --imagery, and what it holds.

Usage: python3 bench/imagery.py [--build DIR] [--frames N] [--window WxH] [--runs R]
                                [--density D] [--compression none,bc3] MAP...
Each MAP gets a plain RGB image of D times its density on each axis (default 4), made once beside
this run in a temporary folder by GDAL's tools:
`gdal_translate -outsize` (bilinear) of the map, then `gdaldem color-relief` of that, so that its
colours follow the relief texel by texel, with overviews (`gdaladdo -r average`) as an orthophoto's
COG has them. `quadterrain --bench` flies the map without and with the
imagery (lit, opaque; its GPU pages stored as each of --compression says, a row each), interleaved
R times, so that the ratio of their median culled frames is taken run by run (the pages each frame reads are all in before it is drawn: the warm-up flight
reads them); a `--stats-json` run gives the pyramid's bytes (levels and page borders) per byte of
level 0's texels, the pool's GPU bytes and the pages one view reads, the load's time to the first
frame with and without it, and the imagery's open (its header and top page, on a thread of its own
after the load). Needs a display: run it under xvfb-run -a.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from bench_run import add_common_arguments, number, run_bench

parser = argparse.ArgumentParser()
add_common_arguments(parser, frames=16)
parser.add_argument("--density", type=float, default=4.0)
parser.add_argument("--compression", default="none",
                    help="the imagery's GPU pages, a row each: none, bc3 or none,bc3")
args = parser.parse_args()
compressions = args.compression.split(",")
if not compressions or any(c not in ("none", "bc3") for c in compressions):
    sys.exit("imagery.py: --compression takes none, bc3 or both, comma-separated")


def run(*command):
    done = subprocess.run(list(command), capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"imagery.py: {' '.join(command)}: exit {done.returncode}\n{done.stderr}")
    return done.stdout


def make_imagery(path, folder):
    """A plain RGB GeoTIFF of the map's relief at --density times its density."""
    info = json.loads(run("gdalinfo", "-json", "-mm", path))
    side = info["size"][0]
    lo, hi = info["bands"][0]["computedMin"], info["bands"][0]["computedMax"]
    texels = int(round((side - 1) * args.density))
    scaled = os.path.join(folder, "scaled.tif")
    run("gdal_translate", "-q", "-r", "bilinear", "-ot", "Float32", "-outsize", str(texels),
        str(texels), "-co", "TILED=YES", path, scaled)
    table = os.path.join(folder, "ramp.txt")
    with open(table, "w") as f:
        for t, (r, g, b) in [(0.0, (38, 70, 40)), (0.3, (90, 120, 60)), (0.6, (150, 130, 100)),
                             (0.85, (120, 115, 110)), (1.0, (245, 245, 250))]:
            f.write(f"{lo + t * (hi - lo)!r} {r} {g} {b}\n")
    image = os.path.join(folder, "imagery.tif")
    run("gdaldem", "color-relief", "-q", "-co", "TILED=YES", scaled, table, image)
    os.remove(scaled)
    run("gdaladdo", "-q", "-r", "average", image)
    return image, texels, side


def culled_median(path, extra):
    text, _ = run_bench("imagery.py", args, path, extra)
    return number("imagery.py", r"culled: +median ([\d.]+) ms", text)


def stats(path, extra, folder):
    out = os.path.join(folder, "stats.json")
    run(os.path.join(args.build, "quadterrain"), path, "--window", args.window, "--stats-json",
        out, *extra)
    return json.load(open(out))


print(f"`python3 bench/imagery.py --frames {args.frames} --window {args.window} --runs {args.runs} "
      f"--density {args.density:g} --compression {args.compression} MAPS` (llvmpipe; medians of "
      "the culled frames over the bench path)")
print()
print("| map | imagery | pages | frame ms: imagery / none (each run) | imagery / none: median "
      "ratio (spread) | pyramid bytes a texel byte | pool: MiB, pages one view reads | first "
      "frame ms: imagery / none | imagery open ms |")
print("|---|---|---|---|---|---|---|---|---|")
with tempfile.TemporaryDirectory() as folder:
    for path in args.maps:
        image, texels, side = make_imagery(path, folder)
        draped = {c: ("--imagery", image, "--imagery-compression", c) for c in compressions}
        runs = []  # per run: each compression's frame, then the frame without imagery
        for _ in range(args.runs):
            runs.append([culled_median(path, draped[c]) for c in compressions] +
                        [culled_median(path, ())])
        without = stats(path, (), folder)
        for i, c in enumerate(compressions):
            ratios = sorted(r[i] / r[-1] for r in runs)
            each = ", ".join(f"{r[i]:.0f} / {r[-1]:.0f}" for r in runs)
            with_imagery = stats(path, draped[c], folder)
            block = with_imagery["imagery"]
            first = (with_imagery["load"]["first_frame_ms"], without["load"]["first_frame_ms"])
            print(f"| {os.path.basename(path)} ({side}²) | {texels}², "
                  f"{block['texels_per_sample'][0]:.2f} texels a sample | {c} | {each} | "
                  f"{statistics.median(ratios):.3f}x ({ratios[0]:.3f}-{ratios[-1]:.3f}) | "
                  f"{block['pyramid_bytes_per_texel_byte']:.3f} | "
                  f"{block['gpu_bytes'] / 1048576:.0f}, {block['pages_wanted']} of "
                  f"{block['pages']} | {first[0]:.0f} / {first[1]:.0f} | "
                  f"{with_imagery['load']['imagery_ms']:.0f} |", flush=True)
