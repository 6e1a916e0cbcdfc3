#!/usr/bin/env python3
"""Measures quadterrain's figures and writes them into docs/figures.md, one section a topic.

Usage: python3 bench/figures.py [--write FILE] [--topics T,T,...] [--build DIR] [--maps DIR]
                                [--stream-map MAP.r16] [--callgrind] [--quick]

Topics, each the section of docs/figures.md with that anchor:
  walk        the frustum walk against brute force (core_bench; --callgrind adds instructions)
  occlusion   the occlusion stage after the walk (core_bench)
  tree-build  the tree the first frame needs, and the exact level-of-detail errors (core_bench)
  loading     the default map against stb_image, a GeoTIFF against GDAL's read (core_bench)
  objects     the object trees' steps and queries, objects in the frame, picking (core_bench)
  lod         bench/lod.py on gen_4097.png, the selection's own time (core_bench), and
              bench/frame_budget.py: frames against the bound, the flight held to a budget
  lod-reference  the live selection's triangles against the brute-force reference selection's
              (core_bench BM_LodReference: synthetic and gen_4097 maps, N47E009, ETOPO5)
  frames      bench/frames.py: culled against unculled frames, scaling with the map's size
  memory      bench/memory.py: peak memory a sample, and a million objects' bytes an object
  light       cast shadows and horizon angles of a 4097² map for a new Sun direction (core_bench),
              and bench/light.py (loaded, and streamed as a .r16): frames lit by a Sun against the
              fixed light, and frames while a new Sun direction's shadows are computed against
              still ones (gen_4097)
  light-memory  bench/light_memory.py: a streamed map's peak resident memory while its light is
              computed, with a Sun and without (gen_8193 as a .r16)
  holes       bench/holes.py: frames with nodata as holes against its fill (gen_2049 as a .r16)
  imagery     bench/imagery.py: frames with imagery at 4x the map's density against none (gen_4097);
              bench/stream.py with a 65536² imagery COG over the streamed 32769² .r16
  streaming   bench/stream.py on a streamed 32769² .r16 (gen_4097.png cubic-upsampled)
  bake        bench/bake.py: quadterrain-bake's samples a second on gen_8193 as a .r16 and as a
              Float32 GeoTIFF, one thread and two, and by two jobs joined; a 65537² virtual
              giant (bench/giant.py) by two jobs joined and verified (about 8 minutes)
  layout-open bench/layout_open.py: gen_8193 as a .r16 baked, its first frame opened streamed
              by tiles against level 0 read at open, from its folder and from nginx
  layout-latency  bench/layout_latency.py: gen_8193 as a .r16 baked, the bench flight by tiles
              from nginx, straight and with each request held 100 ms (bench/latency_relay.py)
  giant       bench/layout_latency.py --baked: the 65537² virtual giant (bench/giant.py) baked by
              two jobs and joined (once, kept in --maps: about 7 minutes), flown by tiles from
              nginx: first frame, frames, peak resident memory, the code cache's disk, requests
  gpu         measured on a device machine, never here: its section is kept as recorded
Default: walk,occlusion,tree-build,loading (core_bench alone, a few minutes). frames, lod,
memory, light-memory, holes, imagery, layout-open, layout-latency, giant and streaming run the viewer (under xvfb-run -a when
DISPLAY is unset) on maps made into --maps (`terrain_gen gen_N.png --size N --seed 2`; the .r16
maps and the imagery with gdal-bin's tools).

--write FILE rewrites only the selected topics' sections of FILE, each as: its heading, the
command, date and commit (`git rev-parse --short HEAD` of the build's source tree, "-dirty" when
its tracked files have changes), what ran, then the tables; a section's text from a line
"<!-- figures.py keeps what follows ... -->" on (figures measured apart, each with its command),
every other section and the text before the first section stay as they are. Without --write the
sections are printed.
--quick: one repetition, few frames, small maps: a check that the script runs, not figures.
Every ratio is taken inside one run, on the same cameras, so machine noise cancels.
"""
import argparse
import datetime
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# (anchor, heading): the heading's GitHub anchor is the topic's name. Canonical order.
TOPICS = [("walk", "Walk"), ("occlusion", "Occlusion"), ("tree-build", "Tree build"),
          ("loading", "Loading"), ("memory", "Memory"), ("lod", "LOD"),
          ("lod-reference", "LOD reference"),
          ("streaming", "Streaming"), ("bake", "Bake"), ("layout-open", "Layout open"),
          ("layout-latency", "Layout latency"), ("giant", "Giant"),
          ("objects", "Objects"),
          ("frames", "Frames"),
          ("light", "Light"), ("light-memory", "Light memory"), ("holes", "Holes"), ("imagery", "Imagery"), ("gpu", "GPU")]
HEADINGS = dict(TOPICS)
DEFAULT_TOPICS = "walk,occlusion,tree-build,loading"

# core_bench filters by topic (Google Benchmark regular expressions).
FILTERS = {
    "walk": r"^BM_(Walk|WalkNoMaskingNoWhole|BruteForce|WalkVsBruteForce)/",
    "occlusion": r"^BM_Occlusion/",
    "light": r"^BM_(Sunlight|HorizonAngles)/4097",
    "tree-build": r"^BM_(BuildTree|CoarseErrors)/",
    "loading": r"^BM_(LoadHeightmap|StbDecodeOnly|GeoTiffLoadAndTreeVsGdalRead)",
    "lod": r"^BM_LodSelect/4097/16/[124]/1/[12]$",
    "lod-reference": r"^BM_LodReference/",
    "objects": (r"^BM_Step(Tree|Loose|Rebuilt|Grid|Box2D)/1100000$|^BM_StepBruteSubset|"
                r"^BM_PairsAgree|^BM_Rect(Tree|Loose|Brute)/|^BM_Frustum(Tree|Loose)/|"
                r"^BM_Share(Incremental|Rebuilt)/(1|30|100)$|^BM_ObjectFrame|^BM_ObjectPick|"
                r"^BM_ObjectScatter"),
}

