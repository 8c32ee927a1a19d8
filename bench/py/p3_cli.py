"""P3 CLI: `meridian project` against PROJ's own command line, `cs2cs` (Debian proj-bin, the same PROJ
9.1.1 Meridian links), on the P3 points as text: 1M WGS84 lon/lat into EPSG:32038, text in and text out, each run a
fresh process timed from start to exit.

    p3_cli.py gen INPUTDIR                   writes INPUTDIR/P3.csv (lon,lat) and INPUTDIR/P3.txt (lat lon: cs2cs
                                             reads EPSG:4326 in its axis order) from INPUTDIR/P3.xy
    p3_cli.py run TOOL REPS INPUTDIR OUTDIR  TOOL: "meridian BIN [THREADS]" or "cs2cs"; prints one JSON line: wall
                                             times, peak RSS (wait4), and for Meridian the comparison with cs2cs's
                                             output when OUTDIR/P3.cs2cs.txt exists (run cs2cs first)

Both print x and y with 4 decimals (US survey feet). Meridian interpolates PROJ's operation (within 1 µm of it) and
cs2cs runs it on every point, so a printed digit can differ only where PROJ's value lies within 1 µm (3.3e-6 ft) of a
rounding boundary of the fourth decimal: the check counts such values and the largest difference.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np


def gen(folder):
    xy = np.fromfile(os.path.join(folder, "P3.xy"), dtype="<f8").reshape(-1, 2)
    lon, lat = xy[:, 0].tolist(), xy[:, 1].tolist()
    with open(os.path.join(folder, "P3.csv"), "w") as f:
        f.write("lon,lat\n")
        f.write("".join(f"{x!r},{y!r}\n" for x, y in zip(lon, lat)))
    with open(os.path.join(folder, "P3.txt"), "w") as f:
        f.write("".join(f"{y!r} {x!r}\n" for x, y in zip(lon, lat)))


def command(tool, folder, out):
    if tool == "cs2cs":
        return ["cs2cs", "-f", "%.4f", "EPSG:4326", "EPSG:32038"], os.path.join(folder, "P3.txt"), out
    parts = tool.split(" ")
    threads = ["--threads", parts[2]] if len(parts) > 2 else []
    return [parts[1], "project", os.path.join(folder, "P3.csv"), "--to", "EPSG:32038", "--quiet", "-o", out,
            *threads], None, None


def compare(meridian_csv, cs2cs_txt):
    m = np.loadtxt(meridian_csv, delimiter=",", skiprows=1)
    c = np.loadtxt(cs2cs_txt, usecols=(0, 1))
    if m.shape != c.shape:
        return {"same_numbers": False, "rows": [int(m.shape[0]), int(c.shape[0])]}
    d = np.abs(m - c)
    return {"differing_values": int(np.count_nonzero(d > 5e-5)), "max_abs_diff_printed": float(d.max())}


def run(tool, reps, folder, outdir):
    parts = tool.split(" ")
    name = "cs2cs" if tool == "cs2cs" else "meridian" + (
        f" {parts[2]} thread{'s' if parts[2] != '1' else ''}" if len(parts) > 2 else "")
    out = os.path.join(outdir, "P3.cs2cs.txt" if tool == "cs2cs" else f"P3.{name.replace(' ', '-')}.csv")
    times, peak = [], 0.0
    for _ in range(reps):
        args, stdin_path, stdout_path = command(tool, folder, out)
        stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
        stdout = open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL
        t0 = time.perf_counter()
        p = subprocess.Popen(args, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        times.append(time.perf_counter() - t0)
        err = p.stderr.read().decode(errors="replace")
        for f in (stdin, stdout):
            if f is not subprocess.DEVNULL:
                f.close()
        if os.waitstatus_to_exitcode(status) != 0:
            print(json.dumps({"tool": name, "error": f"exit {os.waitstatus_to_exitcode(status)}: {err.strip()[-300:]}"}))
            return
        peak = max(peak, usage.ru_maxrss / 1024.0)
    record = {"tool": name, "times": times, "peak_rss_mb": round(peak, 1)}
    reference = os.path.join(outdir, "P3.cs2cs.txt")
    if tool != "cs2cs" and os.path.exists(reference):
        record.update(compare(out, reference))
    print(json.dumps(record), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        run(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
