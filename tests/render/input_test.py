#!/usr/bin/env python3
"""Drives the real viewer window with synthetic X input (xdotool, through the XTest extension).

Usage: input_test.py CASE QUADTERRAIN     (under a display: see with_display.sh)
CASE: pick (hover and a measuring drag equal --pick of the same pixels), screenshot (F12 and
Shift+F12 write PNGs named by date and time), enter (Ctrl+O, a path and Enter load a map: a quick
Enter is not lost), move1 / move60 (W held 2 s moves speed x 2 s at 1 and at 60 frames a second).
The viewer runs with --state-json, prints "quadterrain: ready" after its first frame, and writes
its camera, cursor pick, measurement and last screenshot at exit (Esc). Skips (exit 77) without
xdotool, unless CI=true.
"""
import json
import math
import os
import struct
import subprocess
import sys
import tempfile
import time

case, exe = sys.argv[1], os.path.abspath(sys.argv[2])
WINDOW = (800, 450)
# A camera over the middle of the 129x129 map, looking across it and down at it.
CAMERA = ["--eye", "20,60,140", "--target", "70,0,60"]
SKIP = 77


def fail(message):
    print(f"FAIL ({case}): {message}", file=sys.stderr)
    sys.exit(1)


def write_hills(path, n):
    """A raw 16-bit little-endian square map of smooth hills (its size inferred from the length)."""
    with open(path, "wb") as f:
        for r in range(n):
            for c in range(n):
                v = 0.5 + 0.25 * math.sin(c * 0.11) * math.cos(r * 0.07) + 0.2 * math.sin((c + r) * 0.031)
                f.write(struct.pack("<H", max(0, min(65535, int(v * 65535)))))


def xdotool(*args):
    subprocess.run(["xdotool", *args], check=True, timeout=60)


class Viewer:
    """The viewer on `map_path`, started and waited for until its first frame is on screen."""

    def __init__(self, tmp, map_path, *extra):
        self.state_path = os.path.join(tmp, "state.json")
        self.process = subprocess.Popen(
            [exe, map_path, "--window", f"{WINDOW[0]}x{WINDOW[1]}", *CAMERA,
             "--state-json", self.state_path, *extra],
            cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if "quadterrain: ready" not in line:
            self.process.kill()
            fail(f"the viewer did not start: {line!r} {self.process.stderr.read()!r}")
        ids = subprocess.run(["xdotool", "search", "--sync", "--pid", str(self.process.pid)],
                             capture_output=True, text=True, timeout=60).stdout.split()
        if not ids:
            self.close()
            fail("no window found for the viewer's process")
        self.window = ids[0]
        # No window manager: the keyboard goes to the window under the pointer.
        self.move(WINDOW[0] - 40, WINDOW[1] - 40)

    def move(self, x, y):
        xdotool("mousemove", "--window", self.window, str(x), str(y))

    def close(self):
        """Esc, then the state the viewer wrote at exit."""
        xdotool("key", "Escape")
        try:
            _, err = self.process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            fail("the viewer did not close on Esc")
        if self.process.returncode != 0:
            fail(f"the viewer exited with {self.process.returncode}: {err.strip()}")
        with open(self.state_path) as f:
            return json.load(f)


def scripted_pick(tmp, map_path, x, y):
    """The "pick" of --stats-json for window pixel (x, y) with the same camera and window."""
    out = os.path.join(tmp, f"pick_{x}_{y}.json")
    subprocess.run([exe, map_path, "--window", f"{WINDOW[0]}x{WINDOW[1]}", *CAMERA,
                    "--stats-json", out, "--pick", f"{x},{y}"], check=True, timeout=120)
    with open(out) as f:
        return json.load(f)["pick"]


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path} is not a PNG")
    return struct.unpack(">II", head[16:24])


def test_pick(tmp, map_path):
    a, b, sky = (460, 240), (560, 400), (600, 15)
    v = Viewer(tmp, map_path)
    v.move(*a)
    time.sleep(0.3)
    xdotool("mousedown", "1")
    time.sleep(0.3)
    v.move(*b)
    time.sleep(0.3)
    xdotool("mouseup", "1")
    time.sleep(0.3)
    state = v.close()
    pick_a, pick_b = scripted_pick(tmp, map_path, *a), scripted_pick(tmp, map_path, *b)
    if not (pick_a["hit"] and pick_b["hit"]):
        fail(f"the chosen pixels should be on the terrain: {pick_a} {pick_b}")
    if state["cursor"] != pick_b:
        fail(f"the cursor's pick {state['cursor']} != --pick {b}: {pick_b}")
    if state["measure"] != {"a": pick_a["world"], "b": pick_b["world"]}:
        fail(f"the measurement {state['measure']} != the picks {pick_a['world']} {pick_b['world']}")
    if scripted_pick(tmp, map_path, *sky)["hit"]:
        fail(f"pixel {sky} is sky: --pick should miss")
    print(f"pick: cursor {state['cursor']}, measure {state['measure']}")