parser = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("build_dir", nargs="?", help="the build folder (same as --build)")
parser.add_argument("--build", default=None, help="the build folder (default: build)")
parser.add_argument("--write", metavar="FILE", help="rewrite these topics' sections of FILE")
parser.add_argument("--topics", default=DEFAULT_TOPICS, help="comma-separated topics")
parser.add_argument("--maps", default=os.path.join(tempfile.gettempdir(), "quadterrain-maps"),
                    help="where gen_N.png and the streamed .r16 are made and kept")
parser.add_argument("--stream-map", help="the streaming topic's map (default: made in --maps)")
parser.add_argument("--callgrind", action="store_true", help="walk: instructions (valgrind)")
parser.add_argument("--quick", action="store_true", help="check the script runs; no figures")
args = parser.parse_args()
build = args.build or args.build_dir or "build"
topics = [t for t in args.topics.split(",") if t]
for t in topics:
    if t not in HEADINGS:
        sys.exit(f"figures.py: unknown topic '{t}' (topics: {', '.join(HEADINGS)})")
    if t == "gpu":
        sys.exit("figures.py: gpu is measured on a device machine; its section stays as recorded")
bench = os.path.join(build, "core_bench")


def run(command, **kwargs):
    """Runs command; its stdout, or exit naming the command and its stderr's end."""
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"figures.py: {shlex.join(command)}: exit {result.returncode}\n"
                 f"{result.stderr[-3000:]}")
    return result.stdout


def source_commit():
    """The build's source tree (CMakeCache.txt's CMAKE_HOME_DIRECTORY, else this repository): its
    short HEAD, with -dirty when its tracked files have changes."""
    source = REPO
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith("CMAKE_HOME_DIRECTORY:"):
                    source = line.split("=", 1)[1].strip()
    except OSError:
        pass
    head = run(["git", "-C", source, "rev-parse", "--short", "HEAD"]).strip()
    dirty = run(["git", "-C", source, "status", "--porcelain", "--untracked-files=no"]).strip()
    return head + ("-dirty" if dirty else "")


def machine():
    model = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{model}, {os.cpu_count()} cores"


# ---- core_bench ----

def core_bench(filter_, repetitions):
    """Runs core_bench on `filter_`; its runs by name, the median of the repetitions (the run
    itself when there is one), every time in milliseconds."""
    command = [bench, f"--benchmark_filter={filter_}", "--benchmark_format=json",
               f"--benchmark_repetitions={repetitions}",
               "--benchmark_enable_random_interleaving=true",
               "--benchmark_report_aggregates_only=true",
               f"--benchmark_min_time={0.01 if args.quick else 0.2}"]
    out = run(command)
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
    rows = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("aggregate_name", "median") != "median":
            continue
        for key in ("real_time", "cpu_time"):
            b[key] = b[key] * scale[b.get("time_unit", "ns")]
        rows[b["run_name"]] = b
    shown = ["core_bench", f"--benchmark_filter='{filter_}'"] + [
        c for c in command[2:] if c != "--benchmark_format=json"]
    return rows, " ".join(shown)


def per_frame_ms(row):
    """Milliseconds an item (a culled frame, a selection) from items_per_second."""
    return 1000.0 / row["items_per_second"]


def instructions_per_frame(benchmark, function):
    """Instructions inside `function` per culled frame, counted by callgrind (stable figures)."""
    with tempfile.TemporaryDirectory() as folder:
        out_file = os.path.join(folder, "callgrind.out")
        out = run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}",
                   f"--toggle-collect={function}", bench, f"--benchmark_filter=^{benchmark}$",
                   "--benchmark_min_time=0.01", "--benchmark_format=json"])
        iterations = json.loads(out)["benchmarks"][0]["iterations"]
        with open(out_file) as f:
            total = next(int(line.split()[1]) for line in f if line.startswith("summary:"))
    return total / (iterations * 64)


def walk_section(rows):
    lines = ["| map, path | walk ms | brute force ms | speed-up | per camera in turn: walk / brute "
             "force ms | nodes tested: walk / no masking, no whole subtrees | instructions: walk / "
             "brute force | leaves drawn |", "|---|---|---|---|---|---|---|---|"]
    for side, frames in ((1025, 64), (4097, 64), (4097, 1024)):
        arg = f"{side}/{frames}"
        w, b = rows[f"BM_Walk/{arg}"], rows[f"BM_BruteForce/{arg}"]
        n = rows.get(f"BM_WalkNoMaskingNoWhole/{arg}")
        p = rows[f"BM_WalkVsBruteForce/{arg}/iterations:2"]
        path = f"{frames} cameras" if frames == 64 else f"{frames}-frame flight"
        nodes = f"{w['nodes_tested']:.0f} / " + (f"{n['nodes_tested']:.0f}" if n else "-")
        instructions = "-"
        if args.callgrind and frames == 64:
            walk = instructions_per_frame(f"BM_Walk/{arg}", "qt::cullQuadtree*")
            brute = instructions_per_frame(f"BM_BruteForce/{arg}", "qt::cullBruteForce*")
            instructions = f"{walk:,.0f} / {brute:,.0f} ({brute / walk:.0f}x)"
        lines.append(
            f"| {side}x{side}, {path} | {per_frame_ms(w):.3f} | {per_frame_ms(b):.3f} | "
            f"{per_frame_ms(b) / per_frame_ms(w):.0f}x | {p['walk_ms']:.3f} / {p['brute_ms']:.3f} "
            f"({p['speedup']:.0f}x) | {nodes} | {instructions} | {w['leaves_drawn']:.0f} of "
            f"{w['leaves_drawn'] + w['leaves_culled']:.0f} |")
    return lines


def occlusion_section(rows):
    lines = ["| map, 64 cameras (720-pixel viewport) | ms a frame | the walk's leaves in | "
             "occluded |", "|---|---|---|---|"]
    for side in (1025, 4097):
        o = rows[f"BM_Occlusion/{side}/64"]
        lines.append(f"| {side}x{side} | {per_frame_ms(o):.2f} | {o['candidates']:.0f} | "
                     f"{o['occluded']:.0f} ({100.0 * o['occluded_share']:.1f}%) |")
    return lines


