"""P5: the whole job end to end, files in and files out, as a user runs it: N points in a CSV (x,y in EPSG:5070,
metres), a 1692.6 US ft (515.9 m) round buffer (64-gon) around each, unioned, written as WKT (EPSG:5070) or as
GeoJSON (WGS84). The points are uniform in a square sized so that a buffer overlaps one other on average
(N·π·(2r)² = side²), centred in the contiguous US.

    p5.py gen N CSV [EPSG:32038]         writes the input (fixed seed)
    p5.py run TOOL FORMAT N REPS DIR [EPSG:32038]
                                         runs TOOL (meridian BIN [THREADS] | shapely | duckdb) REPS times on
                                         DIR/P5-N.csv, each run a fresh process timed from start to exit, and prints
                                         one JSON line: wall times, the largest peak RSS of the runs (the process's
                                         own, from wait4), and the output's area in m² (GeoJSON projected back to
                                         EPSG:5070)

With EPSG:32038 (P5s: the seed's NAD27 / Texas North Central, US survey feet) the points are x,y in it
(DIR/P5s-N.csv, centred at 2,400,000, 450,000 ft as P1), the buffers are 500 US ft (so that a million points, each
buffer meeting one other on average, fit the zone's horizon: a square of 540 km), WKT is in EPSG:32038 and the area
is in square US feet (GeoJSON projected back to EPSG:32038). Meridian only.

Each tool writes DIR/P5-N.TOOL.FORMAT; the last run's file is checked.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

R_US_FT = 1692.6
R_M = R_US_FT * 1200 / 3937
CENTRE = (0.0, 1_500_000.0)  # EPSG:5070 (CONUS Albers), about 96° W 36.5° N
HERE = os.path.dirname(os.path.abspath(__file__))


CENTRE_32038 = (2_400_000.0, 450_000.0)  # EPSG:32038 (US survey feet), north Texas
R_32038_US_FT = 500.0


def side(n, radius=R_M):
    return (n * np.pi * (2 * radius) ** 2) ** 0.5


def gen(n, path, srs="EPSG:5070"):
    rng = np.random.default_rng(500 + int(np.log10(n)))
    if srs == "EPSG:32038":
        xy = rng.uniform(-side(n, R_32038_US_FT) / 2, side(n, R_32038_US_FT) / 2, size=(n, 2)) + CENTRE_32038
    else:
        xy = rng.uniform(-side(n) / 2, side(n) / 2, size=(n, 2)) + CENTRE
    with open(path, "w") as f:
        f.write("id,x,y\n")
        for i, (x, y) in enumerate(xy.tolist()):
            f.write(f"{i},{x!r},{y!r}\n")


def command(tool, fmt, src, out, srs="EPSG:5070"):
    if tool.startswith("meridian"):
        parts = tool.split(" ")
        threads = ["--threads", parts[2]] if len(parts) > 2 else []
        radius = R_32038_US_FT if srs == "EPSG:32038" else R_US_FT
        return [parts[1], "buffer", src, "--srs", srs, "--distance", f"{radius}us-ft", "--union",
                "--quiet", "-o", out, *threads]
    script = {"shapely": "p5_shapely.py", "duckdb": "p5_duckdb.py"}[tool]
    return [sys.executable, os.path.join(HERE, script), fmt, src, out, repr(R_M)]


def area(path, fmt, srs="EPSG:5070"):
    """The output's area in `srs` (m² in EPSG:5070), read a chunk of polygons at a time: a 1M-point union is 2-3 GB of
    text, more than shapely's readers take in one string."""
    import re

    from pyproj import Transformer
    to_albers = Transformer.from_crs("EPSG:4326", srs, always_xy=True)
    # Between two polygons of a MULTIPOLYGON: ")), ((" in WKT, "]]],[[[" in GeoJSON.
    separator = re.compile(r"\)\)\s*,\s*\(\(" if fmt == "wkt" else r"\]\]\]\s*,\s*\[\[\[")

    def polygons_area(pieces):
        rings, shells = [], []  # each ring's (n, 2) vertices, and whether it is its polygon's shell
        for p in pieces:
            if fmt == "wkt":
                core = p[p.rindex("((") + 2:] if "((" in p else p
                core = core[:core.index("))")] if "))" in core else core
                for k, ring in enumerate(re.split(r"\)\s*,\s*\(", core)):
                    rings.append(np.array(ring.replace(",", " ").split(), dtype=float).reshape(-1, 2))
                    shells.append(k == 0)
            else:
                core = p[p.rindex("[[[") + 3:] if "[[[" in p else p
                core = core[:core.index("]]]")] if "]]]" in core else core
                for k, ring in enumerate(json.loads(f"[[[{core}]]]")):
                    rings.append(np.asarray(ring, dtype=float)[:, :2])
                    shells.append(k == 0)
        if not rings:
            return 0.0
        xy = np.concatenate(rings)
        if fmt != "wkt":
            xy = np.column_stack(to_albers.transform(xy[:, 0], xy[:, 1]))
        x, y = xy[:, 0], xy[:, 1]
        sizes = np.array([len(r) for r in rings])
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        cross = np.append(x[:-1] * y[1:] - x[1:] * y[:-1], 0.0)
        cross[starts[1:] - 1] = 0.0  # no term between the last vertex of a ring and the first of the next
        cross[-1] = 0.0
        ring_area = np.abs(np.add.reduceat(cross, starts)) / 2
        shells = np.array(shells)
        return float(ring_area[shells].sum() - ring_area[~shells].sum())

    total, rest = 0.0, ""
    with open(path) as f:
        while True:
            chunk = f.read(1 << 26)
            if not chunk:
                break
            pieces = separator.split(rest + chunk)
            rest = pieces.pop()
            total += polygons_area(pieces)
    return total + polygons_area([rest.strip()])


def run(tool, fmt, n, reps, folder, srs="EPSG:5070"):
    prefix = "P5" if srs == "EPSG:5070" else "P5s"
    src = os.path.join(folder, f"{prefix}-{n}.csv")
    parts = tool.split(" ")
    name = parts[0] + (f" {parts[2]} thread{'s' if parts[2] != '1' else ''}" if len(parts) > 2 else "")
    out = os.path.join(folder, f"{prefix}-{n}.{name.replace(' ', '-')}.{fmt}")
    times, peak = [], 0.0
    for _ in range(reps):
        if os.path.exists(out):
            os.remove(out)
        t0 = time.perf_counter()
        p = subprocess.Popen(command(tool, fmt, src, out, srs), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        times.append(time.perf_counter() - t0)
        err = p.stderr.read().decode(errors="replace")
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            print(json.dumps({"tool": name, "error": f"exit {p.returncode}: {err.strip()[-300:]}"}))
            return
        peak = max(peak, usage.ru_maxrss / 1024.0)
    print(json.dumps({"tool": name, "times": times, "peak_rss_mb": round(peak, 1), "area": area(out, fmt, srs),
                      "points": n, "format": fmt, "bytes": os.path.getsize(out)}), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(int(sys.argv[2]), sys.argv[3], *sys.argv[4:5])
    else:
        run(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6], *sys.argv[7:8])
