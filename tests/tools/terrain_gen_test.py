#!/usr/bin/env python3
"""terrain_gen: the streamed (refined) path writes a valid, deterministic 16-bit PNG of the asked
size; bad arguments and the size limits give one line on stderr and a non-zero exit.

Usage: terrain_gen_test.py TERRAIN_GEN
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib


def read_png(path):
    """Returns (width, height, depth, colour type, raw scanlines) after checking every CRC."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "bad signature"
    pos, header, idat, types = 8, None, b"", []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert zlib.crc32(kind + body) == crc, "bad CRC in %r" % kind
        types.append(kind)
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert types[0] == b"IHDR" and types[-1] == b"IEND", types
    width, height, depth, colour = header[:4]
    return width, height, depth, colour, zlib.decompress(idat)


def run(tool, *args):
    return subprocess.run([tool, *map(str, args)], capture_output=True, text=True, timeout=600)


def check_streamed(tool, folder):
    size, base = 301, 65
    paths = [os.path.join(folder, "a.png"), os.path.join(folder, "b.png")]
    for path in paths:
        result = run(tool, path, "--size", size, "--base", base, "--seed", 7)
        assert result.returncode == 0 and result.stderr == "", result.stderr
    width, height, depth, colour, raw = read_png(paths[0])
    assert (width, height, depth, colour) == (size, size, 16, 0), (width, height, depth, colour)
    stride = 1 + 2 * size
    assert len(raw) == stride * size, len(raw)
    assert all(raw[y * stride] <= 4 for y in range(size)), "bad filter type"
    with open(paths[0], "rb") as a, open(paths[1], "rb") as b:
        assert a.read() == b.read(), "same seed, different bytes"
    other = os.path.join(folder, "c.png")
    assert run(tool, other, "--size", size, "--base", base, "--seed", 8).returncode == 0
    with open(paths[0], "rb") as a, open(other, "rb") as c:
        assert a.read() != c.read(), "different seeds, same bytes"


def check_errors(tool, folder):
    out = os.path.join(folder, "bad.png")
    cases = [
        ([out, "--size", 32770], "size must be in 2..32769, got 32770"),
        ([out, "--size", 1], "size must be in 2..32769, got 1"),
        ([out, "--size", "abc"], "invalid size 'abc'"),
        ([out, "--size", 99999999999999999999999], "size out of range"),
        ([out, "--base", 8194], "base must be in 2..8193, got 8194"),
        ([out, "--size", 100, "--base", 200], "base 200 is larger than the size 100"),
        ([out, "--seed"], "missing value for --seed"),
        ([out, "--bogus"], "unknown option --bogus"),
        ([], "usage: terrain_gen"),
        ([os.path.join(folder, "missing", "x.png"), "--size", 40, "--base", 20], "cannot open"),
    ]
    for args, expected in cases:
        result = run(tool, *args)
        lines = result.stderr.splitlines()
        assert result.returncode != 0, (args, result.returncode)
        assert len(lines) == 1 and expected in lines[0], (args, result.stderr)
        assert result.stdout == "", (args, result.stdout)
    assert not os.path.exists(out), "a refused run left a file"


def main():
    tool = sys.argv[1]
    with tempfile.TemporaryDirectory() as folder:
        check_streamed(tool, folder)
        check_errors(tool, folder)
    print("terrain_gen: ok")


if __name__ == "__main__":
    main()