def light_section(rows):
    def row(name):
        return next(v for k, v in rows.items() if k == name or k.startswith(name + "/"))

    lines = ["| for a new Sun direction | wall ms (median) | the calling thread's CPU ms |",
             "|---|---|---|"]
    for name, label in (("BM_Sunlight/4097/1", "cast shadows, hard"),
                        ("BM_Sunlight/4097/8", "cast shadows with the disc's soft edge (8 bands)"),
                        ("BM_HorizonAngles/4097", "horizon angles towards one azimuth (the sky "
                                                  "fraction takes one such pass an azimuth)")):
        r = row(name)
        lines.append(f"| {label} | {r['real_time']:.0f} | {r['cpu_time']:.0f} |")
    side = 1025 if args.quick else 4097
    frames, runs = ("2", "1") if args.quick else ("16", "3")
    shown, out = script("light.py", "--frames", frames, "--runs", runs, gen_map(side))
    streamed, streamed_out = script("light.py", "--frames", frames, "--runs", runs, "--stream",
                                    r16_map(side))
    return lines + ["", f"A frame lit by a Sun against the fixed light, interleaved (`{shown}`):",
                    "", *out.splitlines(), "",
                    "The same map streamed, its light in scratch files and paged beside its "
                    f"heights (`{streamed}`):", "", *streamed_out.splitlines()]


def light_memory_section():
    side = 1025 if args.quick else 8193
    shown, out = script("light_memory.py", "--runs", "1" if args.quick else "3", r16_map(side))
    return [f"`{shown}`:", "", *out.splitlines()]


def tree_build_section(rows):
    lines = ["| map | tree the first frame needs, ms | exact level-of-detail errors behind it, ms "
             "| nodes |", "|---|---|---|---|"]
    for side in (1025, 4097):
        t, e = rows[f"BM_BuildTree/{side}"], rows[f"BM_CoarseErrors/{side}"]
        lines.append(f"| {side}x{side} | {t['real_time']:.1f} | {e['real_time']:.1f} | "
                     f"{t['nodes']:,.0f} |")
    return lines


def loading_section(rows):
    load, decode = rows["BM_LoadHeightmap"]["real_time"], rows["BM_StbDecodeOnly"]["real_time"]
    lines = ["| load | ms | against |", "|---|---|---|",
             f"| `data/default_1025.png`, quadterrain's load | {load:.1f} | "
             f"{load / decode:.2f}x stb_image's decode |",
             f"| `data/default_1025.png`, stb_image's decode alone | {decode:.1f} | - |"]
    g = rows.get("BM_GeoTiffLoadAndTreeVsGdalRead/iterations:9")
    if g:
        gdal = g["gdal_read_ms"]
        lines += [
            f"| 3601² float32 GeoTIFF, GDAL's read into a fresh buffer | {gdal:.1f} | - |",
            f"| the same, quadterrain's load (16-bit codes) | {g['load_ms']:.1f} | "
            f"{g['load_ms'] / gdal:.2f}x GDAL's read |",
            f"| the same with the tree the first frame needs (`loadGdalHeightmapWithTree`) | "
            f"{g['load_and_tree_ms']:.1f} | {g['ratio']:.2f}x GDAL's read |",
            f"| the exact level-of-detail errors, behind the first frame | "
            f"{g['errors_ms']:.1f} | - |"]
    return lines


def lod_select_lines(rows):
    lines = ["| PIXELS | selection ms: 1 thread / 2 threads | triangles | nodes drawn |",
             "|---|---|---|---|"]
    for pixels in (1, 2, 4):
        one = rows.get(f"BM_LodSelect/4097/16/{pixels}/1/1")
        two = rows.get(f"BM_LodSelect/4097/16/{pixels}/1/2")
        if not one or not two:
            continue
        lines.append(f"| {pixels} px | {per_frame_ms(one):.2f} / {per_frame_ms(two):.2f} | "
                     f"{one['triangles']:,.0f} | {one['nodes']:,.0f} |")
    return lines


