#!/bin/sh
# Runs a command under a display: as it is when DISPLAY is set, else on a private Xvfb server.
# The server picks its own free display number (-displayfd) when it takes the number's lock, so
# tests that ctest runs in parallel never share one; `xvfb-run -a` checks for a free number first
# and starts the server after, so two of them could pick the same number, and the first to exit
# took the other's display away.
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
    exec "$@"
fi
if ! command -v Xvfb >/dev/null 2>&1; then
    if command -v xvfb-run >/dev/null 2>&1; then
        exec xvfb-run -a -s "-screen 0 1920x1200x24" "$@"
    fi
    echo "with_display.sh: no DISPLAY and no Xvfb; the render tests will skip (fail under CI=true)" >&2
    exec "$@"
fi

dir=$(mktemp -d) || exit 1
server=
cleanup() {
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null
        wait "$server" 2>/dev/null
    fi
    rm -rf "$dir"
}
trap 'cleanup; exit 143' TERM INT HUP

Xvfb -displayfd 3 -screen 0 1920x1200x24 -nolisten tcp 3>"$dir/display" 2>"$dir/log" &
server=$!
# The server writes its display number once it accepts connections.
tries=0
while [ ! -s "$dir/display" ]; do
    if ! kill -0 "$server" 2>/dev/null || [ "$tries" -ge 300 ]; then
        echo "with_display.sh: Xvfb did not start: $(head -n 1 "$dir/log")" >&2
        cleanup
        exit 1
    fi
    tries=$((tries + 1))
    sleep 0.1
done

DISPLAY=":$(head -n 1 "$dir/display")"
export DISPLAY
"$@"
status=$?
cleanup
exit "$status"