def test_screenshot(tmp, map_path):
    v = Viewer(tmp, map_path)
    xdotool("key", "F12")
    time.sleep(0.5)
    xdotool("key", "shift+F12")
    time.sleep(0.5)
    state = v.close()
    shots = sorted(f for f in os.listdir(tmp) if f.startswith("quadterrain-") and f.endswith(".png"))
    if len(shots) != 2:
        fail(f"expected two screenshots in the current folder, found {shots}")
    for shot in shots:
        name = shot[len("quadterrain-"):-len(".png")]
        try:
            time.strptime(name[:15], "%Y%m%d-%H%M%S")
        except ValueError:
            fail(f"{shot} is not named by date and time")
        if png_size(os.path.join(tmp, shot)) != WINDOW:
            fail(f"{shot} is {png_size(os.path.join(tmp, shot))}, not the window's size {WINDOW}")
    if state["screenshot"] not in shots or "no HUD" not in state["message"]:
        fail(f"the HUD should name the last screenshot: {state['message']!r}, {state['screenshot']!r}")
    with open(os.path.join(tmp, shots[0]), "rb") as f1, open(os.path.join(tmp, shots[1]), "rb") as f2:
        if f1.read() == f2.read():
            fail("the screenshots with and without the HUD are the same")
    print(f"screenshot: {shots}, HUD: {state['message']!r}")


def test_enter(tmp, map_path):
    second = os.path.join(tmp, "second.r16")
    write_hills(second, 65)
    v = Viewer(tmp, map_path)
    xdotool("key", "ctrl+o")
    time.sleep(0.5)
    xdotool("key", "ctrl+a")
    xdotool("type", "--delay", "20", second)
    xdotool("key", "Return")
    time.sleep(1.0)
    state = v.close()
    if state["map"] != second or not state["message"].startswith("loaded "):
        fail(f"Enter in the path box should load {second}: map {state['map']!r}, "
             f"message {state['message']!r}")
    print(f"enter: {state['message']!r}")


def test_move(tmp, map_path, fps):
    held = 2.0
    # Eye high over the map, looking level along +x: nothing but the keys moves it.
    global CAMERA
    CAMERA = ["--eye", "10,300,64", "--target", "110,300,64"]
    v = Viewer(tmp, map_path, "--max-fps", str(fps))
    start_eye = [10.0, 300.0, 64.0]
    xdotool("keydown", "w", "sleep", str(held), "keyup", "w")
    time.sleep(1.5)  # a frame at 1 fps takes in the release
    state = v.close()
    eye = state["camera"]["eye"]
    moved = math.dist(eye, start_eye)
    expected = state["speed"] * held
    rate = state["frames"] / state["seconds"]
    print(f"move at {fps} fps (measured {rate:.1f} frames/s over {state['frames']} frames): "
          f"moved {moved:.3f}, expected {expected:.3f} ({100 * (moved / expected - 1):+.2f}%)")
    if abs(moved - expected) > 0.04 * expected:
        fail(f"W held {held} s at {fps} fps moved {moved}, not speed x time = {expected}")
    if fps == 1 and rate > 1.5:
        fail(f"--max-fps 1 drew {rate} frames a second")


def main():
    if subprocess.run(["sh", "-c", "command -v xdotool"], capture_output=True).returncode != 0:
        if os.environ.get("CI") == "true":
            fail("xdotool is not installed (bash .ci/install-deps)")
        print(f"(input_test {case} skipped: xdotool not installed)")
        sys.exit(SKIP)
    with tempfile.TemporaryDirectory() as tmp:
        map_path = os.path.join(tmp, "hills.r16")
        write_hills(map_path, 129)
        tests = {"pick": test_pick, "screenshot": test_screenshot, "enter": test_enter,
                 "move1": lambda t, m: test_move(t, m, 1), "move60": lambda t, m: test_move(t, m, 60)}
        if case not in tests:
            fail(f"unknown case; one of {sorted(tests)}")
        tests[case](tmp, map_path)


main()