def objects_section(rows):
    def ms(name):
        return rows[name]["cpu_time"]

    loose = ms("BM_StepLoose/1100000")
    step = ["| step, 1.1M objects (1M static, 100k balls) | CPU ms | against the loose tree |",
            "|---|---|---|"]
    for name, label in (("BM_StepLoose/1100000", "loose tree (the one the viewer uses)"),
                        ("BM_StepTree/1100000", "every-leaf tree"),
                        ("BM_StepGrid/1100000", "uniform grid (4-unit cells)"),
                        ("BM_StepRebuilt/1100000", "every-leaf tree rebuilt every step"),
                        ("BM_StepBox2D/1100000", "Box2D `b2BroadPhase`")):
        if name in rows:
            step.append(f"| {label} | {ms(name):.0f} | {ms(name) / loose:.1f}x |")
    brute = rows.get("BM_StepBruteSubset/1100000/1000/iterations:3/manual_time")
    if brute:
        step.append(f"| brute force (1,000 balls timed, scaled to 100,000) | "
                    f"{brute['real_time']:,.0f} | {brute['real_time'] / loose:,.0f}x |")
    agree = rows.get("BM_PairsAgree/20000/iterations:20")
    if agree:
        step.append(f"| pairs against brute force, 20 steps of 20,000 objects | "
                    f"{agree['mismatches']:.0f} mismatches | - |")

    query = ["| query, 1M objects | loose tree µs | every-leaf tree µs | brute force µs | hits |",
             "|---|---|---|---|---|"]
    for arg, label in (("100", "rectangle, 1% of the map"), ("10", "rectangle, 0.01% of the map")):
        lo, tr, br = (rows.get(f"BM_Rect{k}/{arg}") for k in ("Loose", "Tree", "Brute"))
        if lo and tr and br:
            query.append(f"| {label} | {lo['cpu_time'] * 1e3:.1f} | {tr['cpu_time'] * 1e3:.1f} | "
                         f"{br['cpu_time'] * 1e3:.0f} ({br['cpu_time'] / lo['cpu_time']:.0f}x) | "
                         f"{lo['found']:,.0f} |")
    for arg in ("500", "2000"):
        lo, tr = rows.get(f"BM_FrustumLoose/{arg}"), rows.get(f"BM_FrustumTree/{arg}")
        if lo and tr:
            query.append(f"| frustum {arg} units far | {lo['cpu_time'] * 1e3:.0f} | "
                         f"{tr['cpu_time'] * 1e3:.0f} | - | {lo['found']:,.0f} |")

    memory = ["| index, 1.1M objects | bytes an object in use | reserved |", "|---|---|---|"]
    for name, label in (("BM_StepLoose/1100000", "loose tree"),
                        ("BM_StepTree/1100000", "every-leaf tree")):
        r = rows[name]
        memory.append(f"| {label} | {r['used_bytes_per_object']:.1f} | "
                      f"{r['index_bytes_per_object']:.1f} |")

    share = ["| share of 1.1M objects moving | every-leaf tree, CPU ms a step | rebuilt every step "
             "| rebuilt / incremental |", "|---|---|---|---|"]
    for pct in (1, 30, 100):
        inc, reb = rows.get(f"BM_ShareIncremental/{pct}"), rows.get(f"BM_ShareRebuilt/{pct}")
        if inc and reb:
            share.append(f"| {pct}% | {inc['cpu_time']:.0f} | {reb['cpu_time']:.0f} | "
                         f"{reb['cpu_time'] / inc['cpu_time']:.2f}x |")

    lines = step + [""] + query + [""] + memory + [""] + share
    f = rows.get("BM_ObjectFrame/4097/iterations:3")
    if f:
        lines += ["", "Objects in the frame (`BM_ObjectFrame`: 1,000,000 trees and rocks and "
                  "100,000 balls on the synthetic 4097 map, loose tree, the 64 flight cameras, "
                  "level of detail at 2 px, one thread; per frame, CPU time):", "",
                  "| frame | value |", "|---|---|",
                  f"| frame without objects / with them, ms | {f['pipeline_cpu_ms']:.2f} / "
                  f"{f['with_objects_cpu_ms']:.2f} |",
                  f"| what the objects add, ms (`objects_cpu_ms`) | {f['objects_cpu_ms']:.2f} "
                  f"({100.0 * f['objects_share']:.1f}% of the frame) |",
                  f"| frustum query, drawn list and groups, ms wall (`object_stage_ms`) | "
                  f"{f['object_stage_ms']:.2f} |",
                  f"| the renderer's balls and static runs, ms (`instances_cpu_ms`; the "
                  f"static objects by id instead, `instances_ids_cpu_ms`) | "
                  f"{f['instances_cpu_ms']:.2f} ({f['instances_ids_cpu_ms']:.2f} by id) |",
                  f"| node and box tests / objects (`brute_over_tests`: fewer than a test of "
                  f"every box) | {f['tests']:,.0f} ({f['brute_over_tests']:.0f}x fewer) |",
                  f"| in the frustum / horizon tests (one a group) | {f['in_frustum']:,.0f} / "
                  f"{f['horizon_tests']:,.0f} |",
                  f"| drawn / occluded | {f['drawn']:,.0f} / {f['occluded']:,.0f} |",
                  f"| triangles the drawn objects' meshes and impostors draw "
                  f"(`object_triangles`) | {f['object_triangles']:,.0f} |",
                  f"| the same objects as meshes alone, coarse far "
                  f"(`object_triangles_meshes`) | {f['object_triangles_meshes']:,.0f} "
                  f"({f['object_triangles'] / max(f['object_triangles_meshes'], 1):.3f}x) |",
                  f"| bytes sent the GPU: the balls and the static objects' runs "
                  f"(`object_upload_bytes`, `static_runs` runs; by id, "
                  f"`object_upload_bytes_ids`) | {f['object_upload_bytes']:,.0f} "
                  f"({f['static_runs']:,.0f} runs; {f['object_upload_bytes_ids']:,.0f} by id) |",
                  f"| drawn groups / their nodes searched for their runs (not known from "
                  f"earlier frames) | {f['groups']:,.0f} / {f['static_nodes_searched']:,.0f} |",
                  f"| one step (100,000 balls), CPU ms (µs a ball) | {f['step_cpu_ms']:.1f} "
                  f"({f['step_cpu_us_per_ball']:.2f}) |"]
    sc = rows.get("BM_ObjectScatter/4097/iterations:2")
    if sc:
        lines += ["", "A new scene (`BM_ObjectScatter`: the same 1,100,000 objects scattered anew, "
                  "as the HUD's scatter, a new map and a new exaggeration make them, on a thread "
                  "of their own while the frames go on: core/objects/scatter_job.h; the thread's "
                  "CPU time):", "",
                  "| made | CPU ms |", "|---|---|",
                  f"| the scatter | {sc['scatter_ms']:,.0f} |",
                  f"| the static objects' order (StaticOrder) | {sc['static_order_ms']:,.0f} |"]
    p = rows.get("BM_ObjectPick/iterations:1")
    if p:
        lines += ["", "Picking (`BM_ObjectPick`: a 5 x 5 grid of pixels at each of the 64 "
                  "cameras, the same scene):", "",
                  "| pick | µs |", "|---|---|",
                  f"| the object in front of the terrain | {p['object_us']:.2f} |",
                  f"| the terrain under the pixel | {p['terrain_us']:.2f} |",
                  f"| brute force, every object's shape (first two cameras; "
                  f"{p['mismatches']:.0f} mismatches) | {p['brute_us']:,.0f} |"]
    return lines


# ---- the viewer's scripts (frames.py, lod.py, memory.py, stream.py) ----

def display_prefix():
    return [] if os.environ.get("DISPLAY") else ["xvfb-run", "-a"]


def gen_map(side):
    """gen_N.png, made once into --maps by terrain_gen (seed 2), as the figures use it."""
    if side == 1025 and args.quick:
        return os.path.join(REPO, "data", "default_1025.png")
    os.makedirs(args.maps, exist_ok=True)
    path = os.path.join(args.maps, f"gen_{side}.png")
    if not os.path.exists(path):
        print(f"figures.py: making {path}", file=sys.stderr)
        run([os.path.join(build, "terrain_gen"), path + ".part.png", "--size", str(side),
             "--seed", "2"])
        os.replace(path + ".part.png", path)
    return path


