#!/bin/sh
# Runs a command under a display: as it is when DISPLAY is set, else inside xvfb-run -a.
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
    exec "$@"
fi
if command -v xvfb-run >/dev/null 2>&1; then
    exec xvfb-run -a -s "-screen 0 1280x1024x24" "$@"
fi
echo "with_display.sh: no DISPLAY and no xvfb-run; the render tests will skip" >&2
exec "$@"
