#!/usr/bin/env python3
"""Catalogue of bad inputs for the quadterrain CLI: each gives one exact line and its exit code.

Usage: bad_input_catalogue.py QUADTERRAIN_BINARY
Load and option errors are reported before any window opens, so no display is needed; the cases
that must render (odd paths, 16-bit colour, looking straight down) run only when a display is.
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

binary = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="qt_catalogue_")
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


def write(name, data):
    path = os.path.join(tmp, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def case(name, args, code, line=None, prefix=None, env=None):
    """Runs quadterrain ARGS; checks the exit code and that stderr is exactly one line."""
    global passed
    run = subprocess.run([binary] + args, capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, QT_GL_DEBUG="1", **(env or {})))
    lines = run.stderr.splitlines()
    problems = []
    if run.returncode != code:
        problems.append(f"exit {run.returncode}, expected {code}")
    if code != 0 and len(lines) != 1:
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
case("truncated PNG", [truncated] + stats, 1, prefix=q + truncated + ": corrupt image data")
bad = bytearray(gray16)
bad[50] ^= 0xFF
corrupt = write("corrupt.png", bytes(bad))
case("corrupt PNG data", [corrupt] + stats, 1, prefix=q + corrupt + ": corrupt image data")
jpeg = write("corrupt.jpg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x13" * 40)
case("corrupt JPEG data", [jpeg] + stats, 1, prefix=q + jpeg + ": ")
huge = write("huge.png", png(100000, 100000, 16, 0, []))
case("PNG claiming 100000x100000", [huge] + stats, 1,
     q + huge + ": size 100000x100000 is over the limit (32769 samples a side, 268468225 "
     "samples in all)")
one = write("one.png", png(1, 1, 8, 0, [b"\0"]))
case("1x1 image", [one] + stats, 1,
     q + one + ": size 1x1 is too small; a heightmap needs at least 2x2 samples")
line = write("line.png", png(1, 7, 8, 0, [b"\0"] * 7))
case("1xN image", [line] + stats, 1,
     q + line + ": size 1x7 is too small; a heightmap needs at least 2x2 samples")
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
     ".gif .psd .hdr .hgt .r16 .raw)")

# Options.
usage = [
    ("zero spacing", ["--spacing", "0"], "--spacing '0': expected a positive finite number"),
    ("negative spacing", ["--spacing", "-2"], "--spacing '-2': expected a positive finite number"),
    ("NaN spacing", ["--spacing", "nan"], "--spacing 'nan': expected a positive finite number"),
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
    ("two heightmaps", [good, good],
     f"unexpected argument '{good}': only one heightmap can be given"),
]
for name, args, message in usage:
    case(name, args, 2, q + message)

# Inputs that must work, rendered (need a display).
if have_display:
    odd = write("Säntis und Höhe 2.png", gray16)
    case("path with spaces and non-ASCII", [odd] + stats, 0)
    rgb16 = write("rgb16.png", png(3, 3, 16, 2, [struct.pack(">9H", *range(9))] * 3))
    case("16-bit RGB (reduced by luminance)", [rgb16] + stats, 0)
    rgba16 = write("rgba16.png", png(3, 3, 16, 6, [struct.pack(">12H", *range(12))] * 3))
    case("16-bit RGBA (alpha ignored)", [rgba16] + stats, 0)
    case("looking straight down", [good, "--eye", "1.5,50,1.5", "--target", "1.5,0,1.5",
                                   "--screenshot", os.path.join(tmp, "down.png")], 0)
    case("looking straight up", [good, "--eye", "1.5,-50,1.5", "--target", "1.5,0,1.5"] + stats, 0)
    # Mesa can pretend to offer only OpenGL 3.0: no 3.3 core context can be had.
    case("no OpenGL 3.3 core context", [good] + stats, 1,
         prefix=q + "OpenGL 3.3 core is needed, but this display offers OpenGL 3.0",
         env={"MESA_GL_VERSION_OVERRIDE": "3.0"})
    shot = os.path.join(tmp, "window.png")
    case("window shot with a frozen frustum", [good, "--freeze-eye", "0,5,0", "--freeze-target",
                                               "3,0,3", "--window-shot", shot], 0)
    if not os.path.exists(shot) or os.path.getsize(shot) == 0:
        failures.append("window shot: no file written")
elif os.environ.get("CI") == "true":
    failures.append("no DISPLAY under CI=true: the display cases must run")
else:
    print("(display cases skipped: no DISPLAY)")

print(f"{passed} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