def stream_map():
    """The streaming topic's .r16: --stream-map, or gen_4097.png cubic-upsampled to 32769²."""
    if args.stream_map:
        return args.stream_map
    if args.quick:
        sys.exit("figures.py: --quick streaming needs --stream-map (a small .r16)")
    path = os.path.join(args.maps, "gen_32769.r16")
    if not os.path.exists(path):
        source = gen_map(4097)
        print(f"figures.py: making {path}", file=sys.stderr)
        try:
            run(["gdal_translate", "-q", "-of", "ENVI", "-ot", "UInt16", "-outsize", "32769",
                 "32769", "-r", "cubic", source, path + ".part"])
        except FileNotFoundError:
            sys.exit("figures.py: streaming needs gdal_translate (Debian's gdal-bin) to make "
                     f"{path}, or --stream-map MAP.r16")
        os.replace(path + ".part", path)
    return path


def r16_map(side):
    """gen_N.png as a .r16 (16-bit little-endian, what bench/holes.py reads), made once."""
    path = os.path.join(args.maps, f"gen_{side}.r16")
    if not os.path.exists(path):
        source = gen_map(side)
        try:
            run(["gdal_translate", "-q", "-of", "ENVI", "-ot", "UInt16", source, path + ".part"])
        except FileNotFoundError:
            sys.exit(f"figures.py: needs gdal_translate (Debian's gdal-bin) to make {path}")
        os.replace(path + ".part", path)
    return path


def holes_section():
    side = 1025 if args.quick else 2049
    runs = "1" if args.quick else "5"
    shown, out = script("holes.py", "--frames", "2" if args.quick else "16", "--runs", runs,
                        r16_map(side))
    return [f"The same map with nodata as holes and as its fill, interleaved (`{shown}`):", "",
            *out.splitlines()]


def big_imagery():
    """A 65536² RGB COG (JPEG tiles and overviews), made once into --maps: gen_4097.png's relief
    coloured by gdaldem color-relief, then bilinear-upsampled by GDAL's COG driver."""
    path = os.path.join(args.maps, "imagery_65536.tif")
    if not os.path.exists(path):
        source = gen_map(4097)
        colour = os.path.join(args.maps, "imagery_4097.tif")
        table = os.path.join(args.maps, "imagery_ramp.txt")
        with open(table, "w") as f:
            for t, (r, g, b) in [(0, (38, 70, 40)), (20000, (90, 120, 60)), (40000, (150, 130, 100)),
                                 (55000, (120, 115, 110)), (65535, (245, 245, 250))]:
                f.write(f"{t} {r} {g} {b}\n")
        print(f"figures.py: making {path}", file=sys.stderr)
        run(["gdaldem", "color-relief", "-q", source, table, colour])
        run(["gdal_translate", "-q", "-of", "COG", "-outsize", "65536", "65536", "-r", "bilinear",
             "-co", "COMPRESS=JPEG", "-co", "QUALITY=85", "-co", "NUM_THREADS=ALL_CPUS", colour,
             path + ".part"])
        os.replace(path + ".part", path)
    return path


def shared_heightmap(name):
    """A map of the shared heightmaps, where the build's CMake found them (QT_SHARED_HEIGHTMAPS)."""
    folder = os.path.join(REPO, "..", "shared", "heightmaps")
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith("QT_SHARED_HEIGHTMAPS:"):
                folder = line.split("=", 1)[1].strip()
    return os.path.join(folder, name)


def alps_ortho():
    """docs/screenshots.md's orthophoto-like image of N47E009, made once into --maps: colour by
    altitude (gdaldem color-relief) times a hillshade (gdaldem hillshade), band by band."""
    path = os.path.join(args.maps, "alps_ortho.tif")
    if not os.path.exists(path):
        dem = shared_heightmap("N47E009.hgt")
        table = os.path.join(args.maps, "alps_ramp.txt")
        with open(table, "w") as f:
            for m, (r, g, b) in [(300, (70, 110, 50)), (900, (110, 135, 70)),
                                 (1500, (150, 130, 100)), (2100, (130, 122, 115)),
                                 (2800, (245, 245, 250))]:
                f.write(f"{m} {r} {g} {b}\n")
        colour, shade = (os.path.join(args.maps, n) for n in ("alps_cr.tif", "alps_hs.tif"))
        run(["gdaldem", "color-relief", "-q", dem, table, colour])
        run(["gdaldem", "hillshade", "-q", "-s", "111120", "-z", "1.5", dem, shade])
        bands = []
        for band in (1, 2, 3):
            out = os.path.join(args.maps, f"alps_b{band}.tif")
            run(["gdal_calc.py", "--quiet", "-A", colour, f"--A_band={band}", "-B", shade,
                 "--calc=A*(0.3+0.8*B/255.0)", "--type=Byte", "--overwrite", f"--outfile={out}"])
            bands.append(out)
        run(["gdal_merge.py", "-q", "-separate", "-o", path + ".part.tif", *bands])
        os.replace(path + ".part.tif", path)
    return path


def compression_lines():
    """What BC1/BC3 give the imagery's pages: core_bench BM_ImageryPageCompression on the
    orthophoto-like N47E009 image and on the 65536² COG's colour source over gen_4097."""
    names = {0: "stb_dxt BC1", 1: "stb_dxt BC3", 2: "libsquish BC1 (cluster fit)",
             3: "libsquish BC3 (cluster fit)"}
    lines = ["| imagery | encoder | bytes a texel (RGBA8: 4) | encode ms a 520² page, one thread "
             "| RMS error (sRGB bytes) | PSNR dB | largest error | alpha's largest | pages "
             "(with coverage edges) |", "|---|---|---|---|---|---|---|---|---|"]
    shown = ""
    for label, imagery, dem in (("alps_ortho.tif over N47E009.hgt", alps_ortho(),
                                 shared_heightmap("N47E009.hgt")),
                                ("imagery_4097.tif over gen_4097.png",
                                 os.path.join(args.maps, "imagery_4097.tif"), gen_map(4097))):
        if not os.path.exists(dem) or not os.path.exists(imagery):
            continue
        os.environ["QT_IMAGERY"], os.environ["QT_IMAGERY_MAP"] = imagery, dem
        rows, command = core_bench("BM_ImageryPageCompression", 1 if args.quick else 5)
        shown = "QT_IMAGERY=IMAGERY QT_IMAGERY_MAP=MAP " + command
        for encoder, name in names.items():
            row = rows.get(f"BM_ImageryPageCompression/encoder:{encoder}")
            if row is None or "psnr_db" not in row:
                continue
            alpha = "-" if row["alpha_largest"] < 0 else f"{row['alpha_largest']:.0f}"
            lines.append(f"| {label} | {name} | {row['bytes_per_texel']:g} | "
                         f"{row['cpu_time']:.1f} | {row['rms']:.2f} | {row['psnr_db']:.1f} | "
                         f"{row['largest']:.0f} | {alpha} | {row['pages']:.0f} "
                         f"({row['pages_with_alpha_edges']:.0f}) |")
    return [f"Block compression of the pages: BC3 by stb_dxt is what `--imagery-compression bc3` "
            f"stores; BC1 and libsquish's cluster fit for comparison (`{shown}`, each row's "
            "IMAGERY over its MAP; alps_ortho.tif is docs/screenshots.md's orthophoto-like image "
            "of N47E009, colour by altitude times a hillshade, made by figures.py):", "", *lines]


