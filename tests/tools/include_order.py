#!/usr/bin/env python3
"""The core's folders and their ranks, checked on every #include.

Usage: include_order.py SRC_DIR              check the tree; exit 1 naming every violation
       include_order.py SRC_DIR --self-test  plant one violation of each kind in a copy of the
                                             tree and check that each is caught

Rules (docs/design/README.md):
- src/core holds no source file at its root but config.h;
- a file in src/core/F includes, of the core, only its own folder, lower-ranked folders, base/ and
  config.h; objects/baselines ranks just above objects and nothing else in src/ includes it (it is
  a library of its own, linked by tests, benchmarks and fuzzers);
- layers point one way: core includes neither render/ nor app/, render/ does not include app/;
- every "core/..." include names a file that exists;
- the public headers (src/public_headers.txt, installed for programs that use the library) exist
  and include only public headers.
"""
import os
import re
import shutil
import sys
import tempfile

# Lowest first: a folder may include the folders before it.
RANKS = ["base", "terrain", "light", "io", "view", "cull", "lod", "objects", "objects/baselines",
         "streaming", "frame"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(core_relative):
    """The ranked folder of a path relative to src/core ("objects/baselines/x.h" -> that
    folder), or None for a file at the root."""
    parts = core_relative.split("/")
    if len(parts) >= 3 and "/".join(parts[:2]) in RANKS:
        return "/".join(parts[:2])
    return parts[0] if len(parts) >= 2 else None


def check(src):
    problems = []
    core = os.path.join(src, "core")
    for name in sorted(os.listdir(core)):
        path = os.path.join(core, name)
        if os.path.isfile(path) and name != "config.h":
            problems.append(f"src/core/{name}: a file at the core's root (only config.h lives there)")
        elif os.path.isdir(path) and name not in RANKS:
            problems.append(f"src/core/{name}/: a folder with no rank (add it to RANKS)")
    for root, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith((".h", ".cpp")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src)
            layer = rel.split("/")[0]
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for included in INCLUDE.findall(text):
                where = f"src/{rel}: #include \"{included}\""
                top = included.split("/")[0]
                if top in ("core", "render", "app") and not os.path.exists(
                        os.path.join(src, included)):
                    problems.append(f"{where}: no such file")
                    continue
                if layer == "core" and top in ("render", "app"):
                    problems.append(f"{where}: the core includes no GL or app code")
                if layer == "render" and top == "app":
                    problems.append(f"{where}: the renderer includes no app code")
                if top != "core" or included == "core/config.h":
                    continue
                target = folder_of(included[len("core/"):])
                if target == "objects/baselines" and not rel.startswith("core/objects/baselines/"):
                    problems.append(f"{where}: the object baselines are for tests and benchmarks")
                    continue
                if layer != "core":
                    continue
                own = folder_of(rel[len("core/"):])
                if own is None or target is None or own not in RANKS or target not in RANKS:
                    continue
                if RANKS.index(target) > RANKS.index(own):
                    problems.append(f"{where}: {own}/ (rank {RANKS.index(own)}) includes "
                                    f"{target}/ (rank {RANKS.index(target)})")
    problems += check_public(src)
    return problems


def public_headers(src):
    listed = os.path.join(src, "public_headers.txt")
    if not os.path.exists(listed):
        return None
    with open(listed, encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def check_public(src):
    """Every public header exists and includes only public headers."""
    public = public_headers(src)
    if public is None:
        return []
    problems = []
    listed = set(public)
    for header in public:
        path = os.path.join(src, header)
        if not os.path.exists(path):
            problems.append(f"src/public_headers.txt: {header}: no such file")
            continue
        with open(path, encoding="utf-8") as f:
            for included in INCLUDE.findall(f.read()):
                if included.split("/")[0] in ("core", "render", "app") and included not in listed:
                    problems.append(f"src/{header}: #include \"{included}\": a public header "
                                    f"includes an internal one (list it in src/public_headers.txt "
                                    f"or include it from a .cpp)")
    return problems


def self_test(src):
    """Plants each kind of violation in its own copy of the tree; each must be reported."""
    plants = [
        ("core/terrain/heightmap.h", '#include "core/frame/frame.h"\n', "includes frame/"),
        ("core/base/result.h", '#include "core/terrain/heightmap.h"\n', "includes terrain/"),
        ("core/frame/frame.h", '#include "core/objects/baselines/brute_force.h"\n',
         "object baselines"),
        ("core/cull/cull.h", '#include "render/gl.h"\n', "no GL or app code"),
        ("render/shader.h", '#include "app/options.h"\n', "no app code"),
        ("core/view/camera.h", '#include "core/view/no_such_file.h"\n', "no such file"),
        ("core/stray.h", "// a file at the root\n", "core's root"),
        ("core/frame/frame.h", '#include "core/cull/horizon.h"\n', "includes an internal one"),
    ]
    failed = 0
    for relative, line, expected in plants:
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "src")
            shutil.copytree(src, copy)
            target = os.path.join(copy, relative)
            existing = open(target).read() if os.path.exists(target) else ""
            with open(target, "w") as f:
                f.write(line + existing)
            found = [p for p in check(copy) if expected in p]
            if not found:
                print(f"include_order self-test: planting {line.strip()} in {relative} was not "
                      f"caught (expected '{expected}')")
                failed += 1
    if check(src):
        print("include_order self-test: the tree itself has violations")
        failed += 1
    print(f"include_order self-test: {len(plants) - failed} of {len(plants)} plants caught")
    return 1 if failed else 0


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    src = sys.argv[1]
    if "--self-test" in sys.argv[2:]:
        return self_test(src)
    problems = check(src)
    for p in problems:
        print(p)
    print(f"include_order: {len(problems)} violation(s)" if problems else
          "include_order: every #include keeps the core's ranks and the layers' order")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
