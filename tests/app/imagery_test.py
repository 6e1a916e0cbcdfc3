#!/usr/bin/env python3
"""--imagery lands where it belongs: colours that are a known function of the height under them,
and a marker in another CRS at a known longitude and latitude.

A geographic GeoTIFF DEM whose heights rise linearly across it gets, made by GDAL's own tools in
the test, (1) `gdaldem color-relief` of the DEM resampled to 4x its density: every texel's colour
is a linear ramp of the height at its centre, so the pixel at the centre of a view straight down
must show ramp(height of the surface that --pick hits there), unlit, within the sRGB round trip's
rounding; and (2) a marker raster in UTM zone 32N (a white square of 40 m on black, 2 km across)
centred at the longitude and latitude --pick reports for a sample: looking straight down at that
sample, the centre pixel is the marker's white, a pixel 340 m off it the marker's black, and one
beyond the marker's raster the terrain's own colour (the imagery has no value there).
Both runs also check `--stats-json`'s imagery block.

Usage: imagery_test.py QUADTERRAIN   (exit 77: skipped, no gdaldem, gdalwarp, gdal_translate,
gdaltransform or gdallocationinfo)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tiff16 import geotiff  # noqa: E402

SIDE = 65
CELL = 1.0 / 1200.0  # degrees: SRTM3's spacing
TIE = (9.0, 47.6)
LOW, HIGH = 100.0, 500.0  # the ramp's ends, metres
# The ramp: red rises and green falls with height, blue fixed.
RAMP = [(LOW, (0, 255, 40)), (HIGH, (255, 0, 200))]
WINDOW = 201
TOOLS = ["gdaldem", "gdalwarp", "gdal_translate", "gdaltransform", "gdallocationinfo"]


def ramp(height):
    t = min(max((height - LOW) / (HIGH - LOW), 0.0), 1.0)
    (_, a), (_, b) = RAMP
    return [a[k] + (b[k] - a[k]) * t for k in range(3)]


def run(*args, stdin=None):
    done = subprocess.run(list(args), input=stdin, capture_output=True, text=True)
    assert done.returncode == 0, f"{args}: {done.stderr}"
    return done


def pixel(png, x, y):
    """The screenshot's colour at pixel (x, y), through gdallocationinfo."""
    out = run("gdallocationinfo", "-valonly", png, str(x), str(y)).stdout.split()
    return [int(v) for v in out[:3]]


def view_down(exe, tmp, dem, world, col, row, name, *extra):
    """Straight down at sample (col, row) from 3000 m: the pick and the screenshot's centre."""
    x, z = col * world["spacing_x"], row * world["spacing_z"]
    shot = os.path.join(tmp, name + ".png")
    out = os.path.join(tmp, name + ".json")
    run(exe, dem, "--window", f"{WINDOW}x{WINDOW}", "--eye", f"{x!r},3000,{z!r}", "--target",
        f"{x!r},0,{z!r}", "--fog", "off", "--pick", f"{WINDOW // 2},{WINDOW // 2}",
        "--screenshot", shot, "--stats-json", out, *extra)
    return json.load(open(out)), shot