def imagery_section():
    side = 1025 if args.quick else 4097
    shown, out = script("imagery.py", "--frames", "2" if args.quick else "16", "--runs",
                        "1" if args.quick else "3", "--compression", "none,bc3", gen_map(side))
    lines = [f"The same map with imagery (its pages as they are and as BC3 blocks) and without, "
             f"interleaved (`{shown}`):", "", *out.splitlines()]
    if not args.quick:
        big_imagery()  # makes imagery_4097.tif, the compression's second source
    lines += ["", *compression_lines()]
    if not args.quick:
        for compression in ("none", "bc3"):
            shown, out = script("stream.py", "--frames", "60", "--memory-budget", "2000",
                                "--imagery", big_imagery(), "--imagery-compression", compression,
                                stream_map())
            stored = "as they are" if compression == "none" else "as BC3 blocks"
            lines += ["", "A 65536² imagery COG (JPEG, with overviews) over the streamed 32769² "
                      f"map, both streamed within a 2000 MiB budget, its pages {stored} "
                      f"(`{shown}`):", "", *code_block(out)]
    return lines


def script(name, *script_args, display=True):
    """Runs bench/NAME with --build (under a display unless told not); (the command as shown,
    its stdout)."""
    prefix = display_prefix() if display else []
    command = [sys.executable, os.path.join(HERE, name), "--build", build, *script_args]
    shown = " ".join(prefix + ["python3", f"bench/{name}", "--build", build] +
                     [os.path.basename(a) if os.path.isabs(a) else a for a in script_args])
    out = run(prefix + command).rstrip("\n").splitlines()
    if out and out[0].startswith("`python3 bench/"):  # its own command line: shown above instead
        out = out[2:] if len(out) > 1 and not out[1].strip() else out[1:]
    return shown, "\n".join(out)


def code_block(text):
    return ["```", *text.splitlines(), "```"]


def frames_section():
    frames = "2" if args.quick else "8"
    flights = "1" if args.quick else "5"
    shown, out = script("frames.py", "--frames", frames, "--runs", flights,
                        gen_map(1025 if args.quick else 4097))
    lines = [f"Culled against unculled, {flights} flights of {frames} frames (`{shown}`):", "",
             *out.splitlines(), ""]
    maps = [os.path.join(REPO, "data", "default_1025.png")] + (
        [] if args.quick else [gen_map(2049), gen_map(4097), gen_map(8193)])
    shown, out = script("frames.py", "--frames", "2" if args.quick else "16", *maps)
    return lines + [f"Scaling with the map's size (`{shown}`):", "", *out.splitlines()]


def lod_section(rows):
    side = 1025 if args.quick else 4097
    shown, out = script("lod.py", "--frames", "2" if args.quick else "4", "--lod",
                        "2" if args.quick else "1,2,4", gen_map(side))
    lines = [f"Frames by level of detail (`{shown}`):", "", *out.splitlines()]
    shown, out = script("frame_budget.py", "--frames", "4" if args.quick else "32", "--runs",
                        "1" if args.quick else "2", "--budgets", "33,100,200", gen_map(side))
    lines += ["", f"The frame budget (`{shown}`).", "", *out.splitlines()]
    if rows:
        lines += ["", "The selection's own time on the synthetic 4097 map, 16 cameras, each node's "
                  "error bound (`BM_LodSelect/4097/16/PIXELS/1/THREADS`, ms a selection):", "",
                  *lod_select_lines(rows)]
    return lines


def lod_reference_section(rows):
    names = {"4097": "synthetic 4097²", "0": os.path.basename(os.environ["QT_LOD_MAP"]),
             "1": "N47E009.hgt (SRTM1)",
             "2": "ETOPO5 (4320x2161)"}
    lines = ["| map | PIXELS | triangles: live / reference | live / reference | triangles a "
             "screen pixel: live / reference |", "|---|---|---|---|---|"]
    for key, name in names.items():
        for pixels in (1, 2, 4):
            row = rows.get(f"BM_LodReference/{key}/16/{pixels}/iterations:1")
            if row is None or "live" not in row:  # the map is absent here
                continue
            lines.append(f"| {name} | {pixels} px | {row['live']:,.0f} / {row['reference']:,.0f} | "
                         f"{row['live_ratio']:.2f}x | {row['live_per_px']:.2f} / "
                         f"{row['reference_per_px']:.2f} |")
    return lines


def memory_section():
    maps = [gen_map(1025)] if args.quick else [gen_map(4097), gen_map(8193)]
    shown, out = script("memory.py", *maps)
    lines = [f"Peak resident memory a sample, loaded (`{shown}`):", "", *code_block(out), ""]
    objects = "20000" if args.quick else "1100000"
    shown2, out = script("memory.py", "--objects", objects, maps[0])
    lines += [f"What objects add, bytes an object (`{shown2}`):", "", *code_block(out)]
    return lines


