#!/usr/bin/env python3
"""--pick's lonlat and crs_xy against GDAL's own command-line tools (gdal-bin).

On GeoTIFFs in a geographic CRS, UTM 32N and polar stereographic north (EPSG:3413) and south
(EPSG:3031), the executable looks straight down at sample centres; each pick's lonlat must equal
what gdaltransform gives for that pixel's centre (col + 0.5, row + 0.5) within 1e-7 degrees,
crs_xy the geotransform's pixel centre (within the float world point's rounding), and
gdallocationinfo -wgs84 must find the same pixel at that longitude and latitude.

Usage: pick_lonlat_test.py QUADTERRAIN   (exit 77: skipped, no gdaltransform or gdallocationinfo)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tiff16 import geotiff  # noqa: E402

# name, EPSG, geographic, cell (CRS units), tie point (the corner of pixel 0, 0), side
RASTERS = [
    ("geographic", 4326, True, 1.0 / 1200.0, (9.0, 47.6), 41),
    ("utm32n", 32632, False, 30.0, (500000.0, 5300000.0), 41),
    ("polar_north_3413", 3413, False, 500.0, (-200000.0, -1000000.0), 41),
    ("polar_south_3031", 3031, False, 250.0, (1500000.0, 500000.0), 41),
]
# Inside the map: a ray straight down the map's outer edge may pass beside it.
SAMPLES = [(1, 1), (17, 29), (39, 38)]


def gdaltransform(path, col, row):
    """GDAL's WGS 84 longitude and latitude of a pixel position."""
    out = subprocess.run(["gdaltransform", "-t_srs", "EPSG:4326", path],
                         input=f"{col} {row}\n", capture_output=True, text=True, check=True)
    lon, lat = out.stdout.split()[:2]
    return float(lon), float(lat)


def gdallocationinfo(path, lon, lat):
    """The pixel and line GDAL finds at a WGS 84 longitude and latitude."""
    out = subprocess.run(["gdallocationinfo", "-wgs84", "-xml", path, repr(lon), repr(lat)],
                         capture_output=True, text=True, check=True)
    m = re.search(r'pixel="(\d+)" line="(\d+)"', out.stdout)
    assert m, out.stdout
    return int(m.group(1)), int(m.group(2))


def main():
    exe = sys.argv[1]
    if not shutil.which("gdaltransform") or not shutil.which("gdallocationinfo"):
        print("skipped: no gdaltransform or gdallocationinfo (Debian's gdal-bin)")
        return 77
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, epsg, geographic, cell, tie, side in RASTERS:
            path = os.path.join(tmp, name + ".tif")
            heights = [100 + (c * 7 + r * 3) % 50 for r in range(side) for c in range(side)]
            with open(path, "wb") as f:
                f.write(geotiff(side, side, heights, "int16", cell=cell, tie=tie, epsg=epsg,
                                geographic=geographic))
            for col, row in SAMPLES:
                out = os.path.join(tmp, f"{name}_{col}_{row}.json")
                # The world spacing is the georeference's metres per sample; the run reports it.
                probe = subprocess.run([exe, path, "--window", "32x32", "--stats-json", out],
                                       capture_output=True, text=True)
                assert probe.returncode == 0, probe.stderr
                world = json.load(open(out))["world"]
                x, z = col * world["spacing_x"], row * world["spacing_z"]
                run = subprocess.run([exe, path, "--window", "201x201", "--eye",
                                      f"{x!r},3000,{z!r}", "--target", f"{x!r},0,{z!r}",
                                      "--pick", "100,100", "--stats-json", out],
                                     capture_output=True, text=True)
                assert run.returncode == 0, run.stderr
                pick = json.load(open(out))["pick"]
                where = f"{name} sample {col},{row}: {pick}"
                if not pick["hit"] or pick["sample"] != [col, row]:
                    failures.append(f"{where}: not a hit on that sample")
                    continue
                lon, lat = gdaltransform(path, col + 0.5, row + 0.5)
                if abs(pick["lonlat"][0] - lon) > 1e-7 or abs(pick["lonlat"][1] - lat) > 1e-7:
                    failures.append(f"{where}: gdaltransform says {lon!r}, {lat!r}")
                cx, cy = tie[0] + (col + 0.5) * cell, tie[1] - (row + 0.5) * cell
                # The point hit is a float world point: within a thousandth of a cell of the
                # centre (the cell's corner is half a cell away).
                if abs(pick["crs_xy"][0] - cx) > 1e-3 * cell or \
                        abs(pick["crs_xy"][1] - cy) > 1e-3 * cell:
                    failures.append(f"{where}: the pixel centre is {cx!r}, {cy!r}")
                found = gdallocationinfo(path, *pick["lonlat"])
                if found != (col, row):
                    failures.append(f"{where}: gdallocationinfo -wgs84 finds pixel {found}")
                print(f"{where}: gdaltransform {lon!r}, {lat!r}")
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
