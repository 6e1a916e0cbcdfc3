#!/usr/bin/env python3
"""Soak test: quadterrain --soak on a small generated map; no failure, and no own-heap drift.

Usage: soak_test.py QUADTERRAIN_BINARY [FRAMES [rss|heap-only]]
(CI runs 6000; longer soaks, such as 100000, by hand)

Memory is sampled in one reference state at every checkpoint. The own heap (operator new's live
blocks) must not change after warm-up, nor its bytes by more than 256 (driver-internal resizing),
but for one step of the driver's compiled programs (below). With llvmpipe's rasterizer threads, resident memory drift is
printed but not judged (--soak-rss-report-only): those threads keep tens of MB of scene memory
whose amount depends on timing, so identical states differ by up to ~30% with no trend (see
soak.h). A second run with llvmpipe on one thread (LP_NUM_THREADS=0), where that memory no longer
depends on timing, is judged on resident memory too: drift under 1% or the soak fails. Sanitizer
builds pass heap-only (ASan's quarantine grows resident memory by design).
"""
import atexit
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tiff16  # noqa: E402

binary = sys.argv[1]
frames = sys.argv[2] if len(sys.argv) > 2 else "6000"
judge_rss = (sys.argv[3] if len(sys.argv) > 3 else "rss") == "rss"
side = 129
folder = tempfile.mkdtemp(prefix="qt_soak_")
atexit.register(shutil.rmtree, folder, ignore_errors=True)
# Streamed maps' caches go to the cache folder: this run's own, never the home's.
os.environ["XDG_CACHE_HOME"] = os.path.join(folder, "cache home")
path = os.path.join(folder, "hills.r16")
with open(path, "wb") as f:
    for row in range(side):
        for col in range(side):
            value = (32000 + 15000 * math.sin(col / 9.0) * math.cos(row / 13.0) +
                     8000 * math.sin((col + row) / 5.0))
            f.write(struct.pack("<H", int(value)))
run = subprocess.run([binary, path, "--window", "64x48", "--soak", frames, "--soak-rss-report-only"],
                     capture_output=True, text=True, timeout=600)
print(run.stdout, end="")
print(run.stderr, end="", file=sys.stderr)
strict = None
if judge_rss:
    strict = subprocess.run([binary, path, "--window", "64x48", "--soak", frames],
                            capture_output=True, text=True, timeout=600,
                            env=dict(os.environ, LP_NUM_THREADS="0"))
    print(strict.stdout, end="")
    print(strict.stderr, end="", file=sys.stderr)

# The streamed GeoTIFF, replaced under the running soak.
tif = os.path.join(folder, "hills.tif")
tif_bytes = tiff16.tiff16(513, 513, tiff16.hills(513), tile=128)
with open(tif, "wb") as f:
    f.write(tif_bytes)
stop = threading.Event()
replaced = [0]


def replace_map():
    while not stop.wait(0.1):
        with open(tif + ".new", "wb") as f:
            f.write(tif_bytes)
        os.replace(tif + ".new", tif)
        replaced[0] += 1


replacer = threading.Thread(target=replace_map)
replacer.start()
try:
    changed = subprocess.run([binary, tif, "--stream", "--window", "64x48", "--soak", "4100",
                              "--soak-rss-report-only"],
                             capture_output=True, text=True, timeout=600)
finally:
    stop.set()
    replacer.join()
print(changed.stdout, end="")
print(changed.stderr, end="", file=sys.stderr)

problems = []
stale = ".qtcodes: stale (the map or a file it reads changed), rebuilding"
cache_folder = os.path.join(os.environ["XDG_CACHE_HOME"], "quadterrain")
others = [line for line in changed.stderr.splitlines()
          if not (line.endswith(stale) and line.startswith(cache_folder + "/hills.tif."))]
if changed.returncode != 0 or " 0 failures" not in changed.stdout or others:
    problems.append(f"streamed GeoTIFF replaced while in use: exit {changed.returncode}, "
                    f"{' / '.join(others) or 'no summary of 0 failures'}")
elif replaced[0] < 2:
    problems.append("streamed GeoTIFF: the map was not replaced while the soak ran")