def float_tiff(side):
    """gen_N.png as a tiled, DEFLATE-compressed Float32 GeoTIFF in UTM 32N with 30 m samples (a
    band GDAL reads as floats: the bake's plan pass and quantiser), made once."""
    path = os.path.join(args.maps, f"gen_{side}_f32.tif")
    if not os.path.exists(path):
        source = gen_map(side)
        east = 500000 + 30 * (side - 1)
        south = 5200000 - 30 * (side - 1)
        run(["gdal_translate", "-q", "-ot", "Float32", "-co", "TILED=YES", "-co",
             "COMPRESS=DEFLATE", "-a_srs", "EPSG:32632", "-a_ullr", "500000", "5200000", str(east),
             str(south), source, path + ".part.tif"])
        os.replace(path + ".part.tif", path)
    return path


def giant_vrt(count):
    """bench/giant.py's mosaic of count x count offset copies of gen_4097_f32.tif, made once."""
    path = os.path.join(args.maps, f"giant_{count}.vrt")
    if not os.path.exists(path):
        run([sys.executable, os.path.join(HERE, "giant.py"), float_tiff(4097),
             str(count), path])
    return path


def giant_layout(count):
    """giant_vrt(count) baked as a bake by jobs would be (--plan, two jobs of one thread side by
    side, --join), made once into --maps."""
    path = os.path.join(args.maps, f"giant_{count}.layout")
    if not os.path.exists(os.path.join(path, "layout.json")):
        source = giant_vrt(count)
        bake = os.path.join(build, "quadterrain-bake")
        shutil.rmtree(path, ignore_errors=True)
        run([bake, source, path, "--plan"])
        jobs = [subprocess.Popen([bake, source, path, "--threads", "1", "--job", f"{j}/2"],
                                 stdout=subprocess.DEVNULL) for j in (1, 2)]
        if any(job.wait() != 0 for job in jobs):
            sys.exit(f"figures.py: a job of the bake of {source} failed")
        run([bake, "--join", path])
    return path


def giant_section():
    # Straight from nginx alone: the open reads levels 4 and up whole (levels 0-3 stream), and
    # the flight's thousands of requests are more than bench/latency_relay.py relays one by one.
    shown, out = script("layout_latency.py", "--runs", "1" if args.quick else "3",
                        "--frames", "10" if args.quick else "60",
                        "--delays", "0", "--baked", giant_layout(2 if args.quick else 16))
    return [f"`{shown}`:", "", *out.splitlines()]


def bake_section():
    side = 1025 if args.quick else 8193
    shown, out = script("bake.py", "--runs", "1" if args.quick else "3", "--jobs", "2",
                        r16_map(side),
                        float_tiff(side), display=False)
    lines = [f"`{shown}`:", "", *out.splitlines()]
    if not args.quick:
        # A 65537² virtual giant (4.3 G samples), baked by two jobs and joined.
        shown, out = script("bake.py", "--runs", "1", "--jobs", "2", "--jobs-only",
                            giant_vrt(16), display=False)
        lines += ["", f"`{shown}`:", "", *out.splitlines()]
    return lines


def layout_open_section():
    side = 1025 if args.quick else 8193
    shown, out = script("layout_open.py", "--runs", "1" if args.quick else "3", r16_map(side))
    return [f"`{shown}`:", "", *out.splitlines()]


def layout_latency_section():
    side = 1025 if args.quick else 8193
    shown, out = script("layout_latency.py", "--runs", "1" if args.quick else "3", "--frames",
                        "20" if args.quick else "120", r16_map(side))
    return [f"`{shown}`:", "", *out.splitlines()]


def streaming_section():
    path = stream_map()
    frames = "4" if args.quick else "60"
    lines = []
    for keep in (False, True, True):
        extra = ["--keep-sidecar"] if keep else []
        shown, out = script("stream.py", "--frames", frames, "--memory-budget", "2000", *extra,
                            path)
        lines += [f"`{shown}`" + (" (the sidecar kept)" if keep else " (from nothing)") + ":",
                  "", *code_block(out), ""]
    return lines[:-1]


INTRO = {
    "walk": "The frustum walk against a test of every leaf, on the same cameras: synthetic maps "
            "(`src/core/terrain/synthetic.cpp`), leaves of 4, the cameras of "
            "`src/core/view/flight_path.cpp`.",
    "occlusion": "The occlusion stage on the walk's leaves, on the same maps and cameras.",
    "tree-build": "The tree the first frame draws with (nodes, exact bounds, the range error "
                  "bound), and the exact level-of-detail errors the viewer computes behind it.",
    "loading": "Loading against the libraries' own reads.",
    "memory": "Peak resident memory (`/usr/bin/time -v`), the viewer on llvmpipe, whose GPU "
              "memory is host memory.",
    "lod": "Level of detail bounded on screen, llvmpipe at 1280x720.",
    "lod-reference": "How far the live selection is from the limit: its triangles against those of "
                     "the brute-force reference (core/lod/lod_reference.h: the coarsest nodes of "
                     "the same family whose measured on-screen deviation is within PIXELS), the "
                     "16 flight-path cameras at 1280x720, mean triangles a frame.",
    "streaming": "A 32769² `.r16` streamed within a 2000 MiB budget: first open, reopen, a "
                 "flight at 2 px, llvmpipe at 1280x720.",
    "bake": "quadterrain-bake: a map baked into its layout (COG levels, tile checksums, the tree) "
            "by regions, on one thread and on two, and verified; then as a bake by jobs: the "
            "plan, two jobs of one thread side by side (as two machines would run them), the "
            "join, its layout held to the one-process bake's.",
    "layout-open": "A baked layout's first frame, opened streamed: level 0 by tiles (nothing of it "
                   "read at open) against read whole into the code cache at open, from its "
                   "folder and from nginx on 127.0.0.1, llvmpipe at 1280x720.",
    "layout-latency": "A baked layout flown by tiles from nginx on 127.0.0.1, straight and with "
                      "every request held 100 ms on its way (a far object store): the bench "
                      "flight's frames, which never wait for a fetch, and how much of level 0 "
                      "its streamer fetched while it flew, llvmpipe at 1280x720.",
    "giant": "A layout of 65537² samples (4,295,098,369, bench/giant.py's mosaic of offset "
             "copies of gen_4097), baked by two jobs and joined, opened by URL and flown by tiles "
             "from nginx on 127.0.0.1 at --lod 4, llvmpipe at 1280x720.",
    "objects": "The object trees against a uniform grid, Box2D's broad phase and brute force; "
               "one thread.",
    "frames": "Whole frames on llvmpipe at 1280x720, medians over the bench path.",
    "holes": "Nodata drawn as holes against its fill, llvmpipe at 1280x720.",
    "imagery": "Imagery draped over the map against the map's own colours, llvmpipe at 1280x720.",
    "light": "The light of a new Sun direction over the 4097² synthetic map "
             "(`syntheticHeightmap(4097, 4097, 11)`, bench/light_bench.cpp), on every core; frames "
             "lit by a Sun against the fixed light, and frames while the shadows of a new Sun "
             "direction are computed behind them against still ones, llvmpipe at 1280x720.",
    "light-memory": "A streamed map's resident memory while its shadows and sky light are "
                    "computed (in scratch files, swept in bands of rows), against the fixed "
                    "light's, llvmpipe.",
}


