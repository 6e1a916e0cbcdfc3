#!/usr/bin/env python3
"""Writes small GeoTIFFs without GDAL's tools: 16-bit (signed or not) or float samples,
uncompressed, tiled or in strips, with a pixel scale and tie point (a geotransform GDAL reads), and
optionally GDAL's nodata tag, a geographic or projected CRS by EPSG code, and GDAL's metadata tag
(a band's scale and offset).

The directory comes first and the samples last, so that a file cut short still opens (GDAL reads
its size) and fails only when its missing blocks are read.

As a tool: tiff16.py OUT SIDE [--signed] [--tile N] [--voids]
  writes rolling hills of SIDE x SIDE samples (with --voids, nodata -32768 in a disc and a few
  specks).
"""
import math
import struct
import sys

# Each sample type: struct format, bits, TIFF SampleFormat (1 unsigned, 2 signed, 3 float).
SAMPLES = {"uint16": ("<H", 16, 1), "int16": ("<h", 16, 2), "float32": ("<f", 32, 3),
           "float64": ("<d", 64, 3)}


def geotiff(width, height, samples, sample="uint16", tile=None, nodata=None, cell=30.0,
            tie=(0.0, 0.0), epsg=None, geographic=False, metadata=None):
    """The bytes of a TIFF holding SAMPLES (row-major numbers) as one band of SAMPLE type. EPSG
    names a CRS (GEOGRAPHIC: a geographic one, else projected); METADATA is GDAL's XML tag."""
    fmt, bits, kind = SAMPLES[sample]
    if tile:
        across, down = -(-width // tile), -(-height // tile)
        blocks = []
        for ty in range(down):
            for tx in range(across):
                block = bytearray()
                for r in range(ty * tile, ty * tile + tile):
                    for c in range(tx * tile, tx * tile + tile):
                        v = samples[r * width + c] if r < height and c < width else 0
                        block += struct.pack(fmt, v)
                blocks.append(bytes(block))
    else:
        blocks = [b"".join(struct.pack(fmt, samples[r * width + c]) for c in range(width))
                  for r in range(height)]
    entries = [(256, 4, [width]), (257, 4, [height]), (258, 3, [bits]), (259, 3, [1]),
               (262, 3, [1]), (277, 3, [1]), (284, 3, [1]), (339, 3, [kind]),
               (33550, 12, [cell, cell, 0.0]), (33922, 12, [0.0, 0.0, 0.0, tie[0], tie[1], 0.0])]
    if tile:
        entries += [(322, 3, [tile]), (323, 3, [tile]), (324, 4, None), (325, 4, None)]
    else:
        entries += [(273, 4, None), (278, 4, [1]), (279, 4, None)]
    if nodata is not None:
        entries.append((42113, 2, (str(nodata) + "\0").encode()))
    if epsg is not None:
        # GeoKeyDirectory: version 1.1.0, three keys: the model type, pixel is area, the CRS.
        model, crs_key = (2, 2048) if geographic else (1, 3072)
        entries.append((34735, 3, [1, 1, 0, 3, 1024, 0, 1, model, 1025, 0, 1, 1,
                                   crs_key, 0, 1, epsg]))
    if metadata is not None:
        entries.append((42112, 2, (metadata + "\0").encode()))
    entries.sort(key=lambda e: e[0])
    sizes = {2: 1, 3: 2, 4: 4, 12: 8}
    ifd_bytes = 2 + 12 * len(entries) + 4
    extra_at = 8 + ifd_bytes
    # Offsets and counts of the blocks: their arrays sit after the directory, the blocks last.
    arrays_bytes = 8 * len(blocks)
    other_bytes = sum(sizes[t] * len(v) for _, t, v in entries
                      if v is not None and sizes[t] * len(v) > 4)
    data_at = extra_at + arrays_bytes + other_bytes
    offsets, at = [], data_at
    for b in blocks:
        offsets.append(at)
        at += len(b)
    counts = [len(b) for b in blocks]
    ifd = struct.pack("<H", len(entries))
    extra = bytearray()
    for tag, kind, values in entries:
        if values is None:
            values = offsets if tag in (273, 324) else counts
        if kind == 2:
            payload = bytes(values)
        else:
            code = {3: "H", 4: "I", 12: "d"}[kind]
            payload = struct.pack("<%d%s" % (len(values), code), *values)
        if len(payload) <= 4:
            ifd += struct.pack("<HHI", tag, kind, len(values)) + payload.ljust(4, b"\0")
        else:
            ifd += struct.pack("<HHII", tag, kind, len(values), extra_at + len(extra))
            extra += payload
    ifd += struct.pack("<I", 0)
    assert 8 + len(ifd) + len(extra) == data_at
    return b"II*\0" + struct.pack("<I", 8) + ifd + bytes(extra) + b"".join(blocks)


def tiff16(width, height, samples, signed=False, tile=None, nodata=None, cell=30.0):
    """The bytes of a TIFF holding SAMPLES (row-major ints) as one 16-bit band."""
    return geotiff(width, height, samples, "int16" if signed else "uint16", tile, nodata, cell)


def hills(side, voids=False, nodata=-32768):
    samples = []
    for r in range(side):
        for c in range(side):
            v = int(1500 + 900 * math.sin(c * 0.043) * math.cos(r * 0.037) +
                    400 * math.sin((c - 2 * r) * 0.011))
            if voids and ((c - side // 3) ** 2 + (r - side // 2) ** 2 < (side // 12) ** 2 or
                          (c * 31 + r * 17) % 977 == 0):
                v = nodata
            samples.append(v)
    return samples


if __name__ == "__main__":
    out, side = sys.argv[1], int(sys.argv[2])
    signed = "--signed" in sys.argv
    voids = "--voids" in sys.argv
    tile = int(sys.argv[sys.argv.index("--tile") + 1]) if "--tile" in sys.argv else None
    data = tiff16(side, side, hills(side, voids), signed=signed, tile=tile,
                  nodata=-32768 if voids else None)
    with open(out, "wb") as f:
        f.write(data)