def main():
    exe = sys.argv[1]
    missing = [t for t in TOOLS if not shutil.which(t)]
    if missing:
        print(f"skipped: no {', '.join(missing)} (Debian's gdal-bin)")
        return 77
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        dem = os.path.join(tmp, "dem.tif")
        heights = [int(LOW + 4 * c + 2 * r) for r in range(SIDE) for c in range(SIDE)]
        with open(dem, "wb") as f:
            f.write(geotiff(SIDE, SIDE, heights, "int16", cell=CELL, tie=TIE, epsg=4326,
                            geographic=True))
        probe = os.path.join(tmp, "probe.json")
        run(exe, dem, "--window", "32x32", "--stats-json", probe)
        world = json.load(open(probe))["world"]

        # (1) Colour from height, at four texels a sample.
        dem4 = os.path.join(tmp, "dem4.tif")
        run("gdalwarp", "-q", "-r", "bilinear", "-ts", str(4 * SIDE), str(4 * SIDE), "-ot",
            "Float32", dem, dem4)
        table = os.path.join(tmp, "ramp.txt")
        with open(table, "w") as f:
            for h, (r, g, b) in RAMP:
                f.write(f"{h} {r} {g} {b}\n")
        colour = os.path.join(tmp, "colour.tif")
        run("gdaldem", "color-relief", "-q", dem4, table, colour)
        for col, row in [(10, 12), (32, 32), (50, 41), (20, 55)]:
            stats, shot = view_down(exe, tmp, dem, world, col, row, f"colour_{col}_{row}",
                                    "--imagery", colour, "--imagery-light", "off")
            pick, imagery = stats["pick"], stats["imagery"]
            where = f"colour at sample {col},{row}"
            if not pick["hit"]:
                failures.append(f"{where}: the pick missed")
                continue
            expected = ramp(pick["height"])
            drawn = pixel(shot, WINDOW // 2, WINDOW // 2)
            if any(abs(d - e) > 3 for d, e in zip(drawn, expected)):
                failures.append(f"{where}: drawn {drawn}, expected {expected} "
                                f"(height {pick['height']})")
            if not imagery or not imagery["georeferenced"] or imagery["coverage"] < 0.99 or \
                    abs(imagery["texels_per_sample"][0] - 4.0) > 0.1:
                failures.append(f"{where}: imagery block {imagery}")
            print(f"{where}: drawn {drawn}, expected {[round(e, 1) for e in expected]}")
        # The same as BC3 pages: within the blocks' error of the expected colour, a quarter of
        # the GPU bytes.
        stats, shot = view_down(exe, tmp, dem, world, 32, 32, "colour_bc3", "--imagery", colour,
                                "--imagery-light", "off", "--imagery-compression", "bc3")
        imagery = stats["imagery"]
        expected = ramp(stats["pick"]["height"])
        drawn = pixel(shot, WINDOW // 2, WINDOW // 2)
        if any(abs(d - e) > 6 for d, e in zip(drawn, expected)):
            failures.append(f"BC3 colour at sample 32,32: drawn {drawn}, expected {expected}")
        side = imagery["page_texels"] + 8
        if imagery["compression"] != "bc3" or \
                imagery["gpu_bytes"] > imagery["pool_layers"] * side * side + 65536:
            failures.append(f"BC3: imagery block {imagery}")
        print(f"BC3 colour at sample 32,32: drawn {drawn}, expected "
              f"{[round(e, 1) for e in expected]}, {imagery['gpu_bytes']} GPU bytes")

        # (2) A marker in UTM 32N at the longitude and latitude of sample (20, 30).
        stats, _ = view_down(exe, tmp, dem, world, 20, 30, "marker_probe")
        lon, lat = stats["pick"]["lonlat"]
        east, north = [float(v) for v in run(
            "gdaltransform", "-s_srs", "EPSG:4326", "-t_srs", "EPSG:32632",
            stdin=f"{lon!r} {lat!r}\n").stdout.split()[:2]]
        asc = os.path.join(tmp, "marker.asc")
        cells = 200  # of 10 m: 2 km
        with open(asc, "w") as f:
            f.write(f"ncols {cells}\nnrows {cells}\nxllcorner {east - 1000.0!r}\n"
                    f"yllcorner {north - 1000.0!r}\ncellsize 10\n")
            for r in range(cells):
                f.write(" ".join("255" if 98 <= r < 102 and 98 <= c < 102 else "0"
                                 for c in range(cells)) + "\n")
        marker = os.path.join(tmp, "marker.tif")
        run("gdal_translate", "-q", "-ot", "Byte", "-a_srs", "EPSG:32632", asc, marker)
        plain, plain_shot = view_down(exe, tmp, dem, world, 20, 30, "terrain")
        stats, shot = view_down(exe, tmp, dem, world, 20, 30, "marker", "--imagery", marker,
                                "--imagery-light", "off")
        centre = pixel(shot, WINDOW // 2, WINDOW // 2)
        # 340 m east: inside the marker's raster, off its square (about 17 m a pixel).
        beside = pixel(shot, WINDOW // 2 + 20, WINDOW // 2)
        # 1.5 km east: beyond the marker's raster, the terrain's own colour.
        outside = pixel(shot, WINDOW // 2 + 90, WINDOW // 2)
        if min(centre) < 200:
            failures.append(f"marker: the centre pixel is {centre}, not the marker's white")
        if max(beside) > 30:
            failures.append(f"marker: 340 m off it the pixel is {beside}, not black")
        if outside != pixel(plain_shot, WINDOW // 2 + 90, WINDOW // 2):
            failures.append(f"marker: beyond its raster the pixel is {outside}, not the terrain's")
        imagery = stats["imagery"]
        if not imagery or "UTM zone 32N" not in (imagery["crs"] or "") or \
                not 0.0 < imagery["coverage"] < 0.5:
            failures.append(f"marker: imagery block {imagery}")
        print(f"marker at {lon!r}, {lat!r} (UTM {east:.1f}, {north:.1f}): centre {centre}, "
              f"beside {beside}, outside {outside}")
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
