"""Shared by the benches of layouts served over HTTP (bench/layout_open.py,
bench/layout_latency.py): a map baked into a layout, Debian's nginx serving it on 127.0.0.1, and
the medians the tables show, and a viewer run measured by its own rusage."""
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def measured(command, tool):
    """Runs command to its end: (wall seconds, its stdout, its own rusage from wait4: peak
    resident memory, CPU time). Its output goes to files, so a chatty run cannot fill a pipe no
    one reads; exits naming `tool`, the command and its stderr when it fails."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if code != 0:
            sys.exit(f"{tool}: {' '.join(command)}: exit {code}\n{err.read()}")
        return wall, out.read(), usage


def nginx(root, prefix, tool):
    """Debian's nginx serving `root` on a free port of 127.0.0.1, its access log one line a request
    ("GET /layout/heights-0.tif 206 bytes=0-16383"); (process, URL prefix, access log path)."""
    if not os.path.exists("/usr/sbin/nginx"):
        sys.exit(f"{tool}: needs nginx (Debian's nginx package)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = os.path.join(prefix, "access.log")
    conf = os.path.join(prefix, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"daemon off; master_process off; pid {prefix}/pid; error_log {prefix}/error.log;\n"
                "events { worker_connections 64; }\n"
                "http { log_format ranges '$request_method $uri $status $http_range';\n"
                f"access_log {log} ranges; client_body_temp_path {prefix}; "
                f"proxy_temp_path {prefix}; fastcgi_temp_path {prefix}; "
                f"uwsgi_temp_path {prefix}; scgi_temp_path {prefix};\n"
                f"server {{ listen 127.0.0.1:{port}; root {root}; }} }}\n")
    process = subprocess.Popen(["/usr/sbin/nginx", "-p", prefix, "-c", conf, "-e",
                                os.path.join(prefix, "error.log")])
    for _ in range(200):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return process, f"http://127.0.0.1:{port}/", log
        time.sleep(0.05)
    process.kill()
    sys.exit(f"{tool}: nginx did not start")


def spread(values, digits):
    """The median of `values` and, for more than one, their range: "12.3 (11.0-14.1)"."""
    values = sorted(values)
    median = statistics.median(values)
    if len(values) == 1:
        return f"{median:,.{digits}f}"
    return f"{median:,.{digits}f} ({values[0]:,.{digits}f}-{values[-1]:,.{digits}f})"


def bake_to_serve(bake, source, tmp, tool):
    """`source` baked by `bake` into TMP/served/layout: (the folder nginx serves, the layout)."""
    root = os.path.join(tmp, "served")
    os.makedirs(root)
    layout = os.path.join(root, "layout")
    baked = subprocess.run([bake, source, layout], capture_output=True, text=True)
    if baked.returncode != 0:
        sys.exit(f"{tool}: {bake} {source}: {baked.stderr.strip()}")
    return root, layout
