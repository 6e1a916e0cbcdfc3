#!/usr/bin/env python3
"""Prints, after a ctest run, how many tests skipped and why, from ctest's log of every output.

Usage: skip_summary.py BUILD_DIR
A GoogleTest skip gives its reason on the line after "...: Skipped"; a script's skip prints a line
"(... skipped: REASON)". Tests that need the shared heightmaps ($QT_SHARED_HEIGHTMAPS, else CMake's
QT_SHARED_HEIGHTMAPS, ../shared/heightmaps by default) skip when they are absent, and this is
where the run says so at its end, rather than in the middle of hundreds of lines.
"""
import collections
import os
import re
import sys

log = os.path.join(sys.argv[1] if len(sys.argv) > 1 else "build", "Testing", "Temporary",
                   "LastTest.log")
if not os.path.exists(log):
    print(f"skip summary: no ctest log at {log}")
    sys.exit(0)

reasons = collections.Counter()  # reason -> tests skipped (whole or in part) for it
test = None
lines = open(log, encoding="utf-8", errors="replace").read().splitlines()
for i, line in enumerate(lines):
    started = re.match(r"^\d+/\d+ Testing: (.*)$", line)
    if started:
        test = started.group(1)
        continue
    if test is None:
        continue
    if line.endswith(": Skipped") and i + 1 < len(lines):
        reasons[lines[i + 1].strip() or "no reason given"] += 1
    script = re.match(r"^\((.*) skipped: (.*)\)$", line.strip())
    if script:
        reasons[f"{script.group(2)} ({script.group(1)})"] += 1

total = sum(reasons.values())
if total == 0:
    print("skip summary: no test skipped")
else:
    print(f"skip summary: {total} skipped")
    for reason, count in reasons.most_common():
        print(f"  {count} x {reason}")
