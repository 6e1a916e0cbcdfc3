#!/usr/bin/env bash
# The installed package as a program outside the tree sees it: `cmake --install` into a fresh
# prefix, then examples/ configured and built in a fresh directory against it alone, both
# programs run (the render one headless), and the installed Python module imported and tested.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR PYTHON PYTHON_INSTALL_DIR
set -euo pipefail
build=$1 source=$2 python=$3 pydir=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "install_test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/prefix" >/dev/null || fail "cmake --install failed"

# Exactly the public headers are installed, and no test-only library.
(cd "$work/prefix/include/quadterrain" && find . -name '*.h' | sed 's|^\./||' | sort) >"$work/installed"
grep -E '^[a-z]' "$source/src/public_headers.txt" | sort >"$work/public"
diff "$work/public" "$work/installed" || fail "installed headers differ from src/public_headers.txt"
[ ! -e "$work/prefix/lib/libquadterrain_object_baselines.a" ] || fail "the object baselines are installed"

cmake -S "$source/examples" -B "$work/examples" -DCMAKE_PREFIX_PATH="$work/prefix" \
    -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "examples: configure"; }
cmake --build "$work/examples" -j2 >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "examples: build"; }

map="$source/data/default_1025.png"
out=$("$work/examples/cull_view" "$map" 300,160,300 700,40,650) || fail "cull_view failed"
grep -q '^visible: 22014 leaves' <<<"$out" || fail "cull_view: unexpected output: $(head -2 <<<"$out")"
env -u DISPLAY -u WAYLAND_DISPLAY "$work/examples/render_view" "$map" "$work/view.png" \
    300,160,300 700,40,650 >/dev/null || fail "render_view failed"
"$python" - "$work/view.png" <<'PY' || fail "render_view: not a 1280x720 PNG"
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", data[16:24]) == (1280, 720)
PY
"$work/examples/cull_view" /no/such.png 2>"$work/err" && fail "cull_view accepted a missing map"
grep -qx 'cull_view: /no/such.png: no such file' "$work/err" || fail "cull_view's error: $(cat "$work/err")"

# The installed Python module, not the build tree's.
where=$(cd "$work" && PYTHONPATH="$work/prefix/$pydir" "$python" -c \
    'import quadterrain; print(quadterrain.__file__)') || fail "import quadterrain after install"
[[ "$where" == "$work/prefix/"* ]] || fail "imported $where, not the installed module"
(cd "$work" && env -u DISPLAY -u WAYLAND_DISPLAY PYTHONPATH="$work/prefix/$pydir" \
    QT_SOURCE_DIR="$source" "$python" -m pytest -q -p no:cacheprovider "$source/tests/python" \
    >"$work/pytest.log" 2>&1) || { cat "$work/pytest.log"; fail "the Python tests against the installed module"; }
echo "install_test: headers, examples and the Python module as installed: all good"