else:
    print(f"soak_test: streamed GeoTIFF replaced {replaced[0]} times while in use, "
          f"{changed.stderr.count(stale)} rebuilds from the new file")
if run.returncode != 0:
    problems.append(f"exit status {run.returncode}")
if " 0 failures" not in run.stdout:
    problems.append("the summary does not say 0 failures")
if run.stderr.strip():
    problems.append("something was written to stderr")
resident = re.search(r"resident: first ([\d.]+) MB, last ([\d.]+) MB, drift ([-+][\d.]+)%",
                     run.stdout)
heap = re.search(r"own heap: first (\d+) bytes in (\d+) blocks, last (\d+) bytes in (\d+) blocks, "
                 r"drift ([-+][\d.]+)%", run.stdout)
if not resident or not heap:
    problems.append("the memory figures are missing")
else:
    first, last = float(resident[1]), float(resident[2])
    if not (first > 0 and last > 0):
        problems.append("resident memory figures are not positive")
    heapFirst, blocksFirst, heapLast, blocksLast = (int(heap[i]) for i in range(1, 5))
    if heapFirst <= 0 or blocksFirst <= 0:
        problems.append("the own-heap counter counted nothing")
    # The reference state is identical, so the live blocks must be too: exact, not within 1%.
    # Their bytes may differ by a few dozen: C++ containers inside the driver (LLVM) resize by
    # timing (identical runs start 100 bytes apart, and one in several moves by 16 bytes once
    # after warm-up, with the same blocks). Anything of ours that grew per frame would add far
    # more than kHeapSlack bytes over the thousands of frames after warm-up.
    kHeapSlack = 256
    # One step is allowed, once: llvmpipe compiles a program anew for each state it is first
    # drawn in, and LLVM keeps a few blocks of each (through operator new, so counted here); a
    # program and state the random walk first meets after warm-up adds them then (6 blocks,
    # 8.4 KB, seen once in 14,000 frames, flat after). Growth per frame or per reload shows in
    # every interval between the samples (500 frames), a step in one.
    kDriverStepBytes, kDriverStepBlocks = 32768, 16
    samples = [(int(f), int(b)) for f, b in
               re.findall(r"frame (\d+): reference resident [\d.]+ MB, own heap (\d+) bytes",
                          run.stdout)]
    warm = [b for f, b in samples if f >= 2000]
    steps = [b - a for a, b in zip(warm, warm[1:]) if abs(b - a) > kHeapSlack]
    one_driver_step = (len(steps) == 1 and 0 < steps[0] <= kDriverStepBytes and
                       0 < blocksLast - blocksFirst <= kDriverStepBlocks)
    if len(warm) < 3:
        problems.append(f"too few heap samples after warm-up: {len(warm)}")
    elif (blocksLast != blocksFirst or abs(heapLast - heapFirst) > kHeapSlack) and \
            not one_driver_step:
        problems.append(f"own heap changed after warm-up: {heapFirst} bytes in {blocksFirst} blocks "
                        f"-> {heapLast} bytes in {blocksLast} blocks (steps over {kHeapSlack} "
                        f"bytes between samples: {steps})")
    print(f"soak_test: resident drift {resident[3]}% (reported), own heap {heapFirst} -> {heapLast} "
          f"bytes (drift {heap[5]}%)")
if strict is not None:
    drift = re.search(r"resident: first ([\d.]+) MB, last ([\d.]+) MB, drift ([-+][\d.]+)%",
                      strict.stdout)
    if strict.returncode != 0 or " 0 failures" not in strict.stdout or not drift:
        problems.append(f"single-threaded llvmpipe soak: exit {strict.returncode}, "
                        f"{strict.stderr.strip() or 'no drift figure'}")
    elif abs(float(drift[3])) >= 1.0:
        problems.append(f"resident memory drifted {drift[3]}% with llvmpipe on one thread")
    else:
        print(f"soak_test: resident drift {drift[3]}% with llvmpipe on one thread (judged, < 1%)")
for problem in problems:
    print("soak_test: " + problem, file=sys.stderr)
print("0 passed, 1 failed" if problems else "1 passed, 0 failed")
sys.exit(1 if problems else 0)