def measure(topic, bench_rows, bench_commands, commit, today, command):
    """One topic's section: heading, command, date, commit, what ran, tables."""
    if topic == "walk":
        body = walk_section(bench_rows)
    elif topic == "occlusion":
        body = occlusion_section(bench_rows)
    elif topic == "tree-build":
        body = tree_build_section(bench_rows)
    elif topic == "loading":
        body = loading_section(bench_rows)
    elif topic == "objects":
        body = objects_section(bench_rows)
    elif topic == "lod":
        body = lod_section(bench_rows)
    elif topic == "lod-reference":
        body = lod_reference_section(bench_rows)
    elif topic == "frames":
        body = frames_section()
    elif topic == "memory":
        body = memory_section()
    elif topic == "holes":
        body = holes_section()
    elif topic == "imagery":
        body = imagery_section()
    elif topic == "light":
        body = light_section(bench_rows)
    elif topic == "light-memory":
        body = light_memory_section()
    elif topic == "bake":
        body = bake_section()
    elif topic == "layout-open":
        body = layout_open_section()
    elif topic == "layout-latency":
        body = layout_latency_section()
    elif topic == "giant":
        body = giant_section()
    else:
        body = streaming_section()
    ran = [bench_commands[topic]] if topic in bench_commands else []  # scripts: by their tables
    head = [f"## {HEADINGS[topic]}", "",
            f"`{command}`, {today}, commit {commit}{' (--quick: not figures)' if args.quick else ''}"
            f"; {machine()}. {INTRO[topic]}"]
    if ran:
        head.append("Ran: " + "; ".join(f"`{r}`" for r in ran) + ".")
    return "\n".join(head + [""] + body) + "\n"


# ---- docs/figures.md: sections by anchor ----

def anchor(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def split_sections(text):
    """(the text before the first `## ` heading, [(anchor, section text)])."""
    preamble, sections, fence = [], [], False
    for line in text.splitlines(keepends=True):
        if line.startswith("```"):
            fence = not fence
        if not fence and line.startswith("## "):
            sections.append([anchor(line[3:]), [line]])
        elif sections:
            sections[-1][1].append(line)
        else:
            preamble.append(line)
    return "".join(preamble), [(a, "".join(lines)) for a, lines in sections]


# A line in a section after which its text is kept when the section is written again: figures
# measured apart from this script (builds compared, one-off studies), each with its command.
KEEP = "<!-- figures.py keeps what follows: figures measured apart, each with its command -->"


def merge(old, new):
    """old's text with the sections of `new` (anchor -> text) replaced or put in their place, each
    keeping its text from a KEEP line on."""
    preamble, sections = split_sections(old)
    order = [a for a, _ in TOPICS]
    for key, text in new.items():
        at = [i for i, (a, _) in enumerate(sections) if a == key]
        if at:
            kept = sections[at[0]][1]
            if KEEP in kept:
                text = text.rstrip("\n") + "\n\n" + kept[kept.index(KEEP):]
            sections[at[0]] = (key, text)
            continue
        rank = order.index(key)
        position = 0
        for i, (a, _) in enumerate(sections):
            if a in order and order.index(a) < rank:
                position = i + 1
        sections.insert(position, (key, text))
    parts = [preamble.rstrip("\n") + "\n\n" if preamble.strip() else ""]
    parts += [text.rstrip("\n") + "\n\n" for _, text in sections]
    return "".join(parts).rstrip("\n") + "\n"


def main():
    command = "python3 bench/figures.py " + shlex.join(sys.argv[1:])
    commit = source_commit()
    today = datetime.date.today().isoformat()
    bench_rows, bench_commands = {}, {}
    core = [t for t in topics if t in FILTERS and t not in ("objects", "lod-reference")]
    if core:
        rows, shown = core_bench("|".join(FILTERS[t] for t in core), 1 if args.quick else 5)
        bench_rows.update(rows)
        for t in core:
            bench_commands[t] = shown
    if "objects" in topics:
        rows, shown = core_bench(FILTERS["objects"], 1 if args.quick else 3)
        bench_rows.update(rows)
        bench_commands["objects"] = shown
    if "lod-reference" in topics:  # one run: its counters are the same every time
        os.environ["QT_LOD_MAP"] = gen_map(1025 if args.quick else 4097)
        rows, shown = core_bench(FILTERS["lod-reference"], 1)
        bench_rows.update(rows)
        bench_commands["lod-reference"] = f"QT_LOD_MAP={os.path.basename(os.environ['QT_LOD_MAP'])} {shown}"
    sections = {}
    for topic in topics:
        sections[topic] = measure(topic, bench_rows, bench_commands, commit, today, command)
        print(f"figures.py: {topic} measured", file=sys.stderr)
    if not args.write:
        print("\n".join(sections[t] for t in topics))
        return
    old = ""
    if os.path.exists(args.write):
        with open(args.write) as f:
            old = f.read()
    if not old.strip():
        old = "# quadterrain: figures\n"
    with open(args.write + ".tmp", "w") as f:
        f.write(merge(old, sections))
    os.replace(args.write + ".tmp", args.write)
    print(f"figures.py: wrote {', '.join(topics)} into {args.write}", file=sys.stderr)


main()
