#!/usr/bin/env python3
"""Soak test: quadterrain --soak on a small generated map; it must end with no failure.

Usage: soak_test.py QUADTERRAIN_BINARY [FRAMES]   (CI runs 6000; the issue's 100000 by hand)
"""
import math
import os
import struct
import subprocess
import sys
import tempfile

binary = sys.argv[1]
frames = sys.argv[2] if len(sys.argv) > 2 else "6000"
side = 129
path = os.path.join(tempfile.mkdtemp(prefix="qt_soak_"), "hills.r16")
with open(path, "wb") as f:
    for row in range(side):
        for col in range(side):
            value = (32000 + 15000 * math.sin(col / 9.0) * math.cos(row / 13.0) +
                     8000 * math.sin((col + row) / 5.0))
            f.write(struct.pack("<H", int(value)))
run = subprocess.run([binary, path, "--window", "64x48", "--soak", frames],
                     capture_output=True, text=True, timeout=600)
print(run.stdout, end="")
print(run.stderr, end="", file=sys.stderr)
ok = run.returncode == 0 and " 0 failures" in run.stdout and not run.stderr.strip()
print("1 passed, 0 failed" if ok else "0 passed, 1 failed")
sys.exit(0 if ok else 1)
