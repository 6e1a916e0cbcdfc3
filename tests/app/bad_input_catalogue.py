#!/usr/bin/env python3
"""Catalogue of bad inputs for the quadterrain CLI: each gives one exact line and its exit code.

Usage: bad_input_catalogue.py QUADTERRAIN_BINARY
Load and option errors are reported before any window opens, so no display is needed; the cases
that must render (odd paths, 16-bit colour, looking straight down) run only when a display is.
"""
import atexit
import gzip
import json
import math
import os
import resource
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

binary = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="qt_catalogue_")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)  # its sparse files claim GBs of size
# Streamed maps' caches and sidecars go to the cache folder: this run's own, never the home's.
os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache home")
have_display = bool(os.environ.get("DISPLAY"))
failures = []
passed = 0


def png(width, height, depth, colour, rows):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    raw = b"".join(b"\0" + r for r in rows)
    return (b"\x89PNG\r\n\x1a\n" +
            chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def bmp(width, height, bits=8, compression=0, pixels=None, header=40):
    """An uncompressed BMP (a grey palette for 8 bits); height < 0 stores the rows top first."""
    palette = b"".join(bytes([i, i, i, 0]) for i in range(256)) if bits == 8 else b""
    offset = 14 + header + len(palette)
    row = (abs(width) * bits + 31) // 32 * 4
    if pixels is None:
        pixels = bytes(row * abs(height))
    info = struct.pack("<IiiHHIIiiII", header, width, height, 1, bits, compression, len(pixels),
                       2835, 2835, 256 if bits == 8 else 0, 0) + bytes(header - 40)
    head = b"BM" + struct.pack("<IHHI", offset + len(pixels), 0, 0, offset)
    return head + info + palette + pixels


def tga(width, height, kind=3, bits=8, data=None):
    """A TGA: kind 3 plain grey, 11 RLE grey; data defaults to every pixel stored plainly."""
    header = struct.pack("<BBBHHBHHHHBB", 0, 0, kind, 0, 0, 0, 0, 0, width, height, bits, 0)
    if data is None:
        data = bytes(width * height * bits // 8)
    return header + data


def psd(width, height, channels=3, depth=8, compression=0, data=None, mode=3):
    header = (b"8BPS" + struct.pack(">H6xHIIHH", 1, channels, height, width, depth, mode) +
              struct.pack(">III", 0, 0, 0) + struct.pack(">H", compression))
    if data is None:
        data = bytes(channels * width * height * depth // 8)
    return header + data


def hdr(width, height, data=None, layout=None, fmt=b"32-bit_rle_rgbe"):
    """A Radiance HDR with flat (not run-length) RGBE pixels."""
    layout = layout or b"-Y %d +X %d" % (height, width)
    if data is None:
        data = b"\x80\x80\x80\x81" * (width * height)
    return b"#?RADIANCE\nFORMAT=" + fmt + b"\n\n" + layout + b"\n" + data


def gif_lzw(pixels):
    """LZW data of minimum code size 2 for PIXELS grey pixels: a clear code (4), then one 3-bit
    code per pixel, clearing every second pixel, then the end code (5)."""
    bits, nbits = 0, 0
    out = bytearray()
    codes = []
    for i in range(pixels):
        if i % 2 == 0:
            codes.append(4)
        codes.append(i % 4)
    codes.append(5)
    for c in codes:
        bits |= c << nbits
        nbits += 3
        while nbits >= 8:
            out.append(bits & 255)
            bits >>= 8
            nbits -= 8
    if nbits:
        out.append(bits & 255)
    return bytes(out)


def gif_frames(width, height, frames):
    """A GIF of a WIDTHxHEIGHT screen and FRAMES, each (x, y, w, h) of grey pixels."""
    palette = b"".join(bytes([i, i, i]) for i in range(4))
    body = b""
    for x, y, fw, fh in frames:
        lzw = gif_lzw(fw * fh)
        blocks = b"".join(bytes([len(lzw[i:i + 255])]) + lzw[i:i + 255]
                          for i in range(0, len(lzw), 255))
        body += b"\x2c" + struct.pack("<HHHHB", x, y, fw, fh, 0) + b"\x02" + blocks + b"\x00"
    return b"GIF89a" + struct.pack("<HHBBB", width, height, 0x81, 0, 0) + palette + body + b"\x3b"


def gif(width, height, frame=None, lzw=None):
    """A GIF of one grey frame; lzw is its data (by default gif_lzw's)."""
    fw, fh = frame or (width, height)
    if lzw is None:
        return gif_frames(width, height, [(0, 0, fw, fh)])
    palette = b"".join(bytes([i, i, i]) for i in range(4))
    blocks = b"".join(bytes([len(lzw[i:i + 255])]) + lzw[i:i + 255]
                      for i in range(0, len(lzw), 255))
    return (b"GIF89a" + struct.pack("<HHBBB", width, height, 0x81, 0, 0) + palette +
            b"\x2c" + struct.pack("<HHHHB", 0, 0, fw, fh, 0) + b"\x02" + blocks + b"\x00\x3b")


def write(name, data):
    path = os.path.join(tmp, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


# Peak resident memory a refused input may cost: its checks come before anything big is read or
# allocated, so a bad file of any claimed size stays far below this (sanitizer builds included).
MAX_REFUSED_MB = 300
largest_refused = [0.0, ""]  # the most a refused input cost, and which


# A run still going after this long is taken for a hang (a FIFO waited on), killed and failed.
HANG_SECONDS = 120


def run_measured(args, env, file_limit=None):
    """Runs ARGS (files it writes limited to FILE_LIMIT bytes when given); returns (exit code,
    stderr, peak resident MiB of the process, whether it was killed as hung)."""
    def limit():
        if file_limit is not None:
            # Writes past the limit fail with EFBIG instead of ending the process.
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                            preexec_fn=limit)
    hung = threading.Event()

    def kill():
        hung.set()
        proc.kill()
    timer = threading.Timer(HANG_SECONDS, kill)
    timer.start()
    err = proc.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)
    timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, err, usage.ru_maxrss / 1024.0, hung.is_set()


def case(name, args, code, line=None, prefix=None, env=None, file_limit=None, one_line=False,
         output_failed=False):
    """Runs quadterrain ARGS; checks the exit code, that stderr is exactly one line (a refused
    input's, or any with ONE_LINE) and, for a refused input, that it cost little memory. A run
    whose input was good and whose output failed (OUTPUT_FAILED) has drawn its frames first: its
    memory is a render's, not a refused input's."""
    global passed
    returncode, stderr, peak_mb, hung = run_measured(
        [binary] + args, dict(os.environ, QT_GL_DEBUG="1", **(env or {})), file_limit)
    lines = stderr.splitlines()
    problems = []
    if hung:
        problems.append(f"still running after {HANG_SECONDS} s (a hang), killed")
    if returncode != code:
        problems.append(f"exit {returncode}, expected {code}")
    if code != 0 and not output_failed:
        largest_refused[:] = max(largest_refused, [peak_mb, name])
        if peak_mb > MAX_REFUSED_MB:
            problems.append(f"peak resident memory {peak_mb:.0f} MiB, over {MAX_REFUSED_MB}")
    if (code != 0 or one_line) and len(lines) != 1:
        problems.append(f"{len(lines)} lines on stderr")
    got = lines[0] if lines else ""
    if line is not None and got != line:
        problems.append(f"line {got!r}, expected {line!r}")
    if prefix is not None and not got.startswith(prefix):
        problems.append(f"line {got!r}, expected to start {prefix!r}")
    if problems:
        failures.append(f"{name}: " + "; ".join(problems))
        print(f"FAIL {name}: " + "; ".join(problems))
    else:
        passed += 1
        print(f"ok   {name}")


gray16 = png(4, 4, 16, 0, [struct.pack(">4H", *(range(r * 4, r * 4 + 4))) for r in range(4)])
good = write("good.png", gray16)
q = "quadterrain: "
stats = ["--stats-json", os.path.join(tmp, "s.json")]

# Files.
case("missing path", [os.path.join(tmp, "nope.png")] + stats, 1,
     q + os.path.join(tmp, "nope.png") + ": no such file")
os.mkdir(os.path.join(tmp, "folder.png"))
case("directory", [os.path.join(tmp, "folder.png")] + stats, 1,
     q + os.path.join(tmp, "folder.png") + ": is a directory, not a heightmap file")
# A baked layout's folder (quadterrain-bake) whose layout.json is not JSON, and one whose level 0
# is a FIFO: one line naming the file, nothing waited on.
broken_layout = os.path.join(tmp, "broken layout")
os.mkdir(broken_layout)
with open(os.path.join(broken_layout, "layout.json"), "w") as f:
    f.write("{")
case("layout whose layout.json is not JSON", [broken_layout] + stats, 1,
     q + broken_layout + ": layout.json: not JSON")
fifo_layout = os.path.join(tmp, "fifo layout")
os.mkdir(fifo_layout)
with open(os.path.join(fifo_layout, "layout.json"), "w") as f:
    f.write('{"format": "quadterrain layout", "version": 2, "width": 17, "height": 17, '
            '"leafSize": 4, "pageSize": 16, "levels": 1, "nodata": {"samples": 0}, '
            '"files": [{"file": "heights-0.tif", "columns": 17, "rows": 17, '
            '"tiles": ["0", "0", "0", "0"]}], "tree": {"bytes": 0}}')
os.mkfifo(os.path.join(fifo_layout, "heights-0.tif"))
case("layout whose level 0 is a FIFO", [fifo_layout] + stats, 1,
     prefix=q + fifo_layout + ": heights-0.tif: ")
old_layout = os.path.join(tmp, "old layout")
os.mkdir(old_layout)
with open(os.path.join(old_layout, "layout.json"), "w") as f:
    f.write('{"format": "quadterrain layout", "version": 1, "width": 17, "height": 17}')
case("layout of an older version", [old_layout] + stats, 1,
     q + old_layout + ": layout.json: a layout of version 1; this program reads version 2: "
     "bake the map again")
fifo = os.path.join(tmp, "pipe.png")
os.mkfifo(fifo)
case("not a regular file", [fifo] + stats, 1, q + fifo + ": not a regular file")
if os.geteuid() != 0:
    locked = write("locked.png", gray16)
    os.chmod(locked, 0)
    case("unreadable file", [locked] + stats, 1, q + locked + ": cannot open: Permission denied")
empty = write("empty.png", b"")
case("empty file", [empty] + stats, 1, q + empty + ": empty file")
truncated = write("truncated.png", gray16[: len(gray16) // 2])
case("truncated PNG", [truncated] + stats, 1,
     prefix=q + truncated + ": PNG: truncated: chunk 'IDAT' of ")
bad = bytearray(gray16)
bad[50] ^= 0xFF
corrupt = write("corrupt.png", bytes(bad))
case("PNG data failing its CRC", [corrupt] + stats, 1,
     q + corrupt + ": PNG: corrupt image data (chunk 'IDAT' at offset 33 fails its CRC check)")
idat_length = struct.unpack(">I", bad[33:37])[0]
bad[37 + 4 + idat_length:41 + 4 + idat_length] = struct.pack(
    ">I", zlib.crc32(bytes(bad[37:41 + idat_length])))
corrupt_deflate = write("corrupt_deflate.png", bytes(bad))
case("corrupt PNG data with a good CRC", [corrupt_deflate] + stats, 1,
     prefix=q + corrupt_deflate + ": PNG: corrupt image data (deflate: ")
jpeg = write("corrupt.jpg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x13" * 40)
case("corrupt JPEG data", [jpeg] + stats, 1, prefix=q + jpeg + ": ")
huge = write("huge.png", png(100000, 100000, 16, 0, []))
case("PNG claiming 100000x100000", [huge] + stats, 1,
     q + huge + ": size 100000x100000 is over the limit (65537 samples a side, 1073807361 "
     "samples in all)")
# Maps over the memory budget: refused from the file's length or header, before a pixel is read
# (a PNG header over a 200 MB hole). A .r16 over it streams (its codes mapped, its tree and the
# coarse levels resident): refused only when even that is over the budget (a sparse 512 MiB .r16),
# or when its tree cannot fit its share in leaves of 64.
big_png = write("big.png", png(16385, 16385, 16, 0, [])[:-12])
os.truncate(big_png, 200000000)
case("over the memory budget: big.png", [big_png, "--memory-budget", "1024"] + stats, 1,
     q + big_png + ": size 16385x16385 needs about 3073 MiB loaded (12 bytes a sample), over the "
     "memory budget of 1024 MiB (raise it with --memory-budget MB)")
big_raw = write("big.r16", b"")
os.truncate(big_raw, 16385 * 16385 * 2)
case("streamed .r16 over the memory budget", [big_raw, "--memory-budget", "100"] + stats, 1,
     q + big_raw + ": size 16385x16385 needs about 245 MiB streamed (its tree, the coarse "
     "levels of its heights and the pages in flight), over the memory budget of 100 MiB (raise it with --memory-budget MB)")
case("streamed .r16 whose tree cannot fit", [big_raw, "--memory-budget", "1"] + stats, 1,
     q + big_raw + ": its quadtree takes 2560 KiB even in leaves of 64, over its share (128 KiB) "
     "of the memory budget; raise --memory-budget")
one = write("one.png", png(1, 1, 8, 0, [b"\0"]))
case("1x1 image", [one] + stats, 1,
     q + one + ": size 1x1 is too small; a heightmap needs at least 2x2 samples")
line = write("line.png", png(1, 7, 8, 0, [b"\0"] * 7))
case("1xN image", [line] + stats, 1,
     q + line + ": size 1x7 is too small; a heightmap needs at least 2x2 samples")
# An SRTM tile renamed keeps its metres of height but loses its place: one line says so and how
# to give it back; --georef takes a tile's name only, and places an .hgt only.
renamed = write("my alps.hgt", struct.pack(">h", 500) * (1201 * 1201))
case("SRTM tile renamed", [renamed] + stats, 0,
     renamed + ": an SRTM tile's 1201x1201 samples under a name that is not a tile's (like "
     "N47E009.hgt): no georeference, one unit between samples; --georef N47E009 gives it",
     one_line=True)
case("SRTM tile renamed, placed by --georef", [renamed, "--georef", "n47e009"] + stats, 0)
if json.load(open(stats[1]))["georeference"]["west"] != 8.999583333333334:
    failures.append("--georef n47e009 did not place the renamed tile")
for tile in ["N47", "X47E009", "N90E000", "N47E181", "N47E009.hgt", ""]:
    case(f"--georef {tile!r}", [renamed, "--georef", tile], 2,
         q + f"--georef '{tile}': expected an SRTM tile's name, like N47E009 or S12W077")
case("--georef on a PNG", [good, "--georef", "N47E009"], 1,
     q + "--georef N47E009 places an SRTM .hgt; " + good + " is not one")
hgt = write("N47E009.hgt", b"\0" * 1000)
case(".hgt of the wrong length", [hgt] + stats, 1,
     q + hgt + ": file is 1000 bytes; an .hgt holds a square of big-endian 16-bit samples "
     "(2884802 bytes for 1201x1201, 25934402 for 3601x3601)")
raw = write("map.raw", b"\0" * 32)
case(".raw whose size does not match", [raw, "--size", "5x5"] + stats, 1,
     q + raw + ": file is 32 bytes but 5x5 16-bit samples need 50")
case(".raw not square without --size", [write("odd.r16", b"\0" * 30)] + stats, 1,
     q + os.path.join(tmp, "odd.r16") + ": file is 30 bytes, not a square of 16-bit samples; "
     "give its size with --size WxH")
unknown = write("map.xyz", b"123")
case("unknown extension", [unknown] + stats, 1,
     q + unknown + ": unknown extension '.xyz' (expected .png .jpg .jpeg .bmp .tga .pgm .ppm .pnm "
     ".gif .psd .hdr .hgt .r16 .raw, or through GDAL .tif .tiff .asc .vrt .dem .bil .flt .img .ter .bt "
     ".gz .zip)")

# Rasters read through GDAL: a VRT states its size, bands and geotransform as text, so each bad
# header is written here without GDAL's tools; a band without a source reads as zeros.
def vrt(name, width, height, transform, bands):
    return write(name, (f'<VRTDataset rasterXSize="{width}" rasterYSize="{height}">'
                        f"<GeoTransform>{transform}</GeoTransform>{bands}</VRTDataset>").encode())


band = '<VRTRasterBand dataType="Int16" band="{}"/>'
north_up = "0, 1, 0, 0, 0, -1"
three = vrt("three.vrt", 8, 8, north_up, "".join(band.format(b) for b in (1, 2, 3)))
case("raster of three bands", [three] + stats, 1,
     q + three + ": raster has 3 bands; a heightmap is one band of heights (pick one with "
     "gdal_translate -b N)")
zero = vrt("zero.vrt", 8, 8, "0, 0, 0, 0, 0, 0", band.format(1))
case("zero geotransform", [zero] + stats, 1,
     q + zero + ": geotransform has a zero pixel size (0 x 0)")
rotated = vrt("rotated.vrt", 8, 8, "0, 1, 0.5, 0, 0.5, -1", band.format(1))
case("rotated geotransform", [rotated] + stats, 1,
     q + rotated + ": geotransform is rotated or sheared (terms 0.5, 0.5); make it north-up "
     "first (gdalwarp)")
nodata = vrt("nodata.vrt", 8, 8, north_up,
             '<VRTRasterBand dataType="Int16" band="1"><NoDataValue>0</NoDataValue>'
             "</VRTRasterBand>")
case("nodata-only raster", [nodata] + stats, 1, q + nodata + ": every sample is nodata")
missing = vrt("missing.vrt", 8, 8, north_up,
              '<VRTRasterBand dataType="Int16" band="1"><SimpleSource><SourceFilename '
              'relativeToVRT="1">gone.tif</SourceFilename><SourceBand>1</SourceBand>'
              "</SimpleSource></VRTRasterBand>")
case("VRT pointing at a missing file", [missing] + stats, 1,
     q + missing + ": VRT source " + os.path.join(tmp, "gone.tif") + " does not exist")
huge_vrt = vrt("huge.vrt", 100000, 100000, north_up, band.format(1))
case("VRT claiming 100000x100000", [huge_vrt] + stats, 1,
     q + huge_vrt + ": size 100000x100000 is over the limit (65537 samples a side, 1073807361 "
     "samples in all)")


def tiff(width, height, data):
    """A little-endian TIFF of one strip of int16 samples; data may be shorter than the strip."""
    entries = [(256, 3, width), (257, 3, height), (258, 3, 16), (259, 3, 1), (262, 3, 1),
               (273, 4, 8 + 2 + 10 * 12 + 4), (277, 3, 1), (278, 3, height),
               (279, 4, 2 * width * height), (339, 3, 2)]
    ifd = struct.pack("<H", len(entries)) + b"".join(
        struct.pack("<HHII", tag, kind, 1, value) if kind == 4 else
        struct.pack("<HHIHH", tag, kind, 1, value, 0) for tag, kind, value in entries)
    return b"II*\0" + struct.pack("<I", 8) + ifd + struct.pack("<I", 0) + data


truncated_tiff = write("truncated.tif", tiff(4, 4, b"\1\0" * 2))
case("truncated TIFF", [truncated_tiff] + stats, 1,
     q + truncated_tiff + ": TIFF: truncated: block 0,0 of 32 bytes at offset 134 runs past the "
     "end of the file (138 bytes)")
junk_tiff = write("junk.tif", b"not a tiff")
case("not a TIFF", [junk_tiff] + stats, 1,
     q + junk_tiff + ": GDAL cannot open it: `" + junk_tiff +
     "' not recognized as a supported file format.")

# Files whose header is fine but whose pixel data is missing, or that say more than they hold.
def truncated_case(name, filename, data, keep, message):
    path = write(filename, data[:keep])
    case(name, [path] + stats, 1, q + path + ": " + message)


truncated_case("truncated BMP", "cut.bmp", bmp(8, 8), 14 + 40 + 1024 + 20,
               "BMP: truncated: 8x8 pixels at 8 bits from offset 1078 need 1142 bytes, the file "
               "has 1098")
truncated_case("truncated top-down BMP", "cut_down.bmp", bmp(8, -8, 24), 100,
               "BMP: truncated: 8x8 pixels at 24 bits from offset 54 need 246 bytes, the file has "
               "100")
truncated_case("truncated TGA", "cut.tga", tga(8, 8), 18 + 40,
               "TGA: truncated: 8x8 pixels at 8 bits need 82 bytes, the file has 58")
rle = tga(8, 8, 11, 8, bytes([0x80 | 7, 9]) * 8)  # eight runs of eight
truncated_case("truncated RLE TGA", "cut_rle.tga", rle, len(rle) - 3,
               "TGA: truncated: the RLE data ends after 48 of the 8x8 pixels")
literal = tga(8, 8, 11, 8, (bytes([7]) + bytes(range(8))) * 8)  # eight literal packets
truncated_case("RLE TGA cut inside a literal packet", "cut_literal.tga", literal,
               len(literal) - 2, "TGA: truncated: the RLE data ends after 56 of the 8x8 pixels")
truncated_case("truncated PSD", "cut.psd", psd(8, 8), 38 + 100,
               "PSD: truncated: 8x8 pixels in 3 channels of 8 bits need 232 bytes, the file has "
               "138")
rle_rows = struct.pack(">24H", *([2] * 24))
psd_rle = psd(8, 8, 3, 8, 1, rle_rows + bytes([249, 5]) * 24)  # runs of 257 - 249 = 8
truncated_case("truncated RLE PSD", "cut_rle.psd", psd_rle, len(psd_rle) - 5,
               "PSD: truncated: the RLE data of channel 2 ends after 40 of the 8x8 pixels")
truncated_case("truncated HDR", "cut.hdr", hdr(4, 4), 60,
               "HDR: truncated: 4x4 pixels of 4 bytes need 109 bytes, the file has 60")
rle_row = b"\x02\x02\x00\x08" + (bytes([128 + 8, 100])) * 4
hdr_rle = hdr(8, 4, rle_row * 4)
truncated_case("truncated run-length HDR", "cut_rle.hdr", hdr_rle, len(hdr_rle) - 6,
               "HDR: truncated: the data ends at row 3 of 4")
whole_gif = gif(8, 8)
truncated_case("truncated GIF", "cut.gif", whole_gif, len(whole_gif) - 12,
               "GIF: truncated: the image data holds 48 of the 8x8 pixels")
truncated_case("GIF cut before its image", "cut_head.gif", whole_gif, 30,
               "GIF: truncated header")
beyond = write("beyond.gif", gif_frames(8, 8, [(4, 4, 8, 8)]))
case("GIF whose first frame reaches beyond its screen", [beyond] + stats, 1,
     q + beyond + ": GIF: the first frame (8x8 at 4,4) reaches beyond the 8x8 screen")
beyond_x = write("beyond_x.gif", gif_frames(8, 8, [(1, 0, 8, 1)]))
case("GIF whose first frame reaches beyond its screen's right edge", [beyond_x] + stats, 1,
     q + beyond_x + ": GIF: the first frame (8x1 at 1,0) reaches beyond the 8x8 screen")
cut_frame = gif_frames(8, 8, [(2, 2, 4, 4)])
truncated_case("truncated GIF of a smaller frame", "cut_frame.gif", cut_frame,
               len(cut_frame) - 6,
               "GIF: truncated: the image data holds 10 of the 4x4 pixels of its first frame")
pgm = b"P5 8 8 255\n" + bytes(64)
truncated_case("truncated PGM", "cut.pgm", pgm, 40,
               "PGM/PPM: truncated: 8x8 pixels of 1 bytes need 75 bytes, the file has 40")
grey8 = png(8, 8, 8, 0, [bytes(8)] * 8)
bomb = bytearray(png(8, 8, 8, 0, [bytes(8)] * 800))
bomb[16:24] = struct.pack(">II", 8, 8)
bomb[29:33] = struct.pack(">I", zlib.crc32(bytes(bomb[12:29])))
bomb_path = write("bomb.png", bytes(bomb))
case("PNG data inflating past its header", [bomb_path] + stats, 1,
     q + bomb_path + ": PNG: image data inflates to more than the 72 bytes its 8x8 header needs")
bad_crc = bytearray(grey8)
bad_crc[31] ^= 1
bad_crc_path = write("bad_crc.png", bytes(bad_crc))
case("PNG with a bad IHDR CRC", [bad_crc_path] + stats, 1,
     q + bad_crc_path + ": PNG: corrupt header (IHDR fails its CRC check)")
no_iend = write("no_iend.png", grey8[:-12])
case("PNG without IEND", [no_iend] + stats, 1,
     q + no_iend + ": PNG: truncated: the file ends before its IEND chunk")
cut_iend = write("cut_iend.png", grey8[:-1])
case("PNG cut inside the IEND CRC", [cut_iend] + stats, 1,
     q + cut_iend + ": PNG: truncated: chunk 'IEND' of 0 bytes runs past the end of the file")
no_idat = write("no_idat.png", grey8[:33] + grey8[-12:])
case("PNG without image data", [no_idat] + stats, 1,
     q + no_idat + ": PNG: no image data (IDAT chunk)")
short_data = bytearray(png(8, 8, 8, 0, [bytes(8)] * 4))
short_data[16:24] = struct.pack(">II", 8, 8)
short_data[29:33] = struct.pack(">I", zlib.crc32(bytes(short_data[12:29])))
short_path = write("short_data.png", bytes(short_data))
case("PNG data inflating short of its header", [short_path] + stats, 1,
     q + short_path + ": PNG: truncated: image data inflates to 36 of the 72 bytes its 8x8 "
     "header needs")

# Headers stb_image cannot decode say what is wrong, after the format's name.
def ihdr_png(depth, colour, interlace=0):
    data = bytearray(png(4, 4, 8, 0, [bytes(4)] * 4))
    data[24:29] = bytes([depth, colour, 0, 0, interlace])
    data[29:33] = struct.pack(">I", zlib.crc32(bytes(data[12:29])))
    return bytes(data)


bmp_rle = bytearray(bmp(8, 8))
bmp_rle[30] = 1
bmp_bits = bytearray(bmp(8, 8))
bmp_bits[28] = 2
gif_bad = bytearray(gif(8, 8))
gif_bad[gif_bad.index(b"\x2c") + 12] = 0xFF  # the first LZW codes: illegal
sof3 = b"\xff\xd8\xff\xc3\x00\x0b\x08\x00\x08\x00\x08\x01\x01\x11\x00\xff\xd9"
messages = [
    ("PNG bit depth 3", "depth3.png", ihdr_png(3, 0),
     "PNG: bit depth 3 is not valid for grey images"),
    ("PNG 16-bit palette", "pal16.png", ihdr_png(16, 3),
     "PNG: bit depth 16 is not valid for palette images"),
    ("PNG colour type 5", "colour5.png", ihdr_png(8, 5),
     "PNG: colour type 5 is not valid (0, 2, 3, 4 or 6)"),
    ("PNG interlace 2", "interlace2.png", ihdr_png(8, 0, 2), "PNG: unknown interlace method 2"),
    ("BMP with RLE", "rle.bmp", bytes(bmp_rle),
     "BMP: RLE compression is not supported (save it uncompressed)"),
    ("BMP of 2 bits", "two.bmp", bytes(bmp_bits),
     "BMP: 2 bits per pixel is not supported (1, 4, 8, 16, 24, 32)"),
    ("HDR flipped layout", "flip.hdr", hdr(4, 4, layout=b"+Y 4 +X 4"),
     "HDR: layout '+Y 4 +X 4' is not supported (only -Y HEIGHT +X WIDTH: rows top first)"),
    ("HDR columns first", "cols.hdr", hdr(4, 4, layout=b"-X 4 +Y 4"),
     "HDR: layout '-X 4 +Y 4' is not supported (only -Y HEIGHT +X WIDTH: rows top first)"),
    ("HDR XYZE", "xyze.hdr", hdr(4, 4, fmt=b"32-bit_rle_xyze"),
     "HDR: format '32-bit_rle_xyze' is not supported (32-bit_rle_rgbe only)"),
    ("greyscale PSD", "grey.psd", psd(8, 8, 1, 8, 0, None, 1),
     "PSD: colour mode 1 is not supported (RGB only)"),
    ("32-bit PSD", "float.psd", psd(8, 8, 3, 32), "PSD: bit depth 32 is not supported (8 or 16)"),
    ("corrupt GIF", "bad.gif", bytes(gif_bad), "GIF: corrupt image data (illegal code)"),
    ("lossless JPEG", "lossless.jpg", sof3,
     "JPEG: frame type SOF3 is not supported (baseline or progressive only)"),
    ("JPEG cut short", "cut.jpg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01",
     "JPEG: truncated: the file ends before its end marker"),
    ("text in a .png", "text.png", b"hello",
     "not a readable image (no PNG, JPEG, BMP, TGA, GIF, PSD, HDR or PGM/PPM header)"),
]
for name, filename, data, message in messages:
    path = write(filename, data)
    case(name, [path] + stats, 1, q + path + ": " + message)

# Sizes checked from the file's length and header before the pixels are read.
def sparse(name, length, head=b""):
    path = os.path.join(tmp, name)
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(length)
    return path


def timed_case(name, args, code, line, seconds=3):
    start = time.monotonic()
    case(name, args, code, line)
    took = time.monotonic() - start
    if took > seconds:
        failures.append(f"{name}: took {took:.1f} s (read before checked?)")


big_r16 = sparse("big.r16", 2 * 32769 * 32769)
timed_case("sparse 32769x32769 .r16 (over 2 GiB) over the budget, streamed",
           [big_r16, "--memory-budget", "300"] + stats, 1,
           q + big_r16 + ": size 32769x32769 needs about 312 MiB streamed (its tree, the coarse "
           "levels of its heights and the pages in flight), over the memory budget of 300 MiB (raise it with "
           "--memory-budget MB)")
big_r16b = sparse("big_b.r16", 1 << 30)
timed_case("sparse 1 GiB .r16, not a square", [big_r16b] + stats, 1,
           q + big_r16b + ": file is 1073741824 bytes, not a square of 16-bit samples; give its "
           "size with --size WxH")
big_square = sparse("square.raw", 2 * 32770 * 32770)
timed_case("sparse .raw of 32770x32770", [big_square, "--size", "32770x32770"] + stats, 1,
           q + big_square + ": size 32770x32770 is over the limit (65537 samples a side, "
           "1073807361 samples in all)")
big_given = sparse("given.raw", 1 << 30)
timed_case("sparse .raw with --size that does not match", [big_given, "--size", "1025x1025"]
           + stats, 1, q + big_given + ": file is 1073741824 bytes but 1025x1025 16-bit samples "
           "need 2101250")
big_hgt = sparse("N00E000.hgt", 2 * 20000 * 20000)
timed_case("sparse .hgt of 20000x20000 over the budget",
           [big_hgt, "--memory-budget", "1024"] + stats, 1,
           q + big_hgt + ": size 20000x20000 needs about 4578 MiB loaded (12 bytes a sample), "
           "over the memory budget of 1024 MiB (raise it with --memory-budget MB)")
big_png = sparse("big.png", 5 << 29, grey8)
timed_case("sparse 2.5 GiB PNG", [big_png] + stats, 1,
           q + big_png + ": file of 2684354560 bytes is over the limit of 2147483647 bytes for a "
           "heightmap")
claim_png = sparse("claims.png", 1 << 30, png(16000, 16000, 16, 0, []))
timed_case("sparse 1 GiB PNG of zeros after its header", [claim_png] + stats, 1,
           q + claim_png + ": PNG: truncated: image data inflates to 0 of the 512016000 bytes its "
           "16000x16000 header needs")
junk_head = bytearray(png(16000, 16000, 16, 0, []))[:33] + struct.pack(">I", 1900000000) + b"IDAT"
junk_png = sparse("junk_idat.png", 1900000100, bytes(junk_head))
timed_case("sparse 1.9 GB PNG whose IDAT is zeros", [junk_png] + stats, 1,
           q + junk_png + ": PNG: corrupt image data (deflate: unknown compression method)")
sof0 = (b"\xff\xc0\x00\x11\x08" + struct.pack(">HH", 4000, 4000) + b"\x03" +
        b"\x01\x11\x00\x02\x11\x01\x03\x11\x01")
padding = b"\xff\xe1" + struct.pack(">H", 10002) + bytes(10000)
thin_jpeg = write("thin.jpg", b"\xff\xd8" + padding + sof0 + b"\xff\xd9")
timed_case("JPEG of 4000x4000 in 10 kB", [thin_jpeg] + stats, 1,
           q + thin_jpeg + ": JPEG: truncated: 4000x4000 pixels need at least 31250 bytes, the "
           "file has 10027")
huge_gif = write("huge_screen.gif", gif(40000, 40000, (8, 8)))
timed_case("GIF with a huge logical screen", [huge_gif] + stats, 1,
           q + huge_gif + ": size 40000x40000 is over the limit (65537 samples a side, 1073807361 "
           "samples in all)")
wide_gif = write("wide_screen.gif", gif(16000, 16000, (8, 8)))
timed_case("GIF whose screen dwarfs its frame", [wide_gif] + stats, 1,
           q + wide_gif + ": GIF: its 16000x16000 screen is over 2048 pixels a byte of its "
           f"{os.path.getsize(wide_gif)}-byte file (stb_image would fill it whole)")
huge_bmp = write("huge.bmp", bmp(16000, 16000, 8, pixels=b""))
timed_case("BMP claiming 16000x16000", [huge_bmp] + stats, 1,
           q + huge_bmp + ": BMP: truncated: 16000x16000 pixels at 8 bits from offset 1078 need "
           "256001078 bytes, the file has 1078")

# Rasters read through GDAL opened streamed (--stream, as one over the budget is): one pass reads
# the band into its code cache (in the cache folder), which later opens map. A GeoTIFF cut short opens (its
# directory comes first) and is refused for its first tile past the end; a VRT's missing tile is
# found before GDAL opens the VRT; a cache no folder can take (files capped at 16 kB here) is
# refused; none leaves a cache behind.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tiff16 import geotiff, hills, tiff16  # noqa: E402

whole_tif = tiff16(128, 128, hills(128), signed=True, tile=16)
cut_tif = write("cut.tif", whole_tif[: len(whole_tif) * 6 // 10])
case("streamed GeoTIFF cut short: its tiles past its end", [cut_tif, "--stream"] + stats, 1,
     q + cut_tif + ": TIFF: truncated: block 5,4 of 512 bytes at offset 19710 runs past the end of "
     "the file (20120 bytes)")
tile_tif = write("tile0.tif", tiff16(64, 64, hills(64), signed=True, tile=16))
mosaic = write("mosaic.vrt", ("""<VRTDataset rasterXSize="128" rasterYSize="64">
  <VRTRasterBand dataType="Int16" band="1">
    <SimpleSource><SourceFilename relativeToVRT="1">tile0.tif</SourceFilename>
      <SourceBand>1</SourceBand><SrcRect xOff="0" yOff="0" xSize="64" ySize="64"/>
      <DstRect xOff="0" yOff="0" xSize="64" ySize="64"/></SimpleSource>
    <SimpleSource><SourceFilename relativeToVRT="1">gone.tif</SourceFilename>
      <SourceBand>1</SourceBand><SrcRect xOff="0" yOff="0" xSize="64" ySize="64"/>
      <DstRect xOff="64" yOff="0" xSize="64" ySize="64"/></SimpleSource>
  </VRTRasterBand>
</VRTDataset>""").encode())
case("streamed VRT whose tile is missing", [mosaic, "--stream"] + stats, 1,
     q + mosaic + ": VRT source " + os.path.join(tmp, "gone.tif") + " does not exist")
roomless = write("roomless.tif", whole_tif)
cache_home = os.path.join(tmp, "roomless cache home")
case("streamed GeoTIFF whose code cache no folder can take", [roomless, "--stream"] + stats, 1,
     prefix=q + roomless + ": no room for its code cache: it needs ",
     env={"XDG_CACHE_HOME": cache_home}, file_limit=16384)
left = [f for f in os.listdir(tmp) if ".qtcodes" in f]
if os.path.isdir(os.path.join(cache_home, "quadterrain")):
    left += os.listdir(os.path.join(cache_home, "quadterrain"))
if left:
    failures.append(f"streamed GDAL failures left files behind: {left}")

# Code never runs from data: a VRT's Python pixel function is not run whatever the environment
# asks (GDAL_VRT_ENABLE_PYTHON=YES, or TRUSTED_MODULES naming a module that would run on import);
# the load fails in one line, whole or streamed, and the code's marker file never appears.
marker = os.path.join(tmp, "python ran")
derived = """<VRTDataset rasterXSize="16" rasterYSize="16">
  <GeoTransform>0, 1, 0, 0, 0, -1</GeoTransform>
  <VRTRasterBand dataType="Float32" band="1" subClass="VRTDerivedRasterBand">
    <PixelFunctionType>{function}</PixelFunctionType>
    <PixelFunctionLanguage>Python</PixelFunctionLanguage>{code}
    <SimpleSource><SourceFilename relativeToVRT="1">zero.vrt</SourceFilename>
      <SourceBand>1</SourceBand></SimpleSource>
  </VRTRasterBand>
</VRTDataset>"""
inline = write("python.vrt", derived.format(function="mark", code="""
    <PixelFunctionCode><![CDATA[
def mark(in_ar, out_ar, *args, **kwargs):
    open(%r, "w").write("ran")
    out_ar[:] = 1
]]></PixelFunctionCode>""" % marker).encode())
module_dir = os.path.join(tmp, "python modules")
os.mkdir(module_dir)
with open(os.path.join(module_dir, "qtmark.py"), "w") as f:
    f.write("open(%r, 'w').write('ran')\ndef run(in_ar, out_ar, *args, **kwargs):\n"
            "    out_ar[:] = 1\n" % marker)
trusted = write("trusted.vrt", derived.format(function="qtmark.run", code="").encode())
disabled = ": cannot read the samples: Python code in {} needs to be executed, but this has been " \
           "explicitly disabled."
# GDAL embeds the first python on PATH and its pixel functions import numpy before any code of the
# VRT's: the system's python first, so that the code would run were it allowed.
python_path = "/usr/bin:" + os.environ.get("PATH", "")
if subprocess.run(["/usr/bin/python3", "-c", "import numpy"], capture_output=True).returncode:
    print("(no numpy for /usr/bin/python3: the VRT Python cases cannot tell whether code runs)")
for name, vrt_path, env in [
        ("VRT with inline Python, GDAL_VRT_ENABLE_PYTHON=YES", inline,
         {"GDAL_VRT_ENABLE_PYTHON": "YES", "PATH": python_path}),
        ("VRT calling a trusted Python module", trusted,
         {"GDAL_VRT_ENABLE_PYTHON": "TRUSTED_MODULES", "PATH": python_path,
          "GDAL_VRT_PYTHON_TRUSTED_MODULES": "qtmark", "PYTHONPATH": module_dir})]:
    for extra in [[], ["--stream"]]:
        case(f"{name}{' streamed' if extra else ''}", [vrt_path] + extra + stats, 1,
             q + vrt_path + disabled.format(vrt_path), env=env)
        if os.path.exists(marker):
            failures.append(f"{name}: the Python in a VRT ran")
            os.remove(marker)

# GDAL's /vsigzip/ leaves no MAP.gz.properties beside a .gz it reads, even when the load fails (a
# .hgt's driver asks for the uncompressed length, which GDAL would otherwise save there).
short_hgt_gz = write("N10E010.hgt.gz", gzip.compress(bytes(1000)))
cut_tif_gz = write("cut.tif.gz", gzip.compress(whole_tif)[:400])
for extra in [[], ["--stream"]]:
    case(f".hgt.gz of the wrong length{' streamed' if extra else ''}", [short_hgt_gz] + extra + stats,
         1, q + short_hgt_gz + ": GDAL cannot open it: `/vsigzip/" + short_hgt_gz +
         "' not recognized as a supported file format.")
    case(f".tif.gz cut short{' streamed' if extra else ''}", [cut_tif_gz] + extra + stats, 1,
         prefix=q + cut_tif_gz + ": ")
properties = [f for f in os.listdir(tmp) if f.endswith(".properties")]
if properties:
    failures.append(f".gz maps left files beside them: {properties}")

# Nothing the program opens for reading may block: a FIFO (or a device) as the map, as a VRT's
# source or raw band file, or beside a map where GDAL looks for its sidecars is refused before GDAL
# opens anything, loaded or streamed. Each case has a folder of its own: a FIFO beside a map is a
# sidecar to every GDAL map there whose name it starts with.
def folder(name):
    path = os.path.join(tmp, name)
    os.makedirs(path, exist_ok=True)
    return path


small_tif = tiff16(32, 32, hills(32), signed=True, tile=16)
for ext in [".tif", ".tiff", ".asc", ".vrt", ".img", ".bil", ".dem", ".gz", ".zip"]:
    fifo_map = os.path.join(folder("fifo maps"), "M" + ext)
    os.mkfifo(fifo_map)
    for extra in [[], ["--stream"]]:
        case(f"FIFO as a {ext} map{' streamed' if extra else ''}", [fifo_map] + extra + stats, 1,
             q + fifo_map + ": not a regular file")
fifo_sources = folder("fifo sources")
os.mkfifo(os.path.join(fifo_sources, "pipe.tif"))
os.mkfifo(os.path.join(fifo_sources, "pipe.raw"))
fifo_tile = os.path.join(fifo_sources, "pipe.tif")
simple = ('<VRTDataset rasterXSize="32" rasterYSize="32"><VRTRasterBand dataType="Int16" '
          'band="1"><SimpleSource><SourceFilename relativeToVRT="{rel}">{src}</SourceFilename>'
          '<SourceBand>1</SourceBand></SimpleSource></VRTRasterBand></VRTDataset>')
raw_band = ('<VRTDataset rasterXSize="32" rasterYSize="32"><VRTRasterBand dataType="Int16" '
            'band="1" subClass="VRTRawRasterBand"><SourceFilename relativeToVRT="{rel}">{src}'
            '</SourceFilename><ImageOffset>0</ImageOffset><PixelOffset>2</PixelOffset>'
            '<LineOffset>64</LineOffset></VRTRasterBand></VRTDataset>')
inline_vrt = ('<VRTDataset rasterXSize="32" rasterYSize="32"><VRTRasterBand dataType="Int16" '
              'band="1"><SimpleSource><SourceFilename>' +
              simple.format(rel=0, src=fifo_tile).replace("<", "&lt;").replace(">", "&gt;") +
              '</SourceFilename><SourceBand>1</SourceBand></SimpleSource></VRTRasterBand>'
              '</VRTDataset>')
for name, text, named in [
        ("relative FIFO", simple.format(rel=1, src="pipe.tif"), fifo_tile),
        ("absolute FIFO", simple.format(rel=0, src=fifo_tile), fifo_tile),
        ("vrt:// FIFO", simple.format(rel=0, src="vrt://" + fifo_tile + "?bands=1"),
         fifo_tile)]:
    vrt_path = os.path.join(fifo_sources, name.split()[0].strip(":/") + ".vrt")
    with open(vrt_path, "w") as f:
        f.write(text)
    for extra in [[], ["--stream"]]:
        case(f"VRT whose source is a {name}{' streamed' if extra else ''}",
             [vrt_path] + extra + stats, 1,
             q + vrt_path + ": VRT source " + named + " is not a regular file")
for name, text in [("relative", raw_band.format(rel=1, src="pipe.raw")),
                   ("absolute", raw_band.format(rel=0, src=os.path.join(fifo_sources,
                                                                         "pipe.raw")))]:
    vrt_path = os.path.join(fifo_sources, f"raw_{name}.vrt")
    with open(vrt_path, "w") as f:
        f.write(text)
    case(f"VRT raw band whose {name} SourceFilename is a FIFO", [vrt_path] + stats, 1,
         q + vrt_path + ": VRT source " + os.path.join(fifo_sources, "pipe.raw") +
         " is not a regular file")
nested = os.path.join(fifo_sources, "nested.vrt")
with open(nested, "w") as f:
    f.write(simple.format(rel=1, src="relative.vrt"))
case("VRT of a VRT whose source is a FIFO", [nested] + stats, 1,
     q + nested + ": VRT source " + fifo_tile + " is not a regular file")
inline_path = os.path.join(fifo_sources, "inline.vrt")
with open(inline_path, "w") as f:
    f.write(inline_vrt)
case("VRT with an inline VRT whose source is a FIFO", [inline_path] + stats, 1,
     q + inline_path + ": VRT source " + fifo_tile + " is not a regular file")
loops = folder("vrt loops")
for name, pairs in [("naming itself", [("self.vrt", "self.vrt")]),
                    ("naming itself by its absolute path",
                     [("abs.vrt", os.path.join(loops, "abs.vrt"))]),
                    ("in a loop of two", [("a.vrt", "b.vrt"), ("b.vrt", "a.vrt")]),
                    ("in a loop of three", [("x.vrt", "y.vrt"), ("y.vrt", "z.vrt"),
                                            ("z.vrt", "x.vrt")])]:
    for vrt_name, source in pairs:
        with open(os.path.join(loops, vrt_name), "w") as f:
            f.write(simple.format(rel=0 if os.path.isabs(source) else 1, src=source))
    first = os.path.join(loops, pairs[0][0])
    for extra in [[], ["--stream"]]:
        case(f"VRT {name}{' streamed' if extra else ''}", [first] + extra + stats, 1,
             q + first + ": VRT source " + first +
             " is a VRT that names itself, directly or through others")
elsewhere = folder("vrt elsewhere")
for name, source, message in [
        ("a folder", elsewhere, "VRT source {} is a directory"),
        # Port 9 has no server: curl's line follows (with its timing, hence a prefix).
        ("/vsicurl/", "/vsicurl/http://127.0.0.1:9/x.tif",
         "VRT source {} cannot be read from its server: CURL error: Failed to connect to "
         "127.0.0.1 port 9"),
        ("/vsistdin/", "/vsistdin/",
         "VRT source {} is read through GDAL's /vsistdin/, which quadterrain does not follow "
         "(files and network paths only)")]:
    vrt_path = os.path.join(elsewhere, name.strip("/").replace(" ", "_") + ".vrt")
    with open(vrt_path, "w") as f:
        f.write(simple.format(rel=0, src=source))
    expected = q + vrt_path + ": " + message.format(source)
    exact = "CURL" not in message
    case(f"VRT whose source is {name}", [vrt_path] + stats, 1, line=expected if exact else None,
         prefix=None if exact else expected, env=None)
# Maps by URL (tests/core/io/remote_map_test.cpp has them against a real server).
case("map by URL with no server", ["http://127.0.0.1:9/m.tif"] + stats, 1,
     prefix=q + "http://127.0.0.1:9/m.tif: cannot be read from its server: CURL error: "
     "Failed to connect to 127.0.0.1 port 9")
case("layout by URL with no server", ["http://127.0.0.1:9/layout"] + stats, 1,
     prefix=q + "http://127.0.0.1:9/layout: a URL without an extension names a layout's folder, "
     "and its layout.json cannot be read from its server: CURL error: "
     "Failed to connect to 127.0.0.1 port 9")
case("map by URL in a format not read through GDAL", ["https://127.0.0.1:9/m.png"] + stats, 1,
     q + "https://127.0.0.1:9/m.png: a map named by URL is read through GDAL, as .tif .tiff .asc "
     ".vrt .dem .bil .flt .img .ter .bt; not '.png'")
broken_vrt = os.path.join(elsewhere, "broken.vrt")
with open(broken_vrt, "w") as f:
    f.write('<VRTDataset rasterXSize="32" rasterYSize="32"><VRTRasterBand>')
case("VRT of XML cut short", [broken_vrt] + stats, 1, q + broken_vrt + ": VRT is not well-formed XML")
# GDAL's sidecars: .aux.xml, .ovr, .msk, .prj, .tfw and the rest, FIFOs beside a map or beside a
# VRT's source; quadterrain's own .qtree and .qtcodes are left to their readers (see below).
for sidecar in ["M.tif.aux.xml", "M.tif.ovr", "M.tif.msk", "M.prj", "M.tfw", "M.aux", "m.TFW",
                "M_rpc.txt"]:
    place = folder("sidecar " + sidecar)
    beside = os.path.join(place, "M.tif")
    with open(beside, "wb") as f:
        f.write(small_tif)
    os.mkfifo(os.path.join(place, sidecar))
    for extra in [[], ["--stream"]]:
        case(f"FIFO {sidecar} beside a GeoTIFF{' streamed' if extra else ''}",
             [beside] + extra + stats, 1,
             q + beside + ": sidecar " + os.path.join(place, sidecar) +
             " is not a regular file (GDAL would open it)")
asc_place = folder("sidecar asc")
asc_map = os.path.join(asc_place, "M.asc")
with open(asc_map, "w") as f:
    f.write("ncols 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n3 4\n")
os.mkfifo(os.path.join(asc_place, "M.prj"))
case("FIFO .prj beside an ESRI ASCII grid", [asc_map] + stats, 1,
     q + asc_map + ": sidecar " + os.path.join(asc_place, "M.prj") +
     " is not a regular file (GDAL would open it)")
source_place = folder("sidecar of a source")
with open(os.path.join(source_place, "tile.tif"), "wb") as f:
    f.write(small_tif)
os.mkfifo(os.path.join(source_place, "tile.tif.aux.xml"))
source_vrt = os.path.join(source_place, "mosaic.vrt")
with open(source_vrt, "w") as f:
    f.write(simple.format(rel=1, src="tile.tif"))
case("FIFO .aux.xml beside a VRT's source", [source_vrt] + stats, 1,
     q + source_vrt + ": sidecar " + os.path.join(source_place, "tile.tif.aux.xml") +
     " is not a regular file (GDAL would open it)")

# Silently wrong numbers: a band's scale or offset, a sample beyond a float, a georeference whose
# corners are not a place, an ASCII grid's text GDAL would misread. Each is one line, loaded or
# streamed.
numbers = folder("numbers")
scaled = '<GDALMetadata><Item name="{}" sample="0" role="{}">{}</Item></GDALMetadata>'
hill_samples = hills(32)


def number_case(name, filename, data, message, extras=([], ["--stream"])):
    path = os.path.join(numbers, filename)
    with open(path, "wb") as f:
        f.write(data)
    for extra in extras:
        case(f"{name}{' streamed' if extra else ''}", [path] + extra + stats, 1,
             q + path + ": " + message)


for value, reach in [("1e300", "2.508e+303"), ("-1e300", "-2.508e+303"), ("1e30", "2.508e+33"),
                     ("1e6", "2.508e+09")]:
    number_case(f"band SCALE {value}", f"scale_{value}.tif",
                geotiff(32, 32, hill_samples, "int16", metadata=scaled.format("SCALE", "scale",
                                                                               value)),
                f"sample {reach.lstrip('-')} (the band's scale {float(value):g} and offset 0 "
                "applied) is beyond the limit of 1e+09 for a height")
for value in ["1e300", "-1e10"]:
    number_case(f"band OFFSET {value}", f"offset_{value}.tif",
                geotiff(32, 32, hill_samples, "int16", metadata=scaled.format("OFFSET", "offset",
                                                                               value)),
                f"sample {abs(float(value)):g} (the band's scale 1 and offset {float(value):g} "
                "applied) is beyond the limit of 1e+09 for a height")
for value in ["inf", "nan", "1e999"]:
    number_case(f"band SCALE {value}", f"scale_{value}.tif",
                geotiff(32, 32, hill_samples, "int16", metadata=scaled.format("SCALE", "scale",
                                                                               value)),
                f"band scale {float(value):g} and offset 0 are not both finite numbers")
for sample, value, shown in [("float64", 1e300, "1e+300"), ("float64", -1e300, "-1e+300"),
                             ("float64", 1e39, "1e+39"), ("float64", 2e9, "2e+09"),
                             ("float32", 3e38, "3e+38"), ("float32", -2e9, "2e+09")]:
    data = [float(v) for v in hill_samples]
    data[33] = value
    number_case(f"{sample} sample {value:g}", f"{sample}_{value:g}.tif",
                geotiff(32, 32, data, sample),
                f"sample {shown} is beyond the limit of 1e+09 for a height")
for name, kwargs, message in [
        ("EPSG:4326 tiepoint longitude 1e300", dict(tie=(1e300, 10.0), epsg=4326,
                                                    geographic=True, cell=0.001),
         "geographic raster reaches longitude 1e+300, beyond -360 to 360 degrees"),
        ("EPSG:4326 tiepoint longitude -1e300", dict(tie=(-1e300, 10.0), epsg=4326,
                                                     geographic=True, cell=0.001),
         "geographic raster reaches longitude -1e+300, beyond -360 to 360 degrees"),
        ("EPSG:4326 tiepoint longitude 400", dict(tie=(400.0, 10.0), epsg=4326,
                                                  geographic=True, cell=0.001),
         "geographic raster reaches longitude 400, beyond -360 to 360 degrees"),
        ("EPSG:4326 tiepoint latitude 1e300", dict(tie=(10.0, 1e300), epsg=4326,
                                                   geographic=True, cell=0.001),
         "geographic raster reaches latitude 1e+300, beyond the poles"),
        ("EPSG:4326 tiepoint latitude 95", dict(tie=(10.0, 95.0), epsg=4326, geographic=True,
                                                cell=0.001),
         "geographic raster reaches latitude 95, beyond the poles"),
        ("UTM tiepoint easting 1e300", dict(tie=(1e300, 5e6), epsg=32632),
         "geotransform's origin 1e+300, 5e+06 is too far out for its pixel size 30 x -30: the "
         "corners round together"),
        ("UTM tiepoint northing -1e300", dict(tie=(5e5, -1e300), epsg=32632),
         "geotransform's origin 500000, -1e+300 is too far out for its pixel size 30 x -30: the "
         "corners round together"),
        ("tiepoint 1e20 without a CRS", dict(tie=(1e20, 0.0)),
         "geotransform's origin 1e+20, 0 is too far out for its pixel size 30 x -30: the corners "
         "round together"),
        ("tiepoint inf", dict(tie=(math.inf, 0.0)),
         "geotransform holds a NaN or infinite number")]:
    number_case(name, name.replace(" ", "_").replace(":", "") + ".tif",
                geotiff(32, 32, hill_samples, "int16", **kwargs), message)
for cell, message in [
        (1e-300, "its georeference spaces samples 1e-300 metres apart, below the least spacing "
                 "of 1e-06; give one with --spacing"),
        (1e-7, "its georeference spaces samples 1e-07 metres apart, below the least spacing of "
               "1e-06; give one with --spacing"),
        (1e300, "its georeference spaces samples 1e+300 metres apart, making the map 3.1e+301 "
                "world units wide, over the limit of 1e+09; give a spacing with --spacing"),
        (1e8, "its georeference spaces samples 1e+08 metres apart, making the map 3.1e+09 world "
              "units wide, over the limit of 1e+09; give a spacing with --spacing")]:
    number_case(f"GeoTIFF pixel size {cell:g}", f"cell_{cell:g}.tif",
                geotiff(32, 32, hill_samples, "int16", cell=cell), message)
asc_head = "ncols 3\nnrows 3\nxllcorner 0\nyllcorner 0\ncellsize 1\n"
grid = "ESRI ASCII grid: "
for name, text, message in [
        ("a token 12abc", asc_head + "1 2 3\n4 12abc 6\n7 8 9\n",
         grid + "row 2, column 2 holds '12abc', not a number"),
        ("a token x", asc_head + "1 2 3\n4 5 6\n7 8 x\n",
         grid + "row 3, column 3 holds 'x', not a number"),
        ("a token 1.5.5", asc_head + "1 2 3\n4 1.5.5 6\n7 8 9\n",
         grid + "row 2, column 2 holds '1.5.5', not a number"),
        ("a token 1e", asc_head + "1e 2 3\n4 5 6\n7 8 9\n",
         grid + "row 1, column 1 holds '1e', not a number"),
        ("a token 0x10", asc_head + "1 2 3\n4 5 6\n7 8 0x10\n",
         grid + "row 3, column 3 holds '0x10', not a number"),
        ("too few samples", asc_head + "1 2 3\n4 5 6\n7 8\n",
         grid + "truncated: the text holds 8 of the 3x3 samples"),
        ("no samples", asc_head, "GDAL cannot open it: " + os.path.join(numbers, "no_samples.asc")
         + ": Couldn't find data values in ASCII Grid file."),
        ("too many samples", asc_head + "1 2 3\n4 5 6\n7 8 9 10\n",
         grid + "the text holds more than the 3x3 samples its header gives"),
        ("an integer past 32 bits", asc_head + "1 2 3\n4 99999999999 6\n7 8 9\n",
         grid + "row 2, column 2 holds '99999999999', beyond 32-bit integers (GDAL reads this "
         "grid as integers)"),
        ("an integer of -2147483649", asc_head + "1 2 3\n4 -2147483649 6\n7 8 9\n",
         grid + "row 2, column 2 holds '-2147483649', beyond 32-bit integers (GDAL reads this "
         "grid as integers)"),
        ("nan in a grid of integers", asc_head + "1 2 3\n4 nan 6\n7 8 9\n",
         grid + "row 2, column 2 holds 'nan', not a whole number as GDAL reads this grid (it "
         "would read 0)"),
        ("a float sample of 1e39", asc_head + "1 2 3\n4 5.5 6\n7 8 1e39\n",
         grid + "row 3, column 3 holds '1e39', beyond a float's range"),
        ("a float sample of 2e9", asc_head + "1 2 3\n4 5.5 6\n7 8 2e9\n",
         "sample 2e+09 is beyond the limit of 1e+09 for a height"),
        ("a header value 0abc", asc_head.replace("xllcorner 0", "xllcorner 0abc") + "1 2 3\n" * 3,
         grid + "header line 'xllcorner 0abc' does not end in a number"),
        ("a header line GDAL does not read", asc_head + "rows 3\n" + "1 2 3\n" * 3,
         grid + "header line 'rows 3' is not a name GDAL reads (ncols, nrows, xllcorner, "
         "yllcorner, xllcenter, yllcenter, cellsize, dx, dy, NODATA_value) and its value")]:
    number_case(f".asc with {name}", name.replace(" ", "_") + ".asc", text.encode(), message)

# Files that declare more than they hold: a TIFF of a kilobyte declaring 30000x30000 or
# 16000x16000 samples is refused from its blocks' sizes before anything of that size is
# allocated, whatever the budget (0: none), loaded or streamed.
def declared_tiff(width, height, rows_per_strip, byte_count, compression=1, length=1024):
    """A TIFF of LENGTH bytes declaring WIDTHxHEIGHT 16-bit samples in strips of ROWS_PER_STRIP
    rows, each BYTE_COUNT bytes: the strips' offsets and sizes (past the end when there are
    many) point at what the file does not hold."""
    strips = -(-height // rows_per_strip)
    data_at = 8 + 2 + 10 * 12 + 4
    if strips == 1:
        offsets, counts = data_at, byte_count
    else:
        offsets, counts = data_at, data_at + 4 * strips
    entries = [(256, 4, 1, width), (257, 4, 1, height), (258, 3, 1, 16),
               (259, 3, 1, compression), (262, 3, 1, 1), (273, 4, strips, offsets),
               (277, 3, 1, 1), (278, 4, 1, rows_per_strip), (279, 4, strips, counts),
               (339, 3, 1, 2)]
    ifd = struct.pack("<H", len(entries)) + b"".join(
        struct.pack("<HHII", tag, kind, count, value) if kind == 4 else
        struct.pack("<HHIHH", tag, kind, count, value, 0)
        for tag, kind, count, value in entries) + struct.pack("<I", 0)
    data = b"II*\0" + struct.pack("<I", 8) + ifd
    if strips > 1:
        data += b"".join(struct.pack("<I", data_at + 8 * strips) for _ in range(strips))
        data += b"".join(struct.pack("<I", byte_count) for _ in range(strips))
    return (data + bytes(max(0, length - len(data))))[:length]


declared = folder("declared")
for side in [30000, 16000]:
    whole = 2 * side * side
    # libtiff reads one uncompressed strip as strips of a row (GDAL's blocks) when a row is over
    # 8 KiB: the first of them is past the end.
    chopped = (f"TIFF: truncated: block 0,0 of {2 * side} bytes at offset 134 runs past the end "
               "of the file (1024 bytes)")
    for name, data, message in [
            ("one strip past its end", declared_tiff(side, side, side, whole), chopped),
            ("one uncompressed strip of 500 bytes", declared_tiff(side, side, side, 500), chopped),
            ("one DEFLATE strip past its end", declared_tiff(side, side, side, whole, 8),
             f"TIFF: truncated: block 0,0 of {whole} bytes at offset 134 runs past the end of the "
             "file (1024 bytes)"),
            ("one DEFLATE strip of 500 bytes", declared_tiff(side, side, side, 500, 8),
             f"TIFF: block 0,0 holds 500 bytes, too few for the {whole} bytes of samples it "
             "stands for (DEFLATE expands at most 1032 to 1)"),
            ("one LZW strip of 500 bytes", declared_tiff(side, side, side, 500, 5),
             f"TIFF: block 0,0 holds 500 bytes, too few for the {whole} bytes of samples it "
             "stands for (LZW expands at most 4096 to 1)"),
            ("one ZSTD strip of 500 bytes", declared_tiff(side, side, side, 500, 50000),
             f"TIFF: block 0,0 holds 500 bytes, too few for the {whole} bytes of samples it "
             "stands for (ZSTD expands at most 32768 to 1)"),
            ("strips of one row", declared_tiff(side, side, 1, 2 * side),
             f"TIFF: truncated: the offsets of its {side} strips ({4 * side} bytes at offset "
             "134) run past the end of the file (1024 bytes)"),
            ("DEFLATE strips of 16 rows", declared_tiff(side, side, 16, 100, 8),
             f"TIFF: truncated: the offsets of its {side // 16} strips ({side // 4} bytes at "
             "offset 134) run past the end of the file (1024 bytes)")]:
        path = os.path.join(declared, f"{side}_{name.replace(' ', '_')}.tif")
        with open(path, "wb") as f:
            f.write(data)
        for extra in [[], ["--memory-budget", "0"], ["--stream"],
                      ["--stream", "--memory-budget", "0"]]:
            case(f"1 KB TIFF declaring {side}x{side}, {name} {' '.join(extra)}",
                 [path] + extra + stats, 1, q + path + ": " + message)
big_asc = os.path.join(declared, "big.asc")
with open(big_asc, "w") as f:
    f.write("ncols 30000\nnrows 30000\nxllcorner 0\nyllcorner 0\ncellsize 1\n" + "1 " * 400)
for extra in [[], ["--memory-budget", "0"], ["--stream"]]:
    case(f".asc declaring 30000x30000 in 1 KB {' '.join(extra)}", [big_asc] + extra + stats, 1,
         q + big_asc + ": ESRI ASCII grid: truncated: 30000x30000 samples need at least "
         f"1799999999 bytes of text, the file has {os.path.getsize(big_asc)}")

# Imagery that cannot be shown fails a scripted run in one line naming it (exit 1), whatever it
# claims to hold; checked before anything big is read.
imagery_dir = folder("imagery")
ortho_missing = os.path.join(imagery_dir, "no_ortho.tif")
case("imagery missing", [good, "--imagery", ortho_missing] + stats, 1,
     prefix=q + ortho_missing + ": ")
ortho_text = os.path.join(imagery_dir, "text.tif")
with open(ortho_text, "w") as f:
    f.write("not an image at all\n")
case("imagery that is text", [good, "--imagery", ortho_text] + stats, 1,
     prefix=q + ortho_text + ": GDAL cannot open it")
ortho_folder = os.path.join(imagery_dir, "folder.tif")
os.mkdir(ortho_folder)
case("imagery that is a folder", [good, "--imagery", ortho_folder] + stats, 1,
     prefix=q + ortho_folder + ": ")
ortho_huge = os.path.join(imagery_dir, "declared.tif")
with open(ortho_huge, "wb") as f:
    f.write(declared_tiff(1000000, 1000000, 1000000, 500))
case("imagery declaring 1000000x1000000 in 1 KB", [good, "--imagery", ortho_huge] + stats, 1,
     prefix=q + ortho_huge + ": ")
if shutil.which("gdal_create"):
    for name, options, message in [
            ("5 bands", ["-bands", "5", "-ot", "Byte"], "raster has 5 bands; imagery is 1 to 4"),
            ("Float32 samples", ["-bands", "3", "-ot", "Float32"], "samples are Float32"),
            ("Int16 samples", ["-bands", "1", "-ot", "Int16"], "samples are Int16")]:
        path = os.path.join(imagery_dir, name.replace(" ", "_") + ".tif")
        subprocess.run(["gdal_create", "-q", "-of", "GTiff", "-outsize", "8", "8", *options,
                        path], check=True)
        case(f"imagery of {name}", [good, "--imagery", path] + stats, 1,
             prefix=q + path + ": " + message)
    # Imagery that covers none of the map: one line, and the terrain shows without it (exit 0).
    off_map = os.path.join(imagery_dir, "off_map.tif")
    subprocess.run(["gdal_create", "-q", "-of", "GTiff", "-outsize", "8", "8", "-bands", "3",
                    "-a_srs", "EPSG:4326", "-a_ullr", "100", "10", "101", "9", off_map],
                   check=True)
    hgt = os.path.join(imagery_dir, "N47E009.hgt")
    with open(hgt, "wb") as f:
        f.write(struct.pack(">1201H", *([400] * 1201)) * 1201)
    case("imagery off the map", [hgt, "--imagery", off_map] + stats, 0,
         q + off_map + ": imagery covers none of the map; the terrain is shown without it",
         one_line=True)
    if json.load(open(stats[1]))["imagery"] is not None:
        failures.append("imagery off the map: an imagery block in --stats-json")

    # Imagery whose full-resolution tiles are damaged and its overviews whole: it opens (its
    # pyramid's top page comes from an overview), and the scripted frame, whose pages read the
    # damaged tiles, fails in one line naming it (exit 1): a coarser level drawn instead is not the
    # picture asked for.
    def damage_first_tiles(path):
        """Overwrites the middle of every tile of a classic little-endian TIFF's first IFD."""
        data = bytearray(open(path, "rb").read())
        assert data[:4] == b"II*\0", "a classic little-endian TIFF"
        ifd = struct.unpack_from("<I", data, 4)[0]
        tags = {}
        for e in range(struct.unpack_from("<H", data, ifd)[0]):
            tag, kind, count, value = struct.unpack_from("<HHII", data, ifd + 2 + 12 * e)
            if tag in (324, 325):  # TileOffsets, TileByteCounts: LONG arrays
                at = value if count > 1 else ifd + 2 + 12 * e + 8
                tags[tag] = struct.unpack_from(f"<{count}I", data, at)
        for offset, size in zip(tags[324], tags[325]):
            for k in range(offset + size // 4, offset + size - 4):
                data[k] ^= 0x5A
        with open(path, "wb") as f:
            f.write(data)

    damaged = os.path.join(imagery_dir, "damaged_tiles.tif")
    subprocess.run(["gdal_create", "-q", "-of", "GTiff", "-outsize", "1200", "1200", "-bands", "3",
                    "-burn", "90", "-co", "TILED=YES", "-co", "COMPRESS=DEFLATE", "-a_srs",
                    "EPSG:4326", "-a_ullr", "8.9996", "48.0004", "10.0004", "46.9996", damaged],
                   check=True)
    subprocess.run(["gdaladdo", "-q", "-r", "average", damaged, "2", "4", "8", "16", "32", "64",
                    "128", "256", "512"], check=True)
    damage_first_tiles(damaged)
    case("imagery with damaged full-resolution tiles", [hgt, "--imagery", damaged] + stats, 1,
         prefix=q + damaged + ": imagery pages unread (", output_failed=True)
else:
    print("(imagery cases of bands and types skipped: no gdal_create, Debian's gdal-bin)")

# A mapping's values name what set them: the map's georeference, or the option given.
for name, args, message in [
        ("--exaggeration 1e30", ["--exaggeration", "1e30"],
         "--exaggeration 1e+30 makes heights reach 3.75e+29 world units, over the limit of 1e+09"),
        ("--exaggeration 1e10", ["--exaggeration", "1e10"],
         "--exaggeration 1e+10 makes heights reach 3.75e+09 world units, over the limit of 1e+09"),
        ("--height-scale 2 with --exaggeration 1e30", ["--height-scale", "2", "--exaggeration",
                                                       "1e30"],
         "--height-scale 2 with --exaggeration 1e+30 makes heights reach 3e+31 world units, over "
         "the limit of 1e+09")]:
    case(name, [good] + args + stats, 1, q + message)

# Paths with control characters are printed escaped, on one line.
nl_missing = os.path.join(tmp, "new\nline.png")
case("missing path with a newline", [nl_missing] + stats, 1,
     q + os.path.join(tmp, "new\\x0aline.png") + ": no such file")
nl_bad = write("bad\rname\n.bmp", bmp(8, 8)[:100])
case("truncated file whose name has a newline", [nl_bad] + stats, 1,
     q + os.path.join(tmp, "bad\\x0dname\\x0a.bmp") + ": BMP: truncated: 8x8 pixels at 8 bits "
     "from offset 1078 need 1142 bytes, the file has 100")
tab_ext = write("map.p\tng", b"123")
case("extension with a tab", [tab_ext] + stats, 1,
     q + os.path.join(tmp, "map.p\\x09ng") + ": unknown extension '.p\\x09ng' (expected .png "
     ".jpg .jpeg .bmp .tga .pgm .ppm .pnm .gif .psd .hdr .hgt .r16 .raw, or through GDAL .tif .tiff "
     ".asc .vrt .dem .bil .flt .img .ter .bt .gz .zip)")

# Objects the map has no room for: refused before any window opens, whatever their number.
case("no room for the balls", [good, "--objects", "100000", "--moving", "100000"] + stats, 1,
     q + "--objects: no room for 100000 balls on this map, even with every object at a quarter "
     "of its size; ask for fewer")

# Options.
usage = [
    ("zero spacing", ["--spacing", "0"], "--spacing '0': expected a positive finite number, or two as X,Z"),
    ("negative spacing", ["--spacing", "-2"], "--spacing '-2': expected a positive finite number, or two as X,Z"),
    ("NaN spacing", ["--spacing", "nan"], "--spacing 'nan': expected a positive finite number, or two as X,Z"),
    ("infinite height scale", ["--height-scale", "inf"],
     "--height-scale 'inf': expected a finite number"),
    ("leaf not a power of two", ["--leaf", "6"], "--leaf '6': expected a power of two from 2 to 64"),
    ("leaf out of range", ["--leaf", "128"], "--leaf '128': expected a power of two from 2 to 64"),
    ("fov too small", ["--fov", "1"], "--fov '1': expected degrees between 1 and 179 (exclusive)"),
    ("fov too large", ["--fov", "179.5"],
     "--fov '179.5': expected degrees between 1 and 179 (exclusive)"),
    ("eye equal to target", ["--eye", "1,2,3", "--target", "1,2,3"],
     "--eye and --target are the same point; the camera needs a direction"),
    ("malformed --size", ["--size", "1025"],
     "--size '1025': expected WIDTHxHEIGHT with positive integers, like 1025x1025"),
    ("unknown flag", ["--wireframe-please"], "unknown option '--wireframe-please' (see --help)"),
    ("window over the pixel cap", ["--window", "16384x16384"],
     "--window '16384x16384': expected WIDTHxHEIGHT from 1x1 to 16384x16384 and at most 67108864 "
     "pixels (8192x8192), like 1280x720"),
    ("window side over the cap", ["--window", "20000x10"],
     "--window '20000x10': expected WIDTHxHEIGHT from 1x1 to 16384x16384 and at most 67108864 "
     "pixels (8192x8192), like 1280x720"),
    ("negative object count", ["--objects", "-1"],
     "--objects '-1': expected a whole number of objects from 0 to 50000000"),
    ("object count in exponent form", ["--objects", "1e12"],
     "--objects '1e12': expected a whole number of objects from 0 to 50000000"),
    ("object count over the cap", ["--objects", "1000000000000"],
     "--objects '1000000000000': expected a whole number of objects from 0 to 50000000"),
    ("more moving than objects", ["--objects", "10", "--moving", "11"],
     "--moving 11 is more than --objects 10"),
    ("object dump without stats", ["--objects", "10", "--dump-objects"],
     "--dump-objects needs --stats-json OUT.json"),
    ("memory budget below zero", ["--memory-budget", "-1"],
     "--memory-budget '-1': expected a whole number of MiB from 0 to 16777216"),
    ("memory budget in GB", ["--memory-budget", "4GB"],
     "--memory-budget '4GB': expected a whole number of MiB from 0 to 16777216"),
    ("two heightmaps", [good, good],
     f"unexpected argument '{good}': only one heightmap can be given"),
    ("--sun without a time zone", ["--sun", "2026-06-21T09:00"],
     "--sun '2026-06-21T09:00': no time zone offset; expected local time and its offset, like "
     "2026-06-21T09:00+02:00 (or Z for UTC)"),
    ("--sun on a day that is not", ["--sun", "2026-06-31T09:00+02:00"],
     "--sun '2026-06-31T09:00+02:00': a field out of range; expected local time and its offset, "
     "like 2026-06-21T09:00+02:00 (or Z for UTC)"),
    ("--sun malformed", ["--sun", "21/06/2026 09:00"],
     "--sun '21/06/2026 09:00': not a date and time; expected local time and its offset, like "
     "2026-06-21T09:00+02:00 (or Z for UTC)"),
    ("--sun-elevation over 90", ["--sun-elevation", "91"],
     "--sun-elevation '91': expected degrees above the horizon, -90 to 90"),
    ("--sun-elevation under -90", ["--sun-elevation", "-90.5"],
     "--sun-elevation '-90.5': expected degrees above the horizon, -90 to 90"),
    ("--imagery-opacity over 1", ["--imagery-opacity", "1.5"],
     "--imagery-opacity '1.5': expected an opacity from 0 to 1"),
    ("--imagery-opacity NaN", ["--imagery-opacity", "nan"],
     "--imagery-opacity 'nan': expected an opacity from 0 to 1"),
    ("--imagery-light neither on nor off", ["--imagery-light", "maybe"],
     "--imagery-light 'maybe': expected on or off"),
    ("--imagery-compression of a format it does not make", ["--imagery-compression", "bc1"],
     "--imagery-compression 'bc1': expected none or bc3"),
]
for name, args, message in usage:
    case(name, args, 2, q + message)
# --sun needs the map's longitude and latitude: a map without them is the command line's error.
case("--sun on a map without a georeference", [good, "--sun", "2026-06-21T09:00+02:00"] + stats,
     2, q + "--sun needs a map with a georeference in longitude and latitude; give --sun-azimuth "
     "and --sun-elevation instead")

# More objects than half of this machine's memory holds at the viewer's 448 bytes an object:
# refused from the count, before anything is scattered (a machine with room for the cap skips it).
physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
if 50000000 * 448 > physical // 2:
    case("more objects than memory holds", [good, "--objects", "50000000"] + stats, 2,
         prefix=q + "--objects 50000000 needs about 21362 MiB, more than half of this "
         "machine's memory (")

# Mappings whose world would not be finite floats: refused before any window, naming the option.
world = [
    ("spacing of 1e20", ["--spacing", "1e20"],
     "--spacing 1e+20 makes the map 3e+20 world units wide, over the limit of 1e+09"),
    ("spacing of 1e-9", ["--spacing", "1e-9"],
     "--spacing 1e-09 is below the least spacing of 1e-06"),
    ("height scale of 1e38", ["--height-scale", "1e38"],
     "--height-scale 1e+38 makes heights reach 1.5e+39 world units, over the limit of 1e+09"),
    ("height scale of -1e9", ["--height-scale", "-1e9"],
     "--height-scale -1e+09 makes heights reach 1.5e+10 world units, over the limit of 1e+09"),
    ("height offset of 3e38", ["--height-offset", "3e38"],
     "--height-offset 3e+38 makes heights reach 3e+38 world units, over the limit of 1e+09"),
    ("height offset pushing the top over", ["--height-scale", "6e7", "--height-offset", "2e8"],
     "--height-offset 2e+08 makes heights reach 1.1e+09 world units, over the limit of 1e+09"),
]
for name, args, message in world:
    case(name, [good] + args + stats, 1, q + message)
hdr_big = write("big_sample.hdr", hdr(4, 4, b"\x80\x80\x80\x81" * 15 + b"\x80\x80\x80\xc0"))
case("HDR with one huge sample", [hdr_big] + stats, 1,
     q + hdr_big + ": HDR: sample 9.22337e+18 is beyond the limit of 1e+09 for a height")
case("eye beyond 1e15", [good, "--eye", "1e16,0,0", "--target", "0,0,0"] + stats, 2,
     q + "--eye '1e16,0,0': expected X,Y,Z with three numbers from -1e15 to 1e15")

# Empty paths, positional or for an option, are usage errors.
empty = [
    ("empty heightmap path", [""], "empty heightmap path"),
    ("empty heightmap path after a map", [good, ""], "empty heightmap path"),
    ("empty --screenshot", [good, "--screenshot", ""], "--screenshot: empty path"),
    ("empty --screenshot=", [good, "--screenshot="], "--screenshot: empty path"),
    ("empty --window-shot", [good, "--window-shot", ""], "--window-shot: empty path"),
    ("empty --stats-json", [good, "--stats-json", ""], "--stats-json: empty path"),
    ("empty --cull-map", [good, "--cull-map", ""], "--cull-map: empty path"),
    ("empty --bench", [good, "--bench", ""], "--bench: empty path"),
    ("empty --screenshot-dir", [good, "--screenshot-dir", ""], "--screenshot-dir: empty path"),
    ("empty --size", [good, "--size", ""],
     "--size '': expected WIDTHxHEIGHT with positive integers, like 1025x1025"),
]
for name, args, message in empty:
    case(name, args, 2, q + message)
# F12's folder must be one, checked before anything opens.
for name, folder in [("missing", os.path.join(tmp, "no such folder")), ("a file", good),
                     ("a device", "/dev/null")]:
    case(f"--screenshot-dir {name}", [good, "--screenshot-dir", folder], 2,
         q + "--screenshot-dir " + folder + ": not a folder")

# Inputs that must work, rendered (need a display).
if have_display:
    odd = write("Säntis und Höhe 2.png", gray16)
    case("path with spaces and non-ASCII", [odd] + stats, 0)
    rgb16 = write("rgb16.png", png(3, 3, 16, 2, [struct.pack(">9H", *range(9))] * 3))
    case("16-bit RGB (reduced by luminance)", [rgb16] + stats, 0)
    rgba16 = write("rgba16.png", png(3, 3, 16, 6, [struct.pack(">12H", *range(12))] * 3))
    case("16-bit RGBA (alpha ignored)", [rgba16] + stats, 0)
    # Every format's valid variants still load.
    valid = [("bottom-up BMP", "up.bmp", bmp(8, 8)),
             ("top-down BMP", "down.bmp", bmp(8, -8)),
             ("24-bit top-down BMP", "down24.bmp", bmp(8, -8, 24)),
             ("plain TGA", "plain.tga", tga(8, 8)),
             ("RLE TGA", "rle.tga", rle),
             ("RLE TGA of literal packets", "literal.tga", literal),
             ("raw PSD", "raw.psd", psd(8, 8)),
             ("RLE PSD", "rle.psd", psd_rle),
             ("flat HDR", "flat.hdr", hdr(4, 4)),
             ("run-length HDR", "rle.hdr", hdr_rle),
             ("GIF", "ok.gif", whole_gif),
             ("PGM", "ok.pgm", pgm)]
    for name, filename, data in valid:
        case(name, [write(filename, data)] + stats, 0)
    # Valid GIFs whose first frame does not cover the screen: stb_image draws it on the
    # background, as the screen's size.
    for name, filename, data in [
            ("GIF of a 1x1 first frame on an 8x8 screen", "corner.gif",
             gif_frames(8, 8, [(0, 0, 1, 1)])),
            ("GIF of a 2x2 first frame at 3,5 on an 8x8 screen", "inside.gif",
             gif_frames(8, 8, [(3, 5, 2, 2)])),
            ("GIF of a 8x8 frame on a 64x64 screen", "frame.gif", gif(64, 64, (8, 8))),
            ("GIF of 3000 frames of 1x1 on a 2x2 screen", "frames.gif",
             gif_frames(2, 2, [(i % 2, i // 2 % 2, 1, 1) for i in range(3000)]))]:
        case(name, [write(filename, data)] + stats, 0)
    # Voids: NaN and infinities in float samples, and nodata beyond a float's range, are filled
    # like any nodata; a tiny scale flattens the map; a georeference's spacing gives way to
    # --spacing.
    fill = [float(v) for v in hills(32)]
    for name, sample, values, kwargs in [
            ("float32 NaN samples", "float32", {5: math.nan, 40: math.nan}, {}),
            ("float32 infinite samples", "float32", {5: math.inf, 40: -math.inf}, {}),
            ("float64 NaN and infinite samples", "float64", {5: math.nan, 40: math.inf}, {}),
            ("float64 nodata 1e300", "float64", {5: 1e300, 40: 1e300}, {"nodata": 1e300}),
            ("band SCALE 1e-300", "int16", {}, {"metadata": scaled.format("SCALE", "scale",
                                                                          "1e-300")})]:
        data = list(fill) if sample != "int16" else hills(32)
        for at, value in values.items():
            data[at] = value
        path = os.path.join(numbers, "ok_" + name.replace(" ", "_") + ".tif")
        with open(path, "wb") as f:
            f.write(geotiff(32, 32, data, sample, **kwargs))
        for extra in [[], ["--stream"]]:
            case(f"{name}{' streamed' if extra else ''}", [path] + extra + stats, 0)
    case("GeoTIFF pixel size 1e-300 with --spacing 1",
         [os.path.join(numbers, "cell_1e-300.tif"), "--spacing", "1"] + stats, 0)
    case("looking straight down", [good, "--eye", "1.5,50,1.5", "--target", "1.5,0,1.5",
                                   "--screenshot", os.path.join(tmp, "down.png")], 0)
    case("looking straight up", [good, "--eye", "1.5,-50,1.5", "--target", "1.5,0,1.5"] + stats, 0)
    # Mesa can pretend to offer only OpenGL 3.0: no 3.3 core context can be had.
    case("no OpenGL 3.3 core context", [good] + stats, 1,
         prefix=q + "OpenGL 3.3 core is needed, but this display offers OpenGL 3.0",
         env={"MESA_GL_VERSION_OVERRIDE": "3.0"})
    # The largest worlds and cameras allowed give a finite camera and far plane.
    for name, args in [
        ("world 1e9 wide and high", ["--spacing", "3.3e8", "--height-scale", "6e7",
                                     "--height-offset", "-5e7"]),
        ("narrow view of the largest world", ["--spacing", "3.3e8", "--fov", "1.01",
                                              "--window", "1x16384"]),
        ("narrowest view of the largest world", ["--spacing", "3.3e8", "--height-scale", "6e7",
                                                 "--height-offset", "-1e9", "--fov", "1.01",
                                                 "--window", "1x16384"]),
        ("camera 1e15 away", ["--eye", "1e15,1e15,-1e15", "--target", "0,0,0"]),
        ("camera 1e15 away from the largest world",
         ["--spacing", "3.3e8", "--height-scale", "-6e7", "--height-offset", "1e8",
          "--eye", "-1e15,-1e15,1e15", "--target", "1,1,1"]),
    ]:
        out = os.path.join(tmp, "world.json")
        case(name, [good] + args + ["--stats-json", out], 0)
        camera = json.load(open(out))["camera"]
        values = camera["eye"] + [camera["near"], camera["far"]]
        if not all(math.isfinite(v) for v in values) or not camera["far"] > camera["near"] > 0:
            failures.append(f"{name}: camera not finite: {camera}")
    # A map of one leaf has no level 1 to stand in for its level-0 page: streamed, its heights go
    # to the GPU whole (4x4 and 5x5, leaves of 4), and a map of four leaves streams.
    for side in (4, 5, 9):
        tiny = write(f"tiny{side}.r16", bytes(2 * side * side))
        case(f"{side}x{side} .r16 streamed", [tiny, "--stream"] + stats, 0)
    # A small map streamed needs little beside its tree: no fixed pool of 128 MiB.
    small_r16 = write("small400.r16", b"".join(struct.pack("<H", (c * 7 + r * 13) % 4096)
                                               for r in range(400) for c in range(400)))
    case("400x400 .r16 streamed under a 64 MiB budget",
         [small_r16, "--stream", "--memory-budget", "64"] + stats, 0)
    # A scripted frame is never taken with pages outstanding: a pool given too small for the
    # view is one line (a pool sized from the view grows instead).
    case("--stream-pool too small for the scripted view",
         [small_r16, "--stream", "--stream-pool", "1", "--page-size", "64", "--lod", "1",
          "--eye", "200,40,200", "--target", "300,0,300"] + stats, 1,
         q + "--stream-pool 1: the view needs more level-0 pages than that many layers hold; "
         "raise it, or leave it out to size the pool from the view")
    # A streamed GeoTIFF's code cache that cannot be used is one line and rebuilt: cut short,
    # edited after its sidecar was written (a stale sidecar), or the map changed since.
    streamed = write("streamed.tif", tiff16(96, 96, hills(96, voids=True), signed=True, tile=16,
                                            nodata=-32768))
    streamed_folder = sorted(os.listdir(tmp))
    case("streamed GeoTIFF, its code cache written", [streamed, "--stream"] + stats, 0)
    cache = json.load(open(stats[1]))["streaming"]["cache"]["codes"]
    cache_folder = os.path.join(os.environ["XDG_CACHE_HOME"], "quadterrain")
    if os.path.dirname(cache) != cache_folder or \
            not os.path.basename(cache).startswith("streamed.tif."):
        failures.append(f"streamed GeoTIFF: its code cache {cache!r} is not in {cache_folder}")
    if sorted(os.listdir(tmp)) != streamed_folder:
        failures.append("streamed GeoTIFF: files written beside the map: "
                        f"{sorted(set(os.listdir(tmp)) - set(streamed_folder))}")
    os.truncate(cache, os.path.getsize(cache) - 2)
    case("streamed GeoTIFF, its code cache cut short", [streamed, "--stream"] + stats, 0,
         cache + ": truncated, rebuilding")
    with open(cache, "r+b") as f:
        f.seek(4096 + 100)
        f.write(b"\xff\xff")
    case("streamed GeoTIFF, a code edited in its cache", [streamed, "--stream"] + stats, 0,
         cache + ": changed since its sidecar was written, rebuilding")
    os.utime(cache + ".qtree", (1700000000, 1700000000))
    os.utime(cache, (1700000001, 1700000001))
    case("streamed GeoTIFF, a stale sidecar beside its cache", [streamed, "--stream"] + stats, 0,
         cache + ": changed since its sidecar was written, rebuilding")
    os.utime(streamed, (1700000002, 1700000002))
    case("streamed GeoTIFF changed since its cache", [streamed, "--stream"] + stats, 0,
         cache + ": stale (the map or a file it reads changed), rebuilding")
    case("streamed GeoTIFF, its code cache read", [streamed, "--stream"] + stats, 0)
    if json.load(open(stats[1]))["streaming"]["code_cache"] != "read":
        failures.append("streamed GeoTIFF: the rebuilt cache was not read")
    # Every output is checked: a full device or a missing folder is one line and exit 1.
    full = "quadterrain: /dev/full: cannot write the file (No space left on device)"
    for option in ["--screenshot", "--cull-map", "--stats-json", "--window-shot"]:
        case(f"{option} to a full device", [good, option, "/dev/full"], 1, full,
             output_failed=True)
    nowhere = os.path.join(tmp, "no such folder", "out\n.png")
    case("--screenshot into a missing folder", [good, "--screenshot", nowhere], 1,
         q + os.path.join(tmp, "no such folder", "out\\x0a.png") +
         ": cannot create the file (No such file or directory)")
    case("--stats-json onto a folder", [good, "--stats-json", tmp], 1,
         q + tmp + ": cannot create the file (Is a directory)")
    case("--cull-map into a missing folder", [good, "--cull-map", nowhere], 1,
         q + os.path.join(tmp, "no such folder", "out\\x0a.png") +
         ": cannot create the file (No such file or directory)")
    # An output replaces a file only once the new one is whole: a write that fails part way (files
    # capped at 256 bytes, EFBIG, as a full disk's ENOSPC) leaves no file and no temporary, and a
    # file already there as it was.
    outputs = os.path.join(tmp, "outputs")
    os.mkdir(outputs)
    capped = {"MESA_SHADER_CACHE_DISABLE": "true"}
    for option, name, extra in [("--screenshot", "shot.png", []),
                                ("--stats-json", "stats.json", []),
                                ("--cull-map", "cull.png", []),
                                ("--window-shot", "window.png", []),
                                ("--bench", "bench.csv", ["--frames", "2"]),
                                ("--state-json", "state.json", ["--frames", "2"])]:
        target = os.path.join(outputs, name)
        for existing in [None, b"precious"]:
            if existing is not None:
                with open(target, "wb") as f:
                    f.write(existing)
            case(f"{option} cut short{' over a file' if existing else ''}",
                 [good, option, target] + extra, 1,
                 q + target + ": cannot write the file (File too large)", env=capped,
                 file_limit=256, output_failed=True)
            left = sorted(os.listdir(outputs))
            if left != ([name] if existing else []):
                failures.append(f"{option} cut short: {left} left")
            elif existing is not None and open(target, "rb").read() != existing:
                failures.append(f"{option} cut short: the file already there changed")
            for leftover in left:
                os.remove(os.path.join(outputs, leftover))
    # The same on a full file system, where one can be mounted (root): ENOSPC part way.
    full_fs = os.path.join(tmp, "full fs")
    os.mkdir(full_fs)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", full_fs],
                      capture_output=True).returncode == 0:
        atexit.register(subprocess.run, ["umount", full_fs], capture_output=True)
        kept = os.path.join(full_fs, "kept.png")
        with open(kept, "wb") as f:
            f.write(b"precious")
        try:
            with open(os.path.join(full_fs, "filler"), "wb") as f:
                while True:
                    f.write(bytes(4096))
                    f.flush()
        except OSError:
            pass
        before = sorted(os.listdir(full_fs))
        for option in ["--screenshot", "--stats-json", "--cull-map"]:
            for target in [kept, os.path.join(full_fs, "new.png")]:
                case(f"{option} on a full file system{' over a file' if target == kept else ''}",
                     [good, option, target], 1,
                     q + target + ": cannot write the file (No space left on device)",
                     output_failed=True)
                if sorted(os.listdir(full_fs)) != before or open(kept, "rb").read() != b"precious":
                    failures.append(f"{option} on a full file system: left "
                                    f"{sorted(os.listdir(full_fs))}")
    else:
        print("(full file system cases skipped: cannot mount a tmpfs)")

    # Files the program did not write are never replaced, renamed or removed where its sidecars and
    # code caches go: a user's notes (read-only or not), an empty file, a damaged magic, a
    # directory, a FIFO (never opened to block), a link. The map opens without them, said in one
    # line, and what is there stays as it was, run after run.
    own = os.path.join(tmp, "own")
    os.mkdir(own)
    own_env = {"XDG_CACHE_HOME": os.path.join(tmp, "own cache home")}
    r16 = os.path.join(own, "M.r16")
    with open(r16, "wb") as f:
        f.write(b"".join(struct.pack("<H", (i * 7) % 5000) for i in range(257 * 257)))
    own_tif = os.path.join(own, "M.tif")
    with open(own_tif, "wb") as f:
        f.write(tiff16(96, 96, hills(96), signed=True, tile=16))
    own_stats = os.path.join(tmp, "own.json")
    beside = ["--stream", "--cache-beside", "--stats-json", own_stats]
    case("streamed .r16, its sidecar written", [r16] + beside, 0, env=own_env)
    good_sidecar = open(r16 + ".qtree", "rb").read()
    case("streamed GeoTIFF, its cache written", [own_tif] + beside, 0, env=own_env)
    good_cache = open(own_tif + ".qtcodes", "rb").read()
    good_link = os.path.join(tmp, "a good sidecar")
    with open(good_link, "wb") as f:
        f.write(good_sidecar)

    def snapshot(path):
        st = os.lstat(path)
        body = open(path, "rb").read() if stat.S_ISREG(st.st_mode) else os.readlink(path) \
            if stat.S_ISLNK(st.st_mode) else None
        return (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode), st.st_ino, body)

    def notes(path, mode=0o644, data=b"notes\n"):
        with open(path, "wb") as f:
            f.write(data)
        os.chmod(path, mode)

    occupants = [("notes", "not a quadterrain {}", notes),
                 ("read-only notes", "not a quadterrain {}", lambda p: notes(p, 0o444)),
                 ("an empty file", "not a quadterrain {}", lambda p: notes(p, data=b"")),
                 ("a damaged magic", "not a quadterrain {}",
                  lambda p: notes(p, data=b"X" + good_sidecar[1:])),
                 ("a directory", "a directory", os.mkdir),
                 ("a FIFO", "not a regular file", os.mkfifo),
                 ("a link to a good sidecar", "a symbolic link",
                  lambda p: os.symlink(good_link, p))]
    places = [("the .r16's sidecar", r16, r16 + ".qtree", "tree sidecar",
               "continuing without a sidecar", "sidecar"),
              ("the GeoTIFF's code cache", own_tif, own_tif + ".qtcodes", "code cache",
               "continuing without a code cache", "code_cache"),
              ("the GeoTIFF's code cache's sidecar", own_tif, own_tif + ".qtcodes.qtree",
               "tree sidecar", "continuing without a code cache", "code_cache")]
    for place, map_path, at, kind, outcome, field in places:
        for who, why, make in occupants:
            for leftover in os.listdir(own):
                path = os.path.join(own, leftover)
                if path not in (r16, own_tif):
                    shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) \
                        else os.remove(path)
            make(at)
            before = snapshot(at)
            names = sorted(os.listdir(own))
            for run in ["", ", again"]:
                case(f"{who} as {place}{run}", [map_path] + beside, 0, at + ": left alone (" + why.format(kind) + "); " + outcome, env=own_env,
                     one_line=True)
                streaming = json.load(open(own_stats))["streaming"]
                expected = None if field == "sidecar" else "not kept"
                if streaming[field] != expected:
                    failures.append(f"{who} as {place}: {field} {streaming[field]!r}")
                if snapshot(at) != before or sorted(os.listdir(own)) != names:
                    failures.append(f"{who} as {place}{run}: changed, or files left beside it: "
                                    f"{sorted(os.listdir(own))}")
    # Things named like caches in the cache folder that are not the program's: kept, and a FIFO
    # among them never blocks the orphan sweep.
    cache_folder = os.path.join(own_env["XDG_CACHE_HOME"], "quadterrain")
    os.makedirs(cache_folder, exist_ok=True)
    os.mkfifo(os.path.join(cache_folder, "pipe.qtcodes"))
    os.mkdir(os.path.join(cache_folder, "folder.qtcodes"))
    notes(os.path.join(cache_folder, "notes.qtcodes"))
    os.symlink(os.path.join(own, "gone.tif.qtcodes"), os.path.join(cache_folder, "link.qtcodes"))
    swept = sorted(os.listdir(cache_folder))
    for leftover in os.listdir(own):
        if os.path.join(own, leftover) not in (r16, own_tif):
            shutil.rmtree(os.path.join(own, leftover), ignore_errors=True)
            if os.path.lexists(os.path.join(own, leftover)):
                os.remove(os.path.join(own, leftover))
    case("streamed GeoTIFF beside files named like caches",
         [own_tif, "--stream", "--cache-beside"] + stats, 0, env=own_env)
    if sorted(os.listdir(cache_folder)) != swept:
        failures.append(f"the orphan sweep changed the cache folder: {os.listdir(cache_folder)}")

    # Where caches go by default: the cache folder, under names two maps of one name in different
    # folders never share, nothing beside the map; a cache folder that cannot be made is one line
    # and the map opens without; a user's file where a cache would go is left alone; a cache of
    # the program's own beside the map (--cache-beside, or an earlier layout) is read, not written.
    places_env = {"XDG_CACHE_HOME": os.path.join(tmp, "places cache home")}
    places_folder = os.path.join(places_env["XDG_CACHE_HOME"], "quadterrain")
    places_stats = os.path.join(tmp, "places.json")
    twins = []
    for sub in ["a", "b"]:
        os.mkdir(os.path.join(tmp, "twin " + sub))
        twin = os.path.join(tmp, "twin " + sub, "N47E009.tif")
        with open(twin, "wb") as f:
            f.write(tiff16(64, 64, [v + 100 * len(twins) for v in hills(64)], signed=True,
                           tile=16))
        twins.append(twin)
    for twin in twins:
        case(f"streamed {twin}, its cache in the cache folder",
             [twin, "--stream", "--stats-json", places_stats], 0, env=places_env)
        where = json.load(open(places_stats))["streaming"]["cache"]
        if os.path.dirname(where["codes"]) != places_folder or \
                where["tree"] != where["codes"] + ".qtree":
            failures.append(f"streamed {twin}: its cache is at {where}")
        if os.listdir(os.path.dirname(twin)) != ["N47E009.tif"]:
            failures.append(f"streamed {twin}: files beside it: {os.listdir(os.path.dirname(twin))}")
    if len(set(os.listdir(places_folder))) != 4:
        failures.append(f"two maps of one name share a cache: {os.listdir(places_folder)}")
    case(f"streamed {twins[0]} again, its cache read",
         [twins[0], "--stream", "--stats-json", places_stats], 0, env=places_env)
    if json.load(open(places_stats))["streaming"]["code_cache"] != "read":
        failures.append("a cache in the cache folder was not read")
    twin_cache = json.load(open(places_stats))["streaming"]["cache"]["codes"]
    os.remove(twin_cache)
    notes(twin_cache, data=b"mine\n")
    case("a user's file where the cache goes", [twins[0], "--stream"] + stats, 0,
         twin_cache + ": left alone (not a quadterrain code cache); continuing without a code "
         "cache", env=places_env, one_line=True)
    if open(twin_cache, "rb").read() != b"mine\n":
        failures.append("a user's file where the cache goes was changed")
    not_a_folder = os.path.join(tmp, "places not a folder")
    notes(not_a_folder)
    for map_path, outcome in [(twins[1], "continuing without a code cache"),
                              (r16, "continuing without a sidecar")]:
        names = sorted(os.listdir(os.path.dirname(map_path)))
        case(f"streamed {os.path.basename(map_path)}, --cache-dir not a folder",
             [map_path, "--stream", "--cache-dir", not_a_folder + "/quadterrain"] + stats, 0,
             not_a_folder + "/quadterrain: cache folder cannot be created (Not a directory); " +
             outcome, env=places_env, one_line=True)
        if sorted(os.listdir(os.path.dirname(map_path))) != names:
            failures.append(f"--cache-dir not a folder: files beside {map_path}")
    # The .r16's sidecar written beside it by --cache-beside above is read by default, and not
    # rewritten there.
    for leftover in os.listdir(own):
        if os.path.join(own, leftover) not in (r16, own_tif):
            shutil.rmtree(os.path.join(own, leftover), ignore_errors=True)
    case("streamed .r16, its sidecar written beside it", [r16] + beside, 0, env=places_env)
    kept = snapshot(r16 + ".qtree")
    case("streamed .r16, its sidecar beside it read", [r16, "--stream", "--stats-json",
                                                       places_stats], 0, env=places_env)
    streaming = json.load(open(places_stats))["streaming"]
    if streaming["sidecar"] != "read" or streaming["cache"]["tree"] != r16 + ".qtree" or \
            snapshot(r16 + ".qtree") != kept:
        failures.append(f"a sidecar beside the map was not read as it is: {streaming}")

    shot = os.path.join(tmp, "window.png")
    case("window shot with a frozen frustum", [good, "--freeze-eye", "0,5,0", "--freeze-target",
                                               "3,0,3", "--window-shot", shot], 0)
    if not os.path.exists(shot) or os.path.getsize(shot) == 0:
        failures.append("window shot: no file written")
elif os.environ.get("CI") == "true":
    failures.append("no DISPLAY under CI=true: the display cases must run")
else:
    print("(display cases skipped: no DISPLAY)")

print(f"largest peak resident memory of a refused input: {largest_refused[0]:.0f} MiB "
      f"({largest_refused[1]})")
print(f"{passed} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
