#!/usr/bin/env python3
"""A virtual giant: a GDAL VRT mosaic of count x count copies of one raster, each raised by its own
offset (so that no two tiles look alike), overlapping by one sample (a tile's last row and
column are its neighbour's first), as Float32 heights in UTM 32N at 30 m. A 4097² source tiled
16 x 16 gives 65537² samples (4.3 G) in a few kilobytes of XML: bake inputs at scale without the
disk. The source should be tiled (a tiled GeoTIFF), so that a window reads only its blocks.

Usage: python3 bench/giant.py SOURCE COUNT OUT.vrt
"""
import os
import subprocess
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    source, count, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    info = subprocess.run(["gdalinfo", source], capture_output=True, text=True, check=True).stdout
    size = next(line for line in info.splitlines() if line.startswith("Size is"))
    width, height = (int(v) for v in size[len("Size is "):].split(","))
    step_x, step_y = width - 1, height - 1
    total_x, total_y = step_x * count + 1, step_y * count + 1
    relative = os.path.relpath(os.path.abspath(source), os.path.dirname(os.path.abspath(out)))
    lines = [f'<VRTDataset rasterXSize="{total_x}" rasterYSize="{total_y}">',
             '  <SRS dataAxisToSRSAxisMapping="1,2">EPSG:32632</SRS>',
             '  <GeoTransform>500000, 30, 0, 5200000, 0, -30</GeoTransform>',
             '  <VRTRasterBand dataType="Float32" band="1">']
    for ty in range(count):
        for tx in range(count):
            offset = (tx * 7919 + ty * 104729) % 2000  # metres; no two tiles alike
            lines += ['    <ComplexSource>',
                      f'      <SourceFilename relativeToVRT="1">{relative}</SourceFilename>',
                      '      <SourceBand>1</SourceBand>',
                      f'      <SrcRect xOff="0" yOff="0" xSize="{width}" ySize="{height}" />',
                      f'      <DstRect xOff="{tx * step_x}" yOff="{ty * step_y}" '
                      f'xSize="{width}" ySize="{height}" />',
                      f'      <ScaleOffset>{offset}</ScaleOffset>',
                      '    </ComplexSource>']
    lines += ['  </VRTRasterBand>', '</VRTDataset>']
    with open(out + ".part", "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(out + ".part", out)
    print(f"{out}: {total_x} x {total_y} samples ({total_x * total_y / 1e9:.2f} G), "
          f"{count * count} copies of {os.path.basename(source)}")


if __name__ == "__main__":
    main()
