#!/usr/bin/env python3
"""What holes cost a frame: the same GeoTIFF flown with its nodata as holes and filled.

Usage: python3 bench/holes.py [--build DIR] [--frames N] [--window WxH] [--runs R]
                              [--cell METRES] [--scale METRES] MAP.r16...
Each MAP (square, 16-bit little-endian) becomes a GeoTIFF in a temporary folder (UTM zone 10N,
--cell metres between samples, heights of --scale metres a unit: the band's scale) twice: with
nodata as a reprojected tile has it (a wedge along the east and south edges, about 13%) and an
interior disc, and with one-sample voids scattered over the whole map besides (one in 4,099
samples, as old SRTM tiles have them in the mountains). `quadterrain --bench` flies each with the
nodata as holes (the default) and with --fill-nodata, the two interleaved R times, so that the
ratio of their median culled frames is taken run by run. Holes cost the fragment test in the
terrain shader, and occlusion: what a ray through a hole may reach (in the hole's directions and
slopes) is kept. Back faces are culled with holes as without (a hole shows what lies beyond the
terrain's underside). The table gives the share of the frustum's leaves that occlusion removed and
the share of the drawn instances whose back faces were culled, with holes and filled. Needs a
display: run it under xvfb-run -a.
"""
import argparse
import os
import statistics
import struct
import sys
import tempfile

from bench_run import add_common_arguments, number, run_bench

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "app"))
from tiff16 import geotiff  # noqa: E402

parser = argparse.ArgumentParser()
add_common_arguments(parser, frames=16)
parser.add_argument("--cell", type=float, default=30.0)
parser.add_argument("--scale", type=float, default=0.05)
args = parser.parse_args()

NODATA = 65535


def holed_geotiff(path, out, specks):
    """`path` (a square .r16) as a GeoTIFF at `out` with holes (scattered voids too with
    `specks`); returns (side, share nodata)."""
    data = open(path, "rb").read()
    side = int(round((len(data) // 2) ** 0.5))
    if side * side * 2 != len(data):
        sys.exit(f"holes.py: {path}: not a square 16-bit map")
    # A sample of the map's own that equals the nodata value is moved one step down.
    samples = [min(v, NODATA - 1) for v in struct.unpack(f"<{side * side}H", data)]
    holes = 0
    for r in range(side):
        for c in range(side):
            wedge = c > side - side // 14 - r // 24 or r > side - side // 20
            disc = (c - side // 3) ** 2 + (r - side // 2) ** 2 < (side // 20) ** 2
            speck = specks and (c * 31 + r * 17) % 4099 == 0
            if wedge or disc or speck:
                samples[r * side + c] = NODATA
                holes += 1
    with open(out, "wb") as f:
        scale = ('<GDALMetadata><Item name="SCALE" sample="0" role="scale">'
                 f"{args.scale}</Item></GDALMetadata>")
        f.write(geotiff(side, side, samples, "uint16", nodata=NODATA, cell=args.cell,
                        tie=(500000.0, 5300000.0), epsg=32610, metadata=scale))
    return side, holes / (side * side)


def culled_median(path, extra):
    """The culled frames' median ms, the CSV rows, the share of the leaves in the frustum that
    occlusion removed (median over the culled frames) and the share of the drawn instances whose
    back faces were culled (over the frames of every mode but two-sided), both in %."""
    text, rows = run_bench("holes.py", args, path, extra)
    occluded = number("holes.py", r"occluded: median ([\d.]+)% of the leaves", text)
    front = number("holes.py", r"back faces culled: in \d+ of the \d+ frames [^,]*, ([\d.]+)%",
                   text)
    return number("holes.py", r"culled: +median ([\d.]+) ms", text), rows, occluded, front


print(f"`python3 bench/holes.py --frames {args.frames} --window {args.window} --runs {args.runs} "
      f"--cell {args.cell:g} --scale {args.scale:g} MAPS` (llvmpipe; medians of the culled frames "
      "over the bench path)")
print()
print("| map | nodata | frame ms: holes / filled (each run) | holes / filled: median ratio "
      "(spread) | leaves drawn: holes / filled | leaves occluded, % of the frustum's: holes / "
      "filled | instances with back faces culled, %: holes / filled |")
print("|---|---|---|---|---|---|---|")
with tempfile.TemporaryDirectory() as folder:
    for path, specks in ((p, k) for p in args.maps for k in (False, True)):
        tif = os.path.join(folder, os.path.basename(path) + ".tif")
        side, share = holed_geotiff(path, tif, specks)
        what = "edges and a disc, scattered voids" if specks else "edges and a disc"
        pairs, leaves, shares = [], [], []
        for _ in range(args.runs):
            holes, hole_rows, hole_occluded, hole_front = culled_median(tif, ())
            filled, fill_rows, fill_occluded, fill_front = culled_median(tif, ("--fill-nodata",))
            pairs.append((holes, filled))
            shares.append((hole_occluded, fill_occluded, hole_front, fill_front))
            leaves.append((statistics.median(int(r["leaves_drawn"]) for r in hole_rows
                                             if r["mode"] == "culled"),
                           statistics.median(int(r["leaves_drawn"]) for r in fill_rows
                                             if r["mode"] == "culled")))
        ratios = sorted(h / f for h, f in pairs)
        each = ", ".join(f"{h:.0f} / {f:.0f}" for h, f in pairs)
        drawn = sorted(leaves)[len(leaves) // 2]
        middle = [statistics.median(s[k] for s in shares) for k in range(4)]
        print(f"| {os.path.basename(path)} ({side}²) | {100 * share:.1f}%: {what} | {each} | "
              f"{statistics.median(ratios):.3f}x ({ratios[0]:.3f}-{ratios[-1]:.3f}) | "
              f"{drawn[0]:.0f} / {drawn[1]:.0f} | {middle[0]:.1f} / {middle[1]:.1f} | "
              f"{middle[2]:.1f} / {middle[3]:.1f} |", flush=True)
